package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readmeBlock is one fenced block of the README: its info string, its lines and the
// line it starts on.
type readmeBlock struct {
	info  string
	lines []string
	at    int
}

// readmeBlocks reads the README's fenced blocks and its text lines.
func readmeBlocks(t *testing.T) ([]readmeBlock, []string) {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []readmeBlock
	var cur *readmeBlock
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			if cur == nil {
				cur = &readmeBlock{info: strings.TrimPrefix(l, "```"), at: i + 1}
			} else {
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, l)
		}
	}
	return out, lines
}

// readmeVolatile is what differs from run to run in the demo's answers: the SMPs'
// loopback ports, certificate fingerprints (the certificates are made at start),
// timings, the version.
var readmeVolatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`127\.0\.0\.1:[0-9]+`), "127.0.0.1:PORT"},
	{regexp.MustCompile(`"sha256":"[0-9a-f…]+"`), `"sha256":"…"`},
	{regexp.MustCompile(`"processing_time_ms":[0-9]+`), `"processing_time_ms":0`},
	{regexp.MustCompile(`"version":"[^"]*"`), `"version":"dev"`},
	{regexp.MustCompile(`"elapsedMs":[0-9]+`), `"elapsedMs":0`},
}

func normaliseDemo(s string) string {
	for _, v := range readmeVolatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// TestREADMEExamples runs every example of the README against the demo network and
// compares what it shows with what the service answers: each curl command followed by
// a JSON answer (byte for byte, but for the volatile parts above), the calls /ask shows
// it makes, and the start-up banner. The README's configuration and error tables are
// compared with the flags and the error table the code has. Nothing in the README can
// drift from the code without this test failing.
func TestREADMEExamples(t *testing.T) {
	t.Parallel()
	blocks, _ := readmeBlocks(t)
	var stdout syncBuffer
	base, _ := startServeWith(t, &stdout, "-network", "demo")

	// The start-up banner, up to the line the README elides with "…".
	for _, b := range blocks {
		if len(b.lines) == 0 || !strings.HasPrefix(b.lines[0], "peppolgate demo:") {
			continue
		}
		got := strings.Split(strings.ReplaceAll(stdout.String(), base, "http://localhost:8080"), "\n")
		j := 0
		for _, want := range b.lines {
			if strings.TrimSpace(want) == "…" {
				// Skip to the README's next line in the real banner.
				continue
			}
			for j < len(got) && got[j] != want {
				j++
			}
			if j == len(got) {
				t.Errorf("README line %d: the banner has no line %q in order; it prints:\n%s", b.at, want, stdout.String())
				break
			}
		}
	}

	curl := regexp.MustCompile(`^curl -s (?:-N )?((?:-H '[^']*' )*)(?:--data-binary @(\S+) )?'?(http://localhost:8080[^' ]*)'?(?: -d '(.*)')?(?: \| head -([0-9]+))?$`)
	header := regexp.MustCompile(`-H '([^']*)'`)
	calls := regexp.MustCompile(`\{"tool":"([a-z_]+)","arguments":(\{[^}]*\})\}`)
	for i, b := range blocks {
		if b.info != "sh" || len(b.lines) != 1 || !strings.HasPrefix(b.lines[0], "curl ") {
			continue
		}
		m := curl.FindStringSubmatch(b.lines[0])
		if m == nil {
			t.Errorf("README line %d: curl command %q not understood by this test", b.at, b.lines[0])
			continue
		}
		var headers []string
		for _, h := range header.FindAllStringSubmatch(m[1], -1) {
			headers = append(headers, h[1])
		}
		reqBody := m[4]
		if m[2] != "" {
			file, err := os.ReadFile("../../" + m[2])
			if err != nil {
				t.Fatalf("README line %d: %v", b.at, err)
			}
			reqBody = string(file)
		}
		status, body := demoRequest(t, base, headers, strings.Replace(m[3], "http://localhost:8080", base, 1), reqBody)
		if status >= 500 {
			t.Errorf("README line %d: %s answered %d %s", b.at, b.lines[0], status, body)
		}
		if i+1 >= len(blocks) || blocks[i+1].at != b.at+3 {
			continue // no answer shown
		}
		shown := strings.Join(blocks[i+1].lines, "\n")
		got := normaliseDemo(strings.TrimSpace(string(body)))
		if n, _ := strconv.Atoi(m[5]); n > 0 {
			got = strings.Join(strings.SplitN(got, "\n", n+1)[:min(n, strings.Count(got, "\n")+1)], "\n")
		}
		switch {
		case blocks[i+1].info == "csv":
			if normaliseDemo(shown) != got {
				t.Errorf("README line %d: %s shows\n%s\nbut the demo answers\n%s", blocks[i+1].at, b.lines[0], shown, got)
			}
		case blocks[i+1].info == "ndjson":
			// Lines as rows finish: in any order, the summary last.
			sortedLines := func(s string) string {
				l := strings.Split(s, "\n")
				slices.Sort(l[:len(l)-1])
				return strings.Join(l, "\n")
			}
			if sortedLines(normaliseDemo(shown)) != sortedLines(got) {
				t.Errorf("README line %d: %s shows\n%s\nbut the demo answers\n%s", blocks[i+1].at, b.lines[0], shown, got)
			}
		case blocks[i+1].info == "json" && !strings.HasPrefix(shown, "{\n"):
			// One line of JSON, as the service writes it.
			if shown != got {
				t.Errorf("README line %d: %s shows\n%s\nbut the demo answers\n%s", blocks[i+1].at, b.lines[0], shown, got)
			}
		default:
			// Shortened or wrapped for reading: the calls it shows must be those made.
			want := calls.FindAllStringSubmatch(shown, -1)
			have := calls.FindAllStringSubmatch(got, -1)
			if len(want) > 0 && !slices.EqualFunc(want, have[:min(len(have), len(want))], func(a, b []string) bool { return a[0] == b[0] }) || len(want) > 0 && len(want) != countCalls(got) {
				t.Errorf("README line %d: %s shows the calls %v, the demo makes %v", blocks[i+1].at, b.lines[0], want, have)
			}
		}
	}
}

// countCalls counts the calls an /ask answer lists.
func countCalls(answer string) int {
	var a struct {
		Calls []json.RawMessage `json:"calls"`
	}
	if json.Unmarshal([]byte(answer), &a) == nil {
		return len(a.Calls)
	}
	// A stream: the start event's calls.
	sc := bufio.NewScanner(strings.NewReader(answer))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && json.Unmarshal([]byte(d), &a) == nil && a.Calls != nil {
			return len(a.Calls)
		}
	}
	return -1
}

// demoRequest sends what a README curl command sends: GET, or POST of body (curl -d
// or --data-binary, whose default Content-Type is application/x-www-form-urlencoded),
// with headers ("Name: value").
func demoRequest(t *testing.T, base string, headers []string, url, body string) (int, []byte) {
	t.Helper()
	method := http.MethodGet
	var rd io.Reader
	if body != "" {
		method, rd = http.MethodPost, strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, h := range headers {
		if k, v, ok := strings.Cut(h, ": "); ok {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}
