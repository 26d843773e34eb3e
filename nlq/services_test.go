package nlq

import (
	"slices"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// callList renders calls as "tool:participantId-or-q".
func callList(calls []Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		arg, _ := c.Arguments["participantId"].(string)
		if q, ok := c.Arguments["q"].(string); ok {
			arg = q
		}
		out[i] = c.Tool + ":" + arg
	}
	return out
}

// TestEngineServices asks the rule planner's questions about what netsim's showcase
// participants can receive: the plan lists the participant's services, and the answer
// says yes or no from the SMP's document types, names them and the access point, and
// gives the warnings that matter for sending.
func TestEngineServices(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	svcCalls := func(id string) []string {
		return []string{"lookup_participant:" + id, "get_participant_services:" + id}
	}
	tests := []struct {
		name      string
		planner   Planner // RulePlanner{} when nil
		query     string
		intent    Intent
		wantCalls []string
		wantStart int // calls in the start event
		wantCan   bool
		wantIn    []string
		wantNotIn []string
		check     func(t *testing.T, info *PeppolInfo)
	}{
		{
			name:      "lists credit notes: yes, by name, at its access point, no warning",
			query:     "Can " + netsim.KnownCertValid + " receive credit notes?",
			intent:    IntentCanReceive,
			wantCalls: svcCalls(netsim.KnownCertValid),
			wantStart: 2,
			wantCan:   true,
			wantIn: []string{"Yes: " + netsim.KnownCertValid + " (“" + n.Name(netsim.KnownCertValid) + "”, BE) can receive credit notes over Peppol as Peppol BIS Billing UBL Credit Note V3, through the access point at https://",
				"/as4 (peppol-transport-as4-v2_0)."},
			wantNotIn: []string{"Warning", "Note:"},
			check: func(t *testing.T, info *PeppolInfo) {
				if len(info.Documents) != 1 || info.Documents[0].Category != "Credit Note" || info.Documents[0].State != "active" ||
					len(info.Documents[0].Endpoints) != 1 || info.Documents[0].Warnings != nil || !strings.Contains(info.Documents[0].ID, "::CreditNote##") {
					t.Errorf("documents %+v", info.Documents)
				}
				if !slices.Equal(info.DocumentKinds, []string{"Invoice", "Credit Note"}) {
					t.Errorf("kinds %v", info.DocumentKinds)
				}
			},
		},
		{
			name:      "lists no credit note: no, naming what it receives",
			query:     "Can " + netsim.KnownDeprecatedDocType + " receive credit notes?",
			intent:    IntentCanReceive,
			wantCalls: svcCalls(netsim.KnownDeprecatedDocType),
			wantStart: 2,
			wantIn: []string{"No: " + netsim.KnownDeprecatedDocType + " (“" + n.Name(netsim.KnownDeprecatedDocType) + "”",
				"does not list credit notes among its 3 document types; it receives Peppol BIS Billing UBL Invoice V3, UBL.BE Invoice 3.0 and XRechnung UBL Invoice V1.2."},
			// The deprecated invoice types do not answer a credit-note question.
			wantNotIn: []string{"Warning", "Note:"},
			check: func(t *testing.T, info *PeppolInfo) {
				if info.Documents != nil || !slices.Equal(info.DocumentKinds, []string{"Invoice"}) {
					t.Errorf("documents %+v, kinds %v", info.Documents, info.DocumentKinds)
				}
			},
		},
		{
			name:      "expired certificate: not right now",
			query:     "Kan " + netsim.KnownCertExpired + " creditnota's ontvangen?",
			intent:    IntentCanReceive,
			wantCalls: svcCalls(netsim.KnownCertExpired),
			wantStart: 2,
			wantCan:   false,
			// Asked in Dutch, answered in Dutch.
			wantIn:    []string{"Nu niet: ", "is geregistreerd voor creditnota's, maar versturen mislukt op dit moment: het access point-certificaat is verlopen"},
			wantNotIn: []string{"Note:"},
			check: func(t *testing.T, info *PeppolInfo) {
				if len(info.Documents) != 1 || len(info.Documents[0].Warnings) != 1 || info.Documents[0].Warnings[0].Code != registry.WarnCertificateExpired ||
					!strings.Contains(info.Documents[0].Warnings[0].Message, "renew") {
					t.Errorf("documents %+v", info.Documents)
				}
			},
		},
		{
			name:      "expiring certificate, found by name: the first hits' services",
			query:     "Can " + n.Name(netsim.KnownCertExpiring) + " receive credit notes?",
			intent:    IntentCanReceive,
			wantCalls: append([]string{"search_directory:" + n.Name(netsim.KnownCertExpiring)}, svcCalls(netsim.KnownCertExpiring)...),
			wantStart: 1,
			wantCan:   true,
			wantIn:    []string{"Yes: " + netsim.KnownCertExpiring + " (“" + n.Name(netsim.KnownCertExpiring) + "”", "Warning: the access point certificate expires on 2026-03-12 (in "},
		},
		{
			name:      "AS2 only: not right now, the profile was removed",
			query:     "Kann " + netsim.KnownAS2Only + " Rechnungen empfangen?",
			intent:    IntentCanReceive,
			wantCalls: svcCalls(netsim.KnownAS2Only),
			wantStart: 2,
			wantCan:   false,
			// Asked in German, answered in German.
			wantIn: []string{"Im Moment nicht: ", "aber das Senden schlägt gerade fehl: das Transportprofil des Endpoints wurde aus Peppol entfernt"},
		},
		{
			name:      "service not yet active",
			query:     "Can " + netsim.KnownServiceNotYetActive + " receive invoices?",
			intent:    IntentCanReceive,
			wantCalls: svcCalls(netsim.KnownServiceNotYetActive),
			wantStart: 2,
			wantCan:   false,
			wantIn:    []string{"Not right now: ", "sending them fails right now: the endpoint becomes active on 2026-03-22"},
		},
		{
			name:      "a non-standard invoice type counts by its root element",
			query:     "Can " + netsim.KnownNonStandardDocType + " receive invoices?",
			intent:    IntentCanReceive,
			wantCalls: svcCalls(netsim.KnownNonStandardDocType),
			wantStart: 2,
			wantCan:   true,
			wantIn:    []string{"as Peppol BIS Billing UBL Invoice V3 and busdox-docid-qns::", "Warning: the document type “busdox-docid-qns::"},
			check: func(t *testing.T, info *PeppolInfo) {
				if len(info.Documents) != 2 || !slices.Equal(info.DocumentKinds, []string{"Invoice", kindOther}) {
					t.Errorf("documents %+v, kinds %v", info.Documents, info.DocumentKinds)
				}
			},
		},
		{
			name:      "any document: the kinds of many",
			query:     "Can " + netsim.KnownManyDocTypes + " receive documents over Peppol?",
			intent:    IntentCanReceive,
			wantCalls: svcCalls(netsim.KnownManyDocTypes),
			wantStart: 2,
			wantCan:   true,
			wantIn:    []string{"can receive documents over Peppol: 48 document types of the kinds "},
			check: func(t *testing.T, info *PeppolInfo) {
				if len(info.Documents) != netsim.ManyDocTypes {
					t.Errorf("%d documents", len(info.Documents))
				}
			},
		},
		{
			name:      "access point for a named document",
			query:     "Which access point receives orders for " + netsim.KnownDirectoryMismatch + "?",
			intent:    IntentAccessPoint,
			wantCalls: svcCalls(netsim.KnownDirectoryMismatch),
			wantStart: 2,
			wantCan:   true,
			wantIn:    []string{n.Name(netsim.KnownDirectoryMismatch), "receives orders (Peppol Order transaction 3.0) through the access point at https://", "listing 3 document types.", "Note: the Peppol Directory card and the SMP disagree"},
		},
		{
			name:      "access point for a document it does not list",
			query:     "Which access point receives orders for " + netsim.KnownCertValid + "?",
			intent:    IntentAccessPoint,
			wantCalls: svcCalls(netsim.KnownCertValid),
			wantStart: 2,
			wantIn:    []string{"lists no orders, so no access point receives them for it; it receives Peppol BIS Billing UBL Invoice V3 and Peppol BIS Billing UBL Credit Note V3."},
		},
		{
			name:      "not registered: no services to judge",
			query:     "Can " + netsim.KnownDirectoryOnly + " receive credit notes?",
			intent:    IntentCanReceive,
			wantCalls: svcCalls(netsim.KnownDirectoryOnly),
			wantStart: 2,
			wantIn:    []string{"No: ", "is not registered in the SML, so it cannot receive credit notes over Peppol."},
		},
		{
			name:      "a plan without the services call: judged from the lookup's ServiceGroup",
			planner:   fixedPlanner(Plan{Intent: IntentCanReceive, Document: DocCreditNote, Calls: []Call{lookupCall(netsim.KnownCertExpired)}}),
			query:     "q",
			intent:    IntentCanReceive,
			wantCalls: []string{"lookup_participant:" + netsim.KnownCertExpired},
			wantStart: 1,
			wantCan:   false,
			// No endpoint for credit notes is known: the lookup's one endpoint, whose
			// access point certificate expired, stands for every kind its SMP lists
			// (registry.Judge), as in the bulk check and on the page.
			wantIn:    []string{"Not right now: ", "is registered for credit notes, but sending them fails right now: the access point certificate expired"},
			wantNotIn: []string{"Warning"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.planner
			if p == nil {
				p = RulePlanner{}
			}
			e := newEngine(t, n, p)
			var ev recorder
			a, err := e.Ask(t.Context(), tt.query, &ev)
			if err != nil {
				t.Fatal(err)
			}
			if a.Intent != tt.intent {
				t.Errorf("intent %s, want %s", a.Intent, tt.intent)
			}
			got := callList(a.Calls)
			if len(got) < len(tt.wantCalls) || !slices.Equal(got[:len(tt.wantCalls)], tt.wantCalls) {
				t.Errorf("calls %v, want %v first", got, tt.wantCalls)
			}
			if len(ev.start.Calls) != tt.wantStart || !slices.Equal(callList(ev.start.Calls), tt.wantCalls[:tt.wantStart]) {
				t.Errorf("start event calls %v", callList(ev.start.Calls))
			}
			if !slices.Equal(callList(ev.done.Calls), got) {
				t.Errorf("complete event calls %v, answer's %v", callList(ev.done.Calls), got)
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(a.Answer, w) {
					t.Errorf("answer lacks %q:\n%s", w, a.Answer)
				}
			}
			for _, w := range tt.wantNotIn {
				if strings.Contains(a.Answer, w) {
					t.Errorf("answer has %q:\n%s", w, a.Answer)
				}
			}
			if len(a.Results) == 0 || a.Results[0].Peppol == nil {
				t.Fatalf("results %+v", a.Results)
			}
			it := a.Results[0]
			if it.Type != "Organization" || it.Context != "https://schema.org" {
				t.Errorf("item %+v", it)
			}
			info := it.Peppol
			if info.CanReceive == nil || *info.CanReceive != tt.wantCan {
				t.Errorf("canReceive %v, want %v", info.CanReceive, tt.wantCan)
			}
			if tt.check != nil {
				tt.check(t, info)
			}
		})
	}
}

// TestEngineLLMServices: the model searches, looks the participant up and lists its
// services; the item keeps its card and gains the document types with their warnings,
// and the model is fed the services with the certificate warning.
func TestEngineLLMServices(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	id, name := netsim.KnownCertExpired, n.Name(netsim.KnownCertExpired)
	f := startFakeOpenAI(t, "k", "m", script(
		toolCalls(call("c1", "search_directory", `{"q":"`+name+`"}`)),
		toolCalls(call("c2", "lookup_participant", `{"participantId":"`+id+`"}`), call("c3", "get_participant_services", `{"participantId":"`+id+`"}`)),
		toolCalls(call("c4", "get_participant_services", `{"participantId":"`+netsim.KnownDeprecatedDocType+`"}`)),
		answer("Yes, "+name+" ("+id+") can receive credit notes, but its access point certificate has expired."),
	))
	llm, err := NewLLM(LLMConfig{BaseURL: f.baseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Registry: n.Reg, Planner: RulePlanner{}, LLM: llm, BaseURL: "https://peppolgate.test"})
	if err != nil {
		t.Fatal(err)
	}
	var ev recorder
	a, err := e.Ask(t.Context(), "Can "+name+" receive credit notes?", &ev)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"search_directory:" + name, "lookup_participant:" + id, "get_participant_services:" + id, "get_participant_services:" + netsim.KnownDeprecatedDocType}
	if a.Meta.Planner != "llm:m" || !slices.Equal(callList(a.Calls), want) || !slices.Equal(callList(ev.start.Calls), want) {
		t.Fatalf("planner %s, calls %v, start %v", a.Meta.Planner, callList(a.Calls), callList(ev.start.Calls))
	}
	byID := map[string]Item{}
	for _, it := range a.Results {
		byID[it.Identifier] = it
	}
	it, ok := byID[id]
	if !ok || it.Name != name || it.Peppol == nil || !it.Peppol.Registered || !it.Peppol.DirectoryCard || it.Peppol.CanReceive != nil {
		t.Fatalf("item %+v", it)
	}
	if len(it.Peppol.Documents) != 2 || !slices.Equal(it.Peppol.DocumentKinds, []string{"Invoice", "Credit Note"}) ||
		len(it.Peppol.Documents[1].Warnings) != 1 || it.Peppol.Documents[1].Warnings[0].Code != registry.WarnCertificateExpired {
		t.Errorf("documents %+v, kinds %v", it.Peppol.Documents, it.Peppol.DocumentKinds)
	}
	// A participant known only from its services is an item too.
	other, ok := byID[netsim.KnownDeprecatedDocType]
	if !ok || other.Peppol == nil || !other.Peppol.Registered || other.Peppol.DirectoryCard || len(other.Peppol.Documents) != 3 || other.Peppol.DocumentTypeCount != 3 {
		t.Errorf("services-only item %+v", other)
	}
	reqs := f.requests()
	fb := reqs[len(reqs)-1].toolFeedback()
	if len(fb) != 4 || !strings.Contains(fb[2], `"code":"certificate_expired"`) || !strings.Contains(fb[2], `"category":"Credit Note"`) {
		t.Errorf("tool feedback %v", fb)
	}
}

func TestIsKind(t *testing.T) {
	t.Parallel()
	inv := registry.CodeInfo{Value: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:x::2.1"}
	tests := []struct {
		t    registry.CodeInfo
		doc  string
		want bool
	}{
		{registry.CodeInfo{Category: "Invoice"}, DocInvoice, true},
		{registry.CodeInfo{Category: "Invoice"}, DocCreditNote, false},
		{registry.CodeInfo{Category: "Credit Note"}, DocCreditNote, true},
		{registry.CodeInfo{Category: "Order"}, DocOrder, true},
		{registry.CodeInfo{Category: "Order Response"}, DocOrder, false},
		{registry.CodeInfo{Category: "Invoice Response"}, DocInvoice, false},
		{registry.CodeInfo{Category: "Catalogue"}, DocAny, true},
		{inv, DocInvoice, true}, // not in the code list: by its root element
		{inv, DocCreditNote, false},
		{registry.CodeInfo{Value: "urn:x::CrossIndustryInvoice##urn:y::D16B"}, DocInvoice, true},
		{registry.CodeInfo{Value: "urn:x::CreditNote##urn:y::2.1"}, DocCreditNote, true},
		{registry.CodeInfo{Value: "urn:x::Order##urn:y::2.1"}, DocOrder, true},
		{registry.CodeInfo{Value: "urn:x::OrderResponse##urn:y::2.1"}, DocOrder, false},
	}
	for _, tt := range tests {
		if got := isKind(tt.t, tt.doc); got != tt.want {
			t.Errorf("isKind(%+v, %q) = %v, want %v", tt.t, tt.doc, got, tt.want)
		}
	}
}

func TestListNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"A"}, "A"},
		{[]string{"A", "B"}, "A and B"},
		{[]string{"A", "B", "C", "D"}, "A, B, C and D"},
		{[]string{"A", "B", "C", "D", "E", "F"}, "A, B, C and 3 more"},
	}
	for _, tt := range tests {
		if got := listNames(&english, tt.in); got != tt.want {
			t.Errorf("listNames(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNotRightNowWithoutServices: when the services could not be listed, the lookup's
// one endpoint decides: listed for invoices but with an expired certificate is "Not
// right now", not "Yes" with a note, and the answer says the services were not
// checked.
func TestNotRightNowWithoutServices(t *testing.T) {
	t.Parallel()
	const inv = "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
	p := &registry.Participant{ParticipantID: "0208:0677424046",
		SMP: &registry.SMPRecord{Hostname: "smp.example", ServiceCount: 1,
			DocumentTypes: []registry.CodeInfo{{ID: inv, Value: inv[len("busdox-docid-qns::"):], Category: "Invoice", Name: "Peppol BIS Billing UBL Invoice V3", State: "active"}},
			Endpoint:      &registry.Endpoint{DocumentType: inv[len("busdox-docid-qns::"):], URL: "https://ap.example/as4", TransportProfile: "peppol-transport-as4-v2_0"}},
		Warnings: []registry.Warning{{Code: registry.WarnCertificateExpired, Message: "the access point certificate expired on 2026-02-15 (16 days ago): senders refuse it"}}}
	e := &Engine{baseURL: "https://peppolgate.test"}
	plan := Plan{Intent: IntentCanReceive, Document: DocInvoice}
	it := e.participantItem(p, nil, nil, DocInvoice, true)
	if it.Peppol.CanReceive == nil || *it.Peppol.CanReceive || !slices.Equal(it.Peppol.Blocked, []string{registry.WarnCertificateExpired}) {
		t.Fatalf("peppol %+v", it.Peppol)
	}
	got := participantAnswer(&english, plan, p, nil, it)
	for _, want := range []string{"Not right now: ", "the access point certificate expired on 2026-02-15", "Not checked: its services"} {
		if !strings.Contains(got, want) {
			t.Errorf("answer lacks %q: %s", want, got)
		}
	}
	if strings.Count(got, "expired on") != 1 {
		t.Errorf("the expiry is said more than once: %s", got)
	}
}
