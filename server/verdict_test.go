package server

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
)

// verdictBox is the verdict section of a participant page.
var verdictBox = regexp.MustCompile(`(?s)<section class="verdict[^"]*"[^>]*>.*?</section>`)

// warningItems are the items of a participant page's "What to know" list.
var warningItems = regexp.MustCompile(`(?s)<li class="(?:blocking|notice)">.*?</li>`)

// TestParticipantPageVerdictWords: the verdict box of a participant whose access point
// certificate expired says so in words, not as a warning code, and the page lists the
// expired certificate once, not once from the lookup and again from the services.
func TestParticipantPageVerdictWords(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	_, body := e.getPage(t, "/participant/"+netsim.KnownCertExpired)
	box := verdictBox.Find(body)
	if box == nil {
		t.Fatalf("no verdict box:\n%s", body)
	}
	if codeLike.Match(box) || !bytes.Contains(box, []byte("certificate has expired")) {
		t.Errorf("verdict box speaks in codes, or does not say the certificate expired:\n%s", box)
	}
	expired := 0
	for _, li := range warningItems.FindAll(body, -1) {
		if bytes.Contains(li, []byte("(certificate_expired)")) {
			expired++
		}
	}
	if expired != 1 {
		t.Errorf("the expired certificate is listed %d times, want once:\n%s", expired, body)
	}
}

// codeLike matches a warning code: lower-case words joined by underscores.
var codeLike = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)
