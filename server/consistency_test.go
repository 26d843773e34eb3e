package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// TestLookupAndServicesAgree: a participant the SML does not know, asked while the
// Directory fails. The lookup cannot rule out a Directory-only card (502), the services
// need no Directory (404); both say what the SML answered, the same fact, and neither
// calls the registration unknown while the other calls it absent.
func TestLookupAndServicesAgree(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	const absent = "0208:0999999999"
	if _, ok := e.ds.Lookup(peppol.ParticipantID{ICD: "0208", Value: "0999999999"}); ok {
		t.Fatalf("%s is in the dataset", absent)
	}
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500})
	defer e.net.ClearFaults()

	sml := "the SML answered that " + absent + " is not registered"
	for _, tc := range []struct {
		path   string
		status int
		code   registry.Code
		says   []string
	}{
		{"/api/v1/participant/" + absent, 502, registry.CodeLookupFailed,
			[]string{sml, "cannot receive documents over Peppol", "Peppol Directory could not be asked", "retry"}},
		{"/api/v1/participant/" + absent + "/services", 404, registry.CodeNotFound,
			[]string{sml, "cannot receive documents over Peppol", "the Directory is not asked", "do not retry"}},
	} {
		resp, body := e.get(t, tc.path)
		var eb errorBody
		if err := json.Unmarshal(body, &eb); err != nil || resp.StatusCode != tc.status || eb.Error.Code != tc.code {
			t.Fatalf("GET %s: %d %s, want %d %s", tc.path, resp.StatusCode, body, tc.status, tc.code)
		}
		for _, s := range tc.says {
			if !strings.Contains(eb.Error.Message, s) {
				t.Errorf("GET %s: message %q does not say %q", tc.path, eb.Error.Message, s)
			}
		}
		if strings.Contains(eb.Error.Message, "whether it is registered is unknown") {
			t.Errorf("GET %s: message %q calls the SML's definite answer unknown", tc.path, eb.Error.Message)
		}
	}
}
