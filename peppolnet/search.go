package peppolnet

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/registry"
)

// missingQueryMessage is the message of the CodeMissingQuery error of a search that
// has neither a query text nor a country.
const missingQueryMessage = "the search query q is missing; give a company name or a registration number, e.g. q=Acme or q=BE0677424046, or a country alone (country=NO) to count and list that country's participants"

const (
	// maxExactCandidates bounds the exact participant= queries one search sends, because
	// each costs a Directory request under the shared rate limit.
	maxExactCandidates = registry.MaxSearchIdentifierHits
	// freeTextPageSize is the Directory page size of the free-text query: enough to fill
	// MaxSearchResults even when participants have several entities.
	freeTextPageSize = 25
)

// Search searches the Peppol Directory for q, or lists a country's participants when
// q.Q is empty or white space and q.Country is set: in Config.Mirror when one is set and its
// data is at most MirrorMaxAge old (Source "mirror", DataAsOf set, not cached), else the
// live Directory (Source "directory"), with a mirror_stale or mirror_unavailable
// warning when a mirror is set but could not answer. When the live Directory fails and
// the mirror's data is stale but at most MirrorHardMaxAge old, the mirror answers with
// a mirror_stale warning saying how old its data is. The rest of this comment is about
// the live Directory; the mirror's semantics are package mirror's.
//
// When q is, or contains, a participant
// id or a national/VAT number, up to four candidate ids are resolved exactly and
// ranked first; the free-text query runs beside them. Results are deduplicated by
// participant id and capped at MaxSearchResults. TotalCount is the Directory's total
// for the free-text query (it counts business entities, so a participant with two
// entities counts twice) plus the exact hits that are not on the free-text page.
// A country alone is sent to the Directory as country= alone: Results is its first
// page and TotalCount its total-result-count, the number of business entities in that
// country (cached and coalesced like any search).
//
// q.Page n (1-based, 0 for 1) asks the Directory for its page n of freeTextPageSize
// entities (rpi n-1), or the mirror for its cards from (n-1)*MaxSearchResults; the
// exact hits of a number come first on page 1 only and later pages leave them out.
// Every page carries the same TotalCount, Page and NextPage (registry.NextSearchPage)
// and is cached on its own (docs/INTERFACE.md §4.2).
//
// Errors (*Error): CodeMissingQuery when both q and country are empty,
// CodeQueryTooShort for a non-empty q below MinQueryLength characters (with or
// without a country), CodeInvalidRequest for a q over MaxQueryLength
// characters, a country that is not two letters, or a query the Directory rejects;
// a page below 0 or beyond registry.MaxSearchPage;
// CodeSearchFailed when the Directory failed, rate limited us (RetryAfter set) or our
// own request queue to it is full, and no answer at most StaleFor old is cached.
func (l *Registry) Search(ctx context.Context, q registry.SearchQuery) (_ *registry.SearchResult, _ registry.Freshness, err error) {
	defer func() { err = withCause(err) }() // the cause, for answers in other words
	text := strings.TrimSpace(q.Q)
	country := strings.ToUpper(strings.TrimSpace(q.Country))
	page := max(q.Page, 1)
	if q.Page < 0 || q.Page > registry.MaxSearchPage {
		_, err := registry.ParseSearchPage(strconv.Itoa(q.Page))
		return nil, registry.Freshness{}, err
	}
	switch n := utf8.RuneCountInString(text); {
	case n == 0 && country == "":
		return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeMissingQuery, Message: missingQueryMessage}
	case n == 0:
		// A country alone: every participant of that country.
	case n < registry.MinQueryLength:
		return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeQueryTooShort, Message: "the search query q must be at least 2 characters long"}
	case n > registry.MaxQueryLength:
		return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeInvalidRequest, Message: "the search query q must be at most 200 characters long"}
	}
	if country != "" && !isCountryCode(country) {
		return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeInvalidRequest, Message: "country must be a two-letter ISO 3166 code such as BE, NL or NO"}
	}
	st, asOf := l.mirrorAt(l.cfg.Now())
	mirrorWarn := l.mirrorSkipped(st, asOf)
	if st == mirrorFresh {
		res, ok, warn := l.mirrorSearch(ctx, text, country, page, asOf)
		if ok {
			// Not cached: the mirror answers in milliseconds, and a refreshed mirror shows at once.
			return res, registry.Freshness{TTL: l.cfg.SearchTTL}, nil
		}
		mirrorWarn = warn
	}
	res, fresh, err := l.searchLive(ctx, text, country, page)
	if err != nil && st == mirrorStale && registry.ErrorCode(err) == registry.CodeSearchFailed {
		// Stale data with a warning beats an error.
		if res, ok, _ := l.mirrorSearch(ctx, text, country, page, asOf); ok {
			l.cfg.Logger.WarnContext(ctx, "the live Directory failed; answering the search from the stale mirror",
				"upstream", registry.UpstreamDirectory, "query", text, "country", country, "mirror_data_as_of", asOf.UTC().Format(time.RFC3339), "err", err)
			res.Warnings = append(slices.Clip(res.Warnings), l.staleFallback(asOf, "searched"))
			return res, registry.Freshness{TTL: l.cfg.SearchTTL}, nil
		}
	}
	if err != nil || mirrorWarn == nil {
		return res, fresh, err
	}
	// The answer is shared with the cache and other callers: warn on a copy.
	out := *res
	out.Warnings = append(append([]registry.Warning{}, res.Warnings...), *mirrorWarn)
	return &out, fresh, nil
}

// searchLive answers a validated search from the live Directory, through the cache
// and coalesced with identical searches in flight (with Config.Fleet, across replicas;
// see Search for the errors).
func (l *Registry) searchLive(ctx context.Context, text, country string, page int) (*registry.SearchResult, registry.Freshness, error) {
	key := country + "\x00" + strconv.Itoa(page) + "\x00" + text
	// A caller joining a fetch in flight here reads the L1 alone (sharedflight.go).
	var (
		cached cacheEntry[*registry.SearchResult]
		hit    bool
	)
	joined := l.searchFlights.busy(key)
	if joined {
		cached, hit = l.searches.local(key)
	} else {
		cached, hit = l.searches.find(ctx, key)
	}
	if hit {
		if age := l.cfg.Now().Sub(cached.fetched); age < cached.ttl {
			l.cfg.Observer.Cache(registry.CacheSearch, registry.CacheHit)
			return cached.val, registry.Freshness{Cached: true, Age: age, TTL: cached.ttl}, nil
		}
	}
	out, cerr := l.searchFlights.do(ctx, key, l.cfg.SearchTimeout, func(sctx context.Context) searchOutcome {
		e, shared, err := l.searches.once(sctx, key, func(sctx context.Context) (cacheEntry[*registry.SearchResult], bool) {
			res, err := l.search(sctx, text, country, page)
			return cacheEntry[*registry.SearchResult]{val: res, err: err, fetched: l.cfg.Now(), ttl: l.cfg.SearchTTL}, err == nil && !abandoned(sctx)
		})
		if err != nil {
			return searchOutcome{err: &registry.Error{Code: registry.CodeSearchFailed, Message: "the search was cancelled while another replica fetched it; retry with exponential backoff", Err: err}}
		}
		return searchOutcome{res: e.val, err: e.err, fetched: e.fetched, shared: shared}
	})
	if cerr != nil {
		l.cfg.Observer.Cache(registry.CacheSearch, registry.CacheMiss)
		return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeSearchFailed, Message: "the search was cancelled before the Peppol Directory answered; retry with exponential backoff", Err: cerr}
	}
	res, err := out.res, out.err
	if err != nil {
		if registry.ErrorCode(err) == registry.CodeSearchFailed && joined && !hit {
			cached, hit = l.searches.find(ctx, key) // the shared entry, to serve stale
		}
		if registry.ErrorCode(err) == registry.CodeSearchFailed && hit {
			if age := l.cfg.Now().Sub(cached.fetched); age <= l.cfg.StaleFor {
				l.cfg.Logger.WarnContext(ctx, "search failed, serving stale answer", "query", text, "age", age, "err", err)
				l.cfg.Observer.Cache(registry.CacheSearch, registry.CacheStale)
				return cached.val, registry.Freshness{Cached: true, Stale: true, Age: age, TTL: cached.ttl}, nil
			}
		}
		l.cfg.Observer.Cache(registry.CacheSearch, registry.CacheMiss)
		return nil, registry.Freshness{}, err
	}
	if out.shared {
		// Another replica fetched it while this one waited.
		l.cfg.Observer.Cache(registry.CacheSearch, registry.CacheHit)
		return res, registry.Freshness{Cached: true, Age: l.cfg.Now().Sub(out.fetched), TTL: l.cfg.SearchTTL}, nil
	}
	l.cfg.Observer.Cache(registry.CacheSearch, registry.CacheMiss)
	return res, registry.Freshness{TTL: l.cfg.SearchTTL}, nil
}

// searchOutcome is what one coalesced search fetch produced. With a fleet, the answer
// may be another replica's (shared, fetched at fetched).
type searchOutcome struct {
	res     *registry.SearchResult
	err     error
	fetched time.Time
	shared  bool
}

// search asks the Directory as few times as the query allows, because every request
// counts against its limit of 2 per second. When the whole query is a registration
// number, one free-text query for the number itself finds every candidate id (the
// Directory's q matches participant ids and the cards' identifiers as substrings), and
// exact participant= queries are sent only for candidates the first page could not
// show. An empty text with a country sends country= alone. Otherwise the free text runs as typed, beside exact queries for any ids written
// in it. Hits on candidate ids come first, in candidate order, then the Directory's
// whole first page (registry.MaxSearchResults). A later page asks for the free text's
// page alone and leaves the candidates out: page 1 showed them.
func (l *Registry) search(ctx context.Context, text, country string, page int) (*registry.SearchResult, error) {
	plan := planSearch(text)
	if page > 1 {
		return l.searchLater(ctx, text, country, page, plan)
	}
	exactFor := func(cands []peppol.ParticipantID) ([]*directory.Result, []error) {
		res := make([]*directory.Result, len(cands))
		errs := make([]error, len(cands))
		var wg sync.WaitGroup
		for i, c := range cands {
			wg.Go(func() {
				res[i], errs[i] = l.directorySearch(ctx, directory.Query{Participant: c, Country: country})
			})
		}
		wg.Wait()
		return res, errs
	}
	var (
		free     *directory.Result
		freeErr  error
		exact    []*directory.Result
		exactErr []error
		asked    []peppol.ParticipantID // the candidates sent as exact queries
	)
	freeQuery := directory.Query{Q: plan.freeText, Country: country, PageSize: freeTextPageSize}
	if plan.numberOnly {
		free, freeErr = l.directorySearch(ctx, freeQuery)
		if freeErr == nil && free.TotalCount > len(free.Matches) {
			asked = missing(plan.candidates, free.Matches)
			exact, exactErr = exactFor(asked)
		}
	} else {
		var wg sync.WaitGroup
		wg.Go(func() { free, freeErr = l.directorySearch(ctx, freeQuery) })
		asked = plan.candidates
		exact, exactErr = exactFor(asked)
		wg.Wait()
	}
	if freeErr != nil {
		return nil, searchError(freeErr)
	}
	for i, err := range exactErr {
		if err != nil {
			l.cfg.Logger.WarnContext(ctx, "exact candidate query failed; answering from the free-text query", "candidate", asked[i].String(), "err", err)
		}
	}

	out := &registry.SearchResult{Query: text, Results: make([]registry.SearchHit, 0, registry.MaxSearchResults+len(plan.candidates)), Source: registry.SourceDirectory}
	seen := make(map[peppol.ParticipantID]bool)
	add := func(m directory.Match) {
		if seen[m.Participant] {
			return
		}
		seen[m.Participant] = true
		out.Results = append(out.Results, registry.SearchHit{ParticipantID: m.Participant.String(), Name: m.Name(), CountryCode: m.CountryCode()})
	}
	// Candidate hits first, in candidate order, wherever they were found.
	found := make(map[peppol.ParticipantID]directory.Match)
	for _, m := range free.Matches {
		found[m.Participant] = m
	}
	for i, r := range exact {
		if r == nil {
			continue
		}
		for _, m := range r.Matches {
			if m.Participant != asked[i] {
				continue
			}
			if _, ok := found[m.Participant]; !ok {
				found[m.Participant] = m
			}
		}
	}
	for _, c := range plan.candidates {
		if m, ok := found[c]; ok {
			add(m)
		}
	}
	// Then the free text's whole first page, on top of the candidates' hits: page 2
	// starts at the free text's 26th match (searchLater).
	for _, m := range free.Matches {
		add(m)
	}
	out.TotalCount = searchTotal(free)
	if out.NextPage = registry.NextSearchPage(1, out.TotalCount); out.NextPage == 0 {
		// One page only: the count may include the candidates' hits the free text
		// does not find, as no later page has to agree with it.
		out.TotalCount = max(out.TotalCount, len(out.Results))
	}
	out.Page = 1
	return out, nil
}

// searchTotal is a search's totalCount, the same on every page: the matches of the
// free text, as the Directory counts them (docs/INTERFACE.md §4.2).
func searchTotal(free *directory.Result) int { return max(free.TotalCount, len(free.Matches)) }

// searchLater answers page (2 or more) of a search: the Directory's page of the free
// text, without plan's candidates, which page 1 showed first.
func (l *Registry) searchLater(ctx context.Context, text, country string, page int, plan searchPlan) (*registry.SearchResult, error) {
	free, err := l.directorySearch(ctx, directory.Query{Q: plan.freeText, Country: country, PageSize: freeTextPageSize, PageIndex: page - 1})
	if err != nil {
		return nil, searchError(err)
	}
	out := &registry.SearchResult{Query: text, Results: make([]registry.SearchHit, 0, len(free.Matches)), Source: registry.SourceDirectory, Page: page}
	for _, m := range free.Matches {
		if slices.Contains(plan.candidates, m.Participant) || len(out.Results) == registry.MaxSearchResults {
			continue
		}
		out.Results = append(out.Results, registry.SearchHit{ParticipantID: m.Participant.String(), Name: m.Name(), CountryCode: m.CountryCode()})
	}
	out.TotalCount = searchTotal(free)
	out.NextPage = registry.NextSearchPage(page, out.TotalCount)
	return out, nil
}

// searchPlan says how to ask the Directory for a query.
type searchPlan struct {
	// candidates are the participant ids the query may denote, best first.
	candidates []peppol.ParticipantID
	// numberOnly is true when the whole query is a registration number or id.
	numberOnly bool
	// freeText is the Directory q to send.
	freeText string
}

// planSearch derives the candidates of q (peppol.Candidates of the whole query, else
// every word that is a participant id; at most maxExactCandidates) and the free text
// to send: for a number, the number as it appears in every candidate's value (the
// first candidate's value without its letter prefix, e.g. "0677424046" for
// "BE 0677.424.046", which also matches 9925:be0677424046); else q as typed.
// The free text of a number query is sent with MinQueryLength or more characters.
func planSearch(q string) searchPlan {
	p := searchPlan{freeText: q}
	seen := make(map[peppol.ParticipantID]bool)
	add := func(id peppol.ParticipantID) {
		if !seen[id] && len(p.candidates) < maxExactCandidates {
			seen[id] = true
			p.candidates = append(p.candidates, id)
		}
	}
	for _, c := range peppol.Candidates(q) {
		add(c.ID)
	}
	if len(p.candidates) > 0 {
		p.numberOnly = true
		// Only a number behind a letter prefix is searched for alone; anything else
		// (e.g. 9915:b) is sent as typed.
		if core := strings.TrimLeft(p.candidates[0].Value, "abcdefghijklmnopqrstuvwxyz"); len(core) >= 4 && core[0] >= '0' && core[0] <= '9' {
			p.freeText = core
		}
		return p
	}
	for _, w := range strings.Fields(q) {
		if id, err := peppol.ParseParticipantID(w); err == nil {
			add(id)
		}
	}
	return p
}

// missing returns the candidates that are not among matches.
func missing(cands []peppol.ParticipantID, matches []directory.Match) []peppol.ParticipantID {
	var out []peppol.ParticipantID
	for _, c := range cands {
		if !slices.ContainsFunc(matches, func(m directory.Match) bool { return m.Participant == c }) {
			out = append(out, c)
		}
	}
	return out
}

// searchError turns a Directory failure into the *Error Search returns.
func searchError(err error) error {
	var rl *directory.RateLimitError
	switch {
	case errors.As(err, &rl):
		return &registry.Error{Code: registry.CodeSearchFailed, Message: "the Peppol Directory is rate limiting requests; retry after the indicated delay", RetryAfter: rl.RetryAfter, Err: err}
	case errors.Is(err, errLimiterBusy):
		return &registry.Error{Code: registry.CodeSearchFailed, Message: "too many searches are queued for the Peppol Directory right now (busy); retry in a few seconds with exponential backoff", RetryAfter: time.Second, Err: err}
	case errors.As(err, new(*circuitOpenError)):
		return &registry.Error{Code: registry.CodeSearchFailed, Message: directoryFailingMessage(err), RetryAfter: retryAfter(err), Err: err}
	case errors.Is(err, directory.ErrBadQuery):
		return &registry.Error{Code: registry.CodeInvalidRequest, Message: "the Peppol Directory rejected this query; use plain words or a registration number", Err: err}
	default:
		return &registry.Error{Code: registry.CodeSearchFailed, Message: "the Peppol Directory could not be searched; retry with exponential backoff", Err: err}
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
