// Package nlq answers questions in plain language (POST /ask) with peppolgate's tools: a
// planner turns the question into tool calls (rules by default, an LLM through
// langchaingo when one is configured), the engine runs them over a registry.Registry
// and phrases the answer, and reports progress as events for server-sent streams.
package nlq

import (
	"context"
	"encoding/json"
)

// MaxQueryLength is the longest question accepted, in characters.
const MaxQueryLength = 500

// Call is one tool call: a tool of package tools and its JSON arguments object.
type Call struct {
	Tool      string         `json:"tool" jsonschema:"tool name: lookup_participant, search_directory, get_participant_services, check_participants or network_statistics"`
	Arguments map[string]any `json:"arguments" jsonschema:"the tool's arguments"`
}

// Intent is what a question asks for.
type Intent string

// Intents the rule planner recognises.
const (
	// IntentLookup: who is / look up a participant ("who is 0208:0677424046").
	IntentLookup Intent = "lookup"
	// IntentSearch: find companies by name or number ("find acme in Belgium").
	IntentSearch Intent = "search"
	// IntentCanReceive: can X receive invoices, credit notes, ... over Peppol.
	IntentCanReceive Intent = "can_receive"
	// IntentAccessPoint: which access point or SMP serves X.
	IntentAccessPoint Intent = "access_point"
	// IntentCount: how many participants match ("how many Norwegian companies named X").
	IntentCount Intent = "count"
	// IntentCertificate: when does X's access point certificate expire, is it valid.
	IntentCertificate Intent = "certificate"
	// IntentDocumentTypes: which document types and processes X's SMP lists.
	IntentDocumentTypes Intent = "document_types"
	// IntentOnPeppol: is X on Peppol / registered.
	IntentOnPeppol Intent = "on_peppol"
	// IntentCheck: can these receive invoices, are these on Peppol, for a list of
	// participant ids or numbers ("can these receive invoices: A, B, C?").
	IntentCheck Intent = "check"
	// IntentUnknown: the question was not understood; Calls is empty.
	IntentUnknown Intent = "unknown"
)

// Document kinds a can_receive question may name.
const (
	DocInvoice    = "invoice"
	DocCreditNote = "credit_note"
	DocOrder      = "order"
	DocAny        = ""
)

// Plan is what a planner made of a question.
type Plan struct {
	// Intent is what the question asks for.
	Intent Intent `json:"intent"`
	// Subject is the company name, number or participant id the question is about, as
	// the user wrote it with filler words, country words and punctuation stripped; ""
	// when there is none.
	Subject string `json:"subject,omitempty"`
	// Country is the ISO 3166 alpha-2 code of a country the question names as a
	// filter ("in Belgium", "belges", "norske"); "" when none.
	Country string `json:"country,omitempty"`
	// Language is the language the question is written in (LangEnglish, LangFrench,
	// ...), the language of the answer.
	Language string `json:"language,omitempty"`
	// Document is the document kind a can_receive, check or access_point question
	// names (DocInvoice, DocCreditNote, DocOrder), DocAny otherwise.
	Document string `json:"document,omitempty"`
	// Aspect narrows the intent to one fact (AspectIssuer, AspectSMP, AspectTransport,
	// AspectRegistered; see rules_kinds.go); "" for the whole answer.
	Aspect string `json:"aspect,omitempty"`
	// Subjects are the companies of a question naming several ("can A and B receive
	// invoices?"), each answered; nil for one. Calls then search Subject, all of them
	// as written, in case it is one name ("Marks and Spencer").
	Subjects []string `json:"subjects,omitempty"`
	// Calls are the first tool calls to run: lookup_participant {participantId} when
	// the subject is a participant id, followed by get_participant_services
	// {participantId} when the plan needs its services (a can_receive, certificate
	// or document_types question, or an access_point question naming a document),
	// else search_directory {q[, country]}, or {country} alone for a count of a whole
	// country; for a list of identifiers (IntentCheck) one check_participants
	// {rows[, documents]}; network_statistics {} for a count of the whole network or of
	// a document kind. Empty for IntentUnknown and IntentOutOfScope.
	Calls []Call `json:"calls"`
	// Readings are other readings of a name subject, best first: the spans of the
	// subject between question words, each planned with the words around it, for the
	// engine to link against the index (see link.go); nil when there are none.
	Readings []Plan `json:"-"`
}

// needsServices reports whether answering p needs the participant's services (every
// document type its SMP lists, with endpoints): a can_receive question, or an
// access_point question naming a document.
func (p Plan) needsServices() bool {
	switch p.Intent {
	case IntentCanReceive, IntentCertificate, IntentDocumentTypes:
		return true
	}
	return p.Intent == IntentAccessPoint && p.Document != DocAny
}

// Planner turns a question into a plan. Plan must be deterministic and fast, and must
// not fail: a question it does not understand gets IntentUnknown.
type Planner interface {
	Plan(query string) Plan
}

// ToolRunner runs one tool call for an LLM planner: it returns the text fed back to the
// model (the result as JSON, or "<code>: <message>" for a tool error) and, for a
// success, the structured value (*registry.Participant, *registry.SearchResult or
// *registry.ServicesResult).
// err is non-nil only when the call could not be made at all (ctx done).
type ToolRunner func(ctx context.Context, tool string, args json.RawMessage) (text string, value any, err error)
