package smpsig

import (
	"testing"

	dsig "github.com/russellhaering/goxmldsig"
)

// FuzzVerify: whatever an SMP sends, Verify answers one of its four verdicts, with a
// reason unless valid, and never panics.
func FuzzVerify(f *testing.F) {
	signed := sign(f, newSigner(f, false), dsig.RSASHA256SignatureMethod, dsig.MakeC14N10RecCanonicalizer())
	f.Add(signed)
	f.Add([]byte(smpDoc))
	f.Add([]byte("<a/>"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		r := Verify(doc)
		switch r.Status {
		case Valid, Invalid, Missing, Unverifiable:
		default:
			t.Fatalf("status %q", r.Status)
		}
		if (r.Status == Valid) != (r.Reason == "") {
			t.Fatalf("%s with reason %q", r.Status, r.Reason)
		}
	})
}
