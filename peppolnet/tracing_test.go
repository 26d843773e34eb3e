package peppolnet

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/netsim"
)

// TestSpansRecordFailures checks the spans of failed upstream calls over the simulated
// network: each has status Error with its real cause and the attributes that say it
// (the DNS rcode, the HTTP status), and an answer ("not registered") is no failure.
func TestSpansRecordFailures(t *testing.T) {
	t.Parallel()
	n := startNet(t, 40)
	be := n.Dataset().MustLookup(netsim.KnownBelgian)
	for _, tt := range []struct {
		name   string
		id     string
		fault  netsim.Target
		f      netsim.Fault
		span   string
		attr   string
		value  string
		err    bool
		reason string
	}{
		{"SML SERVFAIL", netsim.KnownBelgian, netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail}, "SML NAPTR", "dns.rcode", "SERVFAIL", true, "DNS SERVFAIL"},
		{"not registered is an answer", netsim.KnownDirectoryOnly, netsim.Target{}, netsim.Fault{}, "SML NAPTR", "dns.rcode", "NXDOMAIN", false, ""},
		{"SMP 503", netsim.KnownBelgian, netsim.SMPHostTarget(be.SMPHost), netsim.Fault{HTTPStatus: 503}, "SMP GET", "http.response.status_code", "503", true, "HTTP 503"},
		{"SMP 404 is an answer", netsim.KnownBelgian, netsim.SMPHostTarget(be.SMPHost), netsim.Fault{HTTPStatus: 404}, "SMP GET", "http.response.status_code", "404", false, ""},
		{"Directory 500", netsim.KnownBelgian, netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500}, "Directory GET", "http.response.status_code", "500", true, "HTTP 500"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// One at a time: the faults are the network's.
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			l, _ := newLive(t, n, func(c *Config) { c.TracerProvider = tp })
			if tt.f != (netsim.Fault{}) {
				n.SetFault(tt.fault, tt.f)
				defer n.SetFault(tt.fault, netsim.Fault{})
			}
			ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
			_, _, _ = l.Lookup(ctx, mustID(t, tt.id))
			parent.End()
			var found bool
			var names []string
			for _, s := range rec.Ended() {
				names = append(names, s.Name())
				if s.Name() != tt.span {
					continue
				}
				attrs := map[string]string{}
				for _, a := range s.Attributes() {
					attrs[string(a.Key)] = a.Value.String()
				}
				if attrs[tt.attr] != tt.value {
					continue
				}
				found = true
				if (s.Status().Code == otelcodes.Error) != tt.err || s.Status().Description != tt.reason {
					t.Errorf("span %s (%s=%s): status %v; want error %v with %q", s.Name(), tt.attr, tt.value, s.Status(), tt.err, tt.reason)
				}
				if s.Parent().TraceID() != parent.SpanContext().TraceID() {
					t.Errorf("span %s is not in the request's trace", s.Name())
				}
			}
			if !found {
				t.Errorf("no span %s with %s=%s among %v", tt.span, tt.attr, tt.value, names)
			}
		})
	}
}

// TestCoalescedWaitSpan: a lookup that joins an identical one in flight shows in its
// own trace as a "coalesced wait" span linked to the first caller's span, under which
// the upstream work is.
func TestCoalescedWaitSpan(t *testing.T) {
	t.Parallel()
	n := startNet(t, 40)
	// Slow DNS, so that the second lookup surely joins the first.
	n.SetFault(netsim.DNSTarget(), netsim.Fault{Latency: 300 * time.Millisecond})
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	l, _ := newLive(t, n, func(c *Config) { c.TracerProvider = tp; c.LookupTimeout = 30 * time.Second })
	id := mustID(t, netsim.KnownBelgian)
	ctx1, first := tp.Tracer("test").Start(context.Background(), "first")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = l.Lookup(ctx1, id)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !l.lookupFlights.busy(id.String()) {
		if time.Now().After(deadline) {
			t.Fatal("the first lookup never got in flight")
		}
		time.Sleep(time.Millisecond)
	}
	ctx2, second := tp.Tracer("test").Start(context.Background(), "second")
	_, _, _ = l.Lookup(ctx2, id)
	second.End()
	<-done
	first.End()
	var found bool
	for _, s := range rec.Ended() {
		if s.Name() != "coalesced wait" {
			continue
		}
		if s.Parent().SpanID() != second.SpanContext().SpanID() || len(s.Links()) != 1 || s.Links()[0].SpanContext.SpanID() != first.SpanContext().SpanID() {
			t.Errorf("coalesced wait under %s with links %v; want under the second caller, linked to the first", s.Parent().SpanID(), s.Links())
		}
		found = true
	}
	if !found {
		t.Error("no coalesced wait span for the caller that joined")
	}
}

// headerSpy records the trace context headers of the requests it passes on.
type headerSpy struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []string // Traceparent+Tracestate of each request
	n    int
}

func (h *headerSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.n++
	if v := r.Header.Get("Traceparent") + r.Header.Get("Tracestate") + r.Header.Get("Baggage"); v != "" {
		h.seen = append(h.seen, r.URL.Host+": "+v)
	}
	h.mu.Unlock()
	return h.next.RoundTrip(r)
}

// TestNoTraceContextUpstream: a traced cold lookup sends no trace context to the SMPs,
// the Directory or the OCSP responders, through the registry's real clients, even with
// a W3C propagator installed as otel's global one (what an instrumentation library
// would inject with). The failing Directory's "upstream call failed" log line carries
// the lookup's trace id. (otel.SetTextMapPropagator is process-wide: not parallel.)
func TestNoTraceContextUpstream(t *testing.T) {
	old := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t.Cleanup(func() { otel.SetTextMapPropagator(old) })
	n := startNet(t, 40)
	n.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500})
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	spy := &headerSpy{next: http.DefaultTransport}
	var logs strings.Builder
	var logMu sync.Mutex
	l, _ := newLive(t, n, func(c *Config) {
		c.TracerProvider = tp
		c.SMP.HTTP = &http.Client{Transport: spy, Timeout: 5 * time.Second}
		c.Directory.HTTP = &http.Client{Transport: spy, Timeout: 5 * time.Second}
		c.OCSP = &http.Client{Transport: spy, Timeout: 5 * time.Second}
		c.Logger = slog.New(telemetry.WithTraceIDs(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) {
			logMu.Lock()
			defer logMu.Unlock()
			return logs.Write(p)
		}), nil)))
	})
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	_, _, _ = l.Lookup(ctx, mustID(t, netsim.KnownBelgian))
	parent.End()
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if spy.n < 3 {
		t.Fatalf("%d upstream HTTP requests went through the spy; want the SMP's, the Directory's and OCSP's", spy.n)
	}
	if len(spy.seen) > 0 {
		t.Errorf("trace context sent upstream: %v", spy.seen)
	}
	logMu.Lock()
	defer logMu.Unlock()
	found := false
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"msg":"upstream call failed"`) {
			found = true
			if !strings.Contains(line, `"trace_id":"`+parent.SpanContext().TraceID().String()+`"`) {
				t.Errorf("upstream call failed line without the lookup's trace id: %s", line)
			}
		}
	}
	if !found {
		t.Errorf("no upstream call failed line in:\n%s", logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
