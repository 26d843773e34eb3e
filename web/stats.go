package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/registry"
)

// statsCacheControl lets browsers keep the statistics page a while: the counts change
// when the mirror syncs, a few times a day at most.
const statsCacheControl = "private, max-age=600"

type statsRow struct {
	Label string
	Count string
}

type statsData struct {
	base
	Stats                  *registry.Stats
	DataAsOf, Participants string
	CountryChart           any
	KindChart              any
	MonthChart             any
	Countries, Kinds       []statsRow
	Months                 []statsRow
	LastYear               string
	JSONLink               string
}

// Stats serves GET /stats?network=: the network's participants by country, by kind of
// document and by month of registration, as SVG charts and tables, from its Directory
// mirror (registry.NetworkStats). It returns a *registry.Error with CodeInvalidRequest
// for a network not offered, CodeStatsUnavailable when the network has no mirror or
// it holds no data (the error page says so), and the mirror's other errors.
func (p *Pages) Stats(w http.ResponseWriter, r *http.Request) error {
	reg, network, err := p.network(r)
	if err != nil {
		return err
	}
	st, err := registry.NetworkStats(r.Context(), reg, network)
	if err != nil {
		return err
	}
	netParam, _ := param(r, "network") // p.network read it already
	d := statsData{base: p.base(r, "Network statistics"), Stats: st,
		DataAsOf:     st.DataAsOf.UTC().Format(time.DateOnly),
		Participants: phrase.Grouped(int64(st.Participants), "\u202f"),
		JSONLink:     p.link("/api/v1/stats", "network", netParam)}

	var bars []bar
	for _, c := range st.Countries {
		bars = append(bars, bar{countryName(c.Country), c.Count})
	}
	if st.OtherCountries > 0 {
		bars = append(bars, bar{"Other countries", st.OtherCountries})
	}
	if st.WithoutCountry > 0 {
		bars = append(bars, bar{"No country", st.WithoutCountry})
	}
	d.CountryChart = hbarChart("chart-countries", "Participants by country, most first", bars)
	d.Countries = rows(bars)

	bars = bars[:0]
	for _, k := range st.DocumentKinds {
		bars = append(bars, bar{k.Kind, k.Count})
	}
	if st.WithoutDocumentTypes > 0 {
		bars = append(bars, bar{"None listed", st.WithoutDocumentTypes})
	}
	d.KindChart = hbarChart("chart-kinds", "Participants accepting each kind of document, most first", bars)
	d.Kinds = rows(bars)

	bars = bars[:0]
	year := 0
	for i, m := range st.Registrations {
		bars = append(bars, bar{m.Month, m.Count})
		if i >= len(st.Registrations)-12 {
			year += m.Count
		}
	}
	d.LastYear = phrase.Grouped(int64(year), "\u202f")
	months := st.Registrations
	title := "Participants registered each month"
	if len(months) > 0 {
		title += ", " + months[0].Month + " to " + months[len(months)-1].Month
	}
	d.MonthChart = columnChart("chart-months", title, bars, func(i int) string {
		if m := months[i].Month; strings.HasSuffix(m, "-01") {
			return m[:4]
		}
		return ""
	})
	// The table lists the months newest first, without the empty ones before the first
	// registration.
	firstNonZero := len(bars)
	for i, b := range bars {
		if b.Value > 0 {
			firstNonZero = i
			break
		}
	}
	for i := len(bars) - 1; i >= firstNonZero; i-- {
		d.Months = append(d.Months, statsRow{bars[i].Label, phrase.Grouped(int64(bars[i].Value), "\u202f")})
	}
	return p.render(w, r, http.StatusOK, "stats", d, statsCacheControl)
}

func rows(bars []bar) []statsRow {
	out := make([]statsRow, len(bars))
	for i, b := range bars {
		out[i] = statsRow{b.Label, phrase.Grouped(int64(b.Value), "\u202f")}
	}
	return out
}
