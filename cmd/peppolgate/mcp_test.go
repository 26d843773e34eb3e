package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime"
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

// stdioPeer runs 'peppolgate mcp -network demo' in-process and speaks raw lines to it.
type stdioPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan int
}

func startStdio(t *testing.T) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	p := program{stdin: inR, stdout: outW, stderr: &stderr, getenv: envMap(nil)}
	peer := &stdioPeer{t: t, in: inW, lines: make(chan string, 16), done: make(chan int, 1)}
	go func() {
		code := p.run(t.Context(), []string{"mcp", "-network", "demo"})
		outW.Close()
		peer.done <- code
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			peer.lines <- sc.Text()
		}
		close(peer.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case code := <-peer.done:
			if code != 0 {
				t.Errorf("exit %d; stderr %s", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("no exit 30 s after stdin closed")
		}
	})
	return peer
}

// send writes one line.
func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// answer reads the next line the server writes, as a JSON-RPC answer.
func (p *stdioPeer) answer() (id string, result json.RawMessage, code int, message string) {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("stdout closed")
		}
		var a struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			p.t.Fatalf("stdout line %.200q: %v", line, err)
		}
		if a.Error != nil {
			return string(a.ID), nil, a.Error.Code, a.Error.Message
		}
		return string(a.ID), a.Result, 0, ""
	case <-time.After(30 * time.Second):
		p.t.Fatal("no answer within 30 s")
	}
	return
}

// TestMCPStdioWire: on stdio, a batch, a line over 1 MiB, a null id and params of the
// wrong type are answered with clean JSON-RPC errors (-32600, -32602), and the server
// goes on serving the next line.
func TestMCPStdioWire(t *testing.T) {
	t.Parallel()
	p := startStdio(t)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if id, res, code, msg := p.answer(); id != "1" || res == nil {
		t.Fatalf("initialize: id %s, error %d %s", id, code, msg)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct {
		name, line string
		code       int
		mention    string
	}{
		{"batch", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, "batch"},
		{"over 1 MiB", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("x", 3<<20) + `"}}}`, -32600, "1 MiB"},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{"method empty", `{"jsonrpc":"2.0","id":4,"method":""}`, -32600, "method"},
		{"cursor a number", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":5}}`, -32602, "params.cursor"},
		{"prompt argument 900 KB", `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"check_invoice_recipient","arguments":{"company":"` + strings.Repeat("x", 900_000) + `"}}}`, -32602, "company"},
	} {
		p.send(tc.line)
		_, _, code, msg := p.answer()
		if code != tc.code || !strings.Contains(msg, tc.mention) || len(msg) > 300 {
			t.Errorf("%s: error %d %.300q, want %d mentioning %q", tc.name, code, msg, tc.code, tc.mention)
		}
		for _, leak := range []string{"json:", "Go ", "mcp.", "unmarshal"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: message %q shows %q", tc.name, msg, leak)
			}
		}
	}
	p.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if id, res, code, msg := p.answer(); id != "9" || res == nil {
		t.Errorf("ping after the refusals: id %s, error %d %s", id, code, msg)
	}
}

// TestMCPStdioLongLineMemory: a 50 MB line on stdio is skipped as it arrives (an
// error answer), not buffered whole: the process allocates less than 16 MiB meanwhile
// (reading it whole costs more than 100 MB). Not parallel: it measures allocations.
func TestMCPStdioLongLineMemory(t *testing.T) {
	p := startStdio(t)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if id, res, _, _ := p.answer(); id != "1" || res == nil {
		t.Fatal("ping")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	if _, err := io.WriteString(p.in, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"`); err != nil {
		t.Fatal(err)
	}
	for range (50 << 20) / len(chunk) {
		if _, err := p.in.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	p.send(`"}}}`)
	_, _, code, msg := p.answer()
	runtime.ReadMemStats(&after)
	if code != -32600 {
		t.Errorf("a 50 MB line: error %d %q, want -32600", code, msg)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
		t.Errorf("reading a 50 MB line allocated %d MiB, want under 16 MiB", grown>>20)
	}
}
