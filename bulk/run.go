package bulk

import (
	"context"
	"errors"
	"io"
	"time"
)

// DefaultWindow is how many rows Run has read but not yet written, at most.
const DefaultWindow = 4096

// RunOptions tune Run.
type RunOptions struct {
	// Ordered writes results in input order (a CSV answer, a resumable file) instead
	// of as they finish.
	Ordered bool
	// Window is how many rows may be read and not yet written; 0 means DefaultWindow.
	// It bounds Run's memory whatever the input's length, and how far an ordered run
	// gets ahead of its slowest row.
	Window int
	// Skip, when set, is asked for each row read: rows it returns true for are neither
	// checked nor written nor counted (a resumed run's rows done before).
	Skip func(index int) bool
	// Written, when set, is called after each result is written (progress).
	Written func(Result)
}

// item is a row's way to the writer: its result, or the mark that it was skipped.
type item struct {
	r    Result
	skip bool
}

// Run reads rows from next until io.EOF, checks them with cfg and writes each result
// to w, then calls w.Close with the summary. next must number its rows 0, 1, 2, … in
// Row.Index, as Reader.Next does. A row next cannot read (a non-fatal *ReadError) is
// written as an invalid row saying why. It returns the summary and the first of: a
// w's error, a fatal error from next, ctx's error when cut short (w is not closed then;
// a next blocked reading, e.g. a terminal, is left to return on its own).
func Run(ctx context.Context, cfg Config, next func() (Row, error), w Writer, opts RunOptions) (Summary, error) {
	start := time.Now()
	var sum Summary
	window := opts.Window
	if window <= 0 {
		window = DefaultWindow
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, window)
	rows := make(chan Row)
	results := make(chan Result)
	direct := make(chan item)
	readErr := make(chan error, 1)
	checkErr := make(chan error, 1)
	go func() { checkErr <- Check(ctx, cfg, rows, results) }()
	go func() {
		defer close(rows)
		defer close(direct)
		readErr <- feed(ctx, next, slots, rows, direct, opts.Skip)
	}()

	var werr error
	out := func(it item) {
		if !it.skip {
			if werr == nil {
				if werr = w.Write(it.r); werr != nil {
					cancel()
				}
			}
			sum.Add(it.r)
			if opts.Written != nil {
				opts.Written(it.r)
			}
		}
		<-slots
	}
	pending := map[int]item{}
	nextOut := 0
	emit := func(it item) {
		if !opts.Ordered {
			out(it)
			return
		}
		pending[it.r.Index] = it
		for {
			got, ok := pending[nextOut]
			if !ok {
				return
			}
			delete(pending, nextOut)
			nextOut++
			out(got)
		}
	}
	for results != nil || direct != nil {
		select {
		case <-ctx.Done():
			// next may be blocked reading (a pipe, a terminal): do not wait for it.
			sum.SetElapsed(time.Since(start))
			<-checkErr
			if werr != nil {
				return sum, werr
			}
			return sum, ctx.Err()
		case r, ok := <-results:
			if !ok {
				results = nil
				continue
			}
			emit(item{r: r})
		case it, ok := <-direct:
			if !ok {
				direct = nil
				continue
			}
			emit(it)
		}
	}
	sum.SetElapsed(time.Since(start))
	rerr, cerr := <-readErr, <-checkErr
	switch {
	case werr != nil:
		return sum, werr
	case rerr != nil:
		return sum, rerr
	case cerr != nil:
		return sum, cerr
	case len(pending) > 0:
		return sum, errors.New("bulk: rows were not numbered 0, 1, 2, …")
	}
	return sum, w.Close(sum)
}

// feed reads rows until io.EOF, taking a window slot for each: checkable rows go to
// rows, unreadable and skipped ones straight to direct.
func feed(ctx context.Context, next func() (Row, error), slots chan<- struct{}, rows chan<- Row, direct chan<- item, skip func(int) bool) error {
	for {
		row, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var re *ReadError
		if err != nil && (!errors.As(err, &re) || re.Fatal) {
			return err
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		var it item
		switch {
		case skip != nil && skip(row.Index):
			it = item{r: Result{Index: row.Index}, skip: true}
		case re != nil:
			it = item{r: Result{Index: row.Index, Input: row.Input, Status: Invalid,
				Error: &RowError{Code: codeUnreadable, Message: "the row could not be read: " + re.Error()}}}
		default:
			select {
			case rows <- row:
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		select {
		case direct <- it:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
