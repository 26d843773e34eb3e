package bulk

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

var datasetNow = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// run checks rows with cfg and returns the results by index.
func run(t *testing.T, cfg Config, rows ...Row) map[int]Result {
	t.Helper()
	in, out := make(chan Row), make(chan Result)
	errc := make(chan error, 1)
	go func() { errc <- Check(t.Context(), cfg, in, out) }()
	go func() {
		defer close(in)
		for i, r := range rows {
			r.Index = i
			in <- r
		}
	}()
	got := map[int]Result{}
	for r := range out {
		if _, dup := got[r.Index]; dup {
			t.Fatalf("row %d answered twice", r.Index)
		}
		got[r.Index] = r
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("%d results for %d rows", len(got), len(rows))
	}
	return got
}

// TestStatuses: every status, from the inputs a ledger holds, over a simulated network.
func TestStatuses(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 200, Now: datasetNow})
	tests := []struct {
		row    Row
		docs   []string
		status Status
		id     string
	}{
		{row: Row{Input: netsim.KnownCertValid, Reference: "C-0"}, status: Receives, id: netsim.KnownCertValid},
		// The dataset's certificate of KnownBelgian's access point has expired.
		{row: Row{Input: netsim.KnownBelgian, Reference: "C-1"}, status: Blocked, id: netsim.KnownBelgian},
		{row: Row{Input: "BE 0677.424.046"}, status: Blocked, id: netsim.KnownBelgian},
		{row: Row{Input: "0677424046", Country: "be"}, status: Blocked, id: netsim.KnownBelgian},
		{row: Row{Input: netsim.KnownBelgian}, docs: []string{"invoice", "Order"}, status: RegisteredWithoutDocument, id: netsim.KnownBelgian},
		{row: Row{Input: netsim.KnownDirectoryOnly}, status: NotRegistered},
		{row: Row{Input: "0208:0000000097"}, status: NotRegistered},
		{row: Row{Input: "hello world"}, status: Invalid},
		{row: Row{Input: ""}, status: Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.row.Input+"/"+tt.row.Country, func(t *testing.T) {
			t.Parallel()
			r := run(t, Config{Registry: n.Reg, Documents: tt.docs}, tt.row)[0]
			if r.Status != tt.status || r.ParticipantID != tt.id || r.Reference != tt.row.Reference || r.Input != tt.row.Input {
				t.Fatalf("%+v, want %s as %q", r, tt.status, tt.id)
			}
			switch tt.status {
			case Receives, Blocked, RegisteredWithoutDocument:
				if r.Name == "" || r.AccessPoint == "" || len(r.Documents) != max(len(tt.docs), 2) || len(r.Tried) == 0 {
					t.Errorf("answer %+v", r)
				}
			case Invalid:
				if r.Error == nil || r.Error.Retryable || len(r.Tried) != 0 {
					t.Errorf("error %+v", r.Error)
				}
			}
		})
	}
}

// TestFailedAndDuplicates: a failing SMP host fails its rows as retryable while the
// others are answered, and rows naming the same participant ask the network once (a
// host that hangs rather than fails is TestSlowHostOwnLane's).
func TestFailedAndDuplicates(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 200, Now: datasetNow})
	failing := n.DS.MustLookup(netsim.KnownNorwegian)
	n.Net.SetFault(netsim.SMPHostTarget(failing.SMPHost), netsim.Fault{HTTPStatus: http.StatusInternalServerError})
	var rows []Row
	for range 50 {
		rows = append(rows, Row{Input: netsim.KnownBelgian})
	}
	rows = append(rows, Row{Input: netsim.KnownNorwegian})
	n.Net.ResetHits()
	got := run(t, Config{Registry: n.Reg, Concurrency: 8}, rows...)
	for i := range 50 {
		if got[i].Status != Blocked { // the dataset's certificate of its access point expired
			t.Fatalf("row %d: %+v", i, got[i])
		}
	}
	if r := got[50]; r.Status != Failed || r.Error == nil || !r.Error.Retryable {
		t.Errorf("failing host: %+v", r)
	}
	belgian := n.DS.MustLookup(netsim.KnownBelgian)
	if failing.SMPHost != belgian.SMPHost {
		// Once for its lookup, once for its services: it lists credit notes besides
		// the invoice its lookup read (registry.JudgeParticipant).
		if sg := n.Net.Hits().SMP[belgian.SMPHost].ServiceGroup; sg != 2 {
			t.Errorf("50 rows of one participant asked its ServiceGroup %d times, want 2", sg)
		}
	}
}

// TestCancel: Check stops when its context is done and says so.
func TestCancel(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 50, Now: datasetNow})
	ctx, cancel := context.WithCancel(t.Context())
	in, out := make(chan Row), make(chan Result)
	errc := make(chan error, 1)
	go func() { errc <- Check(ctx, Config{Registry: n.Reg}, in, out) }()
	in <- Row{Input: netsim.KnownBelgian}
	cancel()
	for range out {
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Check after cancel: %v", err)
	}
}

// TestSlowHostOwnLane: rows of an SMP host that does not answer wait in its own lane,
// at most PerHost of them asking it, while every other host's rows are answered; the
// held host's rows come last (here: never, until the check is cancelled).
func TestSlowHostOwnLane(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 300, Now: datasetNow})
	held := n.DS.MustLookup(netsim.KnownNorwegian).SMPHost
	n.Net.SetFault(netsim.SMPHostTarget(held), netsim.Fault{Hang: true})
	var heldRows, others int
	var rows []Row
	for _, p := range n.DS.Participants {
		if !p.InSML || p.SMPNotFound || p.RedirectHost >= 0 {
			continue
		}
		if p.SMPHost == held {
			heldRows++
		} else if others < 40 {
			others++
		} else {
			continue
		}
		rows = append(rows, Row{Index: len(rows), Input: p.ID.String(), Reference: strconv.Itoa(p.SMPHost)})
	}
	if heldRows < 3 || others == 0 {
		t.Fatalf("dataset has %d rows on the held host and %d on others", heldRows, others)
	}
	in := make(chan Row)
	go func() {
		defer close(in)
		for _, r := range rows {
			in <- r
		}
	}()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := make(chan Result)
	const perHost = 2
	errc := make(chan error, 1)
	go func() { errc <- Check(ctx, Config{Registry: n.Reg, Concurrency: 8, PerHost: perHost}, in, out) }()
	answered := 0
	for r := range out {
		if r.Reference == strconv.Itoa(held) {
			t.Fatalf("a row of the held host was answered (%+v) before the others (%d of %d answered)", r, answered, others)
		}
		if r.Status == Failed {
			t.Errorf("row of a healthy host failed: %+v", r)
		}
		answered++
		if answered == others {
			break
		}
	}
	if hits := n.Net.Hits().SMP[held]; hits.MaxInFlight > perHost || hits.ServiceGroup > perHost {
		t.Errorf("held host got %+v, want at most %d in flight", hits, perHost)
	}
	cancel()
	for range out {
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Check: %v", err)
	}
}

// TestDuplicatesOnce: rows of the same identifiers, in any notation, are resolved once,
// a failure included, and each keeps its own index, input and reference.
func TestDuplicatesOnce(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 200, Now: datasetNow})
	failing := n.DS.MustLookup(netsim.KnownNorwegian)
	n.Net.SetFault(netsim.SMPHostTarget(failing.SMPHost), netsim.Fault{HTTPStatus: http.StatusServiceUnavailable})
	var rows []Row
	for i := range 20 {
		rows = append(rows, Row{Input: netsim.KnownNorwegian, Reference: "N" + strconv.Itoa(i)})
	}
	rows = append(rows, Row{Input: "0208:0677424046"}, Row{Input: "0208:0677424046 "}, Row{Input: "iso6523-actorid-upis::0208:0677424046"})
	n.Net.ResetHits()
	got := run(t, Config{Registry: n.Reg, Concurrency: 4}, rows...)
	for i := range 20 {
		if r := got[i]; r.Status != Failed || r.Reference != "N"+strconv.Itoa(i) || r.Index != i {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	for i := 20; i < 23; i++ {
		if r := got[i]; r.Status != Blocked || r.Input != rows[i].Input {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	hits := n.Net.Hits()
	if sg := hits.SMP[failing.SMPHost].ServiceGroup; sg != 1 {
		t.Errorf("20 rows of a failing participant asked its SMP %d times, want 1", sg)
	}
	// Once for its lookup, once for its services (registry.JudgeParticipant).
	if b := n.DS.MustLookup(netsim.KnownBelgian).SMPHost; b != failing.SMPHost && hits.SMP[b].ServiceGroup != 2 {
		t.Errorf("3 notations of one participant asked its SMP %d times, want 2", hits.SMP[b].ServiceGroup)
	}
}

// TestBlocked: a participant registered for the documents whose access point refuses
// deliveries right now (an expired certificate) is marked blocked, with the codes; one
// without blocking warnings is not.
func TestBlocked(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 50, Now: datasetNow})
	got := run(t, Config{Registry: n.Reg}, Row{Input: netsim.KnownCertExpired}, Row{Input: netsim.KnownCertValid})
	if r := got[0]; r.Status != Blocked || !slices.Contains(r.Blocked, "certificate_expired") {
		t.Errorf("expired certificate: %+v", r)
	}
	if r := got[1]; r.Status != Receives || r.Blocked != nil {
		t.Errorf("valid certificate: %+v", r)
	}
}

// TestSMPDoesNotKnow: a participant the SML names but whose SMP does not know it (a
// stale registration) cannot receive: not registered.
func TestSMPDoesNotKnow(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 300, Now: datasetNow})
	var id string
	for _, p := range n.DS.Participants {
		if p.InSML && p.SMPNotFound {
			id = p.ID.String()
			break
		}
	}
	if id == "" {
		t.Fatal("the dataset has no participant whose SMP does not know it")
	}
	if r := run(t, Config{Registry: n.Reg}, Row{Input: id})[0]; r.Status != NotRegistered || len(r.Tried) != 1 {
		t.Errorf("%+v, want not_registered", r)
	}
}

// TestCandidates: a country hint narrows the readings of a national number to that
// country's schemes, but never an input that is a participant identifier, nor the
// readings in schemes of no country (GLN).
func TestCandidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		input, country string
		want           []string
	}{
		{"0088:5790000435975", "DK", []string{"0088:5790000435975"}},
		{"iso6523-actorid-upis::0208:0677424046", "NL", []string{"0208:0677424046"}},
		{"5790000435975", "DK", []string{"0088:5790000435975"}},
		{"BE0677424046", "NL", nil},
		{"0677424046", "BE", []string{"0208:0677424046", "9925:be0677424046"}},
		// National number names that /ask reads (docs/INTERFACE.md §4.3), with or
		// without the country hint.
		{"NIP 526-000-12-46", "", []string{"9945:pl5260001246"}},
		{"NIP 526-000-12-46", "PL", []string{"9945:pl5260001246"}},
		{"NIF B15147895", "", []string{"9920:esb15147895"}},
		{"NIF B15147895", "ES", []string{"9920:esb15147895"}},
		{"codice fiscale 06363391001", "IT", []string{"0211:it06363391001"}},
		{"CVR-nummer 13585628", "DK", []string{"0184:13585628"}},
		{"NIP 526-000-12-46", "ES", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, id := range Candidates(tt.input, tt.country) {
			got = append(got, id.String())
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Candidates(%q, %q) = %v, want %s among them", tt.input, tt.country, got, w)
			}
		}
		if tt.want == nil && len(got) > 0 {
			t.Errorf("Candidates(%q, %q) = %v, want none", tt.input, tt.country, got)
		}
	}
}

// TestBadCountry: a row whose country is no ISO 3166 code is invalid, saying so.
func TestBadCountry(t *testing.T) {
	t.Parallel()
	r := run(t, Config{Registry: registry.One(nil)}, Row{Input: "0677424046", Country: "Belgium"})[0]
	if r.Status != Invalid || r.Error == nil || !strings.Contains(r.Error.Message, `the country "Belgium" is no two-letter ISO 3166 code`) {
		t.Errorf("%+v", r)
	}
}

// TestSignatureBlocks: an SMP answer whose signature is invalid, missing or by a signer
// outside the network's SMP CA is blocked, never receives, and the row shows no
// access point URL read from it (docs/INTERFACE.md §4.7); the same participant, signed
// as usual, receives.
func TestSignatureBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault netsim.SignatureFault
		code  string
	}{
		{netsim.SignatureTampered, registry.WarnSMPSignatureInvalid},
		{netsim.SignatureWrongKey, registry.WarnSMPSignatureInvalid},
		{netsim.SignatureUnsigned, registry.WarnSMPSignatureMissing},
		{netsim.SignatureExpiredSigner, registry.WarnSMPSignatureInvalid},
		{netsim.SignatureOtherCA, registry.WarnSMPCertificateNotPeppol},
	}
	for _, tt := range tests {
		t.Run(tt.code+"/"+strconv.Itoa(int(tt.fault)), func(t *testing.T) {
			t.Parallel()
			n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 50, Now: datasetNow})
			p := n.DS.MustLookup(netsim.KnownCertValid)
			n.Net.SetFault(netsim.ParticipantTarget(p.ID), netsim.Fault{Signature: tt.fault})
			r := run(t, Config{Registry: n.Reg}, Row{Input: netsim.KnownCertValid})[0]
			if r.Status != Blocked || !slices.Contains(r.Blocked, tt.code) || r.AccessPoint != "" || r.ParticipantID != netsim.KnownCertValid {
				t.Errorf("%+v, want blocked by %s without an access point", r, tt.code)
			}
			for _, d := range r.Documents {
				if !d.Listed || d.Receives {
					t.Errorf("documents %+v: the SMP lists them all, and none can be sent to", r.Documents)
				}
			}
		})
	}
}

// TestCheckDigitHint: a number whose check digit fails is not registered, and the row
// says why it may be mistyped (an identifier warning per reading), as a lookup's
// not_found does; a number that is merely not registered gets no such warning.
func TestCheckDigitHint(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 50, Now: datasetNow})
	got := run(t, Config{Registry: n.Reg}, Row{Input: "BE 0677.424.047"}, Row{Input: "0208:0000000097"})
	r := got[0]
	if r.Status != NotRegistered || len(r.Warnings) != len(r.Tried) || len(r.Tried) == 0 {
		t.Fatalf("%+v, want not_registered with an identifier warning per reading", r)
	}
	for _, w := range r.Warnings {
		if w.Code != registry.WarnIdentifier || !strings.Contains(w.Message, "check-digit") {
			t.Errorf("warning %+v, want the failing check digit", w)
		}
	}
	if r := got[1]; r.Status != NotRegistered || r.Warnings != nil {
		t.Errorf("%+v, want not_registered without warnings", r)
	}
}
