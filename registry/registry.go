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
	// number). It returns an *Error with CodeMissingQuery, CodeQueryTooShort or
	// CodeInvalidRequest for bad input and CodeSearchFailed when the Directory failed.
	Search(ctx context.Context, q SearchQuery) (*SearchResult, Freshness, error)
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

// Participant is the answer to a lookup (interface spec §2.2).
type Participant struct {
	// ParticipantID is the identifier in "<scheme>:<value>" form, value lower-case.
	ParticipantID string `json:"participantId"`
	// Directory is the participant's business card, or nil when the Directory has none.
	Directory *DirectoryRecord `json:"directory"`
	// SMP is the participant's SMP record, or nil when the SML does not know it.
	SMP *SMPRecord `json:"smp"`
	// Warnings say what could not be checked or looks wrong (e.g. Directory unavailable).
	Warnings []Warning `json:"warnings,omitempty"`
}

// IDParts is an identifier split into scheme and value (interface spec §2.1).
type IDParts struct {
	Scheme string `json:"scheme"`
	Value  string `json:"value"`
}

// DirectoryRecord is a participant's Peppol Directory business card. Contacts are
// personal data and never part of it.
type DirectoryRecord struct {
	ParticipantID    IDParts   `json:"participantId"`
	Name             string    `json:"name"`
	CountryCode      string    `json:"countryCode"`
	RegistrationDate *string   `json:"registrationDate"`
	AdditionalInfo   *string   `json:"additionalInfo"`
	GeoInfo          *string   `json:"geoInfo"`
	Entities         []Entity  `json:"entities"`
	DocTypes         []IDParts `json:"docTypes"`
}

// Entity is one business entity on a business card.
type Entity struct {
	Names            []Name    `json:"names"`
	CountryCode      string    `json:"countryCode"`
	Identifiers      []IDParts `json:"identifiers"`
	Websites         []string  `json:"websites"`
	RegistrationDate *string   `json:"registrationDate"`
	AdditionalInfo   *string   `json:"additionalInfo"`
	GeoInfo          *string   `json:"geoInfo"`
}

// Name is an entity name, with its language when the card gives one.
type Name struct {
	Name     string `json:"name"`
	Language string `json:"language,omitempty"`
}

// SMPRecord is what the participant's SMP publishes.
type SMPRecord struct {
	// URL is the participant's ServiceGroup URL, the identifier percent-encoded.
	URL string `json:"url"`
	// Hostname is the SMP's host name.
	Hostname string `json:"hostname"`
	// ServiceCount is the number of document types the ServiceGroup lists.
	ServiceCount int `json:"serviceCount"`
	// Endpoint is the AS4 endpoint for the Peppol BIS Billing 3.0 invoice if offered,
	// else the first endpoint of the first service; nil when there is none.
	Endpoint *Endpoint `json:"endpoint"`
}

// Endpoint is one access point endpoint from the SMP's ServiceMetadata.
type Endpoint struct {
	DocumentType     string       `json:"documentType"`
	Process          string       `json:"process"`
	TransportProfile string       `json:"transportProfile"`
	URL              string       `json:"url"`
	ActivationDate   *time.Time   `json:"activationDate"`
	ExpirationDate   *time.Time   `json:"expirationDate"`
	Certificate      *Certificate `json:"certificate"`
}

// Certificate is the endpoint's X.509 certificate, decoded.
type Certificate struct {
	Subject      string    `json:"subject"`
	Issuer       string    `json:"issuer"`
	SerialNumber string    `json:"serialNumber"`
	NotBefore    time.Time `json:"notBefore"`
	NotAfter     time.Time `json:"notAfter"`
	SHA256       string    `json:"sha256"`
}

// Warning is a machine code and a sentence about something a caller should know.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// SearchQuery is a directory search.
type SearchQuery struct {
	// Q is the free-text query as received (trimmed by Search).
	Q string
	// Country optionally restricts results to one ISO 3166 alpha-2 country code.
	Country string
}

// MaxSearchResults is the most results one search returns (interface spec §8).
const MaxSearchResults = 25

// MinQueryLength is the shortest accepted search query, in characters (spec §8).
const MinQueryLength = 2

// SearchResult is the answer to a search (interface spec §2.3).
type SearchResult struct {
	// Query is the query as received.
	Query string `json:"query"`
	// TotalCount is the number of matches known, which may exceed len(Results).
	TotalCount int `json:"totalCount"`
	// Results holds at most MaxSearchResults hits, exact identifier matches first.
	Results []SearchHit `json:"results"`
}

// SearchHit is one search result.
type SearchHit struct {
	ParticipantID string `json:"participantId"`
	Name          string `json:"name"`
	CountryCode   string `json:"countryCode"`
}
