package backend

import (
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
