package smp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
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
	// deadline on ctx wins, a later one does not lift this bound. Time spent waiting
	// in Gate.Enter does not count against it (ctx bounds that).
	Timeout time.Duration
	// Gate, when set, is asked before every request (the redirect target's too) and
	// told how each went; nil lets every request through.
	Gate Gate
}

// ServiceGroup fetches and parses the ServiceGroup of id from the SMP at base (the URL
// from the SML's NAPTR record). It returns an *Error matching ErrNotFound when the SMP
// answers 404, and one matching ErrUnavailable for every other failure (timeout,
// connection, status, size, malformed document). A base that is not an absolute
// http(s) URL, or that carries user info, a query or a fragment, is KindMalformed and
// nothing is sent.
func (c *Client) ServiceGroup(ctx context.Context, base string, id peppol.ParticipantID) (*ServiceGroup, error) {
	if err := checkBase(base); err != nil {
		return nil, err
	}
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
// ServiceGroup; in addition these are KindMalformed (ErrUnavailable):
//   - a Redirect href that is not an absolute http(s) URL or that has user info, a
//     query or a fragment (an unencoded '#' or '?' would silently cut the path, and the
//     target would answer for a different resource);
//   - an answer naming another participant (compared case-insensitively, scheme
//     iso6523-actorid-upis or none) or another document type (value compared
//     exactly, scheme case-insensitively) than the one requested; a document that
//     names neither is accepted.
//
// A second Redirect is KindRedirectLoop (ErrUnavailable). A 404 from the redirect
// target is ErrNotFound, with the target's URL: the participant's own SMP delegated
// the document type there, so the target is authoritative for it, and a sender
// following the protocol finds no endpoint either. (The href is refused rather than
// fetched when a 404 could come from how it is written.)
func (c *Client) ServiceMetadata(ctx context.Context, base string, id peppol.ParticipantID, docType Identifier) (*ServiceMetadata, error) {
	if err := checkBase(base); err != nil {
		return nil, err
	}
	u := ServiceMetadataURL(base, id, docType)
	sm, err := c.metadata(ctx, u)
	if err != nil {
		return nil, err
	}
	if sm.Redirect == nil {
		return sm, checkSubject(sm, u, id, docType)
	}
	target := sm.Redirect.Href
	if err := checkURL(target); err != nil {
		return nil, &Error{Kind: KindMalformed, URL: redactURL(u), Status: http.StatusOK,
			Err: fmt.Errorf("redirect href %s", err)}
	}
	next, err := c.metadata(ctx, target)
	if err != nil {
		return nil, err
	}
	if next.Redirect != nil {
		return nil, &Error{Kind: KindRedirectLoop, URL: redactURL(target), Status: http.StatusOK,
			Err: fmt.Errorf("redirected again, to %s; only one redirect is followed", redactURL(next.Redirect.Href))}
	}
	if err := checkSubject(next, target, id, docType); err != nil {
		return nil, err
	}
	sm.Redirect.Signature = sm.Signature
	next.FollowedRedirect = sm.Redirect
	return next, nil
}

// checkBase refuses a base URL that cannot be extended with a path: a query or
// fragment would swallow the appended path, and user info has no place in a request
// (and would end up in logs). The error does not repeat the user info.
func checkBase(base string) error {
	if err := checkURL(base); err != nil {
		return &Error{Kind: KindMalformed, URL: redactURL(base), Err: fmt.Errorf("SMP base URL %s", err)}
	}
	return nil
}

// checkURL says what is wrong with raw as a URL to fetch as written, or returns nil.
// The message does not quote raw, which may carry credentials.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("does not parse as a URL")
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return errors.New("is not an absolute http(s) URL")
	case u.User != nil:
		return errors.New("has user info; credentials are not sent to SMPs")
	case u.RawQuery != "" || u.ForceQuery || strings.Contains(raw, "?"):
		return errors.New("has a query ('?' in a path must be written %3F)")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("has a fragment ('#' in a path must be written %23)")
	}
	return nil
}

// checkSubject refuses an answer about another participant or document type than the
// one requested at rawURL: it would attach someone else's endpoints to this request.
func checkSubject(sm *ServiceMetadata, rawURL string, id peppol.ParticipantID, docType Identifier) error {
	var problem string
	if p := sm.Participant; p.Value != "" &&
		(!strings.EqualFold(p.Value, id.String()) || (p.Scheme != "" && !strings.EqualFold(p.Scheme, peppol.ParticipantScheme))) {
		problem = fmt.Sprintf("the answer is about participant %s, not the requested %s", short(p.String()), id.URI())
	} else if d := sm.DocumentType; d.Value != "" &&
		(d.Value != docType.Value || (d.Scheme != "" && !strings.EqualFold(d.Scheme, docType.Scheme))) {
		// Document types differ near the end as often as not, so they are not cut at
		// the usual length; Peppol caps their values at 500 characters.
		problem = fmt.Sprintf("the answer is about document type %s, not the requested %s", shortN(d.String(), 600), docType)
	}
	if problem == "" {
		return nil
	}
	return &Error{Kind: KindMalformed, URL: redactURL(rawURL), Status: http.StatusOK, Err: errors.New(problem)}
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
// built from the string so that %3A, %23 and %2B reach the server unchanged. It passes
// the Gate, when there is one, and tells it how the request went.
func (c *Client) get(ctx context.Context, rawURL string) ([]byte, error) {
	shown := redactURL(rawURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return nil, &Error{Kind: KindMalformed, URL: shown, Err: errors.New("not an absolute http(s) URL")}
	}
	if c.Gate == nil {
		return c.send(req, shown)
	}
	done, err := c.Gate.Enter(ctx, strings.ToLower(req.URL.Host))
	if err != nil {
		return nil, &Error{Kind: KindRefused, URL: shown, Err: err}
	}
	body, err := c.send(req, shown)
	done(hostOutcome(err))
	return body, err
}

// send performs req within the Client's Timeout and reads the body.
func (c *Client) send(req *http.Request, shown string) ([]byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(req.Context(), timeout)
	defer cancel()
	req = req.WithContext(ctx)
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
	switch {
	case errors.Is(ctx.Err(), context.Canceled) && !errors.Is(err, context.Canceled):
		// The caller cancelled with a cause, which net/http returns in place of
		// context.Canceled; keep both, so that nobody counts it as the host failing.
		err = fmt.Errorf("%w: %w", context.Canceled, err)
	case refusedByPolicy(err):
		kind = KindRefused
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()):
		kind = KindTimeout
	}
	return &Error{Kind: kind, URL: shown, Status: status, Err: err}
}
