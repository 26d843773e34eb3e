package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// TestMCPStdio runs 'peppolgate mcp -network demo' in-process with pipes for stdin
// and stdout, talks to it with mcp-go's stdio client, and checks that stdout carries
// nothing but MCP messages, that logs go to stderr, and that closing stdin ends it
// cleanly.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	inR, inW := io.Pipe()   // client → server stdin
	outR, outW := io.Pipe() // server stdout → client
	var stderr syncBuffer
	// Every line the server writes to stdout passes through here on its way to the
	// client, so the test sees whether anything but JSON-RPC appeared.
	tapR, tapW := io.Pipe()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
			if _, err := tapW.Write(append(sc.Bytes(), '\n')); err != nil {
				break
			}
		}
		close(lines)
		tapW.Close()
	}()

	p := program{stdin: inR, stdout: outW, stderr: &stderr, getenv: envMap(nil)}
	done := make(chan int, 1)
	go func() {
		code := p.run(ctx, []string{"mcp", "-network", "demo"})
		outW.Close()
		done <- code
	}()

	c := client.NewClient(transport.NewIO(tapR, inW, nil))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var ini mcp.InitializeRequest
	ini.Params.ClientInfo = mcp.Implementation{Name: "stdio-test", Version: "0"}
	ini.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	res, err := c.Initialize(ctx, ini)
	if err != nil {
		t.Fatalf("initialize: %v; stderr: %s", err, stderr.String())
	}
	if res.ServerInfo.Name != "peppolgate" || !strings.HasPrefix(res.ServerInfo.Version, "dev") {
		t.Errorf("server info %+v", res.ServerInfo)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 5 {
		t.Fatalf("tools/list: %v %v", list, err)
	}
	var call mcp.CallToolRequest
	call.Params.Name = "lookup_participant"
	call.Params.Arguments = map[string]any{"participantId": netsim.KnownBelgian}
	r, err := c.CallTool(ctx, call)
	if err != nil || r.IsError {
		t.Fatalf("lookup: %v %+v", err, r)
	}
	b, _ := json.Marshal(r.StructuredContent)
	var part registry.Participant
	if err := json.Unmarshal(b, &part); err != nil || part.ParticipantID != netsim.KnownBelgian || part.SMP == nil || part.Directory == nil {
		t.Errorf("lookup: %s", b)
	}

	// Closing stdin ends the server with status 0.
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, want 0; stderr %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit 30s after stdin closed")
	}
	c.Close()
	for line := range lines {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout carries a line that is not JSON-RPC: %q", line)
		}
	}
	if log := stderr.String(); !strings.Contains(log, "serving MCP on stdin/stdout") || strings.Contains(log, "curl -s") {
		t.Errorf("stderr: %s", log)
	}
}

func TestMCPCommandFlags(t *testing.T) {
	t.Parallel()
	var stdout, stderr syncBuffer
	p := program{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: envMap(nil)}
	// The HTTP flags belong to serve.
	if code := p.run(t.Context(), []string{"mcp", "-addr", ":9"}); code != 2 || !strings.Contains(stderr.String(), "-addr") {
		t.Errorf("mcp -addr: exit %d, stderr %s", code, stderr.String())
	}
}
