package stack

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target when GOGC is not set. peppolgate's live
// heap is small (the caches: tens of MB at most) while every request allocates a few
// KB, so Go's default of 100 collects many times a second under load; 400 trades a few
// tens of MB for about a tenth more throughput on cached answers (BENCHMARKS.md).
const GCPercent = 400

// SetGC sets the garbage collector's target to GCPercent unless the environment sets
// GOGC. The process serving peppolgate calls it once at start.
func SetGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
