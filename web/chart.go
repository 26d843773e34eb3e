package web

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/internal/phrase"
)

// The charts are SVG drawn here, inline in the page: presentation attributes only (the
// CSP allows no inline style), every text escaped, role="img" with a title naming what
// the chart shows. The page repeats the numbers in tables.
//
// A chart is drawn at its own size (its width in px is its viewBox's) and the
// stylesheet only lets it shrink to fit a narrower screen: stretched to the page's
// width, its text grew on a desktop and fell to 6–7 px on a phone. Drawn chartWidth
// wide with chartFont text, it keeps 11 px text on a 390 px phone (366 px of page).
const (
	chartWidth = 480
	chartFont  = 15
)

// Chart colours: the bars' blue and the text's near-black both have a contrast of at
// least 4.5:1 on white.
const (
	barFill  = "#1f5fa8"
	textFill = "#1a1a1a"
	axisLine = "#767676"
)

// bar is one bar of a chart: its label and its value.
type bar struct {
	Label string
	Value int
}

// esc escapes s for SVG text and attribute values.
func esc(s string) string { return template.HTMLEscapeString(s) }

// hbarChart draws bars as a horizontal bar chart, one labelled row per bar with its
// value after it. id names the chart's title element.
func hbarChart(id, title string, bars []bar) template.HTML {
	const (
		width  = chartWidth
		valueW = 80
		rowH   = 26
		barH   = 18
		// charW is a wide estimate of a character's width at chartFont, for the label
		// column: a label longer than the widest column is shortened with "…" (the
		// table below the chart has it whole), never cut, nor bars pushed off the
		// chart.
		charW, minLabelW, maxLabelW = 9, 120, 220
		maxLabel                    = (maxLabelW - 16) / charW
	)
	maxV, longest := 1, 0
	for _, b := range bars {
		maxV = max(maxV, b.Value)
		longest = max(longest, utf8.RuneCountInString(b.Label))
	}
	labelW := min(max(minLabelW, charW*longest+16), maxLabelW)
	height := rowH*len(bars) + 4
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="chart" role="img" aria-labelledby="%s" viewBox="0 0 %d %d" width="%d" height="%d" font-family="system-ui, sans-serif" font-size="%d">`, id, width, height, width, height, chartFont)
	fmt.Fprintf(&s, `<title id="%s">%s</title>`, id, esc(title))
	for i, b := range bars {
		y := i*rowH + 2
		w := 0
		if b.Value > 0 {
			w = max(1, (width-labelW-valueW)*b.Value/maxV)
		}
		label := b.Label
		if r := []rune(label); len(r) > maxLabel {
			label = string(r[:maxLabel-1]) + "…"
		}
		fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" fill="%s">%s</text>`, labelW-8, y+barH-4, textFill, esc(label))
		fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`, labelW, y, w, barH, barFill)
		fmt.Fprintf(&s, `<text x="%d" y="%d" fill="%s">%s</text>`, labelW+w+6, y+barH-4, textFill, esc(phrase.Grouped(int64(b.Value), "\u202f")))
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// columnChart draws bars as columns over time, labelled below where label says (e.g.
// each January with its year), with the largest value marked on the left. id names the
// chart's title element.
func columnChart(id, title string, bars []bar, label func(i int) string) template.HTML {
	const (
		width   = chartWidth
		height  = 220
		left    = 64
		right   = 38 // room for a year's label under the last column
		bottom  = 26
		top     = 12
		plotH   = height - bottom - top
		fontSz  = chartFont
		tickLen = 4
		charW   = 10 // a wide estimate of a digit's width at fontSz (0.64 em in DejaVu Sans)
		gap     = 6  // between two labels
	)
	maxV := 1
	for _, b := range bars {
		maxV = max(maxV, b.Value)
	}
	n := max(len(bars), 1)
	colW := float64(width-left-right) / float64(n)
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="chart" role="img" aria-labelledby="%s" viewBox="0 0 %d %d" width="%d" height="%d" font-family="system-ui, sans-serif" font-size="%d">`, id, width, height, width, height, fontSz)
	fmt.Fprintf(&s, `<title id="%s">%s</title>`, id, esc(title))
	// The axes and the largest value.
	fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`, left, top+plotH, width-right, top+plotH, axisLine)
	fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`, left, top, left, top+plotH, axisLine)
	fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" fill="%s">%s</text>`, left-6, top+fontSz-2, textFill, esc(phrase.Grouped(int64(maxV), "\u202f")))
	fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" fill="%s">0</text>`, left-6, top+plotH, textFill)
	labelEnd := 0.0 // where the last label drawn ends
	for i, b := range bars {
		x := float64(left) + float64(i)*colW
		if b.Value > 0 {
			h := max(1, plotH*b.Value/maxV)
			fmt.Fprintf(&s, `<rect x="%s" y="%d" width="%s" height="%d" fill="%s"><title>%s: %s</title></rect>`,
				num(x+0.5), top+plotH-h, num(max(colW-1, 0.5)), h, barFill, esc(b.Label), esc(phrase.Grouped(int64(b.Value), "\u202f")))
		}
		// A label that would run into the one before it (a year is about as wide as
		// a year's columns: every other one is drawn) or off the chart's right edge
		// is left out.
		if l := label(i); l != "" && x+2 >= labelEnd && x+2+float64(charW*utf8.RuneCountInString(l)) <= width {
			labelEnd = x + 2 + float64(charW*utf8.RuneCountInString(l)+gap)
			fmt.Fprintf(&s, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s"/>`, num(x), top+plotH, num(x), top+plotH+tickLen, axisLine)
			fmt.Fprintf(&s, `<text x="%s" y="%d" fill="%s">%s</text>`, num(x+2), height-6, textFill, esc(l))
		}
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// num writes a coordinate with at most one decimal.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
