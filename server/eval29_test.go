package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// Issue 29's evaluation (nlq/testdata/eval-issue29.md): its questions, answered end to
// end through POST /ask by the rule planner over the demo network with its Directory
// mirror, and judged on the answers' facts and language.
//
// eval29Baseline and eval29LangBaseline are the ratchet: the test fails when a change
// answers fewer right or fewer in the asker's language; raise them as the work lands.
// Before any code was changed for issue 29 (commit 4fa4fb6), 95 of the 222 questions
// were answered right and 116 in the asker's language; after the first round of the
// work (a142537), 195 and 215; after the second (76dccbd), 213 and 220. The ratchet sits
// a few answers below the latest, for answers a busy machine can still cost. Issue 29's
// target is ≥ 90 % right (200 of 222) with ≥ 95 % in the asker's language (211 of 222).
//
// eval29bBaseline and eval29bLangBaseline are the ratchet of the second set
// (nlq/testdata/eval-issue29b.md), written after the first had been seen by the
// engineers working on /ask: its figures measured before any code was changed for it
// (c759107): 141 of its 184 questions answered right, 180 in the asker's language;
// after the second round (76dccbd), 166 and 180.
const (
	eval29Baseline      = 209
	eval29LangBaseline  = 217
	eval29bBaseline     = 162
	eval29bLangBaseline = 178
)

// eval29Set is an evaluation set the scorer answers and judges, with its ratchet.
type eval29Set struct {
	// name heads the summary line ("<name> evaluation: …").
	name string
	// path is the set's file, one case a line.
	path string
	// right and inLang are the ratchet: the fewest answers right and in the asker's
	// language the test accepts.
	right, inLang int
	// answersEnv names the environment variable that, set to a file name, has every
	// answer written there, one JSON line per case, to read the misses in full.
	answersEnv string
}

// eval29Path is issue 29's first evaluation set, one case a line; eval29bPath is its
// second, written after the first had been seen by the engineers working on /ask
// (nlq/testdata/eval-issue29b.md).
const (
	eval29Path  = "../nlq/testdata/eval-issue29.jsonl"
	eval29bPath = "../nlq/testdata/eval-issue29b.jsonl"
)

// eval29Languages are the languages /ask must understand and answer in; a question in
// any other is answered in English.
var eval29Languages = []string{"en", "fr", "nl", "de", "no", "sv", "es", "it", "da", "fi", "pl"}

// eval29Case is one question of the set and what a right answer must hold.
type eval29Case struct {
	Lang   string       `json:"lang"`
	Kind   string       `json:"kind"`
	Query  string       `json:"query"`
	Expect eval29Expect `json:"expect"`
}

// eval29Expect is what a right answer holds; only the members set are checked.
type eval29Expect struct {
	// Participant: the ids of the one company the question is about (any one of them
	// may be answered).
	Participant []string `json:"participant,omitempty"`
	// Verdict: receives, registered, no_doc, blocked, not_registered or not_found.
	Verdict string `json:"verdict,omitempty"`
	// Document: the document kind asked about (the code list's category).
	Document string `json:"document,omitempty"`
	// Number: the national number as the question writes it (checked against the
	// bulk check's candidates by TestEval29Set, not against the answer).
	Number string `json:"number,omitempty"`
	// Endpoint and Provider: the access point's URL and operator; either in the text.
	Endpoint string `json:"endpoint,omitempty"`
	Provider string `json:"provider,omitempty"`
	// CertExpiry: the access point certificate's expiry day, YYYY-MM-DD.
	CertExpiry string `json:"cert_expiry,omitempty"`
	// Issuer: the name of the CA that issued the access point certificate.
	Issuer string `json:"issuer,omitempty"`
	// SMPHost: the dataset's name of the SMP host (netsim.SMPHost.Name).
	SMPHost string `json:"smp_host,omitempty"`
	// Transport: the transport profile.
	Transport string `json:"transport,omitempty"`
	// RegDate: the Directory card's registration date, YYYY-MM-DD.
	RegDate string `json:"reg_date,omitempty"`
	// Name: the company's name, for "who is <id>".
	Name string `json:"name,omitempty"`
	// ListCountry and ListDocument: "list the participants in <country> (that receive
	// <kind>)".
	ListCountry  string `json:"list_country,omitempty"`
	ListDocument string `json:"list_document,omitempty"`
	// CountFrom "stats": a count of GET /api/v1/stats, of the whole network, of
	// Country, or of the participants accepting Document.
	CountFrom string `json:"count_from,omitempty"`
	Country   string `json:"country,omitempty"`
	// Participants and Verdicts: several companies in one question, each answered.
	Participants [][]string `json:"participants,omitempty"`
	Verdicts     []string   `json:"verdicts,omitempty"`
	// Cannot: a question peppolgate cannot know the answer to.
	Cannot bool `json:"cannot,omitempty"`
}

// eval29World is the ground truth the judge compares answers with: the demo dataset,
// its statistics as GET /api/v1/stats gives them, and where its SMP hosts listen.
type eval29World struct {
	ds    *netsim.Dataset
	stats registry.Stats
	// smpHosts maps a dataset SMP host name to the host name of its URL.
	smpHosts map[string]string
}

// readEval29 reads the set at path.
func readEval29(t testing.TB, path string) []eval29Case {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []eval29Case
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var c eval29Case
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// wantLanguage is the language the answer to c must be in.
func (c eval29Case) wantLanguage() string {
	if slices.Contains(eval29Languages, c.Lang) {
		return c.Lang
	}
	return "en"
}

// judge reports whether a is a right answer to c (its facts; the language is judged
// apart) and, when not, why. Each member of c.Expect that is set is checked by its own
// check below; the answer is right when every one passes.
func (w *eval29World) judge(c eval29Case, a *nlq.Answer) (bool, string) {
	e := c.Expect
	type check struct {
		on bool
		fn func() string
	}
	for _, ch := range []check{
		{e.Cannot, func() string { return checkCannot(a) }},
		{e.Verdict == "not_found", func() string { return checkNotFound(a) }},
		{len(e.Participant) > 0, func() string { return checkParticipant(a, e.Participant) }},
		{len(e.Participant) > 0 && e.Verdict != "" && e.Verdict != "not_found", func() string {
			return checkVerdict(a, e.Participant, e.Verdict, e.Document)
		}},
		{e.Endpoint != "" || e.Provider != "", func() string { return checkAccessPoint(a, e.Endpoint, e.Provider) }},
		{e.CertExpiry != "", func() string { return checkDate(a, "the certificate's expiry", e.CertExpiry) }},
		{e.Issuer != "", func() string { return checkText(a, "the issuer", e.Issuer) }},
		{e.SMPHost != "", func() string { return checkText(a, "the SMP host", w.smpHosts[e.SMPHost]) }},
		{e.Transport != "", func() string { return checkTransport(a, e.Transport) }},
		{e.RegDate != "", func() string { return checkDate(a, "the registration date", e.RegDate) }},
		{e.Name != "", func() string { return checkText(a, "the name", e.Name) }},
		{e.ListCountry != "", func() string { return w.checkList(a, e.ListCountry, e.ListDocument) }},
		{e.CountFrom != "", func() string { return w.checkCount(a, e.Country, e.Document) }},
		{len(e.Participants) > 0, func() string { return checkMulti(a, e.Participants, e.Verdicts, e.Document) }},
	} {
		if !ch.on {
			continue
		}
		if why := ch.fn(); why != "" {
			return false, why
		}
	}
	return true, ""
}

// checkCannot: a question peppolgate cannot know is answered honestly when the answer
// asks the network nothing (no tool call: nothing was looked up as if it were a name)
// and names no participant.
func checkCannot(a *nlq.Answer) string {
	if len(a.Calls) > 0 || len(a.Results) > 0 {
		return fmt.Sprintf("a question peppolgate cannot answer was answered with %d calls (%s) and %d results", len(a.Calls), callNames(a), len(a.Results))
	}
	return ""
}

// checkNotFound: a company that does not exist is answered as not found when the
// answer looked (at least one call) and names no participant, or only approximate
// matches marked as such.
func checkNotFound(a *nlq.Answer) string {
	switch {
	case len(a.Calls) == 0:
		return "nothing was looked up (intent " + string(a.Intent) + ")"
	case len(a.Results) > 0 && !a.Approximate:
		return fmt.Sprintf("a company that does not exist was answered with %d results, not marked approximate (first %s)", len(a.Results), a.Results[0].Identifier)
	}
	return ""
}

// checkParticipant: the answer is about the company: it comes first, as the first
// result or the first participant id the text names. Being one of many search hits
// listed is not an answer about it.
func checkParticipant(a *nlq.Answer, ids []string) string {
	if len(a.Results) > 0 && isOneOf(a.Results[0].Identifier, ids) {
		return ""
	}
	if first := participantIDs.FindString(a.Answer); first != "" && isOneOf(first, ids) {
		return ""
	}
	first := "nothing"
	if len(a.Results) > 0 {
		first = a.Results[0].Identifier
	}
	return fmt.Sprintf("the answer is about %s first, not %s", first, ids[0])
}

// checkAmong: in a question about several companies, this one is answered: it is among
// the results or in the text.
func checkAmong(a *nlq.Answer, ids []string) string {
	if len(itemsOf(a, ids)) > 0 || containsFold(a.Answer, ids...) {
		return ""
	}
	var got []string
	for _, it := range a.Results {
		got = append(got, it.Identifier)
	}
	return fmt.Sprintf("%s is neither among the results %v nor in the text", ids[0], got)
}

// participantIDs finds participant ids (<scheme>:<value>) in a text.
var participantIDs = regexp.MustCompile(`\b[0-9]{4}:[0-9A-Za-z.-]+`)

func isOneOf(id string, ids []string) bool {
	return slices.ContainsFunc(ids, func(s string) bool { return strings.EqualFold(s, id) })
}

// checkVerdict: the item of the company says what the network says:
//   - receives: it can receive (canReceive true) the document kind asked about (a
//     document of that category, or that kind among its kinds);
//   - registered: it is registered (registered true);
//   - no_doc: registered, not blocked, canReceive false and no document of that kind;
//   - blocked: canReceive false with the reasons (blocked) given;
//   - not_registered: an item of it says registered false, and none says true.
func checkVerdict(a *nlq.Answer, ids []string, verdict, doc string) string {
	items := itemsOf(a, ids)
	if len(items) == 0 {
		return fmt.Sprintf("no result for %s to read a verdict from", ids[0])
	}
	for _, it := range items {
		p := it.Peppol
		if p == nil {
			continue
		}
		can := p.CanReceive != nil && *p.CanReceive
		switch verdict {
		case "receives":
			if can && hasKind(p, doc) {
				return ""
			}
		case "registered":
			if p.Registered {
				return ""
			}
		case "no_doc":
			if p.Registered && p.CanReceive != nil && !can && len(p.Blocked) == 0 && !hasKind(p, doc) {
				return ""
			}
		case "blocked":
			if p.CanReceive != nil && !can && len(p.Blocked) > 0 {
				return ""
			}
		case "not_registered":
			if !p.Registered && !slices.ContainsFunc(items, func(o nlq.Item) bool { return o.Peppol != nil && o.Peppol.Registered }) {
				return ""
			}
		default:
			return "unknown verdict " + verdict
		}
	}
	return fmt.Sprintf("%s: want %s (%s), got %s", ids[0], verdict, doc, peppolSummary(items))
}

// checkAccessPoint: the text names the access point: its endpoint URL or its
// operator's name.
func checkAccessPoint(a *nlq.Answer, endpoint, provider string) string {
	if (endpoint != "" && containsFold(a.Answer, endpoint)) || (provider != "" && containsFold(a.Answer, provider)) {
		return ""
	}
	return fmt.Sprintf("the text names neither the endpoint %s nor the operator %q", endpoint, provider)
}

// checkDate: the text gives the day, in any of the usual forms (2027-10-20,
// 20.10.2027, 20/10/2027, 20 octobre 2027, October 20, 2027, 20. lokakuuta 2027, …).
func checkDate(a *nlq.Answer, what, day string) string {
	if mentionsDate(a.Answer, day) {
		return ""
	}
	return fmt.Sprintf("the text does not give %s, %s", what, day)
}

// checkText: the text holds want (case and Unicode case folded).
func checkText(a *nlq.Answer, what, want string) string {
	if want == "" {
		return "the set names " + what + " the world does not have"
	}
	if containsFold(a.Answer, want) {
		return ""
	}
	return fmt.Sprintf("the text does not name %s, %q", what, want)
}

// checkTransport: the text names the transport profile, or its protocol (AS4, AS2) as
// a word.
func checkTransport(a *nlq.Answer, profile string) string {
	if containsFold(a.Answer, profile) {
		return ""
	}
	short := "AS4"
	if strings.Contains(profile, "as2") {
		short = "AS2"
	}
	if regexp.MustCompile(`(?i)\b` + short + `\b`).MatchString(a.Answer) {
		return ""
	}
	return fmt.Sprintf("the text names neither %s nor %s", profile, short)
}

// checkList: "the participants in <country> (receiving <kind>)": at least two results,
// none approximate, every one in that country and, with a kind, every one accepting it
// (its SMP or its Directory card lists a document type of that category).
func (w *eval29World) checkList(a *nlq.Answer, country, doc string) string {
	if len(a.Results) < 2 || a.Approximate {
		return fmt.Sprintf("a list of participants in %s has %d results (approximate %v)", country, len(a.Results), a.Approximate)
	}
	for _, it := range a.Results {
		if it.Address == nil || !strings.EqualFold(it.Address.AddressCountry, country) {
			return fmt.Sprintf("%s is not in %s", it.Identifier, country)
		}
		if doc != "" && !w.accepts(it.Identifier, doc) {
			return fmt.Sprintf("%s does not accept %s", it.Identifier, doc)
		}
	}
	return ""
}

// checkCount: the text gives the count of the statistics: of the whole network, of a
// country, or of the participants accepting a document kind.
func (w *eval29World) checkCount(a *nlq.Answer, country, doc string) string {
	want, ok := w.count(country, doc)
	if !ok {
		return fmt.Sprintf("the statistics have no count for country %q, kind %q", country, doc)
	}
	if slices.Contains(numbersIn(a.Answer), want) {
		return ""
	}
	return fmt.Sprintf("the text does not give the count %d (country %q, kind %q); it has %v", want, country, doc, numbersIn(a.Answer))
}

// checkMulti: several companies in one question: each is answered (checkAmong)
// with its own verdict (checkVerdict), none dropped.
func checkMulti(a *nlq.Answer, companies [][]string, verdicts []string, doc string) string {
	for i, ids := range companies {
		if why := checkAmong(a, ids); why != "" {
			return why
		}
		if i < len(verdicts) {
			if why := checkVerdict(a, ids, verdicts[i], doc); why != "" {
				return why
			}
		}
	}
	return ""
}

// count returns the statistics' count for a country, a document kind, or the network.
func (w *eval29World) count(country, doc string) (int, bool) {
	switch {
	case country != "":
		for _, c := range w.stats.Countries {
			if strings.EqualFold(c.Country, country) {
				return c.Count, true
			}
		}
		return 0, false
	case doc != "":
		for _, k := range w.stats.DocumentKinds {
			if k.Kind == doc {
				return k.Count, true
			}
		}
		return 0, false
	}
	return w.stats.Participants, true
}

// accepts reports whether the participant's SMP or Directory card lists a document
// type of category doc.
func (w *eval29World) accepts(id, doc string) bool {
	pid, err := peppol.ParseParticipantID(id)
	if err != nil {
		return false
	}
	p, ok := w.ds.Lookup(pid)
	if !ok {
		return false
	}
	var types []netsim.DocumentType
	for _, s := range p.Services {
		types = append(types, s.DocumentType)
	}
	if p.Card != nil {
		types = append(types, p.Card.DocTypes...)
	}
	for _, dt := range types {
		if d, ok := codelist.LookupDocumentType(dt.Scheme, dt.Value); ok && d.Category == doc {
			return true
		}
	}
	return false
}

// itemsOf returns the results that are one of ids.
func itemsOf(a *nlq.Answer, ids []string) []nlq.Item {
	var out []nlq.Item
	for _, it := range a.Results {
		if isOneOf(it.Identifier, ids) {
			out = append(out, it)
		}
	}
	return out
}

// hasKind reports whether p lists a document of category doc (any, when doc is "").
func hasKind(p *nlq.PeppolInfo, doc string) bool {
	if doc == "" {
		return true
	}
	return slices.ContainsFunc(p.Documents, func(d nlq.DocumentInfo) bool { return d.Category == doc }) ||
		slices.Contains(p.DocumentKinds, doc)
}

func peppolSummary(items []nlq.Item) string {
	var out []string
	for _, it := range items {
		p := it.Peppol
		if p == nil {
			out = append(out, it.Identifier+": no lookup")
			continue
		}
		can := "unset"
		if p.CanReceive != nil {
			can = strconv.FormatBool(*p.CanReceive)
		}
		var kinds []string
		for _, d := range p.Documents {
			kinds = append(kinds, d.Category)
		}
		out = append(out, fmt.Sprintf("%s: registered %v, canReceive %s, blocked %v, documents %v, kinds %v",
			it.Identifier, p.Registered, can, p.Blocked, kinds, p.DocumentKinds))
	}
	return strings.Join(out, "; ")
}

func callNames(a *nlq.Answer) string {
	var out []string
	for _, c := range a.Calls {
		out = append(out, c.Tool)
	}
	return strings.Join(out, ", ")
}

// containsFold reports whether s holds one of subs, compared in lower case.
func containsFold(s string, subs ...string) bool {
	ls := strings.ToLower(s)
	for _, sub := range subs {
		if sub != "" && strings.Contains(ls, strings.ToLower(sub)) {
			return true
		}
	}
	return false
}

// numberGroups are the integers of a text, with thousands separated by a comma, a
// dot, an apostrophe or a (no-break, thin) space.
var numberGroups = regexp.MustCompile(`\d{1,3}(?:[,.'\x{00A0}\x{202F}\x{2009} ]\d{3})+\b|\d+`)

// numbersIn returns the integers a text gives.
func numbersIn(s string) []int {
	var out []int
	for _, m := range numberGroups.FindAllString(s, -1) {
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, m)
		if n, err := strconv.Atoi(digits); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// monthNames are the names of each month (from January) in the eleven languages, and
// their usual stems and abbreviations, lower case; a name matches as a prefix of a word.
var monthNames = [12][]string{
	{"jan", "janv", "januar", "enero", "gennaio", "tammi", "stycz"},
	{"feb", "févr", "fevr", "februar", "febrero", "febbraio", "helmi", "lut"},
	{"mar", "mär", "maart", "marts", "marzo", "maalis", "marc", "marz"},
	{"apr", "avr", "abril", "huhti", "kwie"},
	{"may", "mai", "mei", "maj", "mayo", "maggio", "touko"},
	{"jun", "juin", "giugno", "kesä", "czer"},
	{"jul", "juil", "luglio", "heinä", "lip"},
	{"aug", "août", "aout", "agosto", "elo", "sierp"},
	{"sep", "set", "syys", "wrze"},
	{"oct", "okt", "octubre", "ottobre", "loka", "paźd", "pazd"},
	{"nov", "marras", "listop"},
	{"dec", "déc", "dez", "des", "dic", "joulu", "grud"},
}

// mentionsDate reports whether text gives the day (YYYY-MM-DD) in an ISO, numeric or
// written form.
func mentionsDate(text, day string) bool {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return false
	}
	lt := strings.ToLower(text)
	y, m, dd := d.Year(), int(d.Month()), d.Day()
	ys := strconv.Itoa(y)
	numeric := []string{
		d.Format("2006-01-02"), d.Format("02.01.2006"), d.Format("2.1.2006"), d.Format("02/01/2006"),
		d.Format("2/1/2006"), d.Format("02-01-2006"), d.Format("01/02/2006"), d.Format("1/2/2006"),
		d.Format("2006/01/02"), d.Format("2006.01.02"),
	}
	for _, n := range numeric {
		if idx := strings.Index(lt, n); idx >= 0 && !digitAround(lt, idx, len(n)) {
			return true
		}
	}
	var names []string
	for _, n := range monthNames[m-1] {
		names = append(names, regexp.QuoteMeta(n))
	}
	month := `(?:` + strings.Join(names, "|") + `)\pL*\.?`
	day1 := `0?` + strconv.Itoa(dd) + `(?:st|nd|rd|th|er|e|\.)?`
	for _, p := range []string{
		`\b` + day1 + `\s*(?:de\s+|di\s+)?` + month + `,?\s+(?:de\s+|del\s+)?` + ys + `\b`,
		`\b` + month + `\s+` + day1 + `,?\s+` + ys + `\b`,
	} {
		if regexp.MustCompile(p).MatchString(lt) {
			return true
		}
	}
	return false
}

// digitAround reports whether the match at s[i:i+n] continues a longer number.
func digitAround(s string, i, n int) bool {
	isDigit := func(b byte) bool { return b >= '0' && b <= '9' }
	return (i > 0 && isDigit(s[i-1])) || (i+n < len(s) && isDigit(s[i+n]))
}

// startEval29 serves the demo network (stack.StartDemo: the dataset, its clock, the
// failing SMP host) with its Directory mirror, as `peppolgate -network demo -mirror`
// does, and returns the server's URL and the ground truth.
func startEval29(t *testing.T) (string, *eval29World) {
	t.Helper()
	nets, stop, err := stack.StartDemo(t.Context(), []string{registry.NetworkDemo}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	n := nets[0].Sim
	st, err := stack.Build(stack.Config{
		Networks:   nets,
		MirrorPath: livenet.BuildMirror(t, n),
		Now:        n.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	s, err := New(Config{Networks: st.Networks, Cache: st.CachePolicy(), SML: st.SMLStatus(), Mirror: st.MirrorStatus(),
		BaseURL: "http://peppolgate.test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)

	w := &eval29World{ds: n.Dataset(), smpHosts: map[string]string{}}
	for i, h := range w.ds.SMPHosts {
		u, err := url.Parse(n.SMPBaseURL(i))
		if err != nil {
			t.Fatal(err)
		}
		// Answers name an SMP by its host name (PeppolInfo.SMPHost): on the demo every
		// SMP host is 127.0.0.1, so this check tells an answer that names the SMP from
		// one that does not; checkParticipant tells whose SMP it is.
		w.smpHosts[h.Name] = u.Hostname()
	}
	resp, err := http.Get(hs.URL + "/api/v1/stats")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/stats: %d %s", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &w.stats); err != nil {
		t.Fatal(err)
	}
	return hs.URL, w
}

// TestEvalIssue29 answers every question of issue 29's first set through POST /ask over
// the demo network and judges the answers: it logs each miss and the score overall, per
// language and per kind, and fails when fewer are right, or in the asker's language,
// than the baseline (a ratchet; see eval29Baseline).
func TestEvalIssue29(t *testing.T) {
	scoreEval29(t, eval29Set{name: "issue 29", path: eval29Path, right: eval29Baseline, inLang: eval29LangBaseline, answersEnv: "EVAL29_ANSWERS"})
}

// TestEvalIssue29b is TestEvalIssue29 for issue 29's second set, which the engineers
// working on /ask do not see (nlq/testdata/eval-issue29b.md; see eval29bBaseline).
func TestEvalIssue29b(t *testing.T) {
	scoreEval29(t, eval29Set{name: "issue 29b", path: eval29bPath, right: eval29bBaseline, inLang: eval29bLangBaseline, answersEnv: "EVAL29B_ANSWERS"})
}

// scoreEval29 answers every question of set through POST /ask over the demo network,
// judges the answers, logs each miss and the score, and fails below the set's ratchet.
func scoreEval29(t *testing.T, set eval29Set) {
	cases := readEval29(t, set.path)
	base, world := startEval29(t)

	type outcome struct {
		right, inLang bool
		why, lang     string
		answer        *nlq.Answer
	}
	queries := make([]string, len(cases))
	for i, c := range cases {
		queries[i] = c.Query
	}
	answers, errs := eval29AskAll(t.Context(), base, queries)
	out := make([]outcome, len(cases))
	for i, c := range cases {
		if a := answers[i]; errs[i] != nil {
			out[i] = outcome{why: errs[i].Error()}
		} else {
			right, why := world.judge(c, a)
			out[i] = outcome{right: right, why: why, inLang: a.Meta.Language == c.wantLanguage(), lang: a.Meta.Language, answer: a}
		}
	}

	if path := os.Getenv(set.answersEnv); path != "" {
		var buf bytes.Buffer
		for i, c := range cases {
			line, _ := json.Marshal(map[string]any{"case": c, "right": out[i].right, "why": out[i].why, "answer": out[i].answer})
			buf.Write(append(line, '\n'))
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	}
	var all eval29Tally
	byLang, byKind := map[string]*eval29Tally{}, map[string]*eval29Tally{}
	for i, c := range cases {
		o := out[i]
		lang := c.Lang
		if !slices.Contains(eval29Languages, lang) {
			lang = "other"
		}
		for _, tl := range []*eval29Tally{&all, eval29TallyOf(byLang, lang), eval29TallyOf(byKind, c.Kind)} {
			tl.total++
			if o.right {
				tl.right++
			}
			if o.inLang {
				tl.inLang++
			}
		}
		switch {
		case !o.right:
			t.Logf("miss [%s %s] %q: %s%s", c.Lang, c.Kind, c.Query, o.why, langNote(o.inLang, o.lang, c))
		case !o.inLang:
			t.Logf("language [%s %s] %q: answered in %q", c.Lang, c.Kind, c.Query, o.lang)
		}
	}
	t.Logf("%s evaluation: %s", set.name, all)
	for _, part := range []struct {
		name string
		m    map[string]*eval29Tally
	}{{"language", byLang}, {"kind", byKind}} {
		keys := make([]string, 0, len(part.m))
		for k := range part.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("  %s %-16s %s", part.name, k, part.m[k])
		}
	}
	if all.right < set.right {
		t.Errorf("%d of %d answers are right, fewer than the baseline %d", all.right, all.total, set.right)
	}
	if all.inLang < set.inLang {
		t.Errorf("%d of %d answers are in the asker's language, fewer than the baseline %d", all.inLang, all.total, set.inLang)
	}
}

// eval29AskAll asks every query through POST /ask, a few at a time, and returns the
// answers, or the errors, in the queries' order. A call that failed upstream (a lookup
// timing out on a busy machine) is the network's doing, not the planner's: a query is
// asked again, up to three times in all.
func eval29AskAll(ctx context.Context, base string, queries []string) ([]*nlq.Answer, []error) {
	answers, errs := make([]*nlq.Answer, len(queries)), make([]error, len(queries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 6 {
		wg.Go(func() {
			for i := range next {
				a, err := eval29Ask(ctx, base, queries[i])
				for try := 1; try < 3 && (err != nil || len(a.Failed) > 0); try++ {
					a, err = eval29Ask(ctx, base, queries[i])
				}
				answers[i], errs[i] = a, err
			}
		})
	}
	for i := range queries {
		next <- i
	}
	close(next)
	wg.Wait()
	return answers, errs
}

// eval29Ask POSTs the question to /ask and decodes the answer; a failure is returned as the
// reason of a miss, never a test failure (an error answer is a wrong answer).
func eval29Ask(ctx context.Context, base, query string) (*nlq.Answer, error) {
	body, _ := json.Marshal(map[string]string{"query": query})
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/ask", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	var a nlq.Answer
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %v", err)
	}
	return &a, nil
}

// eval29Tally counts right answers and answers in the asker's language.
type eval29Tally struct{ right, inLang, total int }

func (t eval29Tally) String() string {
	return fmt.Sprintf("%3d/%3d right (%5.1f %%), %3d in language (%5.1f %%)", t.right, t.total,
		100*float64(t.right)/float64(t.total), t.inLang, 100*float64(t.inLang)/float64(t.total))
}

func eval29TallyOf(m map[string]*eval29Tally, k string) *eval29Tally {
	if m[k] == nil {
		m[k] = &eval29Tally{}
	}
	return m[k]
}

func langNote(inLang bool, got string, c eval29Case) string {
	if inLang {
		return ""
	}
	return fmt.Sprintf(" (and in %q, not %q)", got, c.wantLanguage())
}
