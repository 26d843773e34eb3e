// Package netsim is a simulated Peppol network on 127.0.0.1 for tests, benchmarks and
// the offline demo: a real DNS server answering SML U-NAPTR queries, Peppol SMP 1.x
// HTTP servers and a Peppol Directory search server, all fed by a deterministic
// synthetic Dataset, with fault injection and hit counters.
//
// netsim writes its own XML and JSON, independently of the project's clients, so that
// end-to-end tests against it catch client bugs instead of mirroring them.
package netsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// Well-known participants that every generated production Dataset contains, at the
// front of Dataset.Participants in this order, so that tests can rely on them. The
// participants built to trigger warnings (showcase.go) come after every other one.
const (
	// KnownBelgian is a Belgian company in the SML and the Directory (SMP host 0, the
	// host with a base path).
	KnownBelgian = "0208:0677424046"
	// KnownBelgianVAT is the same company as KnownBelgian under its VAT-based scheme.
	KnownBelgianVAT = "9925:be0677424046"
	// KnownNorwegian is a Norwegian company in the SML and the Directory.
	KnownNorwegian = "0192:923609016"
	// KnownGLN is a Danish company registered by GLN; its card has two entities and its
	// invoices have an additional AS2 endpoint.
	KnownGLN = "0088:5790000435975"
	// KnownDutch is a Dutch company registered by KvK number.
	KnownDutch = "0106:54441587"
	// KnownSwedish is a Swedish company registered by organisation number.
	KnownSwedish = "0007:5560360793"
	// KnownGerman is a German company registered by VAT number.
	KnownGerman = "9930:de811152493"
	// KnownFrenchSIREN is a French company registered by SIREN; it accepts Factur-X.
	KnownFrenchSIREN = "0002:784301772"
	// KnownFrenchSIRET is the same company as KnownFrenchSIREN under its SIRET.
	KnownFrenchSIRET = "0009:78430177200025"
	// KnownDirectoryOnly has a Directory business card but no SML registration (stale).
	KnownDirectoryOnly = "0208:0403019261"
	// KnownSMLOnly is registered in the SML and its SMP but has no Directory card.
	KnownSMLOnly = "0007:2120000787"
	// KnownSMPNotFound is registered in the SML, but its SMP answers 404 for it.
	KnownSMPNotFound = "0184:13585628"
	// KnownRedirect is served by SMP host 1, whose ServiceMetadata answers are a
	// Redirect to SMP host 2 (when the dataset has at least three hosts).
	KnownRedirect = "0192:745707327"
	// KnownAustralian is an Australian company registered by ABN that accepts PINT
	// A-NZ invoices (a peppol-doctype-wildcard document type).
	KnownAustralian = "0151:51824753556"

	// The showcase participants below each trigger one warning of a participant lookup
	// (issue 9) and nothing else, unless said otherwise: Belgian companies in the SML,
	// their SMP and the Directory (with the SMP's document types), received over AS4
	// at an https URL on port 443 by an access point with a valid certificate of the
	// simulated Peppol CA, every ServiceActivationDate a year before Dataset.Now and no
	// ServiceExpirationDate. They come after every other participant of the dataset.

	// KnownCertExpired's endpoints carry an access point certificate that expired 15
	// days before Dataset.Now (warning: certificate expired).
	KnownCertExpired = "0088:5400000000010"
	// KnownCertExpiring's endpoints carry an access point certificate that expires 10
	// days after Dataset.Now (warning: certificate expiring within 30 days).
	KnownCertExpiring = "0088:5400000000027"
	// KnownCertValid is the control: a certificate valid for 400 more days and no
	// warning at all.
	KnownCertValid = "0088:5400000000034"
	// KnownCertNonPeppolCA's endpoints carry a valid certificate issued by "Example
	// Corp Issuing CA", not by a Peppol access point CA (warning: certificate not
	// issued by a Peppol AP CA).
	KnownCertNonPeppolCA = "0088:5400000000041"
	// KnownServiceNotYetActive's endpoints have a ServiceActivationDate 20 days after
	// Dataset.Now (warning: service not yet active).
	KnownServiceNotYetActive = "0088:5400000000058"
	// KnownServiceExpired's endpoints have a ServiceExpirationDate 10 days before
	// Dataset.Now (warning: service expired).
	KnownServiceExpired = "0088:5400000000065"
	// KnownHTTPEndpoint's endpoints have a plain http URL (warning: non-https endpoint).
	KnownHTTPEndpoint = "0088:5400000000072"
	// KnownPort8443's endpoints are https on port 8443 (warning: non-443 endpoint).
	KnownPort8443 = "0088:5400000000089"
	// KnownAS2Only receives only over TransportAS2, the removed
	// busdox-transport-as2-ver2p0 profile, and has no AS4 endpoint (warning:
	// deprecated transport profile).
	KnownAS2Only = "0088:5400000000096"
	// KnownDeprecatedDocType receives the Peppol BIS Billing invoice plus the deprecated
	// UBL.BE Invoice 3.0 (DocTypeUBLBEInvoice) and the removed XRechnung UBL Invoice
	// V1.2 (DocTypeXRechnung12Invoice) (warning: deprecated document type, twice).
	KnownDeprecatedDocType = "0088:5400000000102"
	// KnownNonStandardDocType receives the Peppol BIS Billing invoice plus
	// DocTypeNonStandard, which no Peppol code list has (non-standard id flagged).
	KnownNonStandardDocType = "0088:5400000000119"
	// KnownManyDocTypes receives ManyDocTypes active code-list document types on one
	// SMP host, so that a client's bound on concurrent ServiceMetadata requests shows
	// in SMPHits.MaxInFlight.
	KnownManyDocTypes = "0088:5400000000126"
	// KnownDirectoryMismatch's SMP lists invoice, credit note and order; its Directory
	// card lists invoice and despatch advice (warning: Directory doc types disagree
	// with the SMP). KnownSMLOnly is the participant without a Directory card.
	KnownDirectoryMismatch = "0088:5400000000133"
)

// DatasetConfig parameterises Generate.
type DatasetConfig struct {
	// Seed makes the dataset reproducible: the same config gives the same dataset.
	Seed int64
	// Participants is the number of participants, well-known ones included; values
	// below the number of well-known participants are raised to it. Zero means 200.
	// The showcase participants (KnownCertExpired and the others of showcase.go) come
	// on top of this number, so that adding them changed no other participant. The
	// test network ignores it.
	Participants int
	// SMPHosts is the number of simulated SMP hosts. Zero means 4.
	SMPHosts int
	// Now is the instant validity dates (certificates, endpoint expiry, registration
	// dates) are drawn around. Zero means the current day at 00:00 UTC, so a dataset
	// generated without Now is reproducible within one UTC day only.
	Now time.Time
	// Network selects the participants: NetworkTest gives the small, distinct test
	// network (TestKnown* participants); anything else, empty included, gives the
	// production network.
	Network string
}

// Network names for DatasetConfig.Network and Dataset.Network.
const (
	// NetworkProduction is the simulated production network (Known* participants).
	NetworkProduction = "production"
	// NetworkTest is the simulated test network (TestKnown* participants), served
	// under sml.ZoneTest.
	NetworkTest = "test"
)

// Dataset is a synthetic Peppol network: participants with their SMP registrations and
// Directory business cards, the SMP hosts serving them and the access points they use.
// It is read-only once generated; servers share it without locking.
type Dataset struct {
	// Seed is the seed the dataset was generated from.
	Seed int64
	// Now is the reference instant of all validity dates.
	Now time.Time
	// Network is NetworkProduction or NetworkTest; Start serves a test network under
	// sml.ZoneTest unless Config.Zone says otherwise.
	Network string
	// Participants are the participants, well-known ones first.
	Participants []Participant
	// SMPHosts are the simulated SMP hosts; Participant.SMPHost indexes this slice.
	SMPHosts []SMPHost
	// AccessPoints are the simulated access points; Endpoint.AccessPoint indexes it.
	AccessPoints []AccessPoint

	index map[string]int // "<icd>:<lower-case value>" → index in Participants
}

// Participant is one Peppol participant identifier with its registrations. Two
// participants that are the same company (e.g. 0208 and 9925 in Belgium) share
// Company and have equal business cards.
type Participant struct {
	// ID is the participant identifier (value lower-case).
	ID peppol.ParticipantID
	// Company numbers the company the identifier belongs to.
	Company int
	// Country is the ISO 3166 alpha-2 code of the company's country.
	Country string
	// InSML reports whether the SML has a NAPTR record for the participant.
	InSML bool
	// SMPHost indexes Dataset.SMPHosts: the host the NAPTR record points to. It is -1
	// when the participant is not in the SML.
	SMPHost int
	// SMPNotFound makes the SMP answer 404 for this participant although the SML
	// points to it (a stale SML registration).
	SMPNotFound bool
	// RedirectHost, when not -1, is the SMP host that really serves the participant's
	// ServiceMetadata: SMPHost answers each ServiceMetadata request with a Redirect.
	RedirectHost int
	// Services are the document types the participant receives, in ServiceGroup order.
	Services []ServiceInfo
	// Card is the Directory business card, nil when the participant is not in the
	// Directory.
	Card *BusinessCard
}

// ServiceInfo is one document type a participant receives, with the processes and
// endpoints of its ServiceMetadata.
type ServiceInfo struct {
	// DocumentType is the document type identifier.
	DocumentType DocumentType
	// Processes are the processes the document type is received in.
	Processes []Process
	// MetadataStatus, when not 0, is the HTTP status the SMP answers for this document
	// type's ServiceMetadata although its ServiceGroup lists it: 404 for metadata
	// that is not there, 500 for an SMP failing on it.
	MetadataStatus int
}

// Process is a process identifier (scheme ProcessScheme) with its endpoints.
type Process struct {
	// Value is the process identifier, e.g. "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0".
	Value string
	// Endpoints are the access point endpoints for the process.
	Endpoints []Endpoint
}

// Endpoint is one SMP endpoint of a process.
type Endpoint struct {
	// TransportProfile is e.g. TransportAS4 or TransportAS2.
	TransportProfile string
	// AccessPoint indexes Dataset.AccessPoints; its certificate is the endpoint's.
	AccessPoint int
	// Address is the access point URL.
	Address string
	// RequireBusinessLevelSignature is the SMP flag of that name (always false on Peppol).
	RequireBusinessLevelSignature bool
	// MinimumAuthenticationLevel is optional; empty when absent.
	MinimumAuthenticationLevel string
	// ActivationDate and ExpirationDate are optional; zero when absent.
	ActivationDate, ExpirationDate time.Time
	// ServiceDescription is a free text.
	ServiceDescription string
	// TechnicalContactURL is usually a URL or an e-mail address.
	TechnicalContactURL string
	// TechnicalInformationURL is optional; empty when absent.
	TechnicalInformationURL string
}

// AccessPoint is a simulated Peppol access point. Its X.509 certificate is generated
// when the network starts, with this subject and validity.
type AccessPoint struct {
	// SeatID is the Peppol seat id used as certificate CN, e.g. "POP000123".
	SeatID string
	// Organisation is the operator's name (certificate O).
	Organisation string
	// Country is the operator's country (certificate C).
	Country string
	// AS4URL and AS2URL are the endpoint addresses.
	AS4URL, AS2URL string
	// NotBefore and NotAfter bound the certificate validity; some are expired or
	// about to expire on purpose.
	NotBefore, NotAfter time.Time
	// Serial is the certificate serial number.
	Serial int64
	// NonPeppolCA makes the certificate issued by a self-made "Example Corp Issuing
	// CA" instead of the simulated Peppol access point CA.
	NonPeppolCA bool
}

// Subject returns the certificate subject in the RFC 4514 order SMPs print:
// "CN=POP000123,OU=PEPPOL TEST AP,O=…,C=BE".
func (a AccessPoint) Subject() string {
	return "CN=" + a.SeatID + ",OU=PEPPOL TEST AP,O=" + a.Organisation + ",C=" + a.Country
}

// XMLStyle is how an SMP host writes its XML, to exercise namespace-tolerant clients.
type XMLStyle int

const (
	// StyleJAXB writes the SMP namespace as ns2:, the identifier namespace as the default
	// namespace and WS-Addressing as ns3: (phoss SMP / JAXB output).
	StyleJAXB XMLStyle = iota
	// StylePrefixed writes every element with a smp:, ids:, wsa: or ds: prefix.
	StylePrefixed
	// StyleDefault writes the SMP namespace as the default and redeclares the identifier
	// namespace on each identifier element (.NET SMP output).
	StyleDefault
)

// SMPHost describes one simulated SMP and the quirks of its output.
type SMPHost struct {
	// Name is a short label, e.g. "smp-0".
	Name string
	// BasePath is the path the SMP is mounted on, "" or e.g. "/smp".
	BasePath string
	// NAPTRTrailingSlash says whether the NAPTR regexp's URL ends in '/'.
	NAPTRTrailingSlash bool
	// Style is the XML namespace style.
	Style XMLStyle
	// Indent pretty-prints the XML, putting white space around identifier text.
	Indent bool
	// CertLineWidth wraps the base64 certificate at this many characters; 0 = one line.
	CertLineWidth int
	// CertCRLF ends wrapped certificate lines with "&#13;\n" instead of "\n".
	CertCRLF bool
	// SeatID is the SMP's seat id, the CN of its signing certificate, e.g. "PSG000042".
	SeatID string
}

// BusinessCard is a participant's Directory business card.
type BusinessCard struct {
	// Entities are the business entities; Directory counts and pages by entity.
	Entities []Entity
	// DocTypes are the document types the Directory lists; they may lag the SMP.
	DocTypes []DocumentType
}

// Entity is one business entity of a business card.
type Entity struct {
	// Names are the entity's names, each optionally with a language code.
	Names []Name
	// CountryCode is the entity's country code.
	CountryCode string
	// GeoInfo is a free-text address; empty when absent.
	GeoInfo string
	// Identifiers are additional identifiers (VAT, registry numbers).
	Identifiers []Identifier
	// Websites are URLs.
	Websites []string
	// Contacts are synthetic personal contacts, present so tests can prove that clients
	// drop them.
	Contacts []Contact
	// AdditionalInfo is free text; empty when absent.
	AdditionalInfo string
	// RegDate is the registration date "YYYY-MM-DD"; empty when absent.
	RegDate string
}

// Name is an entity name with an optional language.
type Name struct {
	Name     string
	Language string
}

// Identifier is an additional identifier of a business entity.
type Identifier struct {
	Scheme string
	Value  string
}

// Contact is a business card contact. Empty fields are emitted as "" like the real
// Directory does.
type Contact struct {
	Type, Name, Phone, Email string
}

// Lookup returns the participant with the given id (value compared case-insensitively)
// and whether it exists.
func (d *Dataset) Lookup(id peppol.ParticipantID) (*Participant, bool) {
	i, ok := d.index[id.ICD+":"+strings.ToLower(id.Value)]
	if !ok {
		return nil, false
	}
	return &d.Participants[i], true
}

// MustLookup is Lookup for identifiers known to be in the dataset, such as the Known*
// constants; it returns nil when s does not parse or is absent.
func (d *Dataset) MustLookup(s string) *Participant {
	id, err := peppol.ParseParticipantID(s)
	if err != nil {
		return nil
	}
	p, _ := d.Lookup(id)
	return p
}

// CardName returns the first name on the business card of the participant s (as
// MustLookup finds it), or "" when it is absent or has no card or name.
func (d *Dataset) CardName(s string) string {
	p := d.MustLookup(s)
	if p == nil || p.Card == nil || len(p.Card.Entities) == 0 || len(p.Card.Entities[0].Names) == 0 {
		return ""
	}
	return p.Card.Entities[0].Names[0].Name
}

// SetCardName makes name the first name on the business card of the participant s
// (as MustLookup finds it), as given, for tests of hostile or odd names; call it
// before Start. It reports whether s has a card with a name to replace.
func (d *Dataset) SetCardName(s, name string) bool {
	p := d.MustLookup(s)
	if p == nil || p.Card == nil || len(p.Card.Entities) == 0 || len(p.Card.Entities[0].Names) == 0 {
		return false
	}
	p.Card.Entities[0].Names[0].Name = name
	return true
}

// Countries returns the distinct participant countries in first-seen order.
func (d *Dataset) Countries() []string {
	seen := map[string]bool{}
	var out []string
	for i := range d.Participants {
		c := d.Participants[i].Country
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// Generate builds a Dataset deterministically from cfg. It runs in time linear in
// cfg.Participants and never fails.
func Generate(cfg DatasetConfig) *Dataset {
	if cfg.Participants <= 0 {
		cfg.Participants = 200
	}
	if cfg.SMPHosts <= 0 {
		cfg.SMPHosts = 4
	}
	now := cfg.Now
	if now.IsZero() {
		now = time.Now().UTC().Truncate(24 * time.Hour)
	}
	if cfg.Network == NetworkTest {
		return generateTest(cfg, now.UTC())
	}
	g := &generator{
		r:    rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15)),
		now:  now.UTC(),
		seen: make(map[string]bool, cfg.Participants),
		ds: &Dataset{
			Seed:         cfg.Seed,
			Now:          now.UTC(),
			Network:      NetworkProduction,
			Participants: make([]Participant, 0, cfg.Participants+len(showcaseIDs)),
			index:        make(map[string]int, cfg.Participants+len(showcaseIDs)),
		},
	}
	for _, c := range countries {
		g.totalWeight += c.weight
	}
	g.hosts(cfg.SMPHosts)
	g.accessPoints(6 + cfg.Participants/500)
	g.wellKnown()
	for len(g.ds.Participants) < cfg.Participants {
		g.company(cfg.Participants - len(g.ds.Participants))
	}
	g.showcase(cfg.Seed)
	for i := range g.ds.Participants {
		g.ds.index[g.ds.Participants[i].ID.String()] = i
	}
	return g.ds
}

type generator struct {
	r           *rand.Rand
	now         time.Time
	ds          *Dataset
	seen        map[string]bool
	companies   int
	totalWeight int
}

func (g *generator) hosts(n int) {
	styles := []XMLStyle{StyleJAXB, StylePrefixed, StyleDefault, StyleJAXB}
	for i := range n {
		h := SMPHost{
			Name:               "smp-" + strconv.Itoa(i),
			NAPTRTrailingSlash: true,
			Style:              styles[i%len(styles)],
			SeatID:             fmt.Sprintf("PSG%06d", 100+g.r.IntN(900)),
		}
		switch i % 4 {
		case 0:
			// The path-carrying host without trailing slash: clients must join carefully.
			h.BasePath = "/smp"
			h.NAPTRTrailingSlash = false
			h.CertLineWidth = 64
		case 1:
			h.CertLineWidth = 76
			h.CertCRLF = true
		case 3:
			h.Indent = true
			h.CertLineWidth = 64
		}
		g.ds.SMPHosts = append(g.ds.SMPHosts, h)
	}
}

var apOperators = []struct{ name, country, domain string }{
	{"Vlaamse Factuurdiensten NV", "BE", "factuurdiensten.example.be"},
	{"Nordisk Fakturaformidling AS", "NO", "fakturaformidling.example.no"},
	{"Ångström E-faktura AB", "SE", "efaktura.example.se"},
	{"Dansk Dokumentudveksling ApS", "DK", "dokumentudveksling.example.dk"},
	{"Facturation Électronique SAS", "FR", "facturation.example.fr"},
	{"Rechnungsaustausch GmbH", "DE", "rechnungsaustausch.example.de"},
	{"Southern Cross E-Invoicing Pty Ltd", "AU", "einvoicing.example.com.au"},
	{"Lion City Exchange Pte. Ltd.", "SG", "exchange.example.com.sg"},
	{"Fatturazione Digitale S.r.l.", "IT", "fatturazione.example.it"},
	{"E-Faktura Łódź Sp. z o.o.", "PL", "efaktura.example.pl"},
}

func (g *generator) accessPoints(n int) {
	n = min(n, 64)
	for i := range n {
		op := apOperators[i%len(apOperators)]
		var notAfter time.Time
		switch i {
		case 0:
			notAfter = g.now.AddDate(0, 0, -20) // expired
		case 1:
			notAfter = g.now.AddDate(0, 0, 14) // expiring soon
		default:
			notAfter = g.now.AddDate(0, 0, 200+g.r.IntN(500))
		}
		host := fmt.Sprintf("ap%d.%s", i/len(apOperators)+1, op.domain)
		g.ds.AccessPoints = append(g.ds.AccessPoints, AccessPoint{
			SeatID:       fmt.Sprintf("P%s%06d", op.country, 1000+g.r.IntN(9000)),
			Organisation: op.name,
			Country:      op.country,
			AS4URL:       "https://" + host + "/as4",
			AS2URL:       "https://" + host + "/as2",
			NotBefore:    notAfter.AddDate(-2, 0, 0),
			NotAfter:     notAfter,
			Serial:       int64(1000 + i),
		})
	}
}

// wellKnown adds the fixed participants. Their names and details are synthetic.
func (g *generator) wellKnown() {
	nh := len(g.ds.SMPHosts)
	host := func(i int) int { return i % nh }
	be := g.countryByCode("BE")
	cardBE := g.cardFor(be, "Vandelanotte Installaties NV", 1)
	cardBE.Entities[0].Names = append(cardBE.Entities[0].Names, Name{"Vandelanotte Installations SA", "fr"})
	cardBE.Entities[0].Names[0].Language = "nl"
	cardBE.Entities[0].Identifiers = []Identifier{{"VAT", "BE0677424046"}}
	g.addKnown(KnownBelgian, be, host(0), g.stdServices(be, false), cardBE)
	g.addKnownSameCompany(KnownBelgianVAT, be, host(0), cardBE)

	no := g.countryByCode("NO")
	g.addKnown(KnownNorwegian, no, host(1), g.stdServices(no, false), g.cardFor(no, "FJELLHEIM ENERGI ASA", 1))

	dk := g.countryByCode("DK")
	cardDK := g.cardFor(dk, "Øresund Køleteknik A/S", 2)
	svcDK := g.stdServices(dk, false)
	svcDK[0].Processes[0].Endpoints = append(svcDK[0].Processes[0].Endpoints,
		g.endpoint(TransportAS2, svcDK[0].Processes[0].Endpoints[0].AccessPoint))
	g.addKnown(KnownGLN, dk, host(2), svcDK, cardDK)

	nl := g.countryByCode("NL")
	g.addKnown(KnownDutch, nl, host(3), g.stdServices(nl, false), g.cardFor(nl, "Brouwer & de Vries Installatietechniek B.V.", 1))
	se := g.countryByCode("SE")
	g.addKnown(KnownSwedish, se, host(4), g.stdServices(se, false), g.cardFor(se, "Åkesson Bygg AB", 1))
	de := g.countryByCode("DE")
	g.addKnown(KnownGerman, de, host(5), g.stdServices(de, false), g.cardFor(de, "Müller Logistik GmbH", 1))

	fr := g.countryByCode("FR")
	svcFR := g.stdServices(fr, false)
	svcFR = append(svcFR, g.service(dkFacturX, svcFR[0].Processes[0].Endpoints[0].AccessPoint))
	cardFR := g.cardFor(fr, "Société Générale de Fromagerie Lefèvre SAS", 1)
	g.addKnown(KnownFrenchSIREN, fr, host(6), svcFR, cardFR)
	g.addKnownSameCompany(KnownFrenchSIRET, fr, host(6), cardFR)

	g.addKnown(KnownDirectoryOnly, be, -1, g.stdServices(be, false), g.cardFor(be, "Dupont Transports SRL", 1))
	g.addKnown(KnownSMLOnly, se, host(1), g.stdServices(se, false), nil)
	p := g.addKnown(KnownSMPNotFound, dk, host(2), g.stdServices(dk, false), g.cardFor(dk, "Mølgaard Rådgivning ApS", 1))
	p.SMPNotFound = true
	p = g.addKnown(KnownRedirect, no, host(1), g.stdServices(no, false), g.cardFor(no, "Løvås Fisk AS", 1))
	if nh >= 3 {
		p.RedirectHost = 2
	}
	au := g.countryByCode("AU")
	svcAU := []ServiceInfo{g.service(dkPINTAUNZ, g.pickAP("AU")), g.service(dkInvoice, g.pickAP("AU"))}
	g.addKnown(KnownAustralian, au, host(3), svcAU, g.cardFor(au, "Bluegum Plumbing Pty Ltd", 1))
}

func (g *generator) countryByCode(code string) *country {
	for i := range countries {
		if countries[i].code == code {
			return &countries[i]
		}
	}
	panic("netsim: unknown country " + code) // programming error in the fixed table
}

// knownIdentifiers are the additional identifiers of the well-known cards.
var knownIdentifiers = map[string][]Identifier{
	KnownNorwegian:     {{"VAT", "NO923609016MVA"}},
	KnownGLN:           {{"GLN", "5790000435975"}},
	KnownDutch:         {{"KVK", "54441587"}},
	KnownSwedish:       {{"VAT", "SE556036079301"}},
	KnownGerman:        {{"VAT", "DE811152493"}},
	KnownFrenchSIREN:   {{"SIRET", "78430177200025"}, {"VAT", "FR93784301772"}},
	KnownDirectoryOnly: {{"VAT", "BE0403019261"}},
	KnownSMPNotFound:   {{"VAT", "DK13585628"}},
	KnownRedirect:      {{"VAT", "NO745707327MVA"}},
	KnownAustralian:    {{"ABN", "51 824 753 556"}},
}

func (g *generator) addKnown(id string, c *country, host int, svc []ServiceInfo, card *BusinessCard) *Participant {
	g.companies++
	if card != nil {
		card.DocTypes = docTypesOf(svc)
		if extra, ok := knownIdentifiers[id]; ok {
			card.Entities[0].Identifiers = slices.Concat(extra, card.Entities[0].Identifiers)
		}
	}
	return g.add(id, c, host, svc, card)
}

// addKnownSameCompany adds a second identifier of the company added last.
func (g *generator) addKnownSameCompany(id string, c *country, host int, card *BusinessCard) *Participant {
	prev := g.ds.Participants[len(g.ds.Participants)-1]
	return g.add(id, c, host, prev.Services, card)
}

func (g *generator) add(id string, c *country, host int, svc []ServiceInfo, card *BusinessCard) *Participant {
	pid, err := peppol.ParseParticipantID(id)
	if err != nil {
		panic("netsim: bad generated participant id " + id + ": " + err.Error()) // programming error
	}
	g.seen[pid.String()] = true
	g.ds.Participants = append(g.ds.Participants, Participant{
		ID:           pid,
		Company:      g.companies - 1,
		Country:      c.code,
		InSML:        host >= 0,
		SMPHost:      host,
		RedirectHost: -1,
		Services:     svc,
		Card:         card,
	})
	return &g.ds.Participants[len(g.ds.Participants)-1]
}

func (g *generator) pickCountry() *country {
	x := g.r.IntN(g.totalWeight)
	for i := range countries {
		x -= countries[i].weight
		if x < 0 {
			return &countries[i]
		}
	}
	return &countries[0]
}

// company adds one generated company with up to room participant identifiers.
func (g *generator) company(room int) {
	c := g.pickCountry()
	ids := c.ids(g.r, c)
	fresh := ids.pids[:0:0]
	for _, id := range ids.pids {
		if !g.seen[id] {
			fresh = append(fresh, id)
		}
	}
	if len(fresh) == 0 {
		return // a duplicate number; draw again
	}
	if len(fresh) > room {
		fresh = fresh[:room]
	}
	g.companies++
	// Registration status: most are in both, some SML only, some Directory only.
	x := g.r.IntN(100)
	inSML, inDir := true, true
	switch {
	case x < 10:
		inDir = false
	case x < 15:
		inSML = false
	}
	host := -1
	if inSML {
		host = g.r.IntN(len(g.ds.SMPHosts))
	}
	svc := g.stdServices(c, true)
	var card *BusinessCard
	if inDir {
		n := 1
		if g.r.IntN(20) == 0 {
			n = 2 + g.r.IntN(2)
		}
		card = g.cardFor(c, g.companyName(c), n)
		card.Entities[0].Identifiers = append(ids.extra, card.Entities[0].Identifiers...)
		card.DocTypes = docTypesOf(svc)
		if len(card.DocTypes) > 1 && g.r.IntN(7) == 0 {
			// The Directory lags the SMP: one document type is missing.
			card.DocTypes = card.DocTypes[:len(card.DocTypes)-1]
		}
	}
	for _, id := range fresh {
		p := g.add(id, c, host, svc, card)
		if inSML && g.r.IntN(60) == 0 {
			p.SMPNotFound = true
		}
	}
}

func docTypesOf(svc []ServiceInfo) []DocumentType {
	out := make([]DocumentType, len(svc))
	for i, s := range svc {
		out[i] = s.DocumentType
	}
	return out
}

// stdServices draws the document types a company of country c receives; with random
// false it returns the common invoice + credit note pair only.
func (g *generator) stdServices(c *country, random bool) []ServiceInfo {
	ap := g.pickAP(c.code)
	var kinds []int
	switch {
	case c.code == "AU" && random:
		kinds = []int{dkPINTAUNZ, dkInvoice}
	case c.code == "SG" && random:
		kinds = []int{dkPINTSG}
		if g.r.IntN(5) == 0 {
			kinds = append(kinds, dkPINTJP)
		}
	default:
		kinds = []int{dkInvoice, dkCreditNote}
	}
	if random {
		if g.r.IntN(10) < 3 {
			kinds = append(kinds, dkCII)
		}
		if g.r.IntN(10) < 2 {
			kinds = append(kinds, dkOrder, dkOrderResponse)
		}
		if g.r.IntN(10) == 0 {
			kinds = append(kinds, dkDespatch)
		}
		if g.r.IntN(4) == 0 {
			kinds = append(kinds, dkInvoiceResponse)
		}
		if c.code == "FR" && g.r.IntN(2) == 0 {
			kinds = append(kinds, dkFacturX)
		}
	}
	out := make([]ServiceInfo, 0, len(kinds))
	as2 := random && g.r.IntN(25) == 0
	for _, k := range kinds {
		s := g.service(k, ap)
		if as2 {
			for i := range s.Processes {
				s.Processes[i].Endpoints = append(s.Processes[i].Endpoints, g.endpoint(TransportAS2, ap))
			}
		}
		out = append(out, s)
	}
	return out
}

func (g *generator) pickAP(countryCode string) int {
	aps := g.ds.AccessPoints
	if g.r.IntN(4) != 0 {
		// Prefer an operator of the same country, as on the real network.
		start := g.r.IntN(len(aps))
		for i := range aps {
			j := (start + i) % len(aps)
			if aps[j].Country == countryCode {
				return j
			}
		}
	}
	return g.r.IntN(len(aps))
}

func (g *generator) service(kind, ap int) ServiceInfo {
	k := docKinds[kind]
	s := ServiceInfo{DocumentType: k.docType, Processes: make([]Process, len(k.processes))}
	for i, p := range k.processes {
		s.Processes[i] = Process{Value: p, Endpoints: []Endpoint{g.endpoint(TransportAS4, ap)}}
	}
	return s
}

func (g *generator) endpoint(profile string, ap int) Endpoint {
	a := g.ds.AccessPoints[ap]
	e := Endpoint{
		TransportProfile:    profile,
		AccessPoint:         ap,
		Address:             a.AS4URL,
		ServiceDescription:  a.Organisation + " Peppol access point",
		TechnicalContactURL: "mailto:peppol-support@" + strings.TrimPrefix(strings.SplitN(a.AS4URL, "/", 4)[2], "ap1."),
	}
	if profile == TransportAS2 {
		e.Address = a.AS2URL
	}
	if g.r.IntN(10) < 7 {
		e.ActivationDate = a.NotBefore
		e.ExpirationDate = a.NotAfter
	}
	if g.r.IntN(5) == 0 {
		e.TechnicalInformationURL = "https://" + strings.SplitN(a.AS4URL, "/", 4)[2] + "/info"
	}
	if g.r.IntN(10) == 0 {
		e.MinimumAuthenticationLevel = "1"
	}
	return e
}

func (g *generator) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *generator) companyName(c *country) string {
	var name string
	switch g.r.IntN(5) {
	case 0, 1:
		name = g.pick(c.roots) + " " + g.pick(c.sectors) + " " + g.pick(c.forms)
	case 2:
		name = g.pick(c.cities) + " " + g.pick(c.sectors) + " " + g.pick(c.forms)
	case 3:
		name = g.pick(c.roots) + " & " + g.pick(c.roots) + " " + g.pick(c.forms)
	default:
		switch c.code {
		case "FR":
			name = "Société " + g.pick(c.sectors) + " de " + g.pick(c.cities) + " " + g.pick(c.forms)
		case "DE", "AT":
			name = g.pick(c.roots) + " " + g.pick(c.sectors) + " " + g.pick(c.cities) + " " + g.pick(c.forms)
		default:
			name = g.pick(c.roots) + " " + g.pick(c.forms)
		}
	}
	if g.r.IntN(5) == 0 {
		// Many real cards carry the registry's upper-case spelling.
		name = strings.ToUpper(name)
	}
	return name
}

// cardFor builds a business card whose first entity is called name.
func (g *generator) cardFor(c *country, name string, entities int) *BusinessCard {
	card := &BusinessCard{}
	for i := range entities {
		n := name
		if i > 0 {
			n = g.companyName(c)
		}
		card.Entities = append(card.Entities, g.entity(c, n))
	}
	return card
}

func (g *generator) entity(c *country, name string) Entity {
	e := Entity{CountryCode: c.code, Names: []Name{{Name: name}}}
	switch {
	case c.code == "BE" && g.r.IntN(10) < 4, c.code == "FI" && g.r.IntN(5) == 0:
		e.Names[0].Language = c.langs[0]
		e.Names = append(e.Names, Name{name, c.langs[1]})
	case g.r.IntN(7) == 0:
		e.Names[0].Language = c.langs[0]
	}
	city := g.pick(c.cities)
	if g.r.IntN(10) < 8 {
		e.GeoInfo = g.pick(c.streets) + " " + strconv.Itoa(1+g.r.IntN(180)) + ", " + strconv.Itoa(1000+g.r.IntN(9000)) + " " + city
	}
	domain := slug(strings.Fields(name)[0]) + "." + c.tld
	if g.r.IntN(10) < 6 {
		e.Websites = []string{"https://www." + domain}
		if g.r.IntN(10) == 0 {
			e.Websites = append(e.Websites, "https://shop."+domain)
		}
	}
	if g.r.IntN(2) == 0 {
		first := g.pick(firstNames)
		ct := Contact{
			Type:  g.pick([]string{"Accounting", "Support", "Invoicing", "Sales"}),
			Name:  first + " " + g.pick(c.roots),
			Email: slug(first) + "@" + domain,
		}
		if g.r.IntN(3) != 0 {
			ct.Phone = c.phone + " " + string(digits(g.r, 8, "23456789"))
		}
		e.Contacts = []Contact{ct}
	}
	if g.r.IntN(10) < 3 {
		e.AdditionalInfo = g.pick([]string{
			"Please send invoices via Peppol only.",
			"Bitte Rechnungen ausschließlich über Peppol senden.",
			"Merci d'indiquer le numéro de commande sur chaque facture.",
			"Vi tar imot faktura og kreditnota via Peppol.\r\nOrdrenummer må oppgis.",
			"Inkoopordernummer verplicht vermelden.",
		})
	}
	if g.r.IntN(10) < 8 {
		e.RegDate = g.now.AddDate(0, 0, -30-g.r.IntN(3650)).Format(time.DateOnly)
	}
	return e
}
