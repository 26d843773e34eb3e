package nlq

import "strings"

// lexEntry is what one phrase of the tables means and when it may be stripped.
type lexEntry struct {
	role    lexRole
	side    lexSide
	flags   lexFlag
	intent  Intent
	doc     string
	country string
	// code is the index of a country code's word in the phrase ("in BE", "(SE)"),
	// which must be written in capitals unless label is set; -1 when there is none.
	code int8
	// label: the phrase starts with "country:" or the like, after which a code may be
	// written in any case.
	label bool
}

// lexNode is a trie of phrases by word; the right-hand trie holds them reversed.
type lexNode struct {
	next    map[string]*lexNode
	entries []lexEntry
}

func (n *lexNode) add(keys []string, e lexEntry) {
	for _, k := range keys {
		c := n.next[k]
		if c == nil {
			if n.next == nil {
				n.next = make(map[string]*lexNode)
			}
			c = &lexNode{}
			n.next[k] = c
		}
		n = c
	}
	for _, old := range n.entries {
		if old == e {
			return
		}
	}
	n.entries = append(n.entries, e)
}

// lexicon is the compiled form of the word lists in lang.go. It is built once, by
// buildLexicon, and only read afterwards.
type lexicon struct {
	left, right *lexNode
	// vocab holds every word of every phrase: a capitalised word in it is no name.
	vocab map[string]bool
	// typoTargets are the words typos are corrected to.
	typoTargets map[string]bool
	// fuzzy holds typoTargets by first letter and length.
	fuzzy [26][ruleMaxFuzzyLen + 1][]string
	// Word sets, by key.
	offtopic, general, abbreviations, numberLabels, numberSuffixes map[string]bool
}

// ruleLex is the rule planner's lexicon; it is never written after package
// initialisation.
var ruleLex = buildLexicon()

func buildLexicon() *lexicon {
	lx := &lexicon{left: &lexNode{}, right: &lexNode{}, vocab: make(map[string]bool), typoTargets: make(map[string]bool)}
	for _, g := range lexGroups {
		for _, p := range lexExpand(g.phrases) {
			lx.addPhrase(p, lexEntry{role: g.role, side: g.side, flags: g.flags, intent: g.intent, doc: g.doc, code: -1})
		}
	}
	preps := lexExpand(lexCountryPrepositions)
	labels := lexExpand(lexCountryLabels)
	for _, c := range lexCountryTable {
		country := lexEntry{role: lexCountry, side: lexBoth, country: c.code, code: -1}
		for _, name := range lexExpand(c.names) {
			for _, p := range preps {
				lx.addPhrase(p+" "+name, country)
			}
			for _, l := range labels {
				lx.addPhrase(l+" "+name, country)
				lx.addPhrase(l+": "+name, country)
			}
			lx.addPhrase("( "+name+" )", country)
			right := country
			right.side = lexRight
			lx.addPhrase(", "+name, right)
		}
		// Names are used as adjectives too ("Luxembourg companies"), under the same
		// rules as adjectives, so that "Air France" and "France Telecom" stay names.
		adj := country
		adj.flags = flagWeak | flagAdjective
		for _, a := range append(lexExpand(c.adjectives), lexExpand(c.names)...) {
			lx.addPhrase(a, adj)
		}
	}
	codes := strings.Fields(lexISOCodes)
	for alias := range lexCodeAliases {
		codes = append(codes, alias)
	}
	for _, code := range codes {
		cc := code
		if to, ok := lexCodeAliases[code]; ok {
			cc = to
		}
		e := lexEntry{role: lexCountry, side: lexBoth, country: cc}
		k := strings.ToLower(code)
		for _, p := range preps {
			e.code = int8(len(lexKeys(p)))
			lx.addKeys(append(lexKeys(p), k), e)
		}
		e.code = 1
		lx.addKeys([]string{"(", k, ")"}, e)
		lx.addKeys([]string{"[", k, "]"}, e)
		e.label = true
		for _, l := range labels {
			lk := lexKeys(l)
			e.code = int8(len(lk))
			lx.addKeys(append(lk[:len(lk):len(lk)], k), e)
			e.code++
			lx.addKeys(append(lk[:len(lk):len(lk)], ":", k), e)
			lx.addKeys(append(lk[:len(lk):len(lk)], "=", k), e)
		}
	}
	for k := range lx.typoTargets {
		if len(k) >= 4 && len(k) <= ruleMaxFuzzyLen && lexLetters(k) {
			lx.fuzzy[k[0]-'a'][len(k)] = append(lx.fuzzy[k[0]-'a'][len(k)], k)
		}
	}
	lx.offtopic = lexSet(lexOfftopic)
	lx.general = lexSet(lexGeneral)
	lx.abbreviations = lexSet(lexAbbreviations)
	lx.numberLabels = lexSet(lexNumberLabels)
	lx.numberSuffixes = lexSet(lexNumberSuffixes)
	return lx
}

// addPhrase adds a phrase and, for a hyphenated one, its spellings written apart and
// run together.
func (lx *lexicon) addPhrase(p string, e lexEntry) {
	lx.addKeys(lexKeys(p), e)
	if strings.Contains(p, "-") {
		lx.addKeys(lexKeys(strings.ReplaceAll(p, "-", " ")), e)
		lx.addKeys(lexKeys(strings.ReplaceAll(p, "-", "")), e)
	}
}

func (lx *lexicon) addKeys(keys []string, e lexEntry) {
	if len(keys) == 0 {
		return
	}
	lx.left.add(keys, e)
	rev := make([]string, len(keys))
	// Typos are corrected to content words only: a misspelt name is more likely one
	// letter from "staat" or "der" than a misspelt copula or article.
	fuzzy := e.role != lexCopula && e.role != lexStarter && e.flags&flagArticle == 0
	for i, k := range keys {
		rev[len(keys)-1-i] = k
		if k != "" && ruleWordRune(rune(k[0])) || len(k) > 1 {
			lx.vocab[k] = true
			if fuzzy {
				lx.typoTargets[k] = true
			}
		}
	}
	lx.right.add(rev, e)
}

// lexKeys tokenises a phrase the way questions are tokenised.
func lexKeys(p string) []string {
	toks := ruleTokenize(p, nil)
	keys := make([]string, len(toks))
	for i, t := range toks {
		keys[i] = t.key
	}
	return keys
}

// lexExpand splits a "|"-separated list and expands "{a,b}" alternatives.
func lexExpand(s string) []string {
	var out []string
	for _, alt := range strings.Split(s, "|") {
		out = append(out, lexBraces(strings.TrimSpace(alt))...)
	}
	return out
}

func lexBraces(s string) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return []string{s}
	}
	end := strings.IndexByte(s[open:], '}')
	if end < 0 {
		return []string{s}
	}
	end += open
	var out []string
	for _, opt := range strings.Split(s[open+1:end], ",") {
		out = append(out, lexBraces(s[:open]+opt+s[end+1:])...)
	}
	return out
}

func lexSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range lexExpand(s) {
		for _, k := range lexKeys(w) {
			m[k] = true
		}
	}
	return m
}

func lexLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}
