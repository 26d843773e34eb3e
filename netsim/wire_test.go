package netsim_test

// End-to-end wire tests: the project's real clients (peppol/sml, peppol/smp,
// peppol/directory) against the simulated network, which writes its DNS answers, XML and
// JSON independently. Every fault mode must map to the right typed outcome.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
)

var wireNow = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)

type wireEnv struct {
	net *netsim.Network
	res *sml.Resolver
	smp *smp.Client
	dir *directory.Client
}

func startWire(t *testing.T) *wireEnv {
	t.Helper()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 300, Now: wireNow})
	n, err := netsim.Start(context.Background(), ds, netsim.Config{})
	if err != nil {
		t.Fatalf("netsim.Start: %v", err)
	}
	t.Cleanup(func() { n.Close() })
	res, err := sml.New(sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone(), Timeout: 2 * time.Second, Attempts: 1})
	if err != nil {
		t.Fatalf("sml.New: %v", err)
	}
	return &wireEnv{
		net: n,
		res: res,
		smp: &smp.Client{HTTP: &http.Client{}, Timeout: 2 * time.Second, MaxBody: 256 << 10},
		dir: &directory.Client{HTTP: &http.Client{}, Base: n.DirectoryURL(), Timeout: 2 * time.Second, MaxBody: 256 << 10},
	}
}

func mustID(t *testing.T, s string) peppol.ParticipantID {
	t.Helper()
	id, err := peppol.ParseParticipantID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestWireChain runs the whole SML → ServiceGroup → ServiceMetadata chain and the
// Directory query for well-known participants and checks the values against the dataset.
func TestWireChain(t *testing.T) {
	t.Parallel()
	e := startWire(t)
	ctx := context.Background()
	for _, s := range []string{netsim.KnownBelgian, netsim.KnownBelgianVAT, netsim.KnownNorwegian, netsim.KnownGLN,
		netsim.KnownFrenchSIREN, netsim.KnownAustralian, netsim.KnownRedirect, netsim.KnownSMLOnly} {
		t.Run(s, func(t *testing.T) {
			id := mustID(t, s)
			want, ok := e.net.Dataset().Lookup(id)
			if !ok {
				t.Fatalf("%s not in dataset", s)
			}
			r, err := e.res.Lookup(ctx, id)
			if err != nil {
				t.Fatalf("sml: %v", err)
			}
			if r.Name != sml.NAPTRName(id, e.net.Zone()) {
				t.Errorf("queried %s, want %s", r.Name, sml.NAPTRName(id, e.net.Zone()))
			}
			if strings.TrimSuffix(r.BaseURL, "/") != strings.TrimSuffix(e.net.SMPBaseURL(want.SMPHost), "/") {
				t.Errorf("base %s, want SMP host %d %s", r.BaseURL, want.SMPHost, e.net.SMPBaseURL(want.SMPHost))
			}
			sg, err := e.smp.ServiceGroup(ctx, r.BaseURL, id)
			if err != nil {
				t.Fatalf("ServiceGroup: %v", err)
			}
			if sg.Participant.Value != id.String() || len(sg.DocumentTypes) != len(want.Services) || len(sg.SkippedReferences) != 0 {
				t.Fatalf("ServiceGroup = %s with %d doc types (%d skipped), want %s with %d",
					sg.Participant.Value, len(sg.DocumentTypes), len(sg.SkippedReferences), id, len(want.Services))
			}
			for i, svc := range want.Services {
				dt := smp.Identifier{Scheme: svc.DocumentType.Scheme, Value: svc.DocumentType.Value}
				if sg.DocumentTypes[i] != dt {
					t.Errorf("doc type %d = %v, want %v", i, sg.DocumentTypes[i], dt)
				}
				sm, err := e.smp.ServiceMetadata(ctx, r.BaseURL, id, dt)
				if err != nil {
					t.Fatalf("ServiceMetadata %s: %v", dt, err)
				}
				if sm.DocumentType != dt || len(sm.Processes) != len(svc.Processes) {
					t.Fatalf("ServiceMetadata = %v with %d processes, want %v with %d", sm.DocumentType, len(sm.Processes), dt, len(svc.Processes))
				}
				ep, wantEP := sm.Processes[0].Endpoints[0], svc.Processes[0].Endpoints[0]
				if ep.Address != wantEP.Address || ep.TransportProfile != wantEP.TransportProfile {
					t.Errorf("endpoint %s %s, want %s %s", ep.TransportProfile, ep.Address, wantEP.TransportProfile, wantEP.Address)
				}
				ap := e.net.Dataset().AccessPoints[wantEP.AccessPoint]
				if ep.Certificate == nil || !ep.Certificate.NotAfter.Equal(ap.NotAfter) || ep.Certificate.Subject == "" {
					t.Errorf("certificate %+v, want notAfter %s", ep.Certificate, ap.NotAfter)
				}
				if !wantEP.ActivationDate.IsZero() && (ep.ActivationDate == nil || !ep.ActivationDate.Equal(wantEP.ActivationDate)) {
					t.Errorf("activation %v, want %s", ep.ActivationDate, wantEP.ActivationDate)
				}
				if s == netsim.KnownRedirect && sm.FollowedRedirect == nil {
					t.Errorf("redirect participant: no redirect followed")
				}
			}
			res, err := e.dir.Search(ctx, directory.Query{Participant: id})
			if err != nil {
				t.Fatalf("directory: %v", err)
			}
			if want.Card == nil {
				if len(res.Matches) != 0 {
					t.Fatalf("directory has %d matches for a participant without card", len(res.Matches))
				}
				return
			}
			if len(res.Matches) != 1 || res.Matches[0].Participant != id {
				t.Fatalf("directory matches %+v, want exactly %s", res.Matches, id)
			}
			m := res.Matches[0]
			if m.Name() != want.Card.Entities[0].Names[0].Name || len(m.Entities) != len(want.Card.Entities) || len(m.DocTypes) != len(want.Card.DocTypes) {
				t.Errorf("card %q with %d entities, %d doc types; want %q, %d, %d", m.Name(), len(m.Entities), len(m.DocTypes),
					want.Card.Entities[0].Names[0].Name, len(want.Card.Entities), len(want.Card.DocTypes))
			}
		})
	}
}

// TestWireNegative checks that absence is reported as absence, by the right layer.
func TestWireNegative(t *testing.T) {
	t.Parallel()
	e := startWire(t)
	ctx := context.Background()

	_, err := e.res.Lookup(ctx, mustID(t, netsim.KnownDirectoryOnly))
	if !errors.Is(err, sml.ErrNotRegistered) || errors.Is(err, sml.ErrDNSFailure) {
		t.Errorf("directory-only participant: sml error %v, want not registered", err)
	}
	_, err = e.res.Lookup(ctx, mustID(t, "9999:nobody"))
	if !errors.Is(err, sml.ErrNotRegistered) {
		t.Errorf("unknown participant: %v, want not registered", err)
	}

	id := mustID(t, netsim.KnownSMPNotFound)
	r, err := e.res.Lookup(ctx, id)
	if err != nil {
		t.Fatalf("sml: %v", err)
	}
	if _, err := e.smp.ServiceGroup(ctx, r.BaseURL, id); !errors.Is(err, smp.ErrNotFound) || errors.Is(err, smp.ErrUnavailable) {
		t.Errorf("SMP 404: %v, want ErrNotFound only", err)
	}
	known := mustID(t, netsim.KnownBelgian)
	kr, err := e.res.Lookup(ctx, known)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.smp.ServiceMetadata(ctx, kr.BaseURL, known, smp.Identifier{Scheme: "busdox-docid-qns", Value: "urn:no:such#doc"}); !errors.Is(err, smp.ErrNotFound) {
		t.Errorf("unknown doc type: %v, want ErrNotFound", err)
	}
	res, err := e.dir.Search(ctx, directory.Query{Participant: mustID(t, netsim.KnownSMLOnly)})
	if err != nil || res.TotalCount != 0 || len(res.Matches) != 0 {
		t.Errorf("directory miss: %+v, %v; want an empty result and no error", res, err)
	}
}

// TestWireFaults injects each fault and checks the typed outcome each client reports.
func TestWireFaults(t *testing.T) {
	t.Parallel()
	e := startWire(t)
	id := mustID(t, netsim.KnownNorwegian)
	want, _ := e.net.Dataset().Lookup(id)
	smpHost := netsim.SMPHostTarget(want.SMPHost)

	tests := []struct {
		name   string
		target netsim.Target
		fault  netsim.Fault
		call   string // "sml", "smp" or "dir"
		check  func(error) bool
	}{
		{"DNS SERVFAIL", netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail}, "sml", isDNSFailure},
		{"DNS REFUSED", netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSRefused}, "sml", isDNSFailure},
		{"DNS timeout", netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSTimeout}, "sml", isDNSFailure},
		{"DNS SERVFAIL for one participant", netsim.ParticipantTarget(id), netsim.Fault{DNS: netsim.DNSServFail}, "sml", isDNSFailure},
		{"DNS truncated → TCP", netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSTruncate}, "sml", isNil},
		{"DNS latency", netsim.DNSTarget(), netsim.Fault{Latency: 50 * time.Millisecond}, "sml", isNil},
		{"SMP 500", smpHost, netsim.Fault{HTTPStatus: 500}, "smp", isSMPUnavailable},
		{"SMP 503 one participant", netsim.ParticipantTarget(id), netsim.Fault{HTTPStatus: 503}, "smp", isSMPUnavailable},
		{"SMP hang → timeout", smpHost, netsim.Fault{Hang: true}, "smp", isSMPUnavailable},
		{"SMP slow body past deadline", smpHost, netsim.Fault{SlowBody: 5 * time.Second}, "smp", isSMPUnavailable},
		{"SMP malformed XML", smpHost, netsim.Fault{Malformed: true}, "smp", isSMPUnavailable},
		{"SMP oversize body", smpHost, netsim.Fault{OversizeBody: 1 << 20}, "smp", isSMPUnavailable},
		{"SMP latency within deadline", smpHost, netsim.Fault{Latency: 50 * time.Millisecond}, "smp", isNil},
		{"Directory 429", netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 429, RetryAfter: "7"}, "dir", retryAfter(7 * time.Second)},
		{"Directory 500", netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500}, "dir", isDirUnavailable},
		{"Directory malformed JSON", netsim.DirectoryTarget(), netsim.Fault{Malformed: true}, "dir", isDirUnavailable},
		{"Directory hang", netsim.DirectoryTarget(), netsim.Fault{Hang: true}, "dir", isDirUnavailable},
		{"Directory oversize body", netsim.DirectoryTarget(), netsim.Fault{OversizeBody: 1 << 20}, "dir", isDirUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.net.ClearFaults()
			var base string
			if tt.call == "smp" {
				r, err := e.res.Lookup(context.Background(), id)
				if err != nil {
					t.Fatalf("sml before the SMP fault: %v", err)
				}
				base = r.BaseURL
			}
			e.net.SetFault(tt.target, tt.fault)
			t.Cleanup(e.net.ClearFaults)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var err error
			switch tt.call {
			case "sml":
				_, err = e.res.Lookup(ctx, id)
			case "smp":
				_, err = e.smp.ServiceGroup(ctx, base, id)
			case "dir":
				_, err = e.dir.Search(ctx, directory.Query{Q: "as"})
			}
			if !tt.check(err) {
				t.Fatalf("%s under fault %+v: got %v", tt.call, tt.fault, err)
			}
		})
	}
}

// TestWireDirectoryNeverLeaksContacts proves contacts served by the Directory do not
// reach the client's model.
func TestWireDirectoryNeverLeaksContacts(t *testing.T) {
	t.Parallel()
	e := startWire(t)
	id := mustID(t, netsim.KnownBelgian)
	p, _ := e.net.Dataset().Lookup(id)
	var emails []string
	for _, ent := range p.Card.Entities {
		for _, c := range ent.Contacts {
			emails = append(emails, c.Email)
		}
	}
	if len(emails) == 0 {
		t.Skip("dataset card has no contacts to check")
	}
	res, err := e.dir.Search(context.Background(), directory.Query{Participant: id})
	if err != nil {
		t.Fatal(err)
	}
	dump := strings.ToLower(fmtAll(res))
	for _, m := range emails {
		if m != "" && strings.Contains(dump, strings.ToLower(m)) {
			t.Errorf("contact e-mail %q reached the client model", m)
		}
	}
}

func isNil(err error) bool { return err == nil }
func isDNSFailure(err error) bool {
	return errors.Is(err, sml.ErrDNSFailure) && !errors.Is(err, sml.ErrNotRegistered)
}
func isSMPUnavailable(err error) bool {
	return errors.Is(err, smp.ErrUnavailable) && !errors.Is(err, smp.ErrNotFound)
}
func isDirUnavailable(err error) bool {
	return errors.Is(err, directory.ErrUnavailable) && !errors.Is(err, directory.ErrRateLimited)
}

func retryAfter(d time.Duration) func(error) bool {
	return func(err error) bool {
		var rl *directory.RateLimitError
		return errors.Is(err, directory.ErrRateLimited) && errors.As(err, &rl) && rl.RetryAfter == d
	}
}

func fmtAll(v any) string { return fmt.Sprintf("%#v", v) }
