package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestErrorCode(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"code":"lookup_failed","message":"x"}}`, "lookup_failed"},
		{`{"error":{}}`, "(no error code)"},
		{`not json`, "(no error code)"},
		{``, "(no error code)"},
	}
	for _, tt := range tests {
		if got := errorCode([]byte(tt.body)); got != tt.want {
			t.Errorf("errorCode(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestStreamError(t *testing.T) {
	tests := []struct {
		name, body   string
		wantCode     string
		wantComplete bool
	}{
		{"success", "event: start\ndata: {}\n\nevent: complete\ndata: {\"answer\":\"yes\",\"total_items\":1}\n\n", "", true},
		{"failure", "event: start\ndata: {}\n\nevent: complete\ndata: {\"answer\":\"\",\"error\":{\"code\":\"ask_failed\",\"message\":\"m\"}}\n\n", "ask_failed", true},
		{"an answer that is the word error", "event: complete\ndata: {\"answer\":\"error\"}\n\n", "", true},
		{"unreadable", "event: complete\ndata: {\"error\":\n\n", "(unreadable complete event)", true},
		{"cut short", "event: start\ndata: {}\n\nevent: result\ndata: {}\n\n", "", false},
		{"no final newline", "event: complete\ndata: {\"error\":{\"code\":\"ask_failed\"}}", "ask_failed", true},
	}
	for _, tt := range tests {
		code, complete := streamError([]byte(tt.body))
		if code != tt.wantCode || complete != tt.wantComplete {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, code, complete, tt.wantCode, tt.wantComplete)
		}
	}
}

// fakeServer answers like peppolgate for the paths the client tests use.
func fakeServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/participant/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Cache", "hit")
		switch r.PathValue("id") {
		case "0208:bad":
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, `{"error":{"code":"lookup_failed","message":"m"}}`)
		case "0208:degraded":
			io.WriteString(w, `{"participantId":"0208:degraded","warnings":[{"code":"directory_unavailable"}]}`)
		default:
			io.WriteString(w, `{"participantId":"x"}`)
		}
	})
	mux.HandleFunc("POST /ask", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusUnsupportedMediaType)
			return
		}
		if r.Header.Get("Accept") == "text/event-stream" {
			io.WriteString(w, "event: complete\ndata: {\"error\":{\"code\":\"ask_failed\"}}\n\n")
			return
		}
		io.WriteString(w, `{"answer":"yes"}`)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestClientDo(t *testing.T) {
	s := fakeServer(t)
	c := newClient(s.URL, 5*time.Second)
	defer c.close()
	tests := []struct {
		name string
		rq   request
		want outcome
	}{
		{"ok", lookupRequest(lookupHot, "0208:1"), outcome{status: 200, cache: "hit"}},
		{"502", lookupRequest(lookupCold, "0208:bad"), outcome{status: 502, code: "lookup_failed", cache: "hit"}},
		{"degraded", lookupRequest(lookupCold, "0208:degraded"), outcome{status: 200, cache: "hit", degraded: true}},
		{"ask", request{kind: askJSON, path: "/ask", body: askBody("hello")}, outcome{status: 200}},
		{"stream", request{kind: askSSE, path: "/ask", body: askBody("hello")}, outcome{status: 200, code: "ask_failed"}},
		{"unknown route", request{kind: searchName, path: "/nope"}, outcome{status: 404, code: "(no error code)"}},
	}
	for _, tt := range tests {
		got := c.do(t.Context(), tt.rq)
		if got.latency <= 0 {
			t.Errorf("%s: latency %v", tt.name, got.latency)
		}
		got.latency = 0
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	s.Close()
	if got := c.do(t.Context(), lookupRequest(lookupHot, "0208:1")); got.transport == "" || got.status != 0 {
		t.Errorf("closed server: %+v, want a transport failure", got)
	}
}

func TestDrive(t *testing.T) {
	s := fakeServer(t)
	c := newClient(s.URL, 5*time.Second)
	defer c.close()
	w := &workload{}
	for k := range numKinds {
		w.hot[k] = []request{lookupRequest(k, "0208:1")}
	}
	w.cold[lookupCold] = []request{lookupRequest(lookupCold, "0208:bad")} // one, then used up
	w.cold[searchCold] = nil
	w.cold[askCold] = nil
	d := 400 * time.Millisecond
	rec := newRecorder([]phase{{"all", 0, d}}, 1000)
	ran := false
	cfg := loadConfig{rate: 1000, duration: d, maxInFlight: 1000, // never skips: 400 requests in all
		mix:    []kind{lookupHot, lookupCold, askSSE, searchCold},
		events: []event{{at: 100 * time.Millisecond, name: "e", run: func() error { ran = true; return nil }}}}
	res := drive(t.Context(), c, w, cfg, rec)
	var sent, skipped, exhausted int
	for k := range numKinds {
		sent += res.sent[k]
		skipped += res.skipped[k]
		exhausted += res.exhausted[k]
	}
	if sent+skipped+exhausted != 400 {
		t.Errorf("sent %d + skipped %d + exhausted %d, want 400 (1000/s for 0.4 s)", sent, skipped, exhausted)
	}
	if res.sent[lookupCold] != 1 || res.exhausted[lookupCold] != 99 || res.exhausted[searchCold] != 100 {
		t.Errorf("cold lookups sent %d, exhausted %d, cold searches exhausted %d; want 1, 99, 100",
			res.sent[lookupCold], res.exhausted[lookupCold], res.exhausted[searchCold])
	}
	if got := int(rec.done.Load()); got != sent {
		t.Errorf("%d outcomes recorded, %d sent", got, sent)
	}
	if !ran || len(res.events) != 1 || res.events[0].name != "e" {
		t.Errorf("event ran %v, results %+v", ran, res.events)
	}
	if n := rec.merged(0, 1)[lookupCold].codes["502 lookup_failed"]; n != 1 {
		t.Errorf("the cold lookup's 502 recorded %d times", n)
	}
}
