package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/server"
	"github.com/peppolgate/peppolgate/tools"
)

// docText is one document the docs test reads: its name (for messages) and its text.
type docText struct{ name, text string }

// numberWords are the counts prose spells out; index = value.
var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}

var (
	// toolCount finds a count of tools in prose: "four read-only tools", "MCP (5 tools)",
	// "the four operations as tools": the number right before "tools" or "operations",
	// or before up to two of a fixed set of qualifiers; "one of the tools" counts
	// nothing.
	toolCount = regexp.MustCompile(`(?i)\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)\s+(?:(?:read-only|mcp|agent|llm)\s+){0,2}(tools|operations)\b`)
	// snakeList finds a list of at least two snake_case names ("a_b, c_d and e_f"),
	// backticked or not, across line breaks (the -h text wraps).
	snakeList = regexp.MustCompile("`?[a-z]+(?:_[a-z]+)+`?(?:(?:\\s*,\\s*(?:and\\s+|or\\s+)?|\\s+and\\s+|\\s+or\\s+)`?[a-z]+(?:_[a-z]+)+`?)+")
	snakeName = regexp.MustCompile(`[a-z]+(?:_[a-z]+)+`)
	// endpointRef finds an endpoint named by method and path, e.g. "GET /api/v1/search?q=…"
	// or "POST {base_url}/ask" (in the served llms.txt, the base URL itself).
	endpointRef = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE)\s+(?:\{base_url\}|https?://[^/\s]+)?(/[^\s?)\]` + "`" + `"',;:\[]*)`)
	// statusCode finds an error code after its HTTP status: "400 `invalid_request`".
	statusCode = regexp.MustCompile("\\b([45]\\d\\d) `([a-z_]+)`")
)

// numberValue reads a count written as a word or in digits.
func numberValue(s string) int {
	if i := slices.Index(numberWords, strings.ToLower(s)); i >= 0 {
		return i
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// lineOf returns the 1-based line of offset i in s.
func lineOf(s string, i int) int { return strings.Count(s[:i], "\n") + 1 }

// checkToolProse reports every count of tools that is not the registry's, every list of
// names with a tool among them that names something that is no tool, and every list
// announced as the tools ("tools a, b and c", "the tools `a`, `b`") that leaves one out.
func checkToolProse(doc docText, names []string) []string {
	var bad []string
	for _, m := range toolCount.FindAllStringSubmatchIndex(doc.text, -1) {
		word := doc.text[m[2]:m[3]]
		if n := numberValue(word); n != len(names) {
			bad = append(bad, doc.name+":"+strconv.Itoa(lineOf(doc.text, m[0]))+": says "+strconv.Quote(doc.text[m[0]:m[1]])+
				", but the registry has "+numberWords[len(names)]+" tools")
		}
	}
	for _, m := range snakeList.FindAllStringIndex(doc.text, -1) {
		items := snakeName.FindAllString(doc.text[m[0]:m[1]], -1)
		tools, others := 0, []string{}
		for _, it := range items {
			if slices.Contains(names, it) {
				tools++
			} else {
				others = append(others, it)
			}
		}
		if tools == 0 {
			continue // a list of something else, e.g. error codes
		}
		at := doc.name + ":" + strconv.Itoa(lineOf(doc.text, m[0]))
		if len(others) > 0 {
			bad = append(bad, at+": the list of tools "+strconv.Quote(doc.text[m[0]:m[1]])+" names "+strings.Join(others, ", ")+", which the registry has not")
		}
		before := strings.ToLower(doc.text[max(0, m[0]-24):m[0]])
		if strings.Contains(before, "tools") && tools < len(names) {
			var missing []string
			for _, n := range names {
				if !slices.Contains(items, n) {
					missing = append(missing, n)
				}
			}
			bad = append(bad, at+": the list of tools "+strconv.Quote(doc.text[m[0]:m[1]])+" lacks "+strings.Join(missing, ", "))
		}
	}
	return bad
}

// openAPIPaths returns the operations of a running service's /openapi.json as "METHOD
// path template" and each template as a regular expression matching its examples.
func openAPIPaths(t *testing.T, base string) map[string]*regexp.Regexp {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\\\{[^/]*\\\}`)
	out := map[string]*regexp.Regexp{}
	for path, ops := range doc.Paths {
		re := regexp.MustCompile("^" + param.ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + "$")
		for method := range ops {
			switch method {
			case "get", "post", "put", "patch", "delete":
				out[strings.ToUpper(method)+" "+path] = re
			}
		}
	}
	return out
}

// getText GETs base+path and returns the body.
func getText(t *testing.T, base, path string) string {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", path, resp.StatusCode, err)
	}
	return string(b)
}

// TestDocsAgreeWithCode reads what a user reads about the service (the README,
// docs/ARCHITECTURE.md, docs/INTERFACE.md, llms.txt as in the repository and as served,
// llms-full.txt and `peppolgate -h`) and fails when it disagrees with the code: a count of
// tools that is not the number of tools in tools.All(), a list of tool names that names
// one the registry has not or leaves some out, an endpoint (METHOD /path) the service does
// not serve, an error code shown with a status the error table does not give it. The
// agent manuals and -h must also name every endpoint of the API (/api/…, /ask, /mcp).
func TestDocsAgreeWithCode(t *testing.T) {
	t.Parallel()
	var names []string
	for _, tl := range tools.All() {
		names = append(names, tl.Name)
	}
	var stdout syncBuffer
	base, _ := startServeWith(t, &stdout, "-network", "demo")
	ops := openAPIPaths(t, base)

	var docs []docText
	for _, path := range []string{"../../README.md", "../../docs/ARCHITECTURE.md", "../../docs/INTERFACE.md", "../../llms.txt"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, docText{strings.TrimPrefix(path, "../../"), string(b)})
	}
	var help bytes.Buffer
	printUsage(&help)
	served := docText{"/llms.txt", getText(t, base, "/llms.txt")}
	full := docText{"/llms-full.txt", getText(t, base, "/llms-full.txt")}
	usage := docText{"peppolgate -h", help.String()}
	docs = append(docs, served, full, usage)

	codes := map[string]int{}
	for _, e := range server.ErrorDocs() {
		codes[string(e.Code)] = e.Status
	}
	for _, d := range docs {
		for _, msg := range checkToolProse(d, names) {
			t.Error(msg)
		}
		for _, m := range endpointRef.FindAllStringSubmatchIndex(d.text, -1) {
			method, path := d.text[m[2]:m[3]], d.text[m[4]:m[5]]
			path = strings.TrimRight(path, ".…")
			if !apiPath(method, path) {
				continue // a web page, described in docs/INTERFACE.md §5, not in OpenAPI
			}
			known := false
			for op, re := range ops {
				if strings.HasPrefix(op, method+" ") && re.MatchString(path) {
					known = true
				}
			}
			if !known {
				t.Errorf("%s:%d: names %s %s, which the service's OpenAPI description does not have", d.name, lineOf(d.text, m[0]), method, path)
			}
		}
		for _, m := range statusCode.FindAllStringSubmatchIndex(d.text, -1) {
			status, code := d.text[m[2]:m[3]], d.text[m[4]:m[5]]
			want, ok := codes[code]
			switch {
			case !ok:
				t.Errorf("%s:%d: names the error code %q, which the error table has not", d.name, lineOf(d.text, m[0]), code)
			case strconv.Itoa(want) != status:
				t.Errorf("%s:%d: gives %s the status %s; the error table gives %d", d.name, lineOf(d.text, m[0]), code, status, want)
			}
		}
	}
	// The short lists for people and agents name every path of the API.
	for _, d := range []docText{served, usage} {
		for op, re := range ops {
			method, path, _ := strings.Cut(op, " ")
			if !apiPath(method, path) {
				continue
			}
			found := false
			for _, m := range endpointRef.FindAllStringSubmatch(d.text, -1) {
				if re.MatchString(strings.TrimRight(m[2], ".…")) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s does not name the endpoint %s", d.name, op)
			}
		}
	}
}

// apiPath reports whether method and path are the API's (docs/INTERFACE.md §4), rather
// than a web page (GET /ask is the ask page) or a document.
func apiPath(method, path string) bool {
	return strings.HasPrefix(path, "/api/") || (path == "/ask" && method != http.MethodGet) || path == "/mcp"
}

// TestCheckToolProse shows that the docs test catches what it is meant to.
func TestCheckToolProse(t *testing.T) {
	t.Parallel()
	names := []string{"a_tool", "b_tool", "c_tool"}
	for _, tc := range []struct {
		text string
		bad  int
	}{
		{"an MCP server with three read-only tools", 0},
		{"an MCP server with four read-only tools", 1},
		{"MCP (2 tools)", 1},
		{"the four operations as tools", 1},
		{"tools a_tool, b_tool and c_tool", 0},
		{"tools a_tool, b_tool,\n      and c_tool", 0},
		{"tools a_tool, b_tool and d_tool", 2},
		{"tools `a_tool`, `c_tool`", 1},
		{"It calls `a_tool` and `c_tool` for that", 0}, // two of them, not announced as the tools
		{"serves the tools `a_tool`, `b_tool` and\n`c_tool`", 0},
		{"codes not_found, invalid_request and search_failed", 0},
		{"it calls 1 of the tools first", 0}, // no count of the tools
		{"two of the tools take a country", 0},
		{"an MCP server with five MCP tools", 1},
		{"three read-only MCP tools", 0},
		{"its 7 read-only tools", 1},
	} {
		if got := checkToolProse(docText{"t", tc.text}, names); len(got) != tc.bad {
			t.Errorf("%q: %d complaints %q, want %d", tc.text, len(got), got, tc.bad)
		}
	}
}
