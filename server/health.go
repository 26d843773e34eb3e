package server

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/registry"
)

type statusBody struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	// Mirror is the Directory mirror's state, on /readyz when one is configured.
	Mirror *mirror.Status `json:"mirror,omitempty" jsonschema:"the local copy of the Peppol Directory, when the service runs with one (readiness only)"`
	// SML is whether each network's SML zone resolves, on /readyz when known.
	// Redis is the shared Redis's health, on /readyz when the service runs with one.
	Redis *fleet.Status        `json:"redis,omitempty" jsonschema:"the Redis this replica shares its cache, limits and sessions with, when it runs with one (-redis; readiness only). Redis trouble never makes the service unready: the replica serves from its own state meanwhile"`
	SML   []registry.SMLStatus `json:"sml,omitempty" jsonschema:"for each network, whether its SML zone resolves through the DNS servers peppolgate asks (readiness only); while a DNS server answers that the default network's zone does not exist (noSuchZone), /readyz answers 503"`
}

// healthz is the liveness probe: the process serves HTTP, nothing more.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, r, http.StatusOK, statusBody{Status: "ok"})
	return nil
}

// readyz is the readiness probe: 503 while Config.Ready fails (e.g. during shutdown), or
// while a DNS server answers that the default network's SML zone does not exist
// (SMLStatus.NoSuchZone: no lookup of it could tell a registered participant from an
// unregistered one; a resolver that answers NXDOMAIN for every name, docs/INTERFACE.md
// §4.6). A zone check that fails in a way that may pass (a timeout, SERVFAIL, a check
// that did not finish) is reported but keeps the service ready, so that a slow DNS
// server does not take every replica out of rotation; so does another network's zone
// failing: its default network still answers.
// The cause of a failing Config.Ready goes to the log only, because it may name internal
// hosts; the SML statuses name none.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if s.ready != nil {
		if err := s.ready(ctx); err != nil {
			s.log.LogAttrs(r.Context(), slog.LevelWarn, "not ready",
				slog.String("request_id", RequestID(r.Context())), slog.String("error", err.Error()))
			s.writeJSON(w, r, http.StatusServiceUnavailable,
				statusBody{Status: "unavailable", Message: "the service is not ready to take traffic; retry shortly"})
			return nil
		}
	}
	body := statusBody{Status: "ok"}
	status := http.StatusOK
	if s.mirror != nil {
		m := s.mirror()
		body.Mirror = &m
	}
	if s.fleet != nil {
		st := s.fleet.Status()
		body.Redis = &st
	}
	if s.sml != nil {
		body.SML = s.sml(ctx)
		def := s.nets.Default()
		for _, st := range body.SML {
			if st.Network != def || st.OK || !st.NoSuchZone {
				continue
			}
			// Debug: the registry logs the cause once (naming the DNS servers), not once
			// per probe.
			s.log.LogAttrs(r.Context(), slog.LevelDebug, "not ready",
				slog.String("request_id", RequestID(r.Context())), slog.String("network", def), slog.String("error", st.Message))
			status, body.Status = http.StatusServiceUnavailable, "unavailable"
			which := "the network's"
			if def != "" {
				which = "the default network's (" + def + ")"
			}
			body.Message = "the service cannot tell registered participants from unregistered ones: " + which +
				" SML zone does not exist for the DNS servers it asks (see sml); lookups fail with lookup_failed until it does. Check the DNS servers (e.g. -dns-server) and retry shortly"
		}
	}
	s.writeJSON(w, r, status, body)
	return nil
}

// healthRoutes describes and serves liveness, readiness and metrics (docs/INTERFACE.md §4).
func (s *Server) healthRoutes(k docKit) []route {
	return []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/healthz", OperationID: "healthz", Tag: "health",
			Summary: "Liveness", Description: "200 while the process serves HTTP.",
			Responses: k.jsonOK("Alive.", k.status),
			Errors:    commonErrors(),
		}, handler: s.healthz},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/readyz", OperationID: "readyz", Tag: "health",
			Summary: "Readiness", Description: "200 when the service takes traffic, 503 while it does not (e.g. shutting down, or while a DNS server peppolgate asks answers that the default network's SML zone does not exist, as a resolver that answers NXDOMAIN for every name does: no lookup could then tell a registered participant from an unregistered one; `sml[].noSuchZone` is then true). `sml` says, for each network, whether its SML zone resolves; a check that fails in a way that may pass (a timeout, SERVFAIL, a check that did not finish) is shown as `ok: false` with its cause but keeps the service ready, and so does another network's zone failing. With a Directory mirror, the answer also says how old its data is (mirror.dataAsOf, mirror.state); a stale or empty mirror does not make the service unready, because the live Directory answers instead.",
			Responses: []discovery.Response{
				{Status: http.StatusOK, Description: "Ready.", MediaType: "application/json", Schema: k.status},
				{Status: http.StatusServiceUnavailable, Description: "Not ready; retry shortly.", MediaType: "application/json", Schema: k.status},
			},
			Errors: commonErrors(),
		}, handler: s.readyz},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: metricsPath, OperationID: "metrics", Tag: "health",
			Summary: "Prometheus metrics",
			Description: "Counters, gauges and histograms in the Prometheus text format (version 0.0.4), whatever Accept asks for: " +
				"`peppolgate_http_requests_total` (method, route pattern, status), `peppolgate_http_request_duration_seconds` (method, route), " +
				"`peppolgate_http_event_streams_in_flight` (route), `peppolgate_http_rate_limited_total` (class), " +
				"`peppolgate_upstream_requests_total` and `peppolgate_upstream_request_duration_seconds` (kind: sml, smp, directory; outcome), " +
				"`peppolgate_cache_requests_total` (kind: lookup, search; result: hit, miss, stale), `peppolgate_build_info`, and the Go runtime's and the process's. " +
				"Rate limited per client at the REST API's rate, in the buckets of the documents (loopback is exempt by default, so a local scraper is not); logged at debug level only.",
			Responses: []discovery.Response{{Status: http.StatusOK, Description: "The metrics.", MediaType: "text/plain", Schema: &jsonschema.Schema{Type: "string"}}},
			Errors:    commonErrors(),
		}, handler: s.metricsEndpoint, class: classDocs},
	}
}
