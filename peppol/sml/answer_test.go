package sml

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// hostileZone is the zone of the alias tests; hostileQName is testID's name in it.
const hostileZone = "zone.example"

var hostileQName = dns.Fqdn(NAPTRName(testID, hostileZone))

// Answers built to make alias following explode or loop must end in a prompt DNS
// failure. Before the chain walk, the first case kept Lookup busy for more than 20 s with
// growing memory, ignoring its context.
func TestLookupHostileAliases(t *testing.T) {
	q := hostileQName
	naptr := func(owner string) string {
		return owner + ` 60 IN NAPTR 100 10 "U" "Meta:SMP" "!.*!https://smp.example.com/!" .`
	}
	// A CNAME chain q → c1 → … → cN with the NAPTR at cN.
	chain := func(n int) []string {
		rrs := []string{}
		prev := q
		for i := 1; i <= n; i++ {
			next := "c" + strconv.Itoa(i) + ".example.net."
			rrs = append(rrs, prev+" 300 IN CNAME "+next)
			prev = next
		}
		return append(rrs, naptr(prev))
	}
	tests := []struct {
		name string
		rrs  []string
		msg  string
	}{
		{
			name: "three DNAMEs at one owner pointing below it, six fillers",
			rrs: []string{
				hostileZone + `. 60 IN DNAME x0.` + hostileZone + `.`,
				hostileZone + `. 60 IN DNAME x1.` + hostileZone + `.`,
				hostileZone + `. 60 IN DNAME x2.` + hostileZone + `.`,
				`f0.` + hostileZone + `. 60 IN TXT "filler"`,
				`f1.` + hostileZone + `. 60 IN TXT "filler"`,
				`f2.` + hostileZone + `. 60 IN A 192.0.2.1`,
				`f3.` + hostileZone + `. 60 IN A 192.0.2.2`,
				naptr(`f4.` + hostileZone + `.`),
				naptr(`f5.` + hostileZone + `.`),
			},
			msg: "two different DNAME records",
		},
		{
			name: "one DNAME pointing below itself",
			rrs:  []string{hostileZone + `. 60 IN DNAME x0.` + hostileZone + `.`, naptr(q)},
			msg:  "longer than 8 links",
		},
		{
			name: "DNAME synthesising a name over 255 bytes",
			rrs:  []string{hostileZone + `. 60 IN DNAME ` + strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + ".example."},
			msg:  "longer than 255 bytes",
		},
		{
			name: "two CNAMEs for the question name",
			rrs:  []string{q + ` 60 IN CNAME a.example.net.`, q + ` 60 IN CNAME b.example.net.`, naptr("a.example.net."), naptr("b.example.net.")},
			msg:  "two CNAME records",
		},
		{
			name: "CNAME chain of 9 links",
			rrs:  chain(9),
			msg:  "longer than 8 links",
		},
		{
			name: "DNAMEs at two levels",
			rrs: []string{
				hostileZone + `. 60 IN DNAME other.example.`,
				`iso6523-actorid-upis.` + hostileZone + `. 60 IN DNAME other.example.`,
			},
			msg: "two different DNAME records",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rrs := make([]dns.RR, 0, len(tt.rrs))
			for _, s := range tt.rrs {
				rrs = append(rrs, mustRR(t, s))
			}
			srv := startServer(t, answer(rrs...))
			r := newTestResolver(t, Config{Servers: []string{srv.addr}, Zone: hostileZone, Attempts: 1})
			done := make(chan error, 1)
			go func() { _, err := r.Lookup(context.Background(), testID); done <- err }()
			var err error
			// Not a timing assertion: the guard only turns a hang into a readable failure.
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("Lookup did not return")
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindDNSFailure {
				t.Fatalf("Lookup error = %v, want a DNS failure", err)
			}
			checkClass(t, err, KindDNSFailure)
			if !strings.Contains(err.Error(), "malformed reply") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q lacks \"malformed reply\" and %q", err, tt.msg)
			}
		})
	}
}

func TestNAPTRForChains(t *testing.T) {
	q := hostileQName
	rr := func(s string) dns.RR { return mustRR(t, s) }
	smpRR := func(owner string, ttl int) dns.RR {
		return rr(owner + " " + strconv.Itoa(ttl) + ` IN NAPTR 100 10 "U" "Meta:SMP" "!.*!https://smp.example.com/!" .`)
	}
	var eight []dns.RR
	prev := q
	for i := 1; i <= 8; i++ {
		next := "c" + strconv.Itoa(i) + ".example.net."
		eight = append(eight, rr(prev+" "+strconv.Itoa(100+i)+" IN CNAME "+next))
		prev = next
	}
	eight = append(eight, smpRR(prev, 500))
	tests := []struct {
		name    string
		answer  []dns.RR
		want    int // records found
		wantTTL uint32
	}{
		{"direct", []dns.RR{smpRR(q, 60), smpRR("other.example.", 60)}, 1, 60},
		{"eight links are allowed", eight, 1, 101},
		{"duplicate CNAME tolerated", []dns.RR{rr(q + " 50 IN CNAME a.example.net."), rr(q + " 40 IN CNAME A.example.net."), smpRR("a.example.net.", 60)}, 1, 40},
		{"DNAME and its synthesised CNAME", []dns.RR{
			rr(hostileZone + ". 30 IN DNAME other.example."),
			rr(q + " 30 IN CNAME " + strings.TrimSuffix(q, hostileZone+".") + "other.example."),
			smpRR(strings.TrimSuffix(q, hostileZone+".")+"other.example.", 60),
		}, 1, 30},
		{"DNAME to the root", []dns.RR{rr(hostileZone + ". 20 IN DNAME ."), smpRR(strings.TrimSuffix(q, hostileZone+"."), 60)}, 1, 20},
		{"DNAME at the name itself does not apply", []dns.RR{rr(q + " 20 IN DNAME other.example."), smpRR(q, 60)}, 1, 60},
		{"records of intermediate names are not the answer", []dns.RR{rr(q + " 60 IN CNAME a.example.net."), smpRR(q, 60)}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := naptrFor(tt.answer, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Fatalf("found %d records, want %d", len(got), tt.want)
			}
			if tt.want > 0 && got[0].ttl != tt.wantTTL {
				t.Errorf("ttl = %d, want %d", got[0].ttl, tt.wantTTL)
			}
		})
	}
}

// FuzzNAPTRFor feeds answers given as zone-file lines (one record a line) to the chain
// walk: it must never panic, and what it returns must be owned by a name it may trust.
func FuzzNAPTRFor(f *testing.F) {
	f.Add(hostileZone + ". 60 IN DNAME x0." + hostileZone + ".\n" + hostileZone + ". 60 IN DNAME x1." + hostileZone + ".")
	f.Add(hostileQName + " 60 IN CNAME a.example.net.\na.example.net. 30 IN NAPTR 100 10 \"U\" \"Meta:SMP\" \"!.*!https://smp.example.com/!\" .")
	f.Add(hostileZone + ". 60 IN DNAME .\n" + hostileQName + " 60 IN CNAME " + hostileQName)
	f.Fuzz(func(t *testing.T, zone string) {
		var answer []dns.RR
		for line := range strings.Lines(zone) {
			if rr, err := dns.NewRR(line); err == nil && rr != nil {
				answer = append(answer, rr)
			}
			if len(answer) > 64 {
				break
			}
		}
		recs, err := naptrFor(answer, hostileQName)
		if err != nil && recs != nil {
			t.Fatalf("records %v with error %v", recs, err)
		}
		for _, r := range recs {
			if r.ttl > r.rr.Hdr.Ttl {
				t.Fatalf("ttl %d above the record's %d", r.ttl, r.rr.Hdr.Ttl)
			}
		}
	})
}
