package netsim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dirAnswer is the test-side model of a Directory search answer.
type dirAnswer struct {
	Version    string `json:"version"`
	Total      int    `json:"total-result-count"`
	Used       int    `json:"used-result-count"`
	PageIndex  int    `json:"result-page-index"`
	PageCount  int    `json:"result-page-count"`
	First      int    `json:"first-result-index"`
	Last       int    `json:"last-result-index"`
	QueryTerms string `json:"query-terms"`
	CreationDT string `json:"creation-dt"`
	Matches    []struct {
		ParticipantID struct{ Scheme, Value string }   `json:"participantID"`
		DocTypes      []struct{ Scheme, Value string } `json:"docTypes"`
		Entities      []map[string]json.RawMessage     `json:"entities"`
	} `json:"matches"`
}

func search(t testing.TB, n *Network, query string) (int, []byte) {
	t.Helper()
	status, hdr, body := get(t, n.DirectoryURL()+"/search/1.0/json?"+query)
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("content type %q", ct)
	}
	return status, body
}

func mustSearch(t testing.TB, n *Network, query string) dirAnswer {
	t.Helper()
	status, body := search(t, n, query)
	if status != http.StatusOK {
		t.Fatalf("search %s: status %d %s", query, status, body)
	}
	var a dirAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("search %s: %v\n%s", query, err, body)
	}
	return a
}

// entityCount counts the entities of the dataset that satisfy match, computed here
// independently of the server's index.
func entityCount(ds *Dataset, match func(p *Participant, e *Entity) bool) int {
	n := 0
	for i := range ds.Participants {
		p := &ds.Participants[i]
		if p.Card == nil {
			continue
		}
		for j := range p.Card.Entities {
			if match(p, &p.Card.Entities[j]) {
				n++
			}
		}
	}
	return n
}

func TestDirectoryParticipant(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	a := mustSearch(t, n, "participant=iso6523-actorid-upis::0208:0677424046")
	if a.Version != "1.0" || a.Total != 1 || a.Used != 1 || a.PageCount != 20 || a.First != 0 || a.Last != 0 || len(a.Matches) != 1 {
		t.Fatalf("header %+v", a)
	}
	if a.QueryTerms != "participant=iso6523-actorid-upis::0208:0677424046" {
		t.Errorf("query-terms %q", a.QueryTerms)
	}
	if _, err := time.Parse(time.RFC3339Nano, a.CreationDT); err != nil {
		t.Errorf("creation-dt %q: %v", a.CreationDT, err)
	}
	m := a.Matches[0]
	if m.ParticipantID.Scheme != "iso6523-actorid-upis" || m.ParticipantID.Value != KnownBelgian || len(m.DocTypes) == 0 {
		t.Errorf("match %+v", m)
	}
	var names []struct{ Name, Language string }
	json.Unmarshal(m.Entities[0]["name"], &names)
	if len(names) != 2 || names[0].Language != "nl" || names[1].Language != "fr" {
		t.Errorf("names %s", m.Entities[0]["name"])
	}
	// Case and scheme-prefix handling of participant=.
	for _, q := range []string{"participant=ISO6523-ACTORID-UPIS::9930:DE811152493", "participant=iso6523-actorid-upis::9930:de811152493"} {
		if a := mustSearch(t, n, q); a.Total != 1 || a.Matches[0].ParticipantID.Value != KnownGerman {
			t.Errorf("%s: %+v", q, a)
		}
	}
	// Directory-only participants are found, SML-only ones are not.
	if a := mustSearch(t, n, "participant=iso6523-actorid-upis::"+KnownDirectoryOnly); a.Total != 1 {
		t.Errorf("directory-only: %d", a.Total)
	}
	a = mustSearch(t, n, "participant=iso6523-actorid-upis::"+KnownSMLOnly)
	if a.Total != 0 || a.Used != 0 || a.Last != -1 || a.Matches == nil {
		t.Errorf("SML-only: %+v", a)
	}
	// Without the scheme the term is unusable: 400.
	if status, body := search(t, n, "participant=0208:0677424046"); status != 400 || string(body) != `"No valid queries could be created!"` {
		t.Errorf("no scheme: %d %s", status, body)
	}
}

func TestDirectoryEmptyShape(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	status, body := search(t, n, "q=zzqqxxnothing")
	if status != 200 {
		t.Fatal(status)
	}
	for _, want := range []string{`"total-result-count":0`, `"used-result-count":0`, `"last-result-index":-1`, `"matches":[]`, `"query-terms":"q=zzqqxxnothing"`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("empty answer lacks %s: %s", want, body)
		}
	}
}

func TestDirectoryJSONShape(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	// Key order of the header, as the real service writes it.
	_, body := search(t, n, "country=NO")
	order := []string{`"version"`, `"total-result-count"`, `"used-result-count"`, `"result-page-index"`, `"result-page-count"`, `"first-result-index"`, `"last-result-index"`, `"query-terms"`, `"creation-dt"`, `"matches"`}
	last := -1
	for _, k := range order {
		i := bytes.Index(body, []byte(k))
		if i <= last {
			t.Fatalf("key %s out of order", k)
		}
		last = i
	}
	// Every entity in a big page: countryCode always, optional keys only when present,
	// contacts with all four keys.
	a := mustSearch(t, n, "q=iso6523&rpc=1000")
	if a.Total != entityCount(ds, func(*Participant, *Entity) bool { return true }) || a.Used != a.Total {
		t.Fatalf("q=iso6523 matched %d/%d entities", a.Used, a.Total)
	}
	seenContacts := false
	for _, m := range a.Matches {
		p := ds.MustLookup(m.ParticipantID.Value)
		if (len(p.Card.DocTypes) == 0) != (m.DocTypes == nil) {
			t.Errorf("%s: docTypes presence", p.ID)
		}
		for i, e := range m.Entities {
			want := p.Card.Entities[i]
			if _, ok := e["countryCode"]; !ok {
				t.Errorf("%s: no countryCode", p.ID)
			}
			for key, present := range map[string]bool{"geoInfo": want.GeoInfo != "", "identifiers": len(want.Identifiers) > 0,
				"websites": len(want.Websites) > 0, "contacts": len(want.Contacts) > 0, "additionalInfo": want.AdditionalInfo != "", "regDate": want.RegDate != ""} {
				if _, ok := e[key]; ok != present {
					t.Errorf("%s: key %s present=%v, want %v", p.ID, key, ok, present)
				}
			}
			if c, ok := e["contacts"]; ok {
				seenContacts = true
				var cs []map[string]string
				json.Unmarshal(c, &cs)
				for _, k := range []string{"type", "name", "phone", "email"} {
					if _, ok := cs[0][k]; !ok {
						t.Errorf("%s: contact lacks %s: %s", p.ID, k, c)
					}
				}
			}
		}
	}
	if !seenContacts {
		t.Error("no contacts in the whole dataset")
	}
}

func TestDirectoryQuery(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	lower := strings.ToLower
	contains := func(p *Participant, e *Entity, term string) bool {
		var b strings.Builder
		b.WriteString(p.ID.URI() + "\n" + e.CountryCode + "\n" + e.GeoInfo + "\n" + e.AdditionalInfo + "\n" + e.RegDate + "\n")
		for _, n := range e.Names {
			b.WriteString(n.Name + "\n" + n.Language + "\n")
		}
		for _, id := range e.Identifiers {
			b.WriteString(id.Scheme + "\n" + id.Value + "\n")
		}
		for _, w := range e.Websites {
			b.WriteString(w + "\n")
		}
		for _, c := range e.Contacts {
			b.WriteString(c.Type + "\n" + c.Name + "\n" + c.Phone + "\n" + c.Email + "\n")
		}
		for _, d := range p.Card.DocTypes {
			b.WriteString(d.URI() + "\n")
		}
		return strings.Contains(lower(b.String()), term)
	}
	tests := []struct {
		query string
		match func(p *Participant, e *Entity) bool
	}{
		{"q=" + url.QueryEscape("0677424046"), func(p *Participant, e *Entity) bool { return contains(p, e, "0677424046") }},
		{"q=" + url.QueryEscape("BE0677424046"), func(p *Participant, e *Entity) bool { return contains(p, e, "be0677424046") }},
		{"q=" + url.QueryEscape("müller GMBH"), func(p *Participant, e *Entity) bool { return contains(p, e, "müller") && contains(p, e, "gmbh") }},
		{"q=" + url.QueryEscape("iso6523-actorid-upis::0192:923609016"), func(p *Participant, e *Entity) bool {
			return contains(p, e, "iso6523") && contains(p, e, "actorid") && contains(p, e, "upis") && contains(p, e, "0192") && contains(p, e, "923609016")
		}},
		{"q=as&country=no", func(p *Participant, e *Entity) bool { return e.CountryCode == "NO" && contains(p, e, "as") }},
		{"country=be", func(p *Participant, e *Entity) bool { return e.CountryCode == "BE" }},
		{"name=" + url.QueryEscape("Øresund"), func(p *Participant, e *Entity) bool {
			for _, n := range e.Names {
				if strings.Contains(lower(n.Name), "øresund") {
					return true
				}
			}
			return false
		}},
		{"q=pdf&q=xml", func(p *Participant, e *Entity) bool { return contains(p, e, "pdf") && contains(p, e, "xml") }},
		{"q=" + url.QueryEscape("peppol-doctype-wildcard"), func(p *Participant, e *Entity) bool {
			return contains(p, e, "peppol") && contains(p, e, "doctype") && contains(p, e, "wildcard")
		}},
		{"doctype=" + url.QueryEscape(docKinds[dkFacturX].docType.URI()), func(p *Participant, e *Entity) bool {
			for _, d := range p.Card.DocTypes {
				if d == docKinds[dkFacturX].docType {
					return true
				}
			}
			return false
		}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			want := entityCount(ds, tt.match)
			a := mustSearch(t, n, tt.query+"&rpc=1000")
			if a.Total != want || a.Used != want {
				t.Errorf("total %d used %d, want %d", a.Total, a.Used, want)
			}
			if want == 0 {
				t.Error("query matches nothing; the test proves little")
			}
		})
	}
	// Diacritics are not folded: "muller" does not find "Müller".
	if a := mustSearch(t, n, "name=muller"); a.Total != 0 {
		t.Errorf("name=muller found %d", a.Total)
	}
	if a := mustSearch(t, n, "q=m%C3%BCller"); a.Total == 0 {
		t.Error("q=müller found nothing")
	}
	// Terms shorter than 3 characters are ignored for name=; alone they give 400.
	if status, _ := search(t, n, "name=ab"); status != 400 {
		t.Errorf("name=ab: %d", status)
	}
	if a := mustSearch(t, n, "name=ab&country=BE"); a.Total != entityCount(ds, func(p *Participant, e *Entity) bool { return e.CountryCode == "BE" }) {
		t.Errorf("name=ab&country=BE: %d", a.Total)
	}
	// query-terms follow the field order of the real service, not the request order.
	if a := mustSearch(t, n, "country=BE&q=nv"); a.QueryTerms != "q=nv&country=BE" {
		t.Errorf("query-terms %q", a.QueryTerms)
	}
}

func TestDirectoryPaging(t *testing.T) {
	t.Parallel()
	n := Generate(DatasetConfig{Seed: 5, Participants: 3000, Now: testNow})
	net, err := Start(t.Context(), n, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	total := entityCount(n, func(p *Participant, e *Entity) bool { return e.CountryCode == "BE" })
	if total <= 1000 {
		t.Fatalf("only %d BE entities; the cap is not exercised", total)
	}
	a := mustSearch(t, net, "country=BE")
	if a.Total != total || a.Used != 20 || a.First != 0 || a.Last != 19 {
		t.Errorf("page 0: %+v", a)
	}
	// Entities, not participants, are counted: concatenating pages gives every entity once.
	seen := 0
	for rpi := range 10 {
		a := mustSearch(t, net, "country=BE&rpc=100&rpi="+strconv.Itoa(rpi))
		if a.First != rpi*100 || a.Last != rpi*100+99 || a.Used != 100 || a.PageIndex != rpi {
			t.Fatalf("page %d: %+v", rpi, a)
		}
		for _, m := range a.Matches {
			seen += len(m.Entities)
		}
	}
	if seen != 1000 {
		t.Errorf("10 pages of 100 gave %d entities", seen)
	}
	for _, q := range []string{"rpc=100&rpi=10", "rpc=20&rpi=50", "rpc=1002", "rpi=-1", "rpc=0", "rpc=2&rpi=9223372036854775807"} {
		if status, body := search(t, net, "country=BE&"+q); status != 400 || body[0] != '"' {
			t.Errorf("%s: %d %s", q, status, body)
		}
	}
	if a := mustSearch(t, net, "country=BE&rpc=1000"); a.Used != 1000 || a.Last != 999 {
		t.Errorf("rpc=1000: %+v", a.Used)
	}
	if a := mustSearch(t, net, "country=BE&resultPageCount=5&resultPageIndex=2&rpc=50"); a.PageCount != 5 || a.First != 10 {
		t.Errorf("long parameter names take precedence: %+v", a)
	}
	// A page beyond the results: no matches, last index is that of the last result.
	small := mustSearch(t, net, "participant=iso6523-actorid-upis::"+KnownGLN+"&rpi=3")
	if small.Used != 0 || len(small.Matches) != 0 || small.Last != 1 || small.First != 60 {
		t.Errorf("beyond results: %+v", small)
	}
	// Multi-entity card: counts per entity.
	glnA := mustSearch(t, net, "participant=iso6523-actorid-upis::"+KnownGLN)
	if glnA.Total != 2 || glnA.Used != 2 || glnA.Last != 1 || len(glnA.Matches) != 1 || len(glnA.Matches[0].Entities) != 2 {
		t.Errorf("multi-entity: %+v", glnA)
	}
	glnB := mustSearch(t, net, "participant=iso6523-actorid-upis::"+KnownGLN+"&rpc=1&rpi=1")
	if glnB.Total != 2 || glnB.Used != 1 || len(glnB.Matches) != 1 || len(glnB.Matches[0].Entities) != 1 {
		t.Errorf("second entity page: %+v", glnB)
	}
}

func TestDirectoryErrors(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/search/1.0/json", 400, `"No valid query term provided!"`},
		{"GET", "/search/1.0/json?rpc=5", 400, `"No valid query term provided!"`},
		{"GET", "/search/1.0/json?q=", 400, `"No valid queries could be created!"`},
		{"POST", "/search/1.0/json?q=x", 405, ""},
		{"GET", "/search/2.0/json?q=x", 404, ""},
		{"GET", "/nothing", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, n.DirectoryURL()+tt.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			buf.ReadFrom(resp.Body)
			if resp.StatusCode != tt.status || tt.body != "" && buf.String() != tt.body {
				t.Errorf("%d %s", resp.StatusCode, buf.String())
			}
			var s string
			if err := json.Unmarshal(buf.Bytes(), &s); err != nil {
				t.Errorf("error body is not a JSON string: %s", buf.String())
			}
		})
	}
	if h := n.Hits().Directory; h.Search != 5 || h.Other != 1 {
		t.Errorf("hits %+v", h)
	}
}

func TestDirectoryRateLimit(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{DirectoryRateLimit: true})
	statuses := []int{}
	var retry string
	for range 6 {
		resp, err := http.Get(n.DirectoryURL() + "/search/1.0/json?country=BE")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == 429 {
			retry = resp.Header.Get("Retry-After")
		}
	}
	// Six requests in well under two seconds: the first four pass, the rest are limited.
	if statuses[0] != 200 || statuses[5] != 429 || retry != "2" {
		t.Errorf("statuses %v retry-after %q", statuses, retry)
	}
	if h := n.Hits().Directory; h.RateLimited == 0 || h.Search != 6 {
		t.Errorf("hits %+v", h)
	}
}

func TestRateLimiterWindow(t *testing.T) {
	t.Parallel()
	l := newRateLimiter(4, 2*time.Second)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 4 {
		if !l.allow("a", t0.Add(time.Duration(i)*100*time.Millisecond)) {
			t.Fatalf("request %d refused", i)
		}
	}
	if l.allow("a", t0.Add(500*time.Millisecond)) {
		t.Error("fifth request in the window allowed")
	}
	if !l.allow("b", t0.Add(500*time.Millisecond)) {
		t.Error("other IP limited")
	}
	if !l.allow("a", t0.Add(5*time.Second)) {
		t.Error("request after the window refused")
	}
}

// TestDirectoryCountryAlone: country= alone is a valid query, as on the real Directory
// (e.g. country=NO): total-result-count is the number of entities in that country
// however small the page, and every entity on the page is in it.
func TestDirectoryCountryAlone(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	tests := []struct {
		query, country string
		pageSize       int
	}{
		{"country=NO&rpc=25", "NO", 25},
		{"country=no", "NO", dirDefaultPageSize},
		{"country=BE&rpc=5", "BE", 5},
		{"country=ZZ&rpc=25", "ZZ", 25},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			want := entityCount(ds, func(p *Participant, e *Entity) bool { return e.CountryCode == tt.country })
			if tt.country != "ZZ" && want <= tt.pageSize {
				t.Fatalf("only %d entities in %s: the test proves little", want, tt.country)
			}
			a := mustSearch(t, n, tt.query)
			if a.Total != want || a.Used != min(want, tt.pageSize) {
				t.Errorf("total %d used %d, want %d and %d", a.Total, a.Used, want, min(want, tt.pageSize))
			}
			if a.QueryTerms != "country="+tt.query[len("country="):len("country=")+2] {
				t.Errorf("query-terms %q", a.QueryTerms)
			}
			for _, m := range a.Matches {
				for _, e := range m.Entities {
					var cc string
					if err := json.Unmarshal(e["countryCode"], &cc); err != nil || cc != tt.country {
						t.Errorf("entity of %s in %q (%v)", m.ParticipantID.Value, cc, err)
					}
				}
			}
		})
	}
}
