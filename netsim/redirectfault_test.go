package netsim

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// TestLocationFault: a 3xx fault carries the Location the test chose.
func TestLocationFault(t *testing.T) {
	n := startNet(t, Config{})
	be := n.Dataset().MustLookup(KnownBelgian)
	n.SetFault(SMPHostTarget(be.SMPHost), Fault{HTTPStatus: http.StatusFound, Location: "http://127.0.0.1:1/elsewhere"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, smpURL(n, be), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "http://127.0.0.1:1/elsewhere" {
		t.Errorf("%d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestRedirectFault: ServiceMetadata requests get an SMP-level Redirect to the fault's
// URL, for any path on the host; ServiceGroup requests are answered as usual.
func TestRedirectFault(t *testing.T) {
	n := startNet(t, Config{})
	be := n.Dataset().MustLookup(KnownBelgian)
	self := smpURL(n, be) + "/services/x"
	n.SetFault(SMPHostTarget(be.SMPHost), Fault{Redirect: self})
	doc := peppol.PathEscape(be.Services[0].DocumentType.URI())
	for _, u := range []string{smpURL(n, be) + "/services/" + doc, self} {
		status, _, body := get(t, u)
		var sm xSigned
		decodeXML(t, body, &sm)
		if status != 200 || sm.Metadata.Redirect == nil || sm.Metadata.Redirect.Href != self || sm.Metadata.Info != nil {
			t.Errorf("%s: %d %s", u, status, body)
		}
	}
	status, _, body := get(t, smpURL(n, be))
	if status != 200 || !strings.Contains(string(body), "ServiceGroup") {
		t.Errorf("ServiceGroup: %d %s", status, body)
	}
}
