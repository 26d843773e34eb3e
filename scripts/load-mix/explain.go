package main

import (
	"fmt"
	"sort"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
)

// faultPlan is the upstream faults of the in-stack run: from at, for length, SMP host
// smpHost answers smpStatus to everything and the Directory answers dirStatus with
// Retry-After retryAfter.
type faultPlan struct {
	at, length time.Duration
	smpHost    int
	smpStatus  int
	dirStatus  int
	retryAfter string
	// cooldown is how long the registry's circuit breakers stay open after the last
	// failure they saw: they fail fast without asking the recovered host until then.
	cooldown time.Duration
	// grace is how long after that a failure still counts as the faults' (answers
	// under way, a breaker's probe).
	grace time.Duration
}

// window returns when failures may be the faults', given when they were switched on
// and off.
func (p faultPlan) window(on, off time.Duration) window {
	return window{on, off, off + p.cooldown + p.grace}
}

// describe says what the plan does, for the report.
func (p faultPlan) describe() string {
	return fmt.Sprintf("from %v to %v: SMP host %d answers %d to every request; the Directory answers %d with Retry-After: %s",
		p.at, p.at+p.length, p.smpHost, p.smpStatus, p.dirStatus, p.retryAfter)
}

// events returns the actions that switch the faults on and off through ctl; snap(1)
// runs before the faults go on, snap(2) after they are off.
func (p faultPlan) events(ctl *controller, snap func(i int)) []event {
	return []event{
		{at: p.at, name: "faults on", run: func() error {
			snap(1)
			if _, err := ctl.do(fmt.Sprintf("fault smp %d %d", p.smpHost, p.smpStatus)); err != nil {
				return err
			}
			_, err := ctl.do(fmt.Sprintf("fault directory %d %s", p.dirStatus, p.retryAfter))
			return err
		}},
		{at: p.at + p.length, name: "faults off", run: func() error {
			_, err := ctl.do("clear")
			snap(2)
			return err
		}},
	}
}

// window is when failures count as caused by the faults, as offsets of the run: from
// the faults' start to, after their end, the breakers' cooldown and a grace.
type window struct{ from, end, to time.Duration }

// verdict is the classification of a run's failures.
type verdict struct {
	explained, unexplained int
	// reasons counts failures by reason, explained or not.
	reasons map[string]int
	// examples are a few unexplained failures, described.
	examples []string
}

// explain classifies every failure: explained when the faults account for it (see
// explainOne), unexplained otherwise. win is nil for a run without faults.
func explain(fails []failure, win *window, affected func(id string) bool) verdict {
	v := verdict{reasons: map[string]int{}}
	for _, f := range fails {
		ok, reason := explainOne(f, win, affected)
		if ok {
			v.explained++
			reason = "explained: " + reason
		} else {
			v.unexplained++
			reason = "UNEXPLAINED: " + reason
			if len(v.examples) < 10 {
				v.examples = append(v.examples, fmt.Sprintf("%s %s sent at %.2f s, status %d code %q transport %q",
					f.kind, f.id, f.sent.Seconds(), f.status, f.code, f.transport))
			}
		}
		v.reasons[reason]++
	}
	return v
}

// explainOne says whether the faults explain f, and why. A failure is theirs when it
// overlaps the window and has the code the faults must produce for its kind: a
// lookup's lookup_failed for a participant served by the failing SMP host or known
// only to the Directory, a search's search_failed, an /ask's ask_failed. Transport
// failures and internal_error are never explained.
func explainOne(f failure, win *window, affected func(id string) bool) (bool, string) {
	switch {
	case f.transport != "":
		return false, "transport failure (" + f.transport + ")"
	case f.code == "internal_error":
		return false, "500 internal_error"
	case win == nil:
		return false, fmt.Sprintf("%s %d %s without faults", f.kind, f.status, f.code)
	case f.done < win.from || f.sent > win.to:
		return false, fmt.Sprintf("%s %d %s outside the fault window", f.kind, f.status, f.code)
	}
	when := "during the faults"
	if f.sent >= win.end {
		when = "after the faults, within the breakers' cooldown"
	}
	switch f.kind {
	case lookupHot, lookupCold:
		if f.code != "lookup_failed" {
			break
		}
		if affected(f.id) {
			return true, "lookup_failed of a participant on the failing SMP host or only in the Directory, " + when
		}
		return false, "lookup_failed of a participant the faults do not touch"
	case searchName, searchVAT, searchCold:
		if f.code == "search_failed" {
			return true, "search_failed (the Directory answers 429), " + when
		}
	case askJSON, askSSE, askCold:
		if f.code == "ask_failed" {
			if f.status == 200 {
				return true, "ask_failed in a stream's complete event, " + when
			}
			return true, "502 ask_failed, " + when
		}
	}
	return false, fmt.Sprintf("%s %d %s is not what the faults cause", f.kind, f.status, f.code)
}

// affectedBy returns whether a lookup of id can fail while SMP host host fails and the
// Directory rate-limits: the participant is served by that host (or redirected to it),
// or the SML does not know it, so only the Directory could answer.
func affectedBy(ds *netsim.Dataset, host int) func(id string) bool {
	return func(id string) bool {
		pid, err := peppol.ParseParticipantID(id)
		if err != nil {
			return false
		}
		p, ok := ds.Lookup(pid)
		if !ok {
			return false
		}
		return !p.InSML || p.SMPHost == host || p.RedirectHost == host
	}
}

// sortedCounts returns m's keys by descending count, then by name.
func sortedCounts(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
