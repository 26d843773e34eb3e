package server

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/peppolgate/peppolgate/internal/httpx"
	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/web"
)

// The pages for people (package web) live beside the API, outside the endpoint table:
// they are not part of the API the documents describe. They answer from the same
// networks (so the same caches), are charged to the same rate-limit classes as the
// API calls they make, and their errors take their status from the one error table.

// pageRoutes mounts the pages on r: GET and HEAD of /go, /search, /participant/{id}
// /stats and /assets/{name}. GET / (for browsers) and GET /ask (for browsers) are served by
// the index and by methodNotAllowed, so JSON clients keep their answers there.
func (s *Server) pageRoutes(r interface {
	Get(pattern string, h http.HandlerFunc)
	Head(pattern string, h http.HandlerFunc)
}) {
	for _, p := range []struct {
		pattern string
		l       *limiter
		h       handlerFunc
	}{
		{"/go", s.limitDocs, s.web.Go},
		{"/search", s.limitREST, s.web.Search},
		{"/participant/{participantId}", s.limitREST, s.web.Participant},
		{"/stats", s.limitREST, s.web.Stats},
		{"/assets/{name}", s.limitDocs, s.web.Asset},
	} {
		h := s.routePage(p.pattern, p.l, p.h)
		r.Get(p.pattern, h)
		r.Head(p.pattern, h)
	}
}

// routePage is route for a page: the pattern named for the metrics, the request
// charged to l, and any error, the limiter's refusal included, written as a page.
func (s *Server) routePage(pattern string, l *limiter, h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if rec := findRecorder(w); rec != nil {
			rec.route = pattern
		}
		if s.tracer != nil {
			nameSpan(r, pattern)
		}
		if l != nil {
			if err := s.charge(w, r, l); err != nil {
				s.writePageError(w, r, err)
				return
			}
		}
		s.servePage(w, r, h)
	}
}

// servePage runs a page handler and writes its error as a page.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, h handlerFunc) {
	if err := h(w, r); err != nil {
		s.writePageError(w, r, err)
	}
}

// writePageError is writeError for people: the same status, Cache-Control and
// Retry-After from the error table, and the same logging, as an HTML page with what
// to do. A client that does not prefer HTML (a program, curl) gets the API's JSON
// error instead.
func (s *Server) writePageError(w http.ResponseWriter, r *http.Request, err error) {
	if !prefersHTML(r.Header.Get("Accept")) {
		// A program that asked a page's address gets the API's JSON error.
		s.writeError(w, r, err)
		return
	}
	var re *registry.Error
	spec, known := errorSpec{}, false
	if errors.As(err, &re) {
		spec, known = errorTable[re.Code]
	}
	e := web.ErrorPage{RequestID: RequestID(r.Context())}
	if known {
		e.Code, e.Message = re.Code, re.Message
		switch re.Code {
		case CodeRouteNotFound:
			// The API's message lists its endpoints, for programs; a person wants the
			// page they meant.
			e.Message = "there is no page at " + phrase.Quote(r.URL.Path)
			e.Meant, e.MeantLabel = s.web.Meant(r)
		case CodeMethodNotAllowed:
			e.Message = "a browser opens this address, it cannot send it a " + phrase.Quote(r.Method)
			e.Meant, e.MeantLabel = s.web.Meant(r)
		case registry.CodeInvalidParticipantID:
			e.Meant, e.MeantLabel = s.web.Meant(r)
		}
		if re.RetryAfter > 0 {
			e.RetryAfter = httpx.RetryAfterSeconds(re.RetryAfter)
		}
		if spec.status >= 500 {
			s.log.LogAttrs(r.Context(), slog.LevelWarn, "request failed",
				slog.String("request_id", e.RequestID), slog.String("code", string(re.Code)), slog.String("error", err.Error()))
		}
	} else {
		spec = errorTable[CodeInternal]
		e.Code, e.Message = CodeInternal, internalMessage(r)
		s.log.LogAttrs(r.Context(), slog.LevelError, "internal error",
			slog.String("request_id", e.RequestID), slog.String("error", err.Error()))
	}
	e.Status, e.CacheControl = spec.status, spec.cacheControl
	if e.Status < 500 && e.Status != http.StatusTooManyRequests {
		// A page's input error is the browser's own: no shared cache keeps it.
		e.CacheControl = "private, max-age=60"
	}
	s.web.Error(w, r, e)
}

// askPage serves GET /ask to browsers (Accept: text/html first); it reports whether
// it did. Every other GET /ask keeps its 405.
func (s *Server) askPage(w http.ResponseWriter, r *http.Request) bool {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.URL.Path != "/ask" || !prefersHTML(r.Header.Get("Accept")) {
		return false
	}
	s.routePage("/ask", s.limitAsk, s.web.Ask)(w, r)
	return true
}
