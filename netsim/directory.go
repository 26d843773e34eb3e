package netsim

import (
	"bytes"
	"encoding/json"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
)

// Directory constants of phoss-directory's PublicSearchXServletHandler.
const (
	dirMaxResults      = 1000
	dirDefaultPageSize = 20
	dirJSONType        = "application/json;charset=utf-8"
)

// dirEntry is one indexed business entity. The Directory indexes, counts and pages
// entities, not business cards.
type dirEntry struct {
	p      *Participant
	entity int
	all    string // lower-cased text of every field ("allfields"), fields separated by '\n'
	docs   string // lower-cased doc type ids of the card, shared between entities
}

type dirIndex struct {
	entries       []dirEntry
	byParticipant map[peppol.ParticipantID][]int // indexes into entries
}

func buildDirIndex(ds *Dataset) *dirIndex {
	idx := &dirIndex{byParticipant: map[peppol.ParticipantID][]int{}}
	docCache := map[string]string{}
	var sb strings.Builder
	for i := range ds.Participants {
		p := &ds.Participants[i]
		if p.Card == nil {
			continue
		}
		sb.Reset()
		for _, d := range p.Card.DocTypes {
			sb.WriteString(d.URI())
			sb.WriteByte('\n')
		}
		key := sb.String()
		docs, ok := docCache[key]
		if !ok {
			docs = strings.ToLower(key)
			docCache[key] = docs
		}
		for e := range p.Card.Entities {
			idx.byParticipant[p.ID] = append(idx.byParticipant[p.ID], len(idx.entries))
			idx.entries = append(idx.entries, dirEntry{p: p, entity: e, all: allFields(p, &p.Card.Entities[e]), docs: docs})
		}
	}
	return idx
}

func allFields(p *Participant, e *Entity) string {
	var b strings.Builder
	add := func(s string) {
		if s != "" {
			b.WriteString(strings.ToLower(s))
			b.WriteByte('\n')
		}
	}
	add(p.ID.URI())
	for _, n := range e.Names {
		add(n.Name)
		add(n.Language)
	}
	add(e.CountryCode)
	add(e.GeoInfo)
	for _, id := range e.Identifiers {
		add(id.Scheme)
		add(id.Value)
	}
	for _, w := range e.Websites {
		add(w)
	}
	for _, c := range e.Contacts {
		add(c.Type)
		add(c.Name)
		add(c.Phone)
		add(c.Email)
	}
	add(e.AdditionalInfo)
	add(e.RegDate)
	return b.String()
}

// analyze splits s like the Directory's index analyzer: lower-case, split on every
// character that is neither a letter nor a digit.
func analyze(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func containsAll(hay string, terms []string) bool {
	for _, t := range terms {
		if !strings.Contains(hay, t) {
			return false
		}
	}
	return true
}

// dirQuery is one compiled query term; all of them must match an entity.
type dirQuery func(e *dirEntry) bool

// dirField is one Directory search parameter: its name and how a value becomes a
// query (nil when the value is unusable; the real Directory logs and ignores it).
type dirField struct {
	name    string
	compile func(v string) dirQuery
}

// containsQuery builds a query for a free-text field: each analysed term of v must be
// contained in the text get returns; values shorter than minLen are unusable.
func containsQuery(v string, minLen int, get func(e *dirEntry) string) dirQuery {
	if utf8.RuneCountInString(strings.TrimSpace(v)) < minLen {
		return nil
	}
	terms := analyze(v)
	if len(terms) == 0 {
		return nil
	}
	return func(e *dirEntry) bool { return containsAll(get(e), terms) }
}

func entityOf(e *dirEntry) *Entity { return &e.p.Card.Entities[e.entity] }

func lowerJoin(parts ...string) string { return strings.ToLower(strings.Join(parts, "\n")) }

// dirFields is in the order of phoss-directory's EPDSearchField, which is the order
// of query-terms in the answer.
var dirFields = []dirField{
	{"q", func(v string) dirQuery {
		if strings.TrimSpace(v) == "" {
			return nil
		}
		terms := analyze(v)
		if len(terms) == 0 {
			return nil
		}
		// A term never spans the '\n' between fields, so it may be looked up in the
		// entity text and the shared doc type text separately.
		return func(e *dirEntry) bool {
			for _, t := range terms {
				if !strings.Contains(e.all, t) && !strings.Contains(e.docs, t) {
					return false
				}
			}
			return true
		}
	}},
	{"participant", func(v string) dirQuery {
		id, ok := participantTerm(v)
		if !ok {
			return nil
		}
		return func(e *dirEntry) bool { return e.p.ID == id }
	}},
	{"name", func(v string) dirQuery {
		return containsQuery(v, 3, func(e *dirEntry) string {
			var parts []string
			for _, n := range entityOf(e).Names {
				parts = append(parts, n.Name)
			}
			return lowerJoin(parts...)
		})
	}},
	{"country", func(v string) dirQuery {
		v = strings.ToUpper(strings.TrimSpace(v))
		if v == "" {
			return nil
		}
		return func(e *dirEntry) bool { return entityOf(e).CountryCode == v }
	}},
	{"geoinfo", func(v string) dirQuery {
		return containsQuery(v, 3, func(e *dirEntry) string { return strings.ToLower(entityOf(e).GeoInfo) })
	}},
	{"identifierScheme", func(v string) dirQuery {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "" {
			return nil
		}
		return func(e *dirEntry) bool {
			for _, id := range entityOf(e).Identifiers {
				if strings.ToLower(id.Scheme) == v {
					return true
				}
			}
			return false
		}
	}},
	{"identifierValue", func(v string) dirQuery {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "" {
			return nil
		}
		return func(e *dirEntry) bool {
			for _, id := range entityOf(e).Identifiers {
				if strings.ToLower(id.Value) == v {
					return true
				}
			}
			return false
		}
	}},
	{"website", func(v string) dirQuery {
		return containsQuery(v, 3, func(e *dirEntry) string { return lowerJoin(entityOf(e).Websites...) })
	}},
	{"contact", func(v string) dirQuery {
		return containsQuery(v, 3, func(e *dirEntry) string {
			var parts []string
			for _, c := range entityOf(e).Contacts {
				parts = append(parts, c.Type, c.Name, c.Phone, c.Email)
			}
			return lowerJoin(parts...)
		})
	}},
	{"addinfo", func(v string) dirQuery {
		return containsQuery(v, 3, func(e *dirEntry) string { return strings.ToLower(entityOf(e).AdditionalInfo) })
	}},
	{"regdate", func(v string) dirQuery {
		v = strings.TrimSpace(v)
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			return nil
		}
		return func(e *dirEntry) bool { return entityOf(e).RegDate == v }
	}},
	{"doctype", func(v string) dirQuery {
		v = strings.TrimSpace(v)
		if !strings.Contains(v, "::") {
			return nil
		}
		return func(e *dirEntry) bool {
			for _, d := range e.p.Card.DocTypes {
				if d.URI() == v {
					return true
				}
			}
			return false
		}
	}},
}

// participantTerm parses a participant= value: lower-cased, the scheme prefix required.
func participantTerm(v string) (peppol.ParticipantID, bool) {
	v = strings.ToLower(strings.TrimSpace(v))
	if !strings.HasPrefix(v, peppol.ParticipantScheme+"::") {
		return peppol.ParticipantID{}, false
	}
	id, err := peppol.ParseParticipantID(v)
	return id, err == nil
}

func (n *Network) startDirectory() error {
	u, err := n.serveHTTP(http.HandlerFunc(n.serveDirectory))
	n.dirURL = u
	return err
}

// dirError is the JSON-string error body the Directory sends since v0.15.4.
func dirError(msg string) []byte {
	b, _ := json.Marshal(msg)
	return b
}

func (n *Network) serveDirectory(w http.ResponseWriter, r *http.Request) {
	if n.serveExport(w, r) {
		return
	}
	f := n.faults.get(DirectoryTarget())
	h := w.Header()
	rest, isSearch := strings.CutPrefix(r.URL.Path, "/search/")
	if !isSearch {
		n.hits.dirOther.Add(1)
		if n.preFault(w, r, f, dirJSONType, statusError) {
			return
		}
		n.write(w, r, f, http.StatusNotFound, dirJSONType, dirError("Not found"))
		return
	}
	n.hits.dirSearch.Add(1)
	if n.limit != nil && !n.limit.allow(clientIP(r), time.Now()) {
		n.hits.dirLimit.Add(1)
		h.Set("Retry-After", "2")
		n.write(w, r, Fault{}, http.StatusTooManyRequests, dirJSONType, dirError("REST search rate limit exceeded"))
		return
	}
	if n.preFault(w, r, f, dirJSONType, statusError) {
		return
	}
	if r.Method != http.MethodGet {
		h.Set("Allow", http.MethodGet)
		n.write(w, r, f, http.StatusMethodNotAllowed, dirJSONType, dirError("Method not allowed"))
		return
	}
	if !strings.EqualFold(rest, "1.0/json") {
		n.write(w, r, f, http.StatusNotFound, dirJSONType, dirError("Unsupported search version API provided (/"+rest+")"))
		return
	}
	status, body := n.search(r)
	if status == http.StatusOK {
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "no-cache, no-store, must-revalidate, max-age=0")
	}
	n.write(w, r, f, status, dirJSONType, body)
}

// satMul multiplies non-negative a and b, saturating at math.MaxInt.
func satMul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}

func statusError(status int) []byte { return dirError(http.StatusText(status)) }

// intParam reads an integer parameter the way ph-commons getAsInt does: absent or
// unparsable gives def.
func intParam(q map[string][]string, name string, def int) int {
	v, ok := q[name]
	if !ok || len(v) == 0 {
		return def
	}
	i, err := strconv.Atoi(strings.TrimSpace(v[0]))
	if err != nil {
		return def
	}
	return i
}

// search runs the query of r and returns the status and the JSON body.
func (n *Network) search(r *http.Request) (int, []byte) {
	params := r.URL.Query()
	rpi := intParam(params, "resultPageIndex", intParam(params, "rpi", 0))
	if rpi < 0 {
		return http.StatusBadRequest, dirError("ResultPageIndex " + strconv.Itoa(rpi) + " is invalid. It must be >= 0.")
	}
	rpc := intParam(params, "resultPageCount", intParam(params, "rpc", dirDefaultPageSize))
	if rpc <= 0 {
		return http.StatusBadRequest, dirError("ResultPageCount " + strconv.Itoa(rpc) + " is invalid. It must be > 0.")
	}
	first := satMul(rpi, rpc)
	if first > dirMaxResults {
		return http.StatusBadRequest, dirError("The first result index " + strconv.Itoa(first) + " is invalid. It must be <= 1000.")
	}
	// Here rpi <= first <= 1000, so rpi+1 cannot overflow.
	last := satMul(rpi+1, rpc) - 1
	if last > dirMaxResults {
		return http.StatusBadRequest, dirError("The last result index " + strconv.Itoa(last) + " is invalid. It must be <= 1000.")
	}

	var terms []string
	var queries []dirQuery
	for _, fd := range dirFields {
		for _, v := range params[fd.name] {
			terms = append(terms, fd.name+"="+v)
			if q := fd.compile(v); q != nil {
				queries = append(queries, q)
			}
		}
	}
	if len(terms) == 0 {
		return http.StatusBadRequest, dirError("No valid query term provided!")
	}
	if len(queries) == 0 {
		return http.StatusBadRequest, dirError("No valid queries could be created!")
	}

	// An exact participant term restricts the candidates to that participant's
	// entities (all terms are AND-ed), sparing a scan of the whole index.
	var candidates []int
	restricted := false
	for _, v := range params["participant"] {
		if id, ok := participantTerm(v); ok {
			candidates, restricted = n.dir.byParticipant[id], true
			break
		}
	}
	total := 0
	var hits []*dirEntry // the first last+1 matches, as the engine returns them
	count := len(n.dir.entries)
	if restricted {
		count = len(candidates)
	}
	for k := range count {
		i := k
		if restricted {
			i = candidates[k]
		}
		e := &n.dir.entries[i]
		ok := true
		for _, q := range queries {
			if !q(e) {
				ok = false
				break
			}
		}
		if ok {
			total++
			if len(hits) <= last {
				hits = append(hits, e)
			}
		}
	}
	effLast := min(last, len(hits)-1)
	var page []*dirEntry
	if first < len(hits) {
		page = hits[first : effLast+1]
	}
	res := dirResult{
		Version:    "1.0",
		Total:      total,
		Used:       len(page),
		PageIndex:  rpi,
		PageCount:  rpc,
		First:      first,
		Last:       effLast,
		QueryTerms: strings.Join(terms, "&"),
		CreationDT: time.Now().UTC().Format("2006-01-02T15:04:05.999999999Z07:00"),
		Matches:    groupByParticipant(page),
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if params.Get("beautify") == "true" {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(res); err != nil {
		return http.StatusInternalServerError, dirError("Internal error")
	}
	return http.StatusOK, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// groupByParticipant groups the page by participant, in order of first appearance,
// as PDStorageManager.getGroupedByParticipantID does.
func groupByParticipant(page []*dirEntry) []dirMatch {
	out := []dirMatch{}
	pos := map[*Participant]int{}
	for _, e := range page {
		i, ok := pos[e.p]
		if !ok {
			i = len(out)
			pos[e.p] = i
			m := dirMatch{ParticipantID: dirID{peppol.ParticipantScheme, e.p.ID.String()}}
			for _, d := range e.p.Card.DocTypes {
				m.DocTypes = append(m.DocTypes, dirID(d))
			}
			out = append(out, m)
		}
		out[i].Entities = append(out[i].Entities, entityJSON(entityOf(e)))
	}
	return out
}

func entityJSON(e *Entity) dirEntity {
	j := dirEntity{
		CountryCode:    e.CountryCode,
		GeoInfo:        e.GeoInfo,
		Websites:       e.Websites,
		AdditionalInfo: e.AdditionalInfo,
		RegDate:        e.RegDate,
	}
	for _, nm := range e.Names {
		j.Name = append(j.Name, dirName(nm))
	}
	for _, id := range e.Identifiers {
		j.Identifiers = append(j.Identifiers, dirID(id))
	}
	for _, c := range e.Contacts {
		j.Contacts = append(j.Contacts, dirContact(c))
	}
	return j
}

// The JSON shape of PDStoredBusinessEntity.getAsSearchResultJsonObject; key order
// and optionality follow the real service.
type dirResult struct {
	Version    string     `json:"version"`
	Total      int        `json:"total-result-count"`
	Used       int        `json:"used-result-count"`
	PageIndex  int        `json:"result-page-index"`
	PageCount  int        `json:"result-page-count"`
	First      int        `json:"first-result-index"`
	Last       int        `json:"last-result-index"`
	QueryTerms string     `json:"query-terms"`
	CreationDT string     `json:"creation-dt"`
	Matches    []dirMatch `json:"matches"`
}

type dirMatch struct {
	ParticipantID dirID       `json:"participantID"`
	DocTypes      []dirID     `json:"docTypes,omitempty"`
	Entities      []dirEntity `json:"entities"`
}

type dirID struct {
	Scheme string `json:"scheme"`
	Value  string `json:"value"`
}

type dirEntity struct {
	Name           []dirName    `json:"name,omitempty"`
	CountryCode    string       `json:"countryCode"`
	GeoInfo        string       `json:"geoInfo,omitempty"`
	Identifiers    []dirID      `json:"identifiers,omitempty"`
	Websites       []string     `json:"websites,omitempty"`
	Contacts       []dirContact `json:"contacts,omitempty"`
	AdditionalInfo string       `json:"additionalInfo,omitempty"`
	RegDate        string       `json:"regDate,omitempty"`
}

type dirName struct {
	Name     string `json:"name"`
	Language string `json:"language,omitempty"`
}

type dirContact struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Phone string `json:"phone"`
	Email string `json:"email"`
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// rateLimiter is the Directory's per-IP sliding window: at most max requests per
// window; every request counts, rejected ones included.
type rateLimiter struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	seen   map[string][]time.Time
}

func newRateLimiter(max int, window time.Duration) *rateLimiter {
	return &rateLimiter{max: max, window: window, seen: map[string][]time.Time{}}
}

func (l *rateLimiter) allow(ip string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.seen) > 4096 {
		for k, ts := range l.seen {
			if len(ts) == 0 || now.Sub(ts[len(ts)-1]) >= l.window {
				delete(l.seen, k)
			}
		}
	}
	ts := l.seen[ip]
	keep := ts[:0]
	for _, t := range ts {
		if now.Sub(t) < l.window {
			keep = append(keep, t)
		}
	}
	keep = append(keep, now)
	if len(keep) > 2*l.max {
		keep = keep[len(keep)-2*l.max:]
	}
	l.seen[ip] = keep
	return len(keep) <= l.max
}
