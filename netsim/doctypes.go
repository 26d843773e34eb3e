package netsim

// Identifier schemes that appear in SMP answers and Directory business cards.
const (
	// DocTypeSchemeQNS is the scheme of exact Peppol document type identifiers.
	DocTypeSchemeQNS = "busdox-docid-qns"
	// DocTypeSchemeWildcard is the scheme of PINT wildcard document type identifiers.
	DocTypeSchemeWildcard = "peppol-doctype-wildcard"
	// ProcessScheme is the scheme of Peppol process identifiers.
	ProcessScheme = "cenbii-procid-ubl"
	// TransportAS4 is the only transport profile in active use on Peppol.
	TransportAS4 = "peppol-transport-as4-v2_0"
	// TransportAS2 is a removed transport profile that old registrations still carry.
	TransportAS2 = "busdox-transport-as2-ver2p0"
)

// DocumentType is a document type identifier (case-sensitive value) with its scheme.
type DocumentType struct {
	// Scheme is busdox-docid-qns or peppol-doctype-wildcard.
	Scheme string
	// Value is the identifier proper, e.g. "urn:oasis:…:Invoice-2::Invoice##…::2.1".
	Value string
}

// URI returns "<scheme>::<value>", the form used in SMP URLs and the Directory's
// doctype parameter.
func (d DocumentType) URI() string { return d.Scheme + "::" + d.Value }

// docKind describes one kind of business document the generator can register, with the
// processes it is exchanged in.
type docKind struct {
	name      string // short name used by the generator only
	docType   DocumentType
	processes []string
}

const (
	procBilling       = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"
	procOrdering      = "urn:fdc:peppol.eu:poacc:bis:ordering:3"
	procOrderOnly     = "urn:fdc:peppol.eu:poacc:bis:order_only:3"
	procDespatch      = "urn:fdc:peppol.eu:poacc:bis:despatch_advice:3"
	procInvoiceResp   = "urn:fdc:peppol.eu:poacc:bis:invoice_response:3"
	procPINTBilling   = "urn:peppol:bis:billing"
	procFranceBilling = "urn:peppol:france:billing:regulated"
)

// docKinds is the table of document types drawn by the generator. Index order is part
// of the deterministic output: append only.
var docKinds = []docKind{
	{"invoice", DocumentType{DocTypeSchemeQNS, "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"}, []string{procBilling}},
	{"creditnote", DocumentType{DocTypeSchemeQNS, "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"}, []string{procBilling}},
	{"cii", DocumentType{DocTypeSchemeQNS, "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100::CrossIndustryInvoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::D16B"}, []string{procBilling}},
	{"order", DocumentType{DocTypeSchemeQNS, "urn:oasis:names:specification:ubl:schema:xsd:Order-2::Order##urn:fdc:peppol.eu:poacc:trns:order:3::2.1"}, []string{procOrdering, procOrderOnly}},
	{"orderresponse", DocumentType{DocTypeSchemeQNS, "urn:oasis:names:specification:ubl:schema:xsd:OrderResponse-2::OrderResponse##urn:fdc:peppol.eu:poacc:trns:order_response:3::2.1"}, []string{procOrdering}},
	{"despatch", DocumentType{DocTypeSchemeQNS, "urn:oasis:names:specification:ubl:schema:xsd:DespatchAdvice-2::DespatchAdvice##urn:fdc:peppol.eu:poacc:trns:despatch_advice:3::2.1"}, []string{procDespatch}},
	{"invoiceresponse", DocumentType{DocTypeSchemeQNS, "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2::ApplicationResponse##urn:fdc:peppol.eu:poacc:trns:invoice_response:3::2.1"}, []string{procInvoiceResp}},
	{"pint-jp", DocumentType{DocTypeSchemeWildcard, "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1@jp-1*::2.1"}, []string{procPINTBilling}},
	{"pint-aunz", DocumentType{DocTypeSchemeWildcard, "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1@aunz-1*::2.1"}, []string{procPINTBilling}},
	{"pint-sg", DocumentType{DocTypeSchemeWildcard, "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1@sg-1*::2.1"}, []string{procPINTBilling}},
	{"facturx", DocumentType{DocTypeSchemeQNS, "urn:peppol:doctype:pdf+xml##urn:cen.eu:en16931:2017#conformant#urn:peppol:france:billing:Factur-X:1.0::D22B"}, []string{procFranceBilling}},
}

// Indexes into docKinds, for readability of the generator.
const (
	dkInvoice = iota
	dkCreditNote
	dkCII
	dkOrder
	dkOrderResponse
	dkDespatch
	dkInvoiceResponse
	dkPINTJP
	dkPINTAUNZ
	dkPINTSG
	dkFacturX
)
