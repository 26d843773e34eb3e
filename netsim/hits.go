package netsim

import (
	"sync/atomic"

	"github.com/miekg/dns"
)

// HitCounts is a snapshot of the requests the network has served since it started or
// since the last ResetHits.
type HitCounts struct {
	// DNS counts DNS queries.
	DNS DNSHits
	// SMP counts requests per SMP host, indexed like Dataset.SMPHosts.
	SMP []SMPHits
	// Directory counts Directory requests.
	Directory DirectoryHits
	// OCSP counts requests to the OCSP responder, faulted ones included.
	OCSP int64
	// Abandoned counts HTTP requests (SMP or Directory) whose client went away while
	// a Latency or Hang fault held the answer back: proof that a caller cancelled its
	// upstream work.
	Abandoned int64
}

// DNSHits counts DNS queries by transport and query type.
type DNSHits struct {
	// UDP and TCP count queries per transport.
	UDP, TCP int64
	// ByType counts queries per type name ("NAPTR", "A", …; "other" for the rest).
	ByType map[string]int64
}

// Total returns the number of DNS queries over both transports.
func (h DNSHits) Total() int64 { return h.UDP + h.TCP }

// SMPHits counts requests to one SMP host.
type SMPHits struct {
	// ServiceGroup and ServiceMetadata count GETs of each resource, found or not.
	ServiceGroup, ServiceMetadata int64
	// Other counts requests to any other path or with another method.
	Other int64
	// MaxInFlight is the most requests the host held at the same time, each from its
	// arrival until its answer starts (a client holding the whole answer is counted
	// out; a slow-dripping body is not counted).
	MaxInFlight int64
	// InFlight is how many requests the host holds at the moment of the snapshot,
	// counted as MaxInFlight counts them; sampled over time it shows how busy the
	// host is kept.
	InFlight int64
}

// DirectoryHits counts Directory requests.
type DirectoryHits struct {
	// Search counts requests to /search/…, rate-limited ones included.
	Search int64
	// RateLimited counts requests answered 429 by the rate limiter.
	RateLimited int64
	// Other counts requests to other paths.
	Other int64
	// ExportRedirects counts requests to /export/businesscards (the redirect to the
	// export file), limited ones included; ExportLimited counts those answered 429.
	ExportRedirects, ExportLimited int64
	// ExportDownloads counts requests for the export file (conditional, ranged and
	// faulted ones included).
	ExportDownloads int64
}

var dnsTypes = []uint16{dns.TypeNAPTR, dns.TypeA, dns.TypeAAAA, dns.TypeCNAME, dns.TypeSOA, dns.TypeNS, dns.TypeTXT}

type smpCounters struct {
	sg, sm, other         atomic.Int64
	inFlight, maxInFlight atomic.Int64
}

// enter counts a request the host starts answering, raising the high-water mark.
func (c *smpCounters) enter() {
	cur := c.inFlight.Add(1)
	for {
		m := c.maxInFlight.Load()
		if cur <= m || c.maxInFlight.CompareAndSwap(m, cur) {
			return
		}
	}
}

// leave counts a request the host has finished with.
func (c *smpCounters) leave() { c.inFlight.Add(-1) }

type hitCounters struct {
	udp, tcp  atomic.Int64
	byType    [8]atomic.Int64 // dnsTypes, then "other"
	smp       []smpCounters
	dirSearch atomic.Int64
	dirLimit  atomic.Int64
	dirOther  atomic.Int64
	abandoned atomic.Int64
	ocsp      atomic.Int64

	exportRedirects, exportLimited, exportDownloads atomic.Int64
}

func (h *hitCounters) dnsQuery(tcp bool, qtype uint16) {
	if tcp {
		h.tcp.Add(1)
	} else {
		h.udp.Add(1)
	}
	for i, t := range dnsTypes {
		if t == qtype {
			h.byType[i].Add(1)
			return
		}
	}
	h.byType[len(dnsTypes)].Add(1)
}

func (h *hitCounters) snapshot() HitCounts {
	c := HitCounts{
		DNS: DNSHits{UDP: h.udp.Load(), TCP: h.tcp.Load(), ByType: map[string]int64{}},
		SMP: make([]SMPHits, len(h.smp)),
		Directory: DirectoryHits{Search: h.dirSearch.Load(), RateLimited: h.dirLimit.Load(), Other: h.dirOther.Load(),
			ExportRedirects: h.exportRedirects.Load(), ExportLimited: h.exportLimited.Load(), ExportDownloads: h.exportDownloads.Load()},
		Abandoned: h.abandoned.Load(),
		OCSP:      h.ocsp.Load(),
	}
	for i := range h.byType {
		n := h.byType[i].Load()
		if n == 0 {
			continue
		}
		name := "other"
		if i < len(dnsTypes) {
			name = dns.TypeToString[dnsTypes[i]]
		}
		c.DNS.ByType[name] = n
	}
	for i := range h.smp {
		c.SMP[i] = SMPHits{ServiceGroup: h.smp[i].sg.Load(), ServiceMetadata: h.smp[i].sm.Load(), Other: h.smp[i].other.Load(), MaxInFlight: h.smp[i].maxInFlight.Load(), InFlight: h.smp[i].inFlight.Load()}
	}
	return c
}

func (h *hitCounters) reset() {
	h.udp.Store(0)
	h.tcp.Store(0)
	h.ocsp.Store(0)
	for i := range h.byType {
		h.byType[i].Store(0)
	}
	for i := range h.smp {
		h.smp[i].sg.Store(0)
		h.smp[i].sm.Store(0)
		h.smp[i].other.Store(0)
		// Requests still being answered count towards the next high-water mark.
		h.smp[i].maxInFlight.Store(h.smp[i].inFlight.Load())
	}
	h.dirSearch.Store(0)
	h.dirLimit.Store(0)
	h.dirOther.Store(0)
	h.abandoned.Store(0)
	h.exportRedirects.Store(0)
	h.exportLimited.Store(0)
	h.exportDownloads.Store(0)
}
