package netsim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// exportDo sends method url with the given headers, never following redirects, and
// returns the response with its body read (and the read error, for cut downloads).
func exportDo(t *testing.T, method, url string, hdr map[string]string) (*http.Response, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{DisableCompression: true},
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func TestExportRedirectAndLimit(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	for i := range DefaultExportLimit {
		resp, _, _ := exportDo(t, http.MethodGet, n.DirectoryURL()+ExportPath, nil)
		if resp.StatusCode != http.StatusFound {
			t.Fatalf("request %d: status %d, want 302", i+1, resp.StatusCode)
		}
		if loc := resp.Header.Get("Location"); loc != n.DirectoryURL()+ExportFilePath {
			t.Errorf("Location %q", loc)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "max-age=86400" {
			t.Errorf("Cache-Control %q", cc)
		}
	}
	resp, body, _ := exportDo(t, http.MethodGet, n.DirectoryURL()+ExportPath, nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "86400" || len(body) == 0 {
		t.Fatalf("4th request: %d Retry-After %q body %q, want 429 with Retry-After 86400", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// The file itself is not limited.
	if resp, _, _ := exportDo(t, http.MethodHead, n.DirectoryURL()+ExportFilePath, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("file after the limit: %d", resp.StatusCode)
	}
	h := n.Hits().Directory
	if h.ExportRedirects != 4 || h.ExportLimited != 1 || h.ExportDownloads != 1 || h.Other != 0 {
		t.Errorf("hits %+v, want 4 redirects, 1 limited, 1 download", h)
	}

	n.SetExportLimit(1) // also forgets the requests counted so far
	for i, want := range []int{http.StatusFound, http.StatusTooManyRequests} {
		if resp, _, _ := exportDo(t, http.MethodGet, n.DirectoryURL()+ExportPath, nil); resp.StatusCode != want {
			t.Errorf("limit 1, request %d: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	n.SetExportLimit(0)
	for i := range 5 {
		if resp, _, _ := exportDo(t, http.MethodGet, n.DirectoryURL()+ExportPath, nil); resp.StatusCode != http.StatusFound {
			t.Errorf("no limit, request %d: %d", i+1, resp.StatusCode)
		}
	}
	if resp, _, _ := exportDo(t, http.MethodPost, n.DirectoryURL()+ExportPath, nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

func TestExportFileDefault(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	resp, body, err := exportDo(t, http.MethodGet, n.DirectoryURL()+ExportFilePath, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d %v", resp.StatusCode, err)
	}
	x := parseExport(t, body)
	// Created when first served, like the real Directory's nightly export.
	created, err := time.Parse(time.RFC3339, x.Created)
	if err != nil || time.Since(created) > time.Minute || time.Since(created) < -time.Second {
		t.Errorf("creationdt %q, want about now", x.Created)
	}
	var want bytes.Buffer
	if err := writeDatasetExport(&want, n.Dataset(), created); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want.Bytes()) {
		t.Fatal("the served export is not the dataset's export")
	}
	cards := 0
	for _, p := range n.Dataset().Participants {
		if p.Card != nil {
			cards++
		}
	}
	if len(x.Cards) != cards || cards == 0 {
		t.Errorf("%d cards, dataset has %d", len(x.Cards), cards)
	}
	if lm := resp.Header.Get("Last-Modified"); lm != created.Format(http.TimeFormat) {
		t.Errorf("Last-Modified %q, want %q", lm, created.Format(http.TimeFormat))
	}
	if resp.Header.Get("ETag") == "" || resp.Header.Get("Content-Type") != "application/xml" {
		t.Errorf("headers %v", resp.Header)
	}
	head, hbody, _ := exportDo(t, http.MethodHead, n.DirectoryURL()+ExportFilePath, nil)
	if head.StatusCode != http.StatusOK || len(hbody) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
		t.Errorf("HEAD: %d, %d body bytes, Content-Length %q", head.StatusCode, len(hbody), head.Header.Get("Content-Length"))
	}
}

func TestExportConditionalAndRange(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	var buf bytes.Buffer
	if err := WriteExportXML(&buf, ExportConfig{Seed: 9, Cards: 300}); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	mod := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	n.SetExport(full, mod)
	url := n.DirectoryURL() + ExportFilePath
	resp, _, _ := exportDo(t, http.MethodGet, url, nil)
	etag, lastMod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if etag == "" || lastMod != mod.Format(http.TimeFormat) {
		t.Fatalf("ETag %q Last-Modified %q", etag, lastMod)
	}
	tests := []struct {
		name   string
		hdr    map[string]string
		status int
		body   []byte
	}{
		{"If-None-Match", map[string]string{"If-None-Match": etag}, http.StatusNotModified, nil},
		{"If-None-Match other", map[string]string{"If-None-Match": `"other"`}, http.StatusOK, full},
		{"If-Modified-Since", map[string]string{"If-Modified-Since": lastMod}, http.StatusNotModified, nil},
		{"If-Modified-Since earlier", map[string]string{"If-Modified-Since": mod.Add(-time.Hour).Format(http.TimeFormat)}, http.StatusOK, full},
		{"Range", map[string]string{"Range": "bytes=100-199"}, http.StatusPartialContent, full[100:200]},
		{"Range with If-Range", map[string]string{"Range": "bytes=1000-", "If-Range": etag}, http.StatusPartialContent, full[1000:]},
		{"If-Range stale", map[string]string{"Range": "bytes=1000-", "If-Range": `"stale"`}, http.StatusOK, full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body, err := exportDo(t, http.MethodGet, url, tt.hdr)
			if err != nil || resp.StatusCode != tt.status || !bytes.Equal(body, tt.body) {
				t.Errorf("status %d (err %v), %d bytes; want %d, %d bytes", resp.StatusCode, err, len(body), tt.status, len(tt.body))
			}
		})
	}

	// A new export gets a new ETag.
	n.SetExport(append(bytes.Clone(full), ' '), mod.Add(24*time.Hour))
	if resp, _, _ := exportDo(t, http.MethodGet, url, map[string]string{"If-None-Match": etag}); resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == etag {
		t.Errorf("after SetExport: %d ETag %q (old %q)", resp.StatusCode, resp.Header.Get("ETag"), etag)
	}
}

func TestExportCutAndResume(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	url := n.DirectoryURL() + ExportFilePath
	_, full, err := exportDo(t, http.MethodGet, url, nil)
	if err != nil || len(full) < 10_000 {
		t.Fatalf("full download: %d bytes, %v", len(full), err)
	}
	n.SetExportFault(ExportFault{CutAfter: 5000, Times: 1})
	resp, part, err := exportDo(t, http.MethodGet, url, nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(part) != 5000 {
		t.Fatalf("cut download: %d bytes, err %v; want 5000 and unexpected EOF", len(part), err)
	}
	etag := resp.Header.Get("ETag")
	resp, rest, err := exportDo(t, http.MethodGet, url, map[string]string{"Range": "bytes=" + strconv.Itoa(len(part)) + "-", "If-Range": etag})
	if err != nil || resp.StatusCode != http.StatusPartialContent {
		t.Fatalf("resume: %d %v", resp.StatusCode, err)
	}
	if cr := resp.Header.Get("Content-Range"); cr != "bytes 5000-"+strconv.Itoa(len(full)-1)+"/"+strconv.Itoa(len(full)) {
		t.Errorf("Content-Range %q", cr)
	}
	if !bytes.Equal(append(part, rest...), full) {
		t.Error("cut part + resumed rest differ from the full export")
	}
	if h := n.Hits().Directory; h.ExportDownloads != 3 {
		t.Errorf("%d downloads counted, want 3", h.ExportDownloads)
	}
}

func TestExportStatusFault(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	url := n.DirectoryURL() + ExportFilePath
	tests := []struct {
		name  string
		fault ExportFault
		want  []int
	}{
		{"twice", ExportFault{Status: http.StatusServiceUnavailable, Times: 2}, []int{503, 503, 200, 200}},
		{"once 429", ExportFault{Status: http.StatusTooManyRequests, Times: 1}, []int{429, 200}},
		{"until cleared", ExportFault{Status: http.StatusInternalServerError}, []int{500, 500, 500, 500}},
		{"cleared", ExportFault{}, []int{200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n.SetExportFault(tt.fault)
			for i, want := range tt.want {
				resp, _, _ := exportDo(t, http.MethodGet, url, nil)
				if resp.StatusCode != want {
					t.Errorf("request %d: %d, want %d", i+1, resp.StatusCode, want)
				}
				if want == 429 || want == 503 {
					if ra := resp.Header.Get("Retry-After"); ra != "86400" {
						t.Errorf("request %d: Retry-After %q", i+1, ra)
					}
				}
			}
		})
	}
}

func TestExportDirectoryFault(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	n.SetFault(DirectoryTarget(), Fault{HTTPStatus: http.StatusBadGateway})
	if resp, _, _ := exportDo(t, http.MethodGet, n.DirectoryURL()+ExportPath, nil); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("redirect under a Directory fault: %d, want 502", resp.StatusCode)
	}
}
