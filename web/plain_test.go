package web

import "testing"

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
