package smp

// The wire structs mirror the XML. Tags name local names only, so encoding/xml matches
// the elements whatever namespace or prefix a publisher used; the root namespace is
// checked separately in parse.go. Fields are strings so that a bad date or boolean
// does not fail the whole document.

// Root namespaces, compared after removing a trailing '/'.
const (
	nsPeppol           = "http://busdox.org/serviceMetadata/publishing/1.0"
	nsBDXR1            = "http://docs.oasis-open.org/bdxr/ns/SMP/2016/05"
	nsBDXR1Draft       = "http://docs.oasis-open.org/bdxr/ns/SMP/2014/07"
	nsSMP2Group        = "http://docs.oasis-open.org/bdxr/ns/SMP/2/ServiceGroup"
	nsSMP2Metadata     = "http://docs.oasis-open.org/bdxr/ns/SMP/2/ServiceMetadata"
	rootGroup          = "ServiceGroup"
	rootMetadata       = "ServiceMetadata"
	rootSignedMetadata = "SignedServiceMetadata"
)

// wireID is an identifier element: scheme in @scheme (SMP 1) or @schemeID (SMP 2).
type wireID struct {
	Scheme   string `xml:"scheme,attr"`
	SchemeID string `xml:"schemeID,attr"`
	Value    string `xml:",chardata"`
}

type wireServiceGroup struct {
	Participant wireID    `xml:"ParticipantIdentifier"`
	References  []wireRef `xml:"ServiceMetadataReferenceCollection>ServiceMetadataReference"`
}

type wireRef struct {
	Href string `xml:"href,attr"`
}

type wireSigned struct {
	Metadata  *wireServiceMetadata `xml:"ServiceMetadata"`
	Signature *wireSignature       `xml:"Signature"`
}

type wireSignature struct {
	Certificates []string `xml:"KeyInfo>X509Data>X509Certificate"`
}

type wireServiceMetadata struct {
	Information *wireServiceInformation `xml:"ServiceInformation"`
	Redirect    *wireRedirect           `xml:"Redirect"`
}

type wireRedirect struct {
	Href           string `xml:"href,attr"`
	CertificateUID string `xml:"CertificateUID"`
}

type wireServiceInformation struct {
	Participant  wireID        `xml:"ParticipantIdentifier"`
	DocumentType wireID        `xml:"DocumentIdentifier"`
	Processes    []wireProcess `xml:"ProcessList>Process"`
}

type wireProcess struct {
	ID        wireID         `xml:"ProcessIdentifier"`
	Endpoints []wireEndpoint `xml:"ServiceEndpointList>Endpoint"`
}

type wireEndpoint struct {
	TransportProfile string  `xml:"transportProfile,attr"`
	Address          string  `xml:"EndpointReference>Address"` // Peppol (WS-Addressing)
	URI              string  `xml:"EndpointURI"`               // BDXR 1
	RequireSignature string  `xml:"RequireBusinessLevelSignature"`
	MinimumAuthLevel string  `xml:"MinimumAuthenticationLevel"`
	Activation       string  `xml:"ServiceActivationDate"`
	Expiration       string  `xml:"ServiceExpirationDate"`
	Certificate      *string `xml:"Certificate"`
	Description      string  `xml:"ServiceDescription"`
	Contact          string  `xml:"TechnicalContactUrl"`
	Information      string  `xml:"TechnicalInformationUrl"`
}

// OASIS SMP 2.0.

type wire2ServiceGroup struct {
	Participant wireID `xml:"ParticipantID"`
	References  []struct {
		ID wireID `xml:"ID"`
	} `xml:"ServiceReference"`
}

type wire2ServiceMetadata struct {
	Participant wireID                 `xml:"ParticipantID"`
	ID          wireID                 `xml:"ID"`
	ServiceID   wireID                 `xml:"ServiceID"` // pre-final drafts
	Metadata    []wire2ProcessMetadata `xml:"ProcessMetadata"`
	Signature   *wireSignature         `xml:"Signature"`
}

type wire2ProcessMetadata struct {
	Processes []struct {
		ID wireID `xml:"ID"`
	} `xml:"Process"`
	Endpoints []wire2Endpoint `xml:"Endpoint"`
	Redirect  *struct {
		PublisherURI string             `xml:"PublisherURI"`
		Certificates []wire2Certificate `xml:"Certificate"`
	} `xml:"Redirect"`
}

type wire2Endpoint struct {
	TransportProfile string             `xml:"TransportProfileID"`
	Description      string             `xml:"Description"`
	Contact          string             `xml:"Contact"`
	Address          string             `xml:"AddressURI"`
	Activation       string             `xml:"ActivationDate"`
	Expiration       string             `xml:"ExpirationDate"`
	Certificates     []wire2Certificate `xml:"Certificate"`
}

type wire2Certificate struct {
	Subject string  `xml:"Subject"`
	Content *string `xml:"ContentBinaryObject"`
}
