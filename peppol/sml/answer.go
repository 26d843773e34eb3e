package sml

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/miekg/dns"
)

// Service and flag of the Peppol U-NAPTR record (SML 1.3.0: "The NAPTR service name MUST
// be Meta:SMP").
const (
	naptrFlagU      = "U"
	naptrServiceSMP = "Meta:SMP"
)

// ownedNAPTR is a NAPTR record that answers the question, with the smallest TTL along
// the alias chain that led to it, since the answer is only valid as long as every link.
type ownedNAPTR struct {
	rr  *dns.NAPTR
	ttl uint32
}

// naptrFor returns the NAPTR records in answer owned by qname or by a name reached from
// qname through CNAME or DNAME records in the same answer. Records for unrelated owners
// are ignored: a resolver must not trust data it did not ask for.
func naptrFor(answer []dns.RR, qname string) []ownedNAPTR {
	names := map[string]uint32{canonical(qname): math.MaxUint32}
	// Each pass can add at most one link per record; more passes cannot add anything.
	for range len(answer) + 1 {
		added := false
		for _, rr := range answer {
			owner := canonical(rr.Header().Name)
			switch a := rr.(type) {
			case *dns.CNAME:
				if ttl, ok := names[owner]; ok {
					added = addName(names, canonical(a.Target), min(ttl, a.Hdr.Ttl)) || added
				}
			case *dns.DNAME:
				target := canonical(a.Target)
				var found []string
				for n := range names {
					if n != owner && strings.HasSuffix(n, "."+owner) {
						found = append(found, n)
					}
				}
				for _, n := range found {
					sub := n[:len(n)-len(owner)] + target
					added = addName(names, sub, min(names[n], a.Hdr.Ttl)) || added
				}
			}
		}
		if !added {
			break
		}
	}
	var out []ownedNAPTR
	for _, rr := range answer {
		if n, ok := rr.(*dns.NAPTR); ok {
			if ttl, ok := names[canonical(n.Hdr.Name)]; ok {
				out = append(out, ownedNAPTR{rr: n, ttl: min(ttl, n.Hdr.Ttl)})
			}
		}
	}
	return out
}

func addName(names map[string]uint32, name string, ttl uint32) bool {
	if old, ok := names[name]; ok && old <= ttl {
		return false
	}
	names[name] = ttl
	return true
}

func canonical(name string) string { return strings.ToLower(dns.Fqdn(name)) }

// selectSMP picks the Peppol SMP record among recs: flags "U" and service "Meta:SMP"
// (both case-insensitive), lowest order then lowest preference, first whose regexp
// applied to name gives an http(s) URL. It returns the record and that URL.
func selectSMP(recs []ownedNAPTR, name string) (ownedNAPTR, string, bool) {
	var cands []ownedNAPTR
	for _, r := range recs {
		if strings.EqualFold(wireString(r.rr.Flags), naptrFlagU) && strings.EqualFold(wireString(r.rr.Service), naptrServiceSMP) {
			cands = append(cands, r)
		}
	}
	slices.SortStableFunc(cands, func(a, b ownedNAPTR) int {
		return cmp.Or(cmp.Compare(a.rr.Order, b.rr.Order), cmp.Compare(a.rr.Preference, b.rr.Preference))
	})
	for _, c := range cands {
		if u, err := applyRegexp(wireString(c.rr.Regexp), name); err == nil {
			return c, u, true
		}
	}
	return ownedNAPTR{}, "", false
}
