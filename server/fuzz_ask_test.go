package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
)

// FuzzAsk sends arbitrary POST /ask bodies, with arbitrary Content-Type and Accept
// headers, through the whole handler, over a registry that answers every call and
// over one whose every call fails: it never panics and never answers 5xx except 502 ask_failed; an error is the error
// object with a code whose status it has, an answer is JSON or an event stream.
func FuzzAsk(f *testing.F) {
	for _, seed := range []struct{ body, contentType, accept string }{
		{`{"query":"Is 0208:0677424046 on Peppol?"}`, "application/json", ""},
		{`{"query":{"text":"Welk access point bedient BE0677424046?"},"prefer":{"streaming":true}}`, "application/json", ""},
		{`{"query":"find companies named Acme in Belgium"}`, "", "text/event-stream"},
		{`{"query":"Kan 923609016 ta imot kreditnotaer?"}`, "application/json; charset=utf-8", "text/event-stream;q=0"},
		{`{"query":""}`, "text/plain", ""},
		{`{"query":42,"prefer":{"streaming":"yes"}}`, "application/json", ""},
		{`{"query":[[[[]]]]}`, "application/vnd.api+json", ""},
		{`query=acme`, "application/x-www-form-urlencoded", ""},
		{"{\"query\":\"\xff\xfe\"}", "application/json", ""},
		{`<query>acme</query>`, "application/xml", ""},
		{`{"query":"a","query":{"text":"b"}}`, "application/json", "application/json, text/event-stream"},
	} {
		f.Add([]byte(seed.body), seed.contentType, seed.accept)
	}
	reg := &fakeRegistry{
		part: samplePart(netsim.KnownBelgian),
		result: &registry.SearchResult{Query: "acme", TotalCount: 1, Results: []registry.SearchHit{
			{ParticipantID: netsim.KnownBelgian, Name: "Acme NV", CountryCode: "BE"},
		}},
	}
	// A second server whose every upstream call fails: ask_failed, the one 5xx.
	failing := &fakeRegistry{err: &registry.Error{Code: registry.CodeLookupFailed, Message: "the Peppol network could not be queried"}}
	var servers []*Server
	for _, r := range []registry.Registry{reg, failing} {
		s, err := New(Config{BaseURL: "http://localhost:8080", Networks: registry.One(r)})
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { s.Close() })
		servers = append(servers, s)
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType, accept string) {
		// Values net/http would refuse to receive are not a request the handler sees.
		for _, v := range []string{contentType, accept} {
			if strings.ContainsAny(v, "\r\n\x00") {
				return
			}
		}
		for _, s := range servers {
			req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/ask", bytes.NewReader(body))
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			checkAskAnswer(t, w)
		}
	})
}

// checkAskAnswer checks one /ask answer against the rules of FuzzAsk.
func checkAskAnswer(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	ct := w.Header().Get("Content-Type")
	if w.Code >= 400 {
		var e errorBody
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Message == "" || Status(e.Error.Code) != w.Code {
			t.Fatalf("status %d with body %q", w.Code, w.Body)
		}
		if w.Code >= 500 && e.Error.Code != nlq.CodeAskFailed {
			t.Fatalf("status %d %s", w.Code, e.Error.Code)
		}
		return
	}
	if w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		if !strings.HasPrefix(w.Body.String(), "event: start\n") || !strings.Contains(w.Body.String(), "event: complete\n") {
			t.Fatalf("event stream %q", w.Body)
		}
	case strings.HasPrefix(ct, "application/json"):
		var a nlq.Answer
		if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || a.Answer == "" {
			t.Fatalf("answer %q: %v", w.Body, err)
		}
	default:
		t.Fatalf("200 with Content-Type %q", ct)
	}
}
