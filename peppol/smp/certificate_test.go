package smp

import (
	"encoding/base64"
	"encoding/pem"
	"reflect"
	"strings"
	"testing"
)

// testAPCertBase64 is the AP certificate embedded in testdata/ (see testAPCert).
func testAPCertBase64(t *testing.T) string {
	t.Helper()
	sm, err := ParseServiceMetadata(readTestdata(t, "signedservicemetadata-pint-wildcard.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(sm.Processes[0].Endpoints[0].Certificate.Raw)
}

func TestDecodeCertificate(t *testing.T) {
	b64 := testAPCertBase64(t)
	lines := func(sep string) string {
		var parts []string
		for s := b64; len(s) > 0; {
			n := min(76, len(s))
			parts = append(parts, s[:n])
			s = s[n:]
		}
		return strings.Join(parts, sep)
	}
	der, _ := base64.StdEncoding.DecodeString(b64)
	tests := []struct {
		name string
		in   string
		err  string
	}{
		{name: "single line", in: b64},
		{name: "CRLF line breaks (&#13;)", in: lines("\r\n")},
		{name: "indented lines", in: "\n        " + lines("\n        ") + "\n    "},
		{name: "space separated", in: lines(" ")},
		{name: "missing padding", in: strings.TrimRight(b64, "=") + "\n"},
		{name: "PEM", in: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))},
		{name: "empty", in: " \n ", err: "certificate element is empty"},
		{name: "junk text", in: "blacert!", err: "not base64"},
		{name: "base64 of text", in: "YmxhY2VydA==", err: "not a valid X.509 certificate"},
		{name: "truncated", in: b64[:400], err: "not a valid X.509 certificate"},
		{name: "huge", in: strings.Repeat("A", maxCertificateText+1), err: "more than the 65536 allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeCertificate(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("DecodeCertificate = %v, %v; want error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cp := *got
			cp.Raw = nil
			if !reflect.DeepEqual(cp, testAPCert) {
				t.Errorf("DecodeCertificate = %+v, want %+v", cp, testAPCert)
			}
			if string(got.Raw) != string(der) {
				t.Error("Raw is not the DER encoding")
			}
		})
	}
}
