package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/peppol"
)

// sliceSource is a CardSource over cards in memory; a nil card stands for a malformed
// record, and err (if set) is returned after the cards instead of io.EOF.
type sliceSource struct {
	hdr   export.Header
	cards []*export.Card
	err   error
	i     int
}

func (s *sliceSource) Header() export.Header { return s.hdr }

func (s *sliceSource) Next() (*export.Card, error) {
	if s.i >= len(s.cards) {
		if s.err != nil {
			return nil, s.err
		}
		return nil, io.EOF
	}
	c := s.cards[s.i]
	s.i++
	if c == nil {
		return nil, &export.RecordError{Index: s.i - 1, Reason: "entity without a name"}
	}
	return c, nil
}

// card makes a one-entity card.
func card(pid, name, cc string, ids ...string) *export.Card {
	e := export.Entity{Names: []export.Name{{Name: name}}, CountryCode: cc}
	for _, id := range ids {
		scheme, value, _ := strings.Cut(id, "=")
		e.Identifiers = append(e.Identifiers, export.ID{Scheme: scheme, Value: value})
	}
	return &export.Card{Participant: export.ID{Scheme: "iso6523-actorid-upis", Value: pid}, Entities: []export.Entity{e}}
}

var testCreated = time.Date(2026, 9, 29, 19, 52, 50, 0, time.UTC)

// buildIndex builds an index of cards in a temporary directory and opens it.
func buildIndex(t testing.TB, cards ...*export.Card) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "directory.db")
	src := &sliceSource{hdr: export.Header{Format: export.FormatXMLv3, Created: testCreated, CodeList: "9.4"}, cards: cards}
	if _, err := Build(context.Background(), path, src, BuildOptions{Source: "test"}); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func TestBuildStatsAndMeta(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "directory.db")
	src := &sliceSource{
		hdr: export.Header{Format: export.FormatXMLv3, Created: testCreated, CodeList: "9.4"},
		cards: []*export.Card{
			card("0192:815344782", "TA-EIENDOM 2 AS", "NO"),
			nil,
			card("0208:0677424046", "Vandelanotte Installaties NV", "BE"),
			card("0192:815344782", "TA-EIENDOM 3 AS", "NO"), // replaces the first
			nil,
		},
	}
	var progress []Progress
	st, err := Build(context.Background(), path, src, BuildOptions{
		Source:   "/tmp/export.xml",
		Logger:   slog.New(slog.DiscardHandler),
		Progress: func(p Progress) { progress = append(progress, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Cards != 3 || st.Skipped != 2 || st.Participants != 2 || st.Duplicates != 1 || !st.DataAsOf.Equal(testCreated) || st.Bytes == 0 {
		t.Errorf("stats = %+v", st)
	}
	if len(progress) == 0 || progress[len(progress)-1].Cards != 3 {
		t.Errorf("progress = %+v", progress)
	}
	ix, err := OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	m := ix.Meta()
	if m.Cards != 2 || m.Source != "/tmp/export.xml" || m.Format != "xml-v3" || m.CodeList != "9.4" || m.SchemaVersion != SchemaVersion || !m.DataAsOf.Equal(testCreated) || m.ImportedAt.IsZero() {
		t.Errorf("meta = %+v", m)
	}
	rec, err := ix.Card(context.Background(), peppol.ParticipantID{ICD: "0192", Value: "815344782"})
	if err != nil || rec == nil || rec.Name != "TA-EIENDOM 3 AS" {
		t.Errorf("Card = %+v, %v; want the last card", rec, err)
	}
	res, err := ix.Search(context.Background(), "eiendom", "", 10)
	if err != nil || res.TotalCount != 1 || len(res.Results) != 1 || res.Results[0].Name != "TA-EIENDOM 3 AS" {
		t.Errorf("Search = %+v, %v", res, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files left beside the index: %v", entries)
	}
}

func TestBuildFailureKeepsOldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "directory.db")
	if _, err := Build(context.Background(), path, &sliceSource{cards: []*export.Card{card("0208:0677424046", "Old Name NV", "BE")}}, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	boom := errors.New("connection reset")
	_, err := Build(context.Background(), path, &sliceSource{cards: []*export.Card{card("0208:0403019261", "New Name NV", "BE")}, err: boom}, BuildOptions{})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, path, &sliceSource{cards: []*export.Card{card("0208:0403019261", "New Name NV", "BE")}}, BuildOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the index changed after failed builds")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left beside the index: %v", entries)
	}
}

// TestLowerGCPercent checks that the GC target is lowered during a build only when it
// is higher than buildGCPercent, and put back after.
func TestLowerGCPercent(t *testing.T) {
	t.Parallel()
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	tests := []struct {
		name         string
		before, want int // want: during the build
	}{
		{"high", 400, buildGCPercent},
		{"low", buildGCPercent / 2, buildGCPercent / 2},
		{"off", -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(tt.before)
			restore := lowerGCPercent()
			if got := debug.SetGCPercent(tt.want); got != tt.want {
				t.Errorf("during: %d, want %d", got, tt.want)
			}
			restore()
			if got := debug.SetGCPercent(tt.before); got != tt.before {
				t.Errorf("after: %d, want %d", got, tt.before)
			}
		})
	}
}

// openTempFiles lists this process's open file descriptors on temporary index files
// (path + ".new-…"), deleted or not.
func openTempFiles(t *testing.T, path string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, path+".new-") {
			open = append(open, target)
		}
	}
	return open
}

// cancelSource cancels its context after n cards, then goes on.
type cancelSource struct {
	sliceSource
	n      int
	cancel context.CancelFunc
}

func (s *cancelSource) Next() (*export.Card, error) {
	if s.i == s.n {
		s.cancel()
	}
	return s.sliceSource.Next()
}

// TestBuildFailureReleasesTempFile checks that a failed import closes its temporary
// file: a transaction left open would keep the connection, and the unlinked file's
// disk space, until the process exits.
func TestBuildFailureReleasesTempFile(t *testing.T) {
	t.Parallel()
	many := func() []*export.Card {
		cards := make([]*export.Card, 3*batchSize)
		for i := range cards {
			cards[i] = card(fmt.Sprintf("0192:%09d", i), fmt.Sprintf("Firma %d AS", i), "NO")
		}
		return cards
	}
	boom := errors.New("connection reset")
	for _, tc := range []struct {
		name string
		src  func(cancel context.CancelFunc) CardSource
		want error
	}{
		{"source fails mid-read", func(context.CancelFunc) CardSource {
			return &sliceSource{cards: many(), err: boom}
		}, boom},
		{"cancelled mid-read", func(cancel context.CancelFunc) CardSource {
			return &cancelSource{sliceSource: sliceSource{cards: many()}, n: 2 * batchSize, cancel: cancel}
		}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "directory.db")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := Build(ctx, path, tc.src(cancel), BuildOptions{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if open := openTempFiles(t, path); len(open) > 0 {
				t.Errorf("temporary files still open: %v", open)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("files left: %v", entries)
			}
		})
	}
}

// TestDisplayNameFirstNonEmpty checks that the display name (and the exact-name key and
// rank) is the first non-empty name of any entity, not only the first entity's.
func TestDisplayNameFirstNonEmpty(t *testing.T) {
	t.Parallel()
	multi := &export.Card{
		Participant: export.ID{Scheme: "iso6523-actorid-upis", Value: "0192:815344782"},
		Entities: []export.Entity{
			{CountryCode: "NO"}, // the decoder dropped its empty names
			{CountryCode: "NO", Names: []export.Name{{Name: " "}, {Name: "Beta Bygg AS"}, {Name: "Beta Construction"}}},
		},
	}
	ix := buildIndex(t, multi, card("0192:815344783", "Bygg AB", "SE"))
	ctx := context.Background()
	rec, err := ix.Card(ctx, peppol.ParticipantID{ICD: "0192", Value: "815344782"})
	if err != nil || rec == nil || rec.Name != "Beta Bygg AS" {
		t.Fatalf("Card = %+v, %v; want the name Beta Bygg AS", rec, err)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"beta bygg as", []string{"Beta Bygg AS"}},
		{"beta construction", []string{"Beta Bygg AS"}},
		// ranked by the display name's length: "bygg ab" before "beta bygg as"
		{"bygg", []string{"Bygg AB", "Beta Bygg AS"}},
	} {
		res, err := ix.Search(ctx, tc.query, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Results {
			got = append(got, h.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Search(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
	// The exact-name tier: the card whose display name is the query comes before one
	// with a shorter display name that has all its terms through another name.
	other := card("0192:815344784", "BB", "NO")
	other.Entities[0].Names = append(other.Entities[0].Names, export.Name{Name: "Beta Bygg AS Oslo"})
	ix = buildIndex(t, other, multi)
	res, err := ix.Search(ctx, "beta bygg as", "", 10)
	if err != nil || len(res.Results) != 2 || res.Results[0].Name != "Beta Bygg AS" || res.Results[1].Name != "BB" {
		t.Errorf("exact name tier: %+v, %v", res, err)
	}
}
