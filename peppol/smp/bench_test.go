package smp

import "testing"

func BenchmarkParseServiceGroup(b *testing.B) {
	data := readTestdata(b, "servicegroup-ns2-prefixed.xml")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseServiceGroup(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseServiceMetadata parses a realistic signed answer: a SignedServiceMetadata
// with one AS4 endpoint, its certificate and the SMP's signature with its certificate.
func BenchmarkParseServiceMetadata(b *testing.B) {
	data := readTestdata(b, "signedservicemetadata-as4.xml")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseServiceMetadata(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkServiceMetadataURL(b *testing.B) {
	for b.Loop() {
		_ = ServiceMetadataURL("https://smp.example.com/smp/", testPID, testDocType)
	}
}
