package netsim

import (
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/peppol/codelist"
)

// Document types of the showcase participants that the generator's docKinds table does
// not have.
const (
	// DocTypeUBLBEInvoice is UBL.BE Invoice 3.0, deprecated in code list 9.6.
	DocTypeUBLBEInvoice = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#conformant#urn:UBL.BE:1.0.0.20180214::2.1"
	// DocTypeXRechnung12Invoice is XRechnung UBL Invoice V1.2, removed from the
	// network on 2023-05-24.
	DocTypeXRechnung12Invoice = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_1.2::2.1"
	// DocTypeNonStandard is a document type identifier no Peppol code list has.
	DocTypeNonStandard = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:example.com:peppolgate:custom-invoice:1.0::2.1"
	// ManyDocTypes is the number of document types KnownManyDocTypes receives.
	ManyDocTypes = 48
)

// Participants of the test network (DatasetConfig{Network: NetworkTest}). None of them
// exists in a production dataset.
const (
	// TestKnownInvoice is an Austrian test participant in the SML, its SMP and the
	// Directory that receives invoices and credit notes; no warning.
	TestKnownInvoice = "9915:test-peppolgate-invoice"
	// TestKnownSMLOnly is registered in the test SML and its SMP but has no Directory
	// card (warning: Directory card missing).
	TestKnownSMLOnly = "9915:test-peppolgate-smlonly"
	// TestKnownCertExpired's access point certificate expired 20 days before
	// Dataset.Now (warning: certificate expired).
	TestKnownCertExpired = "9915:test-peppolgate-expired"
	// TestKnownGLN is a Belgian test participant registered by GLN that receives
	// invoices, orders and order responses.
	TestKnownGLN = "0088:5409999000018"
	// TestKnownDirectoryOnly has a card in the test Directory but no SML registration.
	TestKnownDirectoryOnly = "0088:5409999000025"
)

// ShowcaseParticipants returns the identifiers of the showcase participants
// (KnownCertExpired to KnownDirectoryMismatch), in the order Generate adds them at the
// end of a production Dataset.
func ShowcaseParticipants() []string { return slices.Clone(showcaseIDs) }

// showcaseIDs are the showcase participants in the order Generate adds them.
var showcaseIDs = []string{
	KnownCertExpired, KnownCertExpiring, KnownCertValid, KnownCertNonPeppolCA,
	KnownServiceNotYetActive, KnownServiceExpired, KnownHTTPEndpoint, KnownPort8443,
	KnownAS2Only, KnownDeprecatedDocType, KnownNonStandardDocType, KnownManyDocTypes,
	KnownDirectoryMismatch,
}

// testIDs are the test network's participants in the order generateTest adds them.
var testIDs = []string{TestKnownInvoice, TestKnownSMLOnly, TestKnownCertExpired, TestKnownGLN, TestKnownDirectoryOnly}

// RNG streams of the showcase and test-network generators; the production generator
// uses 0x9e3779b97f4a7c15.
const (
	showcaseStream = 0x5bd1e9955bd1e995
	testStream     = 0x2545f4914f6cdd1d
)

// showcaseOperators run the showcase access points: expired, expiring, valid and
// non-Peppol-CA certificates, in this order.
var showcaseOperators = []struct{ name, country, domain string }{
	{"Brugse Berichtendienst NV", "BE", "berichtendienst.example.be"},
	{"Gentse Documentpoort BV", "BE", "documentpoort.example.be"},
	{"Luikse Echange Numérique SA", "BE", "echange.example.be"},
	{"Example Corp", "NL", "example-corp.example.nl"},
}

// showcase adds the showcase participants and their access points after every other
// participant and access point, drawing from an RNG of its own, so that every earlier
// participant is the same as in a dataset without them.
func (g *generator) showcase(seed int64) {
	s := &generator{
		r:           rand.New(rand.NewPCG(uint64(seed), showcaseStream)),
		now:         g.now,
		ds:          g.ds,
		seen:        g.seen,
		companies:   g.companies,
		totalWeight: g.totalWeight,
	}
	defer func() { g.companies = s.companies }()

	apExpired := s.showcaseAP(0, s.now.AddDate(0, 0, -15), false)
	apExpiring := s.showcaseAP(1, s.now.AddDate(0, 0, 10), false)
	apValid := s.showcaseAP(2, s.now.AddDate(0, 0, 400), false)
	apOther := s.showcaseAP(3, s.now.AddDate(0, 0, 300), true)

	nh := len(s.ds.SMPHosts)
	host := func(i int) int { return i % nh }
	be := s.countryByCode("BE")
	std := func(ap int) []ServiceInfo {
		return []ServiceInfo{s.fixedService(docKinds[dkInvoice], ap), s.fixedService(docKinds[dkCreditNote], ap)}
	}
	add := func(id string, i int, name string, svc []ServiceInfo) *Participant {
		return s.addKnown(id, be, host(i), svc, s.cardFor(be, name, 1))
	}
	setEndpoints := func(svc []ServiceInfo, f func(*Endpoint)) []ServiceInfo {
		for i := range svc {
			for j := range svc[i].Processes {
				for k := range svc[i].Processes[j].Endpoints {
					f(&svc[i].Processes[j].Endpoints[k])
				}
			}
		}
		return svc
	}

	add(KnownCertExpired, 0, "Verstraete Metaalbewerking NV", std(apExpired))
	add(KnownCertExpiring, 1, "Claeys Drukkerij BV", std(apExpiring))
	add(KnownCertValid, 2, "Lambrechts Zonwering BV", std(apValid))
	add(KnownCertNonPeppolCA, 3, "Wouters Elektrotechniek BV", std(apOther))
	add(KnownServiceNotYetActive, 4, "Peeters Schrijnwerkerij BV", setEndpoints(std(apValid), func(e *Endpoint) {
		e.ActivationDate = s.now.AddDate(0, 0, 20)
	}))
	add(KnownServiceExpired, 5, "Maes Tuinaanleg BV", setEndpoints(std(apValid), func(e *Endpoint) {
		e.ExpirationDate = s.now.AddDate(0, 0, -10)
	}))
	validHost := hostOf(s.ds.AccessPoints[apValid].AS4URL)
	add(KnownHTTPEndpoint, 6, "Jacobs Koeltechniek NV", setEndpoints(std(apValid), func(e *Endpoint) {
		e.Address = "http://" + validHost + "/as4"
	}))
	add(KnownPort8443, 7, "Mertens Verhuizingen BV", setEndpoints(std(apValid), func(e *Endpoint) {
		e.Address = "https://" + validHost + ":8443/as4"
	}))
	add(KnownAS2Only, 8, "Willems Textielveredeling NV", setEndpoints(std(apValid), func(e *Endpoint) {
		e.TransportProfile = TransportAS2
		e.Address = s.ds.AccessPoints[e.AccessPoint].AS2URL
	}))
	dep := []ServiceInfo{
		s.fixedService(docKinds[dkInvoice], apValid),
		s.fixedService(docKind{docType: DocumentType{Scheme: DocTypeSchemeQNS, Value: DocTypeUBLBEInvoice}, processes: []string{procBilling}}, apValid),
		s.fixedService(docKind{docType: DocumentType{Scheme: DocTypeSchemeQNS, Value: DocTypeXRechnung12Invoice}, processes: []string{procBilling}}, apValid),
	}
	add(KnownDeprecatedDocType, 9, "Goossens Bouwmaterialen NV", dep)
	nonStd := []ServiceInfo{
		s.fixedService(docKinds[dkInvoice], apValid),
		s.fixedService(docKind{docType: DocumentType{Scheme: DocTypeSchemeQNS, Value: DocTypeNonStandard}, processes: []string{procBilling}}, apValid),
	}
	add(KnownNonStandardDocType, 10, "Dubois Imprimerie SRL", nonStd)
	add(KnownManyDocTypes, 11, "Hermans Horeca Groothandel NV", s.manyServices(apValid, ManyDocTypes))
	mismatch := []ServiceInfo{
		s.fixedService(docKinds[dkInvoice], apValid),
		s.fixedService(docKinds[dkCreditNote], apValid),
		s.fixedService(docKinds[dkOrder], apValid),
	}
	p := add(KnownDirectoryMismatch, 12, "Lemaire Transports SRL", mismatch)
	p.Card.DocTypes = []DocumentType{docKinds[dkInvoice].docType, docKinds[dkDespatch].docType}
}

// showcaseAP appends the access point of showcaseOperators[i] with a certificate valid
// until notAfter and returns its index.
func (g *generator) showcaseAP(i int, notAfter time.Time, nonPeppolCA bool) int {
	op := showcaseOperators[i]
	host := "ap." + op.domain
	g.ds.AccessPoints = append(g.ds.AccessPoints, AccessPoint{
		SeatID:       "P" + op.country + string(digits(g.r, 6, "123456789")),
		Organisation: op.name,
		Country:      op.country,
		AS4URL:       "https://" + host + "/as4",
		AS2URL:       "https://" + host + "/as2",
		NotBefore:    notAfter.AddDate(-2, 0, 0),
		NotAfter:     notAfter,
		Serial:       int64(1000 + len(g.ds.AccessPoints)),
		NonPeppolCA:  nonPeppolCA,
	})
	return len(g.ds.AccessPoints) - 1
}

// hostOf returns the host of an absolute URL such as "https://ap.example/as4".
func hostOf(u string) string {
	_, rest, _ := strings.Cut(u, "://")
	h, _, _ := strings.Cut(rest, "/")
	return h
}

// fixedService is service without random choices: one AS4 endpoint per process,
// active since a year before now, no expiration date.
func (g *generator) fixedService(k docKind, ap int) ServiceInfo {
	a := g.ds.AccessPoints[ap]
	s := ServiceInfo{DocumentType: k.docType, Processes: make([]Process, len(k.processes))}
	for i, p := range k.processes {
		s.Processes[i] = Process{Value: p, Endpoints: []Endpoint{{
			TransportProfile:    TransportAS4,
			AccessPoint:         ap,
			Address:             a.AS4URL,
			ActivationDate:      g.now.AddDate(-1, 0, 0),
			ServiceDescription:  a.Organisation + " Peppol access point",
			TechnicalContactURL: "mailto:peppol-support@" + strings.TrimPrefix(hostOf(a.AS4URL), "ap."),
		}}}
	}
	return s
}

// manyServices returns n services for the active busdox-docid-qns entries of the
// document type code list, in list order, each with its first listed process.
func (g *generator) manyServices(ap, n int) []ServiceInfo {
	var out []ServiceInfo
	for _, d := range codelist.DocumentTypes() {
		if len(out) == n {
			break
		}
		if d.State != codelist.StateActive || d.Scheme != DocTypeSchemeQNS || d.Abstract ||
			len(d.Processes) == 0 || d.Processes[0].Scheme != ProcessScheme {
			continue
		}
		out = append(out, g.fixedService(docKind{
			docType:   DocumentType{Scheme: d.Scheme, Value: d.Value},
			processes: []string{d.Processes[0].Value},
		}, ap))
	}
	return out
}

// generateTest builds the test network's dataset: cfg.SMPHosts hosts, three access
// points (expired, expiring and valid certificates) and the TestKnown* participants.
func generateTest(cfg DatasetConfig, now time.Time) *Dataset {
	g := &generator{
		r:    rand.New(rand.NewPCG(uint64(cfg.Seed), testStream)),
		now:  now,
		seen: make(map[string]bool, len(testIDs)),
		ds: &Dataset{
			Seed:    cfg.Seed,
			Now:     now,
			Network: NetworkTest,
			index:   make(map[string]int, len(testIDs)),
		},
	}
	for _, c := range countries {
		g.totalWeight += c.weight
	}
	g.hosts(cfg.SMPHosts)
	g.accessPoints(3)
	const apExpired, apValid = 0, 2
	nh := len(g.ds.SMPHosts)
	host := func(i int) int { return i % nh }
	at, be := g.countryByCode("AT"), g.countryByCode("BE")
	std := func(ap int) []ServiceInfo {
		return []ServiceInfo{g.fixedService(docKinds[dkInvoice], ap), g.fixedService(docKinds[dkCreditNote], ap)}
	}
	g.addKnown(TestKnownInvoice, at, host(0), std(apValid), g.cardFor(at, "Peppolgate Testempfänger GmbH", 1))
	g.addKnown(TestKnownSMLOnly, at, host(1), std(apValid), nil)
	g.addKnown(TestKnownCertExpired, at, host(2), std(apExpired), g.cardFor(at, "Peppolgate Abgelaufen Test GmbH", 1))
	g.addKnown(TestKnownGLN, be, host(3), []ServiceInfo{
		g.fixedService(docKinds[dkInvoice], apValid),
		g.fixedService(docKinds[dkOrder], apValid),
		g.fixedService(docKinds[dkOrderResponse], apValid),
	}, g.cardFor(be, "Peppolgate Testontvanger BV", 1))
	g.addKnown(TestKnownDirectoryOnly, be, -1, std(apValid), g.cardFor(be, "Peppolgate Testarchief BV", 1))
	for i := range g.ds.Participants {
		g.ds.index[g.ds.Participants[i].ID.String()] = i
	}
	return g.ds
}
