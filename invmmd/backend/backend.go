// Package backend chooses the GoMLX backend that every graph of the project runs on.
//
// The choice lives here and nowhere else. The default is the pure-Go backend with
// unlimited parallelism ("go:parallelism=-1"): it needs no C library, and with the default
// worker-pool limit it deadlocked on 2-core machines (see the project's STACK notes). The
// environment variable GOMLX_BACKEND overrides it, e.g. "xla:cpu" or "xla:cuda".
package backend

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gomlx/gomlx/backends"
	// The pure-Go backend is always compiled in; XLA is added by xla.go where cgo is available.
	_ "github.com/gomlx/gomlx/backends/simplego"
)

// Default is the configuration used when GOMLX_BACKEND is not set.
const Default = "go:parallelism=-1"

// EnvVar is the environment variable that overrides Default.
const EnvVar = backends.ConfigEnvVar

// Config returns the configuration string in force: $GOMLX_BACKEND when set and not empty,
// Default otherwise.
func Config() string {
	if v := strings.TrimSpace(os.Getenv(EnvVar)); v != "" {
		return v
	}
	return Default
}

// New starts the backend named by Config. The error says how to fix the configuration
// when the backend is not compiled in or cannot start (for XLA: no PJRT plugin found).
func New() (backends.Backend, error) {
	return NewWithConfig(Config())
}

// NewWithConfig starts the backend for config, formatted "<name>[:<options>]" as in
// GOMLX_BACKEND.
func NewWithConfig(config string) (b backends.Backend, err error) {
	name, _, _ := strings.Cut(config, ":")
	available := backends.List()
	slices.Sort(available)
	if !slices.Contains(available, name) {
		hint := ""
		if name == "xla" {
			hint = " (XLA needs cgo: build without the noxla tag and with CGO_ENABLED=1)"
		}
		return nil, fmt.Errorf("backend %q (from %s=%q) is not compiled in%s; available: %s; unset %s to use the default %q",
			name, EnvVar, config, hint, strings.Join(available, ", "), EnvVar, Default)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("backend %q panicked while starting: %v", config, r)
		}
		if err != nil {
			err = fmt.Errorf("cannot start GoMLX backend %q: %w\n%s", config, err, fixHint(name))
			b = nil
		}
	}()
	// The pure-Go backend prints its parallelism setting to stdout; keep that out of the
	// program's output (tables and CSV may be written to stdout).
	err = withStdoutTo(io.Discard, func() error {
		var e error
		b, e = backends.NewWithConfig(config)
		return e
	})
	return b, err
}

func fixHint(name string) string {
	switch name {
	case "xla":
		return "To fix: install a PJRT plugin and point PJRT_PLUGIN_LIBRARY_PATH at its folder " +
			"(the CUDA plugin ships in the Python wheel jax-cuda13-pjrt), or give its absolute path as " +
			"GOMLX_BACKEND=xla:/path/to/pjrt_c_api_cpu_plugin.so; set GOMLX_NO_AUTO_INSTALL=1 when offline; " +
			"or unset " + EnvVar + " to use the pure-Go default " + Default + "."
	case "go":
		return "To fix: valid options are parallelism=N, ops_sequential, ops_parallel (e.g. " + Default + ")."
	}
	return "To fix: unset " + EnvVar + " to use the default " + Default + "."
}

var (
	sharedOnce    sync.Once
	sharedBackend backends.Backend
	sharedErr     error
)

// Shared returns one backend for the whole process, started on first use with New.
// Graph executors built on the same backend share its worker pool and device memory.
func Shared() (backends.Backend, error) {
	sharedOnce.Do(func() { sharedBackend, sharedErr = New() })
	return sharedBackend, sharedErr
}

// withStdoutTo runs fn with os.Stdout redirected to w. It is only used while a backend is
// constructed, before any concurrent work starts.
func withStdoutTo(w io.Writer, fn func() error) error {
	r, pw, err := os.Pipe()
	if err != nil {
		return fn()
	}
	saved := os.Stdout
	os.Stdout = pw
	done := make(chan struct{})
	go func() { _, _ = io.Copy(w, r); close(done) }()
	defer func() {
		os.Stdout = saved
		_ = pw.Close()
		<-done
		_ = r.Close()
	}()
	return fn()
}
