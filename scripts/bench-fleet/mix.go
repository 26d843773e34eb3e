package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/stack"
)

// kind is one class of request of the mix.
type kind int

const (
	kindLookup kind = iota
	kindSearch
	kindServices
	kindMCP
	numKinds
)

func (k kind) String() string {
	switch k {
	case kindLookup:
		return "lookup"
	case kindSearch:
		return "search"
	case kindServices:
		return "services"
	case kindMCP:
		return "mcp"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// request is one request of the benchmark: a GET of path, or with a body a POST of
// it (JSON-RPC to /mcp, in session when session is set).
type request struct {
	kind    kind
	path    string
	body    string
	session string
}

// mixShares are the shares of each kind in a mix, per mille.
type mixShares struct{ lookup, search, services int }

// population is what the mix asks for: registered participant ids (served by a
// working SMP, with a Directory card) and search queries (their names), each list in
// the order of its popularity, the most asked first.
type population struct {
	ids     []string
	queries []string
}

// demoPopulation returns the population of the demo dataset ds, in an order of
// popularity shuffled with seed.
func demoPopulation(ds *netsim.Dataset, seed uint64) population {
	var p population
	names := map[string]bool{}
	for i := range ds.Participants {
		pt := &ds.Participants[i]
		if !pt.InSML || pt.SMPNotFound || pt.Card == nil || len(pt.Card.Entities) == 0 || slices.Contains(stack.DemoFailingSMP(), pt.ID.String()) {
			continue
		}
		p.ids = append(p.ids, pt.ID.String())
		if e := pt.Card.Entities[0]; len(e.Names) > 0 && !names[e.Names[0].Name] {
			names[e.Names[0].Name] = true
			p.queries = append(p.queries, e.Names[0].Name)
		}
	}
	r := rand.New(rand.NewPCG(seed, 3))
	r.Shuffle(len(p.ids), func(i, j int) { p.ids[i], p.ids[j] = p.ids[j], p.ids[i] })
	r.Shuffle(len(p.queries), func(i, j int) { p.queries[i], p.queries[j] = p.queries[j], p.queries[i] })
	return p
}

// makeMix returns n requests: in every 1,000, the kinds in the proportions of shares
// (shuffled), each asking for an item of pop drawn with a Zipf popularity of exponent
// s (> 1): a few items asked often (cache hits after their first time), a long tail
// asked once (cold). The same seed gives the same requests.
func makeMix(pop population, n int, shares mixShares, s float64, seed uint64) []request {
	var block []kind
	for k, m := range map[kind]int{kindLookup: shares.lookup, kindSearch: shares.search, kindServices: shares.services} {
		for range m {
			block = append(block, k)
		}
	}
	slices.Sort(block) // map order is random; the shuffle below is seeded
	r := rand.New(rand.NewPCG(seed, 4))
	zIDs := rand.NewZipf(r, s, 1, uint64(len(pop.ids)-1))
	zQueries := rand.NewZipf(r, s, 1, uint64(len(pop.queries)-1))
	out := make([]request, 0, n)
	for len(out) < n {
		r.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
		for _, k := range block {
			if len(out) == n {
				break
			}
			switch k {
			case kindLookup:
				out = append(out, lookupRequest(pop.ids[zIDs.Uint64()]))
			case kindServices:
				out = append(out, request{kind: kindServices, path: "/api/v1/participant/" + url.PathEscape(pop.ids[zIDs.Uint64()]) + "/services"})
			case kindSearch:
				out = append(out, searchRequest(pop.queries[zQueries.Uint64()]))
			}
		}
	}
	return out
}

func lookupRequest(id string) request {
	return request{kind: kindLookup, path: "/api/v1/participant/" + url.PathEscape(id)}
}

func searchRequest(q string) request {
	return request{kind: kindSearch, path: "/api/v1/search?q=" + url.QueryEscape(q)}
}

// distinctShare returns the share of reqs that ask for something not asked before in
// reqs: the cold share of the mix.
func distinctShare(reqs []request) float64 {
	seen := map[string]bool{}
	for _, r := range reqs {
		seen[strings.ToLower(r.path)] = true
	}
	return float64(len(seen)) / float64(max(1, len(reqs)))
}

// latencies collects durations for quantiles.
type latencies struct{ d []time.Duration }

func (l *latencies) add(d time.Duration) { l.d = append(l.d, d) }

// merge adds o's durations.
func (l *latencies) merge(o *latencies) { l.d = append(l.d, o.d...) }

// quantile returns the q-quantile (nearest rank) of the durations; 0 when there are
// none.
func (l *latencies) quantile(q float64) time.Duration {
	if len(l.d) == 0 {
		return 0
	}
	slices.Sort(l.d)
	i := int(q*float64(len(l.d))+0.5) - 1
	return l.d[min(max(i, 0), len(l.d)-1)]
}
