package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/telemetry/otlptest"
	"github.com/peppolgate/peppolgate/netsim"
)

// TestTraces is issue 28's test of the traces (docs/DEPLOY.md, "Traces"): the real
// `serve` command, in process, over a simulated Peppol network (real DNS on loopback,
// real SMP and Directory HTTP servers), exporting to an in-process OTLP/HTTP receiver
// through the standard OTEL_* environment. One cold participant lookup, sent with a
// W3C traceparent, must come back as a trace that continues the caller's, with a
// server span named by its route and child spans for the SML, the SMPs, the Directory
// and the signature and chain checks, and its access log line must carry the trace id.
//
// The OpenTelemetry SDK reads the exporter's settings from the process environment
// itself, so the test sets them with t.Setenv (and so does not run in parallel).
func TestTraces(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	// Whatever the machine's environment says otherwise.
	for _, k := range []string{"OTEL_SERVICE_NAME", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED"} {
		t.Setenv(k, "")
	}
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")

	ds := netsim.Generate(netsim.DatasetConfig{Seed: 28, Participants: 60})
	sim, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	root, smpCA, apCA := sim.TrustAnchors()
	var pemBuf bytes.Buffer
	for _, der := range [][]byte{root, smpCA, apCA} {
		_ = pem.Encode(&pemBuf, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	caFile := filepath.Join(t.TempDir(), "netsim-ca.pem")
	if err := os.WriteFile(caFile, pemBuf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var id string
	for _, ids := range plainParticipants(ds) {
		id = ids[0]
		break
	}
	if id == "" {
		t.Fatal("the dataset has no participant with an SML record, a Directory card and clean services")
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stderr := &syncBuffer{}
	ready := make(chan string, 1)
	p := program{stdout: io.Discard, stderr: stderr, getenv: os.Getenv,
		listening: func(_ net.Addr, base string) { ready <- base }}
	done := make(chan int, 1)
	go func() {
		done <- p.run(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-network", "production", "-networks", "production",
			"-sml-zone", sim.Zone(), "-dns-server", sim.DNSAddr(), "-directory-url", sim.DirectoryURL(),
			"-allow-private-smp", "-trust-ca", caFile})
	}()
	var base string
	select {
	case base = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d before listening: %s", code, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve not listening after 60s: %s", stderr.String())
	}

	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		parent  = "00f067aa0ba902b7"
	)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/api/v1/participant/"+id, nil)
	req.Header.Set("Traceparent", "00-"+traceID+"-"+parent+"-01")
	req.Header.Set("Tracestate", "vendor=x")
	hc := &http.Client{Timeout: 60 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/participant/%s: %d %s", id, resp.StatusCode, body)
	}
	// /healthz makes no span.
	hresp, err := hc.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	hresp.Body.Close()
	if hresp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %d", hresp.StatusCode)
	}

	// A bulk check is one span, however many rows it has: its rows' upstream calls are
	// counted on it, not traced one by one (up to 10,000 rows would overflow the
	// exporter's queue).
	const checkTrace = "5bf92f3577b34da6a3ce929d0e0e4737"
	var rows []string
	for _, ids := range plainParticipants(ds) {
		if len(rows) < 5 {
			rows = append(rows, `"`+ids[0]+`"`)
		}
	}
	creq, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api/v1/check",
		strings.NewReader(`{"rows": [`+strings.Join(rows, ",")+`]}`))
	creq.Header.Set("Content-Type", "application/json")
	creq.Header.Set("Traceparent", "00-"+checkTrace+"-"+parent+"-01")
	cresp, err := hc.Do(creq)
	if err != nil {
		t.Fatal(err)
	}
	cbody, _ := io.ReadAll(cresp.Body)
	cresp.Body.Close()
	if cresp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/v1/check: %d %s", cresp.StatusCode, cbody)
	}

	// Shutdown flushes the spans still queued.
	stop()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not stop within 60s")
	}

	n, bad := recv.Requests()
	if n == 0 || len(bad) > 0 {
		t.Fatalf("the receiver got %d export requests, unreadable: %v", n, bad)
	}
	var trace, check []otlptest.Span
	for _, s := range recv.Spans() {
		if s.TraceID == traceID {
			trace = append(trace, s)
		}
		if s.TraceID == checkTrace {
			check = append(check, s)
		}
		if strings.Contains(s.Name, "healthz") || s.Attrs["http.route"] == "/healthz" {
			t.Errorf("span %q for /healthz; probes must make no spans", s.Name)
		}
	}
	if t.Failed() || len(trace) == 0 {
		t.Fatalf("no span of trace %s among %d received: %+v", traceID, len(recv.Spans()), recv.Spans())
	}
	if len(check) != 1 || check[0].Name != "POST /api/v1/check" || check[0].Attrs["peppolgate.check.rows"] != strconv.Itoa(len(rows)) ||
		check[0].Attrs["peppolgate.upstream_calls"] == "" || check[0].Attrs["peppolgate.upstream_calls"] == "0" {
		var got []string
		for _, s := range check {
			got = append(got, s.Name)
		}
		t.Errorf("bulk check of %d rows: %d spans %v (first's attributes %v); want the server span alone, with peppolgate.check.rows and peppolgate.upstream_calls",
			len(rows), len(check), got, func() map[string]string {
				if len(check) == 0 {
					return nil
				}
				return check[0].Attrs
			}())
	}
	byName := map[string][]otlptest.Span{}
	for _, s := range trace {
		byName[s.Name] = append(byName[s.Name], s)
		if strings.Contains(s.Name, id) || strings.Contains(s.Name, strings.ToLower(id)) {
			t.Errorf("span name %q holds the participant id", s.Name)
		}
	}
	names := func() []string {
		var out []string
		for _, s := range trace {
			out = append(out, s.Name+" ("+s.SpanID+" < "+s.ParentSpanID+")")
		}
		return out
	}
	one := func(name string) otlptest.Span {
		t.Helper()
		if len(byName[name]) == 0 {
			t.Fatalf("no span %q in the trace; got %v", name, names())
		}
		return byName[name][0]
	}

	srv := one("GET /api/v1/participant/{participantId}")
	if srv.ParentSpanID != parent || srv.Kind != "server" {
		t.Errorf("server span: parent %s, kind %s; want the traceparent's %s, server", srv.ParentSpanID, srv.Kind, parent)
	}
	for k, want := range map[string]string{"http.request.method": "GET", "http.route": "/api/v1/participant/{participantId}",
		"http.response.status_code": "200"} {
		if got := srv.Attrs[k]; got != want {
			t.Errorf("server span %s = %q, want %q", k, got, want)
		}
	}
	if a, ok := srv.Attrs["client.address"]; ok {
		t.Errorf("server span carries the raw client address %q", a)
	}
	for k, want := range map[string]string{"service.name": "peppolgate", "deployment.environment": "test"} {
		if got := srv.Resource[k]; got != want {
			t.Errorf("resource %s = %q, want %q", k, got, want)
		}
	}
	if srv.Resource["service.version"] == "" {
		t.Error("resource has no service.version")
	}
	// childOf checks that s hangs under the server span.
	childOf := func(s otlptest.Span) {
		t.Helper()
		if s.ParentSpanID != srv.SpanID {
			t.Errorf("span %q has parent %s, want the server span %s; trace: %v", s.Name, s.ParentSpanID, srv.SpanID, names())
		}
		if s.Error {
			t.Errorf("span %q has status Error (%s) on a clean lookup", s.Name, s.StatusMessage)
		}
	}

	smlSpan := one("SML NAPTR")
	childOf(smlSpan)
	for k, want := range map[string]string{"peppol.sml.zone": strings.TrimSuffix(sim.Zone(), "."), "dns.rcode": "NOERROR"} {
		if got := smlSpan.Attrs[k]; got != want {
			t.Errorf("SML span %s = %q, want %q", k, got, want)
		}
	}
	if smlSpan.Attrs["peppol.smp.host"] == "" {
		t.Errorf("SML span has no peppol.smp.host (the NAPTR's SMP): %v", smlSpan.Attrs)
	}

	smpSpans := byName["SMP GET"]
	if len(smpSpans) < 2 {
		t.Fatalf("%d SMP GET spans, want the ServiceGroup's and a ServiceMetadata's; trace: %v", len(smpSpans), names())
	}
	for _, s := range smpSpans {
		childOf(s)
		if s.Kind != "client" || s.Attrs["server.address"] == "" || s.Attrs["http.response.status_code"] != "200" ||
			s.Attrs["http.response.body.size"] == "" || s.Attrs["http.response.body.size"] == "0" {
			t.Errorf("SMP span %s: kind %s, attributes %v; want client with server.address, status 200 and the body's size", s.SpanID, s.Kind, s.Attrs)
		}
	}
	if smpSpans[0].Attrs["server.address"] != smlSpan.Attrs["peppol.smp.host"] {
		t.Errorf("SMP span's host %q is not the SML's answer %q", smpSpans[0].Attrs["server.address"], smlSpan.Attrs["peppol.smp.host"])
	}
	dir := one("Directory GET")
	childOf(dir)
	if dir.Attrs["http.response.status_code"] != "200" || dir.Attrs["server.address"] == "" {
		t.Errorf("Directory span attributes %v", dir.Attrs)
	}
	sig := one("SMP signature check")
	childOf(sig)
	if sig.Attrs["peppol.signature.status"] != "valid" {
		t.Errorf("signature span attributes %v; want peppol.signature.status valid", sig.Attrs)
	}
	chain := one("certificate chain check")
	childOf(chain)
	if chain.Attrs["peppol.certificate.role"] != "access point" || chain.Attrs["peppol.certificate.chain"] == "" {
		t.Errorf("chain span attributes %v", chain.Attrs)
	}

	// The OCSP responder's request hangs under the OCSP check, under a chain or
	// signature check.
	spanByID := map[string]otlptest.Span{}
	for _, s := range trace {
		spanByID[s.SpanID] = s
	}
	ocspOK := false
	for _, s := range byName["OCSP POST"] {
		check := spanByID[s.ParentSpanID]
		holder := spanByID[check.ParentSpanID]
		if check.Name == "OCSP check" && check.Attrs["peppol.ocsp.status"] == "good" &&
			(holder.Name == "certificate chain check" || holder.Name == "SMP signature check") && s.Attrs["http.response.status_code"] == "200" {
			ocspOK = true
		}
	}
	if !ocspOK {
		t.Errorf("no OCSP POST span with status 200 under an OCSP check (status good) under a chain or signature check; trace: %v", names())
	}

	// The access log line of the request carries the trace and the server span.
	found := false
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil || line["msg"] != "request" || !strings.Contains(line["path"].(string), "/participant/") {
			continue
		}
		found = true
		if line["trace_id"] != traceID || line["span_id"] != srv.SpanID {
			t.Errorf("access log line %s: want trace_id %s and span_id %s", sc.Text(), traceID, srv.SpanID)
		}
	}
	if !found {
		t.Errorf("no access log line for the lookup in:\n%s", tail(stderr.String(), 20))
	}
}

// TestTracesUsage checks that OTEL_* values peppolgate cannot use are usage errors
// (exit 2) saying how to fix them, before anything starts.
func TestTracesUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "http/protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318", "OTEL_TRACES_SAMPLER": "sometimes"}, "OTEL_TRACES_SAMPLER"},
		{map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, "between 0 and 1"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, "http(s) URL"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			// Bounded: a command that ignored the setting would serve until then.
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			var stdout, stderr syncBuffer
			p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(tt.env)}
			code := p.run(ctx, []string{"serve", "-network", "demo", "-addr", "127.0.0.1:0"})
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("env %v: exit %d, stderr %q; want 2 with %q", tt.env, code, stderr.String(), tt.want)
			}
		})
	}
}
