package main

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/stack"
)

// demoLedgerPath is the demo network's sample ledger, made by demoLedger.
const demoLedgerPath = "../../examples/demo-ledger.csv"

// ledgerRow is one customer of the sample ledger and what checking it must give.
type ledgerRow struct {
	name, number, country string
	// want is the status class: "registered" (receives, blocked or
	// registered_without_that_document), or a status.
	want string
}

// ledgerCandidates are the participant ids a check tries for input in country, in
// order (bulk.Candidates).
func ledgerCandidates(input, country string) []string {
	var out []string
	for _, id := range bulk.Candidates(input, country) {
		out = append(out, id.String())
	}
	return out
}

// resolvesTo reports whether checking input in country on ds reaches one of ids first:
// the first of its candidates registered (in the SML, and known to its SMP) or in ids
// is in ids.
func resolvesTo(ds *netsim.Dataset, input, country string, ids []string) bool {
	for _, c := range ledgerCandidates(input, country) {
		if slices.Contains(ids, c) {
			return true
		}
		if p := ds.MustLookup(c); p != nil && p.InSML && !p.SMPNotFound {
			return false
		}
	}
	return false
}

// resolvesNowhere reports whether no candidate of input in country is registered: in
// ds's SML and known to its SMP.
func resolvesNowhere(ds *netsim.Dataset, input, country string) bool {
	for _, c := range ledgerCandidates(input, country) {
		if p := ds.MustLookup(c); p != nil && p.InSML && !p.SMPNotFound {
			return false
		}
	}
	return true
}

// notations are the ways a ledger may hold participant p's number, with the country
// column each needs ("" for none): its participant id, with and without the scheme, the
// numbers on its Directory card as printed, with spaces or dots, without the country
// prefix, and its national number.
func notations(p *netsim.Participant) [][2]string {
	id := p.ID.String()
	out := [][2]string{{id, ""}, {strings.ToUpper(id), p.Country}, {"iso6523-actorid-upis::" + id, ""}, {p.ID.Value, p.Country}}
	if p.Card == nil {
		return out
	}
	for _, ident := range p.Card.Entities[0].Identifiers {
		v := ident.Value
		out = append(out, [2]string{v, p.Country}, [2]string{v, ""}, [2]string{strings.ToLower(v), ""})
		if rest, ok := strings.CutPrefix(strings.ToUpper(v), p.Country); ok && strings.EqualFold(ident.Scheme, "VAT") {
			out = append(out, [2]string{p.Country + " " + rest, ""}, [2]string{rest, p.Country})
			if p.Country == "BE" && len(rest) == 10 {
				out = append(out, [2]string{"BE " + rest[:4] + "." + rest[4:7] + "." + rest[7:], ""}, [2]string{rest[:4] + " " + rest[4:7] + " " + rest[7:], "BE"})
			}
		}
		if len(v) > 6 && strings.Trim(v, "0123456789") == "" {
			out = append(out, [2]string{v[:3] + " " + v[3:6] + " " + v[6:], p.Country})
		}
	}
	return out
}

// pickNotation draws one of p's notations that a check resolves to ids (p's company),
// and its country column; ok is false when none does.
func pickNotation(r *rand.Rand, ds *netsim.Dataset, p *netsim.Participant, ids []string) (number, country string, ok bool) {
	var fit [][2]string
	for _, n := range notations(p) {
		if resolvesTo(ds, n[0], n[1], ids) {
			fit = append(fit, n)
		}
	}
	if len(fit) == 0 {
		return "", "", false
	}
	n := fit[r.IntN(len(fit))]
	country = n[1]
	if country == "" && r.IntN(3) > 0 && resolvesTo(ds, n[0], p.Country, ids) {
		country = p.Country // most ledgers have every customer's country
	}
	return n[0], country, true
}

// unknownNotation draws one of p's notations that a check reads but finds in ds's SML
// under none of its readings.
func unknownNotation(r *rand.Rand, ds *netsim.Dataset, p *netsim.Participant) ([2]string, bool) {
	var fit [][2]string
	for _, n := range notations(p) {
		if len(ledgerCandidates(n[0], n[1])) > 0 && resolvesNowhere(ds, n[0], n[1]) {
			fit = append(fit, n)
		}
	}
	if len(fit) == 0 {
		return [2]string{}, false
	}
	return fit[r.IntN(len(fit))], true
}

// cardName is the first name on p's card, or "".
func cardName(p *netsim.Participant) string {
	if p.Card == nil || len(p.Card.Entities) == 0 || len(p.Card.Entities[0].Names) == 0 {
		return ""
	}
	return p.Card.Entities[0].Names[0].Name
}

// demoLedgerRows makes the sample ledger from the demo dataset, the same every time:
// customers registered on the demo network in mixed notations, some twice, some
// unknown to it (numbers of another generated network, companies with only a Directory
// card), some unreadable, and the demo's failing-SMP participants; in the order of
// their customer numbers.
func demoLedgerRows() []ledgerRow {
	ds := stack.DemoDataset()
	r := rand.New(rand.NewPCG(18, 5)) // issue 18
	failing := stack.DemoFailingSMP()
	companies := map[int][]string{}
	for _, p := range ds.Participants {
		companies[p.Company] = append(companies[p.Company], p.ID.String())
	}
	var rows []ledgerRow
	var registered []int // indexes into ds.Participants, for duplicates
	seen := map[int]bool{}
	for len(registered) < 230 {
		i := r.IntN(len(ds.Participants))
		p := &ds.Participants[i]
		if seen[p.Company] || !p.InSML || p.SMPNotFound || p.Card == nil || slices.Contains(failing, p.ID.String()) {
			continue
		}
		seen[p.Company] = true
		number, country, ok := pickNotation(r, ds, p, companies[p.Company])
		if !ok {
			continue
		}
		registered = append(registered, i)
		rows = append(rows, ledgerRow{name: cardName(p), number: number, country: country, want: "registered"})
	}
	// The same customer twice, under another notation.
	for range 15 {
		p := &ds.Participants[registered[r.IntN(len(registered))]]
		number, country, _ := pickNotation(r, ds, p, companies[p.Company])
		rows = append(rows, ledgerRow{name: cardName(p), number: number, country: country, want: "registered"})
	}
	for _, id := range failing {
		p := ds.MustLookup(id)
		number, country, ok := pickNotation(r, ds, p, []string{id})
		if !ok {
			panic("no notation reaches " + id)
		}
		rows = append(rows, ledgerRow{name: cardName(p), number: number, country: country, want: string(bulk.Failed)})
	}
	// Unknown: companies of another generated network, and the demo's own with only a
	// Directory card.
	other := netsim.Generate(netsim.DatasetConfig{Seed: 1818, Participants: 400, Now: stack.DemoNow()})
	for unknown := 0; unknown < 20; {
		p := &other.Participants[20+r.IntN(len(other.Participants)-40)]
		if p.Card == nil || seen[-1-p.Company] {
			continue
		}
		seen[-1-p.Company] = true
		if n, ok := unknownNotation(r, ds, p); ok {
			rows = append(rows, ledgerRow{name: cardName(p), number: n[0], country: n[1], want: string(bulk.NotRegistered)})
			unknown++
		}
	}
	for dirOnly := 0; dirOnly < 6; {
		p := &ds.Participants[r.IntN(len(ds.Participants))]
		if p.InSML || p.Card == nil || seen[p.Company] || len(companies[p.Company]) > 1 {
			continue
		}
		seen[p.Company] = true
		if n, ok := unknownNotation(r, ds, p); ok {
			rows = append(rows, ledgerRow{name: cardName(p), number: n[0], country: n[1], want: string(bulk.NotRegistered)})
			dirOnly++
		}
	}
	// What ledgers hold where a number should be.
	names := []string{"Atelier Dupont", "Bakkerij Smits", "Cafe Central", "Dorfladen Huber", "Eriksson Bygg", "Fiorista Bianchi",
		"Garage Janssens", "Hotel Zonneveld", "Imprimerie Roux", "Jensen Tømrer", "Kiosk am Markt", "Librería Ortega"}
	for i, bad := range [][2]string{{"n/a", ""}, {"", "BE"}, {"TBD", ""}, {"B 123", ""}, {"see contract", "NL"}, {"0208:", ""},
		{"12-34", "DE"}, {"VAT pending", "FR"}, {"-", ""}, {"FR", "FR"}, {"ask accounting", ""}, {"00000", "BE"}} {
		if len(ledgerCandidates(bad[0], bad[1])) > 0 {
			panic(bad[0] + " is readable")
		}
		rows = append(rows, ledgerRow{name: names[i], number: bad[0], country: bad[1], want: string(bulk.Invalid)})
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

// demoLedger is the sample ledger file: the rows of demoLedgerRows as a ledger
// export, with a customer number each.
func demoLedger(rows []ledgerRow) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"Customer number", "Name", "VAT number", "Country"})
	for i, row := range rows {
		w.Write([]string{"C" + strconv.Itoa(10001+i), row.name, row.number, row.country})
	}
	w.Flush()
	return b.Bytes()
}

// TestDemoLedger: the committed sample ledger is what demoLedger makes (-update
// rewrites it), and checking it on the demo network gives each row the status it was
// made for: every status, the failing-SMP rows failed and nothing else.
func TestDemoLedger(t *testing.T) {
	t.Parallel()
	rows := demoLedgerRows()
	want := demoLedger(rows)
	if *updateREADME {
		if err := os.WriteFile(demoLedgerPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(demoLedgerPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the demo dataset makes; run go test ./cmd/peppolgate -run TestDemoLedger -args -update and review the diff", demoLedgerPath)
	}
	out := filepath.Join(t.TempDir(), "checked.csv")
	code, _, stderr := runCheck(t, nil, "-network", "demo", "-o", out, demoLedgerPath)
	if code != 1 || !strings.Contains(stderr, "5 rows failed") {
		t.Errorf("exit %d, want 1 for the failing-SMP rows; stderr %s", code, stderr)
	}
	recs := readCSV(t, out)
	if len(recs) != len(rows)+1 {
		t.Fatalf("%d rows checked, want %d", len(recs)-1, len(rows))
	}
	status := slices.Index(recs[0], "status")
	counts := map[string]int{}
	for i, row := range rows {
		got := recs[i+1][status]
		counts[got]++
		class := got
		if got == string(bulk.Receives) || got == string(bulk.Blocked) || got == string(bulk.RegisteredWithoutDocument) {
			class = "registered"
		}
		if class != row.want {
			t.Errorf("row %d (%s %q %s): %s, want %s: %v", i+1, recs[i+1][0], row.number, row.country, got, row.want, recs[i+1])
		}
	}
	for _, st := range bulk.Statuses() {
		if counts[string(st)] == 0 {
			t.Errorf("no row is %s: %v", st, counts)
		}
	}
}
