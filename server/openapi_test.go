package server

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// openAPIValidator checks real responses against the OpenAPI document the server
// publishes (kin-openapi's openapi3filter, JSON Schema 2020-12 for OpenAPI 3.1):
//
//   - the request's path and method must be an operation; a path that is none must
//     answer as components/responses/RouteNotFound (404 route_not_found), a method
//     the path does not have as components/responses/MethodNotAllowed (405
//     method_not_allowed with Allow): OpenAPI has no wildcard path, so those two
//     shared responses are what the document says about such requests;
//   - the status must be documented for the operation (no "default" is published, so
//     an undocumented status is an error);
//   - the Content-Type must be one of the response's media types, and a response
//     without media types must have no body;
//   - documented headers must be present when required and match their schemas
//     (Retry-After on 429, Allow on 405);
//   - a JSON body (application/json, +json) must match its schema, including each
//     error response's enumeration of the operation's codes. Other bodies (event
//     streams, Markdown, HTML) are checked for status and Content-Type only; /mcp's
//     JSON-RPC bodies are documented loosely (any object) and checked as such.
//
// HEAD, when the document has no HEAD operation for the path, is checked as the GET
// operation without its body (RFC 9110 §9.3.2: the same response without content).
// OPTIONS on a documented path without an OPTIONS operation (CORS preflights, RFC
// 9110 §9.3.7) belongs to HTTP and the Fetch protocol, not to the API: it must be
// 2xx without a body, or an error status with the error object (/mcp refuses a
// preflight from an origin it does not allow with 403 forbidden).
type openAPIValidator struct {
	doc    *openapi3.T
	router routers.Router
}

// newOpenAPIValidator loads the OpenAPI document s serves, validates it with
// kin-openapi and builds a router over its paths.
func newOpenAPIValidator(t testing.TB, s *Server) *openAPIValidator {
	t.Helper()
	raw := s.docs.body[docOpenAPI]
	if len(raw) == 0 {
		t.Fatal("the server has no OpenAPI document")
	}
	if v, ok := loadedDocuments.Load(string(raw)); ok {
		return v.(*openAPIValidator)
	}
	v, err := loadValidator(raw)
	if err != nil {
		t.Fatal(err)
	}
	loadedDocuments.Store(string(raw), v)
	return v
}

// loadedDocuments memoises loadValidator by document (string → *openAPIValidator):
// loading takes ~20 ms (~180 ms with -race), and the server tests start some 85
// servers that nearly all serve the same document. A validator is only read once
// loaded, so tests may share it.
var loadedDocuments sync.Map

func loadValidator(raw []byte) (*openAPIValidator, error) {
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("OpenAPI document does not load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("OpenAPI document is not valid: %w", err)
	}
	// Route on paths only: test servers listen on 127.0.0.1 ports, not on the base
	// URL the document's servers name, and gorillamux would match the host.
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("OpenAPI router: %w", err)
	}
	return &openAPIValidator{doc: doc, router: router}, nil
}

// validating returns s as a handler whose every response is checked against s's
// OpenAPI document; a mismatch is reported with t.Errorf naming the method, path,
// status and what did not match.
func validating(t testing.TB, s *Server) http.Handler {
	t.Helper()
	return newOpenAPIValidator(t, s).wrap(t, s)
}

// wrap returns h with every response checked. The test waits, in its cleanup, for
// the responses still being written (an HTTP/2 server's Close does not wait for its
// handlers), so every check reports to a test that is still running.
func (v *openAPIValidator) wrap(t testing.TB, h http.Handler) http.Handler {
	var inFlight sync.WaitGroup
	t.Cleanup(inFlight.Wait)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Done()
		req := r.Clone(context.WithoutCancel(r.Context()))
		rec := &recordingWriter{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		status, header, body := rec.result()
		if rec.cut && header.Get("Content-Type") == mediaNDJSON {
			// Its connection failed: the lines written whole are checked.
			body = body[:bytes.LastIndexByte(body, '\n')+1]
		}
		if header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err == nil {
				body, err = io.ReadAll(zr)
			}
			if err != nil {
				t.Errorf("%s %s: a gzip body that does not decompress: %v", r.Method, r.URL.RequestURI(), err)
			}
		}
		if err := v.check(req, status, header, body); err != nil {
			t.Errorf("OpenAPI: %s %s → %d %s: %v", r.Method, r.URL.RequestURI(), status, header.Get("Content-Type"), err)
		}
	})
}

// check validates one response to r.
func (v *openAPIValidator) check(r *http.Request, status int, header http.Header, body []byte) error {
	head := r.Method == http.MethodHead
	if isPageRequest(r) || prefersHTML(r.Header.Get("Accept")) && strings.HasPrefix(header.Get("Content-Type"), "text/html") {
		// The pages for people, error pages for browsers included, are not part of
		// the API (server/pages.go); pages_test.go checks them.
		return nil
	}
	route, params, err := v.router.FindRoute(r)
	if r.Method == http.MethodOptions && errors.Is(err, routers.ErrMethodNotAllowed) {
		switch {
		case status >= 400:
			route, err = v.anyError(r, status)
		case status/100 != 2 || len(body) > 0:
			return fmt.Errorf("OPTIONS on a documented path answered %d with %d body bytes; want 2xx without a body, or an error", status, len(body))
		default:
			return nil
		}
	}
	if head && errors.Is(err, routers.ErrMethodNotAllowed) {
		get := r.Clone(r.Context())
		get.Method = http.MethodGet
		route, params, err = v.router.FindRoute(get)
	}
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		route, err = v.shared(r, "RouteNotFound", Status(CodeRouteNotFound))
	case errors.Is(err, routers.ErrMethodNotAllowed):
		route, err = v.shared(r, "MethodNotAllowed", Status(CodeMethodNotAllowed))
	}
	if err != nil {
		return err
	}
	resp := route.Operation.Responses.Status(status)
	if resp == nil {
		return fmt.Errorf("status %d is not documented for %s %s (documented: %s)",
			status, route.Method, route.Path, strings.Join(slices.Sorted(mapKeys(route.Operation.Responses.Map())), ", "))
	}
	ct := header.Get("Content-Type")
	content := resp.Value.Content
	switch {
	case len(content) == 0 && len(body) > 0:
		return fmt.Errorf("%s %s %d is documented without a body, but has %d bytes of %s", route.Method, route.Path, status, len(body), ct)
	case len(content) > 0 && (len(body) > 0 || ct != "") && content.Get(ct) == nil:
		return fmt.Errorf("Content-Type %q is not documented for %s %s %d (documented: %s)",
			ct, route.Method, route.Path, status, strings.Join(slices.Sorted(mapKeys(content)), ", "))
	}
	// kin-openapi skips HEAD entirely; check the headers as for GET.
	vr := r
	if head {
		vr = r.Clone(r.Context())
		vr.Method = http.MethodGet
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: vr, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			ExcludeResponseBody:   head || len(content) == 0 || !isJSONType(ct),
			MultiError:            true,
		},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err
	}
	if head || len(content) == 0 {
		return nil
	}
	switch mt, _, _ := mime.ParseMediaType(ct); mt {
	case "application/x-ndjson":
		return checkLines(content.Get(ct), body)
	case "text/csv":
		return checkCSV(body)
	}
	return nil
}

// checkLines validates each line of an NDJSON body against the items of its media
// type's contentSchema (one of the documented kinds of line).
func checkLines(media *openapi3.MediaType, body []byte) error {
	if media == nil || media.Schema == nil || media.Schema.Value == nil || media.Schema.Value.ContentSchema == nil ||
		media.Schema.Value.ContentSchema.Value.Items == nil {
		return errors.New("an NDJSON response without a contentSchema of its lines")
	}
	items := media.Schema.Value.ContentSchema.Value.Items.Value
	if len(body) > 0 && body[len(body)-1] != '\n' {
		return errors.New("the NDJSON body does not end in a newline")
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
		if len(body) == 0 {
			break
		}
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("NDJSON line %d is not JSON: %v: %s", i+1, err, line)
		}
		if err := items.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			return fmt.Errorf("NDJSON line %d does not match the document: %v: %s", i+1, err, line)
		}
	}
	return nil
}

// checkCSV checks a CSV body: a header, and every record as wide as it. A check
// answers in the dialect it was given (delimiter, byte order mark): the delimiter is
// the header line's most frequent.
func checkCSV(body []byte) error {
	body = bytes.TrimPrefix(body, []byte("\ufeff"))
	head, _, _ := bytes.Cut(body, []byte("\n"))
	cr := csv.NewReader(bytes.NewReader(body))
	for _, d := range []byte{';', '\t'} {
		if bytes.Count(head, []byte{d}) > bytes.Count(head, []byte{byte(cr.Comma)}) {
			cr.Comma = rune(d)
		}
	}
	recs, err := cr.ReadAll()
	switch {
	case err != nil:
		return fmt.Errorf("the CSV body does not parse: %v", err)
	case len(recs) == 0:
		return errors.New("the CSV body has no header")
	}
	return nil
}

// shared is a route for a request no operation matches, answered by the shared
// response name with status.
func (v *openAPIValidator) shared(r *http.Request, name string, status int) (*routers.Route, error) {
	ref := v.doc.Components.Responses[name]
	if ref == nil {
		return nil, fmt.Errorf("no operation matches and the document has no components/responses/%s", name)
	}
	return &routers.Route{
		Spec:      v.doc,
		Path:      r.URL.Path,
		Method:    r.Method,
		Operation: &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(status, ref))},
	}, nil
}

// anyError is a route for a refused OPTIONS request: whatever its status, the body
// must be the error object (its code any code of the table).
func (v *openAPIValidator) anyError(r *http.Request, status int) (*routers.Route, error) {
	schema := v.doc.Components.Schemas["Error"]
	if schema == nil {
		return nil, errors.New("the document has no components/schemas/Error")
	}
	desc := "an error"
	resp := &openapi3.Response{Description: &desc, Content: openapi3.NewContentWithJSONSchemaRef(schema)}
	return &routers.Route{
		Spec:      v.doc,
		Path:      r.URL.Path,
		Method:    r.Method,
		Operation: &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(status, &openapi3.ResponseRef{Value: resp}))},
	}, nil
}

func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// maxRecordedBody bounds what recordingWriter keeps of a body; longer bodies fail
// validation as truncated JSON, which no test response comes near.
const maxRecordedBody = 8 << 20

// recordingWriter passes a response through and keeps its status, headers and body.
// It keeps Flush and the other optional interfaces reachable through Unwrap, so event
// streams still stream.
type recordingWriter struct {
	http.ResponseWriter
	mu     sync.Mutex
	status int
	header http.Header
	body   bytes.Buffer
	// cut says a write to the connection failed (the client went away or stopped
	// reading): the body ends where the connection did.
	cut bool
}

func (w *recordingWriter) WriteHeader(code int) {
	w.mu.Lock()
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.mu.Unlock()
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.snapshot(p)
	if room := maxRecordedBody - w.body.Len(); room > 0 {
		w.body.Write(p[:min(len(p), room)])
	}
	w.mu.Unlock()
	n, err := w.ResponseWriter.Write(p)
	if err != nil {
		w.mu.Lock()
		w.cut = true
		w.mu.Unlock()
	}
	return n, err
}

func (w *recordingWriter) Flush() {
	w.mu.Lock()
	w.snapshot(nil)
	w.mu.Unlock()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// snapshot records the headers as they go out: at the first write or flush, with the
// Content-Type net/http would sniff from the first bytes when none is set.
func (w *recordingWriter) snapshot(first []byte) {
	if w.header != nil {
		return
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.header = w.ResponseWriter.Header().Clone()
	if w.header.Get("Content-Type") == "" && len(first) > 0 && w.header.Get("Transfer-Encoding") == "" {
		w.header.Set("Content-Type", http.DetectContentType(first))
	}
}

// result is the response as sent.
func (w *recordingWriter) result() (int, http.Header, []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.snapshot(nil)
	return w.status, w.header, bytes.Clone(w.body.Bytes())
}

// TestOpenAPIGolden compares the served /openapi.json with the golden file, so a
// change to the document is a visible diff in review (rewrite with -update).
func TestOpenAPIGolden(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, func(c *Config) {
		c.BaseURL = "https://peppolgate.example"
		c.Version = "v1.0.0"
		// As the default deployment: production, and test per request.
		c.Networks = prodAndTest(t, &fakeRegistry{}, &fakeRegistry{})
	})
	h := validating(t, s)
	w := do(t, h, "GET", "/openapi.json")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %s", w.Code, w.Body)
	}
	got := w.Body.Bytes()
	generated, err := discovery.OpenAPI(s.API())
	if err != nil || !bytes.Equal(got, generated) {
		t.Errorf("served document differs from discovery.OpenAPI(s.API()) (%v)", err)
	}
	path := filepath.Join("testdata", "openapi.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./server -run TestOpenAPIGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("GET /openapi.json differs from %s; rerun with -update if intended, and review the diff", path)
	}
}

// TestOpenAPIDocument checks what the validator relies on and what the issue asks of
// the real document: every route of the table is an operation, error codes come
// from the one table, and the shared responses exist.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	v := newOpenAPIValidator(t, s)
	for _, e := range s.API().Endpoints {
		op := v.doc.Paths.Find(e.Path).GetOperation(e.Method)
		if op == nil {
			t.Errorf("%s %s is not an operation", e.Method, e.Path)
			continue
		}
		for _, c := range e.Errors {
			if op.Responses.Status(Status(c)) == nil {
				t.Errorf("%s %s: code %s has no %d response", e.Method, e.Path, c, Status(c))
			}
		}
	}
	for _, name := range []string{"RouteNotFound", "MethodNotAllowed"} {
		if v.doc.Components.Responses[name] == nil {
			t.Errorf("components/responses/%s missing", name)
		}
	}
	if len(v.doc.Servers) != 0 {
		t.Errorf("validator must route on paths only")
	}
}

// TestOpenAPIValidatorCatches feeds the validator responses that break the document,
// so it is known to fail when the server drifts from it.
func TestOpenAPIValidatorCatches(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	v := newOpenAPIValidator(t, s)
	jsonCT := http.Header{"Content-Type": {"application/json"}}
	participant := `{"participantId":"0208:0677424046","directory":null,"smp":null}`
	tests := []struct {
		name, method, path string
		hdr                http.Header
		status             int
		header             http.Header
		body               string
		wantIn             string // "" means valid
	}{
		{name: "participant", method: "GET", path: "/api/v1/participant/0208:0677424046", status: 200, header: jsonCT, body: participant},
		{name: "participant HEAD", method: "HEAD", path: "/api/v1/participant/0208:0677424046", status: 200, header: jsonCT},
		{name: "wrong field type", method: "GET", path: "/api/v1/participant/0208:0677424046", status: 200, header: jsonCT,
			body: `{"participantId":42,"directory":null,"smp":null}`, wantIn: "participantId"},
		{name: "unknown field", method: "GET", path: "/api/v1/participant/0208:0677424046", status: 200, header: jsonCT,
			body: `{"participantId":"0208:1","directory":null,"smp":null,"extra":1}`, wantIn: "extra"},
		{name: "undocumented status", method: "GET", path: "/api/v1/participant/0208:0677424046", status: 418, header: jsonCT,
			body: `{}`, wantIn: "status 418 is not documented"},
		{name: "wrong content type", method: "GET", path: "/api/v1/participant/0208:0677424046", status: 200,
			header: http.Header{"Content-Type": {"text/plain"}}, body: participant, wantIn: "Content-Type"},
		{name: "code of another status", method: "GET", path: "/api/v1/participant/0208:0677424046", status: 404, header: jsonCT,
			body: `{"error":{"code":"invalid_participant_id","message":"x"}}`, wantIn: "invalid_participant_id"},
		{name: "code of another endpoint", method: "GET", path: "/api/v1/participant/0208:0677424046", status: 502, header: jsonCT,
			body: `{"error":{"code":"search_failed","message":"x"}}`, wantIn: "search_failed"},
		{name: "not found", method: "GET", path: "/api/v1/participant/0208:0677424046", status: 404, header: jsonCT,
			body: `{"error":{"code":"not_found","message":"x"}}`},
		{name: "unknown route", method: "GET", path: "/nope", status: 404, header: jsonCT,
			body: `{"error":{"code":"route_not_found","message":"x"}}`},
		{name: "unknown route answered 200", method: "GET", path: "/nope", status: 200, header: jsonCT, body: `{}`, wantIn: "status 200"},
		{name: "unknown route wrong code", method: "GET", path: "/nope", status: 404, header: jsonCT,
			body: `{"error":{"code":"not_found","message":"x"}}`, wantIn: "not_found"},
		{name: "405 with Allow", method: "DELETE", path: "/api/v1/search", status: 405,
			header: http.Header{"Content-Type": {"application/json"}, "Allow": {"GET, HEAD, OPTIONS"}},
			body:   `{"error":{"code":"method_not_allowed","message":"x"}}`},
		{name: "405 without Allow", method: "DELETE", path: "/api/v1/search", status: 405, header: jsonCT,
			body: `{"error":{"code":"method_not_allowed","message":"x"}}`, wantIn: "Allow"},
		{name: "undocumented method answered", method: "PUT", path: "/healthz", status: 200, header: jsonCT, body: `{"status":"ok"}`, wantIn: "status 200"},
		{name: "ask stream", method: "POST", path: "/ask", status: 200,
			header: http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}, body: "event: start\ndata: {}\n\n"},
		{name: "ask JSON wrong shape", method: "POST", path: "/ask", status: 200, header: jsonCT, body: `{"answer":1}`, wantIn: "answer"},
		{name: "preflight", method: "OPTIONS", path: "/api/v1/search", hdr: http.Header{"Access-Control-Request-Method": {"GET"}}, status: 204},
		{name: "OPTIONS with a body", method: "OPTIONS", path: "/api/v1/search", status: 200, header: jsonCT, body: "{}", wantIn: "OPTIONS"},
		{name: "OPTIONS on an unknown path", method: "OPTIONS", path: "/nope", status: 204, wantIn: "status 204"},
		{name: "mcp JSON-RPC", method: "POST", path: "/mcp", status: 200, header: jsonCT, body: `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{name: "mcp undocumented status", method: "POST", path: "/mcp", status: 500, header: jsonCT, body: `{}`, wantIn: "status 500"},
		{name: "mcp undocumented method", method: "PUT", path: "/mcp", status: 200, header: jsonCT, body: `{}`, wantIn: "status 200"},
		{name: "OPTIONS refused", method: "OPTIONS", path: "/mcp", status: 403, header: jsonCT, body: `{"error":{"code":"forbidden","message":"x"}}`},
		{name: "OPTIONS refused without the error object", method: "OPTIONS", path: "/mcp", status: 403, header: jsonCT, body: `{"x":1}`, wantIn: "error"},
		{name: "body where none documented", method: "GET", path: "/nope", status: 404, header: http.Header{}, body: "oops", wantIn: "Content-Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, nil)
			for k, vs := range tt.hdr {
				r.Header[k] = vs
			}
			err := v.check(r, tt.status, tt.header, []byte(tt.body))
			switch {
			case tt.wantIn == "" && err != nil:
				t.Errorf("valid response rejected: %v", err)
			case tt.wantIn != "" && (err == nil || !strings.Contains(err.Error(), tt.wantIn)):
				t.Errorf("error %v, want one containing %q", err, tt.wantIn)
			}
		})
	}
}

// TestOpenAPIValidatorStreams checks that the wrapped handler still streams: each
// event reaches the client while the handler is still running.
func TestOpenAPIValidatorStreams(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	v := newOpenAPIValidator(t, s)
	next := make(chan struct{})
	h := v.wrap(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 2 {
			fmt.Fprintf(w, "event: result\ndata: {\"index\":%d}\n\n", i)
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Errorf("flush through the validator: %v", err)
			}
			select { // a client that gave up ends the handler, so Close does not wait forever
			case <-next:
			case <-r.Context().Done():
				return
			}
		}
	}))
	hs := httptest.NewServer(h)
	defer hs.Close()
	// A validator that buffers instead of streaming fails the test, not hangs it.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+"/ask", strings.NewReader(`{"query":"x"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64)
	for i := range 2 {
		n, err := resp.Body.Read(buf)
		if err != nil || !strings.Contains(string(buf[:n]), `"index":`+strconv.Itoa(i)) {
			t.Fatalf("event %d: %q %v", i, buf[:n], err)
		}
		next <- struct{}{}
	}
}

// exampleBaseURL is what the captured examples write where the service's base URL
// goes; discovery.OpenAPI puts the real one back.
const exampleBaseURL = "{base_url}"

// e2eBaseURL is startE2E's base URL.
const e2eBaseURL = "http://peppolgate.test"

// examplesDir is where the captured examples go: discovery embeds them and
// discovery.OpenAPI publishes them with the operations they belong to.
var examplesDir = filepath.Join("..", "discovery", "examples")

// TestOpenAPIExamples captures the examples the OpenAPI document publishes from real
// responses of the whole stack on the simulated network, into discovery/examples
// (rewrite with -update): <operationId>.<status>.json and .sse for success bodies,
// <operationId>.<code>.json for error bodies, error.<code>.json for the responses
// to requests no operation matches. Without -update it checks the files are still
// what the server answers, apart from what changes every run (netsim's ports,
// certificate fingerprints, timings), so a published example cannot go stale.
func TestOpenAPIExamples(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	s, _ := newTestServer(t, &fakeRegistry{}, func(c *Config) {
		c.Networks = prodAndTest(t, &fakeRegistry{}, &fakeRegistry{})
	})
	v := newOpenAPIValidator(t, s)
	limitedURL := startLimited(t)
	absent := "0208:0999999999"
	tests := []struct {
		file         string
		method, path string
		body         string
		hdr          []string
		fault        func()
		status       int
		// limited sends the request to a server with the default rate limits, once
		// per token of its burst first.
		limited int
	}{
		{file: "getParticipant.200.json", method: "GET", path: "/api/v1/participant/" + netsim.KnownBelgian, status: 200},
		{file: "searchDirectory.200.json", method: "GET", path: "/api/v1/search?q=vandelanotte", status: 200},
		{file: "getParticipantServices.200.json", method: "GET", path: "/api/v1/participant/" + netsim.KnownCertExpiring + "/services", status: 200},
		{file: "getParticipantServices.not_found.json", method: "GET", path: "/api/v1/participant/" + netsim.KnownBelgian + "/services?docType=busdox-docid-qns::urn:example:none", status: 404},
		{file: "getParticipantServices.invalid_request.json", method: "GET", path: "/api/v1/participant/" + netsim.KnownBelgian + "/services?docType=invoice", status: 400},
		{file: "ask.200.json", method: "POST", path: "/ask", body: `{"query": "Can Vandelanotte receive credit notes?"}`,
			hdr: []string{"Content-Type", "application/json"}, status: 200},
		{file: "ask.200.sse", method: "POST", path: "/ask", body: `{"query": "Which access point serves BE0677424046?"}`,
			hdr: []string{"Content-Type", "application/json", "Accept", "text/event-stream"}, status: 200},
		{file: "checkParticipants.200.ndjson", method: "POST", path: "/api/v1/check", body: checkExampleJSON,
			hdr: []string{"Content-Type", "application/json"}, status: 200},
		{file: "checkParticipants.200.csv", method: "POST", path: "/api/v1/check?documents=Invoice,Credit%20Note", body: checkExampleCSV,
			hdr: []string{"Content-Type", "text/csv", "Accept", "text/csv"}, status: 200},
		{file: "checkParticipants.unsupported_media_type.json", method: "POST", path: "/api/v1/check", body: "<rows/>",
			hdr: []string{"Content-Type", "application/xml"}, status: 415},
		{file: "checkParticipants.invalid_request.json", method: "POST", path: "/api/v1/check?documents=Invoice,Bill", body: `"BE0677424046"`,
			hdr: []string{"Content-Type", "application/x-ndjson"}, status: 400},
		{file: "checkParticipants.too_many_rows.json", method: "POST", path: "/api/v1/check", body: strings.Repeat("\"BE0677424046\"\n", DefaultCheckRows+1),
			hdr: []string{"Content-Type", "application/x-ndjson"}, status: 413},
		{file: "checkParticipants.body_too_large.json", method: "POST", path: "/api/v1/check", body: "VAT\n" + strings.Repeat("BE0677424046\n", DefaultCheckBody/13+1),
			hdr: []string{"Content-Type", "text/csv"}, status: 413},
		{file: "getParticipant.invalid_participant_id.json", method: "GET", path: "/api/v1/participant/0208-0677424046", status: 400},
		{file: "getParticipant.not_found.json", method: "GET", path: "/api/v1/participant/" + absent, status: 404},
		{file: "getParticipant.invalid_request.json", method: "GET", path: "/api/v1/participant/" + netsim.KnownBelgian + "?network=staging", status: 400},
		{file: "searchDirectory.missing_query.json", method: "GET", path: "/api/v1/search", status: 400},
		{file: "searchDirectory.query_too_short.json", method: "GET", path: "/api/v1/search?q=x", status: 400},
		{file: "searchDirectory.invalid_request.json", method: "GET", path: "/api/v1/search?q=acme&country=BEL", status: 400},
		{file: "networkStatistics.statistics_unavailable.json", method: "GET", path: "/api/v1/stats", status: 503},
		{file: "error.route_not_found.json", method: "GET", path: "/api/v1/participants", status: 404},
		{file: "error.method_not_allowed.json", method: "DELETE", path: "/api/v1/search", status: 405},
		{file: "ask.unsupported_media_type.json", method: "POST", path: "/ask", body: `<query>acme</query>`,
			hdr: []string{"Content-Type", "application/xml"}, status: 415},
		{file: "ask.invalid_request.json", method: "POST", path: "/ask", body: `{"question": "Is Acme on Peppol?"}`,
			hdr: []string{"Content-Type", "application/json"}, status: 400},
		{file: "mcp.forbidden.json", method: "POST", path: "/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			hdr: []string{"Content-Type", "application/json", "Origin", "https://evil.example"}, status: 403},
		{file: "getParticipant.lookup_failed.json", method: "GET", path: "/api/v1/participant/" + netsim.KnownDutch, status: 502,
			fault: func() { e.net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail}) }},
		{file: "searchDirectory.search_failed.json", method: "GET", path: "/api/v1/search?q=acme", status: 502,
			fault: func() { e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 429, RetryAfter: "7"}) }},
		{file: "ask.ask_failed.json", method: "POST", path: "/ask", body: `{"query": "Is Bakkerij Jansen on Peppol?"}`,
			hdr: []string{"Content-Type", "application/json"}, status: 502,
			fault: func() { e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500}) }},
		{file: "getParticipant.rate_limited.json", method: "GET", path: "/api/v1/participant/" + netsim.KnownBelgian, status: 429, limited: 40},
		{file: "ask.rate_limited.json", method: "POST", path: "/ask", body: `{"query": "Is Acme on Peppol?"}`,
			hdr: []string{"Content-Type", "application/json"}, status: 429, limited: 5},
		{file: "mcp.rate_limited.json", method: "POST", path: "/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			hdr: []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, status: 429, limited: 40},
	}
	ops := map[string]bool{"error": true}
	for _, ep := range s.API().Endpoints {
		ops[ep.OperationID] = true
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if op, _, _ := strings.Cut(tt.file, "."); !ops[op] {
			t.Errorf("%s: %s is no operation id; the document would not use it", tt.file, op)
		}
		t.Run(tt.file, func(t *testing.T) {
			if tt.fault != nil {
				tt.fault()
				defer e.net.ClearFaults()
			}
			base := e.url
			if tt.limited > 0 {
				base = limitedURL
			}
			send := func() *http.Response {
				req, err := http.NewRequestWithContext(t.Context(), tt.method, base+tt.path, strings.NewReader(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i+1 < len(tt.hdr); i += 2 {
					req.Header.Set(tt.hdr[i], tt.hdr[i+1])
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				return resp
			}
			for range tt.limited {
				resp := send()
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			resp := send()
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			// The example must be a valid answer of its operation, whatever the helpers
			// that start test servers check.
			r := httptest.NewRequest(tt.method, tt.path, nil)
			if err := v.check(r, resp.StatusCode, resp.Header, body); err != nil {
				t.Fatalf("captured response does not match the document: %v", err)
			}
			got := exampleFile(t, tt.file, body, base)
			seen[tt.file] = true
			path := filepath.Join(examplesDir, tt.file)
			want, readErr := os.ReadFile(path)
			if *update && (readErr != nil || !bytes.Equal(volatile(got), volatile(want))) {
				if err := os.MkdirAll(examplesDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			// -update keeps a file that differs only in what changes every run, so the
			// examples (and the golden document) change only when the answers do.
			if readErr != nil {
				t.Fatalf("%v (run go test ./server -run TestOpenAPIExamples -update)", readErr)
			}
			if !bytes.Equal(volatile(got), volatile(want)) {
				t.Errorf("%s is no longer what the server answers; rerun with -update and review:\n%s", path, got)
			}
		})
	}
	entries, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range entries {
		if !seen[de.Name()] {
			t.Errorf("%s: no test captures it; remove it", filepath.Join(examplesDir, de.Name()))
		}
	}
}

// startLimited starts a server with cmd/peppolgate's default rate limits (REST and
// /mcp 20 per second, bursts of 40; /ask 2 per second, bursts of 5) on a frozen
// clock, so that a client is refused exactly after its burst, and returns its URL.
func startLimited(t *testing.T) string {
	t.Helper()
	reg := &fakeRegistry{part: samplePart(netsim.KnownBelgian),
		result: &registry.SearchResult{Query: "acme", Results: []registry.SearchHit{}}}
	s, _ := newTestServer(t, reg, func(c *Config) {
		c.BaseURL = e2eBaseURL
		c.RateLimit = RateLimit{Rate: 20, Burst: 40}
		c.AskRateLimit = RateLimit{Rate: 2, Burst: 5}
		c.MCPRateLimit = RateLimit{Rate: 20, Burst: 40}
	})
	useClock(s, clock.NewFake(time.Now()))
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return hs.URL
}

// The JSON body of the bulk check's example: a ledger in mixed notations, with an
// invalid row and one nobody registered (the CSV's is checkExampleCSV).
const (
	checkExampleJSON = `{"documents": ["Invoice", "Credit Note"], "rows": [
		{"input": "BE 0677.424.046", "reference": "C-1001"},
		{"input": "0192:923609016", "reference": "C-1002"},
		{"input": "556036-0793", "country": "SE", "reference": "C-1003"},
		{"input": "0208:0999999999", "reference": "C-1004"},
		"hello world"]}`
)

// exampleFile is a captured body as stored: JSON indented, NDJSON lines in input
// order (they come as rows finish), the test server's URL and base URL replaced by
// the placeholder.
func exampleFile(t *testing.T, name string, body []byte, serverURL string) []byte {
	t.Helper()
	out := body
	if strings.HasSuffix(name, ".ndjson") {
		lines := bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n"))
		index := func(line []byte) int {
			var v struct {
				Index *int `json:"index"`
			}
			if json.Unmarshal(line, &v) != nil || v.Index == nil {
				return math.MaxInt // the summary, last
			}
			return *v.Index
		}
		slices.SortStableFunc(lines, func(a, b []byte) int { return cmp.Compare(index(a), index(b)) })
		out = append(bytes.Join(lines, []byte("\n")), '\n')
	}
	if strings.HasSuffix(name, ".json") {
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err != nil {
			t.Fatalf("body is not JSON: %v\n%s", err, body)
		}
		out = append(buf.Bytes(), '\n')
	}
	out = bytes.ReplaceAll(out, []byte(e2eBaseURL), []byte(exampleBaseURL))
	return bytes.ReplaceAll(out, []byte(serverURL), []byte(exampleBaseURL))
}

// volatilePatterns match what differs between two runs of the same request:
// netsim's loopback ports, the certificates it makes at start, timings.
var volatilePatterns = []*regexp.Regexp{
	loopbackPort,
	regexp.MustCompile(`"sha256": ?"[0-9a-fA-F:]+"`),
	regexp.MustCompile(`"processing_time_ms": ?[0-9]+`),
	regexp.MustCompile(`"elapsedMs": ?[0-9]+`),
}

func volatile(b []byte) []byte {
	for _, re := range volatilePatterns {
		b = re.ReplaceAll(b, []byte("…"))
	}
	return b
}

// TestDocumentsFollowCachePolicy: the cache durations and the Directory rate the
// documents state are those the registry is configured with (serve's -cache-ttl, the
// demo network's higher rate), not fixed text.
func TestDocumentsFollowCachePolicy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cache registry.CachePolicy
		want  string
	}{
		{registry.CachePolicy{}, "found participants 15 minutes, not-found 1 minute, searches 5 minutes; a cached answer up to 24 hours old"},
		{registry.CachePolicy{Found: 2 * time.Hour, Search: 90 * time.Second}, "found participants 2 hours, not-found 1 minute, searches 90 seconds; a cached answer up to 24 hours old"},
		{registry.CachePolicy{}, "the Peppol Directory at most 2 times per second (its own limit);"},
		{registry.CachePolicy{DirectoryRate: 100}, "the Peppol Directory at most 100 times per second;"},
	} {
		s, _ := newTestServer(t, &fakeRegistry{}, func(c *Config) { c.Cache = tt.cache })
		for _, path := range []string{"/openapi.json", "/llms-full.txt"} {
			if w := do(t, s, "GET", path); !strings.Contains(w.Body.String(), tt.want) {
				t.Errorf("%+v: %s does not say %q", tt.cache, path, tt.want)
			}
		}
	}
}

func TestSpelled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		got, want string
	}{
		{spelledDuration(15 * time.Minute), "15 minutes"},
		{spelledDuration(time.Minute), "1 minute"},
		{spelledDuration(24 * time.Hour), "24 hours"},
		{spelledDuration(90 * time.Second), "90 seconds"},
		{spelledDuration(time.Second), "1 second"},
		{spelledSize(8 << 10), "8 KiB"},
		{spelledSize(1 << 20), "1 MiB"},
		{spelledSize(1500), "1500 bytes"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
