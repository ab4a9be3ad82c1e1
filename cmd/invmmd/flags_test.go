package main

import (
	"flag"
	"io"
	"maps"
	"slices"
	"testing"
)

// TestGivenFlags: the flags a command line sets, read as the flag package reads them.
func TestGivenFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("out", "", "")
	fs.String("y", "", "")
	fs.Bool("force", false, "")
	fs.String("csv", "", "")
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
