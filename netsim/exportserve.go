package netsim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Paths of the Directory's bulk export of business cards (XML v3 with document types).
const (
	// ExportPath answers 302 to ExportFilePath; the daily per-IP limit counts here.
	ExportPath = "/export/businesscards"
	// ExportFilePath serves the export itself (on the real network a static file host).
	ExportFilePath = "/export1/export-all-businesscards.xml"
	// DefaultExportLimit is the number of ExportPath requests per client IP and 24 h
	// the Directory allows (export.limit.requestsperday).
	DefaultExportLimit = 3
)

// ExportFault disturbs requests for the export file (ExportFilePath, not the redirect).
// The zero ExportFault is no fault.
type ExportFault struct {
	// CutAfter, when positive, closes the connection after this many body bytes of the
	// answer, as an interrupted download: the client sees an unexpected EOF.
	CutAfter int64
	// Status, when non-zero, answers this status with a short text body instead of the
	// export (with Retry-After: 86400 for 429 and 503).
	Status int
	// Times is how many requests the fault applies to; 0 means until it is cleared.
	Times int
}

// exportServer is the state of the export endpoint; the zero value serves the
// dataset's own export without limit until Start sets DefaultExportLimit.
type exportServer struct {
	mu        sync.Mutex
	body      []byte
	modTime   time.Time
	etag      string
	set       bool // body holds an export (SetExport or the dataset's, built lazily)
	perDay    int  // ≤ 0: no limit
	seen      map[string][]time.Time
	fault     ExportFault
	faultLeft int // requests the fault still applies to when fault.Times > 0
}

// SetExport replaces the export the Directory serves at ExportFilePath by body, last
// modified at modTime (its ETag is derived from a SHA-256 of body). The network keeps
// body: the caller must not modify it afterwards. Without SetExport the network serves
// WriteExportXML-style output of its own dataset (every participant with a card, in
// dataset order, created and modified at Dataset.Now), so that search and export
// agree.
func (n *Network) SetExport(body []byte, modTime time.Time) {
	sum := sha256.Sum256(body)
	n.export.mu.Lock()
	defer n.export.mu.Unlock()
	n.export.body, n.export.modTime, n.export.set = body, modTime.UTC(), true
	n.export.etag = `"` + hex.EncodeToString(sum[:16]) + `"`
}

// SetExportLimit sets how many ExportPath requests one client IP may make within 24 h
// before getting 429 (Retry-After: 86400); perDay ≤ 0 removes the limit. It also
// forgets the requests counted so far.
func (n *Network) SetExportLimit(perDay int) {
	n.export.mu.Lock()
	defer n.export.mu.Unlock()
	n.export.perDay = perDay
	n.export.seen = nil
}

// SetExportFault injects f into requests for the export file, replacing the fault set
// before; the zero ExportFault clears it.
func (n *Network) SetExportFault(f ExportFault) {
	n.log.Debug("netsim: set export fault", "cutAfter", f.CutAfter, "status", f.Status, "times", f.Times)
	n.export.mu.Lock()
	defer n.export.mu.Unlock()
	n.export.fault, n.export.faultLeft = f, f.Times
}

// exportContent returns the served export, building the dataset's on first use.
func (n *Network) exportContent() (body []byte, modTime time.Time, etag string) {
	n.export.mu.Lock()
	set := n.export.set
	n.export.mu.Unlock()
	if !set {
		var buf bytes.Buffer
		// Like the real Directory, which rebuilds its export every night, the network
		// serves a fresh one: created now on the network's clock (Config.Now), not at
		// the dataset's reference instant.
		created := n.now().UTC().Truncate(time.Second)
		// Writing to a bytes.Buffer cannot fail.
		_ = writeDatasetExport(&buf, n.ds, created)
		n.export.mu.Lock()
		if !n.export.set { // SetExport may have won meanwhile
			sum := sha256.Sum256(buf.Bytes())
			n.export.body, n.export.modTime, n.export.set = buf.Bytes(), created, true
			n.export.etag = `"` + hex.EncodeToString(sum[:16]) + `"`
		}
		n.export.mu.Unlock()
	}
	n.export.mu.Lock()
	defer n.export.mu.Unlock()
	return n.export.body, n.export.modTime, n.export.etag
}

// allowExport counts an ExportPath request of ip at now against the daily limit.
func (n *Network) allowExport(ip string, now time.Time) bool {
	n.export.mu.Lock()
	defer n.export.mu.Unlock()
	if n.export.perDay <= 0 {
		return true
	}
	if n.export.seen == nil {
		n.export.seen = map[string][]time.Time{}
	}
	ts := n.export.seen[ip]
	keep := ts[:0]
	for _, t := range ts {
		if now.Sub(t) < 24*time.Hour {
			keep = append(keep, t)
		}
	}
	if len(keep) >= n.export.perDay {
		n.export.seen[ip] = keep
		return false
	}
	n.export.seen[ip] = append(keep, now)
	return true
}

// takeExportFault returns the fault for one export file request, using up one of its
// Times.
func (n *Network) takeExportFault() ExportFault {
	n.export.mu.Lock()
	defer n.export.mu.Unlock()
	f := n.export.fault
	if f.Times > 0 {
		n.export.faultLeft--
		if n.export.faultLeft <= 0 {
			n.export.fault = ExportFault{}
		}
	}
	return f
}

// serveExport answers the export paths; it returns false for any other path.
func (n *Network) serveExport(w http.ResponseWriter, r *http.Request) bool {
	switch r.URL.Path {
	case ExportPath:
		n.serveExportRedirect(w, r)
	case ExportFilePath:
		n.serveExportFile(w, r)
	default:
		return false
	}
	return true
}

func exportText(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(msg)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg))
}

func (n *Network) serveExportRedirect(w http.ResponseWriter, r *http.Request) {
	n.hits.exportRedirects.Add(1)
	if n.preFault(w, r, n.faults.get(DirectoryTarget()), dirJSONType, statusError) {
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		exportText(w, http.StatusMethodNotAllowed, "Method not allowed\n")
		return
	}
	if !n.allowExport(clientIP(r), time.Now()) {
		n.hits.exportLimited.Add(1)
		w.Header().Set("Retry-After", "86400")
		exportText(w, http.StatusTooManyRequests, "Too many export requests from your IP address today. Please try again tomorrow.\n")
		return
	}
	w.Header().Set("Cache-Control", "max-age=86400")
	w.Header().Set("Location", n.dirURL+ExportFilePath)
	w.WriteHeader(http.StatusFound)
}

func (n *Network) serveExportFile(w http.ResponseWriter, r *http.Request) {
	n.hits.exportDownloads.Add(1)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		exportText(w, http.StatusMethodNotAllowed, "Method not allowed\n")
		return
	}
	f := n.takeExportFault()
	if f.Status != 0 {
		if f.Status == http.StatusTooManyRequests || f.Status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "86400")
		}
		exportText(w, f.Status, http.StatusText(f.Status)+"\n")
		return
	}
	body, modTime, etag := n.exportContent()
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("ETag", etag)
	h.Set("Cache-Control", "max-age=86400")
	if f.CutAfter > 0 {
		cw := &cutWriter{ResponseWriter: w, left: f.CutAfter}
		http.ServeContent(cw, r, "", modTime, bytes.NewReader(body))
		return
	}
	http.ServeContent(w, r, "", modTime, bytes.NewReader(body))
}

// cutWriter passes on at most left body bytes, then drops the connection.
type cutWriter struct {
	http.ResponseWriter
	left int64
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= c.left {
		c.left -= int64(len(p))
		return c.ResponseWriter.Write(p)
	}
	_, _ = c.ResponseWriter.Write(p[:c.left])
	c.left = 0
	if fl, ok := c.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
	// net/http's way to abort a response: the server closes the connection without
	// ending the body and logs nothing.
	panic(http.ErrAbortHandler)
}
