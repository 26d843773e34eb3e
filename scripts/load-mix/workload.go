package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/stack"
)

// kind is one class of request in the mix.
type kind int

const (
	lookupHot kind = iota
	lookupCold
	searchName
	searchVAT
	searchCold
	askJSON
	askSSE
	askCold
	numKinds
)

// kindSpec is a kind's name in the report, its share of all requests in per mille, and
// what it sends.
type kindSpec struct {
	name     string
	perMille int
	what     string
}

// specs returns the mix. The cold kinds are small shares because each of their
// requests consumes a participant or query never asked before (the demo has 3000
// participants) and costs Directory requests, which the registry limits to 100/s on
// the demo network: the mix keeps them at about half of that at the default rate.
func specs() [numKinds]kindSpec {
	return [numKinds]kindSpec{
		lookupHot:  {"lookup_cached", 590, "GET /api/v1/participant/{id}, ids warmed before the run"},
		lookupCold: {"lookup_cold", 4, "GET /api/v1/participant/{id}, each id asked once (SML, SMP and Directory)"},
		searchName: {"search_name", 150, "GET /api/v1/search?q={company name}, warmed"},
		searchVAT:  {"search_vat", 150, "GET /api/v1/search?q={VAT or registration number}, warmed"},
		searchCold: {"search_cold", 3, "GET /api/v1/search, a name or VAT number asked once"},
		askJSON:    {"ask_json", 81, "POST /ask, JSON answer, questions about warmed companies in six languages"},
		askSSE:     {"ask_sse", 20, "POST /ask with Accept: text/event-stream, same questions"},
		askCold:    {"ask_cold", 2, "POST /ask, JSON, each question about a company not asked before"},
	}
}

// isCold reports whether k's requests each consume one item of a pool.
func (k kind) isCold() bool { return k == lookupCold || k == searchCold || k == askCold }

func (k kind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return specs()[k].name
}

// mixSequence returns 1000 kinds in the proportions of specs, shuffled with seed; the
// driver cycles through it, so every 1000 requests hold exactly those shares.
func mixSequence(seed uint64) []kind {
	var seq []kind
	for k, s := range specs() {
		for range s.perMille {
			seq = append(seq, kind(k))
		}
	}
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
	return seq
}

// request is one HTTP request of the load: a GET of path, or a POST /ask of body.
type request struct {
	kind kind
	path string
	body string // the /ask question; "" for GETs
	id   string // the participant of a lookup, for explaining its failures
}

// workload holds the requests of every kind, built from the dataset: hot items are
// asked again and again (after a warm-up), cold ones once each.
type workload struct {
	hot  [numKinds][]request
	cold [numKinds][]request
	// names maps a hot participant id to the name its Directory card must have, so a
	// warm-up can check that the server serves this dataset.
	names map[string]string
}

// company is one company of the dataset: its participant ids and what its card says.
type company struct {
	number int // netsim's Participant.Company
	ids    []string
	name   string // first name of the first entity; "" without a card
	vat    string // VAT number, else the first other identifier; "" when none
	sml    bool   // every id is in the SML and served by its SMP (not the demo's failing one)
}

// newWorkload builds the workload from ds: hotCompanies companies (the dataset's
// well-known ones first) are hot, the others are shuffled with seed into the cold
// pools, disjoint where one kind's request would warm another's cache (an /ask looks
// participants up and searches).
func newWorkload(ds *netsim.Dataset, seed uint64, hotCompanies, coldAskCompanies int) *workload {
	comps := companies(ds)
	r := rand.New(rand.NewPCG(seed, 2))
	known := wellKnownCompanies(ds)
	var hot, rest []company
	for _, c := range comps {
		switch {
		case known[c.number] && c.name != "":
			hot = append(hot, c)
		case !known[c.number]:
			rest = append(rest, c)
		}
	}
	r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	// More hot companies: registered, with a card and a VAT number, so every hot kind
	// has answers that stay cached for the whole run.
	var cold []company
	for _, c := range rest {
		if len(hot) < hotCompanies && c.sml && c.name != "" && c.vat != "" {
			hot = append(hot, c)
		} else {
			cold = append(cold, c)
		}
	}
	// used holds the cache entries the requests so far fill (see cacheKeys): a cold
	// request must fill none that another request fills, or it would not be cold.
	used := map[string]bool{}
	fresh := func(keys []string) bool {
		for _, k := range keys {
			if used[k] {
				return false
			}
		}
		for _, k := range keys {
			used[k] = true
		}
		return true
	}
	w := &workload{names: map[string]string{}}
	for _, c := range hot {
		for _, id := range c.ids {
			w.hot[lookupHot] = append(w.hot[lookupHot], lookupRequest(lookupHot, id))
			w.names[id] = c.name
			used[lookupKey(id)] = true
		}
		if fresh([]string{searchKey(c.name)}) {
			w.hot[searchName] = append(w.hot[searchName], searchRequest(searchName, c.name))
		}
		if c.vat != "" && fresh([]string{searchKey(c.vat)}) {
			w.hot[searchVAT] = append(w.hot[searchVAT], searchRequest(searchVAT, c.vat))
		}
	}
	templates := askTemplates()
	n := 0
	for _, c := range hot {
		// Three questions per company, in turn by name, by number and by id.
		for _, subject := range []string{c.name, c.vat, c.ids[0]} {
			q, ok := question(templates[n%len(templates)], subject)
			if !ok || used["ask "+q] {
				continue
			}
			used["ask "+q] = true
			for _, k := range cacheKeys(q) {
				used[k] = true
			}
			w.hot[askJSON] = append(w.hot[askJSON], request{kind: askJSON, path: "/ask", body: askBody(q)})
			w.hot[askSSE] = append(w.hot[askSSE], request{kind: askSSE, path: "/ask", body: askBody(q)})
			n++
		}
	}

	// Cold /ask questions get companies of their own; lookups and searches share the
	// rest, as they fill different caches.
	for i, c := range cold {
		if len(w.cold[askCold]) < coldAskCompanies && c.name != "" {
			subject := []string{c.name, c.vat, c.ids[0]}[i%3]
			if q, ok := question(templates[i%len(templates)], subject); ok && fresh(cacheKeys(q)) {
				w.cold[askCold] = append(w.cold[askCold], request{kind: askCold, path: "/ask", body: askBody(q)})
				continue
			}
		}
		for _, id := range c.ids {
			if fresh([]string{lookupKey(id)}) {
				w.cold[lookupCold] = append(w.cold[lookupCold], lookupRequest(lookupCold, id))
			}
		}
		// One search per company, alternately by name and by number.
		q := c.name
		if i%2 == 1 && c.vat != "" || q == "" {
			q = c.vat
		}
		if q != "" && fresh([]string{searchKey(q)}) {
			w.cold[searchCold] = append(w.cold[searchCold], searchRequest(searchCold, q))
		}
	}
	r.Shuffle(len(w.cold[lookupCold]), func(i, j int) {
		w.cold[lookupCold][i], w.cold[lookupCold][j] = w.cold[lookupCold][j], w.cold[lookupCold][i]
	})
	return w
}

func lookupRequest(k kind, id string) request {
	return request{kind: k, path: "/api/v1/participant/" + url.PathEscape(id), id: id}
}

func searchRequest(k kind, q string) request {
	return request{kind: k, path: "/api/v1/search?q=" + url.QueryEscape(q)}
}

// companies groups ds's participants by company, in dataset order.
func companies(ds *netsim.Dataset) []company {
	var out []company
	index := map[int]int{}
	for i := range ds.Participants {
		p := &ds.Participants[i]
		j, ok := index[p.Company]
		if !ok {
			j = len(out)
			index[p.Company] = j
			out = append(out, company{number: p.Company, sml: true})
			if p.Card != nil && len(p.Card.Entities) > 0 {
				e := p.Card.Entities[0]
				if len(e.Names) > 0 {
					out[j].name = e.Names[0].Name
				}
				out[j].vat = number(e.Identifiers)
			}
		}
		c := &out[j]
		c.ids = append(c.ids, p.ID.String())
		if !p.InSML || p.SMPNotFound || slices.Contains(stack.DemoFailingSMP(), p.ID.String()) {
			c.sml = false
		}
	}
	return out
}

// number returns the VAT number among ids, else the first identifier's value.
func number(ids []netsim.Identifier) string {
	for _, id := range ids {
		if strings.EqualFold(id.Scheme, "VAT") {
			return id.Value
		}
	}
	if len(ids) > 0 {
		return ids[0].Value
	}
	return ""
}

// wellKnownCompanies returns the company numbers of netsim's Known* participants.
func wellKnownCompanies(ds *netsim.Dataset) map[int]bool {
	known := map[int]bool{}
	for _, id := range []string{netsim.KnownBelgian, netsim.KnownNorwegian, netsim.KnownGLN, netsim.KnownDutch,
		netsim.KnownSwedish, netsim.KnownGerman, netsim.KnownFrenchSIREN, netsim.KnownDirectoryOnly,
		netsim.KnownSMLOnly, netsim.KnownSMPNotFound, netsim.KnownRedirect, netsim.KnownAustralian} {
		if p := ds.MustLookup(id); p != nil {
			known[p.Company] = true
		}
	}
	return known
}

// askTemplate is a question with one %s for its subject.
type askTemplate struct{ lang, format string }

// askTemplates returns the /ask questions, in the six languages the rule planner reads.
func askTemplates() []askTemplate {
	return []askTemplate{
		{"en", "Can %s receive invoices?"},
		{"fr", "Est-ce que %s peut recevoir des factures ?"},
		{"nl", "Welk access point bedient %s?"},
		{"de", "Kann %s Rechnungen empfangen?"},
		{"no", "Kan %s motta faktura?"},
		{"sv", "Kan %s ta emot fakturor?"},
		{"en", "Who is %s?"},
		{"nl", "Kan %s facturen ontvangen?"},
	}
}

// question fills t with subject, or returns false when subject is empty or the rule
// planner would not understand the question (a load of "I did not understand" answers
// would measure nothing).
func question(t askTemplate, subject string) (string, bool) {
	if subject == "" {
		return "", false
	}
	q := fmt.Sprintf(t.format, subject)
	if (nlq.RulePlanner{}).Plan(q).Intent == nlq.IntentUnknown {
		return "", false
	}
	return q, true
}

// lookupKey and searchKey name the registry cache entry a lookup or a search (without
// a country) fills.
func lookupKey(id string) string { return "lookup " + strings.ToLower(id) }
func searchKey(q string) string  { return searchKeyCountry(q, "") }

func searchKeyCountry(q, country string) string {
	return "search " + strings.ToUpper(country) + "\x00" + strings.TrimSpace(q)
}

// cacheKeys returns the cache entries question q fills with its first calls, as the
// rule planner plans them (the lookups of the search results that follow cannot be
// known in advance; the report's X-Cache column shows what they did).
func cacheKeys(q string) []string {
	var keys []string
	for _, c := range (nlq.RulePlanner{}).Plan(q).Calls {
		switch c.Tool {
		case "search_directory":
			country, _ := c.Arguments["country"].(string)
			keys = append(keys, searchKeyCountry(fmt.Sprint(c.Arguments["q"]), country))
		case "lookup_participant":
			keys = append(keys, lookupKey(fmt.Sprint(c.Arguments["participantId"])))
		}
	}
	return keys
}

// askBody returns {"query": q} as JSON.
func askBody(q string) string {
	b, _ := json.Marshal(struct {
		Query string `json:"query"`
	}{q}) // a struct of one string always encodes
	return string(b)
}
