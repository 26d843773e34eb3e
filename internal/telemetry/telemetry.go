// Package telemetry turns OpenTelemetry tracing on from the standard OTEL_* environment
// and holds the few helpers the other packages share to make spans: an HTTP client
// wrapper for upstream calls, a log handler that puts the trace id into every log line
// of a traced request, and the recording of a failure on a span (docs/ARCHITECTURE.md
// §3 "Traces", docs/DEPLOY.md "Traces (OpenTelemetry)").
//
// Tracing is off unless configured. The packages take a trace.TracerProvider through
// their Config (nil or a noop provider means off) and never use the otel globals, so
// that two servers in one process (tests) trace apart and nothing is package state.
package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ShutdownTimeout bounds the flush of the spans still queued at shutdown.
const ShutdownTimeout = 5 * time.Second

// ConfigError is an OTEL_* variable with a value peppolgate cannot use; the message
// names the variable and says how to fix it.
type ConfigError struct{ msg string }

func (e *ConfigError) Error() string { return e.msg }

func configErr(format string, args ...any) error {
	return &ConfigError{fmt.Sprintf(format, args...)}
}

// Setup reads the OTEL_* environment through getenv and returns the tracer provider the
// packages get through their Config, and the function that flushes the queued spans and
// stops the exporter (bounded by its ctx; call it once at shutdown).
//
// Tracing is on when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
// is set, or OTEL_TRACES_EXPORTER is otlp; OTEL_SDK_DISABLED=true (in any case),
// OTEL_TRACES_EXPORTER=none or OTEL_TRACES_SAMPLER=always_off turn it off. Off, the
// provider is a noop one (On reports false) and shutdown does nothing. On, spans are batched and sent over OTLP/HTTP
// (http/protobuf, the only protocol supported), sampled by OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on), with service.name
// "peppolgate" unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise, and
// service.version version.
//
// What Setup decides or checks it reads through getenv: whether tracing is on, the
// protocol, the exporter, the sampler, the endpoints', headers' and timeouts' form. The OpenTelemetry SDK
// reads the rest itself from the process environment (os.Getenv), which is the same
// thing in the binary: the endpoint's value, OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT,
// _COMPRESSION, _CERTIFICATE and the like, OTEL_BSP_*, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES.
//
// Errors are *ConfigError for a value that cannot be used: a protocol other than
// http/protobuf (grpc included), an exporter other than otlp or none, an unknown
// sampler or a ratio outside [0, 1], an endpoint that is not an http(s) URL,
// OTEL_SDK_DISABLED not true or false, OTEL_EXPORTER_OTLP_(TRACES_)HEADERS not key=value
// pairs, OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT not milliseconds, or
// OTEL_RESOURCE_ATTRIBUTES not key=value pairs.
func Setup(ctx context.Context, getenv func(string) string, log *slog.Logger, version string) (trace.TracerProvider, func(context.Context) error, error) {
	off := noop.NewTracerProvider()
	nothing := func(context.Context) error { return nil }
	st, err := readSettings(getenv)
	if err != nil {
		return nil, nil, err
	}
	sampler, endpoint := st.sampler, st.endpoint
	// always_off keeps no span: tracing off, with no wrapper and no exporter.
	if st.disabled || st.exporter == "none" || (endpoint == "" && st.exporter != "otlp") || sampler.name == "always_off" {
		return off, nothing, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "peppolgate"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(),
		// Last, so that OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, nil, configErr("OTEL_RESOURCE_ATTRIBUTES or OTEL_SERVICE_NAME cannot be used (%v): write comma-separated key=value pairs, percent-encoding other characters", err)
	}
	// otlptracehttp reads the endpoint, headers, timeout, compression and TLS
	// settings from the environment itself.
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("starting the OTLP trace exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(&loggedExporter{SpanExporter: exp, log: log}), sdktrace.WithResource(res), sdktrace.WithSampler(sampler.s))
	if endpoint == "" {
		endpoint = "http://localhost:4318 (the OTLP default)"
	}
	log.Info("tracing on: exporting spans over OTLP/HTTP", "endpoint", endpoint, "sampler", sampler.name)
	return tp, func(ctx context.Context) error {
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("flushing traces: %w", err)
		}
		return nil
	}, nil
}

// Check checks the OTEL_* settings Setup reads through getenv, as Setup does, without
// starting anything: nil, or the *ConfigError Setup would return for them ('config
// print' refuses what serve refuses). OTEL_RESOURCE_ATTRIBUTES, read by the SDK, is
// checked by Setup alone.
func Check(getenv func(string) string) error {
	_, err := readSettings(getenv)
	return err
}

// settings are what Setup decides from the environment.
type settings struct {
	disabled bool
	exporter string
	sampler  namedSampler
	// endpoint is the traces' endpoint, "" for the OTLP default.
	endpoint string
}

// readSettings reads and checks the OTEL_* variables Setup decides by, returning a
// *ConfigError for a value that cannot be used (see Setup).
func readSettings(getenv func(string) string) (settings, error) {
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	var st settings
	// The specification's booleans: true (in any case) or false; anything else
	// ("1", "yes") would mean false there, which is surely not what was meant.
	switch v := env("OTEL_SDK_DISABLED"); strings.ToLower(v) {
	case "":
	case "true":
		st.disabled = true
	case "false":
	default:
		return st, configErr("OTEL_SDK_DISABLED=%q is not true or false: set true to turn tracing off, or unset it", v)
	}
	st.exporter = strings.ToLower(env("OTEL_TRACES_EXPORTER"))
	switch st.exporter {
	case "", "otlp", "none":
	default:
		return st, configErr("OTEL_TRACES_EXPORTER=%q is not supported: peppolgate exports traces over OTLP only; set otlp (or none to turn tracing off)", st.exporter)
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		if v := env(k); v != "" && v != "http/protobuf" {
			return st, configErr("%s=%q is not supported: peppolgate sends traces over OTLP/HTTP with protobuf only; set %s=http/protobuf (the default) and point the endpoint at the collector's OTLP/HTTP port (usually 4318)", k, v, k)
		}
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		if v := env(k); v != "" {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return st, configErr("%s=%q is not an http(s) URL: set the collector's OTLP/HTTP address, e.g. http://localhost:4318", k, v)
			}
		}
	}
	if err := checkExporterEnv(env); err != nil {
		return st, err
	}
	var err error
	if st.sampler, err = samplerFrom(env); err != nil {
		return st, err
	}
	st.endpoint = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if st.endpoint == "" {
		st.endpoint = env("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	return st, nil
}

// checkExporterEnv checks the OTLP exporter's headers (comma-separated key=value
// pairs, values percent-encoded) and timeouts (milliseconds), which the SDK reads
// itself and would otherwise ignore with an unstructured line on stderr.
func checkExporterEnv(env func(string) string) error {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		v := env(k)
		if v == "" {
			continue
		}
		for _, pair := range strings.Split(v, ",") {
			key, val, ok := strings.Cut(pair, "=")
			if _, err := url.PathUnescape(val); !ok || strings.TrimSpace(key) == "" || err != nil {
				return configErr("%s has %q, not a key=value pair: write comma-separated key=value pairs, percent-encoding other characters (e.g. api-key=abc%%20def)", k, pair)
			}
		}
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"} {
		if v := env(k); v != "" {
			if n, err := strconv.ParseUint(v, 10, 31); err != nil || n == 0 {
				return configErr("%s=%q is not a number of milliseconds: set e.g. 10000 for 10 s", k, v)
			}
		}
	}
	return nil
}

// namedSampler is a sampler and how the start-up log names it.
type namedSampler struct {
	s    sdktrace.Sampler
	name string
}

// samplerFrom is the sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name (the
// OpenTelemetry specification's values), parentbased_always_on when unset. It is set
// explicitly, so that a bad value is a *ConfigError rather than the SDK's silent
// fallback to sampling everything.
func samplerFrom(env func(string) string) (namedSampler, error) {
	name := strings.ToLower(env("OTEL_TRACES_SAMPLER"))
	arg := env("OTEL_TRACES_SAMPLER_ARG")
	ratio := func() (float64, error) {
		if arg == "" {
			return 1, nil
		}
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || v < 0 || v > 1 {
			return 0, configErr("OTEL_TRACES_SAMPLER_ARG=%q is not a ratio between 0 and 1: set e.g. 0.01 to sample 1 %% of the traces", arg)
		}
		return v, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return namedSampler{sdktrace.ParentBased(sdktrace.AlwaysSample()), "parentbased_always_on"}, nil
	case "always_on":
		return namedSampler{sdktrace.AlwaysSample(), name}, nil
	case "always_off":
		return namedSampler{sdktrace.NeverSample(), name}, nil
	case "parentbased_always_off":
		return namedSampler{sdktrace.ParentBased(sdktrace.NeverSample()), name}, nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return namedSampler{}, err
		}
		s := sdktrace.TraceIDRatioBased(r)
		if name == "parentbased_traceidratio" {
			s = sdktrace.ParentBased(s)
		}
		return namedSampler{s, name + " " + strconv.FormatFloat(r, 'g', -1, 64)}, nil
	}
	return namedSampler{}, configErr("OTEL_TRACES_SAMPLER=%q is not a sampler peppolgate knows: use always_on, always_off, traceidratio, parentbased_always_on (the default), parentbased_always_off or parentbased_traceidratio", name)
}

// On reports whether tp records spans: false for nil and for a noop provider.
func On(tp trace.TracerProvider) bool {
	if tp == nil {
		return false
	}
	_, isNoop := tp.(noop.TracerProvider)
	return !isNoop
}

// Fail records err on span with status Error and a description saying what kind of
// failure it was (e.g. "timeout", "DNS SERVFAIL", "HTTP 503"). A nil err does nothing.
func Fail(span trace.Span, err error, kind string) {
	if err == nil {
		return
	}
	span.RecordError(err)
	if kind == "" {
		kind = err.Error()
	}
	span.SetStatus(codes.Error, kind)
}
