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
	missing := filepath.Join(dir, "missing.csv") // never read: the refusal comes first
	own := []string{"-data", missing, "-y", "y", "-z", "z"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"estimate -out then -csv", append([]string{"estimate", "-outputs", "h", "-out", "a.csv", "-csv", "b.csv"}, own...), "-csv and -out: -csv is the old name of -out"},
		{"estimate -csv then -out", append([]string{"estimate", "-outputs", "h", "-csv=b.csv", "--out", "a.csv"}, own...), "-csv and -out: -csv is the old name of -out"},
		{"estimate -outputs then -h", append([]string{"estimate", "-outputs", "logit", "-h", "probability"}, own...), "-h and -outputs: -h is the old name of -outputs"},
		{"test -h then -outputs", append([]string{"test", "-h", "probability", "-outputs", "logit"}, own...), "-h and -outputs: -h is the old name of -outputs"},
		{"test -csv and -out", append([]string{"test", "-outputs", "h", "-csv", "b.csv", "-out", "a.csv"}, own...), "-csv and -out"},
		{"test -seed and -seeds", append([]string{"test", "-outputs", "h", "-seeds", "1", "-seed", "2"}, own...), "-seed and -seeds: -seed is the old name of -seeds"},
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
