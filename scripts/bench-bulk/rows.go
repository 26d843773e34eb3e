package main

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/peppolgate/peppolgate/netsim"
)

// pick is one distinct participant of the rows: its id as a ledger would hold it
// ("<scheme>:<value>") and the SMP host serving it.
type pick struct {
	id   string
	host int
}

// eligible reports whether a cold lookup of p costs exactly one ServiceGroup and one
// ServiceMetadata request on its own SMP host: it is in the SML, its SMP knows it,
// does not redirect and lists a document type.
func eligible(p *netsim.Participant) bool {
	return p.InSML && p.SMPHost >= 0 && !p.SMPNotFound && p.RedirectHost < 0 && len(p.Services) > 0
}

// selectRows picks distinct eligible participants of ds, in dataset order, the same
// number on every SMP host (the first hosts get one more when distinct is not a
// multiple of the hosts). It returns an error when ds has too few.
func selectRows(ds *netsim.Dataset, distinct int) ([]pick, error) {
	hosts := len(ds.SMPHosts)
	quota := make([]int, hosts)
	for h := range quota {
		quota[h] = distinct / hosts
		if h < distinct%hosts {
			quota[h]++
		}
	}
	out := make([]pick, 0, distinct)
	for i := range ds.Participants {
		p := &ds.Participants[i]
		if !eligible(p) || quota[p.SMPHost] == 0 {
			continue
		}
		quota[p.SMPHost]--
		out = append(out, pick{id: p.ID.String(), host: p.SMPHost})
		if len(out) == distinct {
			return out, nil
		}
	}
	return nil, fmt.Errorf("the dataset of %d participants has only %d eligible ones spread over its %d hosts; %d wanted", len(ds.Participants), len(out), hosts, distinct)
}

// generate returns a dataset with at least distinct eligible participants on each
// share of hosts: a little over what selectRows needs (about 93 % of generated
// participants are eligible, spread evenly but at random over the hosts), grown
// until selectRows succeeds.
func generate(seed int64, hosts, distinct int) (*netsim.Dataset, []pick, error) {
	n := distinct*5/4 + 200
	for range 5 {
		ds := netsim.Generate(netsim.DatasetConfig{Seed: seed, Participants: n, SMPHosts: hosts})
		picks, err := selectRows(ds, distinct)
		if err == nil {
			return ds, picks, nil
		}
		n = n * 3 / 2
	}
	return nil, nil, fmt.Errorf("no dataset of up to %d participants has %d eligible participants spread evenly over %d hosts", n, distinct, hosts)
}

// arrange puts picks in the order of -order: shuffled with seed, grouped by host
// (all of host 0 first: the worst case for an engine that takes rows in order), or
// host after host in turn.
func arrange(picks []pick, order string, seed int64, hosts int) []pick {
	out := slices.Clone(picks)
	switch order {
	case orderShuffled:
		r := rand.New(rand.NewPCG(uint64(seed), 0x5eed_b0c5))
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	case orderHosts:
		slices.SortStableFunc(out, func(a, b pick) int { return a.host - b.host })
	case orderRoundRobin:
		byHost := make([][]pick, hosts)
		for _, p := range picks {
			byHost[p.host] = append(byHost[p.host], p)
		}
		out = out[:0]
		for i := 0; len(out) < len(picks); i++ {
			for h := range byHost {
				if i < len(byHost[h]) {
					out = append(out, byHost[h][i])
				}
			}
		}
	}
	return out
}
