// Package otlptest is an in-process OTLP/HTTP trace receiver for tests: an HTTP server
// that accepts POST /v1/traces with a protobuf ExportTraceServiceRequest (gzipped or
// not), as a collector does, and keeps the spans it got.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, its ids in hex as the W3C traceparent writes them.
type Span struct {
	TraceID, SpanID, ParentSpanID string
	Name                          string
	// Kind is "server", "client", "internal", "producer" or "consumer".
	Kind string
	// Attrs are the span's attributes, their values as text.
	Attrs map[string]string
	// Error says the span's status is Error; StatusMessage is its description.
	Error         bool
	StatusMessage string
	// Resource are the attributes of the resource the span came with (service.name...).
	Resource map[string]string
}

// Receiver is a running receiver. It is safe for concurrent use.
type Receiver struct {
	// URL is the receiver's base URL, for OTEL_EXPORTER_OTLP_ENDPOINT.
	URL string

	mu       sync.Mutex
	spans    []Span
	requests int
	bad      []string
}

// Start starts a receiver on a loopback port, stopped when the test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Requests returns how many export requests arrived, and the reasons of those that
// could not be read.
func (r *Receiver) Requests() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests, append([]string(nil), r.bad...)
}

func (r *Receiver) fail(w http.ResponseWriter, code int, why string) {
	r.mu.Lock()
	r.bad = append(r.bad, why)
	r.mu.Unlock()
	http.Error(w, why, code)
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests++
	r.mu.Unlock()
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		r.fail(w, http.StatusNotFound, req.Method+" "+req.URL.Path+": only POST /v1/traces is served")
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.fail(w, http.StatusUnsupportedMediaType, "Content-Type "+ct+", want application/x-protobuf")
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			r.fail(w, http.StatusBadRequest, "gzip: "+err.Error())
			return
		}
		body = zr
	}
	b, err := io.ReadAll(io.LimitReader(body, 16<<20))
	if err != nil {
		r.fail(w, http.StatusBadRequest, "reading: "+err.Error())
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &msg); err != nil {
		r.fail(w, http.StatusBadRequest, "decoding ExportTraceServiceRequest: "+err.Error())
		return
	}
	var got []Span
	for _, rs := range msg.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				got = append(got, Span{
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentSpanID: hex.EncodeToString(s.GetParentSpanId()), Name: s.GetName(), Kind: kind(s.GetKind()),
					Attrs: attrs(s.GetAttributes()), Error: s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
					StatusMessage: s.GetStatus().GetMessage(), Resource: res,
				})
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func kind(k tracepb.Span_SpanKind) string {
	switch k {
	case tracepb.Span_SPAN_KIND_SERVER:
		return "server"
	case tracepb.Span_SPAN_KIND_CLIENT:
		return "client"
	case tracepb.Span_SPAN_KIND_PRODUCER:
		return "producer"
	case tracepb.Span_SPAN_KIND_CONSUMER:
		return "consumer"
	}
	return "internal"
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.GetKey()] = x.StringValue
		case *commonpb.AnyValue_IntValue:
			out[kv.GetKey()] = strconv.FormatInt(x.IntValue, 10)
		case *commonpb.AnyValue_BoolValue:
			out[kv.GetKey()] = strconv.FormatBool(x.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			out[kv.GetKey()] = strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
		default:
			out[kv.GetKey()] = v.String()
		}
	}
	return out
}
