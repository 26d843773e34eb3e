package registry

import (
	"context"

	"github.com/peppolgate/peppolgate/peppol"
)

func (l *Live) fetch(ctx context.Context, id peppol.ParticipantID) fetchResult {
	return fetchResult{err: &Error{Code: CodeLookupFailed, Message: "not implemented yet"}}
}
