package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// postAsk sends body to POST /ask with the given headers (name, value pairs).
func (e *e2e) postAsk(t *testing.T, ctx context.Context, body string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", e.url+"/ask", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data json.RawMessage
}

// readEvents parses an event stream until it ends.
func readEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = json.RawMessage(strings.TrimPrefix(line, "data: "))
			if !json.Valid(cur.data) {
				t.Errorf("event %s: data is not JSON: %s", cur.name, cur.data)
			}
		default:
			t.Errorf("unexpected line in the stream: %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAskJSON(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	name := firstName(t, e.ds, netsim.KnownBelgian)
	tests := []struct {
		name, body string
		hdr        []string
		wantIntent nlq.Intent
		wantFirst  string // identifier of the first item
		wantIn     string // in the answer
	}{
		{"lookup by id", `{"query":"Who is ` + netsim.KnownBelgian + `?"}`, []string{"Content-Type", "application/json"},
			nlq.IntentLookup, netsim.KnownBelgian, name},
		{"no content type", `{"query":"Is ` + netsim.KnownDirectoryOnly + ` on Peppol?"}`, nil,
			nlq.IntentOnPeppol, netsim.KnownDirectoryOnly, "not registered in the SML"},
		{"curl's default content type", `{"query":"Who is ` + netsim.KnownNorwegian + `"}`, []string{"Content-Type", "application/x-www-form-urlencoded"},
			nlq.IntentLookup, netsim.KnownNorwegian, netsim.KnownNorwegian},
		{"NLWeb query object", `{"query":{"text":"Can ` + name + ` receive invoices?"},"site":"all","generate_mode":"list"}`, []string{"Content-Type", "application/json; charset=utf-8"},
			// Its access point's certificate has expired: registered, but not right now.
			nlq.IntentCanReceive, netsim.KnownBelgian, "Not right now: " + netsim.KnownBelgian + " and " + netsim.KnownBelgianVAT + " (“" + name + "”, BE)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := e.postAsk(t, t.Context(), tt.body, tt.hdr...)
			body := readAll(t, resp)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || resp.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
			}
			a := decodeJSON[nlq.Answer](t, body)
			if a.Meta.ResponseType != "answer" || a.Meta.Planner != "rules" || a.Intent != tt.wantIntent || len(a.Calls) == 0 {
				t.Errorf("answer frame %+v", a)
			}
			if len(a.Results) == 0 || a.Results[0].Identifier != tt.wantFirst ||
				a.Results[0].URL != "http://peppolgate.test/api/v1/participant/"+tt.wantFirst {
				t.Fatalf("results %+v", a.Results)
			}
			if !strings.Contains(a.Answer, tt.wantIn) {
				t.Errorf("answer lacks %q: %s", tt.wantIn, a.Answer)
			}
			// The JSON keeps the NLWeb/schema.org names.
			for _, key := range []string{`"_meta"`, `"processing_time_ms"`, `"@type":"Organization"`, `"@context":"https://schema.org"`} {
				if !strings.Contains(string(body), key) {
					t.Errorf("body lacks %s", key)
				}
			}
		})
	}
}

func TestAskStream(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	name := firstName(t, e.ds, netsim.KnownBelgian)
	for _, tt := range []struct {
		name, body string
		hdr        []string
	}{
		{"Accept header", `{"query":"Kan ` + name + ` facturen ontvangen?"}`, []string{"Accept", "text/event-stream"}},
		{"NLWeb prefer", `{"query":{"text":"Kan ` + name + ` facturen ontvangen?"},"prefer":{"streaming":true}}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := e.postAsk(t, t.Context(), tt.body, tt.hdr...)
			defer resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") || resp.Header.Get("Cache-Control") != "no-cache" {
				t.Fatalf("%d %v", resp.StatusCode, resp.Header)
			}
			events := readEvents(t, resp.Body)
			if len(events) < 3 || events[0].name != "start" || events[len(events)-1].name != "complete" {
				t.Fatalf("events %v", events)
			}
			start := decodeJSON[nlq.StartEvent](t, events[0].data)
			if start.Meta.Planner != "rules" || start.Intent != nlq.IntentCanReceive || len(start.Calls) != 1 || start.Calls[0].Tool != "search_directory" {
				t.Errorf("start %+v", start)
			}
			results := events[1 : len(events)-1]
			for i, ev := range results {
				r := decodeJSON[nlq.ResultEvent](t, ev.data)
				if ev.name != "result" || r.Index != i || r.Item.Identifier == "" {
					t.Errorf("event %d: %s %s", i, ev.name, ev.data)
				}
			}
			done := decodeJSON[nlq.CompleteEvent](t, events[len(events)-1].data)
			if done.TotalItems != len(results) || done.Error != nil || !strings.Contains(done.Answer, "is geregistreerd voor facturen") || len(done.Calls) < 2 {
				t.Errorf("complete %+v", done)
			}
		})
	}
}

func TestAskErrors(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	long := strings.Repeat("x", nlq.MaxQueryLength+1)
	tests := []struct {
		name, method, body string
		hdr                []string
		status             int
		code               string
	}{
		{"not JSON", "POST", `query=acme`, nil, 400, "invalid_request"},
		{"no query", "POST", `{"q":"acme"}`, nil, 400, "invalid_request"},
		{"query not a string", "POST", `{"query":42}`, nil, 400, "invalid_request"},
		{"prefer of the wrong type", "POST", `{"query":"find acme","prefer":{"streaming":"true"}}`, nil, 400, "invalid_request"},
		{"empty query", "POST", `{"query":"  "}`, nil, 400, "invalid_request"},
		{"over-long query", "POST", `{"query":"` + long + `"}`, nil, 400, "invalid_request"},
		{"over-long query, streaming", "POST", `{"query":"` + long + `"}`, []string{"Accept", "text/event-stream"}, 400, "invalid_request"},
		{"body over 8 KiB", "POST", `{"query":"acme","pad":"` + strings.Repeat("x", 9000) + `"}`, nil, 400, "invalid_request"},
		{"XML", "POST", `<query>acme</query>`, []string{"Content-Type", "application/xml"}, 415, "unsupported_media_type"},
		{"multipart", "POST", `x`, []string{"Content-Type", "multipart/form-data; boundary=x"}, 415, "unsupported_media_type"},
		{"GET", "GET", ``, nil, 405, "method_not_allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tt.method, e.url+"/ask", strings.NewReader(tt.body))
			for i := 0; i+1 < len(tt.hdr); i += 2 {
				req.Header.Set(tt.hdr[i], tt.hdr[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			got := decodeJSON[errorBody](t, body).Error
			if resp.StatusCode != tt.status || string(got.Code) != tt.code || got.Message == "" {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, body, tt.status, tt.code)
			}
			if tt.status == 405 && resp.Header.Get("Allow") != "POST, OPTIONS" {
				t.Errorf("Allow %q", resp.Header.Get("Allow"))
			}
		})
	}

	t.Run("event stream refused by weight", func(t *testing.T) {
		for _, accept := range []string{"text/event-stream;q=0", "text/event-stream; q=0.0, application/json"} {
			resp := e.postAsk(t, t.Context(), `{"query":"hello there"}`, "Accept", accept)
			readAll(t, resp)
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("Accept %q: Content-Type %q, want JSON", accept, resp.Header.Get("Content-Type"))
			}
		}
	})

	t.Run("preflight", func(t *testing.T) {
		resp, _ := e.do(t, "OPTIONS", "/ask")
		if resp.StatusCode != 204 || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") ||
			!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Content-Type") {
			t.Errorf("%d %v", resp.StatusCode, resp.Header)
		}
	})
}

func TestAskUpstreamFailure(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500})
	defer e.net.ClearFaults()
	q := `{"query":"find companies named Globex"}`

	resp := e.postAsk(t, t.Context(), q)
	body := readAll(t, resp)
	if got := decodeJSON[errorBody](t, body).Error; resp.StatusCode != 502 || got.Code != nlq.CodeAskFailed || strings.Contains(got.Message, "127.0.0.1") {
		t.Errorf("JSON: %d %s", resp.StatusCode, body)
	}

	// Streaming: the stream has started, so the failure is in complete.
	resp = e.postAsk(t, t.Context(), q, "Accept", "text/event-stream")
	defer resp.Body.Close()
	events := readEvents(t, resp.Body)
	if resp.StatusCode != 200 || len(events) != 2 || events[0].name != "start" || events[1].name != "complete" {
		t.Fatalf("%d %v", resp.StatusCode, events)
	}
	if done := decodeJSON[nlq.CompleteEvent](t, events[1].data); done.Error == nil || done.Error.Code != nlq.CodeAskFailed || done.TotalItems != 0 {
		t.Errorf("complete %+v", done)
	}
}

// TestAskDisconnectCancels reads the start of a stream whose search hangs upstream,
// then goes away: the upstream request must be abandoned, not left running.
func TestAskDisconnectCancels(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{Hang: true})
	defer e.net.ClearFaults()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp := e.postAsk(t, ctx, `{"query":"find companies named Initech"}`, "Accept", "text/event-stream")
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "event: start\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	// Leave only once the search has reached the Directory.
	deadline := time.Now().Add(5 * time.Second)
	for e.net.Hits().Directory.Search == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if h := e.net.Hits(); h.Directory.Search == 0 || h.Abandoned != 0 {
		t.Fatalf("before the client left: %+v", h)
	}
	cancel()
	resp.Body.Close()
	deadline = time.Now().Add(5 * time.Second)
	for e.net.Hits().Abandoned == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if e.net.Hits().Abandoned == 0 {
		t.Error("the Directory request went on after the client disconnected")
	}
}

// TestAskPartialFailure: the Directory finds the company but its SML lookup answers
// SERVFAIL. /ask answers 200 with the hit and says what could not be checked; the
// failed call is in the JSON answer and, streamed, in the item's result event and in
// complete; no ask_failed.
func TestAskPartialFailure(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	name := firstName(t, e.ds, netsim.KnownBelgian)
	id, err := peppol.ParseParticipantID(netsim.KnownBelgian)
	if err != nil {
		t.Fatal(err)
	}
	e.net.SetFault(netsim.ParticipantTarget(id), netsim.Fault{DNS: netsim.DNSServFail})
	defer e.net.ClearFaults()
	body := `{"query":"Is ` + name + ` on Peppol?"}`

	resp := e.postAsk(t, t.Context(), body)
	b := readAll(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	a := decodeJSON[nlq.Answer](t, b)
	if len(a.Failed) == 0 || a.Failed[0].Code != registry.CodeLookupFailed || a.Failed[0].Arguments["participantId"] != netsim.KnownBelgian ||
		!strings.Contains(a.Answer, "Not checked: ") || !strings.Contains(a.Answer, netsim.KnownBelgian) {
		t.Errorf("JSON: failed %+v, answer %s", a.Failed, a.Answer)
	}

	resp = e.postAsk(t, t.Context(), body, "Accept", "text/event-stream")
	defer resp.Body.Close()
	events := readEvents(t, resp.Body)
	var sawFailed bool
	for _, ev := range events {
		if ev.name == "result" && strings.Contains(string(ev.data), `"failed":{"tool":"lookup_participant"`) && strings.Contains(string(ev.data), `"code":"lookup_failed"`) {
			sawFailed = true
		}
	}
	done := decodeJSON[nlq.CompleteEvent](t, events[len(events)-1].data)
	if !sawFailed || done.Error != nil || len(done.Failed) == 0 || !strings.Contains(done.Answer, "Not checked: ") {
		t.Errorf("stream: failed result event %v, complete %+v", sawFailed, done)
	}
}
