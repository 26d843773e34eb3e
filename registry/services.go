package registry

import "time"

// ServicesResult is the answer to a services lookup: every document type the
// participant's SMP lists (or the one asked for), with its processes and endpoints.
type ServicesResult struct {
	// ParticipantID is the identifier in "<scheme>:<value>" form, value lower-case.
	ParticipantID string `json:"participantId" jsonschema:"the participant identifier in <scheme>:<value> form, value lower-case, e.g. 0208:0677424046"`
	// Network names the Peppol network that answered (production, test or demo); the
	// adapters set it on a copy, the registry leaves it empty.
	Network string `json:"network,omitempty" jsonschema:"the Peppol network that answered: production, test or demo (the one the request named, else the server's default); absent when the server names none"`
	// SMP says where the services were read.
	SMP ServicesSMP `json:"smp" jsonschema:"the participant's SMP, where the services were read"`
	// ServiceCount is the number of document types the ServiceGroup lists, which
	// exceeds len(Services) when one document type was asked for.
	ServiceCount int `json:"serviceCount" jsonschema:"number of document types the SMP lists for the participant; more than the services shown when one document type was asked for"`
	// Services are the document types in the SMP's order.
	Services []Service `json:"services" jsonschema:"the document types the participant can receive, in the SMP's order, each with its processes and endpoints; only the one asked for when docType was given"`
	// Warnings summarise the warnings of the services and endpoints (one per code) and
	// add those about the participant identifier.
	Warnings []Warning `json:"warnings,omitempty" jsonschema:"things a caller should know, one per code, summarising the services' and endpoints' warnings (e.g. certificate_expiring, endpoint_unavailable); absent when there are none"`
	// Verdict is Judge's verdict over these services; the adapters set it on a copy
	// (Judged), the registry leaves it nil.
	Verdict *Verdict `json:"verdict,omitempty" jsonschema:"whether the participant can be sent invoices and credit notes right now (with docType: the document type asked about), judged from every endpoint listed, as every front door judges: receives, blocked (listed, but sending fails right now on every endpoint: see blocked) or registered_without_that_document"`
}

// ServicesSMP is the SMP a ServicesResult was read from.
type ServicesSMP struct {
	URL      string `json:"url" jsonschema:"the participant's ServiceGroup URL at its SMP, the identifier percent-encoded"`
	Hostname string `json:"hostname" jsonschema:"host name of the SMP"`
	// Signature is the verdict on the signatures of the ServiceMetadata read: the
	// first that is not valid, else the first.
	Signature *Signature `json:"signature,omitempty" jsonschema:"the verdict on the signatures of the SMP answers read: the first one that is not valid (the document type's warnings say which), else the first; absent when none was read"`
}

// Service is one document type with the processes and endpoints its ServiceMetadata
// gives.
type Service struct {
	// DocumentType is the document type with its code-list name and state.
	DocumentType CodeInfo `json:"documentType" jsonschema:"the document type, with its readable name and state from the Peppol code list"`
	// Processes is empty when the ServiceMetadata could not be fetched (see Warnings).
	Processes []ProcessInfo `json:"processes" jsonschema:"the business processes the document type is received in, each with its endpoints; empty when the service metadata could not be fetched (see warnings)"`
	// Warnings are about the document type and its ServiceMetadata; endpoint warnings
	// are on the endpoints.
	Warnings []Warning `json:"warnings,omitempty" jsonschema:"things to know about this document type, e.g. document_type_deprecated or endpoint_unavailable (its service metadata could not be fetched); absent when there are none"`
}

// CodeInfo is a document type or process identifier with what the Peppol code list
// (package peppol/codelist) says about it.
type CodeInfo struct {
	ID          string `json:"id" jsonschema:"the identifier with its scheme, <scheme>::<value>, as the SMP publishes it"`
	Scheme      string `json:"scheme" jsonschema:"the identifier scheme, e.g. busdox-docid-qns or cenbii-procid-ubl"`
	Value       string `json:"value" jsonschema:"the identifier value"`
	Name        string `json:"name,omitempty" jsonschema:"readable name from the Peppol code list, e.g. Peppol BIS Billing UBL Invoice V3; absent for identifiers the list does not have"`
	State       string `json:"state,omitempty" jsonschema:"state in the Peppol code list: active, deprecated (still works, on its way out) or removed (no longer allowed); absent for identifiers the list does not have"`
	NonStandard bool   `json:"nonStandard" jsonschema:"true when the Peppol code list does not have the identifier (a community-specific or mistyped id)"`
	Category    string `json:"category,omitempty" jsonschema:"for document types: the kind of business document, e.g. Invoice, Credit Note, Order; absent when unknown"`
}

// ProcessInfo is one process of a service with its endpoints.
type ProcessInfo struct {
	Process   CodeInfo       `json:"process" jsonschema:"the process identifier, with its readable name and state from the Peppol code list"`
	Endpoints []EndpointInfo `json:"endpoints" jsonschema:"the access point endpoints that receive the document type in this process"`
}

// EndpointInfo is one access point endpoint with checks applied.
type EndpointInfo struct {
	TransportProfile TransportProfileInfo `json:"transportProfile" jsonschema:"the transport profile, with its state from the Peppol code list"`
	URL              string               `json:"url" jsonschema:"the access point's endpoint URL"`
	ActivationDate   *time.Time           `json:"activationDate" jsonschema:"when the endpoint becomes active (RFC 3339); null when not given"`
	ExpirationDate   *time.Time           `json:"expirationDate" jsonschema:"when the endpoint expires (RFC 3339); null when not given"`
	Certificate      *CertificateInfo     `json:"certificate" jsonschema:"the access point's certificate, decoded and checked; null when the SMP gives none that can be read"`
	Warnings         []Warning            `json:"warnings,omitempty" jsonschema:"things to know about this endpoint, e.g. certificate_expired, certificate_expiring, service_not_yet_active, endpoint_not_https, transport_profile_removed; absent when there are none"`
}

// TransportProfileInfo is a transport profile with what the Peppol code list says
// about it.
type TransportProfileInfo struct {
	ID          string `json:"id" jsonschema:"the transport profile identifier, e.g. peppol-transport-as4-v2_0"`
	Name        string `json:"name,omitempty" jsonschema:"readable name, e.g. Peppol AS4 profile 2.0; absent for profiles the code list does not have"`
	State       string `json:"state,omitempty" jsonschema:"state in the Peppol code list: active, deprecated or removed (no longer allowed); absent for profiles the list does not have"`
	Protocol    string `json:"protocol,omitempty" jsonschema:"the protocol: AS4, AS2 or START; absent for profiles the code list does not have"`
	NonStandard bool   `json:"nonStandard" jsonschema:"true when the Peppol code list does not have the profile"`
}

// CertificateInfo is an endpoint's Certificate with the checks applied to it; the
// embedded Certificate's fields render first, as if declared here.
type CertificateInfo struct {
	Certificate
	// DaysRemaining counts calendar days (UTC) to the expiry date; negative once it has
	// passed.
	DaysRemaining int  `json:"daysRemaining" jsonschema:"calendar days (UTC) from today to the day the certificate expires; negative once that day has passed"`
	Expired       bool `json:"expired" jsonschema:"true when the certificate's validity has ended: senders will refuse this access point"`
	// PeppolCA reports whether the certificate chains to an OpenPeppol access point CA
	// (Chain is peppol-production or peppol-test).
	PeppolCA bool `json:"peppolCA" jsonschema:"true when the certificate chains to an OpenPeppol access point CA, production or test (see chain)"`
	// PeppolCAName is the issuing CA's common name when PeppolCA is true.
	PeppolCAName string `json:"peppolCAName,omitempty" jsonschema:"the issuing CA's name, e.g. PEPPOL ACCESS POINT CA - G3 (production) or PEPPOL ACCESS POINT TEST CA - G3 (test network); absent when peppolCA is false"`
}
