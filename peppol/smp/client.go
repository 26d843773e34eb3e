package smp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// Client defaults, used when the corresponding Client field is zero.
const (
	// DefaultMaxBody caps a response body; real ServiceMetadata documents are < 20 KB,
	// ServiceGroups with hundreds of document types well under 1 MB.
	DefaultMaxBody = 2 << 20
	// DefaultTimeout bounds each request when Client.Timeout is 0.
	DefaultTimeout = 10 * time.Second
	// DefaultUserAgent is sent when Client.UserAgent is empty.
	DefaultUserAgent = "peppolgate-smp-client/1"
)

// acceptHeader lists both XML types: some SMPs answer 406 to application/xml alone.
const acceptHeader = "text/xml, application/xml"

// Client fetches ServiceGroup and ServiceMetadata documents. The zero value is ready to
// use; it is safe for concurrent use as long as its fields are not changed.
//
// HTTP 3xx answers are never followed (as in peppol-commons): the NAPTR record names
// the SMP, and an SMP that moves must use the SMP-level <Redirect>, which
// ServiceMetadata follows once. A 3xx is reported as KindStatus (ErrUnavailable). The
// client forces this even on an HTTP client whose CheckRedirect would follow.
type Client struct {
	// HTTP is the client used for requests; nil means one over http.DefaultTransport.
	// Put dial, TLS and SSRF policy here.
	HTTP *http.Client
	// UserAgent is sent as User-Agent; empty means DefaultUserAgent.
	UserAgent string
	// MaxBody is the largest body read, in bytes; 0 means DefaultMaxBody.
	MaxBody int64
	// Timeout bounds each request (headers and body); 0 means DefaultTimeout. An earlier
	// deadline on ctx wins, a later one does not lift this bound.
	Timeout time.Duration
}

// ServiceGroup fetches and parses the ServiceGroup of id from the SMP at base (the URL
// from the SML's NAPTR record). It returns an *Error matching ErrNotFound when the SMP
// answers 404, and one matching ErrUnavailable for every other failure (timeout,
// connection, status, size, malformed document).
func (c *Client) ServiceGroup(ctx context.Context, base string, id peppol.ParticipantID) (*ServiceGroup, error) {
	u := ServiceGroupURL(base, id)
	body, err := c.get(ctx, u)
	if err != nil {
		return nil, err
	}
	sg, err := ParseServiceGroup(body)
	if err != nil {
		return nil, &Error{Kind: KindMalformed, URL: redactURL(u), Status: http.StatusOK, Err: err}
	}
	return sg, nil
}

// ServiceMetadata fetches and parses the ServiceMetadata of id and docType from the SMP
// at base. When the answer is a Redirect, it fetches the redirect href exactly as given
// (once) and returns that answer with FollowedRedirect set. Errors are as for
// ServiceGroup; in addition a Redirect whose href is not an absolute http(s) URL is
// KindMalformed, and a second Redirect is KindRedirectLoop (both ErrUnavailable). A 404
// from the redirect target is ErrNotFound.
func (c *Client) ServiceMetadata(ctx context.Context, base string, id peppol.ParticipantID, docType Identifier) (*ServiceMetadata, error) {
	u := ServiceMetadataURL(base, id, docType)
	sm, err := c.metadata(ctx, u)
	if err != nil || sm.Redirect == nil {
		return sm, err
	}
	target := sm.Redirect.Href
	if t, err := url.Parse(target); err != nil || (t.Scheme != "http" && t.Scheme != "https") || t.Host == "" {
		return nil, &Error{Kind: KindMalformed, URL: redactURL(u), Status: http.StatusOK,
			Err: errors.New("redirect href is not an absolute http(s) URL")}
	}
	next, err := c.metadata(ctx, target)
	if err != nil {
		return nil, err
	}
	if next.Redirect != nil {
		return nil, &Error{Kind: KindRedirectLoop, URL: redactURL(target), Status: http.StatusOK,
			Err: fmt.Errorf("redirected again, to %s; only one redirect is followed", redactURL(next.Redirect.Href))}
	}
	next.FollowedRedirect = sm.Redirect
	return next, nil
}

func (c *Client) metadata(ctx context.Context, rawURL string) (*ServiceMetadata, error) {
	body, err := c.get(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	sm, err := ParseServiceMetadata(body)
	if err != nil {
		return nil, &Error{Kind: KindMalformed, URL: redactURL(rawURL), Status: http.StatusOK, Err: err}
	}
	return sm, nil
}

// get performs one GET of rawURL, which must already be percent-encoded: the request is
// built from the string so that %3A, %23 and %2B reach the server unchanged.
func (c *Client) get(ctx context.Context, rawURL string) ([]byte, error) {
	shown := redactURL(rawURL)
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return nil, &Error{Kind: KindMalformed, URL: shown, Err: errors.New("not an absolute http(s) URL")}
	}
	req.Header.Set("Accept", acceptHeader)
	ua := c.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	req.Header.Set("User-Agent", ua)

	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, transportError(ctx, shown, 0, err)
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Drain a little so the connection can be reused; the body is not needed.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 8<<10))
		e := &Error{Kind: KindStatus, URL: shown, Status: resp.StatusCode}
		switch {
		case resp.StatusCode == http.StatusNotFound:
			e.Kind = KindNotFound
		case resp.StatusCode >= 300 && resp.StatusCode <= 399:
			e.Err = errors.New("HTTP redirects are not followed; an SMP must answer directly or with an SMP-level Redirect")
		}
		return nil, e
	}
	limit := c.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	if resp.ContentLength > limit {
		return nil, &Error{Kind: KindTooLarge, URL: shown, Status: resp.StatusCode,
			Err: fmt.Errorf("Content-Length %d exceeds the %d-byte limit", resp.ContentLength, limit)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, transportError(ctx, shown, resp.StatusCode, err)
	}
	if int64(len(body)) > limit {
		return nil, &Error{Kind: KindTooLarge, URL: shown, Status: resp.StatusCode,
			Err: fmt.Errorf("body exceeds the %d-byte limit", limit)}
	}
	return body, nil
}

// httpClient returns a copy of c.HTTP that never follows HTTP redirects.
func (c *Client) httpClient() *http.Client {
	var hc http.Client
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}

// transportError classifies a failed round trip or body read. The *url.Error wrapper
// is removed because it repeats the URL, which Error already carries (redacted).
func transportError(ctx context.Context, shown string, status int, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	kind := KindTransport
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()) {
		kind = KindTimeout
	}
	return &Error{Kind: kind, URL: shown, Status: status, Err: err}
}
