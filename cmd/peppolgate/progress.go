package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/mirror"
)

// progressRedraw is how often, at most, a progress bar is redrawn.
const progressRedraw = 100 * time.Millisecond

// progressState is what a progress line shows: how many items (cards, rows) are done,
// out of how many, at what rate, and how long the rest takes.
type progressState struct {
	// Done is the number of items done, Base of them before this run (a resumed
	// check's rows), which the rate leaves out.
	Done, Base int64
	// Total is the number of items expected in all; 0 when unknown.
	Total int64
	// Frac is the share done when Total is unknown but the share is not (bytes of an
	// import read); negative when unknown too.
	Frac float64
	// Unit names the items, plural: "cards", "rows".
	Unit string
	// Skipped counts items left out (malformed cards); shown when not 0.
	Skipped int64
	// Elapsed is the time since this run started.
	Elapsed time.Duration
}

// progress reports a long run on w (stderr): a bar with rate and ETA redrawn in place
// on a terminal, at most every progressRedraw; otherwise, with log, a log line every
// progressEvery (CI, systemd, redirected output), and without, nothing.
type progress struct {
	mu        sync.Mutex
	w         io.Writer
	log       *slog.Logger
	logPrefix string
	tty       bool
	lastLog   time.Time // last log line (non-terminal)
	lastDraw  time.Time // last redraw (terminal)
	drawn     bool
}

// newProgress returns a progress reporter on w: a bar with bar, else log lines starting
// with logPrefix on log (none when log is nil).
func newProgress(w io.Writer, bar bool, log *slog.Logger, logPrefix string) *progress {
	return &progress{w: w, log: log, logPrefix: logPrefix, tty: bar, lastLog: time.Now()}
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

// show reports s, unless it reported less than progressRedraw (bar) or progressEvery
// (log lines) ago.
func (p *progress) show(s progressState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.tty {
		if p.drawn && now.Sub(p.lastDraw) < progressRedraw {
			return
		}
		p.lastDraw, p.drawn = now, true
		fmt.Fprintf(p.w, "\r%s\x1b[K", progressLine(s, true))
		return
	}
	if p.log != nil && now.Sub(p.lastLog) >= progressEvery {
		p.lastLog = now
		p.log.Info(p.logPrefix + progressLine(s, false))
	}
}

// done draws s, the final state, and ends the bar's line on a terminal; it writes
// nothing otherwise.
func (p *progress) done(s progressState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", progressLine(s, true))
	}
}

// importProgress returns the mirror.BuildOptions.Progress of an import whose source
// has total bytes (0 when unknown), read so far as read() says, reporting on p, and
// the function that returns the last state reported (for done).
func importProgress(p *progress, total int64, read func() int64) (update func(mirror.Progress), last func() progressState) {
	var mu sync.Mutex
	cur := progressState{Unit: "cards", Frac: -1}
	state := func(pr mirror.Progress) progressState {
		s := progressState{Done: int64(pr.Cards), Skipped: int64(pr.Skipped), Elapsed: pr.Elapsed, Unit: "cards", Frac: -1}
		if total > 0 && read != nil {
			s.Frac = min(float64(read())/float64(total), 1)
		}
		return s
	}
	update = func(pr mirror.Progress) {
		s := state(pr)
		mu.Lock()
		cur = s
		mu.Unlock()
		p.show(s)
	}
	last = func() progressState {
		mu.Lock()
		defer mu.Unlock()
		return cur
	}
	return update, last
}

// progressLine renders s: with bar a bar of the share done, then the share, the items
// done (of the total when known), the rate, the skipped ones, the ETA and the time
// elapsed: "[=====     ] 45% 1,234/2,742 rows, 500 rows/s, ETA 3s, 2s elapsed".
func progressLine(s progressState, bar bool) string {
	rate := 0.0
	if sec := s.Elapsed.Seconds(); sec > 0 {
		rate = float64(s.Done-s.Base) / sec
	}
	frac := s.Frac
	if s.Total > 0 {
		frac = min(float64(s.Done)/float64(s.Total), 1)
	}
	var b strings.Builder
	if bar && frac >= 0 {
		const width = 30
		n := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "] ")
	}
	if frac >= 0 {
		fmt.Fprintf(&b, "%3.0f%% ", frac*100)
	}
	b.WriteString(phrase.Grouped(s.Done, ","))
	if s.Total > 0 {
		b.WriteString("/" + phrase.Grouped(s.Total, ","))
	}
	fmt.Fprintf(&b, " %s, %s %s/s", s.Unit, phrase.Grouped(int64(rate), ","), s.Unit)
	if s.Skipped > 0 {
		fmt.Fprintf(&b, ", %s skipped", phrase.Grouped(s.Skipped, ","))
	}
	var eta time.Duration
	switch {
	case s.Total > 0 && rate > 0 && s.Done < s.Total:
		eta = time.Duration(float64(s.Total-s.Done) / rate * float64(time.Second))
	case s.Total == 0 && frac > 0.001 && frac < 1:
		eta = time.Duration(float64(s.Elapsed) * (1 - frac) / frac)
	}
	if eta > 0 {
		fmt.Fprintf(&b, ", ETA %s", eta.Round(time.Second))
	}
	fmt.Fprintf(&b, ", %s elapsed", s.Elapsed.Round(time.Second))
	return b.String()
}
