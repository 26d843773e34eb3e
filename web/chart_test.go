package web

import (
	"fmt"
	"regexp"
	"strconv"
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
