package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/owndata"
)

// TestOneClassLabelMessage: a label column with one value, named positive or not, is
// refused by every command that reads a label, saying the label has one class (its value
// as written on every row) and that there is nothing to compare, where it used to say
// "has only the value 1" of the 0/1 it was read as.
func TestOneClassLabelMessage(t *testing.T) {
	data := writeFile(t, "one.csv", "y,z,x,h\nhigh,1,0.1,0.2\nhigh,0,0.2,0.4\nhigh,1,0.3,0.1\nhigh,,0.4,0.3\n")
	own := []string{"-data", data, "-y", "y", "-z", "z"}
	want := `column "y" (-y) has one class ("high" on every row): nothing to compare`
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"estimate -y-positive high", append([]string{"estimate", "-y-positive", "high", "-outputs", "h", "-x", "x"}, own...)},
		{"test -y-positive high", append([]string{"test", "-y-positive", "high", "-outputs", "h", "-x", "x"}, own...)},
		{"fit -y-positive high", append([]string{"fit", "-y-positive", "high", "-x", "x", "-out", t.TempDir() + "/o"}, own...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, _, _ := run(t, tc.args...)
			if !strings.Contains(msg, want) || strings.Contains(msg, "only the value") {
				t.Errorf("invmmd %s:\nerror %q\nwant one containing %q", strings.Join(tc.args, " "), msg, want)
			}
		})
	}
}

// TestNoFeaturesSaysWhereGAndMComeFrom: estimate or test without -x, -g or -m say that G
// and m are fitted on the features of -x or read from -g/-m columns, naming only the
// methods that need them, and that obs (which needs neither) runs alone with -methods obs,
// where estimate used to say "methods obs,... need G".
func TestNoFeaturesSaysWhereGAndMComeFrom(t *testing.T) {
	data := writeFile(t, "nox.csv", "y,z,x,h\n1,1,0.1,0.2\n0,0,0.2,0.4\n1,1,0.3,0.1\n0,,0.4,0.3\n1,0,0.5,0.5\n0,1,0.6,0.6\n")
	own := []string{"-data", data, "-y", "y", "-z", "z", "-outputs", "h"}
	const where = "they are fitted on the features named by -x, or read from columns of fitted probabilities named by -g and -m; obs, which needs neither G nor m, can run alone with -methods obs"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"estimate, default methods", append([]string{"estimate"}, own...), "methods ip,reg,dr,dr-po need G = P(Δ = 1 | X, Y) and m = P(Z = 1 | X, Y): " + where},
		{"estimate -methods obs,ip", append([]string{"estimate", "-methods", "obs,ip"}, own...), "methods ip need G = P(Δ = 1 | X, Y): it is fitted on the features named by -x, or read from a column of fitted probabilities named by -g; obs"},
		{"estimate -g given", append([]string{"estimate", "-g", "x", "-methods", "obs,dr"}, own...), "methods dr need m = P(Z = 1 | X, Y): it is fitted on the features named by -x, or read from a column of fitted probabilities named by -m; obs"},
		{"test, default methods", append([]string{"test"}, own...), "methods dr need G = P(Δ = 1 | X, Y) and m = P(Z = 1 | X, Y): " + where},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, _, _ := run(t, tc.args...)
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "methods obs,") {
				t.Errorf("invmmd %s:\nerror %q\nwant one containing %q", strings.Join(tc.args, " "), msg, tc.want)
			}
		})
	}
}

// TestKClassLogitHint: -outputs logit on predict's output for a model of K classes
// (columns logit_CLASS) says to name them all, comma-separated, listing them.
func TestKClassLogitHint(t *testing.T) {
	data := writeFile(t, "scored.csv", "y,z,x,p_a,logit_a,p_b,logit_b,p_c,logit_c,class\na,1,0.1,0.3,0.1,0.3,0.2,0.4,0.3,c\nb,0,0.2,0.3,0.1,0.3,0.2,0.4,0.3,c\n")
	want := "a model of 3 classes writes logit_a,logit_b,logit_c: name them all, comma-separated (-outputs logit_a,logit_b,logit_c)"
	for _, cmd := range []string{"estimate", "test"} {
		t.Run(cmd, func(t *testing.T) {
			args := []string{cmd, "-data", data, "-y", "y", "-z", "z", "-outputs", "logit", "-methods", "obs"}
			if msg, _, _ := run(t, args...); !strings.Contains(msg, want) {
				t.Errorf("invmmd %s:\nerror %q\nwant one containing %q", strings.Join(args, " "), msg, want)
			}
		})
	}
}

// TestForceOutCheckedFirst: -out with -force that could not be replaced once the work is
// done (a non-empty file where a folder goes, a folder where a file goes, a folder in
// which nothing can be created beside it) is refused before any work with
// errNotReplaceable, naming -out, where it used to fail after the work with a raw rename
// error (or, for audit, replace a file by its folder). -data names a file that does not
// exist: a command that did any work would fail on it first.
func TestForceOutCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.csv")
	own := []string{"-data", missing, "-y", "y", "-z", "z"}
	type tc struct {
		name string
		args []string
		want string
	}
	cases := []tc{
		{"audit: a file where the folder goes", []string{"audit", "-data", missing, "-y", "y", "-z", "z", "-decisions", "d", "-out", file, "-force"}, "-out " + file + " is a file, not a folder"},
		{"estimate: a folder where the file goes", append([]string{"estimate", "-outputs", "h", "-methods", "obs", "-out", folder, "-force"}, own...), "-out " + folder + " is a folder, not a file"},
		{"test: a folder where the file goes", append([]string{"test", "-outputs", "h", "-methods", "dr", "-g", "g", "-m", "m", "-out", folder, "-force"}, own...), "-out " + folder + " is a folder, not a file"},
		{"predict: a folder where the file goes", []string{"predict", "-model", t.TempDir(), "-data", missing, "-out", folder, "-force"}, "-out " + folder + " is a folder, not a file"},
	}
	if runtime.GOOS == "linux" { // /proc: nothing can be created there, even by root
		cases = append(cases,
			tc{"audit: nothing can be created beside it", []string{"audit", "-data", missing, "-y", "y", "-z", "z", "-decisions", "d", "-out", "/proc/sys", "-force"}, "-out /proc/sys: -force cannot replace it: nothing can be created beside it in /proc"},
			tc{"estimate: nothing can be created beside it", append([]string{"estimate", "-outputs", "h", "-methods", "obs", "-out", "/proc/version", "-force"}, own...), "-out /proc/version: -force cannot replace it: nothing can be created beside it in /proc"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := runCmd(t, c.args...)
			if !errors.Is(err, errNotReplaceable) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("invmmd %s:\nerror %v\nwant errNotReplaceable containing %q", strings.Join(c.args, " "), err, c.want)
			}
		})
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep me\n" {
		t.Errorf("%s now %q, %v: want it kept", file, b, err)
	}
}

// TestOutFileLockedAtOnce: while a run holds -out FILE's lock (FILE.lock, taken before
// the work), a second estimate, test or predict into FILE fails at once with a
// *owndata.LockedError naming the holder, where both used to compute everything before
// one failed; -data names a file that does not exist, so a command that did any work
// would fail on it first. A finished run leaves no lock behind.
func TestOutFileLockedAtOnce(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "estimates.csv")
	missing := filepath.Join(dir, "missing.csv")
	own := []string{"-data", missing, "-y", "y", "-z", "z"}
	release, _, err := owndata.LockOutputFile(out, "invmmd estimate -out "+out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"estimate", append([]string{"estimate", "-outputs", "h", "-methods", "obs", "-out", out}, own...)},
		{"estimate -force", append([]string{"estimate", "-outputs", "h", "-methods", "obs", "-out", out, "-force"}, own...)},
		{"test", append([]string{"test", "-outputs", "h", "-methods", "dr", "-g", "g", "-m", "m", "-out", out}, own...)},
		{"predict", []string{"predict", "-model", t.TempDir(), "-data", missing, "-out", out}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCmd(t, tc.args...)
			var le *owndata.LockedError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), out+" is being written by process "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), "invmmd estimate -out "+out) {
				t.Errorf("invmmd %s:\nerror %v\nwant a LockedError naming process %d", strings.Join(tc.args, " "), err, os.Getpid())
			}
		})
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	data := writeFile(t, "ok.csv", "y,z,h\n1,1,0.2\n0,0,0.4\n1,1,0.1\n0,1,0.3\n1,0,0.5\n0,1,0.6\n1,0,0.7\n0,0,0.8\n")
	if _, stderr, err := runCmd(t, "estimate", "-data", data, "-y", "y", "-z", "z", "-outputs", "h", "-methods", "obs", "-out", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, err := os.Stat(out + ".lock"); !os.IsNotExist(err) {
		t.Errorf("%s.lock left behind: %v", out, err)
	}
}
