package main

import (
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/stack"
)

func TestExplainOne(t *testing.T) {
	ds := stack.DemoDataset()
	affected := affectedBy(ds, 0)
	var onHost0, onHost1 string
	for _, p := range ds.Participants {
		switch {
		case onHost0 == "" && p.InSML && p.SMPHost == 0 && p.RedirectHost == -1:
			onHost0 = p.ID.String()
		case onHost1 == "" && p.InSML && p.SMPHost == 1 && p.RedirectHost == -1:
			onHost1 = p.ID.String()
		}
	}
	if onHost0 == "" || onHost1 == "" {
		t.Fatal("no participants on SMP hosts 0 and 1 in the demo dataset")
	}
	s := time.Second
	win := &window{20 * s, 40 * s, 50 * s}
	tests := []struct {
		name   string
		f      failure
		win    *window
		want   bool
		reason string
	}{
		{"lookup on the failing host", failure{kind: lookupCold, id: onHost0, sent: 25 * s, done: 25 * s, status: 502, code: "lookup_failed"}, win, true, "failing SMP host"},
		{"directory-only lookup", failure{kind: lookupCold, id: netsim.KnownDirectoryOnly, sent: 25 * s, done: 25 * s, status: 502, code: "lookup_failed"}, win, true, "only in the Directory"},
		{"lookup on a healthy host", failure{kind: lookupCold, id: onHost1, sent: 25 * s, done: 25 * s, status: 502, code: "lookup_failed"}, win, false, "do not touch"},
		{"search during the faults", failure{kind: searchCold, sent: 30 * s, done: 30 * s, status: 502, code: "search_failed"}, win, true, "429), during"},
		{"lookup after the faults", failure{kind: lookupCold, id: onHost0, sent: 45 * s, done: 45 * s, status: 502, code: "lookup_failed"}, win, true, "cooldown"},
		{"lookup of a healthy host after the faults", failure{kind: lookupCold, id: onHost1, sent: 45 * s, done: 45 * s, status: 502, code: "lookup_failed"}, win, false, "do not touch"},
		{"ask in a stream", failure{kind: askSSE, sent: 30 * s, done: 30 * s, status: 200, code: "ask_failed"}, win, true, "stream"},
		{"ask as JSON", failure{kind: askCold, sent: 30 * s, done: 30 * s, status: 502, code: "ask_failed"}, win, true, "502 ask_failed"},
		{"started before, ended during", failure{kind: searchCold, sent: 19 * s, done: 21 * s, status: 502, code: "search_failed"}, win, true, "429"},
		{"before the faults", failure{kind: searchCold, sent: 10 * s, done: 10 * s, status: 502, code: "search_failed"}, win, false, "outside"},
		{"after the grace", failure{kind: searchCold, sent: 51 * s, done: 51 * s, status: 502, code: "search_failed"}, win, false, "outside"},
		{"no faults at all", failure{kind: searchCold, sent: 30 * s, done: 30 * s, status: 502, code: "search_failed"}, nil, false, "without faults"},
		{"internal error", failure{kind: lookupHot, id: onHost0, sent: 30 * s, done: 30 * s, status: 500, code: "internal_error"}, win, false, "internal_error"},
		{"transport failure", failure{kind: lookupHot, sent: 30 * s, done: 30 * s, transport: "timeout"}, win, false, "transport"},
		{"wrong code for the kind", failure{kind: searchName, sent: 30 * s, done: 30 * s, status: 502, code: "lookup_failed"}, win, false, "not what the faults cause"},
		{"a 503", failure{kind: lookupCold, id: onHost0, sent: 30 * s, done: 30 * s, status: 503, code: "unavailable"}, win, false, "not what the faults cause"},
	}
	for _, tt := range tests {
		ok, reason := explainOne(tt.f, tt.win, affected)
		if ok != tt.want || !strings.Contains(reason, tt.reason) {
			t.Errorf("%s: %v %q, want %v and a reason with %q", tt.name, ok, reason, tt.want, tt.reason)
		}
	}
	v := explain([]failure{tests[0].f, tests[2].f, tests[3].f}, win, affected)
	if v.explained != 2 || v.unexplained != 1 || len(v.examples) != 1 {
		t.Errorf("explain: %+v, want 2 explained, 1 unexplained with an example", v)
	}
}
