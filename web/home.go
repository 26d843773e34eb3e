package web

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/peppolgate/peppolgate/registry"
)

// questionWords start a question in the eleven languages nlq reads (English, French,
// Dutch, German, Norwegian, Swedish, Spanish, Italian, Danish, Finnish, Polish),
// folded to lower case; words that also start names ("come", "jak") are left out.
var questionWords = map[string]bool{
	// English
	"can": true, "does": true, "do": true, "is": true, "are": true, "which": true, "what": true, "who": true, "how": true, "where": true, "when": true, "list": true, "find": true, "show": true,
	// French
	"est-ce": true, "peut-il": true, "peut-elle": true, "peut": true, "quel": true, "quelle": true, "quels": true, "quelles": true, "qui": true, "comment": true, "combien": true, "où": true,
	// Dutch
	"kan": true, "welke": true, "wat": true, "wie": true, "hoe": true, "hoeveel": true, "waar": true, "heeft": true, "ontvangt": true,
	// German
	"kann": true, "welche": true, "welcher": true, "was": true, "wer": true, "wieviele": true, "wo": true, "hat": true, "empfängt": true, "ist": true,
	// Norwegian
	"hvilke": true, "hvilken": true, "hva": true, "hvem": true, "hvordan": true, "hvor": true, "har": true, "mottar": true,
	// Swedish
	"vilka": true, "vilken": true, "vad": true, "vem": true, "hur": true, "var": true, "tar": true,
	// Spanish
	"qué": true, "quién": true, "quiénes": true, "cuál": true, "cuáles": true, "cuántas": true, "cuántos": true, "cuándo": true, "dónde": true, "cómo": true, "puede": true, "pueden": true, "está": true, "busca": true, "encuentra": true, "muestra": true, "¿qué": true, "¿quién": true, "¿cuál": true, "¿cuántas": true, "¿cuántos": true, "¿puede": true, "¿está": true,
	// Italian
	"chi": true, "quale": true, "quali": true, "quanti": true, "quante": true, "quando": true, "può": true, "possono": true, "cerca": true, "trova": true, "mostra": true,
	// Danish
	"hvad": true, "hvornår": true, "modtager": true, "søg": true,
	// Finnish
	"kuka": true, "mikä": true, "mitkä": true, "mitä": true, "missä": true, "milloin": true, "miten": true, "kuinka": true, "montako": true, "voiko": true, "onko": true, "etsi": true, "näytä": true,
	// Polish
	"czy": true, "kto": true, "kim": true, "jaki": true, "jaka": true, "jakie": true, "jakiego": true, "który": true, "która": true, "które": true, "ile": true, "kiedy": true, "gdzie": true, "znajdź": true, "szukaj": true, "pokaż": true,
}

// Destination is where the start page's box sends an input.
type Destination int

const (
	// ToParticipant: the input is a participant id.
	ToParticipant Destination = iota
	// ToAsk: the input reads as a question.
	ToAsk
	// ToSearch: anything else, a name or a number in any notation (the search turns
	// numbers into exact participants first).
	ToSearch
)

// Route says where the box sends q: a participant id to its page; a question (ends
// with '?', starts with a question word of the eleven languages, or has five words or
// more) to the ask page; anything else to the search.
func Route(q string) Destination {
	q = strings.TrimSpace(q)
	if strings.Contains(q, ":") && !strings.ContainsFunc(q, unicode.IsSpace) {
		if _, err := registry.ParseParticipantID(q); err == nil {
			return ToParticipant
		}
	}
	if strings.HasSuffix(q, "?") {
		return ToAsk
	}
	words := strings.Fields(q)
	if len(words) >= 5 {
		return ToAsk
	}
	if len(words) > 1 && questionWords[strings.ToLower(words[0])] {
		return ToAsk
	}
	return ToSearch
}

type networkOption struct {
	Name     string
	Selected bool
}

type homeData struct {
	base
	Networks []networkOption
}

// Home writes the start page: one box for a name, a number, an id or a question, with
// the request's network selected (the default for one not offered or not readable:
// the page asks nothing of it). It returns an error only when the template fails (a
// bug).
func (p *Pages) Home(w http.ResponseWriter, r *http.Request) error {
	d := homeData{base: p.base(r, "Peppol participant lookup")}
	d.Home = true
	if names := p.nets.Names(); len(names) > 1 {
		selected := d.Network // the request's, when it is offered
		if selected == "" {
			selected = p.nets.Default()
		}
		for _, n := range names {
			d.Networks = append(d.Networks, networkOption{Name: n, Selected: n == selected})
		}
	}
	d.Network = "" // the select carries it
	// The page depends only on the configuration, as the discovery documents do.
	return p.render(w, r, http.StatusOK, "home", d, "public, max-age=3600")
}

// Go serves GET /go?q=: it redirects (303) to the participant page, the ask page or
// the search, as Route says, keeping the network (one not offered too: the page it
// goes to says what is wrong with it). An empty box goes back to the start page. It
// returns a *registry.Error with CodeInvalidRequest for a q or network that is not
// valid percent-encoding.
func (p *Pages) Go(w http.ResponseWriter, r *http.Request) error {
	q, err := param(r, "q")
	if err != nil {
		return err
	}
	q = strings.TrimSpace(q)
	raw, err := param(r, "network")
	if err != nil {
		return err
	}
	network, err := registry.ParseNetwork(raw, p.nets.Names())
	if err != nil {
		network = raw // the page it goes to says what is wrong with it
	}
	if network == p.nets.Default() {
		network = ""
	}
	var to string
	switch {
	case q == "":
		to = p.link("/", "network", network)
	case Route(q) == ToParticipant:
		to = p.link("/participant/"+url.PathEscape(q), "network", network)
	case Route(q) == ToAsk:
		to = p.link("/ask", "q", q, "network", network)
	default:
		to = p.link("/search", "q", q, "network", network)
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}
