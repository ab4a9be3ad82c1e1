package backend

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
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
	b, err := New()
	if err != nil {
		t.Fatalf("New() on the default backend: %v", err)
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

func TestFilterLines(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"only the line", parallelismLine + "-1\n", ""},
		{"others kept", "a\n" + parallelismLine + "-1\nb\n", "a\nb\n"},
		{"last line without newline", parallelismLine + "4\ntail", "tail"},
		{"prefix inside a line is kept", "x " + parallelismLine + "2\n", "x " + parallelismLine + "2\n"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			filterLines(&out, strings.NewReader(tc.in), parallelismLine)
			if out.String() != tc.want {
				t.Errorf("filterLines(%q) = %q, want %q", tc.in, out.String(), tc.want)
			}
		})
	}
}

func TestSetsParallelism(t *testing.T) {
	for config, want := range map[string]bool{
		"go": false, "go:": false, "go:ops_sequential": false,
		"go:parallelism=-1": true, "go:ops_parallel,parallelism=2": true, "go:parallelism_x=1": false,
	} {
		if got := setsParallelism(config); got != want {
			t.Errorf("setsParallelism(%q) = %v, want %v", config, got, want)
		}
	}
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

// TestStartKeepsStdoutClean: starting the default backend prints nothing to standard
// output, while what is written there meanwhile, apart from simplego's parallelism line,
// still reaches it.
func TestStartKeepsStdoutClean(t *testing.T) {
	out := captureStdout(t, func() {
		b, err := NewWithConfig("go:parallelism=-1")
		if err != nil {
			t.Error(err)
			return
		}
		b.Finalize()
	})
	if out != "" {
		t.Errorf("starting the pure-Go backend wrote %q to stdout, want nothing", out)
	}
	out = captureStdout(t, func() {
		_ = withoutParallelismLine(func() error {
			fmt.Print("kept\n" + parallelismLine + "-1\n")
			fmt.Print("also kept")
			return nil
		})
	})
	if out != "kept\nalso kept" {
		t.Errorf("output written while the backend starts = %q, want %q", out, "kept\nalso kept")
	}
}
