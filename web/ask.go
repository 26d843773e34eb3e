package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/peppolgate/peppolgate/nlq"
)

type askItem struct {
	Name, ID, Country, Link, Status string
}

type askData struct {
	base
	Q           string
	Answered    bool
	Answer      string
	Approximate bool
	Items       []askItem
	Failed      bool
}

// Ask serves GET /ask?q=: the question's answer rendered on the server (the page's
// script streams it from POST /ask instead when it runs). Without q, the empty form.
// It returns *registry.Error with CodeInvalidRequest for a question nlq refuses or a
// network not offered, and the engine's errors (nlq.CodeAskFailed) when nothing could
// be answered.
func (p *Pages) Ask(w http.ResponseWriter, r *http.Request) error {
	q, err := param(r, "q")
	if err != nil {
		return err
	}
	network, err := param(r, "network")
	if err != nil {
		return err
	}
	q = strings.TrimSpace(q)
	d := askData{base: p.base(r, "Ask"), Q: q}
	d.Box = q
	if q == "" {
		return p.render(w, r, http.StatusOK, "ask", d, "private, max-age=300")
	}
	if err := nlq.ValidateQuery(q); err != nil {
		return err
	}
	eng, err := p.asker.On(network)
	if err != nil {
		return err
	}
	a, err := eng.Ask(r.Context(), q, nil)
	if err != nil {
		return err
	}
	d.Answered, d.Answer, d.Approximate, d.Failed = true, a.Answer, a.Approximate, len(a.Failed) > 0
	if a.Meta.Language != "" {
		d.Lang = a.Meta.Language // the page is the answer's; its own words say lang="en"
	}
	for _, it := range a.Results {
		item := askItem{Name: it.Name, ID: it.Identifier, Link: p.link("/participant/"+url.PathEscape(it.Identifier), "network", d.Network)}
		if it.Address != nil {
			item.Country = countryName(it.Address.AddressCountry)
		}
		if it.Peppol != nil {
			item.Status = "Not registered on Peppol"
			if it.Peppol.Registered {
				item.Status = "On Peppol"
			}
		}
		d.Items = append(d.Items, item)
	}
	d.Title = "Ask: " + q
	return p.render(w, r, http.StatusOK, "ask", d, "no-store")
}
