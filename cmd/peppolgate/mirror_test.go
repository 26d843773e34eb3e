package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

func TestMirrorUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantMsg string
	}{
		{"no subcommand", []string{"mirror"}, ""},
		{"unknown subcommand", []string{"mirror", "load"}, `unknown subcommand "load"`},
		{"import without file", []string{"mirror", "import"}, "give exactly one export"},
		{"import two files", []string{"mirror", "import", "a.xml", "b.xml"}, "give exactly one export"},
		{"import unknown flag", []string{"mirror", "import", "-network", "test", "a.xml"}, "flag provided but not defined: -network"},
		{"sync stray argument", []string{"mirror", "sync", "now"}, `unexpected argument "now"`},
		{"sync bad network", []string{"mirror", "sync", "-network", "demo"}, `-network "demo" is not one of production, test`},
		{"sync bad directory url", []string{"mirror", "sync", "-directory-url", "directory.peppol.eu"}, "-directory-url"},
		{"bad log level", []string{"mirror", "sync", "-log-level", "loud"}, `-log-level "loud"`},
		{"sync bad redis url", []string{"mirror", "sync", "-redis", "http://redis:6379"}, `-redis: the Redis URL http://redis:6379 has scheme "http"`},
		{"sync bad redis prefix", []string{"mirror", "sync", "-redis-prefix", "a b"}, "-redis-prefix: "},
		{"import takes no redis", []string{"mirror", "import", "-redis", "redis://localhost", "a.xml"}, "flag provided but not defined: -redis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(nil)}
			if code := p.run(t.Context(), tt.args); code != 2 {
				t.Errorf("exit %d, want 2; stderr %s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantMsg) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.wantMsg)
			}
		})
	}
}

// writeExport writes a generated XML v3 export of n cards to a file in dir, gzipped
// when gz is set, and returns its path.
func writeExport(t *testing.T, dir string, cfg netsim.ExportConfig, gz bool) string {
	t.Helper()
	name := filepath.Join(dir, "export.xml")
	if gz {
		name += ".gz"
	}
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w io.Writer = f
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(f)
		w = zw
	}
	if err := netsim.WriteExportXML(w, cfg); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

// runCmd runs the program with args to completion and returns its exit code and
// output.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb syncBuffer
	p := program{stdout: &out, stderr: &errb, getenv: envMap(nil)}
	code = p.run(t.Context(), args)
	return code, out.String(), errb.String()
}

// startServe runs `peppolgate serve` with args on a free loopback port until the test
// ends and returns its base URL and its stderr.
func startServe(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	return startServeWith(t, &syncBuffer{}, args...)
}

// startServeWith is startServe with the command's stdout in stdout.
func startServeWith(t *testing.T, stdout *syncBuffer, args ...string) (string, *syncBuffer) {
	t.Helper()
	base, stop, done, stderr := launchServe(t, stdout, append([]string{"-addr", "127.0.0.1:0", "-rate-limit", "off"}, args...)...)
	t.Cleanup(func() {
		stop()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop within 30s")
		}
	})
	return base, stderr
}

// launchServe runs `peppolgate serve` with args (logging at warn) and returns once it
// listens: its base URL, stop (what SIGTERM does), the channel its exit status comes
// on, and its stderr. The caller stops it.
func launchServe(t *testing.T, stdout *syncBuffer, args ...string) (base string, stop context.CancelFunc, done <-chan int, stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stderr = &syncBuffer{}
	ready := make(chan string, 1)
	p := program{stdout: stdout, stderr: stderr, getenv: envMap(map[string]string{"PEPPOLGATE_LOG_LEVEL": "warn"}),
		listening: func(_ net.Addr, base string) { ready <- base }}
	exit := make(chan int, 1)
	go func() { exit <- p.run(ctx, append([]string{"serve"}, args...)) }()
	select {
	case base = <-ready:
		return base, cancel, exit, stderr
	case code := <-exit:
		cancel()
		t.Fatalf("exited %d before listening: %s", code, stderr.String())
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("not listening after 30s")
	}
	return "", cancel, exit, stderr
}

// getJSON GETs base+path and decodes the JSON answer into v, returning the status.
func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %d %s: %v", url, resp.StatusCode, body, err)
	}
	return resp.StatusCode
}

type readyBody struct {
	Status string         `json:"status"`
	Mirror *mirror.Status `json:"mirror"`
}

// TestMirrorImportThenServe is the issue's "done when": `mirror import <generated
// export>`, then `serve -mirror` answers searches from the mirror.
func TestMirrorImportThenServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := netsim.ExportConfig{Seed: 7, Cards: 1500, Created: time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)}
	db := filepath.Join(dir, "mirror.db")
	for _, gz := range []bool{false, true} {
		src := writeExport(t, dir, cfg, gz)
		code, _, stderr := runCmd(t, "mirror", "import", "-mirror", db, src)
		if code != 0 || !strings.Contains(stderr, "imported 1500 cards (0 malformed, skipped)") {
			t.Fatalf("import (gzip %v): exit %d\n%s", gz, code, stderr)
		}
	}

	base, _ := startServe(t, "-network", "demo", "-mirror", db)
	var ready readyBody
	if code := getJSON(t, base+"/readyz", &ready); code != 200 || ready.Mirror == nil || ready.Mirror.State != registry.MirrorOK ||
		ready.Mirror.Cards != 1500 || ready.Mirror.DataAsOf == nil || !ready.Mirror.DataAsOf.Equal(cfg.Created) {
		t.Fatalf("readyz: %d %+v", code, ready.Mirror)
	}

	id, card := netsim.ExportCard(cfg, 42)
	name := card.Entities[0].Names[0].Name
	var res registry.SearchResult
	q := strings.Join(strings.Fields(name)[:1], " ")
	if code := getJSON(t, base+"/api/v1/search?q="+urlQuery(name), &res); code != 200 || res.Source != registry.SourceMirror ||
		res.DataAsOf == nil || !res.DataAsOf.Equal(cfg.Created) || !hasHit(res, id.String()) {
		t.Fatalf("search %q: %d %+v", name, code, res)
	}
	if code := getJSON(t, base+"/api/v1/search?q="+urlQuery(q), &res); code != 200 || res.Source != registry.SourceMirror || res.TotalCount == 0 {
		t.Fatalf("search %q: %d %+v", q, code, res)
	}
	// The Directory half of a lookup comes from the mirror: the generated card, not the
	// demo Directory's (which does not know this participant).
	var part registry.Participant
	getJSON(t, base+"/api/v1/participant/"+id.String(), &part)
	if part.Directory == nil || part.Directory.Name != name {
		t.Errorf("lookup of %s: directory %+v, want the mirror's card %q", id, part.Directory, name)
	}
	// The mirror's answers are counted like upstream calls.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if v := metricValue(string(metrics), `peppolgate_upstream_requests_total{kind="mirror",outcome="ok"}`); v < 3 {
		t.Errorf("mirror calls counted: %v, want at least 3", v)
	}
}

// TestMirrorStaleFallsBack: a mirror older than -mirror-max-age is not used first; the
// live Directory answers and says why, and /readyz says stale.
func TestMirrorStaleFallsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Two days before the demo's day: past -mirror-max-age, within the hard limit.
	cfg := netsim.ExportConfig{Seed: 7, Cards: 50, Created: stack.DemoNow().Add(-48 * time.Hour)}
	db := filepath.Join(dir, "mirror.db")
	if code, _, stderr := runCmd(t, "mirror", "import", "-mirror", db, writeExport(t, dir, cfg, false)); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	base, _ := startServe(t, "-network", "demo", "-mirror", db, "-mirror-max-age", "24h")
	var ready readyBody
	if getJSON(t, base+"/readyz", &ready); ready.Status != "ok" || ready.Mirror == nil || ready.Mirror.State != registry.MirrorStale {
		t.Fatalf("readyz: %+v %+v", ready, ready.Mirror)
	}
	var res registry.SearchResult
	if code := getJSON(t, base+"/api/v1/search?q=BE0677424046", &res); code != 200 || res.Source != registry.SourceDirectory ||
		len(res.Warnings) != 1 || res.Warnings[0].Code != registry.WarnMirrorStale || !hasHit(res, netsim.KnownBelgian) {
		t.Fatalf("search: %d %+v", code, res)
	}
}

// TestMirrorStaleAnswersWhenDirectoryDown is the operator's case: a mirror four days
// old (past -mirror-max-age) and a Directory that cannot be reached. Searches are
// answered from the mirror with a mirror_stale warning, not 502, and /readyz says
// stale; past -mirror-hard-max-age the mirror is not used, the search is 502 and
// /readyz says expired.
func TestMirrorStaleAnswersWhenDirectoryDown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := netsim.ExportConfig{Seed: 7, Cards: 50, Created: time.Now().Add(-4 * 24 * time.Hour).Truncate(time.Second)}
	db := filepath.Join(dir, "mirror.db")
	if code, _, stderr := runCmd(t, "mirror", "import", "-mirror", db, writeExport(t, dir, cfg, false)); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	id, _ := netsim.ExportCard(cfg, 0)
	down := closedPort(t)
	q := "/api/v1/search?q=" + id.Value
	// The production SML zone on a simulated DNS server, so that /readyz does not
	// depend on this machine's resolvers (it is 503 while the zone does not resolve).
	sim, err := netsim.Start(t.Context(), netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 10}), netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	dnsServer := sim.DNSAddr()

	base, logs := startServe(t, "-networks", "production", "-mirror", db, "-directory-url", down, "-dns-server", dnsServer)
	var ready readyBody
	if getJSON(t, base+"/readyz", &ready); ready.Status != "ok" || ready.Mirror == nil || ready.Mirror.State != registry.MirrorStale {
		t.Fatalf("readyz: %+v %+v", ready, ready.Mirror)
	}
	var res registry.SearchResult
	if code := getJSON(t, base+q, &res); code != 200 || res.Source != registry.SourceMirror || res.DataAsOf == nil ||
		len(res.Warnings) != 1 || res.Warnings[0].Code != registry.WarnMirrorStale || !strings.Contains(res.Warnings[0].Message, "4 days old") ||
		!hasHit(res, id.String()) {
		t.Fatalf("search: %d %+v", code, res)
	}
	if !strings.Contains(logs.String(), "answering the search from the stale mirror") {
		t.Errorf("the log does not say the stale mirror answered: %s", logs.String())
	}

	base, _ = startServe(t, "-networks", "production", "-mirror", db, "-directory-url", down, "-mirror-hard-max-age", "72h", "-dns-server", dnsServer)
	if getJSON(t, base+"/readyz", &ready); ready.Mirror == nil || ready.Mirror.State != registry.MirrorExpired {
		t.Fatalf("readyz past the hard limit: %+v", ready.Mirror)
	}
	var e struct{ Error struct{ Code string } }
	if code := getJSON(t, base+q, &e); code != 502 || e.Error.Code != string(registry.CodeSearchFailed) {
		t.Fatalf("search past the hard limit: %d %+v", code, e)
	}
}

// closedPort returns the URL of a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestMirrorMissingFallsBack: -mirror naming a file that does not exist yet serves
// from the live Directory with mirror_unavailable, and /readyz says empty.
func TestMirrorMissingFallsBack(t *testing.T) {
	t.Parallel()
	base, _ := startServe(t, "-network", "demo", "-mirror", filepath.Join(t.TempDir(), "none.db"))
	var ready readyBody
	if getJSON(t, base+"/readyz", &ready); ready.Mirror == nil || ready.Mirror.State != registry.MirrorEmpty || ready.Mirror.DataAsOf != nil {
		t.Fatalf("readyz: %+v", ready.Mirror)
	}
	var res registry.SearchResult
	if code := getJSON(t, base+"/api/v1/search?q=BE0677424046", &res); code != 200 || res.Source != registry.SourceDirectory ||
		len(res.Warnings) != 1 || res.Warnings[0].Code != registry.WarnMirrorUnavailable {
		t.Fatalf("search: %d %+v", code, res)
	}
}

// TestMirrorOtherSchemaFallsBack: after an upgrade, -mirror naming an index of an
// older schema (a new replica on the shared volume) serves from the live Directory as
// without a mirror, instead of exiting (docs/DEPLOY.md, Upgrades).
func TestMirrorOtherSchemaFallsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := netsim.ExportConfig{Seed: 7, Cards: 20, Created: time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)}
	db := filepath.Join(dir, "mirror.db")
	if code, _, stderr := runCmd(t, "mirror", "import", "-mirror", db, writeExport(t, dir, cfg, false)); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	setSchemaVersion(t, db, mirror.SchemaVersion-1)
	base, _ := startServe(t, "-network", "demo", "-mirror", db)
	var ready readyBody
	if getJSON(t, base+"/readyz", &ready); ready.Mirror == nil || ready.Mirror.State != registry.MirrorEmpty {
		t.Fatalf("readyz: %+v", ready.Mirror)
	}
	var res registry.SearchResult
	if code := getJSON(t, base+"/api/v1/search?q=BE0677424046", &res); code != 200 || res.Source != registry.SourceDirectory ||
		len(res.Warnings) != 1 || res.Warnings[0].Code != registry.WarnMirrorUnavailable {
		t.Fatalf("search: %d %+v", code, res)
	}
}

// TestMirrorImportErrors: a missing file and a file that is no export fail with exit 1
// and leave the previous index as it was.
func TestMirrorImportErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "mirror.db")
	cfg := netsim.ExportConfig{Seed: 3, Cards: 20}
	if code, _, stderr := runCmd(t, "mirror", "import", "-mirror", db, writeExport(t, dir, cfg, false)); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	notExport := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notExport, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.xml")
	full, _ := os.ReadFile(filepath.Join(dir, "export.xml"))
	if err := os.WriteFile(truncated, full[:len(full)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ src, want string }{
		{filepath.Join(dir, "missing.xml"), "cannot open the export"},
		{notExport, "reading " + notExport},
		{truncated, "the previous index, if any, is unchanged"},
	} {
		code, _, stderr := runCmd(t, "mirror", "import", "-mirror", db, tt.src)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("import %s: exit %d, stderr %q, want 1 and %q", tt.src, code, stderr, tt.want)
		}
		after, _ := os.ReadFile(db)
		if !bytes.Equal(before, after) {
			t.Errorf("import %s changed the index", tt.src)
		}
	}
}

// TestMirrorSync downloads the export from a simulated Directory, imports it, and
// then finds it unchanged.
func TestMirrorSync(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 1, Participants: 300})
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	db := filepath.Join(t.TempDir(), "mirror.db")
	code, _, stderr := runCmd(t, "mirror", "sync", "-mirror", db, "-directory-url", n.DirectoryURL())
	if code != 0 || !strings.Contains(stderr, "imported ") {
		t.Fatalf("first sync: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCmd(t, "mirror", "sync", "-mirror", db, "-directory-url", n.DirectoryURL())
	if code != 0 || !strings.Contains(stderr, "has not changed") {
		t.Fatalf("second sync: exit %d\n%s", code, stderr)
	}
	// An index older than the downloaded export (its import failed after the download)
	// is rebuilt although the Directory answers 304.
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(db, old, old); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCmd(t, "mirror", "sync", "-mirror", db, "-directory-url", n.DirectoryURL())
	if code != 0 || !strings.Contains(stderr, "imported ") {
		t.Fatalf("sync over an index older than the export: exit %d\n%s", code, stderr)
	}
}

// TestMirrorSyncOtherSchema: after an upgrade, sync rebuilds an index of an older
// schema although it is newer than the unchanged export (docs/DEPLOY.md, Upgrades).
func TestMirrorSyncOtherSchema(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 1, Participants: 50})
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	db := filepath.Join(t.TempDir(), "mirror.db")
	code, _, stderr := runCmd(t, "mirror", "sync", "-mirror", db, "-directory-url", n.DirectoryURL())
	if code != 0 || !strings.Contains(stderr, "imported ") {
		t.Fatalf("first sync: exit %d\n%s", code, stderr)
	}
	setSchemaVersion(t, db, mirror.SchemaVersion-1)
	code, _, stderr = runCmd(t, "mirror", "sync", "-mirror", db, "-directory-url", n.DirectoryURL())
	if code != 0 || !strings.Contains(stderr, "imported ") || !strings.Contains(stderr, "another schema version") {
		t.Fatalf("sync over an index of an older schema: exit %d\n%s", code, stderr)
	}
	if err := mirror.CheckIndex(db); err != nil {
		t.Errorf("after the sync: %v", err)
	}
}

// setSchemaVersion rewrites the schema version of the index at path, as an older
// peppolgate's index has.
func setSchemaVersion(t *testing.T, path string, v int) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		t.Fatal(err)
	}
}

// TestServeMirrorRefresh: serve -network demo -mirror -mirror-refresh syncs the demo
// Directory's export at start and then answers from it.
func TestServeMirrorRefresh(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "mirror.db")
	base, stderr := startServe(t, "-network", "demo", "-mirror", db, "-mirror-refresh", "24h")
	var ready readyBody
	deadline := time.Now().Add(60 * time.Second)
	for getJSON(t, base+"/readyz", &ready); ready.Mirror == nil || ready.Mirror.State != registry.MirrorOK; getJSON(t, base+"/readyz", &ready) {
		if time.Now().After(deadline) {
			t.Fatalf("the mirror is not filled after 60s: %+v\n%s", ready.Mirror, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	var res registry.SearchResult
	if code := getJSON(t, base+"/api/v1/search?q=BE0677424046", &res); code != 200 || res.Source != registry.SourceMirror || !hasHit(res, netsim.KnownBelgian) {
		t.Fatalf("search: %d %+v", code, res)
	}
	var part registry.Participant
	if getJSON(t, base+"/api/v1/participant/"+netsim.KnownBelgian, &part); part.Directory == nil || part.SMP == nil {
		t.Fatalf("lookup: %+v", part)
	}
	// One clock for the whole demo (issue 26): the statistics end at the demo's day,
	// the day its certificates and registrations are drawn around, not at today's.
	var st registry.Stats
	for code := getJSON(t, base+"/api/v1/stats", &st); code != 200; code = getJSON(t, base+"/api/v1/stats", &st) {
		if time.Now().After(deadline) {
			t.Fatalf("no statistics after 60s: %d\n%s", code, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	day := stack.DemoNow().Format("2006-01-02")
	if st.DataAsOf.UTC().Format("2006-01-02") != day || len(st.Registrations) == 0 || st.Registrations[len(st.Registrations)-1].Month != day[:7] {
		last := ""
		if len(st.Registrations) > 0 {
			last = st.Registrations[len(st.Registrations)-1].Month
		}
		t.Errorf("demo statistics as of %s, last month %s; want the demo's day %s", st.DataAsOf, last, day)
	}
}

func hasHit(res registry.SearchResult, id string) bool {
	for _, h := range res.Results {
		if h.ParticipantID == id {
			return true
		}
	}
	return false
}

func urlQuery(s string) string {
	return strings.NewReplacer(" ", "%20", "&", "%26", "+", "%2B", "#", "%23").Replace(s)
}

// TestMirrorImportSources: an export from a URL (refused on loopback unless
// -allow-private) and from stdin.
func TestMirrorImportSources(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 2, Participants: 100})
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	url := n.DirectoryURL() + "/export1/export-all-businesscards.xml"
	db := filepath.Join(t.TempDir(), "mirror.db")
	if code, _, stderr := runCmd(t, "mirror", "import", "-mirror", db, url); code != 1 || !strings.Contains(stderr, "downloading "+url) {
		t.Errorf("loopback URL without -allow-private: exit %d %s", code, stderr)
	}
	code, _, stderr := runCmd(t, "mirror", "import", "-allow-private", "-mirror", db, url)
	if code != 0 || !strings.Contains(stderr, "imported ") {
		t.Fatalf("URL: exit %d %s", code, stderr)
	}

	src := writeExport(t, t.TempDir(), netsim.ExportConfig{Seed: 4, Cards: 30}, true)
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errb syncBuffer
	p := program{stdin: f, stdout: &out, stderr: &errb, getenv: envMap(nil)}
	if code := p.run(t.Context(), []string{"mirror", "import", "-mirror", db, "-"}); code != 0 || !strings.Contains(errb.String(), "imported 30 cards") {
		t.Fatalf("stdin: exit %d %s", code, errb.String())
	}
}

// TestServeDemoWarnings is issue 9's "done when": on the demo network, each participant
// built to trigger a warning shows it in its lookup, whatever day it is (stack.DemoClock), and
// the lookup names the document types.
func TestServeDemoWarnings(t *testing.T) {
	t.Parallel()
	base, _ := startServe(t, "-network", "demo")
	for _, tt := range []struct{ id, want string }{
		{netsim.KnownCertExpired, registry.WarnCertificateExpired},
		{netsim.KnownCertExpiring, registry.WarnCertificateExpiring},
		{netsim.KnownCertNonPeppolCA, registry.WarnCertificateChainInvalid},
		{netsim.KnownServiceNotYetActive, registry.WarnServiceNotYetActive},
		{netsim.KnownServiceExpired, registry.WarnServiceExpired},
		{netsim.KnownHTTPEndpoint, registry.WarnEndpointNotHTTPS},
		{netsim.KnownPort8443, registry.WarnEndpointPort},
		{netsim.KnownAS2Only, registry.WarnTransportProfileRemoved},
		{netsim.KnownDeprecatedDocType, registry.WarnDocumentTypeDeprecated},
		{netsim.KnownNonStandardDocType, registry.WarnDocumentTypeNonStandard},
		{netsim.KnownDirectoryMismatch, registry.WarnDirectoryDocTypesMismatch},
		{netsim.KnownSMLOnly, registry.WarnDirectoryCardMissing},
		{netsim.KnownCertValid, ""},
	} {
		var p registry.Participant
		if code := getJSON(t, base+"/api/v1/participant/"+tt.id, &p); code != 200 || p.SMP == nil || len(p.SMP.DocumentTypes) == 0 || p.SMP.DocumentTypes[0].Name == "" {
			t.Errorf("%s: %d, document types not named: %+v", tt.id, code, p.SMP)
			continue
		}
		var codes []string
		for _, w := range p.Warnings {
			codes = append(codes, w.Code)
		}
		if (tt.want == "" && len(codes) != 0) || (tt.want != "" && !slices.Contains(codes, tt.want)) {
			t.Errorf("%s: warnings %v, want %q", tt.id, codes, tt.want)
		}
	}
}
