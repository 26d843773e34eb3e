package nlq

import (
	"maps"
	"slices"
	"strings"
)

// lexEntry is what one phrase of the tables means and when it may be stripped.
type lexEntry struct {
	role    lexRole
	side    lexSide
	flags   lexFlag
	intent  Intent
	doc     string
	aspect  string
	country string
	// label: an introduction of a country that is a label ("country", "land"), after
	// which a code may be written in any case when a colon follows.
	label bool
}

// lexNode is a trie of phrases by word; the right-hand trie holds them reversed. Most
// nodes have a few children, kept in a slice; nodes with many have a map too.
type lexNode struct {
	kids    []lexKid
	index   map[string]*lexNode
	entries []lexEntry
}

type lexKid struct {
	key  string
	node *lexNode
}

// ruleMaxListChildren is the most children a node looks up by scanning.
const ruleMaxListChildren = 8

// child returns the node after word k, nil if none.
func (n *lexNode) child(k string) *lexNode {
	if n.index != nil {
		return n.index[k]
	}
	for _, c := range n.kids {
		if c.key == k {
			return c.node
		}
	}
	return nil
}

// insert adds a phrase to the trie at n.
func (lx *lexBuilder) insert(n *lexNode, keys []string, e lexEntry) {
	for _, k := range keys {
		c := n.child(k)
		if c == nil {
			c = lx.newNode()
			n.kids = append(n.kids, lexKid{k, c})
			if n.index != nil {
				n.index[k] = c
			} else if len(n.kids) > ruleMaxListChildren {
				n.index = make(map[string]*lexNode, 2*len(n.kids))
				for _, kid := range n.kids {
					n.index[kid.key] = kid.node
				}
			}
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

// newNode allocates trie nodes in blocks.
func (lx *lexBuilder) newNode() *lexNode {
	if len(lx.nodes) == cap(lx.nodes) {
		lx.nodes = make([]lexNode, 0, 1024)
	}
	lx.nodes = append(lx.nodes, lexNode{})
	return &lx.nodes[len(lx.nodes)-1]
}

// lexicon is the compiled form of the word lists in lang.go. It is built once, by
// buildLexicon, and only read afterwards.
type lexicon struct {
	left, right *lexNode
	// vocab holds every word of every phrase: a capitalised word in it is no name.
	vocab map[string]bool
	// intro holds the prepositions and labels that introduce a country ("in",
	// "aus der", "country"), names its names ("the netherlands", "belgië"); both
	// also reversed. codes maps lower-case ISO codes (and aliases) to codes.
	intro, introRev, names, namesRev *lexNode
	codes                            map[string]string
	// typoTargets are the words typos are corrected to.
	typoTargets map[string]bool
	// fuzzy holds typoTargets by first letter and length.
	fuzzy [26][ruleMaxFuzzyLen + 1][]string
	// Word sets, by key.
	peppolSuffixes, offtopic, general, abbreviations, numberLabels, numberSuffixes map[string]bool
}

// ruleLex is the rule planner's lexicon; it is never written after package
// initialisation.
var ruleLex = buildLexicon()

// lexBuilder builds a lexicon with scratch buffers, so that building allocates little
// besides the tries.
type lexBuilder struct {
	*lexicon
	toks      []ruleToken
	keys, rev []string
	nodes     []lexNode
}

func buildLexicon() *lexicon {
	lx := &lexBuilder{lexicon: &lexicon{left: &lexNode{}, right: &lexNode{},
		vocab: make(map[string]bool, 2048), typoTargets: make(map[string]bool, 2048)}}
	for _, g := range slices.Concat(lexGroups, lexGroupsEleven, lexGroupsForeign, lexGroupsMore, kindGroups()) {
		for _, p := range lexExpand(g.phrases) {
			lx.addPhrase(p, lexEntry{role: g.role, side: g.side, flags: g.flags, intent: g.intent, doc: g.doc, aspect: g.aspect})
		}
	}
	// Country phrases are an introduction (a preposition, a label, a bracket, a comma)
	// and a name or code, matched by countryAt from these tries rather than spelt out.
	lx.intro, lx.introRev = &lexNode{}, &lexNode{}
	lx.names, lx.namesRev = &lexNode{}, &lexNode{}
	for _, p := range lexExpand(lexCountryPrepositions + "|" + lexCountryPrepositionsEleven) {
		lx.addTo(lx.intro, lx.introRev, lx.keysOf(p), lexEntry{role: lexCountry})
	}
	for _, l := range lexExpand(lexCountryLabels + "|" + lexCountryLabelsEleven) {
		lx.addTo(lx.intro, lx.introRev, lx.keysOf(l), lexEntry{role: lexCountry, label: true})
	}
	// A country name that is also a word of the tables (Spanish and Italian "usa",
	// "uses") is a country only after a preposition, never on its own.
	keywords := maps.Clone(lx.vocab)
	for _, c := range append(lexCountryTable[:len(lexCountryTable):len(lexCountryTable)], lexCountryEleven...) {
		country := lexEntry{role: lexCountry, side: lexBoth, country: c.code}
		for _, name := range lexExpand(c.names) {
			lx.addTo(lx.names, lx.namesRev, lx.keysOf(name), country)
			if strings.Contains(name, "-") {
				lx.addTo(lx.names, lx.namesRev, lx.keysOf(strings.ReplaceAll(name, "-", " ")), country)
			}
		}
		// Adjectives, and names used as adjectives ("Luxembourg companies"), under the
		// same rules, so that "Air France" and "France Telecom" stay names.
		adj := country
		adj.flags = flagWeak | flagAdjective
		for _, a := range lexExpand(c.adjectives) {
			lx.addPhrase(a, adj)
		}
		for _, name := range lexExpand(c.names) {
			if !keywords[ruleFold(name)] {
				lx.addPhrase(name, adj)
			}
		}
	}
	// Finnish names in a case that is its own preposition ("Ruotsissa").
	for _, c := range lexCountryCases {
		for _, name := range lexExpand(c.names) {
			lx.addPhrase(name, lexEntry{role: lexCountry, side: lexBoth, flags: flagWeak | flagNoTypo, country: c.code})
		}
	}
	lx.codes = make(map[string]string)
	for _, code := range strings.Fields(lexISOCodes) {
		lx.codes[strings.ToLower(code)] = code
	}
	for alias, code := range lexCodeAliases {
		lx.codes[strings.ToLower(alias)] = code
	}
	for k := range lx.typoTargets {
		if len(k) >= 4 && len(k) <= ruleMaxFuzzyLen && lexLetters(k) {
			lx.fuzzy[k[0]-'a'][len(k)] = append(lx.fuzzy[k[0]-'a'][len(k)], k)
		}
	}
	lx.peppolSuffixes = lx.set(lexPeppolSuffixes + "|" + lexPeppolSuffixesEleven + "|" + lexPeppolSuffixesMore)
	lx.offtopic = lx.set(lexOfftopic)
	lx.general = lx.set(lexGeneral)
	lx.abbreviations = lx.set(lexAbbreviations)
	lx.numberLabels = lx.set(lexNumberLabels)
	lx.numberSuffixes = lx.set(lexNumberSuffixes)
	return lx.lexicon
}

// addPhrase adds a phrase and, for a hyphenated one, its spellings written apart and
// run together; "peppol X" is also written "Peppol-X", and a one-word company noun
// "Peppol-<noun>".
func (lx *lexBuilder) addPhrase(p string, e lexEntry) {
	lx.addKeys(lx.keysOf(p), e)
	if strings.Contains(p, "-") {
		lx.addKeys(lx.keysOf(strings.ReplaceAll(p, "-", " ")), e)
		lx.addKeys(lx.keysOf(strings.ReplaceAll(p, "-", "")), e)
	}
	if rest, ok := strings.CutPrefix(p, "peppol "); ok {
		lx.addKeys(lx.keysOf("peppol-"+rest), e)
		lx.addKeys(lx.keysOf("peppol"+rest), e)
	}
	if e.role == lexNoun && !strings.HasPrefix(p, "peppol") && !strings.Contains(p, " ") {
		// "Peppol-Teilnehmer", "Peppol-deelnemers": the noun joined to the network's name.
		lx.addKeys(lx.keysOf("peppol-"+p), e)
	}
}

// keysOf tokenises a phrase the way questions are tokenised; the result is valid
// until the next call.
func (lx *lexBuilder) keysOf(p string) []string {
	lx.toks = ruleTokenize(p, lx.toks[:0])
	lx.keys = lx.keys[:0]
	for _, t := range lx.toks {
		lx.keys = append(lx.keys, t.key)
	}
	return lx.keys
}

// reversed returns keys in reverse order; valid until the next call.
func (lx *lexBuilder) reversed(keys []string) []string {
	lx.rev = lx.rev[:0]
	for i := len(keys) - 1; i >= 0; i-- {
		lx.rev = append(lx.rev, keys[i])
	}
	return lx.rev
}

// addTo adds a phrase to a pair of tries without making its words keywords.
func (lx *lexBuilder) addTo(fwd, rev *lexNode, keys []string, e lexEntry) {
	lx.insert(fwd, keys, e)
	for _, k := range keys {
		lx.vocab[k] = true
	}
	lx.insert(rev, lx.reversed(keys), e)
}

func (lx *lexBuilder) addKeys(keys []string, e lexEntry) {
	if len(keys) == 0 {
		return
	}
	lx.insert(lx.left, keys, e)
	// Typos are corrected to content words only: a misspelt name is more likely one
	// letter from "staat" or "der" than a misspelt copula or article.
	fuzzy := e.role != lexCopula && e.role != lexStarter && e.flags&(flagArticle|flagNoTypo) == 0
	for _, k := range keys {
		if k != "" && ruleWordRune(rune(k[0])) || len(k) > 1 {
			lx.vocab[k] = true
			if fuzzy {
				lx.typoTargets[k] = true
			}
		}
	}
	lx.insert(lx.right, lx.reversed(keys), e)
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

func (lx *lexBuilder) set(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range lexExpand(s) {
		for _, k := range lx.keysOf(w) {
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
