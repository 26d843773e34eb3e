package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// errNoMirror says the binary has no `mirror` command yet.
var errNoMirror = errors.New("peppolgate has no `mirror` command")

// buildGate builds cmd/peppolgate of the repository at repo into bin.
func buildGate(ctx context.Context, repo, bin string, logw io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/peppolgate")
	cmd.Dir = repo
	cmd.Stdout, cmd.Stderr = logw, logw
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/peppolgate in %s: %w", repo, err)
	}
	return nil
}

// checkMirrorCommand returns errNoMirror when bin does not know `mirror import`.
func checkMirrorCommand(ctx context.Context, bin string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "mirror", "import", "-h").CombinedOutput()
	if bytes.Contains(out, []byte(`unknown command "mirror"`)) || !bytes.Contains(out, []byte("-mirror")) {
		return fmt.Errorf("%w (`%s mirror import -h` says: %.300s)", errNoMirror, bin, strings.TrimSpace(string(out)))
	}
	return nil
}

// ensureExport writes the XML v3 export of src to path unless it is there already
// from the same generator (path+".fingerprint" holds src.fingerprint()), through a
// temporary file so a broken run leaves none.
func ensureExport(path string, src *source, gz bool, logw io.Writer) (time.Duration, error) {
	fp, err := src.fingerprint()
	if err != nil {
		return 0, err
	}
	fpPath := path + ".fingerprint"
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		if old, err := os.ReadFile(fpPath); err == nil && strings.TrimSpace(string(old)) == fp {
			fmt.Fprintf(logw, "bench-mirror: reusing %s (%s)\n", path, human(fi.Size()))
			return 0, nil
		}
		fmt.Fprintf(logw, "bench-mirror: %s is from another generator; writing it again\n", path)
	}
	fmt.Fprintf(logw, "bench-mirror: writing the export of %d cards to %s\n", src.cards, path)
	start := time.Now()
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = writeExport(w, src, gz)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = os.WriteFile(fpPath, []byte(fp+"\n"), 0o644)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("writing the export %s: %w", path, err)
	}
	return time.Since(start), nil
}

// gateImport is what `peppolgate mirror import` took.
type gateImport struct {
	took     time.Duration
	maxRSS   int64
	bytes    int64
	lastLine string
}

// importMirror runs `bin mirror import -mirror db export`, its output in logPath and
// its progress lines on logw.
func importMirror(ctx context.Context, cs *children, bin, db, export, logPath string, logw io.Writer, timeout time.Duration) (gateImport, error) {
	var res gateImport
	for _, p := range mirrorFiles(db) {
		if err := os.RemoveAll(p); err != nil {
			return res, err
		}
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return res, err
	}
	defer logf.Close()
	lines := &lineTee{file: logf, out: logw, prefix: "  import: "}
	cmd := exec.Command(bin, "mirror", "import", "-mirror", db, export)
	start := time.Now()
	c, err := cs.start("peppolgate mirror import", cmd, lines)
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("import still running after %v", timeout))
	defer cancel()
	err = c.wait(ctx)
	res.took = time.Since(start)
	lines.flush()
	res.lastLine = lines.last
	if err != nil {
		return res, fmt.Errorf("peppolgate mirror import: %w (log in %s)", err, logPath)
	}
	if res.maxRSS, err = c.maxRSS(); err != nil {
		return res, err
	}
	res.bytes, err = diskUsage(mirrorFiles(db)...)
	return res, err
}

// mirrorFiles are the paths the mirror at db may occupy (the database, its journal
// files, a build beside it).
func mirrorFiles(db string) []string {
	m, _ := filepath.Glob(db + "*")
	return m
}

// diskUsage is the size of the files and directory trees at paths.
func diskUsage(paths ...string) (int64, error) {
	var n int64
	for _, p := range paths {
		err := filepath.Walk(p, func(_ string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if fi.Mode().IsRegular() {
				n += fi.Size()
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// serveArgs are the arguments of `peppolgate serve` for the benchmark at now: the mirror
// at db answers every search, however long ago its data (as of dataAsOf) was exported,
// because the generated export carries a fixed date so that runs stay comparable and
// reuse it; the live Directory is a loopback port nobody listens on, so a search the
// mirror did not answer fails instead of leaving the machine.
func serveArgs(addr, db string, dataAsOf, now time.Time, directoryURL string) []string {
	maxAge := (max(now.Sub(dataAsOf), 0) + 24*time.Hour).Truncate(time.Hour).String()
	return []string{"serve", "-addr", addr, "-mirror", db, "-mirror-max-age", maxAge, "-mirror-hard-max-age", maxAge,
		"-networks", "production", "-directory-url", directoryURL, "-rate-limit", "off", "-log-level", "warn"}
}

// gateServer is a running `peppolgate serve -mirror`.
type gateServer struct {
	proc *child
	base string
}

// onlySMLUnready reports whether a /readyz answer is 503 only because an SML zone does
// not exist for the machine's resolver (its sml list has one that is not ok; /readyz is
// 503 only for noSuchZone, docs/INTERFACE.md §4.6): the benchmark searches the mirror,
// which needs no SML, and a sandbox's resolver may answer NXDOMAIN for every name. (A
// machine without any resolver keeps /readyz at 200: a timeout proves nothing.)
func onlySMLUnready(status int, body []byte) bool {
	var r struct {
		SML []struct {
			OK bool `json:"ok"`
		} `json:"sml"`
	}
	if status != http.StatusServiceUnavailable || json.Unmarshal(body, &r) != nil {
		return false
	}
	for _, z := range r.SML {
		if !z.OK {
			return true
		}
	}
	return false
}

// serveMirror starts `bin serve` on a free loopback port from the mirror at db, whose
// data is as of dataAsOf, and waits until /readyz answers 200.
func serveMirror(ctx context.Context, cs *children, bin, db string, dataAsOf time.Time, logPath string, readyTimeout time.Duration) (*gateServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	nowhere, err := freePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, serveArgs(addr, db, dataAsOf, time.Now(), "http://127.0.0.1:"+strconv.Itoa(nowhere))...)
	c, err := cs.start("peppolgate serve", cmd, logf)
	if err != nil {
		return nil, err
	}
	s := &gateServer{proc: c, base: "http://" + addr}
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(readyTimeout)
	var last string
	for {
		resp, err := client.Get(s.base + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || onlySMLUnready(resp.StatusCode, body) {
				return s, nil
			}
			last = resp.Status + ": " + strings.TrimSpace(string(body))
		} else {
			last = err.Error()
		}
		if c.exited() {
			return nil, fmt.Errorf("peppolgate serve exited: %v (log in %s)", c.err, logPath)
		}
		if time.Now().After(deadline) {
			c.stop(c.signal(), 10*time.Second)
			return nil, fmt.Errorf("peppolgate serve not ready after %v: last /readyz: %s (log in %s)", readyTimeout, last, logPath)
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// procStatus reads the VmRSS and VmHWM lines of /proc/<pid>/status, in bytes.
func procStatus(pid int) (rss, hwm int64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("/proc/%d/status: unexpected %q", pid, line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %q: %w", pid, line, err)
		}
		if k == "VmRSS" {
			rss = n * 1024
		} else {
			hwm = n * 1024
		}
	}
	if rss == 0 || hwm == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status: no VmRSS or VmHWM", pid)
	}
	return rss, hwm, nil
}

// lineTee writes everything to file and whole lines (split at '\n' or '\r') to out
// with a prefix, keeping the last non-empty line.
type lineTee struct {
	file   io.Writer
	out    io.Writer
	prefix string
	buf    []byte
	last   string
	shown  time.Time
}

// Write implements io.Writer.
func (t *lineTee) Write(p []byte) (int, error) {
	if _, err := t.file.Write(p); err != nil {
		return 0, err
	}
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexAny(t.buf, "\r\n")
		if i < 0 {
			break
		}
		t.emit(string(t.buf[:i]), t.buf[i] == '\n')
		t.buf = t.buf[i+1:]
	}
	return len(p), nil
}

// emit shows line unless it is a progress redraw ('\r') less than 5 s after the last
// shown one.
func (t *lineTee) emit(line string, newline bool) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	t.last = line
	if !newline && time.Since(t.shown) < 5*time.Second {
		return
	}
	t.shown = time.Now()
	fmt.Fprintln(t.out, t.prefix+line)
}

// flush emits a final unterminated line.
func (t *lineTee) flush() {
	if len(t.buf) > 0 {
		t.emit(string(t.buf), true)
		t.buf = nil
	}
}

// treePSS is the summed proportional set size of pid and its children, in bytes (for a
// PostgreSQL server: the postmaster and its backends, shared buffers counted once).
func treePSS(pid int) (int64, error) {
	pids := []int{pid}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The parent pid is the second field after the parenthesised command name.
		i := bytes.LastIndexByte(b, ')')
		if f := strings.Fields(string(b[i+1:])); i >= 0 && len(f) > 1 && f[1] == strconv.Itoa(pid) {
			pids = append(pids, p)
		}
	}
	var sum int64
	for _, p := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/smaps_rollup")
		if err != nil {
			if p == pid {
				return 0, err
			}
			continue // a backend that has just exited
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pss:"); ok {
				f := strings.Fields(v)
				if len(f) == 2 {
					n, err := strconv.ParseInt(f[0], 10, 64)
					if err != nil {
						return 0, fmt.Errorf("/proc/%d/smaps_rollup: %q: %w", p, line, err)
					}
					sum += n * 1024
				}
			}
		}
	}
	return sum, nil
}
