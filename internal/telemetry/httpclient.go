package telemetry

import (
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Client returns a copy of c (nil: a client over http.DefaultTransport) whose every
// request, each hop of a redirect apart, is a client span named "<name> <method>"
// (e.g. "SMP GET") under the request context's span, with the host
// (server.address), the method, the status (http.response.status_code) and the bytes
// of the body read (http.response.body.size); a transport failure (timeout, TLS,
// refused connection) and a status of 400 or more are recorded on it with status Error
// (ClientFailing says which statuses are failures). The span ends when the body is read
// to its end or closed. When tp is not On, c itself is returned.
//
// No trace context is sent upstream (no traceparent header): the SMPs, the Directory
// and the OCSP responders are third parties, and a trace id would tell them which of
// their lookups belong to one client's request (docs/DEPLOY.md, "Traces").
func Client(c *http.Client, tp trace.TracerProvider, name string) *http.Client {
	return ClientFailing(c, tp, name, nil)
}

// ClientFailing is Client whose spans have status Error for the statuses failed
// reports (nil: 400 and more), so that an upstream's answers (an SMP's 404: not
// registered) are normal spans.
func ClientFailing(c *http.Client, tp trace.TracerProvider, name string, failed func(status int) bool) *http.Client {
	if !On(tp) {
		return c
	}
	var out http.Client
	if c != nil {
		out = *c
	}
	next := out.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	if failed == nil {
		failed = func(status int) bool { return status >= 400 }
	}
	out.Transport = &tracedTransport{next: next, tracer: tp.Tracer(scope), name: name, failed: failed}
	return &out
}

// scope is the instrumentation scope of the upstream HTTP spans.
const scope = "github.com/peppolgate/peppolgate/internal/telemetry"

// tracedTransport is Client's transport.
type tracedTransport struct {
	next   http.RoundTripper
	tracer trace.Tracer
	name   string
	failed func(status int) bool
}

func (t *tracedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if CountCall(req.Context()) {
		return t.next.RoundTrip(req)
	}
	ctx, span := t.tracer.Start(req.Context(), t.name+" "+req.Method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("http.request.method", req.Method), attribute.String("server.address", req.URL.Host)))
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		Fail(span, err, "")
		span.End()
		return resp, err
	}
	span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if t.failed(resp.StatusCode) {
		span.SetStatus(codes.Error, "HTTP "+strconv.Itoa(resp.StatusCode))
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, span: span}
	return resp, nil
}

// countingBody counts the bytes read of a response body and ends its span at the
// end of the body, a read error or Close, whichever comes first.
type countingBody struct {
	io.ReadCloser
	span trace.Span
	n    atomic.Int64
	once sync.Once
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	if err != nil {
		b.end(err)
	}
	return n, err
}

func (b *countingBody) Close() error {
	err := b.ReadCloser.Close()
	b.end(nil)
	return err
}

func (b *countingBody) end(err error) {
	b.once.Do(func() {
		b.span.SetAttributes(attribute.Int64("http.response.body.size", b.n.Load()))
		if err != nil && err != io.EOF {
			Fail(b.span, err, "")
		}
		b.span.End()
	})
}
