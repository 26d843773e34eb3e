package web

import (
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

func TestPlain(t *testing.T) {
	t.Parallel()
	plain := newPlain()
	for _, tc := range []struct{ in, want string }{
		{"the SML (DNS) did not give a definite answer; retry with exponential backoff", "the SML (DNS) did not give a definite answer; try again in a minute"},
		{"too many searches are queued for the Peppol Directory right now (busy); retry in a few seconds with exponential backoff", "too many searches are queued for the Peppol Directory right now (busy); try again in a few seconds"},
		{"the Peppol Directory is rate limiting requests; retry after the indicated delay", "the Peppol Directory is rate limiting requests; try again in a moment"},
		{"…but the Peppol Directory could not be asked whether it has a business card; retry with exponential backoff for the full answer", "…but the Peppol Directory could not be asked whether it has a business card; try again in a minute for the full answer"},
		{"check the scheme and number, do not retry", "check the scheme and number, do not retry"},
		{"retry later", "retry later"},
	} {
		if got := plain.Replace(tc.in); got != tc.want {
			t.Errorf("plain(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSentence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"the Peppol network could not be queried; try again in a minute", "The Peppol network could not be queried; try again in a minute."},
		{"ändern Sie die Anfrage.", "Ändern Sie die Anfrage."},
		{"is it?", "Is it?"},
		{"  ", ""},
	} {
		if got := sentence(tc.in); got != tc.want {
			t.Errorf("sentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestForPeople(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code     registry.Code
		in, want string
	}{
		{registry.CodeMissingQuery, "q is required: a company name or registration number, e.g. q=acme", "Type a company name, a VAT or company number or a participant id, or pick a country to list its participants."},
		{registry.CodeQueryTooShort, "q must have at least 2 characters; got 1", "Type at least 2 characters of the name or number."},
		{registry.CodeInvalidRequest, "q must have at most 200 characters; got 201", "The search must have at most 200 characters; got 201."},
		{registry.CodeInvalidRequest, "query must have at most 500 characters; got 501", "The question must have at most 500 characters; got 501."},
		{registry.CodeInvalidRequest, "country must be a two-letter ISO 3166 code such as BE; got \"B\"", "Country must be a two-letter ISO 3166 code such as BE; got \"B\"."},
		{registry.CodeLookupFailed, "quite a failure", "Quite a failure."},
	} {
		if got := sentence(forPeople(tc.code, tc.in)); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.code, tc.in, got, tc.want)
		}
	}
}

func TestApproximate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q, id, name string
		want        bool
	}{
		{"Vandelanotte", "0208:0677424046", "Vandelanotte Installaties NV", false},
		{"vandelanotte installaties", "0208:0677424046", "Vandelanotte Installaties NV", false},
		{"Alvdal", "0007:5852552339", "Älvdal Konsult AB (publ)", false},
		{"Vandelanotte Bouw", "0208:0677424046", "Vandelanotte Installaties NV", true},
		{"BE 0677.424.046", "0208:0677424046", "Vandelanotte Installaties NV", false},
		{"BE 0677.424.046", "0208:0999999999", "Other NV", true},
		{"", "0208:0999999999", "Other NV", false},
	} {
		if got := approximate(tc.q, registry.SearchHit{ParticipantID: tc.id, Name: tc.name}); got != tc.want {
			t.Errorf("approximate(%q, %s %q) = %v, want %v", tc.q, tc.id, tc.name, got, tc.want)
		}
	}
}
