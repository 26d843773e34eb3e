package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"strconv"
	"strings"

	"github.com/peppolgate/peppolgate/registry"
)

// netHTTPErrorHeaders are the headers net/http writes on a connection after the
// status line of an answer it makes itself, before any handler runs, to a request it
// cannot read (net/http's conn.serve): a malformed request line, header or Host is
// "400 Bad Request" or "400 Bad Request: <reason>". A handler's answer never starts
// so: net/http writes its headers sorted, and the edge's Access-Control-* come before
// Content-Type.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// Listener returns ln with net/http's own 400 answers, which no handler can reach,
// written as the API's JSON error (400 invalid_request, docs/INTERFACE.md §7) with
// net/http's reason, and logged. Serve the server on it. Its other answers of that
// kind (431 for headers over the limit, 501 for an unknown Transfer-Encoding) stay
// net/http's text/plain: the error table has no code for them. Connections served
// over TLS by net/http itself are not rewritten (their bytes are encrypted below
// it); peppolgate serves plain HTTP behind its proxy.
func (s *Server) Listener(ln net.Listener) net.Listener {
	return &jsonErrorListener{Listener: ln, log: s.log}
}

type jsonErrorListener struct {
	net.Listener
	log *slog.Logger
}

func (l *jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c, log: l.log}, nil
}

// jsonErrorConn rewrites net/http's own 400 answer, written in one Write on the
// connection, as the API's JSON error.
type jsonErrorConn struct {
	net.Conn
	log *slog.Logger
}

func (c *jsonErrorConn) Write(b []byte) (int, error) {
	answer, reason, ok := rewriteNetHTTP400(b)
	if !ok {
		return c.Conn.Write(b)
	}
	// No request was read, so there is no request context (nor id) to log with.
	c.log.LogAttrs(context.Background(), slog.LevelInfo, "request refused by net/http",
		slog.String("remote", c.RemoteAddr().String()), slog.Int("status", 400), slog.String("reason", reason))
	if _, err := c.Conn.Write(answer); err != nil {
		return 0, err
	}
	return len(b), nil
}

// rewriteNetHTTP400 returns the JSON answer for b when b is net/http's own 400 answer,
// with the reason it gives (or what it means without one).
func rewriteNetHTTP400(b []byte) (answer []byte, reason string, ok bool) {
	const prefix = "HTTP/1.1 400 Bad Request"
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return nil, "", false
	}
	line, _, found := bytes.Cut(b, []byte("\r\n"))
	if !found || !bytes.HasPrefix(b[len(line):], []byte(netHTTPErrorHeaders)) {
		return nil, "", false
	}
	reason = strings.TrimPrefix(strings.TrimPrefix(string(line), prefix), ": ")
	msg := "the request could not be read as HTTP/1.1 (a malformed request line, header or Host); send a well-formed request"
	if reason != "" {
		msg = "the request could not be read as HTTP/1.1: " + reason + "; send a well-formed request"
	} else {
		reason = "malformed request"
	}
	body, err := json.Marshal(errorBody{Error: errorDetail{Code: registry.CodeInvalidRequest, Message: msg}})
	if err != nil {
		return nil, "", false
	}
	head := "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n"
	return append([]byte(head), body...), reason, true
}
