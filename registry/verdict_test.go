package registry

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestJudge: the verdict from a lookup alone, from services, and from failures, for
// every kind of block.
func TestJudge(t *testing.T) {
	t.Parallel()
	inv := CodeInfo{ID: "busdox-docid-qns::x::Invoice##y", Value: "x::Invoice##y", Category: "Invoice"}
	cn := CodeInfo{ID: "busdox-docid-qns::x::CreditNote##y", Value: "x::CreditNote##y", Category: "Credit Note"}
	odd := CodeInfo{ID: "busdox-docid-qns::z::CreditNote##odd", Value: "z::CreditNote##odd", NonStandard: true}
	w := func(codes ...string) []Warning {
		var ws []Warning
		for _, c := range codes {
			ws = append(ws, Warning{Code: c, Message: c})
		}
		return ws
	}
	lookup := func(types []CodeInfo, ws ...string) *Participant {
		return &Participant{SMP: &SMPRecord{DocumentTypes: types, Endpoint: &Endpoint{DocumentType: inv.ID, URL: "https://ap.example/as4"}}, Warnings: w(ws...)}
	}
	lookupNoEndpoint := func(types []CodeInfo, ws ...string) *Participant {
		return &Participant{SMP: &SMPRecord{DocumentTypes: types}, Warnings: w(ws...)}
	}
	service := func(t CodeInfo, svcWarn []string, epWarn ...[]string) Service {
		s := Service{DocumentType: t, Warnings: w(svcWarn...)}
		var eps []EndpointInfo
		for _, ew := range epWarn {
			eps = append(eps, EndpointInfo{URL: "https://ap.example/as4", Warnings: w(ew...)})
		}
		if eps != nil {
			s.Processes = []ProcessInfo{{Endpoints: eps}}
		}
		return s
	}
	services := func(s ...Service) *ServicesResult { return &ServicesResult{Services: s} }
	tests := []struct {
		name    string
		ev      Evidence
		kinds   []string
		reach   Reach
		blocked []string
		ap      bool
	}{
		{"lookup receives", Evidence{Participant: lookup([]CodeInfo{inv, cn})}, nil, Receives, nil, true},
		{"lookup, kinds", Evidence{Participant: lookup([]CodeInfo{inv, cn})}, DefaultKinds(), Receives, nil, true},
		{"kind by root element", Evidence{Participant: lookup([]CodeInfo{inv, odd})}, []string{"invoice", "CREDIT NOTE"}, Receives, nil, true},
		{"lookup without credit note", Evidence{Participant: lookup([]CodeInfo{inv})}, DefaultKinds(), WithoutDocument, nil, true},
		{"lookup expired certificate", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnCertificateExpired, WarnCertificateExpiring)}, DefaultKinds(), Blocked, []string{WarnCertificateExpired}, true},
		{"lookup revoked", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnCertificateRevoked)}, DefaultKinds(), Blocked, []string{WarnCertificateRevoked}, true},
		{"lookup foreign AP CA", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnCertificateChainInvalid)}, DefaultKinds(), Blocked, []string{WarnCertificateChainInvalid}, true},
		{"lookup tampered", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnSMPSignatureInvalid)}, DefaultKinds(), Blocked, []string{WarnSMPSignatureInvalid}, false},
		{"lookup unsigned", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnSMPSignatureMissing)}, DefaultKinds(), Blocked, []string{WarnSMPSignatureMissing}, false},
		{"lookup foreign signer", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnSMPCertificateNotPeppol)}, DefaultKinds(), Blocked, []string{WarnSMPCertificateNotPeppol}, false},
		{"lookup unsigned without credit note", Evidence{Participant: lookup([]CodeInfo{inv}, WarnSMPSignatureMissing)}, DefaultKinds(), WithoutDocument, []string{WarnSMPSignatureMissing}, false},
		{"revocation unknown does not block", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnCertificateRevocationUnknown)}, DefaultKinds(), Receives, nil, true},
		{"not registered", Evidence{Err: &Error{Code: CodeNotFound}}, DefaultKinds(), NotRegistered, nil, false},
		{"card only", Evidence{Participant: &Participant{Directory: &DirectoryRecord{}}}, DefaultKinds(), NotRegistered, nil, false},
		{"SMP does not know it", Evidence{Participant: &Participant{SMP: &SMPRecord{}, Warnings: w(WarnSMPNotFound)}}, DefaultKinds(), NotRegistered, nil, false},
		{"upstream failed", Evidence{Err: &Error{Code: CodeLookupFailed}}, DefaultKinds(), Unknown, nil, false},
		{"other error", Evidence{Err: errors.New("boom")}, DefaultKinds(), Unknown, nil, false},
		{"services: one good endpoint is enough", Evidence{Services: services(service(inv, nil, []string{}, []string{WarnCertificateExpired}), service(cn, nil, nil))}, DefaultKinds(), Receives, nil, false},
		{"services: every endpoint blocked", Evidence{Services: services(service(inv, nil, []string{WarnCertificateExpired}), service(cn, nil, []string{WarnCertificateExpired}))}, DefaultKinds(), Blocked, []string{WarnCertificateExpired}, false},
		{"services: signature on the service", Evidence{Services: services(service(inv, []string{WarnSMPSignatureInvalid}, nil), service(cn, nil, nil))}, DefaultKinds(), Blocked, []string{WarnSMPSignatureInvalid}, false},
		{"services: credit note blocked, invoice fine", Evidence{Services: services(service(inv, nil, nil), service(cn, nil, []string{WarnServiceExpired}))}, DefaultKinds(), Blocked, []string{WarnServiceExpired}, false},
		{"services: any kind, one fine", Evidence{Services: services(service(inv, nil, nil), service(cn, nil, []string{WarnServiceExpired}))}, nil, Receives, nil, false},
		{"services unread: the lookup judges", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnCertificateExpired), Services: services(service(inv, []string{WarnEndpointUnavailable}), service(cn, nil, nil))}, DefaultKinds(), Blocked, []string{WarnCertificateExpired}, true},
		{"lookup: metadata 404", Evidence{Participant: lookupNoEndpoint([]CodeInfo{inv, cn}, WarnEndpointNotFound)}, DefaultKinds(), Blocked, []string{WarnEndpointNotFound}, false},
		{"lookup: metadata unavailable", Evidence{Participant: lookupNoEndpoint([]CodeInfo{inv, cn}, WarnEndpointUnavailable)}, DefaultKinds(), Unknown, nil, false},
		{"lookup: metadata unavailable, credit note not listed", Evidence{Participant: lookupNoEndpoint([]CodeInfo{inv}, WarnEndpointUnavailable)}, DefaultKinds(), WithoutDocument, nil, false},
		{"services: metadata 404", Evidence{Services: services(service(inv, []string{WarnEndpointNotFound}), service(cn, nil, nil))}, DefaultKinds(), Blocked, []string{WarnEndpointNotFound}, false},
		{"services: metadata unavailable", Evidence{Services: services(service(inv, []string{WarnEndpointUnavailable}), service(cn, nil, nil))}, DefaultKinds(), Unknown, nil, false},
		{"services: one unavailable, one blocked", Evidence{Services: services(service(inv, []string{WarnEndpointUnavailable}), service(cn, nil, []string{WarnCertificateExpired}))}, DefaultKinds(), Blocked, []string{WarnCertificateExpired}, false},
		{"services: credit note 404, the lookup's invoice endpoint does not stand for it", Evidence{Participant: lookup([]CodeInfo{inv, cn}), Services: services(service(inv, nil, nil), service(cn, []string{WarnEndpointNotFound}))}, DefaultKinds(), Blocked, []string{WarnEndpointNotFound}, true},
		{"services: credit note unavailable, the lookup's invoice endpoint does not stand for it", Evidence{Participant: lookup([]CodeInfo{inv, cn}), Services: services(service(inv, nil, nil), service(cn, []string{WarnEndpointUnavailable}))}, DefaultKinds(), Unknown, nil, true},
		{"services unreadable: the credit note is unknown", Evidence{Participant: lookup([]CodeInfo{inv, cn}), ServicesErr: &Error{Code: CodeLookupFailed}}, DefaultKinds(), Unknown, nil, true},
		{"services unreadable: a blocked invoice still blocks", Evidence{Participant: lookup([]CodeInfo{inv, cn}, WarnCertificateExpired), ServicesErr: &Error{Code: CodeLookupFailed}}, DefaultKinds(), Blocked, []string{WarnCertificateExpired}, true},
		{"services unreadable: not needed for the invoice alone", Evidence{Participant: lookup([]CodeInfo{inv}), ServicesErr: &Error{Code: CodeLookupFailed}}, []string{"Invoice"}, Receives, nil, true},
		{"services: one 404, another fine", Evidence{Services: services(service(inv, []string{WarnEndpointNotFound}), service(inv, nil, nil), service(cn, nil, nil))}, DefaultKinds(), Receives, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(tt.ev, tt.kinds)
			if v.Reach != tt.reach || !slices.Equal(v.Blocked, tt.blocked) || (v.AccessPoint != "") != tt.ap {
				t.Errorf("Judge = %+v, want %s blocked by %v, access point shown %v", v, tt.reach, tt.blocked, tt.ap)
			}
			for _, k := range v.Kinds {
				if k.Receives && (!k.Listed || k.Blocked != nil || k.Unknown) {
					t.Errorf("kind %+v receives but is not listed or is blocked", k)
				}
			}
		})
	}
}

// TestNeedsServices: the lookup alone judges only the kinds whose listed document
// types are all the one its endpoint was read for.
func TestNeedsServices(t *testing.T) {
	t.Parallel()
	inv := CodeInfo{ID: "busdox-docid-qns::x::Invoice##y", Value: "x::Invoice##y", Category: "Invoice"}
	cn := CodeInfo{ID: "busdox-docid-qns::x::CreditNote##y", Value: "x::CreditNote##y", Category: "Credit Note"}
	order := CodeInfo{ID: "busdox-docid-qns::x::Order##y", Value: "x::Order##y", Category: "Order"}
	with := func(ep string, types ...CodeInfo) *Participant {
		p := &Participant{SMP: &SMPRecord{DocumentTypes: types}}
		if ep != "" {
			p.SMP.Endpoint = &Endpoint{DocumentType: ep}
		}
		return p
	}
	tests := []struct {
		name  string
		p     *Participant
		kinds []string
		want  bool
	}{
		{"nil", nil, DefaultKinds(), false},
		{"not registered", &Participant{}, DefaultKinds(), false},
		{"SMP does not know it", &Participant{SMP: &SMPRecord{DocumentTypes: []CodeInfo{inv, cn}}, Warnings: []Warning{{Code: WarnSMPNotFound}}}, DefaultKinds(), false},
		{"only the invoice read", with(inv.ID, inv), DefaultKinds(), false},
		{"scheme in another case", with("BUSDOX-DOCID-QNS::x::Invoice##y", inv), DefaultKinds(), false},
		{"credit note besides", with(inv.ID, inv, cn), DefaultKinds(), true},
		{"credit note besides, invoices asked", with(inv.ID, inv, cn), []string{"Invoice"}, false},
		{"order besides", with(inv.ID, inv, order), DefaultKinds(), false},
		{"order besides, any asked", with(inv.ID, inv, order), nil, true},
		{"no endpoint, one type", with("", inv), DefaultKinds(), false},
		{"no endpoint, two types", with("", inv, cn), DefaultKinds(), true},
	}
	for _, tt := range tests {
		if got := tt.p.NeedsServices(tt.kinds); got != tt.want {
			t.Errorf("%s: NeedsServices = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFreshnessWith: an answer made of two is cached when both were, stale when
// either was, as old as the older and fresh as long as both are.
func TestFreshnessWith(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b Freshness
		want Freshness
	}{
		{"both fresh", Freshness{Cached: true, Age: 10 * time.Second, TTL: 900 * time.Second}, Freshness{Cached: true, Age: 5 * time.Second, TTL: 60 * time.Second}, Freshness{Cached: true, Age: 10 * time.Second, TTL: 65 * time.Second}},
		{"one miss", Freshness{TTL: 900 * time.Second}, Freshness{Cached: true, Age: 5 * time.Second, TTL: 900 * time.Second}, Freshness{Age: 5 * time.Second, TTL: 900 * time.Second}},
		{"one stale", Freshness{Cached: true, Stale: true, Age: 1000 * time.Second, TTL: 900 * time.Second}, Freshness{TTL: 900 * time.Second}, Freshness{Stale: true, Age: 1000 * time.Second, TTL: 1000 * time.Second}},
	}
	for _, tt := range tests {
		if got := tt.a.With(tt.b); got != tt.want {
			t.Errorf("%s: %+v.With(%+v) = %+v, want %+v", tt.name, tt.a, tt.b, got, tt.want)
		}
	}
}

// TestServicesFailed: any error of a services read beside a lookup is an upstream
// failure (lookup_failed), never not_found; nil stays nil.
func TestServicesFailed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want Code
	}{
		{name: "nil", err: nil, want: ""},
		{name: "not found", err: &Error{Code: CodeNotFound, Message: "unknown"}, want: CodeLookupFailed},
		{name: "lookup failed", err: &Error{Code: CodeLookupFailed, Message: "SMP down"}, want: CodeLookupFailed},
		{name: "plain", err: errors.New("boom"), want: CodeLookupFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ServicesFailed(tt.err)
			if got := ErrorCode(err); got != tt.want {
				t.Errorf("code %q, want %q", got, tt.want)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("%v does not wrap %v", err, tt.err)
			}
		})
	}
}
