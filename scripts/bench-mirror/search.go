package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// maxResults is the number of hits a search returns, as peppolgate's API does.
const maxResults = 25

// outcome is one query's answer as the benchmark sees it.
type outcome struct {
	took  time.Duration
	total int
	// found says whether the card the query was made from is among the hits.
	found bool
	err   error
}

// searcher runs one query and times it.
type searcher interface {
	search(ctx context.Context, q query) outcome
}

// pgSearcher queries the benchmark's PostgreSQL like peppolgate's search: exact
// participant id or additional identifier, or every term a substring of the folded
// name (which the trigram index accelerates), optional country; totalCount and the top
// 25 by trigram similarity to the whole query, then participant id.
type pgSearcher struct {
	conn *pgx.Conn
	// reconnect opens a new connection when a query's deadline has closed conn.
	reconnect func(ctx context.Context) (*pgx.Conn, error)
	timeout   time.Duration
}

// pgQuery is the statement and arguments for q.
func pgQuery(q query) (string, []any) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	country := func(col string) string {
		if q.country == "" {
			return ""
		}
		return " AND " + col + " = " + arg(q.country)
	}
	var b strings.Builder
	b.WriteString("SELECT pid, count(*) OVER () FROM (\n")
	b.WriteString("  SELECT pid, max(score) AS score FROM (\n")
	b.WriteString("    SELECT pid, 2::real AS score FROM cards WHERE pid = " + arg(pidKey(q.text)) + country("country") + "\n")
	if k := idKey(q.text); k != "" {
		b.WriteString("    UNION ALL SELECT c.pid, 2::real FROM ids i JOIN cards c ON c.pid = i.pid WHERE i.key = " + arg(k) + country("c.country") + "\n")
	}
	if ts := terms(q.text); len(ts) > 0 {
		b.WriteString("    UNION ALL SELECT pid, similarity(name_folded, " + arg(strings.Join(ts, " ")) + ") FROM cards WHERE ")
		for i, t := range ts {
			if i > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString("name_folded LIKE " + arg("%"+t+"%"))
		}
		b.WriteString(country("country") + "\n")
	}
	b.WriteString("  ) u GROUP BY pid\n) d ORDER BY score DESC, pid LIMIT " + strconv.Itoa(maxResults))
	return b.String(), args
}

// search runs q and reads all its rows.
func (s *pgSearcher) search(ctx context.Context, q query) outcome {
	if s.conn.IsClosed() && s.reconnect != nil {
		c, err := s.reconnect(ctx)
		if err != nil {
			return outcome{err: fmt.Errorf("reconnecting to PostgreSQL: %w", err)}
		}
		s.conn = c
	}
	sql, args := pgQuery(q)
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	start := time.Now()
	rows, err := s.conn.Query(ctx, sql, args...)
	if err != nil {
		return outcome{err: err}
	}
	var o outcome
	var pid string
	var total int64
	for rows.Next() {
		if err := rows.Scan(&pid, &total); err != nil {
			rows.Close()
			return outcome{err: err}
		}
		o.total = int(total)
		if pid == q.pid {
			o.found = true
		}
	}
	rows.Close()
	o.took = time.Since(start)
	o.err = rows.Err()
	return o
}

// httpSearcher queries peppolgate's search API over HTTP, one request at a time.
type httpSearcher struct {
	client  *http.Client
	base    string // e.g. http://127.0.0.1:8080
	timeout time.Duration
}

// searchAnswer is the part of the search API's answer the benchmark reads.
type searchAnswer struct {
	TotalCount int `json:"totalCount"`
	Results    []struct {
		ParticipantID string `json:"participantId"`
	} `json:"results"`
	Source   string  `json:"source"`
	DataAsOf *string `json:"dataAsOf"`
}

// url is the search URL of q.
func (s httpSearcher) url(q query) string {
	v := url.Values{"q": {q.text}}
	if q.country != "" {
		v.Set("country", q.country)
	}
	return s.base + "/api/v1/search?" + v.Encode()
}

// search GETs q, reading the whole body within the timing, and decodes it after.
func (s httpSearcher) search(ctx context.Context, q query) outcome {
	o, _ := s.get(ctx, q)
	return o
}

// get is search, also returning the decoded answer.
func (s httpSearcher) get(ctx context.Context, q query) (outcome, searchAnswer) {
	var ans searchAnswer
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url(q), nil)
	if err != nil {
		return outcome{err: err}, ans
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return outcome{err: err}, ans
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return outcome{err: err}, ans
	}
	if resp.StatusCode != http.StatusOK {
		return outcome{err: fmt.Errorf("GET %s: %s: %.200s", s.url(q), resp.Status, body)}, ans
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return outcome{err: fmt.Errorf("GET %s: decoding the answer: %w", s.url(q), err)}, ans
	}
	if ans.Source != "mirror" {
		return outcome{err: fmt.Errorf("GET %s: answered from %q, not from the mirror: %.200s", s.url(q), ans.Source, body)}, ans
	}
	o := outcome{took: took, total: ans.TotalCount}
	for _, r := range ans.Results {
		if pidKey(r.ParticipantID) == q.pid {
			o.found = true
		}
	}
	return o, ans
}

// runMix runs every query of qs one after the other.
func runMix(ctx context.Context, s searcher, qs []query) ([]outcome, error) {
	out := make([]outcome, len(qs))
	for i, q := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = s.search(ctx, q)
	}
	return out, nil
}
