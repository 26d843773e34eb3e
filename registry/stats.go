package registry

import (
	"context"
	"time"
)

// CodeStatsUnavailable says a network's statistics cannot be computed: the network has
// no Directory mirror, or its mirror holds no data yet.
const CodeStatsUnavailable Code = "statistics_unavailable"

// StatsTopCountries is how many countries Stats lists by name; the rest are counted
// together in OtherCountries.
const StatsTopCountries = 20

// StatsMonths is how many months of registrations Stats lists, the last being the
// month of the data's export; older registrations are counted in RegisteredEarlier.
const StatsMonths = 120

// KindOther is the document kind of the document types the Peppol code list does not
// have.
const KindOther = "Other"

// Stats are counts over the business cards of a network's Peppol Directory, as its
// mirror holds them: participants by country, by the kinds of documents their cards
// say they accept, and by month of registration.
type Stats struct {
	Network  string    `json:"network,omitempty" jsonschema:"the Peppol network counted, when the server names its networks"`
	Source   string    `json:"source" jsonschema:"where the counts come from: mirror (peppolgate's local copy of the Peppol Directory)"`
	DataAsOf time.Time `json:"dataAsOf" jsonschema:"when the Peppol Directory exported the data counted (RFC 3339)"`
	// Participants is the number of business cards, one per participant.
	Participants int `json:"participants" jsonschema:"number of participants with a business card in the Directory"`
	// Countries are the StatsTopCountries countries with the most participants, by a
	// card's first country.
	Countries      []CountryCount `json:"countries" jsonschema:"the countries with the most participants (at most 20), most first; a participant counts in the country of its card's first entity"`
	OtherCountries int            `json:"otherCountries" jsonschema:"participants in the countries not listed in countries"`
	WithoutCountry int            `json:"withoutCountry" jsonschema:"participants whose card names no country"`
	// DocumentKinds count the participants whose card lists at least one document
	// type of each kind; a participant counts once in every kind it accepts.
	DocumentKinds        []KindCount `json:"documentKinds" jsonschema:"for each kind of business document (the Peppol code list's category: Invoice, Credit Note, Order, ...; Other for document types the list does not have), the participants whose card lists a document type of that kind, most first; a participant counts in every kind it accepts"`
	WithoutDocumentTypes int         `json:"withoutDocumentTypes" jsonschema:"participants whose card lists no document type"`
	// Registrations count the participants by the month of their card's registration
	// date, every month of the last StatsMonths up to DataAsOf, oldest first.
	Registrations           []MonthCount `json:"registrations" jsonschema:"participants by month of their card's registration date, every month of the last 120 up to dataAsOf (months without registrations count 0), oldest first"`
	RegisteredEarlier       int          `json:"registeredEarlier" jsonschema:"participants registered before the first month listed in registrations"`
	WithoutRegistrationDate int          `json:"withoutRegistrationDate" jsonschema:"participants whose card gives no registration date, or one that is malformed or after dataAsOf"`
}

// CountryCount is a number of participants in one country.
type CountryCount struct {
	Country string `json:"country" jsonschema:"ISO 3166 alpha-2 country code, as the cards give it"`
	Count   int    `json:"count" jsonschema:"number of participants"`
}

// KindCount is a number of participants accepting one kind of document.
type KindCount struct {
	Kind  string `json:"kind" jsonschema:"the kind of business document: the Peppol code list's category, or Other"`
	Count int    `json:"count" jsonschema:"number of participants"`
}

// MonthCount is a number of participants registered in one month.
type MonthCount struct {
	Month string `json:"month" jsonschema:"the month, YYYY-MM"`
	Count int    `json:"count" jsonschema:"number of participants registered in that month"`
}

// StatsSource is a Registry that can count its network's Directory. peppolnet's
// registry is one; it answers from its mirror.
type StatsSource interface {
	// Stats returns the counts of the network's Directory. It returns a *Error with
	// CodeStatsUnavailable when there is no mirror or it holds no data, and other
	// errors when the mirror cannot be read.
	Stats(ctx context.Context) (*Stats, error)
}

// NetworkStats returns the counts of reg's network (StatsSource), marked as answered by
// network. It returns a *Error with CodeStatsUnavailable when reg cannot count, and
// the errors of reg's Stats.
func NetworkStats(ctx context.Context, reg Registry, network string) (*Stats, error) {
	src, ok := reg.(StatsSource)
	if !ok {
		return nil, ErrNoStatsMirror()
	}
	st, err := src.Stats(ctx)
	if err != nil {
		return nil, err
	}
	if network != "" {
		c := *st
		c.Network = network
		st = &c
	}
	return st, nil
}

// ErrNoStatsMirror is the error of a network that has no Directory mirror to count.
func ErrNoStatsMirror() *Error {
	return &Error{Code: CodeStatsUnavailable,
		Message: "network statistics are counted from a Directory mirror, and this network has none: the operator can start peppolgate with -mirror FILE (built by 'peppolgate mirror import' or 'mirror sync')"}
}

// ErrStatsMirrorEmpty is the error of a network whose Directory mirror holds no data
// yet.
func ErrStatsMirrorEmpty(cause error) *Error {
	return &Error{Code: CodeStatsUnavailable, RetryAfter: 10 * time.Minute, Err: cause,
		Message: "network statistics are counted from the Directory mirror, which holds no data yet; retry once it has been imported"}
}
