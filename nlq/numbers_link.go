package nlq

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// Numbers become ids (docs/INTERFACE.md §4.3): a national or VAT number in a question
// is read into the participant ids the bulk check would try (bulk.Candidates, with the
// country the question names as its hint), which are looked up on the SML; the
// Directory is searched only when none is known there.

// maxNumberLookups bounds the candidate ids of one number that are looked up.
const maxNumberLookups = 4

// schemeWordAt returns how many tokens from i name a national number of one country,
// and that country, asking package peppol's table of number names (peppol.LabelCountry;
// "NIP" is Poland's, "codice fiscale" Italy's): a number after it is read with that
// country's VAT prefix when it has none ("NIP 526-000-12-46" is "PL5260001246"). The
// labels findNumber reads with the number itself (lexNumberLabels: SIREN, KvK, MVA,
// CVR, P.IVA, Y-tunnus, ...), alone or as a label's second word ("partita IVA"), are
// left to it, and so are labels ending in a question word ("enterprise number" is
// Belgium's in peppol's table, but a question may say it of any country's number).
func (s *ruleScan) schemeWordAt(i int) (int, string) {
	t := s.toks[i]
	if !t.word || ruleLex.numberLabels[t.key] {
		return 0, ""
	}
	if i+1 < len(s.toks) && s.toks[i+1].word && s.spaced(i, i+1) && !ruleLex.numberLabels[s.toks[i+1].key] && !ruleLex.vocab[s.toks[i+1].key] {
		if cc, ok := peppol.LabelCountry(t.key + " " + strings.TrimSuffix(s.toks[i+1].key, ".")); ok && cc != "" {
			return 2, cc
		}
	}
	if cc, ok := peppol.LabelCountry(strings.TrimSuffix(t.key, ".")); ok && cc != "" {
		return 1, cc
	}
	return 0, ""
}

// findSchemeNumber returns a number written after a scheme word (schemeWordAt) ("NIF
// B15147895", "NIP: 526-000-12-46") as the subject, with the scheme word, and the
// country the word names; ok only when it reads as participant ids.
func (s *ruleScan) findSchemeNumber() (sp ruleSpan, country string, ok bool) {
	if !strings.ContainsAny(s.q, "0123456789") {
		return ruleSpan{}, "", false
	}
	for i := range s.toks {
		n, cc := s.schemeWordAt(i)
		if n == 0 {
			continue
		}
		j := i + n
		for j < len(s.toks) && !s.toks[j].word && strings.Contains(":#.", s.toks[j].key) {
			j++
		}
		k := j
		for k < len(s.toks) && k-j < ruleMaxNumberTokens && s.toks[k].digit && s.toks[k].number && (k == j || s.spaced(k-1, k)) {
			k++
		}
		if k == j {
			continue
		}
		subject := strings.TrimSpace(s.q[s.toks[i].start:s.toks[k-1].end])
		if len(numberCandidates(subject, cc)) == 0 {
			continue
		}
		return ruleSpan{lo: i, hi: k, subject: subject}, cc, true
	}
	return ruleSpan{}, "", false
}

// cutSchemeWord returns number without a leading scheme word (schemeWordAt), and that word's
// country ("" when it has none).
func cutSchemeWord(number string) (rest, country string) {
	var buf [8]ruleToken
	toks := ruleTokenize(number, buf[:0])
	s := ruleScan{q: number, toks: toks}
	if len(toks) == 0 {
		return number, ""
	}
	n, cc := s.schemeWordAt(0)
	if n == 0 {
		return number, ""
	}
	return strings.TrimLeft(number[toks[n-1].end:], " :#."), cc
}

// numberCandidates are the participant ids a number as written may be registered under,
// best first, as the bulk check reads it (bulk.Candidates) with country as its hint;
// after a scheme word (schemeWordAt), or with a country the number alone does not read in,
// with that country's VAT prefix. nil when it reads as none.
func numberCandidates(number, country string) []peppol.ParticipantID {
	if ids := bulk.Candidates(number, country); len(ids) > 0 {
		return ids
	}
	rest, cc := cutSchemeWord(number)
	if cc == "" {
		cc = strings.ToUpper(country)
	}
	if cc == "" {
		return nil
	}
	c := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', '-', '/', '\u00a0':
			return -1
		}
		return r
	}, rest)
	if len(c) < ruleMinNumberDigits {
		return nil
	}
	if len(c) < 2 || !strings.EqualFold(c[:2], cc) {
		c = cc + c
	}
	if ids := bulk.Candidates(c, cc); len(ids) > 0 {
		return ids
	}
	if country != "" && rest == number {
		return bulk.Candidates(number, "")
	}
	return nil
}

// resolveNumber answers a question whose subject is a national or VAT number by looking
// up its candidate ids (numberCandidates) on the SML, concurrently, at most
// maxNumberLookups: the first registered one (else the first with a business card) is
// the participant, and the answer says which id the number was read as. When none is
// known, the Directory is searched as planned (r.first) and handled is false, unless
// that finds nothing either: the answer is then that the number's first id is not on
// Peppol. Searches and counts are left to the search.
func (r *run) resolveNumber(ctx context.Context, c Call) (handled bool, err error) {
	plan := r.plan
	q, _ := c.Arguments["q"].(string)
	if q == "" || q != plan.Subject || plan.Intent == IntentSearch || plan.Intent == IntentCount {
		return false, nil
	}
	ids := numberCandidates(q, plan.Country)
	if len(ids) == 0 {
		return false, nil
	}
	ids = ids[:min(len(ids), maxNumberLookups)]
	lookups := make([]Call, len(ids))
	out := make([]participantDetail, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		lookups[i] = Call{Tool: ruleToolLookup, Arguments: map[string]any{"participantId": id.String()}}
		wg.Go(func() { out[i] = r.e.detail(ctx, lookups[i:i+1]) })
	}
	wg.Wait()
	r.a.Calls = append([]Call{}, lookups...)
	pick := -1
	for i, d := range out {
		if d.p != nil && d.p.SMP != nil {
			pick = i
			break
		}
	}
	for i, d := range out {
		if pick < 0 && d.p != nil {
			pick = i
		}
	}
	if pick < 0 {
		// A lookup that failed for another cause than "not found" leaves the
		// number unchecked: listed, and said when the search finds nothing either.
		var failed []FailedCall
		for i, d := range out {
			if d.err != nil && registry.ErrorCode(d.err) != registry.CodeNotFound {
				failed = append(failed, failedCall(lookups[i], d.err))
			}
		}
		r.a.Failed = append(r.a.Failed, failed...)
		r.a.Calls = append(r.a.Calls, c)
		res, err := r.e.call(ctx, c)
		if err != nil && len(failed) == 0 {
			return true, r.callFailed(c, err)
		}
		var sr *registry.SearchResult
		if err == nil {
			sr, _ = res.Value.(*registry.SearchResult)
		}
		if err != nil || sr != nil && len(sr.Results) == 0 && len(failed) > 0 {
			if err != nil {
				r.a.Failed = append(r.a.Failed, failedCall(c, err))
			}
			r.a.Answer = partialText(r.t, untrusted.Quote(q), r.a.Failed)
			return true, nil
		}
		if sr != nil && len(sr.Results) == 0 && allNotFound(out) {
			if handled, err := r.linkNameBesides(ctx, q); handled {
				return true, err // the company the question names besides the number
			}
			r.a.Answer = notFoundAnswer(r.t, plan, lookups[0])
			return true, nil
		}
		r.first = sr
		return false, nil
	}
	d := out[pick]
	id := d.p.ParticipantID
	if plan.needsServices() {
		sc := Call{Tool: ruleToolServices, Arguments: map[string]any{"participantId": id}}
		r.a.Calls = append(r.a.Calls, sc)
		s := r.e.detail(ctx, []Call{sc})
		d.svc, d.svcErr, d.svcID = s.svc, s.svcErr, s.svcID
	}
	f := r.noteServices(d)
	it := r.e.participantItem(d.p, d.svc, d.svcErr, plan.Document, plan.needsServices())
	r.add(it, f)
	r.a.Answer = fmt.Sprintf(r.t.phrase(func(t *tongue) string { return t.numberAs }), untrusted.Quote(q), id) + " " +
		participantAnswer(r.t, plan, d.p, d.svc, it)
	if note := r.numberNameNote(q, d.p); note != "" {
		r.a.Answer = note + "\n" + r.a.Answer // the name the question gives is another company's
	}
	return true, nil
}

// allNotFound reports whether every lookup found its id unknown (not failed).
func allNotFound(out []participantDetail) bool {
	for _, d := range out {
		if registry.ErrorCode(d.err) != registry.CodeNotFound {
			return false
		}
	}
	return true
}
