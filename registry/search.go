package registry

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/directory"
)

const (
	// MaxQueryLength is the longest accepted search query, in characters.
	MaxQueryLength = 200
	// maxExactCandidates bounds the exact participant= queries one search sends, because
	// each costs a Directory request under the shared rate limit.
	maxExactCandidates = 4
	// freeTextPageSize is the Directory page size of the free-text query: enough to fill
	// MaxSearchResults even when participants have several entities.
	freeTextPageSize = 25
)

// Search searches the Peppol Directory for q. When q is, or contains, a participant
// id or a national/VAT number, up to four candidate ids are resolved exactly and
// ranked first; the free-text query runs beside them. Results are deduplicated by
// participant id and capped at MaxSearchResults. TotalCount is the Directory's total
// for the free-text query (it counts business entities, so a participant with two
// entities counts twice) plus the exact hits that are not on the free-text page.
//
// Errors (*Error): CodeMissingQuery for an empty q, CodeQueryTooShort below
// MinQueryLength characters, CodeInvalidRequest for a q over MaxQueryLength
// characters, a country that is not two letters, or a query the Directory rejects;
// CodeSearchFailed when the Directory failed, rate limited us (RetryAfter set) or our
// own request queue to it is full, and no answer at most StaleFor old is cached.
func (l *Live) Search(ctx context.Context, q SearchQuery) (*SearchResult, Freshness, error) {
	text := strings.TrimSpace(q.Q)
	country := strings.ToUpper(strings.TrimSpace(q.Country))
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return nil, Freshness{}, &Error{Code: CodeMissingQuery, Message: "the search query q is missing; give a company name or a registration number, e.g. q=Acme or q=BE0677424046"}
	case n < MinQueryLength:
		return nil, Freshness{}, &Error{Code: CodeQueryTooShort, Message: "the search query q must be at least 2 characters long"}
	case n > MaxQueryLength:
		return nil, Freshness{}, &Error{Code: CodeInvalidRequest, Message: "the search query q must be at most 200 characters long"}
	}
	if country != "" && !isCountryCode(country) {
		return nil, Freshness{}, &Error{Code: CodeInvalidRequest, Message: "country must be a two-letter ISO 3166 code such as BE, NL or NO"}
	}
	key := country + "\x00" + text
	now := l.cfg.Now()
	cached, hit := l.searches.get(key)
	if hit {
		if age := now.Sub(cached.fetched); age < cached.ttl {
			return cached.val, Freshness{Cached: true, Age: age, TTL: cached.ttl}, nil
		}
	}
	ch := l.searchSF.DoChan(key, func() (any, error) {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.SearchTimeout)
		defer cancel()
		res, err := l.search(sctx, text, country)
		if err == nil {
			l.searches.put(key, cacheEntry[*SearchResult]{val: res, fetched: l.cfg.Now(), ttl: l.cfg.SearchTTL})
		}
		return res, err
	})
	var (
		res *SearchResult
		err error
	)
	select {
	case <-ctx.Done():
		return nil, Freshness{}, &Error{Code: CodeSearchFailed, Message: "the search was cancelled before the Peppol Directory answered; retry with exponential backoff", Err: ctx.Err()}
	case r := <-ch:
		err = r.Err
		res, _ = r.Val.(*SearchResult)
	}
	if err != nil {
		if ErrorCode(err) == CodeSearchFailed && hit {
			if age := l.cfg.Now().Sub(cached.fetched); age <= l.cfg.StaleFor {
				l.cfg.Logger.Warn("search failed, serving stale answer", "query", text, "age", age, "err", err)
				return cached.val, Freshness{Cached: true, Stale: true, Age: age, TTL: cached.ttl}, nil
			}
		}
		l.cfg.Logger.Warn("search failed", "query", text, "country", country, "err", err)
		return nil, Freshness{}, err
	}
	return res, Freshness{TTL: l.cfg.SearchTTL}, nil
}

// search runs the exact candidate queries and the free-text query in parallel and
// merges them.
func (l *Live) search(ctx context.Context, text, country string) (*SearchResult, error) {
	cands := searchCandidates(text)
	exact := make([]*directory.Result, len(cands))
	exactErr := make([]error, len(cands))
	var (
		wg      sync.WaitGroup
		free    *directory.Result
		freeErr error
	)
	for i, c := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exact[i], exactErr[i] = l.directorySearch(ctx, directory.Query{Participant: c, Country: country})
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		free, freeErr = l.directorySearch(ctx, directory.Query{Q: text, Country: country, PageSize: freeTextPageSize})
	}()
	wg.Wait()
	if freeErr != nil {
		return nil, searchError(freeErr)
	}
	for i, err := range exactErr {
		if err != nil {
			l.cfg.Logger.Warn("exact candidate query failed; answering from the free-text query", "candidate", cands[i].String(), "err", err)
		}
	}

	out := &SearchResult{Query: text, Results: make([]SearchHit, 0, MaxSearchResults)}
	seen := make(map[peppol.ParticipantID]bool)
	inFree := make(map[peppol.ParticipantID]bool, len(free.Matches))
	for _, m := range free.Matches {
		inFree[m.Participant] = true
	}
	add := func(m directory.Match) {
		if seen[m.Participant] {
			return
		}
		seen[m.Participant] = true
		if len(out.Results) < MaxSearchResults {
			out.Results = append(out.Results, SearchHit{ParticipantID: m.Participant.String(), Name: m.Name(), CountryCode: m.CountryCode()})
		}
	}
	extra := 0
	for i, r := range exact {
		if r == nil {
			continue
		}
		for _, m := range r.Matches {
			if m.Participant != cands[i] {
				continue
			}
			if !seen[m.Participant] && !inFree[m.Participant] {
				extra++
			}
			add(m)
		}
	}
	for _, m := range free.Matches {
		add(m)
	}
	out.TotalCount = max(free.TotalCount, len(free.Matches)) + extra
	return out, nil
}

// searchCandidates returns the participant ids q may denote: peppol.Candidates of the
// whole query, then of every word that is a participant id, at most
// maxExactCandidates, without duplicates.
func searchCandidates(q string) []peppol.ParticipantID {
	var out []peppol.ParticipantID
	seen := make(map[peppol.ParticipantID]bool)
	add := func(id peppol.ParticipantID) {
		if !seen[id] && len(out) < maxExactCandidates {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, c := range peppol.Candidates(q) {
		add(c.ID)
	}
	for _, w := range strings.Fields(q) {
		if id, err := peppol.ParseParticipantID(w); err == nil {
			add(id)
		}
	}
	return out
}

// searchError turns a Directory failure into the *Error Search returns.
func searchError(err error) error {
	var rl *directory.RateLimitError
	switch {
	case errors.As(err, &rl):
		return &Error{Code: CodeSearchFailed, Message: "the Peppol Directory is rate limiting requests; retry after the indicated delay", RetryAfter: rl.RetryAfter, Err: err}
	case errors.Is(err, errLimiterBusy):
		return &Error{Code: CodeSearchFailed, Message: "too many searches are queued for the Peppol Directory right now (busy); retry in a few seconds with exponential backoff", RetryAfter: time.Second, Err: err}
	case errors.Is(err, directory.ErrBadQuery):
		return &Error{Code: CodeInvalidRequest, Message: "the Peppol Directory rejected this query; use plain words or a registration number", Err: err}
	default:
		return &Error{Code: CodeSearchFailed, Message: "the Peppol Directory could not be searched; retry with exponential backoff", Err: err}
	}
}

// isCountryCode reports whether s is two ASCII letters.
func isCountryCode(s string) bool {
	if len(s) != 2 {
		return false
	}
	for i := 0; i < 2; i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
