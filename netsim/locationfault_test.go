package netsim

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestLocationFault: a 3xx fault carries the Location the test chose.
func TestLocationFault(t *testing.T) {
	t.Parallel()
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
