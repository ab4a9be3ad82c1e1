package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestResumeLinePathsAbsolute: the command line fit prints to go on after an
// interruption names -data and -out by absolute paths, in every way the flags are
// written, so that it works from any folder; other values are kept as given.
func TestResumeLinePathsAbsolute(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { return filepath.Join(wd, p) }
	for _, tc := range []struct {
		name       string
		args, want []string
	}{
		{"separate values", []string{"-data", "d.csv", "-out", "o", "-y", "y"}, []string{"-data", abs("d.csv"), "-out", abs("o"), "-y", "y"}},
		{"with =", []string{"-data=d.csv", "--out=o"}, []string{"-data=" + abs("d.csv"), "--out=" + abs("o")}},
		{"already absolute", []string{"-data", "/x/d.csv"}, []string{"-data", "/x/d.csv"}},
		{"empty -out", []string{"-out", ""}, []string{"-out", ""}},
		{"a column named data", []string{"-y", "data", "-x", "out"}, []string{"-y", "data", "-x", "out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := absolutePaths(tc.args, "data", "out"); !slices.Equal(got, tc.want) {
				t.Errorf("absolutePaths(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}
