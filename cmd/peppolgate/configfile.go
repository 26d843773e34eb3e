package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// keyOpenAIKey is the -config file's key for the LLM's API key, which has no flag
// (the environment's OPENAI_API_KEY beats it).
const keyOpenAIKey = "openai-api-key"

// configFile is a -config file read: its values by key, each as a flag would take it
// (a YAML list joined with commas; empty for null). See docs/DEPLOY.md "Configuration
// file".
type configFile struct {
	path   string
	values map[string]string
	// readable says others than the owner may read the file.
	readable bool
}

// fileKeys returns every key a -config file may hold: the flags of every command
// (serve, mcp, check, mirror import and sync: one file may serve several, each
// ignoring the others' keys) and the LLM's key; not -config itself.
func fileKeys() []string {
	keys := map[string]bool{keyOpenAIKey: true}
	add := func(fs *flag.FlagSet) { fs.VisitAll(func(f *flag.Flag) { keys[f.Name] = true }) }
	for _, cmd := range []string{cmdServe, cmdMCP, cmdCheck} {
		add(newFlagSet(&flagValues{}, cmd))
	}
	for _, sub := range []string{"import", "sync"} {
		add(mirrorFlagSet(sub, &mirrorFlags{}))
	}
	delete(keys, "config")
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// loadConfigFile reads the YAML file at path: a mapping of keys (fileKeys) to scalars
// or lists of scalars. It returns a *usageError naming the file for a file that cannot
// be read, is not such a mapping, repeats a key or holds an unknown one (naming the key
// probably meant, when one is close).
func loadConfigFile(path string) (*configFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("-config: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, usagef("-config: %v", err)
	}
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, usagef("%s: not a mapping of keys to values, such as cache-ttl: 15m", path)
	}
	cf := &configFile{path: path, values: map[string]string{}, readable: fi.Mode().Perm()&0o044 != 0}
	known := fileKeys()
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, key := range names {
		if !slices.Contains(known, key) {
			msg := fmt.Sprintf("%s: unknown key %q", path, key)
			if s := closestKey(key, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			} else {
				msg += "; the keys are the flags' names without the dash, e.g. cache-ttl, and " + keyOpenAIKey
			}
			return nil, &usageError{msg}
		}
		val, err := fileValue(raw[key])
		if err != nil {
			return nil, usagef("%s: key %s: %v", path, key, err)
		}
		cf.values[key] = val
	}
	return cf, nil
}

// fileValue turns a YAML value into a flag's text: a scalar as written (true/false for
// YAML's booleans), a list's items joined with commas, null as "" (unset).
func fileValue(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case bool, json.Number:
		return fmt.Sprint(v), nil
	case []any:
		items := make([]string, len(v))
		for i, item := range v {
			s, err := fileValue(item)
			if _, list := item.([]any); err != nil || list {
				return "", errors.New("a list may hold only values, not lists or mappings")
			}
			items[i] = s
		}
		return strings.Join(items, ","), nil
	}
	return "", errors.New("give a value or a list, not a mapping")
}

// closestKey returns the known key key most probably means: the same once dashes,
// underscores and case are set right, or at most two edits away; "" when none is.
func closestKey(key string, known []string) string {
	norm := strings.ToLower(strings.ReplaceAll(strings.TrimLeft(key, "-"), "_", "-"))
	if slices.Contains(known, norm) {
		return norm
	}
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(norm, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// apply sets fs's flags from the file's values, but not those in skip (set by a flag
// or the environment), nor empty values (which mean unset, as an empty variable
// does), nor keys fs lacks (another command's). Each flag set is recorded in src as
// "file". A value its flag refuses is a *usageError naming the file and the key.
func (cf *configFile) apply(fs *flag.FlagSet, skip func(name string) bool, src map[string]string) error {
	keys := make([]string, 0, len(cf.values))
	for k := range cf.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		val := cf.values[key]
		if fs.Lookup(key) == nil || key == "config" || val == "" || skip(key) {
			continue
		}
		if err := fs.Set(key, val); err != nil {
			return usagef("%s: invalid value %q for key %s: %v", cf.path, val, key, cleanFlagErr(err))
		}
		src[key] = "file"
	}
	return nil
}

// holdsSecret reports whether the file holds a secret: the LLM's key, or a password in
// a Redis URL.
func (cf *configFile) holdsSecret() bool {
	if cf.values[keyOpenAIKey] != "" {
		return true
	}
	u, err := url.Parse(cf.values["redis"])
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

// fromFile prefixes err, a check of the value of a flag that came from the file, with
// the file and key: "peppolgate.yaml: key cache-ttl: -cache-ttl must be positive…".
// Other errors are returned unchanged.
func (cf *configFile) fromFile(err error, src map[string]string) error {
	var ue *usageError
	if cf == nil || !errors.As(err, &ue) || !strings.HasPrefix(ue.msg, "-") {
		return err
	}
	name := ue.msg[1:]
	if i := strings.IndexFunc(name, func(r rune) bool { return !(r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }); i >= 0 {
		name = name[:i]
	}
	if src[name] != "file" {
		return err
	}
	return usagef("%s: key %s: %s", cf.path, name, ue.msg)
}

// redacted replaces secrets in 'config print' and logs.
const redacted = "REDACTED"

// redactURL returns raw with the password of its user info replaced by REDACTED; raw
// itself when it has none, and a placeholder when it cannot be parsed (it might hold a
// secret anyway).
func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL, " + redacted + ")"
	}
	if u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); !ok {
		return raw
	}
	u.User = url.UserPassword(u.User.Username(), redacted)
	return u.String()
}

// proxyEnv are the variables of the outbound proxy (docs/DEPLOY.md "Outbound proxy"),
// in the order 'config print' lists them.
var proxyEnv = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"}

// usageConfig is the -h text of 'peppolgate config'.
const usageConfig = `Usage: peppolgate config print [-config FILE] [serve's flags]

Prints the effective configuration of serve as YAML: every setting, each with a comment
saying where its value came from (flag, env, file or default; a flag beats its environment
variable, which beats the -config file, which beats the default). Secrets are REDACTED: the
LLM's key and the password of a Redis or proxy URL. The output is a valid -config file
again; put the secrets back (or leave them to the environment) before using it as one.

Exit status: 0, or 2 for a bad flag, value or file (the message serve would give).
`

// runConfig runs 'peppolgate config print' and returns the exit status.
func (p program) runConfig(args []string) int {
	if len(args) == 0 || args[0] != "print" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(p.stdout, usageConfig)
			return 0
		}
		fmt.Fprint(p.stderr, "peppolgate config: the subcommand is print\nRun 'peppolgate config -h' for usage.\n")
		return 2
	}
	cfg, err := parseConfig(cmdServe, args[1:], p.getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(p.stdout, usageConfig)
		return 0
	}
	if err == nil {
		err = checkServe(cfg)
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "peppolgate: %v\nRun 'peppolgate -h' for usage.\n", err)
		return 2
	}
	for _, w := range cfg.warnings {
		fmt.Fprintf(p.stderr, "peppolgate: warning: %s\n", w)
	}
	p.printConfig(cfg)
	return 0
}

// printConfig writes cfg's settings as a -config file with their sources.
func (p program) printConfig(cfg config) {
	ly := cfg.layers
	w := p.stdout
	fmt.Fprintln(w, "# peppolgate serve: the effective configuration (peppolgate config print).")
	fmt.Fprintln(w, "# Precedence: flag > env > file > default. Secrets are REDACTED: put them back, or")
	fmt.Fprintln(w, "# leave them to the environment, before using this as a -config file.")
	if ly.file != nil {
		fmt.Fprintf(w, "# -config file: %s\n", ly.file.path)
	}
	var flags []*flag.Flag
	ly.fs.VisitAll(func(f *flag.Flag) {
		if f.Name != "config" {
			flags = append(flags, f)
		}
	})
	sort.SliceStable(flags, func(i, j int) bool { return flagOrder(flags[i].Name) < flagOrder(flags[j].Name) })
	source := func(name string) string {
		switch ly.src[name] {
		case "flag":
			return "flag -" + name
		case "env":
			return "env " + envName(name)
		case "file":
			return "file " + ly.file.path
		}
		return "default"
	}
	for _, f := range flags {
		val := f.Value.String()
		if f.Name == "redis" {
			val = redactURL(val)
		}
		fmt.Fprintf(w, "%s: %s  # %s\n", f.Name, yamlScalar(f, val), source(f.Name))
	}
	switch ly.keySource {
	case "env":
		fmt.Fprintf(w, "%s: %q  # env OPENAI_API_KEY\n", keyOpenAIKey, redacted)
	case "file":
		fmt.Fprintf(w, "%s: %q  # file %s\n", keyOpenAIKey, redacted, ly.file.path)
	default:
		fmt.Fprintf(w, "# %s: not set (needed with llm: openai; OPENAI_API_KEY beats it)\n", keyOpenAIKey)
	}
	fmt.Fprintln(w, "# Outbound proxy of SMP, Directory and OCSP requests, from the environment only:")
	listed := false
	for _, name := range proxyEnv {
		if v := p.getenv(name); v != "" {
			if !strings.HasPrefix(strings.ToUpper(name), "NO_") {
				v = redactURL(v)
			}
			fmt.Fprintf(w, "#   %s=%s\n", name, v)
			listed = true
		}
	}
	if !listed {
		fmt.Fprintln(w, "#   none (HTTPS_PROXY, HTTP_PROXY and NO_PROXY unset): direct connections")
	}
}

// yamlScalar writes a flag's value as YAML: booleans bare, everything else a
// double-quoted string (JSON's quoting, which YAML reads).
func yamlScalar(f *flag.Flag, val string) string {
	if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		return val
	}
	b, _ := json.Marshal(val)
	return string(b)
}
