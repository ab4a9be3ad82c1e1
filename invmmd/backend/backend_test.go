package backend

import (
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
)

func TestConfigDefaultAndOverride(t *testing.T) {
	t.Setenv(EnvVar, "")
	if got := Config(); got != Default {
		t.Fatalf("Config() with %s unset = %q, want %q", EnvVar, got, Default)
	}
	t.Setenv(EnvVar, "xla:cuda")
	if got := Config(); got != "xla:cuda" {
		t.Fatalf("Config() = %q, want the override xla:cuda", got)
	}
}

func TestNewDefaultRunsAGraph(t *testing.T) {
	t.Setenv(EnvVar, "")
	b, err := NewWithConfig(Config())
	if err != nil {
		t.Fatalf("NewWithConfig(Config()) on the default backend: %v", err)
	}
	defer b.Finalize()
	if !strings.Contains(b.String(), "go") {
		t.Fatalf("default backend is %q, want the pure-Go backend", b.String())
	}
}

func TestNewErrorsSayHowToFix(t *testing.T) {
	t.Setenv("GOMLX_NO_AUTO_INSTALL", "1")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", t.TempDir())
	for _, tc := range []struct {
		config string
		want   []string
	}{
		{"nosuchbackend", []string{"not compiled in", "nosuchbackend", Default}},
		{"go:frobnicate", []string{"cannot start", "frobnicate", "parallelism"}},
		{"xla:nosuchplugin", []string{"xla", "To fix", "PJRT_PLUGIN_LIBRARY_PATH"}},
	} {
		t.Run(tc.config, func(t *testing.T) {
			b, err := NewWithConfig(tc.config)
			if err == nil {
				b.Finalize()
				t.Fatalf("NewWithConfig(%q) succeeded, want an error", tc.config)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// parallelism returns the worker limit of a pure-Go backend (what setParallelism sets).
func parallelism(b backends.Backend) (int, bool) {
	v := reflect.ValueOf(b)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return 0, false
	}
	f := v.Elem().FieldByName("workers").FieldByName("maxParallelism")
	if !f.IsValid() || f.Kind() != reflect.Int {
		return 0, false
	}
	return int(f.Int()), true
}

// captureStdout returns what fn writes to os.Stdout.
func captureStdout(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	got := make(chan string)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	fn()
	os.Stdout = saved
	_ = w.Close()
	return <-got
}

// TestStartHasNoSideEffects: starting a pure-Go backend with a worker limit prints nothing
// to standard output (simplego would print its "parallelism set to" line, given the
// option), sets the limit on that backend (as simplego does with the option: -1 unlimited,
// 3 three workers; without the option its default, one per CPU), and changes no GoMLX
// setting: simplego's block size stays its default (GoDotBlockLog2Dim is the programs' to
// apply).
func TestStartHasNoSideEffects(t *testing.T) {
	before := simplego.DotGeneralTargetBlockLog2Dim
	for _, tc := range []struct {
		config string
		want   int
	}{{"go:parallelism=-1", -1}, {"go:ops_sequential,parallelism=3", 3}, {"go", runtime.NumCPU()}} {
		var b backends.Backend
		out := captureStdout(t, func() {
			var err error
			if b, err = NewWithConfig(tc.config); err != nil {
				t.Error(err)
			}
		})
		if b == nil {
			continue
		}
		if out != "" {
			t.Errorf("starting %q wrote %q to stdout, want nothing", tc.config, out)
		}
		if got, ok := parallelism(b); !ok || got != tc.want {
			t.Errorf("%q: worker limit %d (found %v), want %d", tc.config, got, ok, tc.want)
		}
		b.Finalize()
	}
	if simplego.DotGeneralTargetBlockLog2Dim != before {
		t.Errorf("starting backends changed simplego's block sizes %v to %v", before, simplego.DotGeneralTargetBlockLog2Dim)
	}
	if simplego.DotGeneralTargetBlockLog2Dim[dtypes.Float32] == GoDotBlockLog2Dim {
		t.Errorf("simplego's default float32 block size equals GoDotBlockLog2Dim (%d): the tuning would change nothing", GoDotBlockLog2Dim)
	}
	if _, err := NewWithConfig("go:parallelism=x"); err == nil || !strings.Contains(err.Error(), "needs an int") {
		t.Errorf("go:parallelism=x: error %v, want one saying it needs an int", err)
	}
}
