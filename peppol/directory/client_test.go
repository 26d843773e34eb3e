package directory

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// recorder is a loopback Directory that records each request and answers with handler.
type recorder struct {
	mu      sync.Mutex
	reqs    []*http.Request
	calls   atomic.Int32
	handler http.HandlerFunc
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.calls.Add(1)
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, r.Clone(context.Background()))
	rec.mu.Unlock()
	rec.handler(w, r)
}

func (rec *recorder) last(t *testing.T) *http.Request {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) == 0 {
		t.Fatal("no request reached the server")
	}
	return rec.reqs[len(rec.reqs)-1]
}

func newDirectory(t testing.TB, h http.HandlerFunc) (*recorder, *Client) {
	t.Helper()
	rec := &recorder{handler: h}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return rec, &Client{HTTP: srv.Client(), Base: srv.URL}
}

func serveJSON(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		w.Write(body)
	}
}

// blockUntilGone holds the request until the client gives up, so tests never sleep.
func blockUntilGone(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

func TestSearchRequest(t *testing.T) {
	empty := readTestdata(t, "search-empty.json")
	tests := []struct {
		name      string
		q         Query
		basePath  string
		userAgent string
		wantPath  string
		wantQuery string
		wantUA    string
	}{
		{"participant", Query{Participant: peppol.ParticipantID{ICD: "0208", Value: "0677424046"}}, "", "", "/search/1.0/json",
			"participant=iso6523-actorid-upis%3A%3A0208%3A0677424046", DefaultUserAgent},
		{"text, country, paging", Query{Q: "Acme NV", Country: "be", PageSize: 100, PageIndex: 9}, "", "peppolgate-test/1", "/search/1.0/json",
			"country=BE&q=Acme+NV&rpc=100&rpi=9", "peppolgate-test/1"},
		{"base with path and slash", Query{Q: "x"}, "/directory/", "", "/directory/search/1.0/json", "q=x", DefaultUserAgent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, c := newDirectory(t, serveJSON(empty))
			c.Base += tt.basePath
			c.UserAgent = tt.userAgent
			if _, err := c.Search(context.Background(), tt.q); err != nil {
				t.Fatal(err)
			}
			r := rec.last(t)
			if r.Method != http.MethodGet || r.URL.Path != tt.wantPath || r.URL.RawQuery != tt.wantQuery {
				t.Errorf("request = %s %s?%s, want GET %s?%s", r.Method, r.URL.Path, r.URL.RawQuery, tt.wantPath, tt.wantQuery)
			}
			if got := r.Header.Get("Accept"); got != "application/json" {
				t.Errorf("Accept = %q", got)
			}
			if got := r.Header.Get("User-Agent"); got != tt.wantUA {
				t.Errorf("User-Agent = %q, want %q", got, tt.wantUA)
			}
		})
	}
}

func TestSearchDecodes(t *testing.T) {
	tests := []struct {
		file        string
		wantMatches int
		wantName    string
	}{
		{"search-current-shape.json", 2, "Lindqvist Kaffebrenneri BV"},
		{"search-legacy-name.json", 2, "ACME Testing Ltd"},
		{"search-empty.json", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, c := newDirectory(t, serveJSON(readTestdata(t, tt.file)))
			res, err := c.Search(context.Background(), Query{Q: "anything"})
			if err != nil {
				t.Fatalf("Search: %v (an empty result must not be an error)", err)
			}
			if len(res.Matches) != tt.wantMatches {
				t.Fatalf("matches = %d, want %d", len(res.Matches), tt.wantMatches)
			}
			if tt.wantMatches > 0 && res.Matches[0].Name() != tt.wantName {
				t.Errorf("first name = %q, want %q", res.Matches[0].Name(), tt.wantName)
			}
		})
	}
}

func TestSearchFailures(t *testing.T) {
	huge := realisticPage(200)
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		maxBody    int64
		want       error
		wantStatus int
		mention    string
		retryAfter time.Duration
	}{
		{name: "429 seconds", handler: status(429, map[string]string{"Retry-After": "7"}, ""),
			want: ErrRateLimited, wantStatus: 429, retryAfter: 7 * time.Second},
		{name: "429 no header", handler: status(429, nil, ""),
			want: ErrRateLimited, wantStatus: 429, retryAfter: DefaultRetryAfter},
		{name: "429 garbage header", handler: status(429, map[string]string{"Retry-After": "soon"}, ""),
			want: ErrRateLimited, wantStatus: 429, retryAfter: DefaultRetryAfter},
		{name: "400 JSON string", handler: status(400, map[string]string{"Content-Type": "application/json"}, `"No valid query term provided!"`),
			want: ErrBadQuery, wantStatus: 400, mention: ": No valid query term provided!"},
		{name: "400 plain text", handler: status(400, map[string]string{"Content-Type": "text/plain"}, "No valid queries could be created!\n"),
			want: ErrBadQuery, wantStatus: 400, mention: ": No valid queries could be created!"},
		{name: "400 XML", handler: status(400, map[string]string{"Content-Type": "application/xml"}, `<?xml version="1.0" encoding="UTF-8"?><error>No valid query term provided!</error>`),
			want: ErrBadQuery, wantStatus: 400, mention: ": No valid query term provided!"},
		{name: "400 empty", handler: status(400, nil, ""),
			want: ErrBadQuery, wantStatus: 400, mention: "without a message"},
		{name: "500", handler: status(500, nil, "java.lang.NullPointerException"),
			want: ErrUnavailable, wantStatus: 500, mention: "500 Internal Server Error"},
		{name: "503", handler: status(503, nil, ""), want: ErrUnavailable, wantStatus: 503},
		{name: "404", handler: status(404, nil, ""), want: ErrUnavailable, wantStatus: 404},
		{name: "405", handler: status(405, nil, ""), want: ErrUnavailable, wantStatus: 405},
		{name: "malformed JSON", handler: status(200, nil, `{"total-result-count":1,"matches":[{`),
			want: ErrUnavailable, wantStatus: 200, mention: "decoding"},
		{name: "HTML instead of JSON", handler: status(200, nil, `<html>maintenance</html>`),
			want: ErrUnavailable, wantStatus: 200, mention: "not a JSON object"},
		{name: "body over MaxBody with length", handler: serveJSON(huge), maxBody: 1024,
			want: ErrUnavailable, wantStatus: 200, mention: "exceeds the limit of 1024 bytes"},
		{name: "body over MaxBody chunked", handler: chunked(huge), maxBody: 1024,
			want: ErrUnavailable, wantStatus: 200, mention: "exceeds the limit of 1024 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := newDirectory(t, tt.handler)
			c.MaxBody = tt.maxBody
			res, err := c.Search(context.Background(), Query{Q: "acme"})
			checkErr(t, res, err, tt.want, tt.wantStatus, tt.mention)
			if tt.retryAfter != 0 {
				var rl *RateLimitError
				if !errors.As(err, &rl) || rl.RetryAfter != tt.retryAfter {
					t.Errorf("RateLimitError = %+v, want RetryAfter %v", rl, tt.retryAfter)
				}
			}
		})
	}
}

func TestSearchBodyAtMaxBody(t *testing.T) {
	body := readTestdata(t, "search-empty.json")
	_, c := newDirectory(t, chunked(body))
	c.MaxBody = int64(len(body))
	if _, err := c.Search(context.Background(), Query{Q: "x"}); err != nil {
		t.Errorf("body of exactly MaxBody bytes: %v", err)
	}
}

func TestSearchRetryAfterHTTPDate(t *testing.T) {
	at := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	_, c := newDirectory(t, status(429, map[string]string{"Retry-After": at}, ""))
	_, err := c.Search(context.Background(), Query{Q: "acme"})
	var rl *RateLimitError
	if !errors.Is(err, ErrRateLimited) || !errors.As(err, &rl) {
		t.Fatalf("err = %v, want rate limited", err)
	}
	// The header has whole seconds, so the wait is a little under 30s.
	if rl.RetryAfter <= 25*time.Second || rl.RetryAfter > 30*time.Second {
		t.Errorf("RetryAfter = %v for date %s, want about 30s", rl.RetryAfter, at)
	}
}

func TestSearchDeadlines(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		ctx     func() (context.Context, context.CancelFunc)
		timeout time.Duration
		cause   error
		status  int
	}{
		{"client timeout without ctx deadline", blockUntilGone, noDeadline, 50 * time.Millisecond, context.DeadlineExceeded, 0},
		{"ctx deadline wins over Timeout", blockUntilGone,
			func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			}, time.Hour, context.DeadlineExceeded, 0},
		// The header arrived, so the error carries its status (the Timeout is long
		// enough for the header to arrive first on a busy machine).
		{"slow body past the deadline", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"total-result-count":1,"matches":[`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, noDeadline, time.Second, context.DeadlineExceeded, 200},
		{"cancelled ctx", blockUntilGone,
			func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			}, time.Hour, context.Canceled, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := newDirectory(t, tt.handler)
			c.Timeout = tt.timeout
			ctx, cancel := tt.ctx()
			defer cancel()
			res, err := c.Search(ctx, Query{Q: "acme"})
			checkErr(t, res, err, ErrUnavailable, tt.status, "")
			if !errors.Is(err, tt.cause) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.cause)
			}
		})
	}
}

func noDeadline() (context.Context, context.CancelFunc) { return context.Background(), func() {} }

func TestSearchConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c := &Client{Base: base, Timeout: 5 * time.Second}
	res, err := c.Search(context.Background(), Query{Q: "acme"})
	checkErr(t, res, err, ErrUnavailable, 0, "")
}

func TestSearchSendsNothingWhenInvalid(t *testing.T) {
	tests := []struct {
		name string
		base string
		q    Query
		want error
	}{
		{"empty query", "", Query{}, ErrBadQuery},
		{"page beyond 1000", "", Query{Q: "x", PageSize: 100, PageIndex: 10}, ErrBadQuery},
		{"base without scheme", "127.0.0.1:1", Query{Q: "x"}, ErrUnavailable},
		{"base with ftp scheme", "ftp://127.0.0.1/", Query{Q: "x"}, ErrUnavailable},
		{"base with query", "http://127.0.0.1/?a=b", Query{Q: "x"}, ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, c := newDirectory(t, status(200, nil, "{}"))
			if tt.base != "" {
				c.Base = tt.base
			}
			res, err := c.Search(context.Background(), tt.q)
			checkErr(t, res, err, tt.want, 0, "")
			if n := rec.calls.Load(); n != 0 {
				t.Errorf("%d requests sent for an invalid search", n)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`"No valid query term provided!"`, "No valid query term provided!"},
		{"  plain\r\nmessage\x00here  ", "plain message here"},
		{`<error>  spaced  </error>`, "spaced"},
		{`<?xml version="1.0"?><other>x</other>`, `<?xml version="1.0"?><other>x</other>`},
		{`"unterminated`, `"unterminated`},
		{"", "the Directory rejected the query without a message"},
		{"\xff\xfebad utf8", "\uFFFDbad utf8"},
		{strings.Repeat("a", 400), strings.Repeat("a", maxMessageRunes) + "…"},
	}
	for _, tt := range tests {
		if got := errorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("errorMessage(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{badQuery(400, errors.New("No valid query term provided!")), "peppol directory: bad query (HTTP 400): No valid query term provided!"},
		{&Error{Kind: KindRateLimited, Status: 429, Err: &RateLimitError{2 * time.Second}}, "peppol directory: rate limited (HTTP 429): retry after 2s"},
		{unavailable(0, context.DeadlineExceeded), "peppol directory: unavailable: context deadline exceeded"},
		{&Error{Kind: Kind(9)}, "peppol directory: kind(9)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func checkErr(t *testing.T, res *Result, err, want error, wantStatus int, mention string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Search = %+v, nil; want %v", res, want)
	}
	if res != nil {
		t.Errorf("Search returned a result with error %v", err)
	}
	for _, s := range []error{ErrBadQuery, ErrRateLimited, ErrUnavailable} {
		if got := errors.Is(err, s); got != (s == want) {
			t.Errorf("errors.Is(%v, %v) = %v", err, s, got)
		}
	}
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("err %T is not *Error", err)
	}
	if de.Status != wantStatus {
		t.Errorf("Status = %d, want %d", de.Status, wantStatus)
	}
	if !strings.Contains(err.Error(), mention) {
		t.Errorf("err = %q, want it to mention %q", err, mention)
	}
}

func status(code int, headers map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// chunked sends body without Content-Length, so only the read limit can catch its size.
func chunked(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		body := body
		for len(body) > 0 {
			n := min(len(body), 512)
			w.Write(body[:n])
			w.(http.Flusher).Flush()
			body = body[n:]
		}
	}
}

// TestSearchRefusesRedirects: a redirect is never followed, wherever it points (here a
// loopback listener that counts who arrives), with a client of the caller's own too;
// the caller's client is not changed.
func TestSearchRefusesRedirects(t *testing.T) {
	var lured atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { lured.Add(1) }))
	defer target.Close()
	for _, code := range []int{301, 302, 307, 308} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/admin?token=secret", code)
		}))
		for _, hc := range []*http.Client{nil, {}} {
			c := &Client{Base: srv.URL, HTTP: hc}
			_, err := c.Search(t.Context(), Query{Q: "acme"})
			var de *Error
			if !errors.Is(err, ErrUnavailable) || !errors.As(err, &de) || de.Status != code ||
				!strings.Contains(err.Error(), "redirects are not followed") || strings.Contains(err.Error(), "secret") {
				t.Errorf("%d: %v", code, err)
			}
			if hc != nil && hc.CheckRedirect != nil {
				t.Error("the caller's client was changed")
			}
		}
		srv.Close()
	}
	if n := lured.Load(); n != 0 {
		t.Errorf("%d requests followed a redirect", n)
	}
}
