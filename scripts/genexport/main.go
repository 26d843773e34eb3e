// Command genexport writes a synthetic Peppol Directory XML v3 export (netsim's
// generator, deterministic from -seed) for tests and benchmarks of the mirror:
//
//	go run ./scripts/genexport -cards 4000000 -seed 1 [-gzip] -o /path/export.xml[.gz]
//
// -o - writes to stdout. A progress line goes to stderr. A file is written under a
// temporary name and renamed when complete, so an interrupted run leaves no partial
// export behind.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genexport:", err)
		os.Exit(1)
	}
}

func run() error {
	cards := flag.Int("cards", 1000, "number of business cards")
	seed := flag.Int64("seed", 1, "generator seed: the same seed gives the same export")
	gz := flag.Bool("gzip", false, "gzip the output (implied by an -o ending in .gz)")
	level := flag.Int("level", gzip.BestSpeed, "gzip compression level (1 fastest … 9 smallest)")
	noDoc := flag.Bool("no-doc-types", false, "leave the document types out, like /export/businesscards-xml-no-doc-types")
	created := flag.String("created", "", "creationdt as RFC 3339 (default 2026-11-21T02:00:00Z)")
	out := flag.String("o", "", "output file, or - for stdout (required)")
	quiet := flag.Bool("q", false, "no progress line")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 || *cards < 0 {
		flag.Usage()
		return errors.New("need -o <file|-> and a non-negative -cards")
	}
	cfg := netsim.ExportConfig{Seed: *seed, Cards: *cards, NoDocTypes: *noDoc}
	if *created != "" {
		t, err := time.Parse(time.RFC3339, *created)
		if err != nil {
			return fmt.Errorf("-created: %w", err)
		}
		cfg.Created = t
	}
	if strings.HasSuffix(*out, ".gz") {
		*gz = true
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var dst io.Writer = os.Stdout
	var file *os.File
	if *out != "-" {
		f, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*.tmp")
		if err != nil {
			return err
		}
		file = f
		defer func() {
			if file != nil { // not renamed: remove the partial export
				file.Close()
				os.Remove(file.Name())
			}
		}()
		dst = f
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	var sink io.Writer = bw
	var zw *gzip.Writer
	if *gz {
		var err error
		if zw, err = gzip.NewWriterLevel(bw, *level); err != nil {
			return fmt.Errorf("-level: %w", err)
		}
		sink = zw
	}
	cw := &countingWriter{ctx: ctx, w: sink}

	start := time.Now()
	done := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		if *quiet {
			<-done
			return
		}
		progress(cw, *cards, start, done)
	}()
	err := netsim.WriteExportXML(cw, cfg)
	close(done)
	<-progressDone
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && file != nil {
		if err = file.Chmod(0o644); err == nil {
			err = file.Sync()
		}
		if err == nil {
			if err = file.Close(); err == nil {
				if err = os.Rename(file.Name(), *out); err == nil {
					file = nil
				}
			}
		}
	}
	if err != nil {
		return err
	}
	d := time.Since(start)
	if !*quiet {
		fmt.Fprintf(os.Stderr, "genexport: %d cards, %.1f MB of XML in %s (%.0f cards/s, %.1f MB/s)%s\n",
			cw.cards.Load(), float64(cw.n.Load())/1e6, d.Round(time.Millisecond),
			float64(cw.cards.Load())/d.Seconds(), float64(cw.n.Load())/1e6/d.Seconds(), target(*out))
	}
	return nil
}

func target(out string) string {
	if out == "-" {
		return ""
	}
	return " → " + out
}

// progress prints a status line every second until done: on one rewritten line when
// stderr is a terminal, as separate lines every 10 s otherwise.
func progress(cw *countingWriter, total int, start time.Time, done <-chan struct{}) {
	tty := false
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		tty = true
	}
	every := 10 * time.Second
	if tty {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			if tty {
				fmt.Fprint(os.Stderr, "\r\033[K")
			}
			return
		case <-t.C:
			n := cw.cards.Load()
			el := time.Since(start).Seconds()
			rate := float64(n) / el
			line := fmt.Sprintf("genexport: %d/%d cards (%.1f%%), %.1f MB, %.0f cards/s", n, total, 100*float64(n)/float64(max(total, 1)), float64(cw.n.Load())/1e6, rate)
			if rate > 0 {
				line += fmt.Sprintf(", ETA %s", (time.Duration(float64(int64(total)-n)/rate) * time.Second).Round(time.Second))
			}
			if tty {
				fmt.Fprint(os.Stderr, "\r\033[K"+line)
			} else {
				fmt.Fprintln(os.Stderr, line)
			}
		}
	}
}

// countingWriter counts bytes and finished cards of the XML and stops the export when
// ctx is done. The generator hands over whole cards, so a card's closing tag is never
// split between writes.
type countingWriter struct {
	ctx   context.Context
	w     io.Writer
	n     atomic.Int64
	cards atomic.Int64
}

var cardEnd = []byte("</businesscard>")

func (c *countingWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("interrupted: %w", err)
	}
	k, err := c.w.Write(p)
	c.n.Add(int64(k))
	c.cards.Add(int64(bytes.Count(p[:k], cardEnd)))
	return k, err
}
