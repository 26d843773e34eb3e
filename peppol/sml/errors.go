package sml

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// Sentinels for errors.Is on the errors Lookup returns. Lookup never returns them
// directly; it returns an *Error whose Kind selects which of them it matches.
var (
	// ErrNotRegistered matches only KindNotRegistered, a definite "the SML does not know
	// this participant" answer: NXDOMAIN or an empty NOERROR answer from a recursive or
	// authoritative server, proven to come from the SML zone (the zone's SOA in its
	// authority section, or the zone resolving through the same server).
	ErrNotRegistered = errors.New("sml: participant not registered")
	// ErrNoSMPService matches only KindNoSMPService: NAPTR records exist for the name but
	// none is a usable U / Meta:SMP record. It does not match ErrNotRegistered: the
	// participant is in the SML, so callers must not report it as absent.
	ErrNoSMPService = errors.New("sml: no Meta:SMP service published")
	// ErrDNSFailure matches KindDNSFailure: no definite answer was obtained, the
	// registration is unknown and the lookup may be retried.
	ErrDNSFailure = errors.New("sml: DNS lookup failed")
	// ErrNotFromZone matches a KindDNSFailure whose server did answer "no such name"
	// (NXDOMAIN, or no NAPTR records) but without proof that the answer comes from the
	// SML zone (see NotFromZoneError): a captive portal, a filtering or broken resolver,
	// or a DNS server that is not the one meant.
	ErrNotFromZone = errors.New("sml: negative answer not from the SML zone")
)

// NotFromZoneError is the cause (Error.Err) of a negative answer that does not prove it
// comes from the SML zone: its authority section holds the SOA of a zone that is not
// the SML zone's (nor below it), or it holds no such proof and the zone's own name does
// not resolve through the same server (docs/ARCHITECTURE.md §1). errors.Is matches it
// with ErrNotFromZone.
type NotFromZoneError struct {
	// Zone is the SML zone.
	Zone string
	// Rcode is the answer's rcode: dns.RcodeNameError or dns.RcodeSuccess (no records).
	Rcode int
	// SOA is the owner of the SOA record that is not the zone's and does not cover the
	// name asked, without the trailing dot; "" when there was none.
	SOA string
	// Above is the owner of the SOA the answer held of a zone above the SML zone (a
	// parent's, or "." for the root's), without the trailing dot, when the zone's own
	// name was then asked and did not resolve; "" when the answer held no SOA.
	Above string
	// Check is why the zone's own name did not resolve through the server, when it was
	// asked (SOA is then ""): what the server answered.
	Check string
}

// Error says what the server answered and why it is not believed.
func (e *NotFromZoneError) Error() string {
	what := "answered NXDOMAIN"
	if e.Rcode != dns.RcodeNameError {
		what = "answered no NAPTR records"
	}
	const hint = ": this DNS server does not answer for the SML (a captive portal, a filtering or broken resolver, or the wrong DNS server?)"
	if e.SOA != "" {
		return what + " with the SOA of " + e.SOA + ", which is not the SML zone " + e.Zone + hint
	}
	switch e.Above {
	case "":
		what += " without an SOA record, and the SML zone " + e.Zone
	case ".":
		what += " with the SOA of the root zone, above the SML zone " + e.Zone + ", and the SML zone"
	default:
		what += " with the SOA of " + e.Above + ", above the SML zone " + e.Zone + ", and the SML zone"
	}
	return what + "'s own name does not resolve through it (" + e.Check + ")" + hint
}

// Is reports whether target is ErrNotFromZone.
func (e *NotFromZoneError) Is(target error) bool { return target == ErrNotFromZone }

// Kind classifies the outcome of a failed Lookup.
type Kind int

// The kinds of Error. The zero Kind is not used, so an unset Kind is visible.
const (
	// KindNotRegistered: the name does not exist (NXDOMAIN) or has no NAPTR records,
	// in an answer that proves it comes from the SML zone.
	KindNotRegistered Kind = iota + 1
	// KindNoSMPService: NAPTR records exist but none has flags "U", service "Meta:SMP"
	// and a regexp that yields an absolute http(s) URL without query, fragment or user
	// info. The participant is in the SML; only its record is unusable.
	KindNoSMPService
	// KindDNSFailure: SERVFAIL, REFUSED or another unexpected rcode, a referral or lame
	// answer (neither RA nor AA set), a negative answer that does not prove it comes
	// from the SML zone (ErrNotFromZone), a timeout, a network error, a malformed reply
	// (including a broken CNAME/DNAME chain) or a cancelled context. Retryable.
	KindDNSFailure
)

// String returns a short name of k, e.g. "not registered".
func (k Kind) String() string {
	switch k {
	case KindNotRegistered:
		return "not registered"
	case KindNoSMPService:
		return "no SMP service"
	case KindDNSFailure:
		return "DNS failure"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// NoRcode is the Error.Rcode of outcomes that have no usable DNS reply (timeouts,
// network errors, malformed replies, cancelled contexts).
const NoRcode = -1

// Error is the error Lookup returns. Use errors.Is with ErrNotRegistered,
// ErrNoSMPService or ErrDNSFailure rather than comparing Kind when only the class
// matters; errors.Is/As also reach the cause in Err (e.g. context.Canceled).
type Error struct {
	// Kind is the class of the outcome.
	Kind Kind
	// Name is the DNS name that was queried, without a trailing dot.
	Name string
	// Server is the host:port whose reply decided the outcome; for KindDNSFailure the last
	// server tried. Empty when no query was sent.
	Server string
	// Rcode is the DNS response code of that reply (dns.RcodeNameError, ...), or NoRcode.
	Rcode int
	// Attempts is the number of queries sent (a UDP query and its TCP retry count as two).
	Attempts int
	// Err is the underlying cause of a KindDNSFailure (network or context error, malformed
	// reply); nil for answers that came with a usable reply.
	Err error

	// trail holds one reason per server when several failed; it only feeds the message.
	trail []string
}

// Error describes the outcome for a person: what was asked, what came back, and whether
// retrying can help.
func (e *Error) Error() string {
	switch e.Kind {
	case KindNotRegistered:
		if e.Rcode == dns.RcodeNameError {
			return fmt.Sprintf("sml: participant not registered: %s does not exist (NXDOMAIN from %s)", e.Name, e.Server)
		}
		return fmt.Sprintf("sml: participant not registered: %s has no NAPTR records (%s from %s)", e.Name, rcodeName(e.Rcode), e.Server)
	case KindNoSMPService:
		return fmt.Sprintf("sml: no usable SMP: %s has NAPTR records but none with flags \"U\", service \"Meta:SMP\" and a regexp yielding an http(s) URL (from %s)", e.Name, e.Server)
	}
	msg := "sml: DNS lookup of " + e.Name + " failed; registration unknown, retryable"
	if len(e.trail) > 0 {
		msg += ": " + strings.Join(e.trail, "; ")
	} else if r := e.reason(); r != "" {
		msg += ": " + r
	}
	if e.Attempts > 1 {
		msg += " (" + strconv.Itoa(e.Attempts) + " queries sent)"
	}
	return msg
}

// reason says what went wrong with one server, for failure messages.
func (e *Error) reason() string {
	switch {
	case e.Server == "" && e.Err != nil:
		return e.Err.Error()
	case e.Err != nil:
		return e.Server + ": " + e.Err.Error()
	case e.Rcode != NoRcode:
		return e.Server + " answered " + rcodeName(e.Rcode)
	}
	return ""
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether e belongs to the class of the sentinel target.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotRegistered:
		return e.Kind == KindNotRegistered
	case ErrNoSMPService:
		return e.Kind == KindNoSMPService
	case ErrDNSFailure:
		return e.Kind == KindDNSFailure
	}
	return false
}

// Retryable reports whether asking again later may give a different answer: true
// exactly for KindDNSFailure.
func (e *Error) Retryable() bool { return e.Kind == KindDNSFailure }

func rcodeName(rcode int) string {
	if s, ok := dns.RcodeToString[rcode]; ok {
		return s
	}
	return "rcode " + strconv.Itoa(rcode)
}
