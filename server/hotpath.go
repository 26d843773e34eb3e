package server

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/peppolgate/peppolgate/internal/query"
)

// hotPath holds the tricks that make a cached answer cheap to serve, and nothing else:
// each is kept because a benchmark still shows what it saves next to the plain way.
// The numbers below are medians of 20 interleaved runs of BenchmarkCachedParticipant
// and BenchmarkCachedSearch with and without the trick, ±15 % on the shared 2-core
// machine; BenchmarkHotPath measures each trick on its own (BENCHMARKS.md, "Issue 16:
// hot-path tricks"). Handlers use its methods rather than repeating a trick:
//
//   - sharedBody remembers the JSON of the answers the registry shares from its cache;
//   - setLength puts Content-Length in the header map only where net/http would not;
//   - queryValue reads one query parameter without building the map of all of them.
//
// A trick that stops paying for itself goes, with its numbers in BENCHMARKS.md. The
// zero value is ready; it is safe for concurrent use.
type hotPath struct {
	mu sync.Mutex
	// bodies maps a shared answer, its network and variant to its encoded JSON; at
	// most maxMemoBodies entries.
	bodies map[memoKey][]byte
}

// maxMemoBodies bounds hotPath's remembered bodies; when they are that many it starts
// afresh, which costs one encoding per answer still in use.
const maxMemoBodies = 4096

// memoKey is a shared answer (by pointer identity), the network it is marked with, and
// the variant of the request its body depends on besides (a services answer's docType,
// which decides what its verdict is about).
type memoKey struct {
	v       any
	network string
	variant string
}

// sharedBody returns the JSON (encodeJSON) of mark(), where v is an answer the registry
// shares from its cache (a pointer never modified once returned) and mark makes the copy
// of it that says network ("" for unnamed) and is shaped by variant (what else of the
// request the body depends on, e.g. the docType a services verdict is about; "" for
// nothing). The encoding is remembered per answer, network and variant, and mark is
// called only when there is none.
//
// Saves the copy and the JSON encoding of a cached answer on every request, for a map
// read under a mutex (23 ns): a cached participant lookup 6.0 → 4.8 µs, 29 → 27
// allocations, 3.2 → 2.8 KiB; a cached search of 20 hits 12.5 → 7.1 µs, 33 → 31
// allocations, 7.7 → 5.4 KiB.
func (h *hotPath) sharedBody(v any, network, variant string, mark func() any) ([]byte, error) {
	key := memoKey{v: v, network: network, variant: variant}
	h.mu.Lock()
	b, ok := h.bodies[key]
	h.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := encodeJSON(mark())
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.bodies == nil || len(h.bodies) >= maxMemoBodies {
		h.bodies = make(map[memoKey][]byte)
	}
	h.bodies[key] = b
	h.mu.Unlock()
	return b, nil
}

// netHTTPBufferedBody is how much of a body net/http buffers before it must choose
// between Content-Length and chunked encoding (bufferBeforeChunkingSize in net/http).
const netHTTPBufferedBody = 2048

// setLength sets Content-Length n in hdr for a body of n bytes written in one piece
// when the handler ends (head: the request is a HEAD, and the body is not written),
// where net/http would not set it itself: for bodies over netHTTPBufferedBody (they
// would go out chunked) and for HEAD. net/http gives a shorter body its Content-Length
// on its own, outside the header map, so every answer still carries one.
//
// Saves one header-map entry on short answers: a REST answer has 8 headers without it,
// as many as Go's smallest map holds, and a ninth makes the map grow, and the copy
// net/http takes at WriteHeader with it: a cached participant lookup (400 bytes) 6.6 →
// 4.8 µs, 34 → 27 allocations, 3.9 → 2.8 KiB. Over loopback (BenchmarkLoad, client
// included) a short cached search costs 104 → 97 allocations, 8.9 → 7.7 KiB.
func (h *hotPath) setLength(hdr http.Header, n int, head bool) {
	if n > netHTTPBufferedBody || head {
		hdr.Set("Content-Length", strconv.Itoa(n))
	}
}

// queryValue returns the first value of key in rawQuery, and whether key is there:
// query.Value, the one reader of the API and the pages (a ';' is an ordinary
// character; a value that is not valid percent-encoding is an invalid_request error,
// not a missing parameter).
//
// Saves building the map of every parameter, which r.URL.Query() does on each call,
// for each parameter read: a cached search reads q, country and network, 8.4 → 7.1 µs,
// 37 → 31 allocations (the three reads alone: 567 → 100 ns, 6 → 0 allocations).
func (h *hotPath) queryValue(rawQuery, key string) (string, bool, error) {
	return query.Value(rawQuery, key)
}
