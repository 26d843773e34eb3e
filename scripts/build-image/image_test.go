package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireEnv is set by `make image-check` (part of `make test`): with it the test fails
// when skopeo or umoci is missing; without it the test skips, so that a plain
// `go test ./...` neither builds the image nor needs the tools.
const requireEnv = "PEPPOLGATE_IMAGE_CHECK"

// TestImage builds the image twice from the committed HEAD (same digests: reproducible),
// inspects it with Debian's skopeo, unpacks it with umoci --rootless, and runs the
// unpacked binary on the demo network until it serves /healthz: no container runtime.
func TestImage(t *testing.T) {
	if os.Getenv(requireEnv) != "1" {
		t.Skipf("builds and checks the OCI image only under `make image-check` (%s=1)", requireEnv)
	}
	for _, tool := range []string{"skopeo", "umoci", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing (make image-tools installs skopeo and umoci): %v", tool, err)
		}
	}
	root, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		t.Fatal(err)
	}
	platform := "linux/" + runtime.GOARCH
	build := func(out string) *Result {
		t.Helper()
		r, err := Build(Options{Root: root, Out: out, Platforms: []string{platform},
			Repo: "ghcr.io/peppolgate/peppolgate", Source: "https://github.com/peppolgate/peppolgate",
			Licenses: "NOASSERTION", CABundle: "/etc/ssl/certs/ca-certificates.crt", Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	dir := t.TempDir()
	r1 := build(filepath.Join(dir, "one"))
	r2 := build(filepath.Join(dir, "two"))

	t.Run("reproducible", func(t *testing.T) {
		if r1.IndexDigest != r2.IndexDigest || !reflect.DeepEqual(r1.Images, r2.Images) {
			t.Errorf("two builds of one commit differ: index %s %v, then %s %v", r1.IndexDigest, r1.Images, r2.IndexDigest, r2.Images)
		}
		if a, b := fileSum(t, r1.Tarballs[platform]), fileSum(t, r2.Tarballs[platform]); a != b {
			t.Errorf("the docker-load tarballs of two builds differ: %s, %s", a, b)
		}
	})

	rev, err := gitOut(root, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.source":   "https://github.com/peppolgate/peppolgate",
		"org.opencontainers.image.revision": rev,
		"org.opencontainers.image.version":  r1.Version,
		"org.opencontainers.image.licenses": "NOASSERTION",
		"org.opencontainers.image.title":    "peppolgate",
		"org.opencontainers.image.created":  r1.Created.Format(time.RFC3339),
	}
	if !strings.HasPrefix(r1.Version, "v") || strings.Contains(r1.Version, "dirty") {
		t.Errorf("version %q: want the module version of a clean commit (v…)", r1.Version)
	}
	ref := "oci:" + r1.Layout + ":" + r1.Tag

	t.Run("skopeo config", func(t *testing.T) {
		var cf struct {
			Architecture, OS string
			Created          time.Time
			Config           struct {
				User         string
				Entrypoint   []string
				Cmd          []string
				ExposedPorts map[string]struct{}
				Volumes      map[string]struct{}
				WorkingDir   string
				Env          []string
				Labels       map[string]string
			}
		}
		run(t, &cf, "skopeo", "--override-os", "linux", "--override-arch", runtime.GOARCH, "inspect", "--config", ref)
		c := cf.Config
		for _, tc := range []struct {
			what      string
			got, want any
		}{
			{"architecture", cf.Architecture, runtime.GOARCH},
			{"os", cf.OS, "linux"},
			{"created (the commit time)", cf.Created.UTC(), r1.Created},
			{"user", c.User, "65532:65532"},
			{"entrypoint", c.Entrypoint, []string{"/peppolgate"}},
			{"cmd", c.Cmd, []string{"serve"}},
			{"exposed ports", c.ExposedPorts, map[string]struct{}{"8080/tcp": {}}},
			{"volumes", c.Volumes, map[string]struct{}{"/data": {}}},
			{"working dir", c.WorkingDir, "/data"},
			{"env", c.Env, []string(nil)},
			{"labels", c.Labels, wantLabels},
		} {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("%s = %#v, want %#v", tc.what, tc.got, tc.want)
			}
		}
	})

	t.Run("skopeo manifest", func(t *testing.T) {
		for _, tc := range []struct{ ref, digest string }{
			{ref, r1.IndexDigest},
			{"docker-archive:" + r1.Tarballs[platform], ""},
		} {
			var m struct {
				Digest, Architecture, Os string
				Labels                   map[string]string
				Layers                   []string
			}
			run(t, &m, "skopeo", "--override-os", "linux", "--override-arch", runtime.GOARCH, "inspect", tc.ref)
			if tc.digest != "" && m.Digest != tc.digest {
				t.Errorf("%s: digest %s, want %s", tc.ref, m.Digest, tc.digest)
			}
			if m.Architecture != runtime.GOARCH || m.Os != "linux" || len(m.Layers) != 1 || !reflect.DeepEqual(m.Labels, wantLabels) {
				t.Errorf("%s: %s/%s, %d layers, labels %v; want linux/%s, 1 layer, labels %v", tc.ref, m.Os, m.Architecture, len(m.Layers), m.Labels, runtime.GOARCH, wantLabels)
			}
		}
	})

	bundle := filepath.Join(dir, "bundle")
	if out, err := exec.Command("umoci", "unpack", "--rootless", "--image", r1.Layout+":"+r1.Tag, bundle).CombinedOutput(); err != nil {
		t.Fatalf("umoci unpack: %v: %s", err, out)
	}
	rootfs := filepath.Join(bundle, "rootfs")

	t.Run("umoci bundle", func(t *testing.T) {
		var spec struct {
			Process struct {
				User struct{ UID, GID int }
				Args []string
				Cwd  string
			}
		}
		readJSON(t, filepath.Join(bundle, "config.json"), &spec)
		if p := spec.Process; p.User.UID != 65532 || p.User.GID != 65532 || !reflect.DeepEqual(p.Args, []string{"/peppolgate", "serve"}) || p.Cwd != "/data" {
			t.Errorf("umoci's runtime config: user %d:%d, args %q, cwd %q; want 65532:65532, [/peppolgate serve], /data", p.User.UID, p.User.GID, p.Args, p.Cwd)
		}
		for _, tc := range []struct {
			path string
			mode os.FileMode
		}{
			{"peppolgate", 0o755},
			{"etc/ssl/certs/ca-certificates.crt", 0o644},
			{"etc/passwd", 0o644},
			{"etc/group", 0o644},
			{"data", os.ModeDir | 0o755},
			{"tmp", os.ModeDir | os.ModeSticky | 0o777},
		} {
			fi, err := os.Lstat(filepath.Join(rootfs, tc.path))
			if err != nil {
				t.Errorf("/%s: %v", tc.path, err)
			} else if fi.Mode() != tc.mode {
				t.Errorf("/%s: mode %v, want %v", tc.path, fi.Mode(), tc.mode)
			}
		}
		for file, line := range map[string]string{
			"etc/passwd": "nonroot:x:65532:65532:nonroot:/data:/sbin/nologin",
			"etc/group":  "nonroot:x:65532:",
		} {
			b, err := os.ReadFile(filepath.Join(rootfs, file))
			if err != nil || !strings.Contains(string(b), line+"\n") {
				t.Errorf("/%s lacks %q: %v %q", file, line, err, b)
			}
		}
		// Rootless, umoci records each entry's owner in the user.rootlesscontainers xattr
		// of its mtree manifest (absent: root). /data must belong to 65532.
		if uid, gid := rootlessOwner(t, bundle, "data"); uid != 65532 || gid != 65532 {
			t.Errorf("/data owned by %d:%d, want 65532:65532", uid, gid)
		}
		if uid, gid := rootlessOwner(t, bundle, "peppolgate"); uid != 0 || gid != 0 {
			t.Errorf("/peppolgate owned by %d:%d, want 0:0", uid, gid)
		}
	})

	bin := filepath.Join(rootfs, "peppolgate")
	t.Run("binary", func(t *testing.T) {
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{"version": info.Main.Version}
		for _, s := range info.Settings {
			got[s.Key] = s.Value
		}
		for k, want := range map[string]string{"version": r1.Version, "CGO_ENABLED": "0", "-tags": "timetzdata",
			"-trimpath": "true", "vcs.revision": rev, "vcs.modified": "false", "GOOS": "linux", "GOARCH": runtime.GOARCH} {
			if got[k] != want {
				t.Errorf("build info %s = %q, want %q", k, got[k], want)
			}
		}
	})

	t.Run("-version", func(t *testing.T) {
		// The unpacked binary says which version and revision it is, as the image's
		// labels do.
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, "-version").Output()
		if err != nil {
			t.Fatalf("-version: %v", err)
		}
		want := fmt.Sprintf("peppolgate %s (%s, ", r1.Version, rev)
		if line := string(out); !strings.HasPrefix(line, want) || !strings.HasSuffix(line, " linux/"+runtime.GOARCH+")\n") {
			t.Errorf("-version printed %q, want %q… linux/%s)", line, want, runtime.GOARCH)
		}
	})

	t.Run("serves the demo network", func(t *testing.T) {
		cmd := exec.Command(bin, "-network", "demo", "-addr", "127.0.0.1:0")
		cmd.Dir = filepath.Join(rootfs, "data")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "PEPPOLGATE_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		listening := make(chan map[string]any, 1)
		var logs bytes.Buffer
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				logs.Write(append(sc.Bytes(), '\n'))
				var rec map[string]any
				if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "listening" {
					select {
					case listening <- rec:
					default:
					}
				}
			}
			done <- cmd.Wait()
		}()
		var stopped bool
		t.Cleanup(func() {
			if stopped {
				return
			}
			_ = cmd.Process.Kill()
			<-done
		})

		var rec map[string]any
		select {
		case rec = <-listening:
		case err := <-done:
			stopped = true
			t.Fatalf("the unpacked binary exited before listening: %v\n%s", err, logs.String())
		case <-time.After(90 * time.Second):
			t.Fatal("the unpacked binary did not log \"listening\" within 90 s")
		}
		if rec["version"] != r1.Version {
			t.Errorf("the binary reports version %v, want the image's %s", rec["version"], r1.Version)
		}
		base := fmt.Sprintf("http://%v", rec["addr"])
		client := &http.Client{Timeout: 5 * time.Second}
		get := func(path string) (int, string) {
			resp, err := client.Get(base + path)
			if err != nil {
				return 0, err.Error()
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			return resp.StatusCode, string(b)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			code, body := get("/healthz")
			if code == http.StatusOK && strings.Contains(body, `"ok"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("/healthz still %d %q after 60 s", code, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if code, body := get("/metrics"); code != http.StatusOK || !strings.Contains(body, `peppolgate_build_info{version="`+r1.Version+`"} 1`) {
			t.Errorf("/metrics: %d, no peppolgate_build_info for version %s", code, r1.Version)
		}

		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			stopped = true
			if err != nil {
				t.Errorf("the binary did not exit cleanly on SIGTERM: %v\n%s", err, logs.String())
			}
		case <-time.After(30 * time.Second):
			t.Errorf("the binary did not stop within 30 s of SIGTERM")
		}
	})
}

// run runs a command and decodes its standard output as JSON into v.
func run(t *testing.T, v any, name string, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// rootlessOwner returns the owner umoci recorded for a top-level entry of the rootfs in
// the bundle's mtree manifest: the user.rootlesscontainers xattr holds a protobuf
// Resource{uint32 uid = 1; uint32 gid = 2}, and no xattr means root.
func rootlessOwner(t *testing.T, bundle, entry string) (uid, gid uint64) {
	t.Helper()
	mtrees, _ := filepath.Glob(filepath.Join(bundle, "*.mtree"))
	if len(mtrees) != 1 {
		t.Fatalf("want one mtree manifest in the bundle, found %v", mtrees)
	}
	b, err := os.ReadFile(mtrees[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != entry {
			continue
		}
		for _, kw := range f[1:] {
			v, ok := strings.CutPrefix(kw, "xattr.user.rootlesscontainers=")
			if !ok {
				continue
			}
			pb, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				t.Fatalf("%s: %v", kw, err)
			}
			fields := map[byte]uint64{}
			for len(pb) > 0 {
				key := pb[0]
				pb = pb[1:]
				var n uint64
				for shift := 0; len(pb) > 0; shift += 7 {
					c := pb[0]
					pb = pb[1:]
					n |= uint64(c&0x7f) << shift
					if c < 0x80 {
						break
					}
				}
				fields[key>>3] = n
			}
			return fields[1], fields[2]
		}
		return 0, 0
	}
	t.Fatalf("no entry %q in %s", entry, mtrees[0])
	return 0, 0
}
