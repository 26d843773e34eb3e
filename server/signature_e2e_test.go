package server

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// hasCode reports whether ws holds a warning with code.
func hasCode(ws []registry.Warning, code string) bool {
	return slices.ContainsFunc(ws, func(w registry.Warning) bool { return w.Code == code })
}

// TestE2ESignatureFaults: an SMP that signs badly is reported the same through REST,
// MCP and /ask, end to end over netsim: the signature's verdict, its warning, and for
// a signature senders refuse, /ask's "not right now" with the reason.
func TestE2ESignatureFaults(t *testing.T) {
	t.Parallel()
	id := netsim.KnownCertValid
	pid, err := peppol.ParseParticipantID(id)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		fault  netsim.SignatureFault
		status string
		code   string
		blocks bool
	}{
		{"tampered after signing", netsim.SignatureTampered, "invalid", registry.WarnSMPSignatureInvalid, true},
		{"signed with another key", netsim.SignatureWrongKey, "invalid", registry.WarnSMPSignatureInvalid, true},
		{"unsigned", netsim.SignatureUnsigned, "missing", registry.WarnSMPSignatureMissing, true},
		{"expired signer", netsim.SignatureExpiredSigner, "invalid", registry.WarnSMPSignatureInvalid, true},
		// Cryptographically sound, but by a key from nowhere: senders refuse it too.
		{"signer from another CA", netsim.SignatureOtherCA, "valid", registry.WarnSMPCertificateNotPeppol, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startE2E(t)
			e.net.SetFault(netsim.ParticipantTarget(pid), netsim.Fault{Signature: tt.fault})

			resp, body := e.get(t, "/api/v1/participant/"+id)
			p := decodeJSON[registry.Participant](t, body)
			if resp.StatusCode != http.StatusOK || p.SMP == nil || p.SMP.Signature == nil || p.SMP.Signature.Status != tt.status || !hasCode(p.Warnings, tt.code) {
				t.Errorf("REST: %d, signature %+v, warnings %+v", resp.StatusCode, p.SMP, p.Warnings)
			}

			ctx, cancel := context.WithTimeout(t.Context(), mcpTestTimeout)
			defer cancel()
			c, _ := connectMCP(t, ctx, e.url, mcpClientVariants()[0])
			_, mp := structured[registry.Participant](t, callTool(t, ctx, c, "lookup_participant", map[string]any{"participantId": id}))
			if mp.SMP == nil || mp.SMP.Signature == nil || mp.SMP.Signature.Status != tt.status || !hasCode(mp.Warnings, tt.code) {
				t.Errorf("MCP: signature %+v, warnings %+v", mp.SMP, mp.Warnings)
			}

			askResp := e.postAsk(t, t.Context(), `{"query":"Can `+id+` receive invoices?"}`, "Content-Type", "application/json")
			a := decodeJSON[nlq.Answer](t, readAll(t, askResp))
			if len(a.Results) == 0 || a.Results[0].Peppol == nil || a.Results[0].Peppol.CanReceive == nil {
				t.Fatalf("/ask: %+v", a)
			}
			info := a.Results[0].Peppol
			if *info.CanReceive == tt.blocks || slices.Contains(info.Blocked, tt.code) != tt.blocks {
				t.Errorf("/ask: canReceive %v, blocked %v; answer %s", *info.CanReceive, info.Blocked, a.Answer)
			}
		})
	}
}

// TestE2ERevocation: a revoked access point certificate, a revoked SMP signing
// certificate, and an OCSP responder that is down, through REST, MCP and /ask: revoked
// blocks sending, an unknown revocation is only a warning.
func TestE2ERevocation(t *testing.T) {
	t.Parallel()
	id := netsim.KnownCertValid
	tests := []struct {
		name       string
		setup      func(n *netsim.Network, p *netsim.Participant)
		revocation string
		code       string
		blocks     bool
	}{
		{"revoked", func(n *netsim.Network, p *netsim.Participant) {
			n.RevokeAccessPoint(p.Services[0].Processes[0].Endpoints[0].AccessPoint)
		}, "revoked", registry.WarnCertificateRevoked, true},
		{"SMP signer revoked", func(n *netsim.Network, p *netsim.Participant) { n.RevokeSMPHost(p.SMPHost) },
			"good", registry.WarnSMPSignatureInvalid, true},
		{"responder down", func(n *netsim.Network, _ *netsim.Participant) {
			n.SetFault(netsim.OCSPTarget(), netsim.Fault{HTTPStatus: http.StatusBadGateway})
		}, "unknown", registry.WarnCertificateRevocationUnknown, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startE2E(t)
			tt.setup(e.net, e.ds.MustLookup(id))

			_, body := e.get(t, "/api/v1/participant/"+id)
			rp := decodeJSON[registry.Participant](t, body)
			if rp.SMP == nil || rp.SMP.Endpoint == nil || rp.SMP.Endpoint.Certificate.Revocation != tt.revocation || !hasCode(rp.Warnings, tt.code) {
				t.Errorf("REST: %+v, warnings %+v", rp.SMP, rp.Warnings)
			}
			ctx, cancel := context.WithTimeout(t.Context(), mcpTestTimeout)
			defer cancel()
			c, _ := connectMCP(t, ctx, e.url, mcpClientVariants()[0])
			_, sv := structured[registry.ServicesResult](t, callTool(t, ctx, c, "get_participant_services", map[string]any{"participantId": id}))
			if len(sv.Services) == 0 || sv.Services[0].Processes[0].Endpoints[0].Certificate.Revocation != tt.revocation || !hasCode(sv.Warnings, tt.code) {
				t.Errorf("MCP services: %+v", sv)
			}
			a := decodeJSON[nlq.Answer](t, readAll(t, e.postAsk(t, t.Context(), `{"query":"Can `+id+` receive invoices?"}`, "Content-Type", "application/json")))
			if len(a.Results) == 0 || a.Results[0].Peppol == nil || a.Results[0].Peppol.CanReceive == nil || *a.Results[0].Peppol.CanReceive == tt.blocks ||
				slices.Contains(a.Results[0].Peppol.Blocked, tt.code) != tt.blocks {
				t.Fatalf("/ask: %+v", a)
			}
		})
	}
}
