package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/mirror"
)

// progress reports an import: a bar with rate and ETA redrawn in place on a terminal,
// a log line every progressEvery otherwise (CI, systemd, redirected output).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	log      *slog.Logger
	tty      bool
	total    int64        // bytes expected, 0 when unknown
	read     func() int64 // bytes consumed so far
	last     time.Time    // last log line (non-terminal)
	drawn    bool
	lastLine mirror.Progress
}

// newProgress returns the progress reporter of an import whose source has total bytes
// (0 when unknown), read so far as read() says; with bar, a bar redrawn on w, else log
// lines.
func newProgress(w io.Writer, log *slog.Logger, total int64, read func() int64, bar bool) *progress {
	return &progress{w: w, log: log, tty: bar, total: total, read: read, last: time.Now()}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// update is mirror.BuildOptions.Progress.
func (p *progress) update(pr mirror.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastLine = pr
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(pr, true))
		p.drawn = true
		return
	}
	if time.Since(p.last) >= progressEvery {
		p.last = time.Now()
		p.log.Info("import progress: " + p.line(pr, false))
	}
}

// done ends the bar's line on a terminal.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}

// line renders pr: cards, rate, share of the input read, ETA.
func (p *progress) line(pr mirror.Progress, bar bool) string {
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Cards) / s
	}
	var b strings.Builder
	frac := -1.0
	if p.total > 0 && p.read != nil {
		frac = min(float64(p.read())/float64(p.total), 1)
	}
	if bar && frac >= 0 {
		const width = 30
		n := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "] ")
	}
	if frac >= 0 {
		fmt.Fprintf(&b, "%3.0f%% ", frac*100)
	}
	fmt.Fprintf(&b, "%s cards, %s cards/s", grouped(int64(pr.Cards)), grouped(int64(rate)))
	if pr.Skipped > 0 {
		fmt.Fprintf(&b, ", %s skipped", grouped(int64(pr.Skipped)))
	}
	if frac > 0.001 && frac < 1 {
		eta := time.Duration(float64(pr.Elapsed) * (1 - frac) / frac)
		fmt.Fprintf(&b, ", ETA %s", eta.Round(time.Second))
	}
	fmt.Fprintf(&b, ", %s elapsed", pr.Elapsed.Round(time.Second))
	return b.String()
}

// grouped writes n with thousands separators: 1234567 → "1,234,567".
func grouped(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + grouped(-n)
	}
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	return string(out)
}
