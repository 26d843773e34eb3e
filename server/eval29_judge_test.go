package server

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// offlineWorld is the ground truth of the demo dataset without starting it: its
// statistics counted here the way the mirror counts them (cards; their first entity's
// country; the categories of their card's document types), and a distinct made-up
// host name per SMP host, so that the judge can be tested without a network.
func offlineWorld(t *testing.T) *eval29World {
	t.Helper()
	ds := stack.DemoDataset()
	w := &eval29World{ds: ds, smpHosts: map[string]string{}}
	for _, h := range ds.SMPHosts {
		w.smpHosts[h.Name] = h.Name + ".smp.test"
	}
	countries, kinds := map[string]int{}, map[string]int{}
	for _, p := range ds.Participants {
		if p.Card == nil {
			continue
		}
		w.stats.Participants++
		countries[p.Card.Entities[0].CountryCode]++
		seen := map[string]bool{}
		for _, dt := range p.Card.DocTypes {
			if d, ok := codelist.LookupDocumentType(dt.Scheme, dt.Value); ok && !seen[d.Category] {
				seen[d.Category] = true
				kinds[d.Category]++
			}
		}
	}
	for c, n := range countries {
		w.stats.Countries = append(w.stats.Countries, registry.CountryCount{Country: c, Count: n})
	}
	for k, n := range kinds {
		w.stats.DocumentKinds = append(w.stats.DocumentKinds, registry.KindCount{Kind: k, Count: n})
	}
	return w
}

// perfectAnswer builds an answer to c that holds exactly what c.Expect asks for, in
// the words of no language: what a right answer must contain and nothing else.
func perfectAnswer(t *testing.T, w *eval29World, c eval29Case) *nlq.Answer {
	t.Helper()
	e := c.Expect
	a := &nlq.Answer{Meta: nlq.Meta{Language: c.wantLanguage()}, Query: c.Query}
	if e.Cannot {
		a.Intent, a.Answer = nlq.IntentUnknown, "I cannot answer that."
		return a
	}
	a.Calls = []nlq.Call{{Tool: "search_directory"}}
	var text []string
	item := func(id, verdict, doc string) nlq.Item {
		pid, err := peppol.ParseParticipantID(id)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := w.ds.Lookup(pid)
		if !ok {
			t.Fatalf("%s is not in the demo dataset", id)
		}
		it := nlq.Item{Identifier: id, Address: &nlq.Address{AddressCountry: p.Country}, Peppol: &nlq.PeppolInfo{Registered: true}}
		yes, no := true, false
		switch verdict {
		case "receives":
			it.Peppol.CanReceive, it.Peppol.Documents = &yes, []nlq.DocumentInfo{{Category: doc}}
		case "no_doc":
			it.Peppol.CanReceive = &no
		case "blocked":
			it.Peppol.CanReceive, it.Peppol.Blocked = &no, []string{"certificate_expired"}
		case "not_registered":
			it.Peppol.Registered = false
		}
		return it
	}
	if len(e.Participant) > 0 {
		a.Results = append(a.Results, item(e.Participant[0], e.Verdict, e.Document))
		text = append(text, e.Participant[0])
	}
	for i, ids := range e.Participants {
		a.Results = append(a.Results, item(ids[0], e.Verdicts[i], e.Document))
		text = append(text, ids[0])
	}
	if e.ListCountry != "" {
		for _, p := range w.ds.Participants {
			if len(a.Results) == 3 {
				break
			}
			if p.Country == e.ListCountry && (e.ListDocument == "" || w.accepts(p.ID.String(), e.ListDocument)) {
				a.Results = append(a.Results, item(p.ID.String(), "", ""))
			}
		}
	}
	if e.CountFrom != "" {
		n, ok := w.count(e.Country, e.Document)
		if !ok {
			t.Fatalf("%q: no count for country %q, kind %q", c.Query, e.Country, e.Document)
		}
		text = append(text, fmt.Sprint(n))
	}
	text = append(text, e.Endpoint, e.CertExpiry, e.Issuer, w.smpHosts[e.SMPHost], e.Transport, e.RegDate, e.Name)
	a.Answer = strings.Join(slices.DeleteFunc(text, func(s string) bool { return s == "" }), " ")
	return a
}

// TestEval29JudgeRejects: the judge accepts an answer holding what a case asks for, and
// rejects, for every case, the right answer to another case about something else (other
// companies, another count, another kind of question) — so that no check of the scorer
// passes whatever it is fed.
func TestEval29JudgeRejects(t *testing.T) {
	t.Parallel()
	w := offlineWorld(t)
	for _, path := range []string{eval29Path, eval29bPath} {
		t.Run(filepath.Base(path), func(t *testing.T) { judgeRejects(t, w, readEval29(t, path)) })
	}
}

// judgeRejects is TestEval29JudgeRejects for one set.
func judgeRejects(t *testing.T, w *eval29World, cases []eval29Case) {
	shares := func(a, b eval29Expect) bool {
		ids := func(e eval29Expect) []string {
			return slices.Concat(append(slices.Clone(e.Participants), e.Participant)...)
		}
		for _, id := range ids(a) {
			if slices.Contains(ids(b), id) {
				return true
			}
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return string(ja) == string(jb)
	}
	for i, c := range cases {
		if ok, why := w.judge(c, perfectAnswer(t, w, c)); !ok {
			t.Errorf("[%s %s] %q: the right answer is rejected: %s", c.Lang, c.Kind, c.Query, why)
		}
		for j := 1; j < len(cases); j++ {
			d := cases[(i+j)%len(cases)]
			if shares(c.Expect, d.Expect) {
				continue
			}
			if ok, _ := w.judge(c, perfectAnswer(t, w, d)); ok {
				t.Errorf("[%s %s] %q: the answer to %q (%s) is accepted", c.Lang, c.Kind, c.Query, d.Query, d.Kind)
			}
			break
		}
	}
}

// TestEval29Checks: each check rejects the wrong answers that lie closest to a right
// one, and accepts the forms a right one may take.
func TestEval29Checks(t *testing.T) {
	t.Parallel()
	w := offlineWorld(t)
	yes, no := true, false
	item := func(id string, p nlq.PeppolInfo) nlq.Item {
		return nlq.Item{Identifier: id, Address: &nlq.Address{AddressCountry: "DE"}, Peppol: &p}
	}
	muller := []string{"9930:de811152493"}
	total := fmt.Sprint(w.stats.Participants)
	grouped := total[:len(total)-3] + "\u00a0" + total[len(total)-3:]
	for _, tt := range []struct {
		name   string
		expect eval29Expect
		answer nlq.Answer
		right  bool
	}{
		{"receives the kind asked", eval29Expect{Participant: muller, Verdict: "receives", Document: "Order"},
			nlq.Answer{Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{Registered: true, CanReceive: &yes, DocumentKinds: []string{"Order"}})}}, true},
		{"receives invoices, asked about orders", eval29Expect{Participant: muller, Verdict: "receives", Document: "Order"},
			nlq.Answer{Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{Registered: true, CanReceive: &yes, Documents: []nlq.DocumentInfo{{Category: "Invoice"}}})}}, false},
		{"no_doc answered yes", eval29Expect{Participant: muller, Verdict: "no_doc", Document: "Order"},
			nlq.Answer{Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{Registered: true, CanReceive: &yes})}}, false},
		{"no_doc answered no", eval29Expect{Participant: muller, Verdict: "no_doc", Document: "Order"},
			nlq.Answer{Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{Registered: true, CanReceive: &no})}}, true},
		{"blocked without a reason", eval29Expect{Participant: muller, Verdict: "blocked"},
			nlq.Answer{Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{Registered: true, CanReceive: &no})}}, false},
		{"not registered, but registered", eval29Expect{Participant: muller, Verdict: "not_registered"},
			nlq.Answer{Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{Registered: true})}}, false},
		{"the id only in the text, no verdict", eval29Expect{Participant: muller, Verdict: "registered"},
			nlq.Answer{Answer: "9930:de811152493 is registered"}, false},
		{"the id in the text", eval29Expect{Participant: muller, Name: "Müller Logistik GmbH"},
			nlq.Answer{Answer: "9930:DE811152493 (“müller logistik gmbh”, DE)"}, true},
		{"the company among others, not first", eval29Expect{Participant: muller, Verdict: "registered"},
			nlq.Answer{Answer: "0208:0677424046 is registered; 9930:de811152493 too.", Results: []nlq.Item{item("0208:0677424046", nlq.PeppolInfo{Registered: true}), item(muller[0], nlq.PeppolInfo{Registered: true})}}, false},
		{"the company first in the text", eval29Expect{Participant: muller, Verdict: "registered"},
			nlq.Answer{Answer: "3 matches; 9930:de811152493 is registered.", Results: []nlq.Item{item("0208:0677424046", nlq.PeppolInfo{}), item(muller[0], nlq.PeppolInfo{Registered: true})}}, true},
		{"another company", eval29Expect{Participant: muller},
			nlq.Answer{Results: []nlq.Item{item("9930:de335486410", nlq.PeppolInfo{Registered: true})}}, false},
		{"the date written in French", eval29Expect{CertExpiry: "2027-10-20"}, nlq.Answer{Answer: "expire le 20 octobre 2027"}, true},
		{"the date written in English", eval29Expect{CertExpiry: "2027-10-02"}, nlq.Answer{Answer: "expires on October 2nd, 2027."}, true},
		{"the date written in Finnish", eval29Expect{CertExpiry: "2027-10-20"}, nlq.Answer{Answer: "vanhenee 20. lokakuuta 2027"}, true},
		{"the date written in Polish", eval29Expect{CertExpiry: "2027-10-20"}, nlq.Answer{Answer: "wygasa 20 października 2027 r."}, true},
		{"the date numeric", eval29Expect{RegDate: "2021-02-07"}, nlq.Answer{Answer: "seit 7.2.2021"}, true},
		{"a day off", eval29Expect{CertExpiry: "2027-10-20"}, nlq.Answer{Answer: "expires 2027-10-21 (21.10.2027)"}, false},
		{"another month", eval29Expect{CertExpiry: "2027-10-20"}, nlq.Answer{Answer: "expires 20 November 2027"}, false},
		{"the date inside a longer number", eval29Expect{CertExpiry: "2027-10-20"}, nlq.Answer{Answer: "serial 120.10.20271"}, false},
		{"the count grouped", eval29Expect{CountFrom: "stats"}, nlq.Answer{Answer: "There are " + grouped + " participants."}, true},
		{"another count", eval29Expect{CountFrom: "stats"}, nlq.Answer{Answer: fmt.Sprintf("There are %d participants.", w.stats.Participants-1)}, false},
		{"the transport's protocol", eval29Expect{Transport: "peppol-transport-as4-v2_0"}, nlq.Answer{Answer: "It receives over AS4."}, true},
		{"another protocol", eval29Expect{Transport: "busdox-transport-as2-ver2p0"}, nlq.Answer{Answer: "It receives over AS4 (peppol-transport-as4-v2_0)."}, false},
		{"an access point's operator", eval29Expect{Endpoint: "https://ap1.x.example/as4", Provider: "Ångström E-faktura AB"}, nlq.Answer{Answer: "served by “ÅNGSTRÖM E-FAKTURA AB”"}, true},
		{"another access point", eval29Expect{Endpoint: "https://ap1.x.example/as4", Provider: "Ångström E-faktura AB"}, nlq.Answer{Answer: "served by https://ap2.x.example/as4"}, false},
		{"a list with a company abroad", eval29Expect{ListCountry: "DE"},
			nlq.Answer{Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{}), {Identifier: "0007:5560360793", Address: &nlq.Address{AddressCountry: "SE"}}}}, false},
		{"an approximate list", eval29Expect{ListCountry: "DE"},
			nlq.Answer{Approximate: true, Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{}), item("9930:de335486410", nlq.PeppolInfo{})}}, false},
		{"several companies, one dropped", eval29Expect{Participants: [][]string{muller, {"9930:de335486410"}}, Verdicts: []string{"registered", "registered"}},
			nlq.Answer{Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{Registered: true})}}, false},
		{"cannot, but looked up", eval29Expect{Cannot: true}, nlq.Answer{Calls: []nlq.Call{{Tool: "search_directory"}}}, false},
		{"not found, but a match not marked approximate", eval29Expect{Verdict: "not_found"},
			nlq.Answer{Calls: []nlq.Call{{Tool: "search_directory"}}, Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{})}}, false},
		{"not found, approximate matches", eval29Expect{Verdict: "not_found"},
			nlq.Answer{Calls: []nlq.Call{{Tool: "search_directory"}}, Approximate: true, Results: []nlq.Item{item(muller[0], nlq.PeppolInfo{})}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := w.judge(eval29Case{Lang: "en", Expect: tt.expect}, &tt.answer)
			if ok != tt.right {
				t.Errorf("judged %v (%s), want %v", ok, why, tt.right)
			}
		})
	}
	if got := (eval29Case{Lang: "pt"}).wantLanguage(); got != "en" {
		t.Errorf("a Portuguese question is to be answered in %q, want en", got)
	}
}

// TestEval29Set checks the set against the demo dataset, so that a right answer is
// right: its size per language; every company exists and its facts (verdict, access
// point, certificate, SMP host, transport, registration date, name) are the dataset's;
// every national number, read as the bulk check reads it with the country its scheme
// or country word names (as a hint, and as a prefix when the number has none), yields
// the company's id.
//
// It also checks what the answers are judged against: each verdict (receives, no_doc,
// blocked; each company's in a question about several) is what the dataset's SMP
// registrations and access point certificates say; each issuer is (part of) the issuer
// name of the access point certificate the simulated network serves; each list has at least two
// participants of its country (accepting its kind); each count is one the statistics
// give; and no company asked about as not found has a Directory card under that name.
func TestEval29Set(t *testing.T) {
	t.Parallel()
	w := offlineWorld(t)
	n, err := netsim.Start(t.Context(), w.ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	issuer := func(ap int) string {
		c, err := x509.ParseCertificate(n.APCertificate(ap))
		if err != nil {
			t.Fatalf("access point %d: %v", ap, err)
		}
		return c.Issuer.String()
	}
	for _, path := range []string{eval29Path, eval29bPath} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases := readEval29(t, path)
			checkEval29Set(t, w.ds, cases)
			checkEval29Judged(t, w, issuer, cases)
		})
	}
}

// checkEval29Judged checks, for TestEval29Set, the facts of a set the judge compares
// answers with beyond the company's own (verdicts, issuers, lists, counts, names that
// must not exist).
func checkEval29Judged(t *testing.T, w *eval29World, issuer func(ap int) string, cases []eval29Case) {
	ds := w.ds
	var names []string
	for _, p := range ds.Participants {
		if p.Card == nil {
			continue
		}
		for _, en := range p.Card.Entities {
			for _, nm := range en.Names {
				names = append(names, strings.ToLower(nm.Name))
			}
		}
	}
	for _, c := range cases {
		e := c.Expect
		verdicts := map[string]string{}
		if len(e.Participant) > 0 && slices.Contains([]string{"receives", "no_doc", "blocked"}, e.Verdict) {
			verdicts[e.Participant[0]] = e.Verdict
		}
		if len(e.Verdicts) != len(e.Participants) {
			t.Errorf("%q: %d companies, %d verdicts", c.Query, len(e.Participants), len(e.Verdicts))
		}
		for i, ids := range e.Participants {
			if i < len(e.Verdicts) {
				verdicts[ids[0]] = e.Verdicts[i]
			}
		}
		for id, want := range verdicts {
			if p := ds.MustLookup(id); p != nil {
				if got := datasetVerdict(ds, p, e.Document); got != want {
					t.Errorf("%q: %s is %s (%s) in the dataset, the set says %s", c.Query, id, got, e.Document, want)
				}
			}
		}
		if e.Issuer != "" && len(e.Participant) > 0 {
			// The set names the issuer by its name or a part of it (the judge looks
			// for it in the answer's text).
			if ap := firstAccessPoint(ds.MustLookup(e.Participant[0])); ap < 0 || !containsFold(issuer(ap), e.Issuer) {
				t.Errorf("%q: the access point certificate is not issued by %q", c.Query, e.Issuer)
			}
		}
		if e.ListCountry != "" {
			n := 0
			for _, p := range ds.Participants {
				if p.Card != nil && p.Country == e.ListCountry && (e.ListDocument == "" || w.accepts(p.ID.String(), e.ListDocument)) {
					n++
				}
			}
			if n < 2 {
				t.Errorf("%q: %d participants in %s accept %q", c.Query, n, e.ListCountry, e.ListDocument)
			}
		}
		if e.CountFrom != "" {
			if n, ok := w.count(e.Country, e.Document); !ok || n == 0 {
				t.Errorf("%q: the statistics have no count for country %q, kind %q", c.Query, e.Country, e.Document)
			}
		}
		if e.Verdict == "not_found" {
			q := strings.ToLower(c.Query)
			for _, nm := range names {
				words := strings.Fields(nm)
				if strings.Contains(q, nm) || (len(words) > 2 && strings.Contains(q, strings.Join(words[:len(words)-1], " "))) {
					t.Errorf("%q: the Directory has %q", c.Query, nm)
				}
			}
		}
	}
}

// firstAccessPoint is the access point of p's first endpoint, or -1.
func firstAccessPoint(p *netsim.Participant) int {
	if p == nil || len(p.Services) == 0 || len(p.Services[0].Processes) == 0 || len(p.Services[0].Processes[0].Endpoints) == 0 {
		return -1
	}
	return p.Services[0].Processes[0].Endpoints[0].AccessPoint
}

// datasetVerdict is what the dataset says of p for a document kind: not_registered
// (not in the SML), blocked (its access point certificate expired before the
// dataset's day), receives (its SMP lists a document of that category, or any when doc
// is "") or no_doc.
func datasetVerdict(ds *netsim.Dataset, p *netsim.Participant, doc string) string {
	if !p.InSML {
		return "not_registered"
	}
	if ap := firstAccessPoint(p); ap >= 0 && ds.AccessPoints[ap].NotAfter.Before(ds.Now) {
		return "blocked"
	}
	for _, s := range p.Services {
		if d, ok := codelist.LookupDocumentType(s.DocumentType.Scheme, s.DocumentType.Value); ok && (doc == "" || d.Category == doc) {
			return "receives"
		}
	}
	return "no_doc"
}

// checkEval29Set is TestEval29Set for one set: its size, its companies and their own
// facts.
func checkEval29Set(t *testing.T, ds *netsim.Dataset, cases []eval29Case) {
	per := map[string]int{}
	for _, c := range cases {
		per[c.Lang]++
	}
	other := len(cases)
	for _, l := range eval29Languages {
		other -= per[l]
		if per[l] < 15 {
			t.Errorf("%d questions in %s, want at least 15", per[l], l)
		}
	}
	if len(cases) < 165 || other < 5 {
		t.Errorf("%d questions, %d in other languages; want at least 165 and 5", len(cases), other)
	}
	lookup := func(id string) *netsim.Participant {
		p := ds.MustLookup(id)
		if p == nil {
			t.Errorf("%s is not in the demo dataset", id)
		}
		return p
	}
	for _, c := range cases {
		e := c.Expect
		if c.Kind == "" || c.Query == "" || c.Lang == "" {
			t.Errorf("%q: lang, kind and query are required", c.Query)
		}
		for _, ids := range append(slices.Clone(e.Participants), e.Participant) {
			var company []int
			for _, id := range ids {
				if p := lookup(id); p != nil {
					company = append(company, p.Company)
				}
			}
			if len(slices.Compact(company)) > 1 {
				t.Errorf("%q: %v are not one company", c.Query, ids)
			}
		}
		if len(e.Participant) == 0 {
			continue
		}
		p := lookup(e.Participant[0])
		if p == nil {
			continue
		}
		if e.Number != "" {
			// The question's scheme or country word (NIP, MVA, "the Belgian company")
			// names the country; a number without its country prefix is read with it.
			cands := slices.Concat(bulk.Candidates(e.Number, p.Country), bulk.Candidates(p.Country+" "+e.Number, p.Country))
			if !slices.ContainsFunc(cands, func(id peppol.ParticipantID) bool { return slices.Contains(e.Participant, id.String()) }) {
				t.Errorf("%q: %s reads as %v, not %v", c.Query, e.Number, cands, e.Participant)
			}
		}
		var ep *netsim.Endpoint
		if len(p.Services) > 0 && len(p.Services[0].Processes) > 0 && len(p.Services[0].Processes[0].Endpoints) > 0 {
			ep = &p.Services[0].Processes[0].Endpoints[0]
		}
		var ap netsim.AccessPoint
		if ep != nil {
			ap = ds.AccessPoints[ep.AccessPoint]
		}
		host := ""
		if p.SMPHost >= 0 {
			host = ds.SMPHosts[p.SMPHost].Name
		}
		reg := ""
		if p.Card != nil {
			reg = p.Card.Entities[0].RegDate
		}
		for _, f := range []struct{ what, want, have string }{
			{"endpoint", e.Endpoint, func() string {
				if ep == nil {
					return ""
				}
				return ep.Address
			}()},
			{"provider", e.Provider, ap.Organisation},
			{"certificate expiry", e.CertExpiry, ap.NotAfter.Format("2006-01-02")},
			{"SMP host", e.SMPHost, host},
			{"transport", e.Transport, func() string {
				if ep == nil {
					return ""
				}
				return ep.TransportProfile
			}()},
			{"registration date", e.RegDate, reg},
			{"name", e.Name, ds.CardName(e.Participant[0])},
		} {
			if f.want != "" && f.want != f.have {
				t.Errorf("%q: %s %q, the dataset has %q", c.Query, f.what, f.want, f.have)
			}
		}
		switch e.Verdict {
		case "receives", "registered", "no_doc", "blocked":
			if !p.InSML || p.SMPNotFound {
				t.Errorf("%q: %s is not registered", c.Query, e.Participant[0])
			}
		case "not_registered":
			if p.InSML {
				t.Errorf("%q: %s is registered", c.Query, e.Participant[0])
			}
		}
	}
}
