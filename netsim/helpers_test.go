package netsim

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// testNow fixes the dataset's reference instant so that tests are reproducible.
var testNow = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)

func testDataset() *Dataset {
	return Generate(DatasetConfig{Seed: 42, Participants: 300, Now: testNow})
}

// startNet starts a network on a fresh dataset; it is closed at the end of the test.
func startNet(t testing.TB, cfg Config) *Network {
	t.Helper()
	n, err := Start(context.Background(), testDataset(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// get performs a GET of url (sent as is, so percent-encoding is preserved) and returns
// status, headers and body.
func get(t testing.TB, url string) (int, http.Header, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatalf("new request %s: %v", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, resp.Header, body
}
