// Command peppolgate serves the Peppol participant lookup and directory search API.
//
//	peppolgate [serve] [flags]
//
// Every flag can also be set with an environment variable PEPPOLGATE_<NAME> (upper-case,
// '-' becomes '_'); a flag on the command line beats the variable. Run with -h for the
// list. Exit status: 0 after a clean shutdown or -h, 1 when the service cannot start or
// stop cleanly (e.g. the port is in use), 2 for a bad flag or value.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// defaultGCPercent is the garbage collector's target when GOGC is not set. peppolgate's
// live heap is small (the caches: tens of MB at most) while every request allocates a
// few KB, so Go's default of 100 collects many times a second under load; 400 trades a
// few tens of MB for about a tenth more throughput on cached answers (BENCHMARKS.md).
const defaultGCPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	p := program{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	code := p.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
