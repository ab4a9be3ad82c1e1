package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The experiment commands share the own-data commands' vocabulary: -methods,
// -lambdas and -seeds everywhere, an empty list given on purpose refused as fit refuses it,
// numbers that do not parse said in words (never Go's "parse error"), and the names retired
// with the last release (-seed, -method, -lambda) refused as unknown. Every case returns before any training.
func TestExperimentFlagVocabulary(t *testing.T) {
	data := ownCSV(t, 200, false)
	tmp := t.TempDir()
	out := func(name string) string { return filepath.Join(tmp, name) }
	fit := []string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-out", out("fit")}
	for _, c := range []struct {
		name    string
		args    []string
		wantErr string // "" for a run that succeeds
		wantOut string // in stdout
		warn    string // in stderr
	}{
		{"sweep: empty -seeds", []string{"sim", "-quick", "-seeds", "", "-check", "-out", out("a")}, `-seeds "": empty; leave the flag out for the default (1,2,3,4,5, or 1 with -quick)`, "", ""},
		{"sweep: empty -methods", []string{"sim", "-quick", "-methods", " ", "-check", "-out", out("a")}, `-methods " ": empty; leave the flag out`, "", ""},
		{"sweep: empty -lambdas", []string{"clinical", "-quick", "-lambdas=", "-check", "-out", out("a")}, `-lambdas "": empty; leave the flag out`, "", ""},
		{"sweep: defaults without the flags", []string{"sim", "-quick", "-check", "-out", out("a")}, "", "sim: 5 fits in all", ""},
		{"fit: empty -seeds", append(append([]string{}, fit...), "-seeds", ""), `-seeds "": empty; want at least one seed`, "", ""},
		{"sweep: option int in words", []string{"sim", "-quick", "-batch", "many", "-check", "-out", out("a")}, `invalid value "many" for flag -batch: want a whole number`, "", ""},
		{"variance: -seeds in words", []string{"variance", "-quick", "-seeds", "x", "-check", "-out", out("v")}, `invalid value "x" for flag -seeds: want a whole number ≥ 0`, "", ""},
		{"variance: one seed", []string{"variance", "-quick", "-seeds", "1,2", "-check", "-out", out("v")}, "want one seed", "", ""},
		{"variance: -batches in words", []string{"variance", "-quick", "-batches", "2.5", "-check", "-out", out("v")}, "-batches: want a whole number", "", ""},
		{"variance: retired -seed", []string{"variance", "-quick", "-seed", "3", "-check", "-out", out("v")}, "flag provided but not defined: -seed", "", ""},
		{"prop1: -seeds in words", []string{"prop1", "-seeds", "-1"}, "-seeds: want a whole number ≥ 0", "", ""},
		{"prop1: -reps in words", []string{"prop1", "-reps", "ten"}, "-reps: want a whole number", "", ""},
		{"prop1: retired -seed", []string{"prop1", "-seed", "2", "-n", "40", "-reps", "2"}, "flag provided but not defined: -seed", "", ""},
		{"prop1: -seeds", []string{"prop1", "-seeds", "2", "-n", "40", "-reps", "2"}, "", "seed 2; 2 repetitions of 40 rows", ""},
		{"all: -jobs in words", []string{"all", "-quick", "-jobs", "two", "-out", out("all")}, "-jobs: want a whole number", "", ""},
		{"calibration: -workers in words", []string{"calibration", "-quick", "-workers", "1e3", "-check", "-out", out("c")}, "-workers: want a whole number", "", ""},
		{"diagnose: retired -method", []string{"diagnose", "sim", "-quick", "-method", "none", "-out", out("d")}, "flag provided but not defined: -method", "", ""},
		{"diagnose: λ = 0", []string{"diagnose", "sim", "-quick", "-lambdas", "0", "-out", out("d")}, "-lambdas 0: λ = 0, want values > 0", "", ""},
		{"diagnose: -seeds in words", []string{"diagnose", "sim", "-quick", "-seeds", "x", "-out", out("d")}, `-seeds: seed "x" is not a non-negative integer`, "", ""},
		{"diagnose: a list", []string{"diagnose", "sim", "-quick", "-methods", "dr,none", "-out", out("d")}, "-methods dr,none: none has no penalty to diagnose", "", ""},
		{"diagnose: empty -seeds", []string{"diagnose", "sim", "-quick", "-seeds", "", "-out", out("d")}, `-seeds "": empty; want at least one seed`, "", ""},
		{"merge: not an experiment", []string{"merge", "-out", tmp, "-experiments", "foo"}, `"foo" is no experiment's name: the main job stores its results as sim, sim_mf075, tmnist, clinical`, "", ""},
	} {
		msg, stdout, stderr := run(t, c.args...)
		switch {
		case c.wantErr == "" && msg != "":
			t.Errorf("%s: invmmd %s: %s", c.name, strings.Join(c.args, " "), msg)
		case !strings.Contains(msg, c.wantErr):
			t.Errorf("%s: invmmd %s: error %q, want it to say %q", c.name, strings.Join(c.args, " "), msg, c.wantErr)
		case strings.Contains(msg, "parse error"):
			t.Errorf("%s: error %q says Go's \"parse error\"", c.name, msg)
		}
		if !strings.Contains(stdout, c.wantOut) {
			t.Errorf("%s: stdout %q, want %q", c.name, stdout, c.wantOut)
		}
		if !strings.Contains(stderr, c.warn) {
			t.Errorf("%s: stderr %q, want %q", c.name, stderr, c.warn)
		}
	}
}

// merge names the experiments whose results are there when -experiments names one that
// has none.
func TestMergeSaysWhichResultsExist(t *testing.T) {
	for _, c := range []struct {
		stored []string
		name   string
		want   []string
	}{
		{nil, "sim", []string{`no results of "sim"`, "(there are none)"}},
		{[]string{"sim", "variance"}, "sim_mf075", []string{`no results of "sim_mf075"`, "the results there are of sim, variance)"}},
		{[]string{"sim"}, "simm", []string{"the results there are of sim)", `"simm" is no experiment's name`}},
	} {
		msg := noResults("OUT", c.name, c.stored).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("noResults(%v, %s) = %q, want it to say %q", c.stored, c.name, msg, w)
			}
		}
		if _, known := map[string]bool{"sim": true, "sim_mf075": true}[c.name]; known && strings.Contains(msg, "no experiment's name") {
			t.Errorf("noResults(%s) calls a known experiment unknown: %q", c.name, msg)
		}
	}
}

// Both helps say which objective is the default and why they differ.
func TestObjectiveDefaultsSaidInHelp(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want string
	}{
		{"sim", "the default here is paper, the paper's objective, because the experiment commands reproduce the paper's protocol (invmmd fit, for your own data, defaults to robust)"},
		{"fit", "robust (the default here)"},
		{"fit", "paper is the paper's objective, the default of the experiment commands"},
	} {
		_, help, _ := run(t, c.cmd, "-h")
		if !strings.Contains(strings.Join(strings.Fields(help), " "), c.want) {
			t.Errorf("invmmd %s -h lacks %q", c.cmd, c.want)
		}
	}
}
