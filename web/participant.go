package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/registry"
)

// Document kinds the verdict is about: the code list's categories of the invoice and
// the credit note.
const (
	kindInvoice    = "Invoice"
	kindCreditNote = "Credit Note"
)

type verdict struct {
	// Class is ok, partial, no or unknown (the stylesheet's colours).
	Class    string
	Headline string
	Details  []string
}

type warningLine struct {
	Code, Message string
	Blocking      bool
}

type serviceRow struct {
	Document, Kind, State, Process, URL, Transport, Certificate string
	// Unverified: the SMP answer the row was read from is not validly signed by the
	// network's SMP CA, so its URL is not the participant's verified access point.
	Unverified bool
}

type participantData struct {
	base
	ID, Name, Country string
	Verdict           verdict
	Warnings          []warningLine
	Card              *registry.DirectoryRecord
	SMP               *registry.SMPRecord
	Services          []serviceRow
	ServicesNote      string
	// StaleNote says the answer is an older one, served because the network failed.
	StaleNote    string
	JSONLink     string
	ServicesLink string
}

// Participant serves GET /participant/{id}?network=: the verdict in plain words (can
// it receive invoices and credit notes), every warning explained, the Directory card,
// the SMP and the services table. A participant the network does not know is a page
// too ("Not on Peppol", status 404). It returns *registry.Error with
// CodeInvalidParticipantID or CodeInvalidRequest for bad input and CodeLookupFailed
// when the network failed.
func (p *Pages) Participant(w http.ResponseWriter, r *http.Request) error {
	raw := strings.TrimPrefix(r.URL.EscapedPath(), p.root+"/participant/")
	dec, err := url.PathUnescape(raw)
	if err != nil {
		return &registry.Error{Code: registry.CodeInvalidParticipantID, Message: "participant id is not correctly percent-encoded; expected <scheme>:<value>, e.g. 0208:0677424046"}
	}
	id, err := registry.ParseParticipantID(dec)
	if err != nil {
		return err
	}
	reg, _, err := p.network(r)
	if err != nil {
		return err
	}
	netParam, _ := param(r, "network") // p.network read it already
	d := participantData{base: p.base(r, "Participant "+id.String()), ID: id.String(),
		JSONLink:     p.link("/api/v1/participant/"+url.PathEscape(id.String()), "network", netParam),
		ServicesLink: p.link("/api/v1/participant/"+url.PathEscape(id.String())+"/services", "network", netParam)}
	d.Box = id.String()
	part, fresh, err := reg.Lookup(r.Context(), id)
	if err != nil && registry.ErrorCode(err) != registry.CodeNotFound {
		return err
	}
	// One verdict for every front door (registry.Judge, docs/INTERFACE.md §2.5).
	if v := registry.Judge(registry.Evidence{Participant: part, Err: err}, registry.DefaultKinds()); v.Reach == registry.NotRegistered {
		return p.notRegistered(w, r, d, part, fresh)
	}
	res, sfresh, err := reg.Services(r.Context(), id, "")
	// The page is as stale as its staler answer, as old as its older one; not
	// cacheable when the services read failed (registry.Judgement.Freshness).
	fresh = registry.Judgement{Services: res, Fresh: sfresh, Err: err}.Freshness(fresh)
	// Answers the registry has cached come back as the same pointers: the page of
	// fresh ones is kept rendered.
	key := memoKey{part: part, res: res, id: d.ID, network: netParam}
	keep := err == nil && !fresh.Stale
	if page, ok := p.memo.get(key); keep && ok {
		writePage(w, r, http.StatusOK, page, pageCacheControl)
		return nil
	}
	var re *registry.Error
	switch {
	case err == nil:
		// The services' warnings summarise the endpoints' (one per code): the lookup's
		// about its one endpoint would say the same again.
		d.fromLookup(part, p.plain, func(code string) bool {
			return slices.ContainsFunc(res.Warnings, func(w registry.Warning) bool { return w.Code == code })
		})
		d.addWarnings(res.Warnings, p.plain)
		d.Services = serviceRows(res.Services)
		d.Verdict = pageVerdict(registry.Judge(registry.Evidence{Participant: part, Services: res}, registry.DefaultKinds()), res)
	case errors.As(err, &re):
		// The lookup answered; the detail did not. Judge from the lookup's list: the
		// kinds its one endpoint does not stand for are unknown, as at every door.
		d.fromLookup(part, p.plain, nil)
		d.ServicesNote = "The detailed services could not be read right now (" + p.plain.Replace(re.Message) + "). Reload the page in a minute."
		d.Verdict = pageVerdict(registry.Judge(registry.Evidence{Participant: part, ServicesErr: registry.ServicesFailed(err)}, registry.DefaultKinds()), nil)
	default:
		return err
	}
	if !keep {
		return p.renderFresh(w, r, d, fresh)
	}
	page, err := p.renderBytes("participant", d)
	if err != nil {
		return err
	}
	p.memo.put(key, page)
	writePage(w, r, http.StatusOK, page, pageCacheControl)
	return nil
}

// notRegistered renders the page of a participant nobody can send documents to over
// Peppol: one the network does not know at all (part nil, status 404), one with a
// Directory card but no SML registration, or one whose SMP does not know it.
func (p *Pages) notRegistered(w http.ResponseWriter, r *http.Request, d participantData, part *registry.Participant, fresh registry.Freshness) error {
	if part == nil {
		d.Verdict = verdict{Class: "no", Headline: "Not on Peppol", Details: []string{
			"The Peppol network does not know " + d.ID + ": its SML has no registration and the Peppol Directory no card. Nobody can send it documents over Peppol.",
			"Check the scheme and the number, or search by the company's name."}}
		return p.render(w, r, http.StatusNotFound, "participant", d, pageCacheControl)
	}
	d.fromLookup(part, p.plain, nil)
	switch {
	case part.SMP != nil:
		d.Verdict = verdict{Class: "no", Headline: "Not on Peppol", Details: []string{
			"The Peppol SML names an SMP for this participant, but that SMP does not know it, so nobody can send it documents over Peppol until its registration is fixed."}}
	case part.Directory != nil:
		d.Verdict = verdict{Class: "no", Headline: "Not on Peppol", Details: []string{
			"The Peppol SML does not know this participant, so nobody can send it documents over Peppol.",
			"The Peppol Directory has a business card for it, but a card alone does not make a company reachable."}}
	default:
		d.Verdict = verdict{Class: "no", Headline: "Not on Peppol", Details: []string{
			"The Peppol SML does not know this participant, so nobody can send it documents over Peppol."}}
	}
	return p.renderFresh(w, r, d, fresh)
}

// renderFresh renders the participant page d of an answer as fresh as fresh says: one
// served stale, because the network failed, says so and how old it is, and the browser
// is told to ask again.
func (p *Pages) renderFresh(w http.ResponseWriter, r *http.Request, d participantData, fresh registry.Freshness) error {
	if !fresh.Stale {
		return p.render(w, r, http.StatusOK, "participant", d, pageCacheControl)
	}
	d.stale(fresh.Age)
	return p.render(w, r, http.StatusOK, "participant", d, staleCacheControl)
}

// stale notes that the page shows an answer age old, served because the network
// failed just now.
func (d *participantData) stale(age time.Duration) {
	d.StaleNote = "The Peppol network did not answer just now, so this is what it answered " + ago(age) +
		". Registrations rarely change within a day; reload the page in a minute for a fresh answer."
}

// ago says how long ago age was, in round minutes or hours.
func ago(age time.Duration) string {
	if age < time.Hour {
		return phrase.Plural(max(1, int(age.Round(time.Minute)/time.Minute)), "minute") + " ago"
	}
	return phrase.Plural(int(age.Round(time.Hour)/time.Hour), "hour") + " ago"
}

// fromLookup fills in what the page shows of the lookup's answer: the card, the SMP,
// the name and country, and the warnings (their advice put in words for people by
// plain) but those whose code skip (when not nil) says another answer tells better.
func (d *participantData) fromLookup(part *registry.Participant, plain *strings.Replacer, skip func(code string) bool) {
	d.Card, d.SMP = part.Directory, part.SMP
	if part.Directory != nil {
		d.Name, d.Country = untrusted.Short(part.Directory.Name), countryName(part.Directory.CountryCode)
		d.Title = d.Name
	}
	for _, w := range part.Warnings {
		if skip == nil || !skip(w.Code) {
			d.addWarnings([]registry.Warning{w}, plain)
		}
	}
}

// addWarnings adds ws to the page's, once per code and message, their advice put in
// words for people by plain.
func (d *participantData) addWarnings(ws []registry.Warning, plain *strings.Replacer) {
	for _, w := range ws {
		line := warningLine{Code: w.Code, Message: plain.Replace(w.Message), Blocking: registry.Blocking(w.Code)}
		if !slices.Contains(d.Warnings, line) {
			d.Warnings = append(d.Warnings, line)
		}
	}
}

// pageVerdict phrases v, the verdict on invoices and credit notes (registry.Judge
// over registry.DefaultKinds), for people: a headline, what blocks sending in words,
// and the other kinds res lists (nil: the services could not be read).
func pageVerdict(v registry.Verdict, res *registry.ServicesResult) verdict {
	var inv, cn registry.KindVerdict
	for _, k := range v.Kinds {
		switch k.Kind {
		case kindInvoice:
			inv = k
		case kindCreditNote:
			cn = k
		}
	}
	var out verdict
	switch {
	case inv.Receives && cn.Receives:
		out = verdict{Class: "ok", Headline: "Can receive invoices and credit notes"}
	case inv.Receives && cn.Unknown:
		out = verdict{Class: "partial", Headline: "Can receive invoices, but whether it can receive credit notes could not be checked just now"}
		out.Details = append(out.Details, "Its SMP's answer for credit notes could not be read; try again later.")
	case cn.Receives && inv.Unknown:
		out = verdict{Class: "partial", Headline: "Can receive credit notes, but whether it can receive invoices could not be checked just now"}
		out.Details = append(out.Details, "Its SMP's answer for invoices could not be read; try again later.")
	case inv.Receives:
		out = verdict{Class: "partial", Headline: "Can receive invoices, but not credit notes"}
	case cn.Receives:
		out = verdict{Class: "partial", Headline: "Can receive credit notes, but not invoices"}
	case inv.Listed && !inv.Unknown || cn.Listed && !cn.Unknown:
		// Said of the kinds that are listed and blocked, not of the others.
		var kinds []string
		for _, k := range []registry.KindVerdict{inv, cn} {
			if k.Listed && !k.Unknown {
				kinds = append(kinds, kindWords(k.Kind))
			}
		}
		out = verdict{Class: "no", Headline: "Registered, but sending " + strings.Join(kinds, " and ") + " would fail right now"}
	case inv.Listed || cn.Listed:
		out = verdict{Class: "partial", Headline: "Registered, but whether it can receive invoices and credit notes could not be checked just now"}
		out.Details = append(out.Details, "Its SMP's answers for them could not be read; try again later.")
	default:
		out = verdict{Class: "partial", Headline: "Registered, but not for invoices or credit notes"}
	}
	if len(v.Blocked) > 0 {
		var why []string
		for _, c := range v.Blocked {
			why = append(why, blockWords(c))
		}
		out.Details = append(out.Details, "Sending fails right now: "+strings.Join(why, "; ")+" (explained below).")
	}
	if v.FromList {
		out.Details = append(out.Details, "Judged from the document types its SMP lists; the endpoints could not be checked.")
	}
	if res != nil {
		var others []string
		for _, s := range res.Services {
			if k := s.DocumentType.Category; k != "" && k != kindInvoice && k != kindCreditNote && !slices.Contains(others, k) {
				others = append(others, k)
			}
		}
		if len(others) > 0 {
			out.Details = append(out.Details, "It also receives: "+strings.Join(others, ", ")+".")
		}
	}
	return out
}

// kindWords names a code-list category for people: "invoices", "credit notes".
func kindWords(kind string) string {
	switch kind {
	case kindInvoice:
		return "invoices"
	case kindCreditNote:
		return "credit notes"
	}
	return kind
}

// blockWords says in words for people what a blocking warning code (registry.Blocking)
// means for sending.
func blockWords(code string) string {
	switch code {
	case registry.WarnCertificateExpired:
		return "the access point's certificate has expired"
	case registry.WarnCertificateRevoked:
		return "the access point's certificate has been revoked"
	case registry.WarnCertificateChainInvalid:
		return "the access point's certificate is not issued by the Peppol access point CA"
	case registry.WarnServiceNotYetActive:
		return "the service is not active yet"
	case registry.WarnServiceExpired:
		return "the service has expired"
	case registry.WarnTransportProfileRemoved:
		return "the access point only speaks a transport profile Peppol has removed"
	case registry.WarnSMPSignatureInvalid:
		return "the SMP's answer is not validly signed"
	case registry.WarnSMPSignatureMissing:
		return "the SMP's answer is not signed"
	case registry.WarnSMPCertificateNotPeppol:
		return "the SMP signs with a certificate not issued by the Peppol SMP CA"
	case registry.WarnEndpointNotFound:
		return "its SMP lists the document type but has no endpoint for it"
	}
	return "a problem with the access point"
}

// serviceRows flattens the services into one row per endpoint.
func serviceRows(services []registry.Service) []serviceRow {
	var rows []serviceRow
	for _, s := range services {
		doc := serviceRow{Document: nameOr(s.DocumentType.Name, s.DocumentType.Value), Kind: s.DocumentType.Category}
		if s.DocumentType.State == "deprecated" || s.DocumentType.State == "removed" {
			doc.State = s.DocumentType.State
		}
		if len(s.Processes) == 0 {
			doc.Process, doc.URL = "—", "could not be read"
			rows = append(rows, doc)
			continue
		}
		// An endpoint read from an answer not validly signed is marked "not
		// verified", never presented as the access point (docs/INTERFACE.md §2.5).
		doc.Unverified = slices.ContainsFunc(s.Warnings, func(w registry.Warning) bool { return registry.Unverified(w.Code) })
		for _, proc := range s.Processes {
			for _, e := range proc.Endpoints {
				row := doc
				row.Process = nameOr(proc.Process.Name, proc.Process.Value)
				row.URL = e.URL
				row.Transport = nameOr(e.TransportProfile.Name, e.TransportProfile.ID)
				row.Certificate = certificateText(e.Certificate)
				rows = append(rows, row)
			}
		}
	}
	return rows
}

func nameOr(name, id string) string {
	if name != "" {
		return name
	}
	return id
}

// certificateText says how long a certificate is valid and who issued it.
func certificateText(c *registry.CertificateInfo) string {
	if c == nil {
		return "none that can be read"
	}
	var s string
	switch {
	case c.Expired:
		s = "expired " + phrase.Plural(-c.DaysRemaining, "day") + " ago"
	default:
		s = "valid, " + phrase.Plural(c.DaysRemaining, "day") + " left"
	}
	if c.PeppolCA {
		s += fmt.Sprintf(" (%s)", c.PeppolCAName)
	} else {
		s += " (not issued by the Peppol access point CA)"
	}
	return s
}
