// Package untrusted makes text that third parties wrote safe to show: names,
// addresses and free text from Peppol Directory business cards, and strings from SMP
// answers (descriptions, contact URLs, certificate subjects). Such text is data, never
// our own words (docs/ARCHITECTURE.md §6):
//
//   - at ingestion (the Directory client, the mirror's export decoder, the SMP parser)
//     it is cleaned and capped generously, so that JSON fields are clean too: Field
//     for one-line values, Text for free text that keeps its line breaks;
//   - where it is shown inside our sentences (MCP tool texts, /ask answers, web
//     pages) it is quoted and capped at MaxShown characters: Quote, or Short where
//     quotes would be in the way (a URL, an identifier, a list entry of its own).
//
// Cleaning removes what can change how the text reads or looks without being seen:
// Unicode format characters (category Cf: the bidirectional controls U+202A–U+202E,
// U+2066–U+2069, U+200E, U+200F and U+061C, zero-width spaces and joiners, the byte
// order mark, soft hyphens, tag characters), control characters (Cc, which with line
// and paragraph separators become spaces), runs of white space and floods of
// combining marks.
package untrusted

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Caps, in runes (characters).
const (
	// MaxField caps a one-line value at ingestion: a name, an address, an identifier,
	// a URL. Real names are well under 200 characters; the cap only stops abuse.
	MaxField = 1000
	// MaxText caps free text at ingestion (a business card's additional information).
	MaxText = 4000
	// MaxShown caps third-party text shown inside a sentence.
	MaxShown = 200
)

// maxMarks is how many combining marks in a row are kept on one character; more only
// stack up into a smear ("Zalgo" text). Real scripts use at most a few.
const maxMarks = 4

// ellipsis marks a cut.
const ellipsis = "…"

const (
	zwnj = '\u200c'
	zwj  = '\u200d'
)

// Clean returns s on one line, valid UTF-8 (invalid bytes become U+FFFD): format
// characters removed (except a zero-width joiner
// or non-joiner between two non-ASCII letters or symbols, which Persian, Indic scripts
// and emoji need), control characters and line or paragraph separators turned into
// spaces, runs of white space made one space (a single space character such as a
// no-break space is kept as it is), more than a few combining marks in a row dropped,
// and the ends trimmed.
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	r := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	var (
		space    []rune // the pending run of white space
		written  bool   // something was written
		prev     rune   // the last rune written
		marks    int    // combining marks in a row just written
		spaceRun bool   // the pending run holds a control or separator
	)
	for i, c := range r {
		switch {
		case unicode.Is(unicode.Cf, c):
			if (c == zwj || c == zwnj) && written && len(space) == 0 && joins(prev) && joins(nextShown(r, i+1)) {
				b.WriteRune(c)
				prev, marks = c, 0
			}
			continue
		case unicode.IsControl(c) || c == '\u2028' || c == '\u2029':
			space, spaceRun = append(space, ' '), true
			continue
		case unicode.IsSpace(c):
			space = append(space, c)
			continue
		}
		if unicode.In(c, unicode.Mn, unicode.Me, unicode.Mc) {
			if marks >= maxMarks {
				continue
			}
			marks++
		} else {
			marks = 0
		}
		if len(space) > 0 && written {
			if len(space) == 1 && !spaceRun {
				b.WriteRune(space[0])
			} else {
				b.WriteByte(' ')
			}
		}
		space, spaceRun = space[:0], false
		b.WriteRune(c)
		written, prev = true, c
	}
	return b.String()
}

// isClean reports whether Clean would return s unchanged, without allocating: the
// common case of a name or an address.
func isClean(s string) bool {
	space, marks := true, 0 // space: at the start, or after a white space character
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			if c, size = utf8.DecodeRuneInString(s[i:]); c == utf8.RuneError && size == 1 {
				return false // invalid UTF-8: Clean replaces it
			}
		}
		i += size
		switch {
		case c >= 0x20 && c < 0x7f && c != ' ':
			space, marks = false, 0
		case c == ' ' || c > 0x9f && unicode.IsSpace(c) && c != '\u2028' && c != '\u2029':
			if space {
				return false
			}
			space, marks = true, 0
		case c < 0xa0 || unicode.Is(unicode.Cf, c) || c == '\u2028' || c == '\u2029':
			return false
		case unicode.In(c, unicode.Mn, unicode.Me, unicode.Mc):
			if marks++; marks > maxMarks {
				return false
			}
			space = false
		default:
			space, marks = false, 0
		}
	}
	return !space || s == ""
}

// joins reports whether c is a character a zero-width joiner may stand beside: a
// visible non-ASCII character.
func joins(c rune) bool {
	return c > unicode.MaxASCII && unicode.IsGraphic(c) && !unicode.IsSpace(c)
}

// nextShown returns the first rune of r from i on that is not a format character;
// 0 when there is none.
func nextShown(r []rune, i int) rune {
	for ; i < len(r); i++ {
		if !unicode.Is(unicode.Cf, r[i]) {
			return r[i]
		}
	}
	return 0
}

// lineBreaks makes every line break "\n".
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n")

// CleanText is Clean for free text that keeps its line breaks: each line is cleaned,
// line breaks (CR LF, CR, LF, NEL, line and paragraph separators) become "\n", blank
// lines at the ends are dropped and more than one in a row become one.
func CleanText(s string) string {
	if isClean(s) {
		return s
	}
	s = lineBreaks.Replace(s)
	var lines []string
	blank := false
	for line := range strings.SplitSeq(s, "\n") {
		line = Clean(line)
		if line == "" {
			blank = len(lines) > 0
			continue
		}
		if blank {
			lines = append(lines, "")
			blank = false
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// Cap returns s cut to at most n runes, the last of them "…" when it was cut. The cut
// never separates a character from its combining marks, an emoji from its modifier or
// the parts of a joined emoji sequence, nor the two halves of a flag.
func Cap(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	i := n - 1 // runes kept before the ellipsis
	for i > 0 && extends(r[i-1], r[i]) {
		i--
	}
	ri := 0
	for j := i - 1; j >= 0 && regional(r[j]); j-- {
		ri++
	}
	if ri%2 == 1 && regional(r[i]) {
		i--
	}
	return strings.TrimRightFunc(string(r[:i]), unicode.IsSpace) + ellipsis
}

// extends reports whether c belongs to the same user-perceived character as the rune
// before it, prev.
func extends(prev, c rune) bool {
	return unicode.In(c, unicode.Mn, unicode.Me, unicode.Mc) || c == zwj || prev == zwj ||
		c >= 0x1F3FB && c <= 0x1F3FF // emoji skin tone modifiers
}

// regional reports whether c is a regional indicator, half of a flag.
func regional(c rune) bool { return c >= 0x1F1E6 && c <= 0x1F1FF }

// Field cleans a one-line value at ingestion and caps it at MaxField runes.
func Field(s string) string { return Cap(Clean(s), MaxField) }

// Text cleans free text at ingestion, keeping its line breaks, and caps it at MaxText
// runes.
func Text(s string) string { return Cap(CleanText(s), MaxText) }

// URL keeps a URL (or a URI such as mailto:) as published, but with its white space,
// control and format characters percent-encoded, as a browser's address bar shows
// them: nothing in it can reverse or hide text, and it still says exactly what was
// published. It trims the ends and caps it at MaxField runes.
func URL(s string) string {
	s = strings.TrimSpace(s)
	if isClean(s) && !strings.Contains(s, " ") {
		return Cap(s, MaxField)
	}
	var b strings.Builder
	for _, c := range s {
		if unicode.IsSpace(c) || unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
			var buf [utf8.UTFMax]byte
			for _, x := range buf[:utf8.EncodeRune(buf[:], c)] {
				b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(x)|0x100, 16)[1:]))
			}
			continue
		}
		b.WriteRune(c)
	}
	return Cap(b.String(), MaxField)
}

// Short cleans s onto one line and caps it at MaxShown runes, for showing where quotes
// would be in the way.
func Short(s string) string { return Cap(Clean(s), MaxShown) }

// quoteMarks are the double quotation marks of the languages answers are in (“…”,
// „…“, «…», »…«, ‹…›) that could end or start a quotation inside a quoted text; Inner
// makes them straight double quotes.
var quoteMarks = strings.NewReplacer("“", `"`, "”", `"`, "„", `"`, "‟", `"`, "«", `"`, "»", `"`, "‹", `"`, "›", `"`)

// Inner renders third-party text to stand between quotation marks a caller writes
// itself, in its language's style ("« %s »"): cleaned, capped (Short), any quotation
// mark above made straight so that the text cannot close the quotation and go on as
// our words.
func Inner(s string) string { return quoteMarks.Replace(Short(s)) }

// Quote renders third-party text inside a sentence: Inner put in curly double quotes,
// “…”.
func Quote(s string) string { return "“" + Inner(s) + "”" }
