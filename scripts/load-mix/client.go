package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// outcome is what one request produced.
type outcome struct {
	// status is the HTTP status; 0 when the request failed in transport.
	status int
	// code is the error code of a non-2xx answer, or of an event stream whose complete
	// event carries an error.
	code string
	// cache is the X-Cache header: hit, miss or stale.
	cache string
	// degraded is a 200 lookup that carries an upstream warning (a branch failed).
	degraded bool
	// transport describes a failure to get a whole answer; "" for none.
	transport string
	// latency runs from sending the request to reading the last byte of the answer.
	latency time.Duration
}

// client sends the load's requests to one target over keep-alive connections.
type client struct {
	http *http.Client
	tr   *http.Transport
	base string
	bufs sync.Pool
}

// newClient returns a client for base whose requests each end after timeout.
func newClient(base string, timeout time.Duration) *client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        2048,
		MaxIdleConnsPerHost: 2048,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &client{
		http: &http.Client{Transport: tr, Timeout: timeout},
		tr:   tr,
		base: base,
		bufs: sync.Pool{New: func() any { return new(bytes.Buffer) }},
	}
}

// close closes the client's idle connections.
func (c *client) close() { c.tr.CloseIdleConnections() }

// do sends rq and reads the whole answer. Failures are reported in the outcome.
func (c *client) do(ctx context.Context, rq request) (o outcome) {
	var req *http.Request
	var err error
	if rq.body == "" {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, c.base+rq.path, nil)
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, c.base+rq.path, strings.NewReader(rq.body))
	}
	if err != nil {
		o.transport = "request: " + err.Error()
		return o
	}
	if rq.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if rq.kind == askSSE {
		req.Header.Set("Accept", "text/event-stream")
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		o.latency = time.Since(start)
		o.transport = transportError(err)
		return o
	}
	buf := c.bufs.Get().(*bytes.Buffer)
	defer c.bufs.Put(buf)
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	o.latency = time.Since(start)
	o.status = resp.StatusCode
	o.cache = resp.Header.Get("X-Cache")
	if err != nil {
		o.transport = "reading the body: " + transportError(err)
		return o
	}
	b := buf.Bytes()
	switch {
	case o.status >= 400:
		o.code = errorCode(b)
	case rq.kind == askSSE:
		code, complete := streamError(b)
		o.code = code
		if !complete {
			o.transport = "event stream without a complete event"
		}
	case rq.kind == lookupHot || rq.kind == lookupCold:
		o.degraded = bytes.Contains(b, []byte(`"directory_unavailable"`)) || bytes.Contains(b, []byte(`"endpoint_unavailable"`))
	}
	return o
}

// errorCode returns the code of an {"error": {"code": …}} body, or "(no error code)".
func errorCode(b []byte) string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	if json.Unmarshal(b, &e) != nil || e.Error.Code == "" {
		return "(no error code)"
	}
	return e.Error.Code
}

// streamError reads an /ask event stream: the error code its complete event carries
// ("" for none), and whether there was a complete event.
func streamError(b []byte) (code string, complete bool) {
	const marker = "event: complete\ndata: "
	i := bytes.LastIndex(b, []byte(marker))
	if i < 0 {
		return "", false
	}
	data := b[i+len(marker):]
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	if !bytes.Contains(data, []byte(`"error"`)) {
		return "", true
	}
	var c struct {
		Error *struct{ Code string } `json:"error"`
	}
	switch {
	case json.Unmarshal(data, &c) != nil:
		return "(unreadable complete event)", true
	case c.Error == nil: // "error" was a value, not the member
		return "", true
	}
	return c.Error.Code, true
}

// transportError names a transport failure briefly, so that the report can count them.
func transportError(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "no free local port"
	}
	return err.Error()
}
