package smpsig

import (
	"os"
	"testing"

	"github.com/peppolgate/peppolgate/internal/fixtures"
)

// BenchmarkVerify verifies a real signed ServiceMetadata of 6 KB (two endpoints,
// rsa-sha1, RSA-2048), from the shared upstream fixtures when present.
func BenchmarkVerify(b *testing.B) {
	doc, err := os.ReadFile(fixtures.Upstream(b, "smp-peppol/signedservicemetadata-0106-55872255-prefixed.xml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if r := Verify(doc); r.Status != Valid {
			b.Fatal(r)
		}
	}
}
