package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestHelpSaysWhatThePValueMeans checks that test -h says what the p-value is the
// probability of, what it assumes, the routes and the default methods.
func TestTestHelpSaysWhatThePValueMeans(t *testing.T) {
	out, stderr, err := runCmd(t, "test", "-h")
	if err == nil || err.Error() != "flag: help requested" || stderr != "" {
		t.Fatalf("test -h: error %v, stderr %q", err, stderr)
	}
	for _, want := range []string{
		"The p-value is the probability, under H₀: h ⊥ Z | Y",
		"of a statistic at least as\nlarge as the one observed",
		"Z is missing at random given (X, Y); positivity, G = P(Δ = 1 | X, Y) > 0; G right for ip, m right\nfor reg, either for dr",
		"G and m fitted\non rows other than those tested",
		"the wild and permutation routes then test half A only",
		"G and m fitted once per fold on the other folds (80% of those rows to fit, 20% held out to stop their training,\n-aux-patience)",
		"default: dr; full when no Z is missing",
		"\n  -folds K\n",
		"\n  -B N\n", "100 to 100000", "\n  -route string\n", "(default \"cross\")", "the median heuristic on h by default",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("test -h lacks %q:\n%s", want, out)
		}
	}
}

// TestTestCommand runs test with given G and m columns on a table where h depends on Z:
// the default method's table (dr), the note that the columns are taken to be fitted on
// other rows, the CSV with its exact header, and -out refusing a file that exists; asked
// for reg and obs too, their p-values carry their caveat in the CSV's unreliable column.
func TestTestCommand(t *testing.T) {
	data := ownCSV(t, 1500, false)
	csvPath := filepath.Join(t.TempDir(), "p.csv")
	args := []string{"test", "-data", data, "-outputs", "h", "-y", "outcome", "-y-positive", "yes", "-z", "z", "-g", "g", "-m", "m", "-out", csvPath}
	out, stderr, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"H₀: h ⊥ Z | Y, 1500 of 1500 rows used", "| method | statistic | p-value |", "| dr | ",
		"assumed to have been fitted on rows other than these", "wrote " + csvPath} {
		if !strings.Contains(out, want) {
			t.Errorf("test output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "method,statistic,p_value,unreliable" || !strings.HasPrefix(lines[1], "dr,") || !strings.HasSuffix(lines[1], ",") {
		t.Errorf("CSV:\n%s", b)
	}
	var stat, p float64
	if _, err := fmt.Sscanf(strings.ReplaceAll(lines[1], ",", " "), "dr %g %g", &stat, &p); err != nil || !(p < 0.01) {
		t.Errorf("dr's row %q: p %v (%v), want < 0.01 (h = 2·x1 − 1 + 0.3·Z)", lines[1], p, err)
	}
	_, _, err = runCmd(t, args...)
	if err == nil || !strings.Contains(err.Error(), "-out "+csvPath+" exists; remove it or name another file (or -force to replace it)") {
		t.Errorf("a second run over the same -out: error %v", err)
	}
	after, _ := os.ReadFile(csvPath)
	if string(after) != string(b) {
		t.Error("the refused run changed the CSV")
	}
	more := filepath.Join(t.TempDir(), "more.csv")
	args = []string{"test", "-data", data, "-outputs", "h", "-y", "outcome", "-y-positive", "yes", "-z", "z", "-g", "g", "-m", "m", "-methods", "dr,reg,obs", "-out", more}
	if _, stderr, err := runCmd(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, _ = os.ReadFile(more)
	for _, c := range []struct{ prefix, caveat string }{{"dr,", ""}, {"reg,", "reg's pseudo-outcome m̂(X) is not orthogonal"}, {"obs,", "obs is the naive test"}} {
		found := false
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, c.prefix) {
				found = true
				if c.caveat == "" && !strings.HasSuffix(l, ",") || c.caveat != "" && !strings.Contains(l, c.caveat) {
					t.Errorf("row %q: want the caveat %q in its unreliable column", l, c.caveat)
				}
			}
		}
		if !found {
			t.Errorf("no row %s in:\n%s", c.prefix, b)
		}
	}
}

// TestTestBadCommandLines checks the named errors, each before any fitting: a missing
// column, -B under 100, an unknown route, the permutation route for dr, a stratum with no
// observed Z, a constant h, and the default methods with neither G, m nor -x.
func TestTestBadCommandLines(t *testing.T) {
	data := ownCSV(t, 300, false)
	dir := t.TempDir()
	var noZ, constH strings.Builder
	noZ.WriteString("h,y,z,g,m\n")
	constH.WriteString("h,y,z,g,m\n")
	for i := range 60 {
		z := fmt.Sprint(i % 2)
		if i%3 == 0 {
			z = ""
		}
		zNoY1 := z
		if i >= 30 {
			zNoY1 = ""
		}
		fmt.Fprintf(&noZ, "%d,%d,%s,0.6,0.5\n", i%7, i/30, zNoY1)
		fmt.Fprintf(&constH, "2,%d,%s,0.6,0.5\n", i/30, z)
	}
	noZPath, constPath := filepath.Join(dir, "noz.csv"), filepath.Join(dir, "const.csv")
	os.WriteFile(noZPath, []byte(noZ.String()), 0o644)
	os.WriteFile(constPath, []byte(constH.String()), 0o644)
	own := []string{"-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z"}
	small := []string{"-y", "y", "-z", "z", "-outputs", "h", "-g", "g", "-m", "m"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"test", "-outputs", "score", "-g", "g", "-m", "m"}, own...), `no column named "score" (-outputs)`},
		{append([]string{"test", "-outputs", "h", "-g", "gg", "-m", "m"}, own...), `no column named "gg" (-g)`},
		{append([]string{"test", "-outputs", "h", "-route", "wild", "-B", "50", "-x", "x1"}, own...), "-B 50: want 100 to 100000 resamples"},
		{append([]string{"test", "-outputs", "h", "-route", "bootstrap"}, own...), `-route: unknown test route "bootstrap"`},
		{append([]string{"test", "-outputs", "h", "-route", "permutation", "-methods", "dr"}, own...), "the permutation route is valid only for full and obs"},
		{append([]string{"test", "-outputs", "h"}, own...), "the default methods (dr): -g: methods dr need G"},
		{append([]string{"test", "-data", noZPath}, small...), "no row with y = 1 and z = 0 observed"},
		{append([]string{"test", "-data", constPath}, small...), "h is constant"},
		{[]string{"test", "-data", data, "-y", "outcome", "-z", "z"}, "-outputs: required"},
		{append([]string{"test", "-outputs", "h", "-g", "g", "-m", "m", "-out", data}, own...), "is the -data file"},
		{append([]string{"test", "-outputs", "h", "-g", "g", "-m", "m", "-bandwidth", "wide"}, own...), `-bandwidth "wide"`},
	} {
		_, stderr, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("invmmd %s:\nerror %v (stderr %q)\nwant one containing %q", strings.Join(tc.args, " "), err, stderr, tc.want)
		}
	}
}
