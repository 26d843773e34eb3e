package nlq

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/peppolgate/peppolgate/tools"
)

// ruleListSeparator separates the items of a list: commas, semicolons and line
// breaks, and "and" or "or" in the six languages, alone or together (", and").
var ruleListSeparator = regexp.MustCompile(`(?i)(?:\s*[,;\r\n]\s*|\s+(?:and|or|et|ou|und|oder|en|og|eller|och|samt|&)\s+)+`)

// ruleBullet is what may start a list line before its item: a dash, star or bullet,
// or a number with a full stop or bracket ("1.", "2)").
var ruleBullet = regexp.MustCompile(`^(?:[-*•·–]|\d{1,2}[.)])\s+`)

// ruleListItem is one identifier of a list: byte offsets [start, end) in the question
// and the row input (a participant id canonical, a number as written).
type ruleListItem struct {
	start, end int
	input      string
}

// rulePiece is the text between two list separators, with the identifier it holds.
type rulePiece struct {
	start, end int
	item       ruleListItem
	ok         bool // it holds an identifier
	// alone: nothing but white space, punctuation or a bullet around the identifier;
	// first: nothing after it; last: nothing before it.
	alone, first, last bool
}

// findList returns the identifiers of a list in the question: two or more
// participant ids or numbers written one after another, separated only by commas,
// semicolons, line breaks or "and" (in any of the six languages), the first possibly
// after words of the question and the last before them ("can 0208:0677424046,
// BE0477472701 and NO 923 609 016 MVA receive invoices?", "which of these are on
// Peppol:\n0208:0677424046\n0192:923609016"). It returns the longest such run, the
// first of equals, with the tokens it covers.
func (s *ruleScan) findList() (items []ruleListItem, lo, hi int, ok bool) {
	if !strings.ContainsAny(s.q, "0123456789") || !s.mayList() {
		return nil, 0, 0, false
	}
	seps := ruleListSeparator.FindAllStringIndex(s.q, -1)
	if len(seps) == 0 {
		return nil, 0, 0, false
	}
	pieces := make([]rulePiece, 0, len(seps)+1)
	at := 0
	for _, sp := range seps {
		pieces = append(pieces, s.piece(at, sp[0]))
		at = sp[1]
	}
	pieces = append(pieces, s.piece(at, len(s.q)))
	best, bestLen := 0, 0
	for i := 0; i < len(pieces); i++ {
		if !pieces[i].ok || !pieces[i].first {
			continue
		}
		j := i + 1
		for j < len(pieces) && pieces[j].ok && pieces[j].alone {
			j++
		}
		// pieces[i+1:j] are identifiers alone; the run may end with one that has
		// words after it.
		n := j - i
		if j < len(pieces) && pieces[j].ok && pieces[j].last {
			n++
		}
		if n >= 2 && n > bestLen {
			best, bestLen = i, n
		}
	}
	if bestLen < 2 {
		return nil, 0, 0, false
	}
	for _, p := range pieces[best : best+bestLen] {
		items = append(items, p.item)
	}
	if len(items) > tools.MaxCheckRows {
		items = items[:tools.MaxCheckRows]
	}
	lo, hi = s.tokensIn(items[0].start, items[len(items)-1].end)
	return items, lo, hi, true
}

// ruleListWords are the words ruleListSeparator separates items with, folded.
var ruleListWords = map[string]bool{"and": true, "or": true, "et": true, "ou": true, "und": true, "oder": true,
	"en": true, "og": true, "eller": true, "och": true, "samt": true, "&": true}

// mayList reports whether the question has a list separator at all, cheaply, before
// the separators are looked for.
func (s *ruleScan) mayList() bool {
	if strings.ContainsAny(s.q, ",;\n\r") {
		return true
	}
	for _, t := range s.toks {
		if ruleListWords[t.key] {
			return true
		}
	}
	return false
}

// piece reads the text of the question between bytes start and end: the identifier
// it holds (the last one, so that a run may start after words) and what surrounds it.
func (s *ruleScan) piece(start, end int) rulePiece {
	p := rulePiece{start: start, end: end}
	text := s.q[start:end]
	if !strings.ContainsAny(text, "0123456789") {
		return p
	}
	sub := ruleScan{q: text, toks: ruleTokenize(text, nil)}
	item, ok := sub.lastID()
	if !ok {
		sp, found := sub.findNumber()
		if !found {
			return p
		}
		item = ruleListItem{start: sub.toks[sp.lo].start, end: sub.toks[sp.hi-1].end, input: sp.subject}
		item.start += strings.Index(text[item.start:item.end], sp.subject)
		item.end = item.start + len(sp.subject)
	}
	before := ruleBullet.ReplaceAllString(strings.TrimLeftFunc(text[:item.start], ruleFillerRune), "")
	before = strings.TrimFunc(before, ruleFillerRune)
	after := strings.TrimFunc(text[item.end:], ruleFillerRune)
	item.start += start
	item.end += start
	p.item, p.ok = item, true
	p.first, p.last = after == "", before == ""
	p.alone = p.first && p.last
	return p
}

// ruleFillerRune reports whether r may surround a list item without being a word:
// white space, punctuation, quotes and brackets.
func ruleFillerRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// lastID returns the last participant id in the question, canonical.
func (s *ruleScan) lastID() (ruleListItem, bool) {
	var last ruleListItem
	found := false
	for off := 0; off < len(s.q); {
		sub := ruleScan{q: s.q[off:], toks: ruleTokenize(s.q[off:], nil)}
		sp, ok := sub.findID()
		if !ok {
			break
		}
		a, b := sub.toks[sp.lo].start, sub.toks[sp.hi-1].end
		last, found = ruleListItem{start: off + a, end: off + b, input: sp.subject}, true
		off += b
	}
	return last, found
}

// planList plans a question about a list of identifiers: one check_participants call
// with a row per identifier, asking about the document the question names (every
// row with the country it names), unless the words around the list ask what a check
// does not answer (a count, certificates, document types, access points): then it
// reports false and the question is planned as about its first identifier.
func (s *ruleScan) planList(items []ruleListItem, lo, hi int) (Plan, bool) {
	s.scanFree(0, lo, lexLeft)
	s.scanFree(hi, len(s.toks), lexRight)
	if sg := s.sig; sg.count || sg.certificate || sg.documentTypes || sg.accessPoint {
		s.sig = ruleSignals{}
		return Plan{}, false
	}
	p := Plan{Intent: IntentCheck, Country: s.sig.country, Language: s.detectLanguageOutside(lo, hi), Document: s.sig.doc}
	rows := make([]any, len(items))
	for i, it := range items {
		row := map[string]any{"input": it.input}
		if p.Country != "" {
			row["country"] = p.Country
		}
		rows[i] = row
	}
	args := map[string]any{"rows": rows}
	if kind := docCategory(p.Document); kind != "" {
		args["documents"] = []any{kind}
	}
	p.Calls = []Call{{Tool: ruleToolCheck, Arguments: args}}
	return p, true
}
