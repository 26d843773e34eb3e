package server

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
)

// Error codes the HTTP layer adds to the registry's (ARCHITECTURE §4). Each is in the
// status table below, next to the registry's codes.
const (
	// CodeRouteNotFound answers a path the API does not have (404).
	CodeRouteNotFound registry.Code = "route_not_found"
	// CodeMethodNotAllowed answers a method a path does not support (405, with Allow).
	CodeMethodNotAllowed registry.Code = "method_not_allowed"
	// CodeRateLimited is reserved for a server-side rate limit (429, with Retry-After).
	CodeRateLimited registry.Code = "rate_limited"
	// CodeForbidden answers a request /mcp refuses to serve because its Origin or Host
	// is not allowed (403; DNS-rebinding protection).
	CodeForbidden registry.Code = "forbidden"
	// CodeUnsupportedMediaType answers a POST /ask body that is not JSON (415).
	CodeUnsupportedMediaType registry.Code = "unsupported_media_type"
	// CodeInternal answers a bug or an unexpected failure (500); its message never
	// carries the cause.
	CodeInternal registry.Code = "internal_error"
)

// errorSpec is how one error code is rendered: its HTTP status and the Cache-Control
// header. Input errors are deterministic, so shared caches may keep them; upstream and
// internal failures must never be cached.
type errorSpec struct {
	status       int
	cacheControl string
}

// errorTable is the one table from error code to HTTP status (ARCHITECTURE §4). It is
// never written.
var errorTable = map[registry.Code]errorSpec{
	registry.CodeInvalidParticipantID: {http.StatusBadRequest, "public, max-age=3600"},
	registry.CodeMissingQuery:         {http.StatusBadRequest, "public, max-age=3600"},
	registry.CodeQueryTooShort:        {http.StatusBadRequest, "public, max-age=3600"},
	registry.CodeInvalidRequest:       {http.StatusBadRequest, "public, max-age=3600"},
	// The registry caches "not registered" for about a minute; match it.
	registry.CodeNotFound:     {http.StatusNotFound, "public, max-age=60"},
	CodeRouteNotFound:         {http.StatusNotFound, "public, max-age=300"},
	CodeMethodNotAllowed:      {http.StatusMethodNotAllowed, "public, max-age=300"},
	CodeRateLimited:           {http.StatusTooManyRequests, "no-store"},
	CodeForbidden:             {http.StatusForbidden, "no-store"},
	CodeUnsupportedMediaType:  {http.StatusUnsupportedMediaType, "no-store"},
	nlq.CodeAskFailed:         {http.StatusBadGateway, "no-store"},
	registry.CodeLookupFailed: {http.StatusBadGateway, "no-store"},
	registry.CodeSearchFailed: {http.StatusBadGateway, "no-store"},
	CodeInternal:              {http.StatusInternalServerError, "no-store"},
}

// Codes returns every error code the HTTP API can answer with, sorted, so that
// documentation (OpenAPI, llms.txt) can be checked against the status table.
func Codes() []registry.Code {
	codes := make([]registry.Code, 0, len(errorTable))
	for c := range errorTable {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// Status returns the HTTP status of an error code, and 500 for a code the table does
// not know.
func Status(code registry.Code) int {
	if s, ok := errorTable[code]; ok {
		return s.status
	}
	return http.StatusInternalServerError
}

// errorBody is the JSON error object of interface spec §2.4.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    registry.Code `json:"code"`
	Message string        `json:"message"`
}

// apiError builds an error the adapter renders with code and message.
func apiError(code registry.Code, msg string) error {
	return &registry.Error{Code: code, Message: msg}
}

// writeError renders err as the spec's error object. A *registry.Error with a code from
// the table is shown as it is (its message is written to be safe for anyone); anything
// else is a 500 whose message only names the request id, and the cause goes to the log.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var re *registry.Error
	spec, known := errorSpec{}, false
	if errors.As(err, &re) {
		spec, known = errorTable[re.Code]
	}
	detail := errorDetail{}
	if known {
		detail = errorDetail{Code: re.Code, Message: re.Message}
		if spec.status >= 500 {
			s.log.LogAttrs(r.Context(), slog.LevelWarn, "request failed",
				slog.String("request_id", RequestID(r.Context())),
				slog.String("code", string(re.Code)),
				slog.String("error", err.Error()))
		}
	} else {
		spec = errorTable[CodeInternal]
		detail = errorDetail{Code: CodeInternal, Message: internalMessage(r)}
		s.log.LogAttrs(r.Context(), slog.LevelError, "internal error",
			slog.String("request_id", RequestID(r.Context())),
			slog.String("error", err.Error()))
	}
	h := w.Header()
	h.Set("Cache-Control", spec.cacheControl)
	if known && re.RetryAfter > 0 {
		h.Set("Retry-After", retryAfterSeconds(re.RetryAfter))
	}
	s.writeJSON(w, r, spec.status, errorBody{detail})
}

func internalMessage(r *http.Request) string {
	return "internal error; please retry later and report request id " + RequestID(r.Context()) + " if it persists"
}

// retryAfterSeconds renders d as a Retry-After delta in whole seconds, rounded up, so a
// client that obeys it never retries early.
func retryAfterSeconds(d time.Duration) string {
	sec := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(sec, 1), 10)
}
