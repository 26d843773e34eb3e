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
	"syscall"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/stack"
)

func main() {
	stack.SetGC()
	fleet.SilenceDriverLog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	p := program{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	code := p.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
