package directory

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseResult checks that no input makes ParseResult panic, that every decoded
// Result can be marshalled again (callers serve it as JSON) and that every kept match
// has a valid participant id.
func FuzzParseResult(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add(realisticPage(2))
	f.Add([]byte(`{"creation-dt":"0000-01-01T00:00:00+01:00","matches":[{"participantID":{"value":"0208:X"},"entities":[{"name":["a",{"name":"b"}],"countryCode":null}]}]}`))
	f.Add([]byte(`{"matches":[null,{"participantID":null,"entities":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResult(data)
		if err != nil {
			if r != nil {
				t.Fatalf("result %+v returned with error %v", r, err)
			}
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("decoded result does not re-marshal: %v", err)
		}
		if r.Matches == nil {
			t.Fatal("Matches is nil")
		}
		for _, m := range r.Matches {
			if len(m.Participant.ICD) != 4 || m.Participant.Value == "" {
				t.Fatalf("kept match with invalid participant %#v", m.Participant)
			}
		}
	})
}
