package sml

import (
	"cmp"
	"fmt"
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

// maxAliasChain is the most CNAME/DNAME links followed from the question name. Real
// chains have one or two (the 2026 prod-zone DNAME plus its synthesised CNAME); the cap
// bounds the work a hostile answer can cause.
const maxAliasChain = 8

// maxNameLen is the longest domain name in presentation form we accept: a name longer
// than this cannot fit the 255 octets of wire format (RFC 1035 §2.3.4) without escapes,
// and SML names never carry escapes.
const maxNameLen = 255

// naptrFor returns the NAPTR records in answer owned by qname or by the name reached from
// qname through the CNAME/DNAME chain in the same answer. Records for unrelated owners
// are ignored: a resolver must not trust data it did not ask for.
//
// The chain is walked one link at a time: from the current name it follows the CNAME
// owned by that name or, failing that, the one DNAME whose owner is a proper suffix of
// it. It returns an error, meaning the reply is malformed, when a name has two different
// aliases, the chain is longer than maxAliasChain or loops, or a DNAME synthesises a name
// that is not a valid domain name.
func naptrFor(answer []dns.RR, qname string) ([]ownedNAPTR, error) {
	cur := canonical(qname)
	ttl := uint32(math.MaxUint32)
	seen := map[string]bool{cur: true}
	for links := 0; ; links++ {
		next, linkTTL, _, ok, err := nextAlias(answer, cur)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if links == maxAliasChain {
			return nil, fmt.Errorf("alias chain from %s is longer than %d links", qname, maxAliasChain)
		}
		if seen[next] {
			return nil, fmt.Errorf("alias chain from %s loops at %s", qname, next)
		}
		seen[next] = true
		cur, ttl = next, min(ttl, linkTTL)
	}
	var out []ownedNAPTR
	for _, rr := range answer {
		if n, ok := rr.(*dns.NAPTR); ok && canonical(n.Hdr.Name) == cur {
			out = append(out, ownedNAPTR{rr: n, ttl: min(ttl, n.Hdr.Ttl)})
		}
	}
	return out, nil
}

// chainEnd returns the name the CNAME/DNAME chain in answer leads to from qname (qname
// itself when there is none; a negative answer is about that name, RFC 6604 §2) and
// the targets of the DNAME records the chain went through, canonical. A malformed
// chain gives qname and no targets.
func chainEnd(answer []dns.RR, qname string) (string, []string) {
	cur := canonical(qname)
	chain := []string{cur}
	for range maxAliasChain {
		next, _, _, ok, err := nextAlias(answer, cur)
		if err != nil || slices.Contains(chain, next) {
			return canonical(qname), nil
		}
		if !ok {
			break
		}
		chain = append(chain, next)
		cur = next
	}
	// A CNAME synthesised from a DNAME is followed in place of the DNAME, so the
	// DNAMEs above the chain's names are collected apart.
	var dnames []string
	for _, rr := range answer {
		d, ok := rr.(*dns.DNAME)
		if !ok {
			continue
		}
		owner := canonical(d.Hdr.Name)
		for _, name := range chain {
			if owner != name && (owner == "." || strings.HasSuffix(name, "."+owner)) {
				dnames = append(dnames, canonical(d.Target))
				break
			}
		}
	}
	return cur, dnames
}

// nextAlias returns the name cur is an alias of, the TTL of that link and, when the link
// is a DNAME, the DNAME's target. A CNAME owned by cur wins over a DNAME above it,
// because a DNAME comes with the CNAME it synthesises for the question and the two
// agree. Identical duplicates are tolerated; two different aliases for one name are an
// error since either choice would be a guess.
func nextAlias(answer []dns.RR, cur string) (next string, ttl uint32, dnameTarget string, ok bool, err error) {
	var dnameOwner string
	for _, rr := range answer {
		a, isCNAME := rr.(*dns.CNAME)
		if !isCNAME || canonical(a.Hdr.Name) != cur {
			continue
		}
		target := canonical(a.Target)
		if ok && target != next {
			return "", 0, "", false, fmt.Errorf("%s has two CNAME records (%s and %s)", cur, next, target)
		}
		if ok {
			ttl = min(ttl, a.Hdr.Ttl)
		} else {
			next, ttl, ok = target, a.Hdr.Ttl, true
		}
	}
	if ok {
		return next, ttl, "", true, nil
	}
	for _, rr := range answer {
		d, isDNAME := rr.(*dns.DNAME)
		if !isDNAME {
			continue
		}
		owner := canonical(d.Hdr.Name)
		if owner == cur || !(owner == "." || strings.HasSuffix(cur, "."+owner)) {
			continue
		}
		prefix := strings.TrimSuffix(cur, owner)
		if owner == "." {
			prefix = cur
		}
		sub := prefix + canonical(d.Target)
		if canonical(d.Target) == "." {
			sub = prefix
		}
		if ok && (owner != dnameOwner || sub != next) {
			return "", 0, "", false, fmt.Errorf("%s is below two different DNAME records (at %s and %s)", cur, dnameOwner, owner)
		}
		if len(sub) > maxNameLen {
			return "", 0, "", false, fmt.Errorf("DNAME at %s makes %s longer than %d bytes", owner, cur, maxNameLen)
		}
		if _, valid := dns.IsDomainName(sub); !valid {
			return "", 0, "", false, fmt.Errorf("DNAME at %s makes %s an invalid name", owner, cur)
		}
		if ok {
			ttl = min(ttl, d.Hdr.Ttl)
		} else {
			dnameOwner, next, ttl, ok = owner, sub, d.Hdr.Ttl, true
			dnameTarget = canonical(d.Target)
		}
	}
	return next, ttl, dnameTarget, ok, nil
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
