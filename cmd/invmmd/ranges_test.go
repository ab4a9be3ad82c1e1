package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRangesRefused: a value outside the range a flag's help gives, or two flags that
// contradict each other, is refused before any work, naming the flag and the value, where
// it used to be replaced silently by the default (0 reads as "the default" in owndata's
// configurations) or one of the two flags won.
func TestRangesRefused(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.csv") // never read: each refusal comes first
	out := filepath.Join(dir, "out")
	own := []string{"-data", missing, "-y", "y", "-z", "z"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"test -B 0, cross route", append([]string{"test", "-outputs", "h", "-B", "0"}, own...), "-B 0: want 100 to 100000 resamples"},
		{"test -B 0, wild route", append([]string{"test", "-outputs", "h", "-route", "wild", "-B", "0"}, own...), "-B 0: want 100 to 100000 resamples"},
		{"test -B=00", append([]string{"test", "-outputs", "h", "-route", "permutation", "-B=00"}, own...), "-B 0: want 100 to 100000 resamples"},
		{"test -folds 0", append([]string{"test", "-outputs", "h", "-folds", "0"}, own...), "-folds 0: want 1 (sample splitting) to 20 folds"},
		{"estimate -folds 0", append([]string{"estimate", "-outputs", "h", "-folds", "0"}, own...), "-folds 0: want 1 (sample splitting) to 20 folds"},
		{"estimate -folds 21", append([]string{"estimate", "-outputs", "h", "-folds", "21"}, own...), "-folds 21: want 1 (sample splitting) to 20 folds"},
		{"fit -resume -force", append([]string{"fit", "-out", out, "-resume", "-force"}, own...), "-resume and -force"},
		{"fit -force -resume", append([]string{"fit", "-out", out, "-force", "-resume=true"}, own...), "-resume and -force"},
		{"sim: a λ listed twice", []string{"sim", "-quick", "-out", out, "-lambdas", "1,5,1.0"}, "-lambdas: λ 1 listed twice"},
		{"diagnose: a λ listed twice", []string{"diagnose", "sim", "-quick", "-out", out, "-methods", "dr", "-lambdas", "5,5e0", "-seeds", "1"}, "-lambdas: λ 5 listed twice"},
	} {
		msg, _, _ := run(t, tc.args...)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: invmmd %s:\nerror %q\nwant one containing %q", tc.name, strings.Join(tc.args, " "), msg, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: -out %s was created", tc.name, out)
			os.RemoveAll(out)
		}
	}
}

// TestFitResumeLineDropsForce: the line fit prints after an interruption goes on with
// -resume and without -force, which -resume refuses (the interrupted run's files are of
// its own settings, so -force has nothing left to replace).
func TestFitResumeLineDropsForce(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-data", "a.csv", "-force"}, "invmmd fit -data a.csv -resume"},
		{[]string{"--force", "-data", "a.csv"}, "invmmd fit -data a.csv -resume"},
		{[]string{"-force=true", "-out", "-forced", "-resume"}, "invmmd fit -out -forced -resume"},
		{[]string{"-data", "force"}, "invmmd fit -data force -resume"},
	} {
		if got := resumeLine("fit", withoutFlag(tc.args, "force")); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}
