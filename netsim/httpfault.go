package netsim

import (
	"net/http"
	"strconv"
	"time"
)

// waitOrDone sleeps for d; it returns false when the request or the network ended first.
func (n *Network) waitOrDone(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		n.hits.abandoned.Add(1)
		return false
	case <-n.closing:
		return false
	}
}

// preFault applies the faults that come before an answer (Latency, Hang, HTTPStatus).
// It returns true when it has answered (or given up on) the request.
func (n *Network) preFault(w http.ResponseWriter, r *http.Request, f Fault, contentType string, errBody func(status int) []byte) bool {
	if !n.waitOrDone(r, f.Latency) {
		return true
	}
	if f.Hang {
		select {
		case <-r.Context().Done():
			n.hits.abandoned.Add(1)
		case <-n.closing:
		}
		return true
	}
	if f.HTTPStatus != 0 {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		if f.Location != "" {
			w.Header().Set("Location", f.Location)
		}
		n.write(w, r, Fault{}, f.HTTPStatus, contentType, errBody(f.HTTPStatus))
		return true
	}
	return false
}

// write sends body with status, applying the body faults of f (Malformed,
// OversizeBody, SlowBody).
func (n *Network) write(w http.ResponseWriter, r *http.Request, f Fault, status int, contentType string, body []byte) {
	if f.Malformed && len(body) > 1 {
		body = body[:len(body)/2]
	}
	total := int64(len(body))
	if f.OversizeBody > total {
		total = f.OversizeBody
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.FormatInt(total, 10))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	src := &paddedBody{body: body, total: total}
	if f.SlowBody <= 0 {
		src.writeTo(w, total)
		return
	}
	// Drip: byte by byte for small bodies, in at most 200 steps for large ones.
	steps := min(total, 200)
	if steps == 0 {
		return
	}
	chunk := (total + steps - 1) / steps
	pause := f.SlowBody / time.Duration(steps)
	fl, _ := w.(http.Flusher)
	for src.off < total {
		if !src.writeTo(w, chunk) {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		if src.off < total && !n.waitOrDone(r, pause) {
			return
		}
	}
}

// paddedBody is body followed by white space up to total bytes, produced lazily so
// that a huge OversizeBody costs no memory.
type paddedBody struct {
	body  []byte
	total int64
	off   int64
}

var padding = func() []byte {
	b := make([]byte, 32<<10)
	for i := range b {
		b[i] = ' '
		if i%128 == 127 {
			b[i] = '\n'
		}
	}
	return b
}()

// writeTo writes up to n more bytes; it returns false on a write error.
func (p *paddedBody) writeTo(w http.ResponseWriter, n int64) bool {
	end := min(p.off+n, p.total)
	for p.off < end {
		var b []byte
		if p.off < int64(len(p.body)) {
			b = p.body[p.off:min(end, int64(len(p.body)))]
		} else {
			b = padding[:min(end-p.off, int64(len(padding)))]
		}
		k, err := w.Write(b)
		p.off += int64(k)
		if err != nil {
			return false
		}
	}
	return true
}
