package web

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// phoneWidth is the width a chart has on a 390 px phone: the viewport less the
// page's padding (0.75rem on each side under 40rem).
const phoneWidth = 390 - 2*12

var (
	svgTag      = regexp.MustCompile(`<svg [^>]*>`)
	svgViewBox  = regexp.MustCompile(`viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)
	svgWidth    = regexp.MustCompile(` width="([^"]+)"`)
	svgFontSize = regexp.MustCompile(`font-size="([0-9.]+)"`)
)

// TestChartTextReadable: a chart's text is at least 11 px on a phone and no larger
// than it was drawn on a wide screen. A chart is drawn at its own size (width = its
// viewBox's, in px) and only shrinks to fit a narrower screen; before, it stretched
// to the page's width, so a 640-wide chart of 13-unit text showed 7 px text on a phone
// and 19 px text on a desktop (issue 26).
func TestChartTextReadable(t *testing.T) {
	t.Parallel()
	var bars []bar
	months := func(int) string { return "" }
	for i := range 120 {
		bars = append(bars, bar{fmt.Sprintf("Country number %d (XX)", i), i * 37})
	}
	for name, svg := range map[string]string{
		"hbar":   string(hbarChart("c1", "countries", bars[:22])),
		"column": string(columnChart("c2", "months", bars, months)),
	} {
		tag := svgTag.FindString(svg)
		vb := svgViewBox.FindStringSubmatch(tag)
		fs := svgFontSize.FindStringSubmatch(tag)
		w := svgWidth.FindStringSubmatch(tag)
		if vb == nil || fs == nil || w == nil {
			t.Fatalf("%s: no viewBox, font-size or width in %s", name, tag)
		}
		vbW, _ := strconv.ParseFloat(vb[1], 64)
		size, _ := strconv.ParseFloat(fs[1], 64)
		if w[1] != vb[1] {
			t.Errorf("%s: width=%q, want the viewBox's width %s (the chart shrinks to fit, never grows)", name, w[1], vb[1])
		}
		if eff := size * min(1, phoneWidth/vbW); eff < 11 {
			t.Errorf("%s: text %.1f px on a %d px phone (font-size %v over a %v-wide viewBox); want at least 11", name, eff, 390, size, vbW)
		}
		if size > 16 {
			t.Errorf("%s: font-size %v on a wide screen; want at most 16", name, size)
		}
		// No text of its own smaller than the chart's.
		for _, m := range svgFontSize.FindAllStringSubmatch(svg, -1) {
			if s, _ := strconv.ParseFloat(m[1], 64); s < size {
				t.Errorf("%s: a text of font-size %v", name, s)
			}
		}
	}
}

// TestColumnChartLabelsApart: the years under the registrations chart never run into
// each other: at the size that keeps them readable on a phone, a year is as wide as a
// year's columns, so every other January is labelled (issue 26's phone screenshot
// showed "2017201820192020…").
func TestColumnChartLabelsApart(t *testing.T) {
	t.Parallel()
	var bars []bar
	for i := range 120 {
		bars = append(bars, bar{fmt.Sprintf("m%d", i), i})
	}
	// A January every 12 months, from the 5th.
	label := func(i int) string {
		if i%12 == 4 {
			return strconv.Itoa(2016 + i/12)
		}
		return ""
	}
	svg := string(columnChart("c", "months", bars, label))
	texts := regexp.MustCompile(`<text x="([0-9.]+)" y="[0-9.]+" fill="[^"]+">([^<]+)</text>`).FindAllStringSubmatch(svg, -1)
	var years []string
	prevEnd := -1.0
	for _, m := range texts {
		x, _ := strconv.ParseFloat(m[1], 64)
		if x < prevEnd {
			t.Errorf("%q at x=%v starts before the label before it ends (%v)", m[2], x, prevEnd)
		}
		// Digits are about 0.64 em wide in the fonts charts fall back to (DejaVu
		// Sans), and a space keeps two labels apart.
		prevEnd = x + 0.64*chartFont*float64(len(m[2])) + 4
		years = append(years, m[2])
	}
	if len(years) < 4 {
		t.Errorf("years labelled: %v; want at least every other one of 10", years)
	}
	for i := 1; i < len(years); i++ {
		if a, _ := strconv.Atoi(years[i-1]); strconv.Itoa(a+2) != years[i] {
			t.Errorf("years labelled %s; want every other year", strings.Join(years, " "))
			break
		}
	}
}
