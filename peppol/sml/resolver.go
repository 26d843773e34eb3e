package sml

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
	"github.com/peppolgate/peppolgate/peppol"
)

// Defaults of Config.
const (
	// DefaultTimeout bounds one query to one server when Config.Timeout is 0.
	DefaultTimeout = 2 * time.Second
	// DefaultAttempts is the number of passes over the servers when Config.Attempts is 0.
	DefaultAttempts = 2
)

// resolvConfPath is where New finds the system resolvers when Config.Servers is empty.
const resolvConfPath = "/etc/resolv.conf"

// Config configures a Resolver. The zero Config is usable: system resolvers, production
// zone, default timeout and attempts.
type Config struct {
	// Servers are the DNS servers to ask, as host:port ("9.9.9.9:53", "[::1]:53"), in
	// order. Empty means the name servers of /etc/resolv.conf.
	Servers []string
	// Zone is the SML zone; empty means ZoneProduction. A trailing dot is allowed.
	Zone string
	// Timeout bounds one query to one server (UDP, and again the TCP retry of a
	// truncated reply); 0 means DefaultTimeout. The context passed to Lookup bounds the
	// whole lookup.
	Timeout time.Duration
	// Attempts is how many times the server list is walked before giving up; each pass
	// asks every server once, in order. 0 means DefaultAttempts.
	Attempts int
}

// Resolver looks participants up in the SML by DNS U-NAPTR. It is safe for concurrent
// use; its only mutable state is the outcome of its zone checks (CheckZone).
type Resolver struct {
	servers  []string
	zone     string
	timeout  time.Duration
	attempts int
	// checks remembers which servers resolve the zone (zonecheck.go); its own lock
	// guards it.
	checks *zoneChecks
}

// Result is the SMP a participant is registered with, as published in the SML.
type Result struct {
	// Name is the DNS name that was queried, without a trailing dot.
	Name string
	// BaseURL is the SMP base URL the regexp yields, exactly as published: it may carry
	// a path and may or may not end in "/".
	BaseURL string
	// Order and Preference are those of the selected NAPTR record.
	Order, Preference uint16
	// Regexp is the selected record's substitution expression as on the wire, e.g.
	// "!.*!https://smp.example.com/!".
	Regexp string
	// TTL is the smallest TTL of the selected record and any CNAME/DNAME leading to it,
	// in seconds: how long the answer may be cached.
	TTL uint32
	// Server is the host:port of the DNS server that answered.
	Server string
}

// New returns a Resolver for cfg. It returns an error when a server is not host:port,
// the zone is not a domain name, Timeout or Attempts is negative, or Servers is empty
// and /etc/resolv.conf cannot be read or names no server.
func New(cfg Config) (*Resolver, error) {
	return newResolver(cfg, resolvConfPath)
}

func newResolver(cfg Config, resolvConf string) (*Resolver, error) {
	r := &Resolver{zone: normalizeZone(cfg.Zone), timeout: cfg.Timeout, attempts: cfg.Attempts, checks: newZoneChecks()}
	if r.zone == "" {
		r.zone = ZoneProduction
	}
	if _, ok := dns.IsDomainName(r.zone); !ok || strings.HasPrefix(r.zone, ".") {
		return nil, fmt.Errorf("sml: zone %q is not a domain name", cfg.Zone)
	}
	switch {
	case r.timeout < 0:
		return nil, fmt.Errorf("sml: timeout %v is negative", cfg.Timeout)
	case r.timeout == 0:
		r.timeout = DefaultTimeout
	}
	switch {
	case r.attempts < 0:
		return nil, fmt.Errorf("sml: attempts %d is negative", cfg.Attempts)
	case r.attempts == 0:
		r.attempts = DefaultAttempts
	}
	if len(cfg.Servers) == 0 {
		cc, err := dns.ClientConfigFromFile(resolvConf)
		if err != nil {
			return nil, fmt.Errorf("sml: no DNS servers configured and the system resolvers are unknown: %w", err)
		}
		if len(cc.Servers) == 0 {
			return nil, fmt.Errorf("sml: no DNS servers configured and %s names none", resolvConf)
		}
		for _, s := range cc.Servers {
			r.servers = append(r.servers, net.JoinHostPort(s, cc.Port))
		}
		return r, nil
	}
	for _, s := range cfg.Servers {
		if err := checkHostPort(s); err != nil {
			return nil, err
		}
		r.servers = append(r.servers, s)
	}
	return r, nil
}

func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err == nil && host != "" {
		if p, perr := strconv.ParseUint(port, 10, 16); perr == nil && p > 0 {
			return nil
		}
	}
	return fmt.Errorf("sml: DNS server %q is not host:port (e.g. 9.9.9.9:53 or [2620:fe::fe]:53)", s)
}

// Zone returns the SML zone r queries, lower-case and without a trailing dot.
func (r *Resolver) Zone() string { return r.zone }

// Lookup finds the SMP of id: it queries the NAPTR records of NAPTRName(id, zone) and
// returns the Meta:SMP record selected as Peppol SML 1.3.0 prescribes.
//
// A negative answer counts as "not registered" only when it proves it comes from the
// SML zone: its authority section holds the SOA of the zone (or of a zone below it, or
// of the zone a DNAME of the zone points to) covering the name, as a real resolver's
// does, or, when it holds no such SOA (some stub resolvers drop it; a zone without an
// SOA of its own gets its parent's) and no SOA of an unrelated zone, the zone's own
// name resolves through the same server (CheckZone's check, remembered per server). Otherwise the server is not answering for the SML (a
// captive portal, a broken or filtering resolver, a typo'd server) and the next one is
// asked.
//
// Errors: an *Error matching ErrNotRegistered (NXDOMAIN, or no NAPTR records, from a
// server with RA or AA set, proven to come from the zone), ErrNoSMPService (records,
// but no usable U/Meta:SMP one: the participant IS in the SML, so this is not "not
// registered") or ErrDNSFailure (SERVFAIL, REFUSED, other rcodes, a referral or lame
// answer, a negative answer not proven to come from the zone — which also matches
// ErrNotFromZone —, timeouts, network errors, malformed replies including broken or
// overlong CNAME/DNAME chains, ctx done — retryable; errors.Is(err, context.Canceled)
// works). A zero id gives a plain error matching none of them.
func (r *Resolver) Lookup(ctx context.Context, id peppol.ParticipantID) (*Result, error) {
	if id.IsZero() {
		return nil, errors.New("sml: empty participant id")
	}
	return r.lookupName(ctx, NAPTRName(id, r.zone))
}

// lookupName asks each server in turn until one gives a definite answer; only failures
// move on to the next server, because NXDOMAIN from one server is the zone's answer.
func (r *Resolver) lookupName(ctx context.Context, name string) (*Result, error) {
	fqdn := dns.Fqdn(name)
	sent := 0
	var last *Error
	// Each server's latest failure, so the message explains all of them, not the last.
	var trail []string
	seen := map[string]int{}
	note := func(e *Error) {
		if i, ok := seen[e.Server]; ok {
			trail[i] = e.reason()
			return
		}
		seen[e.Server] = len(trail)
		trail = append(trail, e.reason())
	}
	for range r.attempts {
		for _, server := range r.servers {
			if err := ctx.Err(); err != nil {
				return nil, &Error{Kind: KindDNSFailure, Name: name, Server: "", Rcode: NoRcode, Attempts: sent, Err: err}
			}
			resp, n, err := r.query(ctx, fqdn, dns.TypeNAPTR, server)
			sent += n
			if err != nil {
				if cerr := ctx.Err(); cerr != nil {
					err = cerr
				}
				last = &Error{Kind: KindDNSFailure, Name: name, Server: server, Rcode: NoRcode, Err: err}
				if ctx.Err() != nil {
					last.Attempts = sent
					return nil, last
				}
				note(last)
				continue
			}
			res, lerr := interpret(resp, name, fqdn, server)
			if lerr == nil {
				return res, nil
			}
			if lerr.Kind == KindNotRegistered {
				lerr, n = r.trustNegative(ctx, resp, fqdn, server, lerr)
				sent += n
			}
			lerr.Attempts = sent
			if lerr.Kind != KindDNSFailure {
				return nil, lerr
			}
			last = lerr
			note(last)
		}
	}
	if last == nil {
		return nil, &Error{Kind: KindDNSFailure, Name: name, Rcode: NoRcode, Err: errors.New("resolver has no DNS servers; create it with New")}
	}
	last.Attempts = sent
	if len(trail) > 1 {
		last.trail = trail
	}
	return nil, last
}

// query sends one query of qtype to server over UDP and, when the reply is truncated,
// again over TCP. It returns the reply and the number of queries sent.
func (r *Resolver) query(ctx context.Context, fqdn string, qtype uint16, server string) (*dns.Msg, int, error) {
	m := new(dns.Msg)
	m.SetQuestion(fqdn, qtype)
	m.RecursionDesired = true
	m.SetEdns0(4096, false)
	resp, err := r.exchange(ctx, m, server, "udp")
	// A truncated reply may also fail to unpack; its header is enough to know.
	if resp != nil && resp.Truncated {
		resp, err = r.exchange(ctx, m, server, "tcp")
		return resp, 2, err
	}
	return resp, 1, err
}

// exchange runs one query with the per-attempt timeout. miekg/dns honours only context
// deadlines, so the connection is also closed when ctx is cancelled, to end a blocked read.
func (r *Resolver) exchange(ctx context.Context, m *dns.Msg, server, network string) (*dns.Msg, error) {
	actx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	c := &dns.Client{Net: network, Timeout: r.timeout}
	conn, err := c.DialContext(actx, server)
	if err != nil {
		return nil, fmt.Errorf("%s: dial: %w", network, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(actx, func() { conn.Close() })
	defer stop()
	resp, _, err := c.ExchangeWithConnContext(actx, m, conn)
	if err != nil {
		if resp != nil && resp.Truncated && network == "udp" {
			return resp, err
		}
		var ne net.Error
		if ctx.Err() == nil && (actx.Err() != nil || errors.As(err, &ne) && ne.Timeout()) {
			return nil, &noReplyError{network: network, timeout: r.timeout}
		}
		var de *dns.Error
		if errors.As(err, &de) {
			return nil, fmt.Errorf("%s: malformed reply: %w", network, err)
		}
		// The addresses in a *net.OpError repeat what the message already says.
		var op *net.OpError
		if errors.As(err, &op) {
			err = op.Err
		}
		return nil, fmt.Errorf("%s: %w", network, err)
	}
	return resp, nil
}

// noReplyError is the cause of a query that got no reply within the per-attempt
// timeout. It is a net.Error whose Timeout is true, so that callers can tell timeouts
// from other failures with errors.As.
type noReplyError struct {
	network string
	timeout time.Duration
}

func (e *noReplyError) Error() string {
	return fmt.Sprintf("%s: no reply within %v", e.network, e.timeout)
}

// Timeout reports true: the query timed out.
func (e *noReplyError) Timeout() bool { return true }

// Temporary reports true, for the net.Error interface: a later query may be answered.
func (e *noReplyError) Temporary() bool { return true }

// errNotRecursive explains a reply that says nothing about the name: neither RA nor AA is
// set, as in a referral (NS records in the authority section) or a lame delegation.
var errNotRecursive = errors.New("server is not a recursive resolver for this name (reply has neither RA nor AA set: a referral or lame answer)")

// interpret turns a reply into a Result or a typed *Error.
func interpret(resp *dns.Msg, name, fqdn, server string) (*Result, *Error) {
	fail := func(rcode int, err error) *Error {
		return &Error{Kind: KindDNSFailure, Name: name, Server: server, Rcode: rcode, Err: err}
	}
	switch resp.Rcode {
	case dns.RcodeSuccess, dns.RcodeNameError:
	default:
		return nil, fail(resp.Rcode, nil)
	}
	if !resp.Response || resp.Opcode != dns.OpcodeQuery {
		return nil, fail(NoRcode, errors.New("malformed reply: not a response to a query"))
	}
	if len(resp.Question) != 1 || resp.Question[0].Qtype != dns.TypeNAPTR || !strings.EqualFold(resp.Question[0].Name, fqdn) {
		return nil, fail(NoRcode, errors.New("malformed reply: it does not answer the NAPTR question"))
	}
	// Absence is only definite from a server that resolved the name (RA) or owns it (AA);
	// a referral or a lame server also answers NOERROR without records.
	definite := resp.RecursionAvailable || resp.Authoritative
	if resp.Rcode == dns.RcodeNameError {
		if !definite {
			return nil, fail(resp.Rcode, errNotRecursive)
		}
		return nil, &Error{Kind: KindNotRegistered, Name: name, Server: server, Rcode: resp.Rcode}
	}
	recs, err := naptrFor(resp.Answer, fqdn)
	if err != nil {
		return nil, fail(NoRcode, fmt.Errorf("malformed reply: %w", err))
	}
	if len(recs) == 0 {
		if !definite {
			return nil, fail(resp.Rcode, errNotRecursive)
		}
		return nil, &Error{Kind: KindNotRegistered, Name: name, Server: server, Rcode: resp.Rcode}
	}
	rec, base, ok := selectSMP(recs, name)
	if !ok {
		return nil, &Error{Kind: KindNoSMPService, Name: name, Server: server, Rcode: resp.Rcode}
	}
	return &Result{
		Name:       name,
		BaseURL:    base,
		Order:      rec.rr.Order,
		Preference: rec.rr.Preference,
		Regexp:     wireString(rec.rr.Regexp),
		TTL:        rec.ttl,
		Server:     server,
	}, nil
}
