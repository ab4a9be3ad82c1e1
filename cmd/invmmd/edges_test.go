package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
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

// TestHelpAmongFlags: -h (or -help) anywhere among the flags asks for help, printed to
// stdout, in estimate and test too, where -h was the old name of -outputs (retired): a
// value after it is no longer read as a column.
func TestHelpAmongFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		help bool
	}{
		{"estimate -h last", []string{"estimate", "-data", "f.csv", "-h"}, true},
		{"estimate -h before a flag", []string{"estimate", "-h", "-data", "f.csv"}, true},
		{"test --h last", []string{"test", "-data", "f.csv", "--h"}, true},
		{"test -h before a flag", []string{"test", "-h", "-data", "f.csv"}, true},
		{"fit -help after a value", []string{"fit", "-data", "f.csv", "-help"}, true},
		{"estimate -h a column", []string{"estimate", "-data", "no-such.csv", "-h", "logit", "-y", "y", "-z", "z", "-g", "g", "-m", "m"}, true},
		{"estimate -h as a flag's value", []string{"estimate", "-data", "-h", "-y", "y", "-z", "z", "-outputs", "no-such"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runCmd(t, tc.args...)
			isHelp := errors.Is(err, flag.ErrHelp) && strings.Contains(out, "usage: invmmd "+tc.args[0])
			if isHelp != tc.help {
				t.Errorf("%q: help %v (error %v), want %v", tc.args, isHelp, err, tc.help)
			}
		})
	}
}

// TestInterruptedSaysRunAgain: after Ctrl-C a command with -resume says how to go on
// where it stopped, and one without (estimate, test, predict) that its line runs it
// again, since it keeps nothing to go on from.
func TestInterruptedSaysRunAgain(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		want, lack string
	}{
		{"fit", ownError(nil, context.Canceled, "kept", resumeLine("fit", []string{"-data", "d.csv"})), "To go on where it stopped, run:\n  invmmd fit -data d.csv -resume", "run it again"},
		{"estimate", ownError(nil, context.Canceled, "nothing was written", rerunLine("estimate", []string{"-data", "d.csv"})), "To run it again, run:\n  invmmd estimate -data d.csv", "go on where it stopped"},
		{"test", ownError(nil, context.Canceled, "nothing was written", rerunLine("test", []string{"-data", "d.csv"})), "To run it again, run:\n  invmmd test -data d.csv", "go on where it stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := tc.err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.lack) {
				t.Errorf("%q, want %q and not %q", msg, tc.want, tc.lack)
			}
		})
	}
}

// TestFitMethodsAll: fit's -methods all and ext expand only to methods fit accepts on any
// table (none needing the true G, not full), where before all gave dr+ and was refused.
func TestFitMethodsAll(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"all", "none,obs,dr,reg,ip"},
		{" ALL ", "none,obs,dr,reg,ip"},
		{"dr,full", "dr,full"},
		{"dr+", "dr+"}, // named: refused by fit, with the reason
	} {
		t.Run(tc.in, func(t *testing.T) {
			ms, err := fitMethods(tc.in)
			if err != nil || method.List(ms) != tc.want {
				t.Errorf("fitMethods(%q) = %s, %v; want %s", tc.in, method.List(ms), err, tc.want)
			}
		})
	}
	ext, err := fitMethods("ext")
	if err != nil || len(ext) == 0 || slices.ContainsFunc(ext, func(m method.Method) bool { return m.NeedsTrueG() }) {
		t.Errorf("fitMethods(ext) = %v, %v; want the extensions without the true G", ext, err)
	}
}
