package smp

import (
	"time"

	"github.com/peppolgate/peppolgate/peppol/smpsig"
)

// Dialect names the SMP specification a document follows.
type Dialect string

// The dialects the parsers recognise, by root namespace.
const (
	// DialectPeppol is Peppol SMP 1.x (busdox namespaces), the one used on Peppol.
	DialectPeppol Dialect = "peppol-smp-1"
	// DialectBDXR1 is OASIS BDXR SMP 1.0 (2016/05, or the 2014/07 committee draft).
	DialectBDXR1 Dialect = "oasis-bdxr-smp-1"
	// DialectSMP2 is OASIS SMP 2.0.
	DialectSMP2 Dialect = "oasis-smp-2"
)

// ServiceGroup lists the document types a participant can receive, as one SMP publishes
// them. DocumentTypes are decoded from the reference hrefs (or, for SMP 2.0, read from
// ServiceReference/ID); fetch a ServiceMetadata per document type for endpoints.
type ServiceGroup struct {
	Dialect     Dialect
	Participant Identifier
	// DocumentTypes in document order, without duplicates.
	DocumentTypes []Identifier
	// References are the raw ServiceMetadataReference hrefs, trimmed, in document order.
	// They are informative only: real ones point at old hosts or are mis-encoded, so
	// request URLs are always built with ServiceMetadataURL.
	References []string
	// SkippedReferences are the hrefs no document type could be read from.
	SkippedReferences []SkippedReference
}

// SkippedReference is a ServiceMetadataReference href that could not be decoded into a
// document type, and why.
type SkippedReference struct {
	Href   string
	Reason string
}

// ServiceMetadata is the answer for one participant and document type: either the
// processes and endpoints (ServiceInformation) or a Redirect to another SMP.
type ServiceMetadata struct {
	Dialect      Dialect
	Participant  Identifier
	DocumentType Identifier
	Processes    []Process
	// Redirect is set when the SMP delegates this document type to another SMP.
	Redirect *Redirect
	// Signed reports that the document carries an XML-DSig Signature element.
	Signed bool
	// Signature is the verdict on that signature over the document as received
	// (package peppol/smpsig): valid, invalid, missing or unverifiable, with the
	// algorithm and the signer. Whether the signer is trusted is the caller's to
	// judge (package peppol/pki).
	Signature smpsig.Result
	// SignerCertificate is the first X509Certificate in the signature's KeyInfo, when it
	// decodes; it says who claims to have signed.
	SignerCertificate *Certificate
	// FollowedRedirect is the Redirect that Client.ServiceMetadata followed to reach this
	// document; nil when the first SMP answered directly. Parsers never set it.
	FollowedRedirect *Redirect
}

// Process is one business process with the endpoints that receive it.
type Process struct {
	// ID is the process identifier; zero for an SMP 2.0 ProcessMetadata without Process,
	// which applies to every process.
	ID Identifier
	// Endpoints may be shared: the processes parsed from one SMP 2.0 ProcessMetadata
	// all refer to the same backing array. Treat it as read-only and copy it before
	// changing an element (appending is safe: the slice has no spare capacity).
	Endpoints []Endpoint
}

// Endpoint is an access point that receives the document type for a process. Its free
// strings are the publisher's words: Description, TechnicalContactURL,
// TechnicalInformationURL and MinimumAuthenticationLevel are cleaned of control and
// format characters and capped (untrusted.Field); Address keeps what was published,
// its white space, control and format characters percent-encoded (untrusted.URL;
// docs/ARCHITECTURE.md §6).
type Endpoint struct {
	// TransportProfile is e.g. peppol-transport-as4-v2_0.
	TransportProfile string
	// Address is the access point URL (wsa:Address, EndpointURI or AddressURI).
	Address                       string
	RequireBusinessLevelSignature bool
	MinimumAuthenticationLevel    string
	// ActivationDate and ExpirationDate are nil when absent or unparseable (see
	// Problems). Times without a zone are taken as UTC; SMP 2.0 dates are midnight UTC.
	ActivationDate *time.Time
	ExpirationDate *time.Time
	Description    string
	// TechnicalContactURL is often an e-mail address rather than a URL.
	TechnicalContactURL     string
	TechnicalInformationURL string
	// Certificate is the access point's certificate; nil when absent or when it does not
	// decode, in which case CertificateError says why.
	Certificate      *Certificate
	CertificateError string
	// Problems lists other values that could not be read (bad dates, bad booleans); the
	// endpoint is kept because the rest of it is still useful.
	Problems []string
}

// Certificate is the summary of an X.509 certificate published in SMP data.
type Certificate struct {
	// Subject and Issuer are distinguished names in RFC 2253 order (CN=...,O=...,C=...),
	// cleaned of control and format characters and capped (untrusted.Field).
	Subject string
	Issuer  string
	// SerialNumber is the serial number in decimal, as XML-DSig X509SerialNumber and
	// Java's BigInteger print it.
	SerialNumber string
	NotBefore    time.Time
	NotAfter     time.Time
	// SHA256 is the lower-case hex SHA-256 fingerprint of the DER encoding.
	SHA256 string
	// Raw is the DER encoding, kept so callers can verify signatures or re-export it.
	Raw []byte
}

// Redirect tells the client to ask another SMP. Href is the full ServiceMetadata URL at
// the other SMP, used as given; CertificateUID is the subject of the certificate that
// must sign the answer there.
type Redirect struct {
	Href           string
	CertificateUID string
	// Signature is the verdict on the redirecting answer's own signature, set when
	// Client.ServiceMetadata followed the redirect.
	Signature smpsig.Result
}
