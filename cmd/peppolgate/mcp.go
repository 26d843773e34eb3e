package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"
	"sync"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/peppolgate/peppolgate/tools"
)

// serveMCP speaks MCP over stdin and stdout until stdin closes or ctx is done. stdout
// carries only MCP messages; logs go to stderr. Lines are checked before mcp-go reads
// them (filterStdio) and its errors cleaned as they are written (stdioOut), as on
// HTTP (docs/INTERFACE.md §4.5).
func (p program) serveMCP(ctx context.Context, cfg config) error {
	logger := slog.New(slog.NewJSONHandler(p.stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	up, err := connect(ctx, cfg, logger, nil, nil, nil)
	if err != nil {
		return err
	}
	defer up.closeAll()
	defer p.startKeepMirror(ctx, cfg, up, nil, logger)()
	m, err := tools.NewMCPServer(tools.MCPConfig{Networks: up.Networks, Version: version(), Logger: logger})
	if err != nil {
		return err
	}
	logger.Info("serving MCP on stdin/stdout", "network", cfg.network, "networks", strings.Join(cfg.networks, ","), "sml_zone", up.Zone,
		"directory", up.DirectoryURL, "version", version())
	stdio := mcpserver.NewStdioServer(m)
	stdio.SetErrorLogger(log.New(p.stderr, "peppolgate mcp: ", 0))
	out := &stdioOut{w: p.stdout}
	in, inW := io.Pipe()
	defer in.Close()
	go func() { inW.CloseWithError(filterStdio(p.stdin, inW, out, logger)) }()
	err = stdio.Listen(ctx, in, out)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		logger.Info("stopped")
		return nil
	}
	return fmt.Errorf("serving MCP on stdio: %w", err)
}

// maxStdioLine is the longest line `peppolgate mcp` reads: one MCP message, as a POST
// /mcp body.
const maxStdioLine = tools.MaxMessageSize

// filterStdio copies the MCP messages of src, one a line, to dst (mcp-go's input) and
// answers on out itself what mcp-go would mishandle (tools.CheckMessage): a batch, a
// null id, an empty method, a prompt's over-long argument. A line longer than
// maxStdioLine is skipped as it arrives, never held whole, and answered with a
// JSON-RPC invalid-request error; the server goes on with the next line (a client
// that sent one oversized message keeps its session). Blank lines are ignored. It
// returns nil at the end of src, else the error that ended the copy.
func filterStdio(src io.Reader, dst io.Writer, out *stdioOut, log *slog.Logger) error {
	br := bufio.NewReaderSize(src, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > maxStdioLine+1 { // +1: the newline
			n := int64(len(line) + len(chunk))
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				n += int64(len(chunk))
			}
			log.Warn("MCP message longer than the limit skipped", "bytes", n, "limit", maxStdioLine)
			e := &tools.WireError{Code: tools.RPCInvalidRequest, Message: fmt.Sprintf(
				"the message has %d bytes, more than %d (1 MiB), the most one MCP message may have; it was skipped: send smaller messages", n, maxStdioLine)}
			if werr := out.writeLine(e.Response()); werr != nil {
				return werr
			}
			line = line[:0]
		} else {
			line = append(line, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if len(bytes.TrimSpace(line)) > 0 {
				if e := tools.CheckMessage(line); e != nil {
					if werr := out.writeLine(e.Response()); werr != nil {
						return werr
					}
				} else {
					if line[len(line)-1] != '\n' {
						line = append(line, '\n')
					}
					if _, werr := dst.Write(line); werr != nil {
						return werr
					}
				}
			}
			line = line[:0]
			if cap(line) > 64<<10 {
				line = nil // do not keep a large message's buffer
			}
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// stdioOut is stdout shared by mcp-go and filterStdio, one whole message a write.
// mcp-go's answers pass through tools.CleanResponse (no Go type names in errors,
// messages cut short).
type stdioOut struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes one message of mcp-go's (it writes each with one call).
func (o *stdioOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.w.Write(tools.CleanResponse(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeLine writes one message of filterStdio's, with its newline.
func (o *stdioOut) writeLine(msg []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := o.w.Write(append(msg, '\n'))
	return err
}
