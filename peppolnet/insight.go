package peppolnet

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// This file holds the checks behind the insight warnings: pure functions of SMP and
// Directory data, the Peppol code lists and an instant (Config.Now), shared by Services
// and Lookup.

// documentTypeInfo is id with what the document type code list says about it.
func documentTypeInfo(id smp.Identifier) registry.CodeInfo {
	ci := registry.CodeInfo{ID: id.String(), Scheme: id.Scheme, Value: id.Value}
	d, ok := codelist.LookupDocumentType(id.Scheme, id.Value)
	if !ok {
		ci.NonStandard = true
		return ci
	}
	ci.Name, ci.State, ci.Category = d.Name, string(d.State), d.Category
	return ci
}

// processInfo is id with what the process code list says about it. The "no process"
// identifier (busdox:noprocess) is standard; the zero id (an SMP 2.0 entry for every
// process) gets a name saying so.
func processInfo(id smp.Identifier) registry.CodeInfo {
	ci := registry.CodeInfo{ID: id.String(), Scheme: id.Scheme, Value: id.Value}
	switch {
	case id.IsZero():
		ci.Name = "any process (the SMP names none)"
		return ci
	case id.Value == smp.NoProcess:
		ci.Name, ci.State = "no process", string(codelist.StateActive)
		return ci
	}
	p, ok := codelist.LookupProcess(id.Scheme, id.Value)
	if !ok {
		ci.NonStandard = true
		return ci
	}
	ci.Name, ci.State = p.Name, string(p.State)
	return ci
}

// transportProfileInfo is the profile id with what the transport profile code list
// says about it.
func transportProfileInfo(id string) registry.TransportProfileInfo {
	ti := registry.TransportProfileInfo{ID: id}
	p, ok := codelist.LookupTransportProfile(id)
	if !ok {
		ti.NonStandard = true
		return ti
	}
	ti.Name, ti.State, ti.Protocol = p.Name, string(p.State), p.Protocol
	return ti
}

// certificateInfo is c with its checks at now; nil for nil.
func certificateInfo(c *smp.Certificate, now time.Time) *registry.CertificateInfo {
	if c == nil {
		return nil
	}
	ci := &registry.CertificateInfo{
		Certificate:   *certificate(c),
		DaysRemaining: daysUntil(c.NotAfter, now),
		Expired:       expired(c.NotAfter, now),
	}
	return ci
}

// certificate is c as the registry renders it; nil for nil.
func certificate(c *smp.Certificate) *registry.Certificate {
	if c == nil {
		return nil
	}
	return &registry.Certificate{Subject: c.Subject, Issuer: c.Issuer, SerialNumber: c.SerialNumber, NotBefore: c.NotBefore, NotAfter: c.NotAfter, SHA256: c.SHA256}
}

// certOf returns the Certificate c checks; nil for nil.
func certOf(c *registry.CertificateInfo) *registry.Certificate {
	if c == nil {
		return nil
	}
	return &c.Certificate
}

// daysUntil returns the calendar days (UTC) from now's date to t's, the dates answers
// show: negative once t's date has passed, 0 on the day itself. Counting hours instead
// made a certificate that expired on the 12th "16 days ago" on the 27th.
func daysUntil(t, now time.Time) int {
	day := func(x time.Time) time.Time {
		y, m, d := x.UTC().Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	return int(math.Round(day(t).Sub(day(now)).Hours() / 24))
}

// endpointInfo is ep with the endpoint checks applied at now.
func endpointInfo(ep smp.Endpoint, now time.Time) registry.EndpointInfo {
	ei := registry.EndpointInfo{
		TransportProfile: transportProfileInfo(ep.TransportProfile),
		URL:              ep.Address,
		ActivationDate:   ep.ActivationDate,
		ExpirationDate:   ep.ExpirationDate,
		Certificate:      certificateInfo(ep.Certificate, now),
	}
	ei.Warnings = endpointWarnings(ei, now)
	return ei
}

// endpointWarnings gathers the warnings of every endpoint check: certificate, service
// dates, URL and transport profile.
func endpointWarnings(e registry.EndpointInfo, now time.Time) []registry.Warning {
	var ws []registry.Warning
	ws = append(ws, certificateWarnings(certOf(e.Certificate), now)...)
	ws = append(ws, serviceDateWarnings(e.ActivationDate, e.ExpirationDate, now)...)
	ws = append(ws, endpointURLWarnings(e.URL)...)
	ws = append(ws, transportProfileWarnings(e.TransportProfile)...)
	return ws
}

// certificateWarnings checks an access point certificate at now: expired, expiring
// within 30 days, issuer not an OpenPeppol AP CA. None for nil (no certificate to
// check).
func certificateWarnings(c *registry.Certificate, now time.Time) []registry.Warning {
	if c == nil {
		return nil
	}
	var ws []registry.Warning
	day := c.NotAfter.UTC().Format(time.DateOnly)
	switch {
	case expired(c.NotAfter, now):
		ws = append(ws, registry.Warning{Code: registry.WarnCertificateExpired, Message: fmt.Sprintf("the access point certificate expired on %s (%s ago): senders' access points will refuse to deliver to this endpoint; the participant's access point provider must renew it and update the SMP", day, plural(-daysUntil(c.NotAfter, now), "day"))})
	case c.NotAfter.Sub(now) <= registry.ExpiringWithin:
		ws = append(ws, registry.Warning{Code: registry.WarnCertificateExpiring, Message: fmt.Sprintf("the access point certificate expires on %s (in %s): delivery will fail from then unless the access point provider renews it and updates the SMP in time", day, plural(daysUntil(c.NotAfter, now), "day"))})
	}
	return ws
}

// endpointInstants are the instants at which an endpoint's date checks change: its
// activation and expiration, its certificate's expiry and the start of its last 30 days.
func endpointInstants(activation, expiration *time.Time, c *registry.Certificate) []time.Time {
	var out []time.Time
	if activation != nil {
		out = append(out, *activation)
	}
	// An end is still valid at its own instant (see expired): the verdict changes just
	// after it.
	if expiration != nil {
		out = append(out, expiration.Add(time.Nanosecond))
	}
	if c != nil && !c.NotAfter.IsZero() {
		out = append(out, c.NotAfter.Add(time.Nanosecond), c.NotAfter.Add(-registry.ExpiringWithin))
	}
	return out
}

// untilDateChange caps ttl so that a cached answer is not served past the next of
// instants after now: its warnings (expiring, expired, not yet active) would be wrong
// from then. At least a second.
func untilDateChange(ttl time.Duration, now time.Time, instants []time.Time) time.Duration {
	for _, t := range instants {
		if d := t.Sub(now); d > 0 && d < ttl {
			ttl = max(d, time.Second)
		}
	}
	return ttl
}

// plural renders n and unit, "1 day" or "3 days".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// expired reports whether something valid until end (a certificate's notAfter, an
// endpoint's expiration date) has expired at now. The end itself is still valid, as in
// RFC 5280 §4.1.2.5 and the Peppol reference implementation (phax/peppol-commons).
func expired(end, now time.Time) bool { return now.After(end) }

// serviceDateWarnings checks an endpoint's activation and expiration dates at now.
func serviceDateWarnings(activation, expiration *time.Time, now time.Time) []registry.Warning {
	var ws []registry.Warning
	if activation != nil && now.Before(*activation) {
		ws = append(ws, registry.Warning{Code: registry.WarnServiceNotYetActive, Message: "the endpoint becomes active on " + activation.UTC().Format(time.RFC3339) + ": documents sent before then may be refused; wait until then or ask the participant for another channel"})
	}
	if expiration != nil && expired(*expiration, now) {
		ws = append(ws, registry.Warning{Code: registry.WarnServiceExpired, Message: "the endpoint expired on " + expiration.UTC().Format(time.RFC3339) + ": senders' access points will not deliver to it; the participant's access point provider must renew the SMP registration"})
	}
	return ws
}

// endpointURLWarnings checks an endpoint address: https, and port 443 when a port is
// given (a missing port is https's 443).
func endpointURLWarnings(raw string) []registry.Warning {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return []registry.Warning{{Code: registry.WarnEndpointNotHTTPS, Message: "the endpoint address is not a valid https URL, so no access point can deliver to it; the participant's access point provider must fix the SMP registration"}}
	}
	var ws []registry.Warning
	if !strings.EqualFold(u.Scheme, "https") {
		ws = append(ws, registry.Warning{Code: registry.WarnEndpointNotHTTPS, Message: "the endpoint address uses " + u.Scheme + ", not https, which Peppol AS4 requires: senders' access points will refuse it; the participant's access point provider must publish an https endpoint"})
	}
	if p := u.Port(); p != "" && p != "443" {
		ws = append(ws, registry.Warning{Code: registry.WarnEndpointPort, Message: "the endpoint listens on port " + p + ", not 443, which Peppol requires: many senders' firewalls and access points will not connect; the participant's access point provider should move it to 443"})
	}
	return ws
}

// transportProfileWarnings checks a transport profile against the code list. The id is
// the SMP's: quoted and capped in the message (untrusted.Quote, docs/INTERFACE.md §2.6).
func transportProfileWarnings(t registry.TransportProfileInfo) []registry.Warning {
	switch {
	case t.NonStandard:
		return []registry.Warning{{Code: registry.WarnTransportProfileUnknown, Message: "the transport profile " + untrusted.Quote(t.ID) + " is not in the Peppol code list, so Peppol access points will not use this endpoint; the only active profile is " + smp.TransportAS4}}
	case t.State == string(codelist.StateRemoved):
		return []registry.Warning{{Code: registry.WarnTransportProfileRemoved, Message: "the transport profile " + untrusted.Short(t.ID) + " (" + t.Name + ") has been removed from Peppol, so no access point sends over it; the participant needs an endpoint with " + smp.TransportAS4}}
	case t.State == string(codelist.StateDeprecated):
		return []registry.Warning{{Code: registry.WarnTransportProfileDeprecated, Message: "the transport profile " + untrusted.Short(t.ID) + " (" + t.Name + ") is deprecated in the Peppol code list and will be removed; the participant should add an endpoint with " + smp.TransportAS4}}
	}
	return nil
}

// documentTypeWarnings checks a document type against the code list. An id the code
// list lacks is the SMP's: quoted and capped in the message (untrusted.Quote,
// docs/INTERFACE.md §2.6).
func documentTypeWarnings(d registry.CodeInfo) []registry.Warning {
	switch {
	case d.NonStandard:
		return []registry.Warning{{Code: registry.WarnDocumentTypeNonStandard, Message: "the document type " + untrusted.Quote(d.ID) + " is not in the Peppol code list (version " + codelist.Version + "): it may be a community extension or a typo, and most senders cannot produce it"}}
	case d.State == string(codelist.StateRemoved):
		return []registry.Warning{{Code: registry.WarnDocumentTypeRemoved, Message: "the document type " + d.Name + " has been removed from the Peppol code list, so senders no longer send it; the participant should register its successor"}}
	case d.State == string(codelist.StateDeprecated):
		return []registry.Warning{{Code: registry.WarnDocumentTypeDeprecated, Message: "the document type " + d.Name + " is deprecated in the Peppol code list and will be removed; senders should prefer its successor if the participant lists it"}}
	}
	return nil
}

// directoryWarnings compares the Directory card with the document types the SMP's
// ServiceGroup lists, for a participant whose SMP knows it: a missing card, or doc
// types that differ (schemes compared ignoring case, values exactly).
func directoryWarnings(card *registry.DirectoryRecord, smpDocs []smp.Identifier) []registry.Warning {
	if card == nil {
		return []registry.Warning{{Code: registry.WarnDirectoryCardMissing, Message: "the participant is registered in the SML and its SMP but has no Peppol Directory business card, so senders searching the Directory will not find it; its SMP provider should publish the card"}}
	}
	key := func(scheme, value string) string { return strings.ToLower(scheme) + "::" + value }
	inSMP := make(map[string]bool, len(smpDocs))
	for _, d := range smpDocs {
		inSMP[key(d.Scheme, d.Value)] = true
	}
	inCard := make(map[string]bool, len(card.DocTypes))
	for _, d := range card.DocTypes {
		inCard[key(d.Scheme, d.Value)] = true
	}
	var notOnCard, notInSMP int
	for k := range inSMP {
		if !inCard[k] {
			notOnCard++
		}
	}
	for k := range inCard {
		if !inSMP[k] {
			notInSMP++
		}
	}
	if notOnCard == 0 && notInSMP == 0 {
		return nil
	}
	return []registry.Warning{{Code: registry.WarnDirectoryDocTypesMismatch, Message: fmt.Sprintf("the Peppol Directory card and the SMP disagree on the document types: %s the SMP lists %s missing from the card, and %s on the card %s not listed by the SMP; the SMP decides what can be delivered, so rely on the SMP's list and ask the participant's SMP provider to republish the card",
		plural(notOnCard, "document type"), isAre(notOnCard), plural(notInSMP, "document type"), isAre(notInSMP))}}
}

// isAre returns "is" for 1 and "are" otherwise.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// recordEndpointWarnings applies the endpoint checks at now to the one endpoint of a
// participant record; none for nil.
func recordEndpointWarnings(ep *registry.Endpoint, now time.Time) []registry.Warning {
	if ep == nil {
		return nil
	}
	ei := registry.EndpointInfo{
		TransportProfile: transportProfileInfo(ep.TransportProfile),
		URL:              ep.URL,
		ActivationDate:   ep.ActivationDate,
		ExpirationDate:   ep.ExpirationDate,
	}
	if c := ep.Certificate; c != nil {
		ei.Certificate = &registry.CertificateInfo{Certificate: *c} // the checks read only the certificate
	}
	return endpointWarnings(ei, now)
}
