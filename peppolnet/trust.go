package peppolnet

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol/pki"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/peppol/smpsig"
	"github.com/peppolgate/peppolgate/registry"
)

// expectedChain is the chain the certificates of network must chain to: that of
// production or test; "" (any OpenPeppol chain) for another network name.
func expectedChain(network string) pki.Chain {
	switch network {
	case registry.NetworkProduction:
		return pki.Production
	case registry.NetworkTest:
		return pki.Test
	}
	return ""
}

// chainOf returns the chain c chains to for role. It is judged at now, or at the end
// of c's validity when c has expired (or its start when it is not valid yet): whether
// the network's CA issued a certificate is another question than whether it is still
// valid, which has warnings of its own.
func (l *Registry) chainOf(c *x509.Certificate, role pki.Role, now time.Time) (pki.Chain, bool, error) {
	at := now
	switch {
	case now.After(c.NotAfter):
		at = c.NotAfter
	case now.Before(c.NotBefore):
		at = c.NotBefore
	}
	return l.cfg.Anchors.Verify(c, role, at)
}

// accepted reports whether chain is the one expected of this registry's network, or
// the operator's own CAs for it (-trust-ca), which count as the network's.
func (l *Registry) accepted(chain pki.Chain) bool {
	want := expectedChain(l.cfg.Network)
	return chain == want || chain == pki.Operator || (want == "" && chain != pki.Other)
}

// networkName names this registry's network for messages.
func (l *Registry) networkName() string {
	if l.cfg.Network == "" {
		return "this"
	}
	return "the " + l.cfg.Network
}

// checkAPChain sets rc.Chain and rc.Revocation (and, for a services answer, the CA
// fields of ci) from c, the access point certificate as the SMP gave it, and returns
// the warnings when it does not chain to the access point CA of this registry's
// network, is revoked or its revocation is unknown. None for a certificate that cannot
// be read (its own warning says so).
func (l *Registry) checkAPChain(ctx context.Context, c *smp.Certificate, rc *registry.Certificate, ci *registry.CertificateInfo, now time.Time) []registry.Warning {
	if c == nil || rc == nil {
		return nil
	}
	if !l.traced(ctx) {
		return l.apChainWarnings(ctx, c, rc, ci, now)
	}
	ctx, span := l.startSpan(ctx, "certificate chain check", attribute.String("peppol.certificate.role", "access point"))
	ws := l.apChainWarnings(ctx, c, rc, ci, now)
	span.SetAttributes(attribute.String("peppol.certificate.chain", rc.Chain), attribute.String("peppol.certificate.revocation", rc.Revocation),
		attribute.Int("peppol.warnings", len(ws)))
	span.End()
	return ws
}

// apChainWarnings is checkAPChain's work.
func (l *Registry) apChainWarnings(ctx context.Context, c *smp.Certificate, rc *registry.Certificate, ci *registry.CertificateInfo, now time.Time) []registry.Warning {
	cert, err := x509.ParseCertificate(c.Raw)
	if err != nil {
		return nil
	}
	chain, weak, err := l.chainOf(cert, pki.AccessPoint, now)
	rc.Chain = string(chain)
	if ci != nil {
		ci.Chain = rc.Chain
		// The operator's own CAs (-trust-ca) are trusted, but they are not OpenPeppol's.
		ci.PeppolCA = chain == pki.Production || chain == pki.Test
		ci.PeppolCAName = ""
		if ci.PeppolCA {
			ci.PeppolCAName = cert.Issuer.CommonName
		}
	}
	var ws []registry.Warning
	switch {
	case chain == pki.Other:
		ws = append(ws, registry.Warning{Code: registry.WarnCertificateChainInvalid, Message: fmt.Sprintf(
			"the access point certificate (issued by %s) does not chain to the OpenPeppol access point CA of %s network (%v): Peppol access points will not trust it; check the endpoint with the participant's access point provider", c.Issuer, l.networkName(), untrusted.Short(fmt.Sprint(err)))})
	case !l.accepted(chain):
		ws = append(ws, registry.Warning{Code: registry.WarnCertificateChainInvalid, Message: fmt.Sprintf(
			"the access point certificate is issued by the OpenPeppol %s CA (%s), which %s network's access points do not trust: delivery will fail; the participant's access point provider must register the certificate of %s network in the SMP",
			chainWord(chain), cert.Issuer.CommonName, l.networkName(), l.networkName())})
	}
	if weak {
		ws = append(ws, registry.Warning{Code: registry.WarnSignatureAlgorithmWeak, Message: "the access point certificate's chain is signed with SHA-1, which is no longer considered safe"})
	}
	if chain == pki.Other {
		return ws
	}
	status, reason := l.revocationOf(ctx, cert, l.cfg.Anchors.Issuer(cert, pki.AccessPoint))
	rc.Revocation = status
	if ci != nil {
		ci.Revocation = status
	}
	switch status {
	case revocationRevoked:
		ws = append(ws, registry.Warning{Code: registry.WarnCertificateRevoked, Message: "the access point certificate is revoked (" + reason + "), its CA's OCSP responder says: senders' access points refuse it; the participant's access point provider must register a new certificate in the SMP"})
	case revocationUnknown:
		ws = append(ws, registry.Warning{Code: registry.WarnCertificateRevocationUnknown, Message: "whether the access point certificate is revoked is unknown (" + reason + "); senders ask the responder themselves"})
	}
	return ws
}

// chainWord names a chain in a sentence.
func chainWord(c pki.Chain) string {
	switch c {
	case pki.Production:
		return "production"
	case pki.Test:
		return "test"
	case pki.Operator:
		return "operator's own"
	}
	return string(c)
}

// signatureOf is the verdict on sm's signature, with its signer's chain, and the
// warnings it calls for; what names the document for the messages.
func (l *Registry) signatureOf(ctx context.Context, sm *smp.ServiceMetadata, what string, now time.Time) (*registry.Signature, []registry.Warning) {
	if !l.traced(ctx) {
		return l.signatureVerdict(ctx, sm, what, now)
	}
	// The signature itself was verified as the SMP client read the answer; the span
	// holds the verdict and the signer's chain and revocation checks. A bad signature
	// is a finding about the participant, not a failure of ours: no Error status.
	ctx, span := l.startSpan(ctx, "SMP signature check")
	sig, ws := l.signatureVerdict(ctx, sm, what, now)
	span.SetAttributes(attribute.String("peppol.signature.status", sig.Status), attribute.String("peppol.signature.algorithm", sig.Algorithm),
		attribute.String("peppol.certificate.chain", sig.Chain), attribute.Int("peppol.warnings", len(ws)))
	span.End()
	return sig, ws
}

// signatureVerdict is signatureOf's work.
func (l *Registry) signatureVerdict(ctx context.Context, sm *smp.ServiceMetadata, what string, now time.Time) (*registry.Signature, []registry.Warning) {
	r := sm.Signature
	sig := &registry.Signature{Status: string(r.Status), Algorithm: r.Algorithm}
	var ws []registry.Warning
	switch r.Status {
	case smpsig.Missing:
		return sig, []registry.Warning{{Code: registry.WarnSMPSignatureMissing, Message: "the SMP's answer for " + what + " is not signed: Peppol access points refuse unsigned SMP answers, so senders cannot deliver; the participant's SMP provider must sign it"}}
	case smpsig.Invalid, smpsig.Unverifiable:
		ws = append(ws, registry.Warning{Code: registry.WarnSMPSignatureInvalid, Message: "the signature of the SMP's answer for " + what + " is not valid (" + r.Reason + "): senders refuse such an answer, so they cannot deliver; the participant's SMP provider must fix it"})
	}
	if rd := sm.FollowedRedirect; rd != nil && rd.Signature.Status != smpsig.Valid {
		// The answer that redirected here vouches for the target: when it is not validly
		// signed, neither is the chain of answers.
		sig.Status = string(rd.Signature.Status)
		code, why := registry.WarnSMPSignatureInvalid, "is not validly signed ("+rd.Signature.Reason+")"
		if rd.Signature.Status == smpsig.Missing {
			code, why = registry.WarnSMPSignatureMissing, "is not signed"
		}
		ws = append(ws, registry.Warning{Code: code, Message: "the SMP answer that redirected to another SMP for " + what + " " + why + ": senders refuse such an answer, so they cannot deliver; the participant's SMP provider must fix it"})
	}
	if r.Signer != nil {
		sig.Signer = &registry.Signer{NotAfter: r.Signer.NotAfter.UTC(), Subject: r.Signer.Subject.String(), Issuer: r.Signer.Issuer.String()}
		// The parser's reading of the same certificate prints names in the
		// certificate's own order; use it when it is the certificate verified.
		if c := sm.SignerCertificate; c != nil && bytes.Equal(c.Raw, r.Signer.Raw) {
			sig.Signer.Subject, sig.Signer.Issuer = c.Subject, c.Issuer
		}
		if sig.Status == string(smpsig.Valid) && (now.After(r.Signer.NotAfter) || now.Before(r.Signer.NotBefore)) {
			sig.Status = string(smpsig.Invalid)
			ws = append(ws, registry.Warning{Code: registry.WarnSMPSignatureInvalid, Message: fmt.Sprintf("the SMP's answer for %s is signed with a certificate valid only from %s to %s: senders refuse it, so they cannot deliver; the participant's SMP provider must sign with a current certificate",
				what, r.Signer.NotBefore.UTC().Format(time.DateOnly), r.Signer.NotAfter.UTC().Format(time.DateOnly))})
		}
		chain, weak, err := l.chainOf(r.Signer, pki.SMP, now)
		sig.Chain = string(chain)
		if !l.accepted(chain) {
			reason := "it chains to the OpenPeppol " + chainWord(chain) + " PKI"
			if err != nil {
				reason = untrusted.Short(err.Error()) // may name the SMP's certificates
			}
			ws = append(ws, registry.Warning{Code: registry.WarnSMPCertificateNotPeppol, Message: "the SMP's answer for " + what + " is signed with a certificate that does not chain to the OpenPeppol SMP CA of " + l.networkName() + " network (" + reason + "): senders do not trust it"})
		}
		if chain != pki.Other {
			status, reason := l.revocationOf(ctx, r.Signer, l.cfg.Anchors.Issuer(r.Signer, pki.SMP))
			sig.Signer.Revocation = status
			if status == revocationRevoked {
				sig.Status = string(smpsig.Invalid)
				ws = append(ws, registry.Warning{Code: registry.WarnSMPSignatureInvalid, Message: "the SMP's answer for " + what + " is signed with a revoked certificate (" + reason + "), its CA's OCSP responder says: senders refuse it, so they cannot deliver; the participant's SMP provider must sign with a valid certificate"})
			}
		}
		r.Weak = r.Weak || weak
	}
	if r.Weak {
		ws = append(ws, registry.Warning{Code: registry.WarnSignatureAlgorithmWeak, Message: "the SMP's answer for " + what + " is signed with SHA-1 (" + r.Algorithm + "), which is no longer considered safe"})
	}
	return sig, ws
}
