package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/peppolgate/peppolgate/stack"
)

// warmWorkers is how many warm-up requests are in flight at once: few, so the
// Directory limiter's queue (32 on the demo network) never fills.
const warmWorkers = 8

// warmResult says how the warm-up went.
type warmResult struct {
	sent    int
	dropped map[kind][]string // hot requests removed, with why
}

// warm sends every hot request once, so that the run measures cached answers, and
// checks the answers: hot lookups must answer 200 with the Directory name the dataset
// gives (else the server does not serve the dataset this program generated: an
// error), searches 200 with results, questions 200 with a known intent. Hot requests
// that fail a check are dropped from w, and reported; more than a tenth of a kind
// dropped is an error.
func warm(ctx context.Context, c *client, w *workload) (warmResult, error) {
	res := warmResult{dropped: map[kind][]string{}}
	for _, k := range []kind{lookupHot, searchName, searchVAT, askJSON} {
		pool := w.hot[k]
		why := make([]string, len(pool))
		var mismatch error
		var mu sync.Mutex
		jobs := make(chan int)
		var wg sync.WaitGroup
		for range warmWorkers {
			wg.Go(func() {
				for i := range jobs {
					reason, err := checkWarm(ctx, c, w, pool[i])
					mu.Lock()
					why[i] = reason
					if err != nil && mismatch == nil {
						mismatch = err
					}
					mu.Unlock()
				}
			})
		}
		for i := range pool {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		res.sent += len(pool)
		if mismatch != nil {
			return res, mismatch
		}
		var kept []request
		for i, rq := range pool {
			if why[i] == "" {
				kept = append(kept, rq)
			} else {
				res.dropped[k] = append(res.dropped[k], why[i])
			}
		}
		if len(kept) < len(pool)*9/10 {
			return res, fmt.Errorf("warm-up: %d of %d %s requests failed, e.g. %s", len(pool)-len(kept), len(pool), k, res.dropped[k][0])
		}
		w.hot[k] = kept
		if k == askJSON {
			// The streamed questions are the same questions.
			w.hot[askSSE] = w.hot[askSSE][:0]
			for _, rq := range kept {
				rq.kind = askSSE
				w.hot[askSSE] = append(w.hot[askSSE], rq)
			}
		}
	}
	return res, nil
}

// checkWarm sends rq and returns why it cannot stay in the hot pool ("" when it can),
// and an error when the answer contradicts the dataset.
func checkWarm(ctx context.Context, c *client, w *workload, rq request) (string, error) {
	method, reqBody := http.MethodGet, io.Reader(http.NoBody)
	if rq.body != "" {
		method, reqBody = http.MethodPost, strings.NewReader(rq.body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+rq.path, reqBody)
	if err != nil {
		return "", err
	}
	if rq.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("warm-up %s %s: %w", req.Method, rq.path, err)
	}
	defer resp.Body.Close()
	var body struct {
		Directory *struct {
			Name string `json:"name"`
		} `json:"directory"`
		TotalCount *int   `json:"totalCount"`
		Intent     string `json:"intent"`
		Error      *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Sprintf("%s: %d, body not JSON", rq.path, resp.StatusCode), nil
	}
	if resp.StatusCode != http.StatusOK {
		code := ""
		if body.Error != nil {
			code = body.Error.Code
		}
		return fmt.Sprintf("%s %s: %d %s", req.Method, rq.path, resp.StatusCode, code), nil
	}
	switch rq.kind {
	case lookupHot:
		want := w.names[rq.id]
		if want != "" && (body.Directory == nil || body.Directory.Name != want) {
			got := "(no card)"
			if body.Directory != nil {
				got = body.Directory.Name
			}
			return "", fmt.Errorf("warm-up: %s is %q on the server but %q in netsim.Generate(seed %d, %d participants, %s): the demo network changed; update scripts/load-mix/workload.go",
				rq.id, got, want, stack.DemoSeed, stack.DemoParticipants, stack.DemoNow().Format("2006-01-02"))
		}
	case searchName, searchVAT:
		if body.TotalCount == nil || *body.TotalCount == 0 {
			return rq.path + ": no results", nil
		}
	case askJSON:
		if body.Intent == "" || body.Intent == "unknown" {
			return rq.body + ": intent " + body.Intent, nil
		}
	}
	return "", nil
}
