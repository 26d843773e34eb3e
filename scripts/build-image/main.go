// Command build-image builds peppolgate's OCI image without Docker (`make image`;
// docs/DEPLOY.md "Container image"): FROM scratch, offline, pulling nothing. Each platform
// gets one layer holding the static binary (CGO_ENABLED=0, Go's time zone database embedded
// with -tags timetzdata), the build machine's CA bundle, /etc/passwd and /etc/group for the
// nonroot user 65532, /data (the mirror's volume, owned by 65532) and /tmp. The images go
// into one image index, written as an OCI layout directory; each platform's image is also
// written as a `docker load`-able tarball.
//
// The build is reproducible: every file time and the image's created time are the commit
// time, entries are sorted with fixed owners, the binary has no build id and its paths are
// trimmed, so two builds of one commit with one Go toolchain give the same digests.
package main

import (
	"archive/tar"
	"bytes"
	"debug/buildinfo"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Fixed facts of the image.
const (
	nonrootID  = 65532
	binPath    = "peppolgate"
	dataDir    = "data"
	port       = "8080/tcp"
	caPath     = "etc/ssl/certs/ca-certificates.crt"
	title      = "peppolgate"
	refNameKey = "org.opencontainers.image.ref.name"
)

// Options say what to build and where to write it.
type Options struct {
	Root      string   // repository root (the module with ./cmd/peppolgate)
	Out       string   // output directory: Out/oci (OCI layout), Out/peppolgate-<tag>-<os>-<arch>.tar
	Platforms []string // "linux/amd64", "linux/arm64"
	Repo      string   // image name without tag, e.g. ghcr.io/peppolgate/peppolgate
	Source    string   // org.opencontainers.image.source
	Licenses  string   // org.opencontainers.image.licenses, an SPDX expression
	CABundle  string   // CA certificates file copied to /etc/ssl/certs/ca-certificates.crt
	Log       io.Writer
}

// Result describes what Build wrote.
type Result struct {
	Tag         string            // the tag of the index in the layout and of each tarball's image
	Version     string            // the binary's version (its module version from the VCS)
	Revision    string            // the git commit
	Created     time.Time         // the commit time
	IndexDigest string            // digest of the image index
	Images      map[string]string // platform → image manifest digest
	Layout      string            // the OCI layout directory
	Tarballs    map[string]string // platform → docker-load tarball path
}

func main() {
	var o Options
	var platforms string
	flag.StringVar(&o.Out, "out", ".artifacts/image", "output `directory`")
	flag.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "comma-separated `os/arch` list")
	flag.StringVar(&o.Repo, "repo", "ghcr.io/peppolgate/peppolgate", "image `name` without tag")
	flag.StringVar(&o.Source, "source", "https://github.com/peppolgate/peppolgate", "source repository `URL` (label)")
	// The repository has no LICENSE file yet: SPDX's NOASSERTION until it has one.
	flag.StringVar(&o.Licenses, "licenses", "NOASSERTION", "SPDX license `expression` (label)")
	flag.StringVar(&o.CABundle, "ca", "/etc/ssl/certs/ca-certificates.crt", "CA bundle `file` to include")
	flag.Parse()
	o.Platforms = strings.Split(platforms, ",")
	o.Log = os.Stderr
	root, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		fmt.Fprintln(os.Stderr, "build-image:", err)
		os.Exit(1)
	}
	o.Root = root
	r, err := Build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build-image:", err)
		os.Exit(1)
	}
	fmt.Printf("image %s:%s\n  index  %s\n  layout %s\n", o.Repo, r.Tag, r.IndexDigest, r.Layout)
	for _, p := range o.Platforms {
		fmt.Printf("  %-12s %s\n  %-12s %s\n", p, r.Images[p], "", r.Tarballs[p])
	}
}

// Build compiles the binary of the commit checked out at o.Root (HEAD; uncommitted changes
// are left out) for each platform and writes the image index as an OCI layout
// (replacing Out/oci) and one tarball per platform (replacing Out/peppolgate-*.tar). It
// returns the errors of git, go build, reading the CA bundle and writing the outputs.
func Build(o Options) (*Result, error) {
	rev, err := gitOut(o.Root, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	ct, err := gitOut(o.Root, "log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return nil, err
	}
	secs, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("commit time %q: %w", ct, err)
	}
	created := time.Unix(secs, 0).UTC()
	ca, err := os.ReadFile(o.CABundle)
	if err != nil {
		return nil, fmt.Errorf("CA bundle (Debian's ca-certificates package): %w", err)
	}
	tmp, err := os.MkdirTemp("", "build-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	// Build from a clean clone of the commit: the image holds the commit and nothing
	// uncommitted, and the go command stamps the binary's version from the clone's .git
	// (it does not from a git worktree, whose .git is a file, nor with -buildvcs=false).
	src := filepath.Join(tmp, "src")
	if _, err := gitOut(o.Root, "clone", "-q", "--shared", "--no-checkout", o.Root, src); err != nil {
		return nil, err
	}
	if _, err := gitOut(src, "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", rev); err != nil {
		return nil, err
	}
	build := o
	build.Root = src

	res := &Result{Revision: rev, Created: created, Images: map[string]string{}, Tarballs: map[string]string{}}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	imgs := map[string]v1.Image{}
	for _, p := range o.Platforms {
		goos, arch, ok := strings.Cut(p, "/")
		if !ok || goos != "linux" {
			return nil, fmt.Errorf("platform %q: want linux/<arch>", p)
		}
		bin := filepath.Join(tmp, "peppolgate-"+arch)
		if err := goBuild(build, arch, bin); err != nil {
			return nil, err
		}
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			return nil, fmt.Errorf("build info of %s: %w", bin, err)
		}
		if res.Version == "" {
			res.Version = info.Main.Version
		} else if res.Version != info.Main.Version {
			return nil, fmt.Errorf("binaries disagree on the version: %s and %s", res.Version, info.Main.Version)
		}
		img, err := image(o, arch, bin, ca, res)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", p, err)
		}
		d, err := img.Digest()
		if err != nil {
			return nil, err
		}
		res.Images[p] = d.String()
		imgs[p] = img
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: goos, Architecture: arch}}})
	}
	res.Tag = tagOf(res.Version)
	d, err := idx.Digest()
	if err != nil {
		return nil, err
	}
	res.IndexDigest = d.String()

	res.Layout = filepath.Join(o.Out, "oci")
	if err := os.RemoveAll(res.Layout); err != nil {
		return nil, err
	}
	lp, err := layout.Write(res.Layout, empty.Index)
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: %w", res.Layout, err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{refNameKey: res.Tag})); err != nil {
		return nil, fmt.Errorf("OCI layout %s: %w", res.Layout, err)
	}
	tag, err := name.NewTag(o.Repo + ":" + res.Tag)
	if err != nil {
		return nil, err
	}
	old, _ := filepath.Glob(filepath.Join(o.Out, "peppolgate-*.tar"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return nil, err
		}
	}
	for _, p := range o.Platforms {
		f := filepath.Join(o.Out, fmt.Sprintf("peppolgate-%s-%s.tar", res.Tag, strings.ReplaceAll(p, "/", "-")))
		if err := tarball.WriteToFile(f, tag, imgs[p]); err != nil {
			return nil, fmt.Errorf("tarball %s: %w", f, err)
		}
		res.Tarballs[p] = f
	}
	return res, nil
}

// goBuild compiles ./cmd/peppolgate as a static, reproducible linux binary. -buildvcs=true
// (overriding a GOFLAGS of -buildvcs=false) stamps the module version from the commit
// (Go ≥ 1.24), which is what the binary reports as its version. Go's own time zone
// database is embedded (-tags timetzdata) rather than copying the build machine's
// /usr/share/zoneinfo: one file less, and the data is fixed by the Go toolchain, not by
// whichever tzdata package the build machine has, which keeps the build reproducible.
func goBuild(o Options, arch, out string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=true", "-tags", "timetzdata",
		"-ldflags=-s -w -buildid=", "-o", out, "./cmd/peppolgate")
	cmd.Dir = o.Root
	// The machine's Go settings must not change the binary (or its digest): flags,
	// micro-architecture levels and experiments are reset; the toolchain is the one
	// named in go.mod.
	cmd.Env = append(buildEnv(os.Environ()), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build linux/%s: %v: %s", arch, err, strings.TrimSpace(stderr.String()))
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "build-image: go build linux/%s in %.1fs\n", arch, time.Since(t0).Seconds())
	}
	return nil
}

// image assembles one platform's image from scratch.
func image(o Options, arch, bin string, ca []byte, res *Result) (v1.Image, error) {
	exe, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	layerTar, err := rootfs(res.Created, exe, ca)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, MediaType: types.OCILayer, History: v1.History{
		Created: v1.Time{Time: res.Created}, CreatedBy: "scripts/build-image", Comment: "peppolgate " + res.Version}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = arch, "linux"
	cf.Created = v1.Time{Time: res.Created}
	id := strconv.Itoa(nonrootID)
	cf.Config = v1.Config{
		User:         id + ":" + id,
		Entrypoint:   []string{"/" + binPath},
		Cmd:          []string{"serve"},
		ExposedPorts: map[string]struct{}{port: {}},
		// No Env: Go reads /etc/ssl/certs/ca-certificates.crt by itself (no SSL_CERT_FILE
		// needed), and -addr's default is :8080 already (no PEPPOLGATE_ADDR).
		WorkingDir: "/" + dataDir,
		Volumes:    map[string]struct{}{"/" + dataDir: {}},
		Labels: map[string]string{
			"org.opencontainers.image.source":   o.Source,
			"org.opencontainers.image.revision": res.Revision,
			"org.opencontainers.image.version":  res.Version,
			"org.opencontainers.image.licenses": o.Licenses,
			"org.opencontainers.image.title":    title,
			"org.opencontainers.image.created":  res.Created.Format(time.RFC3339),
		},
	}
	return mutate.ConfigFile(img, cf)
}

// rootfs returns the layer's uncompressed tar: sorted entries, every time the commit time,
// fixed owners and modes.
func rootfs(mtime time.Time, exe, ca []byte) ([]byte, error) {
	type entry struct {
		hdr  tar.Header
		body []byte
	}
	dir := func(name string, mode int64, uid int) entry {
		return entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid}}
	}
	file := func(name string, mode int64, body []byte) entry {
		return entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(body))}, body: body}
	}
	id := strconv.Itoa(nonrootID)
	entries := []entry{
		file(binPath, 0o755, exe),
		dir(dataDir, 0o755, nonrootID),
		dir("etc", 0o755, 0),
		file("etc/group", 0o644, []byte("root:x:0:\nnonroot:x:"+id+":\n")),
		file("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:"+id+":"+id+":nonroot:/"+dataDir+":/sbin/nologin\n")),
		dir("etc/ssl", 0o755, 0),
		dir("etc/ssl/certs", 0o755, 0),
		file(caPath, 0o644, ca),
		dir("tmp", 0o1777, 0),
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].hdr.Name < entries[j].hdr.Name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		h.ModTime, h.Format = mtime, tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var tagUnsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// tagOf turns a version into an image tag: "+" and other characters a tag cannot hold
// become "-" (v0.0.0-2026…-853b0c4abcde+dirty → …-dirty).
func tagOf(v string) string {
	t := tagUnsafe.ReplaceAllString(v, "-")
	if len(t) > 128 {
		t = t[:128]
	}
	return t
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", errors.New("git " + strings.Join(args, " ") + ": " + err.Error() + ": " + strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// buildEnv returns env without the Go settings that would change the image's binary:
// GOFLAGS, GOAMD64, GOARM, GOARM64, GO386 and GOEXPERIMENT.
func buildEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOFLAGS", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOEXPERIMENT":
			continue
		}
		out = append(out, kv)
	}
	return out
}
