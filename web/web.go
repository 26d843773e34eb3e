// Package web is peppolgate's front door for people: server-rendered pages (Go
// html/template, embedded) for the start page, the search, a participant's verdict and
// services, and the ask page, with one stylesheet and one small script as embedded
// assets. Every page works without JavaScript; the script only streams the ask page's
// answer. The pages answer from the same registry.Networks as the REST API, so they
// share its caches; the server mounts them behind its rate limits and maps their
// errors through its one error table (docs/ARCHITECTURE.md §4) to ErrorPage.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/internal/query"
	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
)

//go:embed templates/*.html assets/*
var files embed.FS

// CSP is the Content-Security-Policy of every page: only the service's own stylesheet,
// script and connections, no inline script or style, no framing.
const CSP = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// pageCacheControl lets the browser keep a page briefly (back and forward without a
// new lookup); shared caches never keep it.
const pageCacheControl = "private, max-age=60"

// staleCacheControl is a page's showing an older answer, served because the network
// failed: the browser asks again next time, as the API's stale answers say.
const staleCacheControl = "private, no-cache"

// assetCacheControl keeps an asset for a year: its name carries its content's hash.
const assetCacheControl = "public, max-age=31536000, immutable"

// Config configures Pages.
type Config struct {
	// Networks answer the lookups and searches. Required.
	Networks *registry.Networks
	// Asker answers the ask page's questions, on the network the page names (its On).
	// Required.
	Asker *nlq.Engine
	// BaseURL is the service's public URL; its path (if any) prefixes every link.
	BaseURL string
	// Stats says the default network has a Directory mirror: the header links to the
	// statistics page (which says why it is empty without one).
	Stats bool
}

// Pages renders and serves the pages. It is safe for concurrent use.
type Pages struct {
	nets  *registry.Networks
	asker *nlq.Engine
	root  string
	stats bool
	// plain puts an API message's advice for programs in words for people (newPlain).
	plain *strings.Replacer
	// memo keeps rendered participant pages per cached answer.
	memo  memo
	pages map[string]*template.Template
	// assets by their hashed name; assetNames maps a plain name to its hashed one.
	assets     map[string]asset
	assetNames map[string]string
}

type asset struct {
	body  []byte
	ctype string
	etag  string
}

// New returns Pages for cfg. It returns an error when Networks or Asker is nil,
// BaseURL does not parse, or a template does not parse (a bug).
func New(cfg Config) (*Pages, error) {
	if cfg.Networks == nil || cfg.Asker == nil {
		return nil, errors.New("web: Config.Networks and Config.Asker are required")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("web: base URL: %w", err)
	}
	p := &Pages{nets: cfg.Networks, asker: cfg.Asker, root: strings.TrimSuffix(u.Path, "/"), stats: cfg.Stats, plain: newPlain(),
		pages: map[string]*template.Template{}, assets: map[string]asset{}, assetNames: map[string]string{}}
	names, err := fs.Glob(files, "assets/*")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		h := hex.EncodeToString(sum[:6])
		base := path.Base(name)
		ext := path.Ext(base)
		hashed := strings.TrimSuffix(base, ext) + "." + h + ext
		ctype := "text/css; charset=utf-8"
		if ext == ".js" {
			ctype = "text/javascript; charset=utf-8"
		}
		p.assets[hashed] = asset{body: b, ctype: ctype, etag: `"` + h + `"`}
		p.assetNames[base] = hashed
	}
	funcs := template.FuncMap{
		"asset": func(name string) (string, error) {
			h, ok := p.assetNames[name]
			if !ok {
				return "", fmt.Errorf("web: no asset %q", name)
			}
			return p.root + "/assets/" + h, nil
		},
		"deref": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		// shown renders third-party text (a name, an address, an SMP's identifier or
		// URL) cleaned and capped (docs/ARCHITECTURE.md §6); html/template escapes it.
		"shown": untrusted.Short,
	}
	for _, name := range []string{"home", "search", "participant", "ask", "error", "stats"} {
		t, err := template.New("layout").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		p.pages[name] = t
	}
	return p, nil
}

// base is what every page's layout shows.
type base struct {
	Title string
	Root  string
	// Lang is the page's language: English, but for the ask page's answer in
	// another language (its English words are then marked lang="en").
	Lang string
	// Network is the network the request named ("" for the default), carried to
	// every form and link.
	Network string
	// Box prefills the header's box.
	Box string
	// Home hides the header's box on the start page, which is one.
	Home bool
	// Stats shows the link to the statistics page.
	Stats bool
}

// render writes page name with data and status. The page is rendered whole before
// anything is written, so a template failure is an error, never half a page.
func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, name string, data any, cacheControl string) error {
	b, err := p.renderBytes(name, data)
	if err != nil {
		return err
	}
	writePage(w, r, status, b, cacheControl)
	return nil
}

// renderBytes renders page name with data.
func (p *Pages) renderBytes(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := p.pages[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		return nil, fmt.Errorf("web: rendering %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// writePage writes a rendered page with status and its headers.
func writePage(w http.ResponseWriter, r *http.Request, status int, page []byte, cacheControl string) {
	h := w.Header()
	SetHeaders(h)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", cacheControl)
	h.Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(page)
	}
}

// SetHeaders sets the security headers of a page on h: the CSP and the referrer
// policy (X-Content-Type-Options is the server's on every answer).
func SetHeaders(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
}

// base returns the layout's data for r. Its Network is the request's network parameter
// when this server offers it, lower-cased ("" for none or one not offered: the page
// answering such a request is an error page, whose box must not carry it on). The
// statistics link is shown on the default network's pages only: the mirror they are
// counted from is the default network's.
func (p *Pages) base(r *http.Request, title string) base {
	// A network that does not decode is the error the page shows (param), never
	// carried on.
	raw, _, _ := query.Value(r.URL.RawQuery, "network")
	network, err := registry.ParseNetwork(raw, p.nets.Names())
	if err != nil {
		network = ""
	}
	return base{Title: title, Root: p.root, Lang: nlq.LangEnglish, Network: network, Stats: p.stats && (network == "" || network == p.nets.Default())}
}

// network returns the registry r's network parameter names. It returns a
// *registry.Error with CodeInvalidRequest for a network not offered or not valid
// percent-encoding.
func (p *Pages) network(r *http.Request) (registry.Registry, string, error) {
	raw, err := param(r, "network")
	if err != nil {
		return nil, "", err
	}
	return p.nets.Select(raw)
}

// param returns the value of key in r's query string ("" when absent), read by the
// one reader of the API and the pages (internal/query). It returns a *registry.Error
// with CodeInvalidRequest for a value that is not valid percent-encoding.
func param(r *http.Request, key string) (string, error) {
	v, _, err := query.Value(r.URL.RawQuery, key)
	return v, err
}

// link returns the page path with query parameters (empty values left out).
func (p *Pages) link(pathname string, kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	if len(q) == 0 {
		return p.root + pathname
	}
	return p.root + pathname + "?" + q.Encode()
}

// Asset serves GET /assets/{name}: the stylesheet and the script, named by their
// content's hash and kept a year. It returns a *registry.Error with CodeNotFound for
// an unknown name.
func (p *Pages) Asset(w http.ResponseWriter, r *http.Request) error {
	a, ok := p.assets[path.Base(r.URL.Path)]
	if !ok {
		return &registry.Error{Code: registry.CodeNotFound, Message: "there is no such asset"}
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", assetCacheControl)
	h.Set("ETag", a.etag)
	if strings.Contains(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.body)
	}
	return nil
}

// ErrorPage is an error as a page shows it; the server fills it from its error table.
type ErrorPage struct {
	// Status is the HTTP status.
	Status int
	// Code is the error code, e.g. lookup_failed.
	Code registry.Code
	// Message says what went wrong, for people.
	Message string
	// CacheControl is the answer's Cache-Control.
	CacheControl string
	// RetryAfter, when above zero, is how many seconds to wait before retrying.
	RetryAfter int64
	// RequestID names the request, for a report.
	RequestID string
	// Meant and MeantLabel link the page the request most likely meant (Meant), for
	// a path that does not exist; "" for none.
	Meant, MeantLabel string
}

type errorData struct {
	base
	ErrorPage
	Heading, Advice string
}

// Error writes e as a page: a heading by its kind, the message and what to do.
func (p *Pages) Error(w http.ResponseWriter, r *http.Request, e ErrorPage) {
	e.Message = sentence(p.plain.Replace(forPeople(e.Code, e.Message)))
	d := errorData{base: p.base(r, "Error"), ErrorPage: e}
	d.Box, _, _ = query.Value(r.URL.RawQuery, "q")
	switch {
	case e.Code == registry.CodeStatsUnavailable:
		d.Heading, d.Advice = "Network statistics are not available here", "They are counted from peppolgate's copy of the Peppol Directory (a mirror), which this server or this network does not have or has not loaded yet. Search and lookups still work."
		d.Message = "" // the API's message is for the operator; the advice says it for people
	case e.Status == http.StatusTooManyRequests:
		d.Heading, d.Advice = "Too many requests", "Wait a moment, then reload the page."
	case e.Status >= 500:
		d.Heading, d.Advice = "Could not be checked right now", "The Peppol network did not answer in time or failed. This is usually temporary: reload the page in a minute."
		if e.Status == http.StatusInternalServerError {
			d.Heading, d.Advice = "Something went wrong on our side", "Reload the page in a minute; if it keeps failing, report the request id below."
		}
	case e.Status == http.StatusNotFound:
		d.Heading, d.Advice = "Not found", "Check the address, or search by name from the start page."
	default:
		d.Heading, d.Advice = "That did not work", "Correct what the message says and try again; a company name or number works in the box above."
	}
	d.Title = d.Heading
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(e.RetryAfter, 10))
	}
	if err := p.render(w, r, e.Status, "error", d, e.CacheControl); err != nil {
		// The error page is a fixed template over plain strings: it cannot fail but for
		// a bug, and then a plain text answer is all that is left.
		http.Error(w, e.Message, e.Status)
	}
}

// forPeople returns the message of an input error with code as a person reading a page
// needs it: what to type rather than which parameter the API wants.
func forPeople(code registry.Code, msg string) string {
	switch code {
	case registry.CodeMissingQuery:
		return "type a company name, a VAT or company number or a participant id, or pick a country to list its participants"
	case registry.CodeQueryTooShort:
		return fmt.Sprintf("type at least %d characters of the name or number", registry.MinQueryLength)
	case registry.CodeInvalidParticipantID:
		// The advice that follows names API calls and tools; the page links the id
		// meant instead (Meant).
		if before, _, ok := strings.Cut(msg, "; look that up"); ok {
			return before
		}
	}
	// The search's and the question's parameters by what they are on the page.
	for _, param := range [...]struct{ api, page string }{{"q ", "the search "}, {"query ", "the question "}} {
		if rest, ok := strings.CutPrefix(msg, param.api); ok {
			return param.page + rest
		}
	}
	return msg
}

// sentence returns msg, an API message, as a sentence: a capital first letter and a
// full stop at the end.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") && !strings.HasSuffix(msg, "!") {
		msg += "."
	}
	return msg
}

// newPlain returns the replacer that rewrites the retry advice the API's messages end
// with, written for programs ("retry with exponential backoff"), into what a person
// reading a page does.
func newPlain() *strings.Replacer {
	return strings.NewReplacer(
		"retry in a few seconds with exponential backoff", "try again in a few seconds",
		"retry with exponential backoff", "try again in a minute",
		"retry after the indicated delay", "try again in a moment",
	)
}
