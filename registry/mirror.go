package registry

import (
	"context"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// DirectoryMirror is a local copy of the Peppol Directory (package mirror): search and
// business cards answered from disk, without asking the Directory.
type DirectoryMirror interface {
	// Search answers a search from the mirror. text is trimmed and between
	// MinQueryLength and MaxQueryLength characters; country is "" or two upper-case
	// letters. The result holds at most limit hits and the exact TotalCount. It returns
	// ErrMirrorUnavailable when the mirror holds no data, and other errors when it
	// cannot be read.
	Search(ctx context.Context, text, country string, limit int) (*SearchResult, error)
	// Card returns the participant's business card, or nil and no error when the mirror
	// has none. It returns ErrMirrorUnavailable when the mirror holds no data.
	Card(ctx context.Context, id peppol.ParticipantID) (*DirectoryRecord, error)
	// DataAsOf is when the mirrored data was exported by the Directory; zero when the
	// mirror holds no data.
	DataAsOf() time.Time
}

// ErrMirrorUnavailable says the Directory mirror holds no data (not imported yet, or
// its file is missing).
var ErrMirrorUnavailable = mirrorError("the Directory mirror holds no data")

type mirrorError string

func (e mirrorError) Error() string { return string(e) }

// Warning codes of answers that could not come from the mirror.
const (
	// WarnMirrorUnavailable: the mirror holds no data or could not be read; the live
	// Directory answered.
	WarnMirrorUnavailable = "mirror_unavailable"
	// WarnMirrorStale: the mirror's data is older than Config.MirrorMaxAge; the live
	// Directory answered.
	WarnMirrorStale = "mirror_stale"
)

// mirrorFor says whether the mirror may answer now, and when it may not although one
// is configured, the warning that says why.
func (l *Live) mirrorFor(now time.Time) (ok bool, asOf time.Time, warn *Warning) {
	if l.cfg.Mirror == nil {
		return false, time.Time{}, nil
	}
	asOf = l.cfg.Mirror.DataAsOf()
	switch {
	case asOf.IsZero():
		return false, asOf, &Warning{Code: WarnMirrorUnavailable, Message: "peppolgate's copy of the Peppol Directory holds no data yet, so the live Directory answered (slower, rate limited)"}
	case now.Sub(asOf) > l.cfg.MirrorMaxAge:
		return false, asOf, &Warning{Code: WarnMirrorStale, Message: "peppolgate's copy of the Peppol Directory is from " + asOf.UTC().Format(time.RFC3339) + ", older than " + l.cfg.MirrorMaxAge.String() + ", so the live Directory answered (slower, rate limited) until it is refreshed"}
	}
	return true, asOf, nil
}

// mirrorSearch answers a validated search from the mirror. ok is false when the mirror
// may not or could not answer; warn then says why (nil when no mirror is configured).
func (l *Live) mirrorSearch(ctx context.Context, text, country string) (res *SearchResult, ok bool, warn *Warning) {
	usable, asOf, warn := l.mirrorFor(l.cfg.Now())
	if !usable {
		return nil, false, warn
	}
	start := time.Now()
	r, err := l.cfg.Mirror.Search(ctx, text, country, MaxSearchResults)
	l.observeCall(UpstreamMirror, start, err)
	if err != nil {
		l.cfg.Logger.Warn("mirror search failed; asking the live Directory", "query", text, "err", err)
		return nil, false, &Warning{Code: WarnMirrorUnavailable, Message: "peppolgate's copy of the Peppol Directory could not be searched, so the live Directory answered (slower, rate limited)"}
	}
	out := *r // the mirror's answer is ours to complete
	out.Query = text
	out.Source = SourceMirror
	if out.DataAsOf == nil { // the mirror sets it from the very file it searched
		out.DataAsOf = &asOf
	}
	if out.Results == nil {
		out.Results = []SearchHit{}
	}
	return &out, true, nil
}

// mirrorCard answers the Directory half of a lookup from the mirror; ok is false when
// the mirror may not or could not answer and the live Directory must be asked.
func (l *Live) mirrorCard(ctx context.Context, id peppol.ParticipantID) (rec *DirectoryRecord, asOf time.Time, ok bool) {
	usable, asOf, _ := l.mirrorFor(l.cfg.Now())
	if !usable {
		return nil, time.Time{}, false
	}
	start := time.Now()
	rec, err := l.cfg.Mirror.Card(ctx, id)
	l.observeCall(UpstreamMirror, start, err)
	if err != nil {
		l.cfg.Logger.Warn("mirror card read failed; asking the live Directory", "participant", id.String(), "err", err)
		return nil, time.Time{}, false
	}
	return rec, asOf, true
}
