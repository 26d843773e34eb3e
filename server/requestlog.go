package server

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// RequestLog says which successful requests the access log writes at info level; a
// failure (status 400 and up) is always written, at info (warn from 500). The others
// are written at debug level. The zero value writes every request.
type RequestLog struct {
	// SuccessEvery: 0 or 1 writes every successful request, N > 1 one in N, and a
	// negative value none.
	SuccessEvery int
}

// ParseRequestLog reads a -log-requests value: "all" (or ""), every request; "errors",
// only failures; "sample:N" (N ≥ 1), failures and one success in N. It returns an
// error naming the forms for anything else.
func ParseRequestLog(s string) (RequestLog, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); {
	case v == "" || v == "all":
		return RequestLog{}, nil
	case v == "errors":
		return RequestLog{SuccessEvery: -1}, nil
	case strings.HasPrefix(v, "sample:"):
		n, err := strconv.Atoi(strings.TrimPrefix(v, "sample:"))
		if err == nil && n >= 1 {
			return RequestLog{SuccessEvery: n}, nil
		}
	}
	return RequestLog{}, fmt.Errorf("%q is not one of all, errors or sample:N (N a whole number from 1, e.g. sample:100)", s)
}

// String is the -log-requests form of l.
func (l RequestLog) String() string {
	switch {
	case l.SuccessEvery < 0:
		return "errors"
	case l.SuccessEvery <= 1:
		return "all"
	}
	return "sample:" + strconv.Itoa(l.SuccessEvery)
}

// successSampler counts successful requests for RequestLog's sampling.
type successSampler struct {
	every int
	n     atomic.Uint64
}

// logged reports whether the next successful request is written at info level.
func (s *successSampler) logged() bool {
	switch {
	case s.every < 0:
		return false
	case s.every <= 1:
		return true
	}
	return (s.n.Add(1)-1)%uint64(s.every) == 0
}
