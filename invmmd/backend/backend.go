// Package backend chooses the GoMLX backend that every graph of the project runs on.
//
// The choice lives here and nowhere else. The default is the pure-Go backend with
// unlimited parallelism ("go:parallelism=-1"): it needs no C library, and with its default
// worker pool (sized by the CPU count) training deadlocked on 2-core machines. The
// environment variable GOMLX_BACKEND overrides it, e.g. "xla:cpu" or "xla:cuda".
//
// The package has no side effects: importing it, or starting a backend, changes no GoMLX
// setting and writes nothing to standard output; the programs apply the pure-Go backend's
// block size themselves (GoDotBlockLog2Dim).
package backend

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gomlx/gomlx/backends"
	// The pure-Go backend is always compiled in; XLA is added by xla.go where cgo is available.
	"github.com/gomlx/gomlx/backends/simplego"
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

// NewWithConfig starts the backend for config, formatted "<name>[:<options>]" as in
// GOMLX_BACKEND (Config gives the one in force). The error says how to fix the
// configuration when the backend is not compiled in or cannot start (for XLA: no PJRT
// plugin found). A pure-Go backend's parallelism option is set on the backend it makes
// (newGo) rather than passed to simplego, which would print a line to standard output.
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
	if name != simplego.BackendName {
		return backends.NewWithConfig(config)
	}
	return newGo(config)
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

// Shared returns one backend for the whole process, started on first use from Config.
// Graph executors built on the same backend share its worker pool and device memory.
func Shared() (backends.Backend, error) {
	sharedOnce.Do(func() { sharedBackend, sharedErr = NewWithConfig(Config()) })
	return sharedBackend, sharedErr
}

// GoDotBlockLog2Dim is the side, as a power of 2, of the blocks in which the pure-Go
// backend multiplies float32 matrices: 16 instead of its default 32, so that the narrow
// products of small networks (9 taps of a 3×3 kernel, 16 channels) are padded less
// (BENCHMARKS.md gives the measured effect). Every committed result was made with it.
// simplego v0.26 reads it from a package variable for every pure-Go backend of the process,
// so a program sets it once, before its first graph, where it makes its backend:
//
//	simplego.DotGeneralTargetBlockLog2Dim[dtypes.Float32] = backend.GoDotBlockLog2Dim
//
// as cmd/invmmd's main and the notebooks' nb.New do; a library never does (internal/layers
// refuses a write into another package's variables).
const GoDotBlockLog2Dim = 4
