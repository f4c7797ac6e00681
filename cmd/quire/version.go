package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is the release's version, set when a release is built:
//
//	go build -ldflags "-X main.version=v1.4.0" ./cmd/quire
//
// Left empty (go run, go build, go install), binaryVersion reads what the Go toolchain recorded.
var version string

// binaryVersion is the version `quire version`, /metrics and the API document show: the release's
// when one was set; else the module version `go install …@v1.4.0` records, or the commit a build
// from a checkout records; else "devel" (test binaries record neither, so tests see one
// unchanging value and the document's etag stays put).
func binaryVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + rev[:min(12, len(rev))] + dirty
}

// printVersion answers `quire version` and `quire --version`.
func printVersion(stdout io.Writer) error {
	_, err := fmt.Fprintf(stdout, "quire %s (%s %s/%s)\n", binaryVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
