package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"

	"go.opentelemetry.io/otel/trace"
	"go.yaml.in/yaml/v3"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/internal/redact"
	"github.com/peppolgate/peppolgate/internal/telemetry"
)

// keyOpenAIKey is the -config file's key for the LLM's API key, which has no flag
// (the environment's OPENAI_API_KEY beats it).
const keyOpenAIKey = "openai-api-key"

// configFile is a -config file read: its values by key, each as a flag would take it
// (a YAML list joined with commas); a key given null, or not at all, is absent. See
// docs/DEPLOY.md "Configuration file".
type configFile struct {
	path   string
	values map[string]string
	// readable says others than the owner may read the file.
	readable bool
}

// fileKeys returns every key a -config file may hold, each with whether its flag takes
// a comma-separated list (its usage says so), which the file may give as a YAML list:
// the flags of every command (serve, mcp, check, mirror import and sync: one file may
// serve several, each ignoring the others' keys) and the LLM's key; not -config
// itself, nor check's own flags, which are per run, not configuration.
func fileKeys() map[string]bool {
	keys := map[string]bool{keyOpenAIKey: false}
	add := func(fs *flag.FlagSet) {
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name != "config" && !isCheckFlag(f.Name) {
				keys[f.Name] = keys[f.Name] || strings.Contains(f.Usage, "comma-separated")
			}
		})
	}
	for _, cmd := range []string{cmdServe, cmdMCP, cmdCheck} {
		add(newFlagSet(&flagValues{}, cmd))
	}
	for _, sub := range []string{"import", "sync"} {
		add(mirrorFlagSet(sub, &mirrorFlags{}))
	}
	return keys
}

// loadConfigFile reads the YAML file at path: a mapping of keys (fileKeys) to scalars,
// or for the list flags lists of scalars. Each scalar is taken exactly as written
// (YAML 1.1's off, no or 0x10 are not booleans or numbers here: a flag reads them);
// null means absent, "" empty. It returns a *usageError naming the file for a file
// that cannot be read, is not such a mapping, repeats a key, holds an unknown one
// (naming the key probably meant, when one is close) or a list for a single value.
func loadConfigFile(path string) (*configFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("-config: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, usagef("-config: %v", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err != nil {
		return nil, usagef("-config: %v", err)
	}
	if len(data) > maxConfigFile {
		return nil, usagef("%s: larger than %d bytes; a configuration is a few lines", path, maxConfigFile)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	cf := &configFile{path: path, values: map[string]string{}, readable: fi.Mode().Perm()&0o044 != 0}
	if len(doc.Content) == 0 {
		return cf, nil // empty, or only comments
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, usagef("%s: not a mapping of keys to values, such as cache-ttl: 15m", path)
	}
	known := fileKeys()
	line := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolveAlias(root.Content[i+1])
		key := k.Value
		if k.Kind != yaml.ScalarNode {
			return nil, usagef("%s: line %d: a key must be a name, such as cache-ttl", path, k.Line)
		}
		if first, ok := line[key]; ok {
			return nil, usagef("%s: line %d: key %s repeats line %d", path, k.Line, key, first)
		}
		line[key] = k.Line
		list, ok := known[key]
		if !ok {
			msg := fmt.Sprintf("%s: unknown key %q", path, key)
			if s := closestKey(key, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			} else {
				msg += "; the keys are the flags' names without the dash, e.g. cache-ttl, and " + keyOpenAIKey
			}
			return nil, &usageError{msg}
		}
		val, set, err := nodeValue(v, list)
		if err != nil {
			return nil, usagef("%s: key %s: %v", path, key, err)
		}
		if set {
			cf.values[key] = val
		}
	}
	return cf, nil
}

// maxConfigFile bounds a -config file's size.
const maxConfigFile = 1 << 20

// resolveAlias returns the node an alias (*name) stands for, n itself for others.
func resolveAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// nodeValue turns a YAML value into a flag's text: a scalar exactly as written, a
// list's items joined with commas (only when list: the key's flag takes a
// comma-separated list). set is false for null (the key is absent).
func nodeValue(n *yaml.Node, list bool) (val string, set bool, err error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "", false, nil
		}
		return n.Value, true, nil
	case yaml.SequenceNode:
		if !list {
			return "", false, errors.New("a single value, not a list")
		}
		items := make([]string, len(n.Content))
		for i, item := range n.Content {
			item = resolveAlias(item)
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return "", false, errors.New("a list may hold only values, not lists, mappings or nulls")
			}
			items[i] = item.Value
		}
		return strings.Join(items, ","), true, nil
	}
	return "", false, errors.New("give a value or a list, not a mapping")
}

// closestKey returns the known key key most probably means: the same once dashes,
// underscores and case are set right, or at most two edits away; "" when none is.
func closestKey(key string, known map[string]bool) string {
	norm := strings.ToLower(strings.ReplaceAll(strings.TrimLeft(key, "-"), "_", "-"))
	if _, ok := known[norm]; ok {
		return norm
	}
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	best, bestD := "", 3
	for _, k := range names {
		if d := phrase.EditDistance(norm, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// apply sets fs's flags from the file's values, but not those in skip (set by a flag
// or the environment), nor keys fs lacks (another command's). A key given "" sets its
// flag to empty (-rate-limit-exempt= for no exemption) when its default is not empty;
// a null or missing key leaves it unset. Each flag set is recorded in src as
// "file". A value its flag refuses is a *usageError naming the file and the key.
func (cf *configFile) apply(fs *flag.FlagSet, skip func(name string) bool, src map[string]string) error {
	keys := make([]string, 0, len(cf.values))
	for k := range cf.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		val := cf.values[key]
		f := fs.Lookup(key)
		if f == nil || key == "config" || skip(key) || (val == "" && f.DefValue == "") {
			continue // "" for a flag empty by default changes nothing: not set
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

// usageConfig is the -h text of 'peppolgate config'.
const usageConfig = `Usage: peppolgate config print [-config FILE] [serve's flags]

Prints the effective configuration of serve as YAML: every setting, each with a comment
saying where its value came from (flag, env, file or default; a flag beats its environment
variable, which beats the -config file, which beats the default). Secrets are REDACTED: the
LLM's key and the password of a Redis or proxy URL; their lines are comments, so the output
is a valid -config file again that never loads a fake secret: put the secrets back (or leave
them to the environment) when you use it as one.

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
	if err != nil {
		fmt.Fprintf(p.stderr, "peppolgate: %v\nRun 'peppolgate -h' for usage.\n", err)
		return 2
	}
	// What serve checks as it starts, and says as it says it.
	if _, _, err := checkServe(cfg, func() (trace.TracerProvider, error) { return nil, telemetry.Check(p.getenv) }); err != nil {
		fmt.Fprintf(p.stderr, "peppolgate: %v\n", err)
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
	fmt.Fprintln(w, "# Precedence: flag > env > file > default. Secrets are REDACTED, on commented-out")
	fmt.Fprintln(w, "# lines: put them back, or leave them to the environment, to use this as a -config file.")
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
	// A secret is printed as a comment, so that the output read back as a -config
	// file never loads the placeholder as the secret.
	const secretNote = " — set it yourself"
	for _, f := range flags {
		val := f.Value.String()
		if f.Name == "redis" && redact.URL(val) != val {
			fmt.Fprintf(w, "# %s: %s  # %s%s\n", f.Name, yamlScalar(f, redact.URL(val)), source(f.Name), secretNote)
			continue
		}
		fmt.Fprintf(w, "%s: %s  # %s\n", f.Name, yamlScalar(f, val), source(f.Name))
	}
	switch ly.keySource {
	case "env":
		fmt.Fprintf(w, "# %s: %s  # env OPENAI_API_KEY%s\n", keyOpenAIKey, redact.Placeholder, secretNote)
	case "file":
		fmt.Fprintf(w, "# %s: %s  # file %s%s\n", keyOpenAIKey, redact.Placeholder, ly.file.path, secretNote)
	default:
		fmt.Fprintf(w, "# %s: not set (needed with llm: openai; OPENAI_API_KEY beats it)\n", keyOpenAIKey)
	}
	fmt.Fprintln(w, "# Outbound proxy of SMP, Directory and OCSP requests, from the environment only:")
	listed := false
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"} {
		if v := p.getenv(name); v != "" {
			if !strings.HasPrefix(strings.ToUpper(name), "NO_") {
				v = redact.URL(v)
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
