package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The public tables the project converts from Debian's R packages (scripts/data/hmda.sh and
// pbc.sh) and commits under data/.
var (
	hmdaCSV = filepath.Join("..", "..", "data", "hmda", "hmda.csv")
	pbcCSV  = filepath.Join("..", "..", "data", "pbc", "pbc.csv")
)

// TestFitOnPublicTables runs fit end to end on both public tables with their missing Z
// (HMDA: race hidden by the documented rule; PBC: hepatomegaly not recorded for the 106
// patients outside the trial) and checks the table, the diagnostics, how G and m stopped
// and the warnings.
func TestFitOnPublicTables(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
		warn []string
	}{
		{"hmda", []string{"-data", hmdaCSV, "-y", "deny", "-y-positive", "yes", "-z", "afam", "-z-positive", "yes"},
			[]string{"2380 rows read", "18 inputs from 12 feature columns", "| dr | 1 |", "| ip | 1 |", "Y=1: ",
				// G and m stop by patience (their best epochs, 12 and 7, are those the 60-epoch runs without it kept).
				"best epoch 12, stopped at 32 of 60 by patience", "best epoch 7, stopped at 27 of 60 by patience"},
			nil},
		{"pbc", []string{"-data", pbcCSV, "-y", "died", "-z", "hepato", "-x", "age,sex,ascites,edema,bili,albumin,protime,platelet,stage"},
			[]string{"418 rows read", "| dr | 1 |", "ESS ΔZ/G"},
			[]string{`column "ascites": 106 missing value(s)`, "Ĝ < 0.05 on", "positivity fails"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.args[1]); err != nil {
				t.Fatalf("%v: run scripts/data/%s.sh", err, tc.name)
			}
			args := append(append([]string{"fit"}, tc.args...), "-methods", "none,dr,ip", "-epochs", "10", "-aux-epochs", "60", "-out", t.TempDir())
			out, stderr, err := runCmd(t, args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.warn {
				if !strings.Contains(stderr, w) {
					t.Errorf("warnings lack %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestEstimateOnHMDA estimates the MMD² of a simple score (the payments-to-income ratio)
// between African American and other applicants within each decision, with G and m fitted
// on the other columns: every estimator gives a positive Y = 0 term (2,095 approved
// applications) with its jackknife standard error (reg's estimate without one: its
// jackknife ignores m̂'s error), the rare (deny, afam) cell, 33 observed rows, is reported
// with its counts, and G and m, cross-fitted on 5 folds, stop by patience.
func TestEstimateOnHMDA(t *testing.T) {
	out, stderr, err := runCmd(t, "estimate", "-data", hmdaCSV, "-outputs", "pirat", "-y", "deny", "-y-positive", "yes", "-z", "afam", "-z-positive", "yes",
		"-x", "hirat,lvrat,chist,mhist,phist,unemp,selfemp,insurance,condomin,single,hschool", "-methods", "obs,ip,reg,dr", "-bandwidth", "median")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, w := range []string{"2380 rows, 941 with Z missing", "Y=1: 285 rows, observed Z=0: 78, Z=1: 33",
		// G and m, with the defaults, cross-fitted on 5 folds, each stopping by patience on a
		// fifth of its rows.
		"of 5 folds: each row's Ĝ and m̂ from the models fitted on the other 4 folds (fold 1's: 1904 rows, 1523 to fit and 381 held out to stop training)",
		"stopped after 20 epochs without a better one"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "max-epochs") {
		t.Errorf("a fit of G or m reached its cap:\n%s", out)
	}
	if i := strings.Index(out, "| reg | "); i < 0 || !strings.HasPrefix(out[i:], "| reg | ") || !strings.Contains(out[i:i+60], "(no SE)") {
		t.Errorf("reg's row should give its estimate without a standard error:\n%s", out)
	}
	if strings.Contains(out, "NaN") {
		t.Errorf("the output prints a NaN (a withheld standard error?):\n%s", out)
	}
	for _, m := range []string{"obs", "ip", "dr"} {
		i := strings.Index(out, "| "+m+" | ")
		if i < 0 {
			t.Fatalf("no row for %s:\n%s", m, out)
		}
		var total, se, y0, y0se float64
		if _, err := fmt.Sscanf(out[i:], "| "+m+" | %g ± %g | Y=0: %g ± %g,", &total, &se, &y0, &y0se); err != nil || !(y0 > 0) || !(y0se > 0) {
			t.Errorf("%s: Y=0 term %v ± %v (%v), want > 0 with a standard error", m, y0, y0se, err)
		}
	}
}

// collegeCSV is AER's CollegeDistance with ethnicity blanked at random (data/college).
const collegeCSV = "../../data/college/college.csv"

// TestEstimateNuisanceKinds estimates the dependence of a test score on a nuisance of each
// kind that is not binary, in data/college: ethnicity (three text levels, 1,508 blanked at
// random), distance to college (continuous) and local unemployment and wage (a vector).
// The kind is inferred and printed, the estimand is the joint MMD² with its kernel on Z
// named, every estimator gives a finite value with a standard error, a categorical Z's
// diagnostics name its levels, and -m is refused for a nuisance that is not binary.
func TestEstimateNuisanceKinds(t *testing.T) {
	if testing.Short() {
		t.Skip("fits auxiliary models")
	}
	base := []string{"estimate", "-data", collegeCSV, "-outputs", "score", "-y", "income", "-y-positive", "high", "-bandwidth", "median", "-aux-epochs", "15"}
	for _, tc := range []struct {
		name    string
		args    []string
		methods []string
		want    []string
	}{
		{"categorical", []string{"-z", "ethnicity", "-x", "gender,fcollege,mcollege,home,urban,unemp,wage,distance,tuition,region", "-methods", "obs,ip,dr"},
			[]string{"obs", "ip", "dr"},
			[]string{"4739 rows, 1508 with Z missing; Z (ethnicity) is categorical (3 levels: other, afam, hispanic), inferred from 3 text levels",
				"joint MMD² between p(h, Z | Y = y)", "observed Z=other: ", "Z=afam: ", "Z=hispanic: "}},
		{"continuous", []string{"-z", "distance", "-x", "gender,fcollege,urban", "-methods", "full,dr"},
			[]string{"full", "dr"},
			[]string{"Z (distance) is continuous, inferred from numbers with 61 distinct values", "kernel on Z: continuous, Gaussian kernel σ=1.2, Fourier expansion"}},
		{"vector", []string{"-z", "unemp,wage", "-x", "gender,fcollege,urban", "-methods", "full,dr"},
			[]string{"full", "dr"},
			[]string{"Z (unemp,wage) is vector of 2, inferred from 2 columns", "32 random Fourier features (J=16, seed 0)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			csvPath := filepath.Join(t.TempDir(), "estimates.csv")
			out, stderr, err := runCmd(t, append(append(append([]string(nil), base...), tc.args...), "-out", csvPath)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			// -csv: a header and one row per estimator, each with its value and SE.
			b, err := os.ReadFile(csvPath)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(lines) != 1+len(tc.methods) || lines[0] != "method,value,se,unreliable,impossible,mmd2_scale" {
				t.Errorf("-csv wrote:\n%s", b)
			}
			for i, m := range tc.methods {
				if i+1 < len(lines) && !strings.HasPrefix(lines[i+1], m+",") {
					t.Errorf("-csv line %d = %q, want method %s", i+2, lines[i+1], m)
				}
			}
			// A second run never replaces it.
			if _, _, err := runCmd(t, append(append(append([]string(nil), base...), tc.args...), "-out", csvPath)...); err == nil || !strings.Contains(err.Error(), "exists; remove it or name another file") {
				t.Errorf("-csv over an existing file: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, m := range tc.methods {
				i := strings.Index(out, "| "+m+" | ")
				if i < 0 {
					t.Fatalf("no row for %s:\n%s", m, out)
				}
				var v, se float64
				if _, err := fmt.Sscanf(out[i:], "| "+m+" | %g ± %g |", &v, &se); err != nil || math.IsNaN(v) || !(se > 0) {
					t.Errorf("%s: %v ± %v (%v), want a finite value with a standard error", m, v, se, err)
				}
			}
		})
	}
	_, stderr, err := runCmd(t, append(append([]string(nil), base...), "-z", "ethnicity", "-m", "score", "-g", "score", "-methods", "dr")...)
	if err == nil || !strings.Contains(err.Error()+stderr, "-m score: a column gives P(Z = 1 | X, Y) of a binary Z; for a categorical nuisance") {
		t.Errorf("-m with a categorical Z: %v\n%s", err, stderr)
	}
}

// TestTestCollege runs docs/cli.md's invmmd test example on data/college: the score depends
// on ethnicity given income, dr (the default method) says so, and the table row the manual
// quotes between its <!-- college test row --> markers is the one the command prints.
func TestTestCollege(t *testing.T) {
	if testing.Short() {
		t.Skip("fits auxiliary models")
	}
	csvPath := filepath.Join(t.TempDir(), "tests.csv")
	out, stderr, err := runCmd(t, "test", "-data", collegeCSV, "-outputs", "score", "-y", "income", "-y-positive", "high", "-z", "ethnicity",
		"-x", "gender,score,fcollege,mcollege,home,urban,unemp,wage,distance,tuition,region", "-out", csvPath)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(line, ",")
		stat, _ := strconv.ParseFloat(f[1], 64)
		p, _ := strconv.ParseFloat(f[2], 64)
		got[f[0]] = [2]float64{stat, p}
	}
	if v, ok := got["dr"]; !ok || !(v[1] < 1e-10) || len(got) != 1 {
		t.Errorf("tests.csv %v: want dr alone (the default), with p < 1e-10", got)
	}
	manual := mustRead(t, filepath.Join("..", "..", "docs", "cli.md"))
	_, quoted, ok := strings.Cut(manual, "<!-- college test row -->")
	quoted, _, ok2 := strings.Cut(quoted, "<!-- /college test row -->")
	if quoted = strings.TrimSpace(quoted); !ok || !ok2 || !strings.HasPrefix(quoted, "| dr |") {
		t.Fatalf("docs/cli.md has no dr row between <!-- college test row --> markers: %q", quoted)
	}
	if !strings.Contains(out, quoted+"\n") {
		t.Errorf("docs/cli.md quotes\n%s\nbut invmmd test prints\n%s", quoted, out)
	}
}
