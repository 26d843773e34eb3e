package directory

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/peppolgate/peppolgate/peppol"
)

// Paging limits enforced by the Directory (phoss-directory PDQueryManager.MAX_RESULTS).
const (
	// DefaultPageSize is the page size (rpc) the Directory uses when none is sent.
	DefaultPageSize = 20
	// MaxResultIndex is the highest 0-based result index the Directory will serve:
	// for page size rpc and page index rpi it answers 400 unless both rpi*rpc and
	// (rpi+1)*rpc-1 are at most 1000. So at most 1001 results of one query are
	// reachable, e.g. rpc=100 allows rpi 0..9 and rpc=20 allows rpi 0..49.
	MaxResultIndex = 1000
)

// Query is one Directory search. All given criteria are AND-ed by the Directory.
type Query struct {
	// Q is a free-text query matched against all fields (sent as q=). Surrounding
	// white space is ignored.
	Q string
	// Participant restricts the search to one exact participant id (sent as
	// participant=iso6523-actorid-upis::<icd>:<value>, value lower-cased).
	Participant peppol.ParticipantID
	// Country restricts to a 2-letter country code (sent upper-cased as country=).
	Country string
	// PageSize is the number of entities per page (rpc); 0 sends nothing, so the
	// Directory uses DefaultPageSize.
	PageSize int
	// PageIndex is the 0-based page (rpi); 0 sends nothing.
	PageIndex int
}

// Validate checks q without sending it. It returns an *Error of KindBadQuery (Status 0,
// errors.Is(err, ErrBadQuery)) when there is nothing to search (no Q, Participant or
// Country), the participant id is invalid (wrapping *peppol.IDError), the country is not
// two letters, PageSize or PageIndex is negative, or the page lies beyond the
// Directory's paging limit (see MaxResultIndex).
func (q Query) Validate() error {
	_, err := q.Values()
	return err
}

// Values validates q as Validate does and returns its URL parameters: q, participant,
// country, rpc and rpi, each only when set.
func (q Query) Values() (url.Values, error) {
	v := url.Values{}
	if s := strings.TrimSpace(q.Q); s != "" {
		v.Set("q", s)
	}
	if !q.Participant.IsZero() {
		// Re-parsing both validates a hand-built ParticipantID and lower-cases its value.
		id, err := peppol.ParseParticipantID(q.Participant.String())
		if err != nil {
			return nil, badQuery(0, fmt.Errorf("participant: %w", err))
		}
		v.Set("participant", id.URI())
	}
	if q.Country != "" {
		c := strings.ToUpper(strings.TrimSpace(q.Country))
		if len(c) != 2 || !isLetter(c[0]) || !isLetter(c[1]) {
			return nil, badQuery(0, fmt.Errorf("country must be a 2-letter code such as BE, got %q", q.Country))
		}
		v.Set("country", c)
	}
	if len(v) == 0 {
		return nil, badQuery(0, errors.New("nothing to search: give a query text, a participant id or a country"))
	}
	if err := checkPaging(q.PageSize, q.PageIndex); err != nil {
		return nil, badQuery(0, err)
	}
	if q.PageSize != 0 {
		v.Set("rpc", strconv.Itoa(q.PageSize))
	}
	if q.PageIndex != 0 {
		v.Set("rpi", strconv.Itoa(q.PageIndex))
	}
	return v, nil
}

// checkPaging applies the Directory's own rule (first = rpi*rpc and last = (rpi+1)*rpc-1
// must both be ≤ MaxResultIndex) before sending, so a hopeless page costs no request
// against the 2 requests/s budget. It is written with divisions so that no product can
// overflow.
func checkPaging(size, index int) error {
	if size < 0 {
		return fmt.Errorf("page size must not be negative, got %d", size)
	}
	if index < 0 {
		return fmt.Errorf("page index must not be negative, got %d", index)
	}
	rpc := size
	if rpc == 0 {
		rpc = DefaultPageSize
	}
	// last = (index+1)*rpc - 1 ≤ MaxResultIndex  ⇔  index+1 ≤ (MaxResultIndex+1)/rpc.
	if rpc > MaxResultIndex+1 || index > (MaxResultIndex+1)/rpc-1 {
		return fmt.Errorf("page %d of size %d is beyond the Directory's limit: results past index %d cannot be fetched (page index × page size and (page index + 1) × page size − 1 must both be ≤ %d); refine the query instead",
			index, rpc, MaxResultIndex, MaxResultIndex)
	}
	return nil
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' }
