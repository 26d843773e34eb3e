// Package registry is peppolgate's domain: what a participant record and a search result
// are, the Registry that produces them, and the errors it returns. It knows nothing about
// HTTP serving, MCP or LLMs; adapters (server, tools, nlq) sit around it.
package registry

import (
	"context"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// Registry answers participant lookups and directory searches.
type Registry interface {
	// Lookup resolves one participant: its Peppol Directory business card and its SMP
	// record. It returns an *Error with CodeNotFound only when the SML says the participant
	// is not registered and the Directory has no card for it, and CodeLookupFailed when an
	// upstream failed and no stale answer was cached.
	Lookup(ctx context.Context, id peppol.ParticipantID) (*Participant, Freshness, error)
	// Search searches the Peppol Directory by free text (company name or registration
	// number), or by country alone (Q empty) to count and list a country's participants.
	// It returns an *Error with CodeMissingQuery, CodeQueryTooShort or
	// CodeInvalidRequest for bad input and CodeSearchFailed when the Directory failed.
	Search(ctx context.Context, q SearchQuery) (*SearchResult, Freshness, error)
	// Services lists every document type the participant's SMP publishes, each with its
	// processes and endpoints, named from the Peppol code lists and checked (warnings);
	// docType ("<scheme>::<value>") narrows it to one. It returns an *Error with
	// CodeInvalidParticipantID or CodeInvalidRequest for bad input, CodeNotFound when the
	// participant or the document type is not registered, and CodeLookupFailed when an
	// upstream failed.
	Services(ctx context.Context, id peppol.ParticipantID, docType string) (*ServicesResult, Freshness, error)
}

// Freshness says where an answer came from, so adapters can set Age, X-Cache and
// Cache-Control honestly.
type Freshness struct {
	// Cached is true when the answer was served from the cache.
	Cached bool
	// Stale is true when an upstream failed and an older cached answer was served instead.
	Stale bool
	// Age is how long ago the answer was fetched from upstream.
	Age time.Duration
	// TTL is how long the answer is considered fresh from the time it was fetched.
	TTL time.Duration
}

// Participant is the answer to a lookup (docs/INTERFACE.md §2.2).
type Participant struct {
	// ParticipantID is the identifier in "<scheme>:<value>" form, value lower-case.
	ParticipantID string `json:"participantId" jsonschema:"the participant identifier in <scheme>:<value> form, value lower-case, e.g. 0208:0677424046"`
	// Network names the Peppol network that answered (production, test or demo); the
	// adapters set it on a copy, the registry leaves it empty.
	Network string `json:"network,omitempty" jsonschema:"the Peppol network that answered: production, test or demo (the one the request named, else the server's default); absent when the server names none"`
	// Directory is the participant's business card, or nil when the Directory has none.
	Directory *DirectoryRecord `json:"directory" jsonschema:"the participant's Peppol Directory business card; null when the Directory has none"`
	// SMP is the participant's SMP record, or nil when the SML does not know it.
	SMP *SMPRecord `json:"smp" jsonschema:"what the participant's SMP publishes; null when the participant is not registered in the SML (it cannot receive documents over Peppol)"`
	// Warnings say what could not be checked or looks wrong (e.g. Directory unavailable).
	Warnings []Warning `json:"warnings,omitempty" jsonschema:"things a caller should know: what could not be checked or looks wrong; absent when there are none"`
	// Verdict is Judge's verdict on invoices and credit notes; the adapters set it on a
	// copy (Judged), the registry leaves it nil.
	Verdict *Verdict `json:"verdict,omitempty" jsonschema:"whether the participant can be sent invoices and credit notes right now, judged as every front door judges (the bulk check's statuses), from this lookup and, when its SMP lists another invoice or credit note document type than the one its endpoint was read from, every document type's endpoints: receives, blocked (registered and listed, but sending fails right now: see blocked), registered_without_that_document, not_registered or unknown (an endpoint of a kind could not be read; retry later)"`
}

// IDParts is an identifier split into scheme and value (docs/INTERFACE.md §2.1).
type IDParts struct {
	Scheme string `json:"scheme" jsonschema:"the identifier scheme, e.g. 0208 for a participant or busdox-docid-qns for a document type"`
	Value  string `json:"value" jsonschema:"the identifier value"`
}

// DirectoryRecord is a participant's Peppol Directory business card. Contacts are
// personal data and never part of it.
type DirectoryRecord struct {
	ParticipantID    IDParts   `json:"participantId" jsonschema:"the participant identifier split into scheme and value"`
	Name             string    `json:"name" jsonschema:"the company name (the first name on the card; from a mirror, the first non-empty one)"`
	CountryCode      string    `json:"countryCode" jsonschema:"ISO 3166 alpha-2 country code of the first entity"`
	RegistrationDate *string   `json:"registrationDate" jsonschema:"registration date YYYY-MM-DD; null when the card gives none"`
	AdditionalInfo   *string   `json:"additionalInfo" jsonschema:"free text from the card; null when absent"`
	GeoInfo          *string   `json:"geoInfo" jsonschema:"address or location text from the card; null when absent"`
	Entities         []Entity  `json:"entities" jsonschema:"the business entities on the card"`
	DocTypes         []IDParts `json:"docTypes" jsonschema:"document types the card says the participant accepts"`
}

// Entity is one business entity on a business card.
type Entity struct {
	Names            []Name    `json:"names" jsonschema:"the entity's names, possibly in several languages"`
	CountryCode      string    `json:"countryCode" jsonschema:"ISO 3166 alpha-2 country code"`
	Identifiers      []IDParts `json:"identifiers" jsonschema:"additional identifiers such as VAT or registry numbers"`
	Websites         []string  `json:"websites" jsonschema:"website URLs"`
	RegistrationDate *string   `json:"registrationDate" jsonschema:"registration date YYYY-MM-DD; null when absent"`
	AdditionalInfo   *string   `json:"additionalInfo" jsonschema:"free text; null when absent"`
	GeoInfo          *string   `json:"geoInfo" jsonschema:"address or location text; null when absent"`
}

// Name is an entity name, with its language when the card gives one.
type Name struct {
	Name     string `json:"name" jsonschema:"the name"`
	Language string `json:"language,omitempty" jsonschema:"ISO 639-1 language code, when the card gives one"`
}

// SMPRecord is what the participant's SMP publishes.
type SMPRecord struct {
	// URL is the participant's ServiceGroup URL, the identifier percent-encoded.
	URL string `json:"url" jsonschema:"the participant's ServiceGroup URL at its SMP, the identifier percent-encoded"`
	// Hostname is the SMP's host name.
	Hostname string `json:"hostname" jsonschema:"host name of the SMP"`
	// ServiceCount is the number of document types the ServiceGroup lists.
	ServiceCount int `json:"serviceCount" jsonschema:"number of document types the SMP lists for the participant"`
	// DocumentTypes are the document types the ServiceGroup lists, named from the
	// Peppol code lists (no further request: the endpoints are Services' business).
	DocumentTypes []CodeInfo `json:"documentTypes" jsonschema:"the document types the SMP lists for the participant, in its order, with their names and code-list states; get_participant_services (GET …/services) adds each one's processes and endpoints"`
	// Signature is the verdict on the signature of the ServiceMetadata the endpoint was
	// read from; nil when none was read.
	Signature *Signature `json:"signature,omitempty" jsonschema:"the verdict on the signature of the SMP answer the endpoint was read from; absent when no service metadata was read"`
	// Endpoint is the AS4 endpoint for the Peppol BIS Billing 3.0 invoice if offered,
	// else the first endpoint of the first service; nil when there is none.
	Endpoint *Endpoint `json:"endpoint" jsonschema:"the AS4 endpoint for the Peppol BIS Billing 3.0 invoice if offered, else the first endpoint of the first document type; null when there is none or it could not be fetched (see warnings)"`
}

// Endpoint is one access point endpoint from the SMP's ServiceMetadata, as a lookup
// shows it. A services answer shows endpoints as EndpointInfo instead: there the
// transport profile is an object with its code-list state rather than a string, the
// certificate is a CertificateInfo and warnings are added, so the two cannot share a
// type without changing what either renders.
type Endpoint struct {
	DocumentType     string       `json:"documentType" jsonschema:"document type identifier with its scheme, e.g. busdox-docid-qns::urn:oasis:...##...::2.1"`
	Process          string       `json:"process" jsonschema:"process identifier with its scheme, e.g. cenbii-procid-ubl::urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"`
	TransportProfile string       `json:"transportProfile" jsonschema:"transport profile, e.g. peppol-transport-as4-v2_0"`
	URL              string       `json:"url" jsonschema:"the access point's endpoint URL"`
	ActivationDate   *time.Time   `json:"activationDate" jsonschema:"when the endpoint becomes active (RFC 3339); null when not given"`
	ExpirationDate   *time.Time   `json:"expirationDate" jsonschema:"when the endpoint expires (RFC 3339); null when not given"`
	Certificate      *Certificate `json:"certificate" jsonschema:"the access point's certificate, decoded; null when the SMP gives none that can be read"`
}

// Certificate is the endpoint's X.509 certificate, decoded.
type Certificate struct {
	Subject      string    `json:"subject" jsonschema:"subject distinguished name"`
	Issuer       string    `json:"issuer" jsonschema:"issuer distinguished name"`
	SerialNumber string    `json:"serialNumber" jsonschema:"serial number in decimal"`
	NotBefore    time.Time `json:"notBefore" jsonschema:"start of validity (RFC 3339)"`
	NotAfter     time.Time `json:"notAfter" jsonschema:"end of validity (RFC 3339)"`
	SHA256       string    `json:"sha256" jsonschema:"SHA-256 fingerprint of the DER certificate in hexadecimal"`
	// Chain says whose PKI issued the certificate; "" when it was not checked.
	Chain string `json:"chain,omitempty" jsonschema:"the PKI the certificate chains to: peppol-production or peppol-test (OpenPeppol's access point CA of that network), operator (a CA the server's operator trusts for this network, -trust-ca), or other"`
	// Revocation is what the issuing CA's OCSP responder says; "unchecked" with OCSP
	// off, "" when not asked for another reason.
	Revocation string `json:"revocation,omitempty" jsonschema:"what the issuing CA's OCSP responder says: good, revoked, or unknown (it could not be asked or does not know the certificate); unchecked when the server's operator turned OCSP checks off (-ocsp off): nothing was asked; absent when the certificate names no responder or does not chain"`
}

// Signature is the verdict on the XML signature of an SMP answer, checked over the
// answer as received, and on its signer's certificate.
type Signature struct {
	Status    string  `json:"status" jsonschema:"valid: the answer is as its SMP signed it; invalid: it was changed after signing, signed with another key, or its signer's certificate was not valid at the time (senders refuse it); missing: it is not signed; unverifiable: a signature is there but cannot be checked (senders refuse it)"`
	Algorithm string  `json:"algorithm,omitempty" jsonschema:"the signature method, e.g. rsa-sha256, ecdsa-sha256 or rsa-sha1 (weak); absent when missing"`
	Signer    *Signer `json:"signer,omitempty" jsonschema:"the signing certificate; absent when missing or unreadable"`
	Chain     string  `json:"chain,omitempty" jsonschema:"the PKI the signer's certificate chains to: peppol-production, peppol-test, operator (a CA the server's operator trusts for this network, -trust-ca) or other; absent without a signer"`
}

// Signer is the certificate an SMP answer was signed with.
type Signer struct {
	Subject  string    `json:"subject" jsonschema:"subject distinguished name, in the certificate's own order"`
	Issuer   string    `json:"issuer" jsonschema:"issuer distinguished name, in the certificate's own order"`
	NotAfter time.Time `json:"notAfter" jsonschema:"end of validity (RFC 3339)"`
	// Revocation is what the SMP CA's OCSP responder says; "unchecked" with OCSP off,
	// "" when not asked for another reason.
	Revocation string `json:"revocation,omitempty" jsonschema:"what the SMP CA's OCSP responder says about the signing certificate: good, revoked or unknown; unchecked when the server's operator turned OCSP checks off (-ocsp off); absent when the certificate names no responder or does not chain"`
}

// Warning is a machine code and a sentence about something a caller should know.
type Warning struct {
	Code    string `json:"code" jsonschema:"machine code, e.g. directory_unavailable"`
	Message string `json:"message" jsonschema:"what it means and what to do"`
}

// SearchQuery is a directory search.
type SearchQuery struct {
	// Q is the free-text query as received (trimmed by Search); it may be empty when
	// Country is set, to list and count that country's participants.
	Q string
	// Country optionally restricts results to one ISO 3166 alpha-2 country code; alone
	// (Q empty) it asks for every participant of that country.
	Country string
	// Page is the 1-based page of MaxSearchResults matches asked for, at most
	// MaxSearchPage; 0 means 1 (docs/INTERFACE.md §4.2).
	Page int
}

// MaxSearchResults is the most results one search returns: one page (docs/INTERFACE.md §8).
const MaxSearchResults = 25

// MaxSearchIdentifierHits is the most exact identifier matches page 1 of a search
// carries on top of its MaxSearchResults (docs/INTERFACE.md §4.2): a query naming
// participant ids shows their hits first, then the free text's whole first page, so
// that page 2 starts where the free text's first page ends.
const MaxSearchIdentifierHits = 4

// MaxSearchPage is the last page a search serves. The Peppol Directory answers no
// result beyond index 1000 of a query (package directory's MaxResultIndex), so pages
// of MaxSearchResults end at 40, results 976 to 1000 (docs/INTERFACE.md §4.2, §8).
const MaxSearchPage = 40

// NextSearchPage returns the page after page when the total count of matches says it
// holds any and MaxSearchPage allows it, else 0: the one rule every adapter's "next
// page" follows.
func NextSearchPage(page, totalCount int) int {
	page = max(page, 1)
	if page >= LastSearchPage(totalCount) {
		return 0
	}
	return page + 1
}

// LastSearchPage returns the last page a search of totalCount matches serves: as many
// pages of MaxSearchResults as the matches fill, at most MaxSearchPage, at least 1.
// NextSearchPage follows the same rule.
func LastSearchPage(totalCount int) int {
	return max(1, min(MaxSearchPage, (totalCount+MaxSearchResults-1)/MaxSearchResults))
}

// SearchPageStart returns the 1-based position, among the free text's matches, of
// the first match of page (page 1 starts at 1; its exact identifier matches come on
// top, MaxSearchIdentifierHits).
func SearchPageStart(page int) int { return (max(page, 1)-1)*MaxSearchResults + 1 }

// MaxQueryLength is the longest accepted search query, in characters.
const MaxQueryLength = 200

// MinQueryLength is the shortest accepted search query, in characters (docs/INTERFACE.md §8).
const MinQueryLength = 2

// SearchResult is the answer to a search (docs/INTERFACE.md §2.3).
type SearchResult struct {
	// Query is the query as received.
	Query string `json:"query" jsonschema:"the query as received"`
	// Network names the Peppol network that answered (production, test or demo); the
	// adapters set it on a copy, the registry leaves it empty.
	Network string `json:"network,omitempty" jsonschema:"the Peppol network whose Directory answered: production, test or demo (the one the request named, else the server's default); absent when the server names none"`
	// TotalCount is the number of matches known, which may exceed len(Results); the
	// same on every page of a search.
	TotalCount int `json:"totalCount" jsonschema:"number of matches known, the same on every page; may exceed the number of results returned"`
	// Page is the 1-based page of matches Results holds.
	Page int `json:"page" jsonschema:"the page of matches this answer holds, from 1; each page holds up to 25"`
	// NextPage is the page to ask for the next matches (NextSearchPage), 0 when this
	// is the last page served.
	NextPage int `json:"nextPage,omitempty" jsonschema:"the page to ask for to get the next matches (pass it as page); absent on the last page, or at page 40, beyond which the Peppol Directory serves no results"`
	// Results holds at most MaxSearchResults hits, and on page 1 up to
	// MaxSearchIdentifierHits exact identifier matches on top of them, first.
	Results []SearchHit `json:"results" jsonschema:"at most 25 matches a page; page 1 shows exact identifier matches first, up to 4 on top of its 25"`
	// Source says who answered: SourceDirectory or SourceMirror.
	Source string `json:"source" jsonschema:"who answered: directory (the live Peppol Directory) or mirror (peppolgate's local copy of the Directory's daily export, as of dataAsOf)"`
	// DataAsOf is when the Directory exported the data a mirror answer comes from; nil
	// for live answers.
	DataAsOf *time.Time `json:"dataAsOf,omitempty" jsonschema:"for source mirror: when the Peppol Directory exported the data searched (RFC 3339); absent for live answers"`
	// Warnings say what a caller should know, e.g. that the mirror was stale and the
	// live Directory answered instead.
	Warnings []Warning `json:"warnings,omitempty" jsonschema:"things a caller should know, e.g. mirror_stale when the local copy was too old and the live Directory answered; absent when there are none"`
}

// The values of SearchResult.Source.
const (
	SourceDirectory = "directory"
	SourceMirror    = "mirror"
)

// SearchHit is one search result.
type SearchHit struct {
	ParticipantID string `json:"participantId" jsonschema:"participant identifier <scheme>:<value>; pass it to lookup_participant"`
	Name          string `json:"name" jsonschema:"company name"`
	CountryCode   string `json:"countryCode" jsonschema:"ISO 3166 alpha-2 country code"`
}

// Locator is implemented by a Registry that can tell which SMP host serves a
// participant from the SML alone, without asking the SMP or the Directory. The bulk
// engine uses it to spread its lookups over SMP hosts, so that one slow host holds up
// only its own rows.
type Locator interface {
	// SMPHost returns the host name of the SMP the SML names for id ("" when the SML
	// has records but none usable). It returns an *Error with CodeNotFound when the
	// SML says id is not registered, and CodeLookupFailed when the SML could not be
	// asked.
	SMPHost(ctx context.Context, id peppol.ParticipantID) (string, error)
}
