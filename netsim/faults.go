package netsim

import (
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// TargetKind says which part of the network a fault applies to.
type TargetKind int

const (
	// TargetDNS is the DNS server: every query.
	TargetDNS TargetKind = iota + 1
	// TargetSMPHost is one SMP host: every request to it.
	TargetSMPHost
	// TargetDirectory is the Directory server: every request.
	TargetDirectory
	// TargetParticipant is one participant: DNS queries for its NAPTR name (Fault.DNS
	// and Latency) and SMP requests for it (HTTP fields and Latency). It does not affect
	// the Directory. It takes precedence over a DNS or SMP host fault.
	TargetParticipant
	// TargetOCSP is the OCSP responder of the access point CA: every request
	// (HTTPStatus, Hang and Latency).
	TargetOCSP
)

// Target names what a Fault applies to. Build it with DNSTarget, DirectoryTarget,
// SMPHostTarget or ParticipantTarget.
type Target struct {
	Kind TargetKind
	// Host is the SMP host index for TargetSMPHost.
	Host int
	// Participant is "<icd>:<lower-case value>" for TargetParticipant.
	Participant string
}

// DNSTarget returns the target of the DNS server.
func DNSTarget() Target { return Target{Kind: TargetDNS} }

// DirectoryTarget returns the target of the Directory server.
func DirectoryTarget() Target { return Target{Kind: TargetDirectory} }

// SMPHostTarget returns the target of SMP host i (an index of Dataset.SMPHosts).
func SMPHostTarget(i int) Target { return Target{Kind: TargetSMPHost, Host: i} }

// OCSPTarget returns the target of the OCSP responder.
func OCSPTarget() Target { return Target{Kind: TargetOCSP} }

// ParticipantTarget returns the target of one participant.
func ParticipantTarget(id peppol.ParticipantID) Target {
	return Target{Kind: TargetParticipant, Participant: participantKey(id)}
}

// String describes the target for logs.
func (t Target) String() string {
	switch t.Kind {
	case TargetDNS:
		return "dns"
	case TargetSMPHost:
		return "smp-" + strconv.Itoa(t.Host)
	case TargetDirectory:
		return "directory"
	case TargetParticipant:
		return "participant " + t.Participant
	case TargetOCSP:
		return "ocsp"
	}
	return "unknown target"
}

// DNSFault is a DNS misbehaviour.
type DNSFault int

const (
	// DNSNone answers normally.
	DNSNone DNSFault = iota
	// DNSServFail answers SERVFAIL.
	DNSServFail
	// DNSRefused answers REFUSED.
	DNSRefused
	// DNSTimeout drops the query without answering.
	DNSTimeout
	// DNSTruncate answers over UDP with the TC bit set and no records, so the client
	// must retry over TCP, where the answer is normal.
	DNSTruncate
	// DNSNXDomain answers NXDOMAIN for every name, the zone's apex too, as a recursive
	// resolver (RA set) with nothing in the authority section: a broken resolver, a
	// captive portal or a typo'd DNS server.
	DNSNXDomain
	// DNSNXDomainForeignSOA answers NXDOMAIN for every name as a recursive resolver
	// whose authority section holds the SOA of ForeignSOAZone, a zone of its own rather
	// than the SML's: a filtering resolver or a captive portal.
	DNSNXDomainForeignSOA
)

// ForeignSOAZone is the zone whose SOA DNSNXDomainForeignSOA puts in its answers.
const ForeignSOAZone = "portal.example"

// SignatureFault is a misbehaviour of an SMP's signature on its ServiceMetadata.
type SignatureFault int

const (
	// SignatureNone signs as usual.
	SignatureNone SignatureFault = iota
	// SignatureTampered changes a byte of the signed content after signing.
	SignatureTampered
	// SignatureWrongKey signs with another key than the certificate's in KeyInfo.
	SignatureWrongKey
	// SignatureUnsigned leaves the Signature out.
	SignatureUnsigned
	// SignatureExpiredSigner signs with a certificate of the SMP CA that has expired.
	SignatureExpiredSigner
	// SignatureOtherCA signs with a certificate from a CA outside the network's PKI.
	SignatureOtherCA
)

// Fault is a misbehaviour injected into the network at run time. Zero fields are
// inactive; several may be combined (Latency is applied first, then Hang, then
// HTTPStatus or DNS, then body faults).
type Fault struct {
	// Latency delays the answer.
	Latency time.Duration
	// DNS is the DNS misbehaviour (DNS server and participant targets).
	DNS DNSFault
	// HTTPStatus replaces the answer by this status, e.g. 500, 503 or 429.
	HTTPStatus int
	// RetryAfter is sent as the Retry-After header with HTTPStatus.
	RetryAfter string
	// Location is sent as the Location header with HTTPStatus, for HTTP redirects
	// (301, 302, 307, 308) to wherever a test wants to lure the client.
	Location string
	// Hang never answers until the client gives up or the network closes.
	Hang bool
	// SlowBody drips the body out over this total duration.
	SlowBody time.Duration
	// Malformed cuts the body in half, leaving broken XML or JSON.
	Malformed bool
	// OversizeBody pads the body with white space (still valid XML or JSON) to this
	// many bytes.
	OversizeBody int64
	// Signature is how an SMP signs its ServiceMetadata (SMP host and participant
	// targets).
	Signature SignatureFault
}

// faultSet is a copy-on-write map so that request paths read it without locking.
type faultSet struct {
	mu sync.Mutex // serialises writers
	m  atomic.Pointer[map[Target]Fault]
}

func (f *faultSet) set(t Target, fault Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	next := map[Target]Fault{}
	if cur := f.m.Load(); cur != nil {
		next = maps.Clone(*cur)
	}
	if fault == (Fault{}) {
		delete(next, t)
	} else {
		next[t] = fault
	}
	f.m.Store(&next)
}

func (f *faultSet) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m.Store(nil)
}

// get returns the first fault set for one of targets, in order.
func (f *faultSet) get(targets ...Target) Fault {
	cur := f.m.Load()
	if cur == nil {
		return Fault{}
	}
	for _, t := range targets {
		if fault, ok := (*cur)[t]; ok {
			return fault
		}
	}
	return Fault{}
}

func participantKey(id peppol.ParticipantID) string { return participantKeyString(id.ICD, id.Value) }

func participantKeyString(icd, value string) string { return icd + ":" + strings.ToLower(value) }
