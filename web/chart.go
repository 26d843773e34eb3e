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
		width  = 640
		valueW = 70
		rowH   = 24
		barH   = 16
		// charW is a wide estimate of a character's width at font-size 13, for the
		// label column: labels are never cut, nor bars pushed off the chart.
		charW, minLabelW, maxLabelW = 8, 150, 280
	)
	maxV, longest := 1, 0
	for _, b := range bars {
		maxV = max(maxV, b.Value)
		longest = max(longest, utf8.RuneCountInString(b.Label))
	}
	labelW := min(max(minLabelW, charW*longest+16), maxLabelW)
	height := rowH*len(bars) + 4
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="chart" role="img" aria-labelledby="%s" viewBox="0 0 %d %d" width="100%%" font-family="system-ui, sans-serif" font-size="13">`, id, width, height)
	fmt.Fprintf(&s, `<title id="%s">%s</title>`, id, esc(title))
	for i, b := range bars {
		y := i*rowH + 2
		w := 0
		if b.Value > 0 {
			w = max(1, (width-labelW-valueW)*b.Value/maxV)
		}
		fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" fill="%s">%s</text>`, labelW-8, y+barH-3, textFill, esc(b.Label))
		fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`, labelW, y, w, barH, barFill)
		fmt.Fprintf(&s, `<text x="%d" y="%d" fill="%s">%s</text>`, labelW+w+6, y+barH-3, textFill, esc(phrase.Grouped(int64(b.Value), "\u202f")))
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// columnChart draws bars as columns over time, labelled below where label says (e.g.
// each January with its year), with the largest value marked on the left. id names the
// chart's title element.
func columnChart(id, title string, bars []bar, label func(i int) string) template.HTML {
	const (
		width   = 720
		height  = 240
		left    = 50
		bottom  = 24
		top     = 10
		plotH   = height - bottom - top
		fontSz  = 12
		tickLen = 4
	)
	maxV := 1
	for _, b := range bars {
		maxV = max(maxV, b.Value)
	}
	n := max(len(bars), 1)
	colW := float64(width-left) / float64(n)
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="chart" role="img" aria-labelledby="%s" viewBox="0 0 %d %d" width="100%%" font-family="system-ui, sans-serif" font-size="%d">`, id, width, height, fontSz)
	fmt.Fprintf(&s, `<title id="%s">%s</title>`, id, esc(title))
	// The axes and the largest value.
	fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`, left, top+plotH, width, top+plotH, axisLine)
	fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`, left, top, left, top+plotH, axisLine)
	fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" fill="%s">%s</text>`, left-6, top+fontSz-2, textFill, esc(phrase.Grouped(int64(maxV), "\u202f")))
	fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" fill="%s">0</text>`, left-6, top+plotH, textFill)
	for i, b := range bars {
		x := float64(left) + float64(i)*colW
		if b.Value > 0 {
			h := max(1, plotH*b.Value/maxV)
			fmt.Fprintf(&s, `<rect x="%s" y="%d" width="%s" height="%d" fill="%s"><title>%s: %s</title></rect>`,
				num(x+0.5), top+plotH-h, num(max(colW-1, 0.5)), h, barFill, esc(b.Label), esc(phrase.Grouped(int64(b.Value), "\u202f")))
		}
		if l := label(i); l != "" {
			fmt.Fprintf(&s, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s"/>`, num(x), top+plotH, num(x), top+plotH+tickLen, axisLine)
			fmt.Fprintf(&s, `<text x="%s" y="%d" fill="%s">%s</text>`, num(x+2), height-6, textFill, esc(l))
		}
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// num writes a coordinate with at most one decimal.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
