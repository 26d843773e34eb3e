package peppolnet_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/registry"
)

// mirrorNet is netsim with two registries over it: live, which asks the Directory, and
// mirrored, which has a mirror built from the Directory's own export.
type mirrorNet struct {
	n        *netsim.Network
	ds       *netsim.Dataset
	live     *peppolnet.Registry
	mirrored *peppolnet.Registry
	store    *mirror.Store
	now      *atomic.Int64    // the mirrored registry's clock, Unix nanoseconds
	cfg      peppolnet.Config // the mirrored registry's
}

func startMirrorNet(t testing.TB, participants int, mirrorPath string) *mirrorNet {
	t.Helper()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 5, Participants: participants})
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	if mirrorPath == "" {
		mirrorPath = livenet.BuildMirror(t, n)
	}
	store, err := mirror.OpenStore(mirrorPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	m := &mirrorNet{n: n, ds: ds, store: store, now: new(atomic.Int64)}
	m.now.Store(time.Now().UnixNano())
	res, err := sml.New(sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone(), Timeout: time.Second, Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg := peppolnet.Config{
		Resolver:       res,
		SMP:            &smp.Client{HTTP: netguard.HTTPClient(true, 5*time.Second)},
		Directory:      &directory.Client{Base: n.DirectoryURL(), Timeout: 5 * time.Second},
		DirectoryRate:  1000,
		DirectoryBurst: 1000,
	}
	if m.live, err = peppolnet.New(cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Mirror = store
	cfg.MirrorMaxAge = 24 * time.Hour
	cfg.Now = func() time.Time { return time.Unix(0, m.now.Load()) }
	if m.mirrored, err = peppolnet.New(cfg); err != nil {
		t.Fatal(err)
	}
	m.cfg = cfg
	return m
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMirrorCardsEqualLive: for every participant, the Directory half of a lookup from
// the mirror equals the live Directory's, and the mirrored registry never searched the
// Directory to get it.
func TestMirrorCardsEqualLive(t *testing.T) {
	t.Parallel()
	m := startMirrorNet(t, 150, "")
	ctx := t.Context()
	before := m.n.Hits().Directory.Search
	mirrored := map[string]string{}
	for _, p := range m.ds.Participants {
		got, _, err := m.mirrored.Lookup(ctx, p.ID)
		if registry.ErrorCode(err) == registry.CodeNotFound {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		mirrored[p.ID.String()] = jsonOf(t, got.Directory)
	}
	if hits := m.n.Hits().Directory.Search - before; hits != 0 {
		t.Errorf("the mirrored registry sent %d Directory searches", hits)
	}
	compared := 0
	for _, p := range m.ds.Participants {
		want, ok := mirrored[p.ID.String()]
		if !ok {
			continue
		}
		got, _, err := m.live.Lookup(ctx, p.ID)
		if err != nil {
			t.Fatalf("live %s: %v", p.ID, err)
		}
		if live := jsonOf(t, got.Directory); live != want {
			t.Errorf("%s: mirror card\n%s\nlive card\n%s", p.ID, want, live)
		}
		if got.Directory != nil {
			compared++
		}
	}
	if compared < 50 {
		t.Errorf("only %d cards compared", compared)
	}
}

// TestMirrorSearchSourceAndFallback: a fresh mirror answers searches (source mirror,
// dataAsOf, no Directory request); past MirrorMaxAge the live Directory answers with
// mirror_stale; an empty mirror gives mirror_unavailable.
func TestMirrorSearchSourceAndFallback(t *testing.T) {
	t.Parallel()
	m := startMirrorNet(t, 120, "")
	ctx := t.Context()
	q := registry.SearchQuery{Q: "BE 0677.424.046"}
	before := m.n.Hits().Directory.Search
	res, _, err := m.mirrored.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != registry.SourceMirror || res.DataAsOf == nil || len(res.Warnings) != 0 ||
		len(res.Results) == 0 || res.Results[0].ParticipantID != netsim.KnownBelgian || res.Query != "BE 0677.424.046" {
		t.Errorf("fresh mirror: %s", jsonOf(t, res))
	}
	if hits := m.n.Hits().Directory.Search - before; hits != 0 {
		t.Errorf("fresh mirror: %d Directory searches", hits)
	}

	// A day and a minute after the export: stale.
	m.now.Store(res.DataAsOf.Add(24*time.Hour + time.Minute).UnixNano())
	res, _, err = m.mirrored.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != registry.SourceDirectory || res.DataAsOf != nil || len(res.Warnings) != 1 || res.Warnings[0].Code != registry.WarnMirrorStale ||
		len(res.Results) == 0 || res.Results[0].ParticipantID != netsim.KnownBelgian {
		t.Errorf("stale mirror: %s", jsonOf(t, res))
	}
	if hits := m.n.Hits().Directory.Search - before; hits == 0 {
		t.Error("stale mirror: the live Directory was not asked")
	}
	// Lookups take the card from the live Directory too, without a warning.
	id, err := peppol.ParseParticipantID(netsim.KnownBelgian)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := m.mirrored.Lookup(ctx, id)
	// Only warnings about the Directory matter here, not those about the dataset's
	// certificates and dates.
	dirWarnings := 0
	if p != nil {
		for _, w := range p.Warnings {
			if strings.HasPrefix(w.Code, "directory_") || strings.HasPrefix(w.Code, "mirror_") {
				dirWarnings++
			}
		}
	}
	if err != nil || p.Directory == nil || dirWarnings != 0 {
		t.Errorf("stale mirror lookup: %v %s", err, jsonOf(t, p))
	}

	empty := startMirrorNet(t, 20, filepath.Join(t.TempDir(), "none.db"))
	res, _, err = empty.mirrored.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != registry.SourceDirectory || len(res.Warnings) != 1 || res.Warnings[0].Code != registry.WarnMirrorUnavailable {
		t.Errorf("empty mirror: %s", jsonOf(t, res))
	}
}

// TestStaleMirrorAnswersWhenDirectoryFails: with the mirror's data older than
// MirrorMaxAge and the live Directory failing, searches and the cards of lookups come
// from the stale mirror with a mirror_stale warning saying how old the data is, not as
// search_failed or a missing card; beyond MirrorHardMaxAge the mirror is never used.
func TestStaleMirrorAnswersWhenDirectoryFails(t *testing.T) {
	t.Parallel()
	m := startMirrorNet(t, 120, "")
	ctx := t.Context()
	asOf := m.store.DataAsOf()
	m.n.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: http.StatusServiceUnavailable})
	id, err := peppol.ParseParticipantID(netsim.KnownBelgian)
	if err != nil {
		t.Fatal(err)
	}
	stale := func(ws []registry.Warning) string {
		for _, w := range ws {
			if w.Code == registry.WarnMirrorStale {
				return w.Message
			}
		}
		return ""
	}

	// Four days after the export: stale (max age 24h), within the hard limit (30 days).
	m.now.Store(asOf.Add(4 * 24 * time.Hour).UnixNano())
	for _, q := range []string{"BE 0677.424.046", "Globex"} {
		res, _, err := m.mirrored.Search(ctx, registry.SearchQuery{Q: q})
		if err != nil {
			t.Fatalf("search %q with a stale mirror and a failing Directory: %v", q, err)
		}
		msg := stale(res.Warnings)
		if res.Source != registry.SourceMirror || res.DataAsOf == nil || !res.DataAsOf.Equal(asOf) || (q != "Globex" && len(res.Results) == 0) ||
			!strings.Contains(msg, "could not be searched") || !strings.Contains(msg, "4 days old") {
			t.Errorf("search %q: %s", q, jsonOf(t, res))
		}
	}
	p, _, err := m.mirrored.Lookup(ctx, id)
	if err != nil {
		t.Fatalf("lookup with a stale mirror and a failing Directory: %v", err)
	}
	if p.Directory == nil || !strings.Contains(stale(p.Warnings), "could not be asked") {
		t.Errorf("lookup: %s", jsonOf(t, p))
	}
	for _, w := range p.Warnings {
		if w.Code == registry.WarnDirectoryUnavailable {
			t.Errorf("lookup warns %s although the stale mirror gave the card", w.Code)
		}
	}

	// Past the hard limit the mirror is not used: the Directory's failure shows.
	m.now.Store(asOf.Add(peppolnet.DefaultMirrorHardMaxAge + time.Hour).UnixNano())
	if res, _, err := m.mirrored.Search(ctx, registry.SearchQuery{Q: "Globex"}); registry.ErrorCode(err) != registry.CodeSearchFailed {
		t.Errorf("search with an expired mirror: %v %s", err, jsonOf(t, res))
	}
	other, err := peppol.ParseParticipantID(netsim.KnownGLN)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err = m.mirrored.Lookup(ctx, other)
	if err != nil || p.Directory != nil || stale(p.Warnings) != "" {
		t.Errorf("lookup with an expired mirror: %v %s", err, jsonOf(t, p))
	}
}

// TestMirrorDirectoryWarningsSayAsOf: a card missing from the mirror may have been
// published since the export, so the warning says whose data it is.
func TestMirrorDirectoryWarningsSayAsOf(t *testing.T) {
	t.Parallel()
	m := startMirrorNet(t, 60, "")
	id, err := peppol.ParseParticipantID(netsim.KnownSMLOnly)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := m.mirrored.Lookup(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range p.Warnings {
		if w.Code == registry.WarnDirectoryCardMissing {
			found = true
			if !strings.HasPrefix(w.Message, "as of the Directory export of ") {
				t.Errorf("message %q does not say the data is the mirror's", w.Message)
			}
		}
	}
	if !found {
		t.Errorf("warnings %s, want %s", jsonOf(t, p.Warnings), registry.WarnDirectoryCardMissing)
	}
}

// TestMirrorFindsEveryParticipantValue: every participant with a card is found in the
// mirror by its own id value as typed, alone, whatever its scheme and whether or not
// its check digit holds.
func TestMirrorFindsEveryParticipantValue(t *testing.T) {
	t.Parallel()
	m := startMirrorNet(t, 120, "")
	n := 0
	for _, p := range m.ds.Participants {
		if p.Card == nil || len(p.ID.Value) < 3 {
			continue
		}
		n++
		res, _, err := m.mirrored.Search(t.Context(), registry.SearchQuery{Q: p.ID.Value})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Results {
			found = found || h.ParticipantID == p.ID.String()
		}
		if !found || res.Source != registry.SourceMirror {
			t.Errorf("q=%s: %s not among %s", p.ID.Value, p.ID, jsonOf(t, res.Results))
		}
	}
	if n < 50 {
		t.Errorf("only %d participants with cards: the test proves little", n)
	}
}

// TestMirrorSearchCountryAlone: a country without text is answered by a fresh mirror,
// without asking the Directory, with the exact number of cards having an entity in
// that country; with neither text nor country it is still missing_query.
func TestMirrorSearchCountryAlone(t *testing.T) {
	t.Parallel()
	m := startMirrorNet(t, 300, "")
	ctx := t.Context()
	cards := func(cc string) map[string]bool {
		out := map[string]bool{}
		for _, p := range m.ds.Participants {
			if p.Card == nil {
				continue
			}
			for _, e := range p.Card.Entities {
				if e.CountryCode == cc {
					out[p.ID.String()] = true
				}
			}
		}
		return out
	}
	tests := []struct {
		country string
		many    bool // more cards than one answer holds
	}{
		{"NO", false}, {"be", true}, {"DE", false}, {"ZZ", false},
	}
	for _, tt := range tests {
		t.Run(tt.country, func(t *testing.T) {
			want := cards(strings.ToUpper(tt.country))
			if tt.many != (len(want) > registry.MaxSearchResults) {
				t.Fatalf("%d cards in %s: the dataset no longer fits the case", len(want), tt.country)
			}
			before := m.n.Hits().Directory.Search
			res, _, err := m.mirrored.Search(ctx, registry.SearchQuery{Country: tt.country})
			if err != nil {
				t.Fatal(err)
			}
			if res.Source != registry.SourceMirror || res.TotalCount != len(want) || len(res.Results) != min(len(want), registry.MaxSearchResults) {
				t.Errorf("source %q, totalCount %d, %d results; want mirror, %d, %d", res.Source, res.TotalCount, len(res.Results), len(want), min(len(want), registry.MaxSearchResults))
			}
			for _, h := range res.Results {
				if !want[h.ParticipantID] {
					t.Errorf("result %+v has no entity in %s", h, tt.country)
				}
			}
			if hits := m.n.Hits().Directory.Search - before; hits != 0 {
				t.Errorf("%d Directory searches", hits)
			}
		})
	}
	if _, _, err := m.mirrored.Search(ctx, registry.SearchQuery{Q: " "}); registry.ErrorCode(err) != registry.CodeMissingQuery {
		t.Errorf("no text, no country: %v, want missing_query", err)
	}
}

// TestMirrorSearchPages: with a fresh mirror, page n of a search is the mirror's cards
// from (n-1)*25, with its exact totalCount and the next page; nothing asks the Directory.
func TestMirrorSearchPages(t *testing.T) {
	t.Parallel()
	m := startMirrorNet(t, 400, "")
	before := m.n.Hits().Directory.Search
	for _, q := range []registry.SearchQuery{{Country: "NO", Page: 2}, {Q: "sa", Page: 2}, {Q: "sa", Page: 3}} {
		res, _, err := m.mirrored.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.store.SearchPage(context.Background(), q.Q, q.Country, (q.Page-1)*registry.MaxSearchResults, registry.MaxSearchResults)
		if err != nil {
			t.Fatal(err)
		}
		if res.Source != registry.SourceMirror || res.Page != q.Page || jsonOf(t, res.Results) != jsonOf(t, want.Results) || res.TotalCount != want.TotalCount || len(res.Results) == 0 {
			t.Errorf("%+v: source %s page %d, %d results, total %d; want page %d of the mirror's %d results, total %d",
				q, res.Source, res.Page, len(res.Results), res.TotalCount, q.Page, len(want.Results), want.TotalCount)
		}
		if res.NextPage != registry.NextSearchPage(q.Page, want.TotalCount) {
			t.Errorf("%+v: nextPage %d", q, res.NextPage)
		}
	}
	if got := m.n.Hits().Directory.Search - before; got != 0 {
		t.Errorf("%d Directory requests", got)
	}
}

// BenchmarkMirrorSearch is a search answered by a fresh mirror with tracing off: the
// mirror's searches are not cached, so every one pays for the mirror's span when
// tracing is on, and must pay nothing for it when it is off (BENCHMARKS.md "Issue 28:
// traces").
func BenchmarkMirrorSearch(b *testing.B) {
	m := startMirrorNet(b, 120, "")
	q := registry.SearchQuery{Q: "Globex"}
	if res, _, err := m.mirrored.Search(context.Background(), q); err != nil || res.Source != registry.SourceMirror {
		b.Fatal("not from the mirror", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := m.mirrored.Search(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMirrorSpans: with tracing on, a search answered by the mirror is a "Directory
// mirror search" span with its page and total, and the Directory half of a lookup a
// "Directory mirror card" span with the participant id and whether it had the card;
// no live Directory request is made.
func TestMirrorSpans(t *testing.T) {
	t.Parallel()
	m := startMirrorNet(t, 60, "")
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cfg := m.cfg
	cfg.TracerProvider = tp
	l, err := peppolnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	res, _, err := l.Search(ctx, registry.SearchQuery{Q: "Globex"})
	if err != nil || res.Source != registry.SourceMirror {
		t.Fatalf("search: %v, %+v", err, res)
	}
	if _, _, err := l.Lookup(ctx, mustID(t, netsim.KnownBelgian)); err != nil {
		t.Fatal(err)
	}
	parent.End()
	got := map[string]map[string]string{}
	for _, s := range rec.Ended() {
		a := map[string]string{}
		for _, kv := range s.Attributes() {
			a[string(kv.Key)] = kv.Value.String()
		}
		got[s.Name()] = a
		if s.Name() == "Directory GET" {
			t.Errorf("a live Directory request with a fresh mirror")
		}
	}
	if a := got["Directory mirror search"]; a == nil || a["peppol.search.page"] != "1" || a["peppol.search.total"] != strconv.Itoa(res.TotalCount) {
		t.Errorf("mirror search span %v; want page 1, total %d", a, res.TotalCount)
	}
	if a := got["Directory mirror card"]; a == nil || a["peppol.participant.id"] != netsim.KnownBelgian || a["peppol.directory.card"] != "true" {
		t.Errorf("mirror card span %v; want %s with its card", a, netsim.KnownBelgian)
	}
}
