// Package backend chooses the GoMLX backend that every graph of the project runs on.
//
// The choice lives here and nowhere else. The default is the pure-Go backend with
// unlimited parallelism ("go:parallelism=-1"): it needs no C library, and with its default
// worker pool (sized by the CPU count) training deadlocked on 2-core machines. The
// environment variable GOMLX_BACKEND overrides it, e.g. "xla:cpu" or "xla:cuda".
//
// Importing this package (or any package of the project) changes no GoMLX setting. The
// pure-Go backend's one tuning that this project makes, the block size of its matrix
// products (GoDotBlockLog2Dim), is applied by NewWithConfig when it starts a pure-Go
// backend, before the backend exists.
package backend

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gomlx/gomlx/backends"
	// The pure-Go backend is always compiled in; XLA is added by xla.go where cgo is available.
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
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
// GOMLX_BACKEND. Before it starts a pure-Go backend it sets the block size of its matrix
// products (GoDotBlockLog2Dim), and it keeps the line that backend prints about its
// parallelism out of standard output (withoutParallelismLine).
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
	applyGoSettings()
	if !setsParallelism(config) {
		return backends.NewWithConfig(config)
	}
	err = withoutParallelismLine(func() error {
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

// GoDotBlockLog2Dim is the side, as a power of 2, of the blocks in which the pure-Go
// backend multiplies float32 matrices: 16 instead of its default 32 (simplego sizes the
// blocks to fill 16 KiB), so that the narrow products of small networks (9 taps of a 3×3
// kernel, 16 channels) are padded less. Measured on 2 shared cores (CPU time of the
// models test binary, compilation included, three alternating runs each with and without
// it), it cut the CPU time of 4 DefaultCNN training steps (and 4 of its im2col variant,
// batch 256) by 18% and of 10 PooledCNN steps (likewise) by 26%; 20 steps of the
// simulation's MLP took 7% less, within the noise (BenchmarkCNNTrainStep and
// BenchmarkMLPTrainStep in package models). Every committed result was made with it.
const GoDotBlockLog2Dim = 4

var goSettings sync.Once

// applyGoSettings sets the pure-Go backend's block size for float32 matrix products
// (GoDotBlockLog2Dim), once, before the first pure-Go backend of the process is started
// here. GoMLX v0.26's simplego has no per-backend option for it: the block size is the
// package variable simplego.DotGeneralTargetBlockLog2Dim, read when a graph is built and
// when it runs, so it applies to every pure-Go backend of the process, including one
// started elsewhere after this. It is set here, where the backend is chosen, and not when
// a package is imported, so that importing the library changes nothing.
func applyGoSettings() {
	goSettings.Do(func() { simplego.DotGeneralTargetBlockLog2Dim[dtypes.Float32] = GoDotBlockLog2Dim })
}

// parallelismLine starts the line the pure-Go backend prints to standard output when its
// configuration sets parallelism.
const parallelismLine = "SimpleGo backend: parallelism set to "

// setsParallelism reports whether a pure-Go backend configuration ("go:opt,opt=v,...")
// has the parallelism option, the one that makes simplego print parallelismLine.
func setsParallelism(config string) bool {
	_, opts, _ := strings.Cut(config, ":")
	for _, o := range strings.Split(opts, ",") {
		if k, _, _ := strings.Cut(o, "="); strings.TrimSpace(k) == "parallelism" {
			return true
		}
	}
	return false
}

// stdoutMu serialises the replacements of os.Stdout by withoutParallelismLine, so that
// two backends started at once do not restore each other's.
var stdoutMu sync.Mutex

// withoutParallelismLine runs fn (the start of a pure-Go backend whose configuration sets
// parallelism) with os.Stdout replaced by a pipe whose lines are copied to the real
// standard output, except the one that starts with parallelismLine. simplego.New prints
// that line with fmt.Printf; kept, it would land in the program's output, where the CLI
// writes tables and CSV. A narrower way does not exist in GoMLX v0.26: the worker limit
// can be set only through the parallelism option (the pool is unexported and has no
// setter), fmt.Printf writes to whatever os.Stdout holds, and the only other handle on
// it, file descriptor 1, is shared with C code as well. So os.Stdout is replaced, but only
// while fn runs, only when the option is given, one call at a time, and nothing else is
// dropped: what other goroutines write meanwhile reaches standard output when fn returns.
func withoutParallelismLine(fn func() error) error {
	stdoutMu.Lock()
	defer stdoutMu.Unlock()
	r, pw, err := os.Pipe()
	if err != nil {
		return fn()
	}
	saved := os.Stdout
	os.Stdout = pw
	done := make(chan struct{})
	go func() { filterLines(saved, r, parallelismLine); close(done) }()
	defer func() {
		os.Stdout = saved
		_ = pw.Close()
		<-done
		_ = r.Close()
	}()
	return fn()
}

// filterLines copies r to w line by line, leaving out the lines that start with prefix.
// A last line without a newline is copied as it is.
func filterLines(w io.Writer, r io.Reader, prefix string) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && !bytes.HasPrefix(line, []byte(prefix)) {
			_, _ = w.Write(line)
		}
		if err != nil {
			return
		}
	}
}
