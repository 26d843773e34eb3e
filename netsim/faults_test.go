package netsim

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// getWithTimeout is get with a client deadline; it returns the error instead of failing.
func getWithTimeout(url string, d time.Duration) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func TestHTTPFaults(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	be := ds.MustLookup(KnownBelgian)
	sgURL := smpURL(n, be)
	dirURL := n.DirectoryURL() + "/search/1.0/json?country=BE"
	validXML := func(b []byte) bool { return xml.Unmarshal(b, new(xServiceGroup)) == nil }
	validJSON := func(b []byte) bool { return json.Valid(b) }

	tests := []struct {
		name   string
		target Target
		fault  Fault
		url    string
		check  func(t *testing.T, status int, hdr http.Header, body []byte)
	}{
		{"smp 503 with retry-after", SMPHostTarget(0), Fault{HTTPStatus: 503, RetryAfter: "7"}, sgURL,
			func(t *testing.T, status int, hdr http.Header, body []byte) {
				if status != 503 || hdr.Get("Retry-After") != "7" {
					t.Errorf("%d %q", status, hdr.Get("Retry-After"))
				}
			}},
		{"participant 500", ParticipantTarget(be.ID), Fault{HTTPStatus: 500}, sgURL,
			func(t *testing.T, status int, _ http.Header, _ []byte) {
				if status != 500 {
					t.Errorf("%d", status)
				}
			}},
		{"directory 429", DirectoryTarget(), Fault{HTTPStatus: 429, RetryAfter: "2"}, dirURL,
			func(t *testing.T, status int, hdr http.Header, body []byte) {
				if status != 429 || hdr.Get("Retry-After") != "2" || !validJSON(body) {
					t.Errorf("%d %q %s", status, hdr.Get("Retry-After"), body)
				}
			}},
		{"smp malformed", SMPHostTarget(0), Fault{Malformed: true}, sgURL,
			func(t *testing.T, status int, _ http.Header, body []byte) {
				if status != 200 || validXML(body) || len(body) == 0 {
					t.Errorf("%d valid=%v", status, validXML(body))
				}
			}},
		{"directory malformed", DirectoryTarget(), Fault{Malformed: true}, dirURL,
			func(t *testing.T, status int, _ http.Header, body []byte) {
				if status != 200 || validJSON(body) {
					t.Errorf("%d valid=%v", status, validJSON(body))
				}
			}},
		{"smp oversize", SMPHostTarget(0), Fault{OversizeBody: 3 << 20}, sgURL,
			func(t *testing.T, status int, hdr http.Header, body []byte) {
				if status != 200 || len(body) != 3<<20 || !validXML(body) || hdr.Get("Content-Length") != "3145728" {
					t.Errorf("%d len=%d valid=%v", status, len(body), validXML(body))
				}
			}},
		{"directory oversize", DirectoryTarget(), Fault{OversizeBody: 100000}, dirURL,
			func(t *testing.T, status int, _ http.Header, body []byte) {
				if status != 200 || len(body) != 100000 || !validJSON(body) {
					t.Errorf("%d len=%d", status, len(body))
				}
			}},
		{"smp slow body", SMPHostTarget(0), Fault{SlowBody: 300 * time.Millisecond}, sgURL,
			func(t *testing.T, status int, _ http.Header, body []byte) {
				if status != 200 || !validXML(body) {
					t.Errorf("%d valid=%v", status, validXML(body))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n.SetFault(tt.target, tt.fault)
			defer n.ClearFaults()
			start := time.Now()
			status, hdr, body := get(t, tt.url)
			tt.check(t, status, hdr, body)
			// Lower bound only: the drip cannot finish before its duration.
			if tt.fault.SlowBody > 0 && time.Since(start) < tt.fault.SlowBody*9/10 {
				t.Errorf("slow body finished after %v", time.Since(start))
			}
		})
	}
	// Other participants on the host are unaffected by a participant fault.
	n.SetFault(ParticipantTarget(be.ID), Fault{HTTPStatus: 500})
	vat := ds.MustLookup(KnownBelgianVAT)
	if status, _, _ := get(t, smpURL(n, vat)); status != 200 {
		t.Errorf("other participant: %d", status)
	}
	// The zero Fault removes a fault.
	n.SetFault(ParticipantTarget(be.ID), Fault{})
	if status, _, _ := get(t, sgURL); status != 200 {
		t.Errorf("after removal: %d", status)
	}
}

func TestHTTPLatencyAndHang(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	be := n.Dataset().MustLookup(KnownBelgian)
	// The client's deadline is long enough for each request to reach its handler
	// on a busy machine (only those are counted as abandoned) and far shorter
	// than the faults.
	const timeout = time.Second
	for _, f := range []Fault{{Latency: 5 * time.Second}, {Hang: true}} {
		n.SetFault(SMPHostTarget(0), f)
		_, _, err := getWithTimeout(smpURL(n, be), timeout)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%+v: err %v, want deadline exceeded", f, err)
		}
	}
	n.SetFault(DirectoryTarget(), Fault{Hang: true})
	if _, _, err := getWithTimeout(n.DirectoryURL()+"/search/1.0/json?q=x", timeout); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("directory hang: %v", err)
	}
	// The server sees each client go away (asynchronously: it notices the closed
	// connection).
	deadline := time.Now().Add(5 * time.Second)
	for n.Hits().Abandoned < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := n.Hits().Abandoned; got != 3 {
		t.Errorf("Abandoned = %d, want 3", got)
	}
	n.ClearFaults()
	if status, _, err := getWithTimeout(smpURL(n, be), 5*time.Second); err != nil || status != 200 {
		t.Errorf("after ClearFaults: %d %v", status, err)
	}
	if got := n.Hits().Abandoned; got != 3 {
		t.Errorf("Abandoned = %d after a normal request, want 3", got)
	}
}

func TestCloseReleasesHangingRequests(t *testing.T) {
	t.Parallel()
	n, err := Start(context.Background(), testDataset(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	n.SetFault(SMPHostTarget(1), Fault{Hang: true})
	no := n.Dataset().MustLookup(KnownNorwegian)
	done := make(chan error, 1)
	go func() {
		_, _, err := getWithTimeout(smpURL(n, no), time.Minute)
		done <- err
	}()
	// Wait until the request is in the handler.
	for deadline := time.Now().Add(30 * time.Second); n.Hits().SMP[1].ServiceGroup == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the handler")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := n.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-done; err == nil {
		t.Log("hanging request ended with an empty answer")
	}
	if err := n.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, _, err := getWithTimeout(smpURL(n, no), time.Second); err == nil {
		t.Error("SMP still answers after Close")
	}
}

func TestFaultTargets(t *testing.T) {
	t.Parallel()
	id := peppol.ParticipantID{ICD: "0208", Value: "ABC"}
	if ParticipantTarget(id).Participant != "0208:abc" {
		t.Error("participant target not lower-cased")
	}
	for _, tt := range []struct {
		t    Target
		want string
	}{{DNSTarget(), "dns"}, {DirectoryTarget(), "directory"}, {SMPHostTarget(2), "smp-2"}, {ParticipantTarget(id), "participant 0208:abc"}, {Target{}, "unknown target"}} {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
	var fs faultSet
	fs.set(DNSTarget(), Fault{DNS: DNSRefused})
	fs.set(SMPHostTarget(1), Fault{HTTPStatus: 500})
	if f := fs.get(ParticipantTarget(id), SMPHostTarget(1)); f.HTTPStatus != 500 {
		t.Errorf("fallback target: %+v", f)
	}
	fs.set(ParticipantTarget(id), Fault{HTTPStatus: 503})
	if f := fs.get(ParticipantTarget(id), SMPHostTarget(1)); f.HTTPStatus != 503 {
		t.Errorf("precedence: %+v", f)
	}
	fs.clear()
	if f := fs.get(DNSTarget()); f != (Fault{}) {
		t.Errorf("after clear: %+v", f)
	}
}

func TestPaddedBody(t *testing.T) {
	t.Parallel()
	for _, total := range []int64{5, 10, 70000} {
		rec := &recorder{header: http.Header{}}
		p := &paddedBody{body: []byte("hello"), total: total}
		for p.off < total {
			p.writeTo(rec, 333)
		}
		if int64(rec.buf.Len()) != total || !strings.HasPrefix(rec.buf.String(), "hello") || strings.TrimSpace(rec.buf.String()) != "hello" {
			t.Errorf("total %d: got %d bytes", total, rec.buf.Len())
		}
	}
}

type recorder struct {
	header http.Header
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.buf.Write(b) }
func (r *recorder) WriteHeader(int)             {}
