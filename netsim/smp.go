package netsim

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/peppolgate/peppolgate/peppol"
)

const (
	smpContentType = "text/xml;charset=UTF-8"
	smpNotFound    = `<?xml version="1.0" encoding="UTF-8"?>` + "\n<!-- Not found -->\n"
)

// smpServer is one running SMP host.
type smpServer struct {
	host     int
	url      string // scheme://127.0.0.1:port + base path, no trailing slash
	naptrURL string // url as the NAPTR record publishes it
}

func (n *Network) startSMPs() error {
	for i, h := range n.ds.SMPHosts {
		s := &smpServer{host: i}
		n.smp = append(n.smp, s)
		root, err := n.serveHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.serveSMP(s, w, r) }))
		if err != nil {
			return err
		}
		s.url = root + h.BasePath
		s.naptrURL = s.url
		if h.NAPTRTrailingSlash {
			s.naptrURL += "/"
		}
	}
	return nil
}

func smpErrorBody(status int) []byte {
	if status == http.StatusNotFound {
		return []byte(smpNotFound)
	}
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<!-- " + http.StatusText(status) + " -->\n")
}

// serveSMP answers the Peppol SMP 1.x read API:
//
//	GET {base}/{pct(iso6523-actorid-upis::<id>)}                      → ServiceGroup
//	GET {base}/{pct(iso6523-actorid-upis::<id>)}/services/{pct(doc)}  → SignedServiceMetadata
//
// The path is decoded from the escaped form so that %2F, %23 and %2B inside an
// identifier stay part of it; '+' is never turned into a space.
func (n *Network) serveSMP(s *smpServer, w http.ResponseWriter, r *http.Request) {
	host := n.ds.SMPHosts[s.host]
	cnt := &n.hits.smp[s.host]
	// In flight until the answer starts: a client that has its answer has been
	// counted out, so a cap it keeps shows up here exactly.
	cnt.enter()
	lw := &leaveOnWrite{ResponseWriter: w, leave: cnt.leave}
	defer lw.done()
	w = lw
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")

	path := r.URL.EscapedPath()
	rest, ok := strings.CutPrefix(path, host.BasePath+"/")
	var segs []string
	if ok {
		segs = strings.Split(rest, "/")
	}
	isSG := len(segs) == 1 && segs[0] != ""
	isSM := len(segs) == 3 && segs[0] != "" && segs[1] == "services" && segs[2] != ""
	switch {
	case r.Method != http.MethodGet:
		cnt.other.Add(1)
	case isSG:
		cnt.sg.Add(1)
	case isSM:
		cnt.sm.Add(1)
	default:
		cnt.other.Add(1)
	}

	// Find the participant first: a participant fault wins over the host fault.
	var p *Participant
	if isSG || isSM {
		p = n.smpParticipant(s.host, segs[0], isSM)
	}
	targets := []Target{SMPHostTarget(s.host)}
	if p != nil {
		targets = []Target{ParticipantTarget(p.ID), SMPHostTarget(s.host)}
	}
	f := n.faults.get(targets...)
	n.log.Debug("netsim: smp request", "host", s.host, "method", r.Method, "path", path, "found", p != nil)
	if n.preFault(w, r, f, smpContentType, smpErrorBody) {
		return
	}
	if r.Method != http.MethodGet {
		h.Set("Allow", http.MethodGet)
		n.write(w, r, f, http.StatusMethodNotAllowed, smpContentType, smpErrorBody(http.StatusMethodNotAllowed))
		return
	}
	if p == nil {
		n.write(w, r, f, http.StatusNotFound, smpContentType, smpErrorBody(http.StatusNotFound))
		return
	}
	if isSG {
		n.write(w, r, f, http.StatusOK, smpContentType, serviceGroupXML(host, s.url, p))
		return
	}
	doc, err := url.PathUnescape(segs[2])
	if err != nil {
		n.write(w, r, f, http.StatusNotFound, smpContentType, smpErrorBody(http.StatusNotFound))
		return
	}
	svc := findService(p, doc)
	if svc == nil {
		n.write(w, r, f, http.StatusNotFound, smpContentType, smpErrorBody(http.StatusNotFound))
		return
	}
	if svc.MetadataStatus != 0 {
		n.write(w, r, f, svc.MetadataStatus, smpContentType, smpErrorBody(svc.MetadataStatus))
		return
	}
	var body []byte
	key, cert := n.pki.signer(s.host, f.Signature)
	if base, ok := n.overrides.redirectFor(p.ID); ok {
		target := strings.TrimRight(base, "/") + "/" + peppol.PathEscape(p.ID.URI()) + "/services/" + peppol.PathEscape(svc.DocumentType.URI())
		body = redirectXML(host, host, target, key, cert)
	} else if p.RedirectHost >= 0 && p.RedirectHost != s.host {
		to := n.smp[p.RedirectHost]
		target := to.url + "/" + peppol.PathEscape(p.ID.URI()) + "/services/" + peppol.PathEscape(svc.DocumentType.URI())
		body = redirectXML(host, n.ds.SMPHosts[p.RedirectHost], target, key, cert)
	} else {
		body = serviceMetadataXML(host, p, svc, n.pki.ap, key, cert)
	}
	n.write(w, r, f, http.StatusOK, smpContentType, afterSigning(body, f.Signature))
}

// smpParticipant returns the participant an SMP host serves for the escaped path
// segment seg, or nil. Participant identifiers match case-insensitively; the scheme
// prefix is required. The redirect target host serves ServiceMetadata only.
func (n *Network) smpParticipant(host int, seg string, metadata bool) *Participant {
	raw, err := url.PathUnescape(seg)
	if err != nil {
		return nil
	}
	if len(raw) < len(peppol.ParticipantScheme)+2 || !strings.EqualFold(raw[:len(peppol.ParticipantScheme)+2], peppol.ParticipantScheme+"::") {
		return nil
	}
	id, err := peppol.ParseParticipantID(raw)
	if err != nil {
		return nil
	}
	p, ok := n.ds.Lookup(id)
	if !ok || !p.InSML || p.SMPNotFound {
		return nil
	}
	if p.SMPHost == host || metadata && p.RedirectHost == host {
		return p
	}
	return nil
}

// findService returns the service whose document type is doc ("scheme::value"); the
// scheme matches case-insensitively, the value exactly.
func findService(p *Participant, doc string) *ServiceInfo {
	scheme, value, ok := strings.Cut(doc, "::")
	if !ok {
		return nil
	}
	for i := range p.Services {
		d := p.Services[i].DocumentType
		if d.Value == value && strings.EqualFold(d.Scheme, scheme) {
			return &p.Services[i]
		}
	}
	return nil
}

// leaveOnWrite calls leave once, when the answer starts or, for a request never
// answered, when the handler returns.
type leaveOnWrite struct {
	http.ResponseWriter
	leave func()
	left  bool
}

func (w *leaveOnWrite) done() {
	if !w.left {
		w.left = true
		w.leave()
	}
}

func (w *leaveOnWrite) WriteHeader(status int) {
	w.done()
	w.ResponseWriter.WriteHeader(status)
}

func (w *leaveOnWrite) Write(b []byte) (int, error) {
	w.done()
	return w.ResponseWriter.Write(b)
}

// Flush lets body faults drip through the wrapper.
func (w *leaveOnWrite) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *leaveOnWrite) Unwrap() http.ResponseWriter { return w.ResponseWriter }
