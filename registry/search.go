package registry

import (
	"context"
)

// Search searches the Peppol Directory for q (see SearchQuery).
//
// Errors (*Error): CodeMissingQuery for an empty q, CodeQueryTooShort below
// MinQueryLength characters, CodeInvalidRequest for a q over 200 characters or a
// country that is not two letters, CodeSearchFailed when the Directory failed or is
// rate limited (RetryAfter set) or our own request queue to it is full.
func (l *Live) Search(ctx context.Context, q SearchQuery) (*SearchResult, Freshness, error) {
	return nil, Freshness{}, &Error{Code: CodeSearchFailed, Message: "not implemented yet"}
}
