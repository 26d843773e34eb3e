package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version returns the module version the binary was built from, or "dev" plus the
// first 12 characters of the VCS revision for a build from a checkout.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v := "dev"
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "+" + s.Value[:12]
		}
	}
	return v
}

// versionLine is what -version prints: "peppolgate <version> (<revision>, <go
// version>, <os/arch>)", the revision "unknown" when the build recorded none.
func versionLine() string {
	rev := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				rev = s.Value
			}
		}
	}
	return fmt.Sprintf("peppolgate %s (%s, %s, %s/%s)", version(), rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
