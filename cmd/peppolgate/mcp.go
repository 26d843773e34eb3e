package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/peppolgate/peppolgate/tools"
)

// serveMCP speaks MCP over stdin and stdout until stdin closes or ctx is done. stdout
// carries only MCP messages; logs go to stderr.
func (p program) serveMCP(ctx context.Context, cfg config) error {
	logger := slog.New(slog.NewJSONHandler(p.stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	up, err := connect(ctx, cfg, logger, nil)
	if err != nil {
		return err
	}
	defer up.closeAll()
	defer p.startKeepMirror(ctx, cfg, up, logger)()
	m, err := tools.NewMCPServer(tools.MCPConfig{Networks: up.Networks, Version: version(), Logger: logger})
	if err != nil {
		return err
	}
	logger.Info("serving MCP on stdin/stdout", "network", cfg.network, "networks", strings.Join(cfg.networks, ","), "sml_zone", up.Zone,
		"directory", up.DirectoryURL, "version", version())
	stdio := mcpserver.NewStdioServer(m)
	stdio.SetErrorLogger(log.New(p.stderr, "peppolgate mcp: ", 0))
	err = stdio.Listen(ctx, p.stdin, p.stdout)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		logger.Info("stopped")
		return nil
	}
	return fmt.Errorf("serving MCP on stdio: %w", err)
}
