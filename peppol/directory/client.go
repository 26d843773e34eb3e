package directory

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/peppolgate/peppolgate/internal/httpx"
)

// Directory bases (peppol-commons EPeppolNetwork).
const (
	// Production is the base URL of the production Peppol Directory.
	Production = "https://directory.peppol.eu"
	// Test is the base URL of the Peppol test Directory.
	Test = "https://test-directory.peppol.eu"
)

// Client defaults.
const (
	// DefaultMaxBody is the largest answer read when Client.MaxBody is 0. A full page
	// of 1000 entities with doc types stays well below it.
	DefaultMaxBody = 4 << 20
	// DefaultTimeout bounds a search when Client.Timeout is 0.
	DefaultTimeout = 10 * time.Second
	// DefaultUserAgent is sent when Client.UserAgent is empty.
	DefaultUserAgent = "peppolgate (+https://github.com/peppolgate/peppolgate)"
)

// maxErrorBody bounds how much of a 400 answer is read for its message.
const maxErrorBody = 8 << 10

// maxMessageRunes bounds the Directory message kept in an error.
const maxMessageRunes = 300

// Client searches a Peppol Directory. The zero value searches Production with
// http.DefaultClient; a Client is safe for concurrent use if its fields are not changed.
type Client struct {
	// HTTP is the HTTP client to use; nil means http.DefaultClient.
	HTTP *http.Client
	// Base is the Directory's base URL (http or https, may have a path); "" means
	// Production.
	Base string
	// UserAgent is sent as User-Agent; "" means DefaultUserAgent.
	UserAgent string
	// MaxBody is the largest answer accepted, in bytes; 0 means DefaultMaxBody.
	MaxBody int64
	// Timeout bounds one search (headers and body); 0 means DefaultTimeout. An earlier
	// deadline on ctx wins, a later one does not lift this bound.
	Timeout time.Duration
}

// Search runs q against GET {Base}/search/1.0/json and returns the decoded page. An
// empty result is a Result with no matches, not an error. Errors are *Error values:
// ErrBadQuery when q fails Validate or the Directory answers 400 (Err carries its
// message), ErrRateLimited on 429 (with a *RateLimitError), ErrUnavailable for an
// invalid Base, network failures, timeouts, a cancelled ctx, an HTTP redirect (never
// followed), 5xx and any other status, malformed JSON, or a body larger than MaxBody.
func (c *Client) Search(ctx context.Context, q Query) (*Result, error) {
	params, err := q.Values()
	if err != nil {
		return nil, err
	}
	endpoint, err := c.endpoint()
	if err != nil {
		return nil, unavailable(0, err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"?"+params.Encode(), nil)
	if err != nil {
		return nil, unavailable(0, err)
	}
	req.Header.Set("Accept", "application/json")
	ua := c.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	req.Header.Set("User-Agent", ua)

	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, unavailable(0, err)
	}
	defer resp.Body.Close()

	switch {
	case resp.StatusCode == http.StatusOK:
		body, err := readBody(resp, c.maxBody())
		if err != nil {
			return nil, unavailable(resp.StatusCode, err)
		}
		res, err := ParseResult(body)
		if err != nil {
			return nil, unavailable(resp.StatusCode, err)
		}
		return res, nil
	case resp.StatusCode == http.StatusTooManyRequests:
		// Anything unusable means DefaultRetryAfter: the Directory's own limit is a
		// 2-second window.
		wait := httpx.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now(), DefaultRetryAfter, maxRetryAfter)
		return nil, &Error{Kind: KindRateLimited, Status: resp.StatusCode, Err: &RateLimitError{RetryAfter: wait}}
	case resp.StatusCode == http.StatusBadRequest:
		// A body we cannot read still means the query was refused.
		body, _ := readBody(resp, maxErrorBody)
		return nil, badQuery(resp.StatusCode, errors.New(errorMessage(body)))
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		return nil, unavailable(resp.StatusCode, fmt.Errorf("HTTP redirects are not followed (%s to %q): the Directory's search answers directly", resp.Status, redactLocation(resp.Header.Get("Location"))))
	default:
		return nil, unavailable(resp.StatusCode, fmt.Errorf("unexpected HTTP status %s", resp.Status))
	}
}

// httpClient returns a copy of c.HTTP (or http.DefaultClient) that never follows HTTP
// redirects: the search API answers directly, and a redirect could lead the request
// anywhere, an internal address included.
func (c *Client) httpClient() *http.Client {
	hc := http.DefaultClient
	if c.HTTP != nil {
		hc = c.HTTP
	}
	cp := *hc
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}

// redactLocation drops the user info and query of a Location, for messages and logs.
func redactLocation(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return "(unparsable)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// endpoint validates Base once per call so that a mis-configured base is reported as
// such rather than as a confusing transport error.
func (c *Client) endpoint() (string, error) {
	base := c.Base
	if base == "" {
		base = Production
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("directory base URL %q: %w", base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("directory base URL %q must be http(s)://host[/path] without query or fragment", base)
	}
	return strings.TrimRight(base, "/") + "/search/1.0/json", nil
}

func (c *Client) maxBody() int64 {
	if c.MaxBody > 0 {
		return c.MaxBody
	}
	return DefaultMaxBody
}

// readBody reads at most limit bytes and fails when the body is longer, rather than
// decoding a truncated answer.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%w: answer of %d bytes exceeds the limit of %d bytes", ErrTooLarge, resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading answer: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: answer exceeds the limit of %d bytes", ErrTooLarge, limit)
	}
	return body, nil
}

// maxRetryAfter is the longest wait a Retry-After from the Directory can ask for.
const maxRetryAfter = 24 * time.Hour

// errorMessage extracts the Directory's message from a 400 body. Since phoss-directory
// 0.15.4 its form follows Accept: a JSON string, plain text or <error>…</error>; the
// body is sniffed rather than trusting Content-Type. The result is cleaned of control
// characters and shortened, because it ends up in log lines and API answers.
func errorMessage(body []byte) string {
	raw := strings.TrimSpace(string(body))
	msg := raw
	switch firstByte(body) {
	case '"':
		var s string
		if json.Unmarshal(body, &s) == nil {
			msg = s
		}
	case '<':
		var e struct {
			XMLName xml.Name
			Text    string `xml:",chardata"`
		}
		if xml.Unmarshal(body, &e) == nil && e.XMLName.Local == "error" {
			msg = e.Text
		}
	}
	msg = cleanMessage(msg)
	if msg == "" {
		return "the Directory rejected the query without a message"
	}
	return msg
}

func cleanMessage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if n == maxMessageRunes {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
