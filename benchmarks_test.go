package peppolgate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// benchCommand is one command quoted in BENCHMARKS.md, with the line it starts on.
type benchCommand struct {
	line int
	text string
}

// benchCommands returns every backticked `go test …` and `make …` command of md; a
// command may wrap onto the next line.
func benchCommands(md string) []benchCommand {
	var out []benchCommand
	quoted := regexp.MustCompile("`([^`]+)`")
	for _, m := range quoted.FindAllStringSubmatchIndex(md, -1) {
		text := strings.Join(strings.Fields(md[m[2]:m[3]]), " ")
		if strings.Contains(text, "go test ") || strings.HasPrefix(text, "make ") {
			out = append(out, benchCommand{line: strings.Count(md[:m[0]], "\n") + 1, text: text})
		}
	}
	return out
}

// shellWords splits a command as sh does for the simple commands BENCHMARKS.md quotes:
// white space separates words, single quotes group.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// goTestArgs returns the -bench and -run regexps and the packages of a `go test` command.
func goTestArgs(words []string) (bench, run string, pkgs []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case strings.HasPrefix(w, "./") || w == ".":
			pkgs = append(pkgs, w)
		case strings.HasPrefix(w, "-") && (name == "bench" || name == "run"):
			if !hasValue && i+1 < len(words) {
				i++
				value = words[i]
			}
			if name == "bench" {
				bench = value
			} else {
				run = value
			}
		}
	}
	return bench, run, pkgs
}

// testFuncs returns the names of the top-level functions of the _test.go files of the
// package directories pkgs name (relative to the module root; "./x/..." is x and every
// directory below), each once.
func testFuncs(t *testing.T, pkgs []string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	fset := token.NewFileSet()
	parseDir := func(dir string) {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
					names[fn.Name.Name] = true
				}
			}
		}
	}
	for _, p := range pkgs {
		dir, all := strings.CutSuffix(filepath.Clean(p), string(filepath.Separator)+"...")
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("package %s: %v", p, err)
			continue
		}
		if !all {
			parseDir(dir)
			continue
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != dir {
				return filepath.SkipDir
			}
			if d.IsDir() {
				parseDir(path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// matchesOne reports whether the go test pattern (a regexp per level, split by '/')
// selects a function of names with the prefix ("Benchmark" or "Test") for each of its
// first level's top-level alternatives ('A|B' needs a match for A and one for B, so a
// renamed benchmark among them is caught): the first level matches the function's
// name, as go test matches it.
func matchesOne(t *testing.T, pattern, prefix string, names map[string]bool) bool {
	t.Helper()
	top, _, _ := strings.Cut(pattern, "/")
	if _, err := regexp.Compile(top); err != nil {
		t.Errorf("pattern %q: %v", pattern, err)
		return false
	}
	for _, alt := range topAlternatives(top) {
		re, err := regexp.Compile(alt)
		if err != nil {
			t.Errorf("pattern %q, alternative %q: %v", pattern, alt, err)
			return false
		}
		found := false
		for n := range names {
			if strings.HasPrefix(n, prefix) && re.MatchString(n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// topAlternatives splits a regexp at its top-level '|': not escaped, not inside a
// group or a character class.
func topAlternatives(re string) []string {
	var out []string
	depth, class, start := 0, false, 0
	for i := 0; i < len(re); i++ {
		switch c := re[i]; {
		case c == '\\':
			i++ // the escaped character
		case class:
			class = c != ']'
		case c == '[':
			class = true
			if i+1 < len(re) && re[i+1] == ']' {
				i++ // a ']' first in a class is literal
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, re[start:i])
			start = i + 1
		}
	}
	return append(out, re[start:])
}

// TestBenchmarksCommands reads every command BENCHMARKS.md quotes and fails when one
// would not run what it names: a `go test -bench <regexp> <packages>` whose regexp
// matches no Benchmark function of those packages (read from their _test.go files with
// go/parser; nothing is run), a `go test -run <regexp>` without -bench that matches no
// Test function, a package that does not exist, or a `make <target>` whose target the
// Makefile does not have.
func TestBenchmarksCommands(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile("BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+):`).FindAllStringSubmatch(string(makefile), -1) {
		targets[m[1]] = true
	}
	cmds := benchCommands(string(md))
	if len(cmds) < 10 {
		t.Fatalf("found %d commands in BENCHMARKS.md; the reader is broken", len(cmds))
	}
	for _, c := range cmds {
		words := shellWords(c.text)
		if words[0] == "make" {
			if len(words) < 2 || !targets[words[1]] {
				t.Errorf("BENCHMARKS.md:%d: `%s`: the Makefile has no such target", c.line, c.text)
			}
			continue
		}
		bench, run, pkgs := goTestArgs(words)
		if bench == "" && run == "" {
			continue // e.g. "go test -c", building a test binary: it names nothing to run
		}
		if len(pkgs) == 0 {
			t.Errorf("BENCHMARKS.md:%d: `%s` names no package", c.line, c.text)
			continue
		}
		names := testFuncs(t, pkgs)
		switch {
		case bench != "" && !matchesOne(t, bench, "Benchmark", names):
			t.Errorf("BENCHMARKS.md:%d: `%s`: -bench %q matches no benchmark of %s", c.line, c.text, bench, strings.Join(pkgs, " "))
		case bench == "" && run != "" && !matchesOne(t, run, "Test", names):
			t.Errorf("BENCHMARKS.md:%d: `%s`: -run %q matches no test of %s", c.line, c.text, run, strings.Join(pkgs, " "))
		}
	}
}

// TestBenchmarksReader shows the reader catches what it must: a wrapped command, quoted
// patterns, -flag=value and a pattern that matches nothing.
func TestBenchmarksReader(t *testing.T) {
	t.Parallel()
	cmds := benchCommands("run `go test -run '^$' -bench 'A|B'\n-benchmem ./x` and `make load`, not `go vet`")
	if len(cmds) != 2 || cmds[0].text != "go test -run '^$' -bench 'A|B' -benchmem ./x" || cmds[0].line != 1 || cmds[1].text != "make load" {
		t.Fatalf("commands %+v", cmds)
	}
	bench, run, pkgs := goTestArgs(shellWords(cmds[0].text))
	if bench != "A|B" || run != "^$" || len(pkgs) != 1 || pkgs[0] != "./x" {
		t.Errorf("bench %q run %q pkgs %q", bench, run, pkgs)
	}
	if bench, _, _ := goTestArgs(shellWords("go test -bench=Foo ./x")); bench != "Foo" {
		t.Errorf("-bench=Foo read as %q", bench)
	}
	names := map[string]bool{"BenchmarkLookupCold": true, "TestEval": true}
	// Each top-level alternative must match a function: a renamed benchmark inside
	// 'A|B|C' is caught. An alternation inside a group is one alternative.
	for pattern, want := range map[string]bool{"LookupCold": true, "Cached|Cold": false, "Lookup|Cold": true, "Cold|Renamed": false,
		"Lookup(Cached|Cold)": true, `Lookup[|]?Cold|Cold`: true, `\|Cold`: false, "Warm": false, ".": true, "LookupCold/sub": true, "Cold|Lookup/sub": true} {
		if got := matchesOne(t, pattern, "Benchmark", names); got != want {
			t.Errorf("matchesOne(%q) = %v, want %v", pattern, got, want)
		}
	}
}
