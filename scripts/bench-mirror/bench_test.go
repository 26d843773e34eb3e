package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Müller GmbH", "muller gmbh"},
		{"Société Générale", "societe generale"},
		{"Bjørn Ærø Åsane", "bjorn aero asane"},
		{"Straße", "strasse"},
		{"ŁÓDŹ", "lodz"},
		{"plain", "plain"},
	} {
		if got := fold(tc.in); got != tc.want {
			t.Errorf("fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct{ in, terms, id, pid string }{
		{"BE 0677.424.046", "be 0677 424 046", "be0677424046", "be 0677.424.046"},
		{" iso6523-actorid-upis::0208:0677424046 ", "iso6523 actorid upis 0208 0677424046", "iso6523actoridupis02080677424046", "0208:0677424046"},
		{"N.V.", "n v", "nv", "n.v."},
		{"Müller-Lüdenscheidt & Co", "muller ludenscheidt co", "mullerludenscheidtco", "müller-lüdenscheidt & co"},
	} {
		if got := strings.Join(terms(tc.in), " "); got != tc.terms {
			t.Errorf("terms(%q) = %q, want %q", tc.in, got, tc.terms)
		}
		if got := idKey(tc.in); got != tc.id {
			t.Errorf("idKey(%q) = %q, want %q", tc.in, got, tc.id)
		}
		if got := pidKey(tc.in); got != tc.pid {
			t.Errorf("pidKey(%q) = %q, want %q", tc.in, got, tc.pid)
		}
	}
}

func TestMix(t *testing.T) {
	src := newSource(1, 5000)
	qs, err := buildMix(src.at, src.cards, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	again, err := buildMix(src.at, src.cards, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(qs, again) {
		t.Error("the mix differs between two builds from the same seed")
	}
	counts := map[string]int{}
	country := 0
	for _, q := range qs {
		counts[q.kind]++
		if q.country != "" {
			country++
		}
		c := src.at(q.card)
		if c.pid != q.pid {
			t.Errorf("%+v: card %d has pid %s", q, q.card, c.pid)
		}
		if q.country != "" && q.country != c.country {
			t.Errorf("%+v: card's country is %s", q, c.country)
		}
		if strings.TrimSpace(q.text) == "" {
			t.Errorf("%+v: empty query", q)
		}
		name := fold(strings.Join(c.names, " | "))
		switch q.kind {
		case kindNames, kindPrefix:
			for _, term := range terms(q.text) {
				if !strings.Contains(name, term) {
					t.Errorf("%+v: term %q is not in the card's names %q", q, term, name)
				}
			}
		case kindTypo:
			missing := 0
			for _, term := range terms(q.text) {
				if !strings.Contains(name, term) {
					missing++
				}
			}
			if missing == 0 {
				t.Errorf("%+v: no term has a typo against %q", q, name)
			}
		case kindID:
			ok := pidKey(q.text) == c.pid
			for _, id := range c.ids {
				ok = ok || id == q.text
			}
			if !ok {
				t.Errorf("%+v: neither the card's pid nor one of its ids %q", q, c.ids)
			}
		}
	}
	// 850 without a country as 35:20:15:15, 150 with one at the same odds.
	for kind, want := range map[string]int{kindNames: 350 + 62, kindPrefix: 200 + 35, kindTypo: 150 + 26, kindID: 150 + 26} {
		if d := counts[kind] - want; d < 0 || d > 1 {
			t.Errorf("%d %s queries, want about %d", counts[kind], kind, want)
		}
	}
	if country != 150 {
		t.Errorf("%d queries with a country, want 150", country)
	}
}

func TestApportion(t *testing.T) {
	for _, n := range []int{1, 7, 150, 850, 1000} {
		c := apportion(n)
		sum := 0
		for _, x := range c {
			sum += x
		}
		if sum != n {
			t.Errorf("apportion(%d) = %v, sums to %d", n, c, sum)
		}
	}
}

func TestPGQuery(t *testing.T) {
	for _, tc := range []struct {
		q    query
		sql  []string
		args []any
	}{
		{
			q:    query{text: "Müller Bau", country: "DE"},
			sql:  []string{"pid = $1 AND country = $2", "i.key = $3 AND c.country = $4", "similarity(name_folded, $5)", "name_folded LIKE $6 AND name_folded LIKE $7 AND country = $8"},
			args: []any{"müller bau", "DE", "mullerbau", "DE", "muller bau", "%muller%", "%bau%", "DE"},
		},
		{
			q:    query{text: "--"},
			sql:  []string{"pid = $1\n"},
			args: []any{"--"},
		},
	} {
		sql, args := pgQuery(tc.q)
		for _, s := range tc.sql {
			if !strings.Contains(sql, s) {
				t.Errorf("%q: SQL lacks %q:\n%s", tc.q.text, s, sql)
			}
		}
		if !slices.Equal(args, tc.args) {
			t.Errorf("%q: args %q, want %q", tc.q.text, args, tc.args)
		}
	}
}

func TestStats(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := percentile(d, tc.p); got != tc.want {
			t.Errorf("percentile(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != -1 {
		t.Errorf("percentile of nothing = %v, want -1", got)
	}
	for _, tc := range []struct {
		n     int64
		human string
	}{{0, "0 B"}, {999, "999 B"}, {4000000, "3.8 MiB"}, {1 << 30, "1.0 GiB"}} {
		if got := human(tc.n); got != tc.human {
			t.Errorf("human(%d) = %q, want %q", tc.n, got, tc.human)
		}
	}
}

func TestReport(t *testing.T) {
	qs := []query{{kind: kindNames, text: "a"}, {kind: kindID, text: "b", country: "BE"}}
	gate := side{cards: 10, loadTime: time.Second, size: 1 << 20, importRSS: 1 << 20, idleRSS: 1 << 20, serveHWM: 2 << 20,
		warm: []outcome{{took: time.Millisecond, found: true, total: 3}, {took: 3 * time.Millisecond, total: 1}}}
	var b bytes.Buffer
	report(&b, env{cards: 10, queries: 2, cpus: 2}, qs, gate, side{skipped: "-pg=false"})
	out := b.String()
	for _, want := range []string{
		"| import / load rate (target ≥ 40,000 cards/s) | 10 cards/s | skipped | — |",
		"| search p50 (target ≤ 2 ms) | 1.00 ms | skipped | — |",
		"| source card in the top 25 (recall) | 50.0 % | skipped | — |",
		"| id+country | 1 | 3.00 ms |",
		"import ≥ 40,000 cards/s **missed**",
		"PostgreSQL skipped: -pg=false",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestLineTee(t *testing.T) {
	var file, out bytes.Buffer
	lt := &lineTee{file: &file, out: &out, prefix: "> "}
	for _, p := range []string{"one\ntw", "o\r", "three\r", "\nfour"} {
		if _, err := lt.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	lt.flush()
	if got, want := file.String(), "one\ntwo\rthree\r\nfour"; got != want {
		t.Errorf("file got %q, want %q", got, want)
	}
	// "two" and "three" are progress redraws within 5 s of "one" and are not shown.
	if got, want := out.String(), "> one\n> four\n"; got != want {
		t.Errorf("out got %q, want %q", got, want)
	}
	if lt.last != "four" {
		t.Errorf("last = %q", lt.last)
	}
}

func TestProcStatus(t *testing.T) {
	rss, hwm, err := procStatus(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	if rss <= 0 || hwm < rss {
		t.Errorf("rss %d, hwm %d", rss, hwm)
	}
	pss, err := treePSS(os.Getpid())
	if err != nil || pss <= 0 {
		t.Errorf("treePSS = %d, %v", pss, err)
	}
}

// TestServeArgsAnyDate: on any day after the generated export's fixed date, even years
// later, the served mirror counts as fresh (it answers every search) and the live
// Directory is the given loopback URL, never the real one.
func TestServeArgsAnyDate(t *testing.T) {
	asOf := newSource(1, 10).config().CreatedAt()
	for _, later := range []time.Duration{0, 71 * time.Hour, 73 * time.Hour, 40 * 24 * time.Hour, 3 * 365 * 24 * time.Hour} {
		args := serveArgs("127.0.0.1:1", "m.db", asOf, asOf.Add(later), "http://127.0.0.1:2")
		flagValue := func(name string) string {
			i := slices.Index(args, name)
			if i < 0 || i+1 >= len(args) {
				t.Fatalf("%v lacks %s", args, name)
			}
			return args[i+1]
		}
		for _, name := range []string{"-mirror-max-age", "-mirror-hard-max-age"} {
			d, err := time.ParseDuration(flagValue(name))
			if err != nil || d <= later {
				t.Errorf("%v after the export: %s %s does not cover the data's age", later, name, flagValue(name))
			}
		}
		if flagValue("-directory-url") != "http://127.0.0.1:2" || flagValue("-networks") != "production" {
			t.Errorf("args %v", args)
		}
	}
}

// TestSearchNotFromMirrorFails: an answer that did not come from the mirror is an error
// of the benchmark, not a measurement.
func TestSearchNotFromMirrorFails(t *testing.T) {
	for source, wantErr := range map[string]bool{"mirror": false, "directory": true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"totalCount":0,"results":[],"source":%q}`, source)
		}))
		hs := httpSearcher{client: srv.Client(), base: srv.URL, timeout: 5 * time.Second}
		o, _ := hs.get(t.Context(), query{text: "acme"})
		if (o.err != nil) != wantErr {
			t.Errorf("source %q: error %v", source, o.err)
		}
		srv.Close()
	}
}

func TestMixSeedFlag(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		seed, mixSeed uint64
	}{
		{nil, 1, 1},
		{[]string{"-seed", "3"}, 3, 3},
		{[]string{"-mix-seed", "2"}, 1, 2},
		{[]string{"-seed", "3", "-mix-seed", "5"}, 3, 5},
	} {
		o, err := parseOptions(tc.args, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if o.seed != tc.seed || o.mixSeed != tc.mixSeed {
			t.Errorf("%q: seed %d, mix seed %d; want %d, %d", tc.args, o.seed, o.mixSeed, tc.seed, tc.mixSeed)
		}
	}
	// Another mix seed over the same cards is another mix.
	src := newSource(1, 5000)
	a, err := buildMix(src.at, src.cards, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := buildMix(src.at, src.cards, 200, 2)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a, b) {
		t.Error("mix seeds 1 and 2 give the same mix")
	}
}
