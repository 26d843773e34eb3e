package server

import (
	"net/http"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// statsMaxAge is how long a client may reuse the statistics: they change when the
// mirror syncs, at most a few times a day.
const statsMaxAge = "public, max-age=3600"

// stats serves GET /api/v1/stats?network=: the counts of the network's Directory
// mirror (registry.NetworkStats).
func (s *Server) stats(w http.ResponseWriter, r *http.Request) error {
	reg, network, err := s.network(r)
	if err != nil {
		return err
	}
	st, err := registry.NetworkStats(r.Context(), reg, network)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", statsMaxAge)
	s.writeJSON(w, r, http.StatusOK, st)
	return nil
}

// statsRoutes describes and serves the network statistics.
func (s *Server) statsRoutes(k docKit) []route {
	return []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/api/v1/stats", OperationID: "networkStatistics", Tag: "participants",
			Summary: "Count the network's participants",
			Description: "Counts over the Peppol Directory's business cards, from peppolgate's mirror of the Directory (`dataAsOf` says when the Directory exported it): " +
				"participants in all, by country (the 20 with the most, the rest together), by kind of business document their cards list (the Peppol code list's categories), " +
				"and by month of registration over the last 120 months. Counted once per mirror sync. The page /stats draws them. " +
				"Only a network with a mirror (-mirror) has statistics; others answer statistics_unavailable.",
			Params:    k.network(),
			Responses: k.jsonOK("The counts.", tools.StatsSchema()),
			Errors:    append([]registry.Code{registry.CodeInvalidRequest, registry.CodeStatsUnavailable}, commonErrors()...),
			Headers:   map[string]string{"Cache-Control": "how long the counts may be reused (an hour; they change when the mirror syncs)"},
		}, handler: s.stats, class: classREST},
	}
}
