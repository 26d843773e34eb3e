package server

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// participant serves GET /api/v1/participant/{participantId} (docs/INTERFACE.md §4.1).
func (s *Server) participant(w http.ResponseWriter, r *http.Request) error {
	id, err := participantParam(r)
	if err != nil {
		return err
	}
	reg, network, err := s.network(r)
	if err != nil {
		return err
	}
	p, fresh, err := reg.Lookup(r.Context(), id)
	if err != nil {
		return err
	}
	setFreshness(w.Header(), fresh)
	s.writeShared(w, r, http.StatusOK, p, network, func() any { return tools.ParticipantOn(p, network) })
	return nil
}

// services serves GET /api/v1/participant/{participantId}/services[?docType=].
func (s *Server) services(w http.ResponseWriter, r *http.Request) error {
	id, err := participantParam(r)
	if err != nil {
		return err
	}
	doc, err := tools.ParseDocType(r.URL.Query().Get("docType"))
	if err != nil {
		return err
	}
	reg, network, err := s.network(r)
	if err != nil {
		return err
	}
	res, fresh, err := reg.Services(r.Context(), id, doc)
	if err != nil {
		return err
	}
	setFreshness(w.Header(), fresh)
	s.writeShared(w, r, http.StatusOK, res, network, func() any { return tools.ServicesOn(res, network) })
	return nil
}

// network returns the registry of the network the request's network query parameter
// names (the default when it names none) and its name ("" when the server names no
// network). It returns a *registry.Error with CodeInvalidRequest, naming the offered
// networks, for a network that is unknown or not offered (tools.ParseNetwork).
func (s *Server) network(r *http.Request) (registry.Registry, string, error) {
	raw, _, err := queryValue(r.URL.RawQuery, "network")
	if err != nil {
		return nil, "", err
	}
	if s.nets == nil {
		if _, err := tools.ParseNetwork(raw, nil); err != nil {
			return nil, "", err
		}
		return s.reg, "", nil
	}
	return s.nets.Select(raw)
}

// participantParam reads the participant id from the path. Clients percent-encode it
// (0208%3A0677424046, iso6523-actorid-upis%3A%3A…) or not; both are accepted. chi
// routes on the raw path when the URL has one, so the parameter is decoded exactly
// once, and only then: decoding an already decoded value would turn "%2541" into "A".
// It returns an *registry.Error with CodeInvalidParticipantID.
func participantParam(r *http.Request) (peppol.ParticipantID, error) {
	raw := chi.URLParam(r, "participantId")
	if r.URL.RawPath != "" {
		dec, err := url.PathUnescape(raw)
		if err != nil {
			return peppol.ParticipantID{}, apiError(registry.CodeInvalidParticipantID,
				"participant id is not correctly percent-encoded; expected <scheme>:<value>, e.g. 0208:0677424046")
		}
		raw = dec
	}
	return tools.ParseParticipantID(raw)
}
