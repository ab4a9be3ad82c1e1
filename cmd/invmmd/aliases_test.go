package main

import (
	"flag"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOldAndNewNameRefused: a flag given under its old name (kept for one release) and its
// new one is refused, naming both, in either order; the later used to win silently.
func TestOldAndNewNameRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"variance -seed and -seeds", []string{"variance", "-quick", "-seed", "3", "-seeds", "4", "-check", "-out", out}, "-seed and -seeds"},
		{"prop1 -seed and -seeds", []string{"prop1", "-seeds", "2", "-seed", "2", "-n", "40", "-reps", "2"}, "-seed and -seeds"},
		{"diagnose -method and -methods", []string{"diagnose", "sim", "-quick", "-method", "dr", "-methods", "dr", "-out", out}, "-method and -methods"},
		{"diagnose -lambda and -lambdas", []string{"diagnose", "sim", "-quick", "-lambdas", "5", "-lambda", "1", "-out", out}, "-lambda and -lambdas"},
	} {
		msg, _, stderr := run(t, tc.args...)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: invmmd %s:\nerror %q (stderr %q)\nwant one containing %q", tc.name, strings.Join(tc.args, " "), msg, stderr, tc.want)
		}
	}
}

// TestGivenFlags: the flags a command line sets, read as the flag package reads them.
func TestGivenFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("out", "", "")
	fs.String("y", "", "")
	fs.Bool("force", false, "")
	aliasTo(fs, "csv", "out", io.Discard)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-out", "-csv"}, []string{"out"}},                 // -csv is -out's value
		{[]string{"-force", "-csv", "a"}, []string{"csv", "force"}}, // a boolean takes no value
		{[]string{"--out=a", "-y", "-force"}, []string{"out", "y"}},
		{[]string{"-force=false", "-y", "b", "--", "-out", "c"}, []string{"force", "y"}},
		{[]string{"-y", "b", "word", "-out", "c"}, []string{"y"}},
	} {
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if got := slices.Sorted(maps.Keys(givenFlags(fs, tc.args))); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}
