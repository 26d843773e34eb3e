package sml

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/peppolgate/peppolgate/peppol"
)

var testID = peppol.ParticipantID{ICD: "0088", Value: "123abc"}

// testQName is NAPTRName(testID, ZoneProduction) as an FQDN, spelled out so that a
// broken NAPTRName cannot make these tests agree with it.
const testQName = "y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq.iso6523-actorid-upis.participant.sml.prod.tech.peppol.org."

func newTestResolver(t testing.TB, cfg Config) *Resolver {
	t.Helper()
	// Generous: the machine may be loaded, and answering servers reply at once anyway.
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLookupWire(t *testing.T) {
	q := testQName
	smp := func(order, pref int, re string) string {
		return q + " 60 IN NAPTR " + strconv.Itoa(order) + " " + strconv.Itoa(pref) + ` "U" "Meta:SMP" "` + re + `" .`
	}
	tests := []struct {
		name     string
		h        func(t *testing.T) handler
		want     *Result // nil: an error of wantKind
		wantKind Kind
		rcode    int
		udp, tcp int32
		msg      string // part of the error message
		// Only cases where silence is expected shorten the per-attempt timeout.
		timeout  time.Duration
		attempts int
	}{
		{
			name: "found",
			h:    func(t *testing.T) handler { return answer(mustRR(t, smp(100, 10, "!.*!https://smp.example.com/!"))) },
			want: &Result{BaseURL: "https://smp.example.com/", Order: 100, Preference: 10, Regexp: "!.*!https://smp.example.com/!", TTL: 60},
			udp:  1,
		},
		{
			name: "path without trailing slash, anchored regexp",
			h: func(t *testing.T) handler {
				return answer(mustRR(t, smp(100, 10, "!^.*$!https://smp.example.com/smp!")))
			},
			want: &Result{BaseURL: "https://smp.example.com/smp", Order: 100, Preference: 10, Regexp: "!^.*$!https://smp.example.com/smp!", TTL: 60},
			udp:  1,
		},
		{
			name: "backreference travels the wire escaped",
			h: func(t *testing.T) handler {
				return answer(mustRR(t, smp(100, 10, `!^([a-z0-9]{8}).*$!https://smp.example.com/\\1/!`)))
			},
			want: &Result{BaseURL: "https://smp.example.com/y7dzfxaf/", Order: 100, Preference: 10, Regexp: `!^([a-z0-9]{8}).*$!https://smp.example.com/\1/!`, TTL: 60},
			udp:  1,
		},
		{
			name: "flags and service compared case-insensitively, owner too",
			h: func(t *testing.T) handler {
				return answer(mustRR(t, strings.ToUpper(q[:10])+q[10:]+` 30 IN NAPTR 100 10 "u" "meta:smp" "!.*!https://smp.example.com/!" .`))
			},
			want: &Result{BaseURL: "https://smp.example.com/", Order: 100, Preference: 10, Regexp: "!.*!https://smp.example.com/!", TTL: 30},
			udp:  1,
		},
		{
			name: "order then preference; unusable and foreign records skipped",
			h: func(t *testing.T) handler {
				return answer(
					mustRR(t, smp(200, 1, "!.*!https://order200.example.com/!")),
					mustRR(t, smp(100, 30, "!.*!https://pref30.example.com/!")),
					mustRR(t, smp(100, 10, "!.*!not a url!")),
					mustRR(t, smp(100, 15, "!.*!https://pref15.example.com/!")),
					mustRR(t, smp(100, 12, "!(.*!https://bad-ere.example.com/!")),
					mustRR(t, q+` 60 IN NAPTR 1 1 "S" "Meta:SMP" "" _smp._tcp.example.com.`),
					mustRR(t, q+` 60 IN NAPTR 1 1 "U" "Meta:SMPX" "!.*!https://other-service.example.com/!" .`),
					mustRR(t, q+` 60 IN NAPTR 1 1 "U" "E2U+sip" "!.*!https://enum.example.com/!" .`),
					mustRR(t, `other.example.com. 60 IN NAPTR 1 1 "U" "Meta:SMP" "!.*!https://foreign-owner.example.com/!" .`),
				)
			},
			want: &Result{BaseURL: "https://pref15.example.com/", Order: 100, Preference: 15, Regexp: "!.*!https://pref15.example.com/!", TTL: 60},
			udp:  1,
		},
		{
			name:     "NXDOMAIN",
			h:        func(t *testing.T) handler { return withZoneSOA(t, rcode(dns.RcodeNameError)) },
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 1,
		},
		{
			name:     "NOERROR without records",
			h:        func(t *testing.T) handler { return withZoneSOA(t, answer()) },
			wantKind: KindNotRegistered, rcode: dns.RcodeSuccess, udp: 1,
		},
		{
			name:     "NOERROR with other types only",
			h:        func(t *testing.T) handler { return withZoneSOA(t, answer(mustRR(t, q+` 60 IN TXT "hello"`))) },
			wantKind: KindNotRegistered, rcode: dns.RcodeSuccess, udp: 1,
		},
		{
			name: "NAPTR for another owner only",
			h: func(t *testing.T) handler {
				return withZoneSOA(t, answer(mustRR(t, `other.example.com. 60 IN NAPTR 100 10 "U" "Meta:SMP" "!.*!https://smp.example.com/!" .`)))
			},
			wantKind: KindNotRegistered, rcode: dns.RcodeSuccess, udp: 1,
		},
		{
			name: "wrong flags or service only",
			h: func(t *testing.T) handler {
				return answer(
					mustRR(t, q+` 60 IN NAPTR 100 10 "S" "Meta:SMP" "" _smp._tcp.example.com.`),
					mustRR(t, q+` 60 IN NAPTR 100 10 "U" "Meta:SMPX" "!.*!https://smp.example.com/!" .`),
					mustRR(t, q+` 60 IN NAPTR 100 10 "" "Meta:SMP" "!.*!https://smp.example.com/!" .`),
				)
			},
			wantKind: KindNoSMPService, rcode: dns.RcodeSuccess, udp: 1,
		},
		{
			name: "U Meta:SMP but no usable regexp",
			h: func(t *testing.T) handler {
				return answer(mustRR(t, smp(100, 10, "!.*!ftp://smp.example.com/!")), mustRR(t, smp(100, 20, "")))
			},
			wantKind: KindNoSMPService, rcode: dns.RcodeSuccess, udp: 1,
		},
		{
			name:     "SERVFAIL is retried, then a failure",
			h:        func(*testing.T) handler { return rcode(dns.RcodeServerFailure) },
			wantKind: KindDNSFailure, rcode: dns.RcodeServerFailure, udp: 2, msg: srvAddr + " answered SERVFAIL (2 queries sent)",
		},
		{
			name:     "REFUSED",
			h:        func(*testing.T) handler { return rcode(dns.RcodeRefused) },
			wantKind: KindDNSFailure, rcode: dns.RcodeRefused, udp: 2,
		},
		{
			name:     "NOTIMP",
			h:        func(*testing.T) handler { return rcode(dns.RcodeNotImplemented) },
			wantKind: KindDNSFailure, rcode: dns.RcodeNotImplemented, udp: 2,
		},
		{
			name:     "silent server times out",
			h:        func(*testing.T) handler { return silent },
			wantKind: KindDNSFailure, rcode: NoRcode, udp: 2, msg: "udp: no reply within 300ms",
			timeout: 300 * time.Millisecond,
		},
		{
			name: "garbage reply",
			h: func(*testing.T) handler {
				return func(w dns.ResponseWriter, req *dns.Msg, _ bool) {
					b, _ := reply(req, dns.RcodeSuccess).Pack()
					_, _ = w.Write(b[:7])
				}
			},
			wantKind: KindDNSFailure, rcode: NoRcode, udp: 2, msg: "udp: malformed reply",
		},
		{
			name: "reply to another question",
			h: func(t *testing.T) handler {
				return func(w dns.ResponseWriter, req *dns.Msg, _ bool) {
					m := reply(req, dns.RcodeNameError)
					m.Question[0].Name = "other.example.com."
					_ = w.WriteMsg(m)
				}
			},
			wantKind: KindDNSFailure, rcode: NoRcode, udp: 2, msg: "does not answer the NAPTR question",
		},
		{
			name: "truncated UDP answer is asked again over TCP",
			h: func(t *testing.T) handler {
				full := mustRR(t, smp(100, 10, "!.*!https://smp.example.com/tcp/!"))
				return func(w dns.ResponseWriter, req *dns.Msg, tcp bool) {
					if tcp {
						_ = w.WriteMsg(reply(req, dns.RcodeSuccess, full))
						return
					}
					m := reply(req, dns.RcodeSuccess, mustRR(t, smp(1, 1, "!.*!https://udp-partial.example.com/!")))
					m.Truncated = true
					_ = w.WriteMsg(m)
				}
			},
			want: &Result{BaseURL: "https://smp.example.com/tcp/", Order: 100, Preference: 10, Regexp: "!.*!https://smp.example.com/tcp/!", TTL: 60},
			udp:  1, tcp: 1,
		},
		{
			name: "truncated UDP answer cut mid-record",
			h: func(t *testing.T) handler {
				full := mustRR(t, smp(100, 10, "!.*!https://smp.example.com/tcp/!"))
				return func(w dns.ResponseWriter, req *dns.Msg, tcp bool) {
					m := reply(req, dns.RcodeSuccess, full)
					if tcp {
						_ = w.WriteMsg(m)
						return
					}
					m.Truncated = true
					b, err := m.Pack()
					if err != nil {
						t.Error(err)
						return
					}
					_, _ = w.Write(b[:len(b)-9])
				}
			},
			want: &Result{BaseURL: "https://smp.example.com/tcp/", Order: 100, Preference: 10, Regexp: "!.*!https://smp.example.com/tcp/!", TTL: 60},
			udp:  1, tcp: 1,
		},
		{
			name: "truncated UDP answer, TCP silent",
			h: func(t *testing.T) handler {
				return func(w dns.ResponseWriter, req *dns.Msg, tcp bool) {
					if !tcp {
						m := reply(req, dns.RcodeSuccess)
						m.Truncated = true
						_ = w.WriteMsg(m)
					}
				}
			},
			wantKind: KindDNSFailure, rcode: NoRcode, udp: 1, tcp: 1, msg: "tcp: no reply within 1s",
			timeout: time.Second, attempts: 1,
		},
		{
			name: "CNAME chain",
			h: func(t *testing.T) handler {
				return answer(
					mustRR(t, q+` 300 IN CNAME alias.example.net.`),
					mustRR(t, `alias.example.net. 120 IN CNAME final.example.net.`),
					mustRR(t, `final.example.net. 3600 IN NAPTR 100 10 "U" "Meta:SMP" "!.*!https://smp.example.com/!" .`),
				)
			},
			want: &Result{BaseURL: "https://smp.example.com/", Order: 100, Preference: 10, Regexp: "!.*!https://smp.example.com/!", TTL: 120},
			udp:  1,
		},
		{
			name: "DNAME with synthesized CNAME (the 2026 prod-zone alias)",
			h: func(t *testing.T) handler {
				legacy := strings.TrimSuffix(q, ZoneProduction+".") + "edelivery.tech.ec.europa.eu."
				return answer(
					mustRR(t, ZoneProduction+`. 86400 IN DNAME edelivery.tech.ec.europa.eu.`),
					mustRR(t, q+` 86400 IN CNAME `+legacy),
					mustRR(t, legacy+` 60 IN NAPTR 100 10 "U" "Meta:SMP" "!.*!https://smp.example.com/!" .`),
				)
			},
			want: &Result{BaseURL: "https://smp.example.com/", Order: 100, Preference: 10, Regexp: "!.*!https://smp.example.com/!", TTL: 60},
			udp:  1,
		},
		{
			name: "DNAME without synthesized CNAME",
			h: func(t *testing.T) handler {
				legacy := strings.TrimSuffix(q, ZoneProduction+".") + "edelivery.tech.ec.europa.eu."
				return answer(
					mustRR(t, `Participant.SML.prod.tech.peppol.org. 30 IN DNAME edelivery.tech.ec.europa.eu.`),
					mustRR(t, legacy+` 60 IN NAPTR 100 10 "U" "Meta:SMP" "!.*!https://smp.example.com/!" .`),
				)
			},
			want: &Result{BaseURL: "https://smp.example.com/", Order: 100, Preference: 10, Regexp: "!.*!https://smp.example.com/!", TTL: 30},
			udp:  1,
		},
		{
			// The answer is about alias.example.net, so its SOA is example.net's, not the
			// SML zone's: the zone's own SOA is checked through the same server.
			name: "CNAME to a name without NAPTR",
			h: func(t *testing.T) handler {
				return withZone(t, ZoneProduction, negative(dns.RcodeSuccess, []dns.RR{mustRR(t, q+` 300 IN CNAME alias.example.net.`)}, soaRR(t, "example.net")))
			},
			wantKind: KindNotRegistered, rcode: dns.RcodeSuccess, udp: 2,
		},
		{
			name: "CNAME loop",
			h: func(t *testing.T) handler {
				return answer(mustRR(t, q+` 300 IN CNAME a.example.net.`), mustRR(t, `a.example.net. 300 IN CNAME `+q))
			},
			wantKind: KindDNSFailure, rcode: NoRcode, udp: 2, msg: "malformed reply: alias chain from " + q + " loops",
		},
		{
			name: "U Meta:SMP whose URL has a query: registered, but no usable SMP",
			h: func(t *testing.T) handler {
				return answer(mustRR(t, smp(100, 10, "!.*!https://smp.example.com/?a=b!")))
			},
			wantKind: KindNoSMPService, rcode: dns.RcodeSuccess, udp: 1, msg: "no usable SMP",
		},
		{
			name: "referral: NOERROR, no answer, NS in authority, neither RA nor AA",
			h: func(t *testing.T) handler {
				return flagged(dns.RcodeSuccess, false, false, mustRR(t, `peppol.org. 3600 IN NS ns1.example.net.`))
			},
			wantKind: KindDNSFailure, rcode: dns.RcodeSuccess, udp: 2, msg: srvAddr + ": server is not a recursive resolver for this name",
		},
		{
			name:     "lame NXDOMAIN, neither RA nor AA",
			h:        func(*testing.T) handler { return flagged(dns.RcodeNameError, false, false) },
			wantKind: KindDNSFailure, rcode: dns.RcodeNameError, udp: 2, msg: "not a recursive resolver",
		},
		{
			name:     "NOERROR without records from a recursive resolver (RA, not AA)",
			h:        func(t *testing.T) handler { return flagged(dns.RcodeSuccess, true, false, soaRR(t, ZoneProduction)) },
			wantKind: KindNotRegistered, rcode: dns.RcodeSuccess, udp: 1,
		},
		{
			name:     "NXDOMAIN from a recursive resolver (RA, not AA)",
			h:        func(t *testing.T) handler { return flagged(dns.RcodeNameError, true, false, soaRR(t, ZoneProduction)) },
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 1,
		},
		{
			name: "records are an answer even without RA or AA",
			h: func(t *testing.T) handler {
				rr := mustRR(t, smp(100, 10, "!.*!https://smp.example.com/!"))
				return func(w dns.ResponseWriter, req *dns.Msg, _ bool) {
					m := reply(req, dns.RcodeSuccess, rr)
					m.Authoritative = false
					_ = w.WriteMsg(m)
				}
			},
			want: &Result{BaseURL: "https://smp.example.com/", Order: 100, Preference: 10, Regexp: "!.*!https://smp.example.com/!", TTL: 60},
			udp:  1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.h(t))
			r := newTestResolver(t, Config{Servers: []string{srv.addr}, Timeout: tt.timeout, Attempts: tt.attempts})
			res, err := r.Lookup(context.Background(), testID)
			if got := srv.udp.Load(); got != tt.udp {
				t.Errorf("UDP queries = %d, want %d", got, tt.udp)
			}
			if got := srv.tcp.Load(); got != tt.tcp {
				t.Errorf("TCP queries = %d, want %d", got, tt.tcp)
			}
			if tt.want != nil {
				if err != nil {
					t.Fatalf("Lookup: %v", err)
				}
				want := *tt.want
				want.Name, want.Server = strings.TrimSuffix(q, "."), srv.addr
				if *res != want {
					t.Fatalf("Lookup = %+v\nwant     %+v", *res, want)
				}
				return
			}
			if res != nil {
				t.Fatalf("Lookup = %+v, want an error of kind %v", *res, tt.wantKind)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Lookup error %T %v is not an *Error", err, err)
			}
			if e.Kind != tt.wantKind || e.Rcode != tt.rcode || e.Name != strings.TrimSuffix(q, ".") || e.Server != srv.addr {
				t.Fatalf("Lookup error = %+v, want kind %v rcode %d from %s", *e, tt.wantKind, tt.rcode, srv.addr)
			}
			checkClass(t, err, tt.wantKind)
			if msg := strings.ReplaceAll(tt.msg, srvAddr, srv.addr); !strings.Contains(err.Error(), msg) {
				t.Errorf("message %q lacks %q", err, msg)
			}
		})
	}
}

// srvAddr stands for the test server's address in expected messages.
const srvAddr = "$SERVER"

// checkClass asserts the errors.Is matrix of the sentinels for kind.
func checkClass(t *testing.T, err error, kind Kind) {
	t.Helper()
	want := map[error]bool{
		ErrNotRegistered: kind == KindNotRegistered,
		ErrNoSMPService:  kind == KindNoSMPService,
		ErrDNSFailure:    kind == KindDNSFailure,
	}
	for sentinel, w := range want {
		if errors.Is(err, sentinel) != w {
			t.Errorf("errors.Is(%v, %v) = %v, want %v", err, sentinel, !w, w)
		}
	}
	var e *Error
	if errors.As(err, &e) && e.Retryable() != (kind == KindDNSFailure) {
		t.Errorf("Retryable() = %v for kind %v", e.Retryable(), kind)
	}
	retry := strings.Contains(err.Error(), "retryable")
	if retry != (kind == KindDNSFailure) {
		t.Errorf("message %q: says retryable = %v, want %v", err, retry, kind == KindDNSFailure)
	}
}

func TestLookupRequest(t *testing.T) {
	srv := startServer(t, withZoneSOA(t, rcode(dns.RcodeNameError)))
	r := newTestResolver(t, Config{Servers: []string{srv.addr}})
	if _, err := r.Lookup(context.Background(), testID); !errors.Is(err, ErrNotRegistered) {
		t.Fatalf("Lookup: %v", err)
	}
	req := srv.lastReq.Load()
	if req == nil {
		t.Fatal("server saw no query")
	}
	if !req.RecursionDesired {
		t.Error("RD bit not set")
	}
	if opt := req.IsEdns0(); opt == nil || opt.UDPSize() != 4096 {
		t.Errorf("EDNS0 = %v, want a 4096-byte buffer", opt)
	}
	if len(req.Question) != 1 || req.Question[0].Name != testQName || req.Question[0].Qtype != dns.TypeNAPTR || req.Question[0].Qclass != dns.ClassINET {
		t.Errorf("question = %v, want %s IN NAPTR", req.Question, testQName)
	}
}

func TestLookupServers(t *testing.T) {
	good := func(t *testing.T) *testServer {
		return startServer(t, answer(mustRR(t, testQName+` 60 IN NAPTR 100 10 "U" "Meta:SMP" "!.*!https://smp.example.com/!" .`)))
	}
	tests := []struct {
		name  string
		first func(t *testing.T) string
	}{
		{"first server port closed", func(t *testing.T) string { return deadAddr(t) }},
		{"first server silent", func(t *testing.T) string { return startServer(t, silent).addr }},
		{"first server SERVFAIL", func(t *testing.T) string { return startServer(t, rcode(dns.RcodeServerFailure)).addr }},
		{"first server REFUSED", func(t *testing.T) string { return startServer(t, rcode(dns.RcodeRefused)).addr }},
		{"first server lame", func(t *testing.T) string { return startServer(t, flagged(dns.RcodeSuccess, false, false)).addr }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second := tt.first(t), good(t)
			r := newTestResolver(t, Config{Servers: []string{first, second.addr}, Timeout: time.Second})
			res, err := r.Lookup(context.Background(), testID)
			if err != nil {
				t.Fatalf("Lookup: %v", err)
			}
			if res.Server != second.addr || res.BaseURL != "https://smp.example.com/" {
				t.Fatalf("Lookup = %+v, want https://smp.example.com/ from %s", *res, second.addr)
			}
		})
	}

	t.Run("NXDOMAIN from the first server is final", func(t *testing.T) {
		first, second := startServer(t, withZoneSOA(t, rcode(dns.RcodeNameError))), good(t)
		r := newTestResolver(t, Config{Servers: []string{first.addr, second.addr}})
		_, err := r.Lookup(context.Background(), testID)
		checkClass(t, err, KindNotRegistered)
		if n := second.udp.Load(); n != 0 {
			t.Errorf("second server asked %d times after a definite NXDOMAIN", n)
		}
	})

	t.Run("attempts walk the list", func(t *testing.T) {
		a, b := startServer(t, rcode(dns.RcodeServerFailure)), startServer(t, rcode(dns.RcodeRefused))
		r := newTestResolver(t, Config{Servers: []string{a.addr, b.addr}, Attempts: 3})
		_, err := r.Lookup(context.Background(), testID)
		checkClass(t, err, KindDNSFailure)
		var e *Error
		if !errors.As(err, &e) || e.Server != b.addr || e.Rcode != dns.RcodeRefused || e.Attempts != 6 {
			t.Fatalf("error = %#v, want REFUSED from %s after 6 queries", e, b.addr)
		}
		if a.udp.Load() != 3 || b.udp.Load() != 3 {
			t.Errorf("queries = %d, %d; want 3 each", a.udp.Load(), b.udp.Load())
		}
		if want := a.addr + " answered SERVFAIL; " + b.addr + " answered REFUSED (6 queries sent)"; !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	})
}

func TestLookupContext(t *testing.T) {
	t.Run("cancelled before", func(t *testing.T) {
		srv := startServer(t, answer())
		r := newTestResolver(t, Config{Servers: []string{srv.addr}})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := r.Lookup(ctx, testID)
		checkClass(t, err, KindDNSFailure)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v does not wrap context.Canceled", err)
		}
		if n := srv.udp.Load(); n != 0 {
			t.Errorf("%d queries sent with a cancelled context", n)
		}
	})

	// With an hour-long per-attempt timeout, only honouring ctx ends these lookups; the
	// guard turns a hang into a failure instead of a stuck test.
	tests := []struct {
		name string
		ctx  func(started <-chan struct{}) (context.Context, context.CancelFunc)
		want error
	}{
		{"cancelled during the query", func(started <-chan struct{}) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-started; cancel() }()
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func(<-chan struct{}) (context.Context, context.CancelFunc) {
			// Long enough for the query to be sent on a busy machine first.
			return context.WithTimeout(context.Background(), time.Second)
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			srv := startServer(t, func(dns.ResponseWriter, *dns.Msg, bool) {
				select {
				case started <- struct{}{}:
				default:
				}
			})
			r := newTestResolver(t, Config{Servers: []string{srv.addr}, Timeout: time.Hour})
			ctx, cancel := tt.ctx(started)
			defer cancel()
			done := make(chan error, 1)
			go func() { _, err := r.Lookup(ctx, testID); done <- err }()
			select {
			case err := <-done:
				checkClass(t, err, KindDNSFailure)
				if !errors.Is(err, tt.want) {
					t.Errorf("error %v does not wrap %v", err, tt.want)
				}
				if n := srv.udp.Load(); n != 1 {
					t.Errorf("%d queries sent, want 1", n)
				}
			case <-time.After(time.Minute):
				t.Fatal("Lookup ignored its context")
			}
		})
	}
}

// The observed records of the shared vectors, served over the wire, must give the
// published SMP URLs.
func TestLookupUpstreamObserved(t *testing.T) {
	v := readUpstreamVectors(t)
	checked := 0
	for _, vec := range v.NAPTR {
		for _, obs := range vec.Observed {
			if obs.Record == "" {
				continue
			}
			id, err := peppol.ParseParticipantID(vec.Value)
			if err != nil {
				t.Fatal(err)
			}
			rr := mustRR(t, dns.Fqdn(vec.Expected)+" 60 IN NAPTR "+quoteNAPTR(obs.Record))
			srv := startServer(t, answer(rr))
			r := newTestResolver(t, Config{Servers: []string{srv.addr}, Zone: vec.Zone})
			res, err := r.Lookup(context.Background(), id)
			if err != nil {
				t.Fatalf("%s: %v", vec.Value, err)
			}
			want := map[string]string{
				"9915:test":      "http://test-infra.peppol.at",
				"0192:923609016": "https://smp.elma-smp.no/",
			}[vec.Value]
			if res.BaseURL != want || res.Name != vec.Expected || res.Order != 100 || res.Preference != 10 {
				t.Errorf("%s: Lookup = %+v, want %s for %s, order 100, preference 10", vec.Value, *res, want, vec.Expected)
			}
			checked++
		}
	}
	if checked < 2 {
		t.Fatalf("checked %d observed records, want at least 2", checked)
	}
}

// quoteNAPTR quotes the character-strings of a NAPTR rdata copied from tools that print
// them bare ("100 10 U Meta:SMP !.*!https://x/! ."), as the zone-file parser requires.
func quoteNAPTR(rdata string) string {
	f := strings.Fields(rdata)
	if len(f) != 6 {
		return rdata
	}
	for i := 2; i <= 4; i++ {
		if !strings.HasPrefix(f[i], `"`) {
			f[i] = `"` + f[i] + `"`
		}
	}
	return strings.Join(f, " ")
}

func TestLookupInvalidInput(t *testing.T) {
	srv := startServer(t, answer())
	r := newTestResolver(t, Config{Servers: []string{srv.addr}})
	_, err := r.Lookup(context.Background(), peppol.ParticipantID{})
	if err == nil || errors.Is(err, ErrNotRegistered) || errors.Is(err, ErrDNSFailure) {
		t.Errorf("Lookup(zero id) = %v, want a plain error", err)
	}
	var zero Resolver
	_, err = zero.Lookup(context.Background(), testID)
	checkClass(t, err, KindDNSFailure)
	if srv.udp.Load() != 0 {
		t.Error("queries sent for invalid input")
	}
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "# comment\nsearch example.com\nnameserver 192.0.2.1\nnameserver 2001:db8::1\noptions ndots:1\n")
	empty := write("empty", "search example.com\n")
	tests := []struct {
		name       string
		cfg        Config
		resolvConf string
		servers    []string
		zone       string
		timeout    time.Duration
		attempts   int
		errPart    string
	}{
		{"defaults from resolv.conf", Config{}, good, []string{"192.0.2.1:53", "[2001:db8::1]:53"}, ZoneProduction, DefaultTimeout, DefaultAttempts, ""},
		{"explicit", Config{Servers: []string{"127.0.0.1:5353", "[::1]:53", "dns.example:53"}, Zone: "Participant.SML.Test.Tech.Peppol.Org.", Timeout: time.Second, Attempts: 4}, "/nonexistent", []string{"127.0.0.1:5353", "[::1]:53", "dns.example:53"}, ZoneTest, time.Second, 4, ""},
		{"unreadable resolv.conf", Config{}, filepath.Join(dir, "missing"), nil, "", 0, 0, "system resolvers"},
		{"resolv.conf without servers", Config{}, empty, nil, "", 0, 0, "names none"},
		{"no port", Config{Servers: []string{"127.0.0.1"}}, good, nil, "", 0, 0, "not host:port"},
		{"bad port", Config{Servers: []string{"127.0.0.1:dns"}}, good, nil, "", 0, 0, "not host:port"},
		{"port zero", Config{Servers: []string{"127.0.0.1:0"}}, good, nil, "", 0, 0, "not host:port"},
		{"no host", Config{Servers: []string{":53"}}, good, nil, "", 0, 0, "not host:port"},
		{"bad zone", Config{Servers: []string{"127.0.0.1:53"}, Zone: "a..b"}, good, nil, "", 0, 0, "not a domain name"},
		{"negative timeout", Config{Servers: []string{"127.0.0.1:53"}, Timeout: -time.Second}, good, nil, "", 0, 0, "negative"},
		{"negative attempts", Config{Servers: []string{"127.0.0.1:53"}, Attempts: -1}, good, nil, "", 0, 0, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := newResolver(tt.cfg, tt.resolvConf)
			if tt.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) {
					t.Fatalf("newResolver = %v, want an error containing %q", err, tt.errPart)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.servers, tt.servers) || r.Zone() != tt.zone || r.timeout != tt.timeout || r.attempts != tt.attempts {
				t.Fatalf("resolver = %+v, want servers %v zone %s timeout %v attempts %d", *r, tt.servers, tt.zone, tt.timeout, tt.attempts)
			}
		})
	}
}

func TestErrorMessages(t *testing.T) {
	name := strings.TrimSuffix(testQName, ".")
	tests := []struct {
		err  *Error
		want []string
	}{
		{&Error{Kind: KindNotRegistered, Name: name, Server: "192.0.2.1:53", Rcode: dns.RcodeNameError}, []string{"not registered", name, "NXDOMAIN", "192.0.2.1:53"}},
		{&Error{Kind: KindNotRegistered, Name: name, Server: "192.0.2.1:53", Rcode: dns.RcodeSuccess}, []string{"not registered", "no NAPTR records", "NOERROR"}},
		{&Error{Kind: KindNoSMPService, Name: name, Server: "192.0.2.1:53", Rcode: dns.RcodeSuccess}, []string{"no usable SMP", "Meta:SMP"}},
		{&Error{Kind: KindDNSFailure, Name: name, Server: "192.0.2.1:53", Rcode: dns.RcodeServerFailure, Attempts: 2}, []string{"failed", "unknown", "retryable", "SERVFAIL", "2 queries"}},
		{&Error{Kind: KindDNSFailure, Name: name, Server: "192.0.2.1:53", Rcode: 3841}, []string{"rcode 3841"}},
		{&Error{Kind: KindDNSFailure, Name: name, Server: "192.0.2.1:53", Rcode: NoRcode, Err: errors.New("udp: no reply within 2s")}, []string{"retryable", "192.0.2.1:53: udp: no reply within 2s"}},
		{&Error{Kind: KindDNSFailure, Name: name, Rcode: NoRcode, Err: context.Canceled}, []string{"retryable", "context canceled"}},
	}
	for _, tt := range tests {
		msg := tt.err.Error()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v message %q lacks %q", tt.err.Kind, msg, w)
			}
		}
		checkClass(t, tt.err, tt.err.Kind)
	}
	if s := Kind(0).String(); s != "Kind(0)" {
		t.Errorf("Kind(0).String() = %q", s)
	}
}

// TestNoReplyIsATimeout checks that callers can tell a query timeout from other DNS
// failures.
func TestNoReplyIsATimeout(t *testing.T) {
	err := error(&Error{Kind: KindDNSFailure, Rcode: NoRcode, Err: &noReplyError{network: "udp", timeout: time.Second}})
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !strings.Contains(err.Error(), "udp: no reply within 1s") {
		t.Errorf("%v: not a net.Error timeout", err)
	}
}
