package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// runVersion prints the module's version and the commit the program was built from, as
// the Go toolchain recorded them in the binary (debug.ReadBuildInfo).
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", stdout, stderr, func() string {
		return "Prints the module's version ((devel) for a build from a work tree without a version), the commit it was\n" +
			"built from and whether the work tree had uncommitted changes (unknown when the build recorded no VCS\n" +
			"information, as go run and go test do not), and the Go version. Quote it with a bug report or a result."
	})
	if err := parse(fs, args); err != nil {
		return err
	}
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(bi, ok))
	return nil
}

// versionText renders what runVersion prints from the build information bi (ok false
// when the binary holds none): "(devel)" for a version and "unknown" for a setting that is
// not recorded.
func versionText(bi *debug.BuildInfo, ok bool) string {
	version, module, goVersion := "(devel)", "github.com/invmmd/invmmd", "unknown"
	settings := map[string]string{}
	if ok && bi != nil {
		version, module, goVersion = cmp.Or(bi.Main.Version, version), cmp.Or(bi.Main.Path, module), cmp.Or(bi.GoVersion, goVersion)
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	get := func(key string) string { return cmp.Or(strings.TrimSpace(settings[key]), "unknown") }
	var b strings.Builder
	fmt.Fprintf(&b, "invmmd %s\n", version)
	fmt.Fprintf(&b, "module   %s\n", module)
	fmt.Fprintf(&b, "commit   %s\n", get("vcs.revision"))
	fmt.Fprintf(&b, "modified %s\n", get("vcs.modified"))
	fmt.Fprintf(&b, "go       %s\n", goVersion)
	return b.String()
}
