package peppolnet

import "time"

// nopObserver listens to nothing.
type nopObserver struct{}

func (nopObserver) Upstream(string, string, time.Duration) {}
func (nopObserver) Cache(string, string)                   {}
