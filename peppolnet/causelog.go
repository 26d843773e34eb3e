package peppolnet

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/peppol/sml"
)

// causeLogWindow is how long a cause logged by causeLog stays quiet before it is logged
// again (with the number of repeats held back).
const causeLogWindow = 10 * time.Minute

// causeLogMax bounds the causes remembered; past it the memory starts afresh.
const causeLogMax = 64

// causeLog lets one log line through per cause and window, so that a cause every
// request meets (a resolver that answers NXDOMAIN for every name) is logged once, not
// once per request.
type causeLog struct {
	mu   sync.Mutex
	seen map[string]*causeSeen
}

type causeSeen struct {
	at   time.Time
	held int
}

func newCauseLog() *causeLog { return &causeLog{seen: map[string]*causeSeen{}} }

// allow reports whether the cause key is to be logged now, and how many repeats were
// held back since it last was.
func (c *causeLog) allow(key string, now time.Time) (bool, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.seen[key]
	if ok && now.Sub(s.at) < causeLogWindow {
		s.held++
		return false, 0
	}
	if !ok {
		if len(c.seen) >= causeLogMax {
			clear(c.seen)
		}
		s = &causeSeen{}
		c.seen[key] = s
	}
	held := s.held
	s.at, s.held = now, 0
	return true, held
}

// notFromZone is the level and the further attributes of the log line of an SML answer
// that is not from the SML zone (err matches sml.ErrNotFromZone): error level once per
// DNS server and cause and causeLogWindow, with the SML zone and the number of repeats
// held back since, and debug level for the repeats, so that a resolver answering
// NXDOMAIN for every name is reported once rather than once per request.
func (l *Registry) notFromZone(err error) (slog.Level, []slog.Attr) {
	var se *sml.Error
	var nz *sml.NotFromZoneError
	if !errors.As(err, &se) || !errors.As(err, &nz) {
		return slog.LevelWarn, nil
	}
	ok, held := l.causeLog.allow(se.Server+" "+nz.Error(), l.cfg.Now())
	if !ok {
		return slog.LevelDebug, nil
	}
	return slog.LevelError, []slog.Attr{slog.String("zone", nz.Zone), slog.Int("held_back", held)}
}
