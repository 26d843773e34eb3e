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
