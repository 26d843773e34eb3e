package server

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/internal/httpx"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
)

// Error codes the HTTP layer adds to the registry's (docs/ARCHITECTURE.md §4). Each is in the
// status table below, next to the registry's codes.
const (
	// CodeRouteNotFound answers a path the API does not have (404).
	CodeRouteNotFound registry.Code = "route_not_found"
	// CodeMethodNotAllowed answers a method a path does not support (405, with Allow).
	CodeMethodNotAllowed registry.Code = "method_not_allowed"
	// CodeRateLimited answers a client over its rate limit (429, with Retry-After,
	// RateLimit-Policy and RateLimit).
	CodeRateLimited registry.Code = "rate_limited"
	// CodeForbidden answers a request /mcp refuses to serve because its Origin or Host
	// is not allowed (403; DNS-rebinding protection).
	CodeForbidden registry.Code = "forbidden"
	// CodeUnsupportedMediaType answers a POST /ask body that is not JSON, or a POST
	// /api/v1/check body that is not JSON, NDJSON or CSV (415).
	CodeUnsupportedMediaType registry.Code = "unsupported_media_type"
	// CodeBodyTooLarge answers a POST /api/v1/check body over the size limit (413).
	CodeBodyTooLarge registry.Code = "body_too_large"
	// CodeTooManyRows answers a POST /api/v1/check with more rows than one check
	// takes (413).
	CodeTooManyRows registry.Code = "too_many_rows"
	// CodeTooManyBulkRequests answers a POST /api/v1/check from a client that runs as
	// many checks at once as it may (429, with Retry-After).
	CodeTooManyBulkRequests registry.Code = "too_many_bulk_requests"
	// CodeTooManyStreams answers a GET /mcp from a client that holds as many open MCP
	// event streams as it may (429, with Retry-After).
	CodeTooManyStreams registry.Code = "too_many_streams"
	// CodeUnavailable answers a request the service cannot take now: it is shutting
	// down, or at a global limit (503, with Retry-After).
	CodeUnavailable registry.Code = "service_unavailable"
	// CodeInternal answers a bug or an unexpected failure (500); its message never
	// carries the cause.
	CodeInternal registry.Code = "internal_error"
)

// errorSpec is how one error code is rendered and documented: its HTTP status, the
// Cache-Control header (input errors are deterministic, so shared caches may keep
// them; upstream and internal failures must never be cached), when it is answered and
// what a client should do (for the OpenAPI document and llms-full.txt).
type errorSpec struct {
	status       int
	cacheControl string
	when, action string
}

// errorTable is the one table from error code to HTTP status (docs/ARCHITECTURE.md §4). It is
// never written.
var errorTable = map[registry.Code]errorSpec{
	registry.CodeInvalidParticipantID: {http.StatusBadRequest, "public, max-age=3600",
		"the participant id is malformed: not 4 digits, a colon and letters, digits, '.', '_', '-' or '+'", "fix the id's form and retry"},
	registry.CodeMissingQuery: {http.StatusBadRequest, "public, max-age=3600",
		"the search has neither q nor country", "supply q, or country alone to count a country's participants"},
	registry.CodeQueryTooShort: {http.StatusBadRequest, "public, max-age=3600",
		"q is shorter than 2 characters", "supply at least 2 characters"},
	registry.CodeInvalidRequest: {http.StatusBadRequest, "public, max-age=3600",
		"a parameter or body is invalid: q over 200 characters, country not two letters, an /ask body that is not {\"query\": \"…\"} or a query over 500 characters, a check body without rows or that cannot be read, a document kind the code list does not have, an MCP argument unknown or of the wrong type", "fix the request as the message says"},
	// The registry caches "not registered" for about a minute; match it.
	registry.CodeNotFound: {http.StatusNotFound, "public, max-age=60",
		"the participant is not on the Peppol network: the SML does not know it and the Peppol Directory has no card", "do not retry; check the scheme and number, or search by name"},
	CodeRouteNotFound: {http.StatusNotFound, "public, max-age=300",
		"the path does not exist", "use a documented path (see /openapi.json)"},
	CodeMethodNotAllowed: {http.StatusMethodNotAllowed, "public, max-age=300",
		"the method is not supported on the path; Allow lists those that are", "use a method from Allow"},
	CodeUnsupportedMediaType: {http.StatusUnsupportedMediaType, "no-store",
		"the POST /ask body is not JSON; the POST /api/v1/check body is not JSON, NDJSON or CSV, not UTF-8, or compressed",
		"send Content-Type: application/json (for /api/v1/check also application/x-ndjson or text/csv), UTF-8, without Content-Encoding"},
	CodeBodyTooLarge: {http.StatusRequestEntityTooLarge, "no-store",
		"the POST /api/v1/check body is over its size limit (see Limits)", "split the rows into several checks"},
	CodeTooManyRows: {http.StatusRequestEntityTooLarge, "no-store",
		"the POST /api/v1/check body holds more rows than one check takes (see Limits)", "split the rows into several checks"},
	CodeTooManyBulkRequests: {http.StatusTooManyRequests, "no-store",
		"this client (its IP address, an IPv6 client's /64) already runs as many POST /api/v1/check requests at once as it may (see Limits)",
		"wait for a running check to finish, or Retry-After seconds; send more rows per check instead of more checks"},
	CodeTooManyStreams: {http.StatusTooManyRequests, "no-store",
		"this client (its IP address, an IPv6 client's /64) already holds as many open GET /mcp event streams as it may (see Limits)",
		"close one of its streams, or wait Retry-After seconds"},
	CodeForbidden: {http.StatusForbidden, "no-store",
		"/mcp refuses the request's Origin or Host (DNS-rebinding protection)", "use the service's own address; the operator can allow other origins and hosts"},
	CodeRateLimited: {http.StatusTooManyRequests, "no-store",
		"this client (its IP address, an IPv6 client's /64) made more requests to the endpoint's class (REST API, /ask, /mcp or the documents) than its rate limit allows; RateLimit-Policy names the limit",
		"wait Retry-After seconds, then retry; pace requests by the RateLimit header (r requests left, full again in t seconds)"},
	CodeUnavailable: {http.StatusServiceUnavailable, "no-store",
		"the service is shutting down, or at a global limit (e.g. of open MCP event streams, of bulk checks running)", "retry after Retry-After seconds; another instance may answer"},
	registry.CodeLookupFailed: {http.StatusBadGateway, "no-store",
		"the Peppol network (SML DNS, the SMP or the Directory) failed during a lookup", "retry with exponential backoff"},
	registry.CodeSearchFailed: {http.StatusBadGateway, "no-store",
		"the Peppol Directory failed or rate-limited the search", "retry after Retry-After when given, else with exponential backoff"},
	registry.CodeStatsUnavailable: {http.StatusServiceUnavailable, "no-store",
		"GET /api/v1/stats or network_statistics on a network without a Directory mirror (the server runs without -mirror, or the network is not the mirrored one), or whose mirror holds no data yet or cannot be read (then with Retry-After)",
		"use a server or network with a mirror; when Retry-After is given, retry after it"},
	nlq.CodeAskFailed: {http.StatusBadGateway, "no-store",
		"the Peppol network failed while answering the question", "retry with exponential backoff"},
	CodeInternal: {http.StatusInternalServerError, "no-store",
		"a bug; the message names the request id", "report the request id; retry later"},
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

// ErrorDocs returns the error table as documentation: every code with its HTTP
// status, when it is answered and what a client should do, ordered by status and
// code. The README's error table comes from it; the OpenAPI document and
// llms-full.txt list the same table ordered by code (errorDocsByCode).
func ErrorDocs() []discovery.ErrorCode {
	out := errorDocsByCode()
	slices.SortStableFunc(out, func(a, b discovery.ErrorCode) int { return a.Status - b.Status })
	return out
}

// errorDocsByCode is the error table as documentation, ordered by code.
func errorDocsByCode() []discovery.ErrorCode {
	out := make([]discovery.ErrorCode, 0, len(errorTable))
	for _, c := range Codes() {
		spec := errorTable[c]
		out = append(out, discovery.ErrorCode{Code: c, Status: spec.status, When: spec.when, Action: spec.action})
	}
	return out
}

// Status returns the HTTP status of an error code, and 500 for a code the table does
// not know.
func Status(code registry.Code) int {
	if s, ok := errorTable[code]; ok {
		return s.status
	}
	return http.StatusInternalServerError
}

// errorBody is the JSON error object of docs/INTERFACE.md §2.4.
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

// writeError renders err as the error object of docs/INTERFACE.md §2.4. A *registry.Error with a code from
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
	cc := spec.cacheControl
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		// An answer to a POST (a body that timed out, was cut or refused) says
		// nothing about the next one.
		cc = "no-store"
	}
	h.Set("Cache-Control", cc)
	if known && re.RetryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(httpx.RetryAfterSeconds(re.RetryAfter), 10))
	}
	s.writeJSON(w, r, spec.status, errorBody{detail})
}

func internalMessage(r *http.Request) string {
	return "internal error; please retry later and report request id " + RequestID(r.Context()) + " if it persists"
}
