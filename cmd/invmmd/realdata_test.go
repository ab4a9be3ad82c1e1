package main

import (
	"fmt"
	"os"
	"path/filepath"
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
// patients outside the trial) and checks the table, the diagnostics and the warnings.
func TestFitOnPublicTables(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
		warn []string
	}{
		{"hmda", []string{"-data", hmdaCSV, "-y", "deny", "-y-positive", "yes", "-z", "afam", "-z-positive", "yes"},
			[]string{"2380 rows read", "18 inputs from 12 feature columns", "| dr | 1 |", "| ip | 1 |", "Y=1: "},
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
// applications) with its jackknife standard error, and the rare (deny, afam) cell, 33
// observed rows, is reported with its counts.
func TestEstimateOnHMDA(t *testing.T) {
	out, stderr, err := runCmd(t, "estimate", "-data", hmdaCSV, "-h", "pirat", "-y", "deny", "-y-positive", "yes", "-z", "afam", "-z-positive", "yes",
		"-x", "hirat,lvrat,chist,mhist,phist,unemp,selfemp,insurance,condomin,single,hschool", "-methods", "obs,ip,reg,dr", "-bandwidth", "median", "-aux-epochs", "40")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, w := range []string{"2380 rows, 941 with Z missing", "Y=1: 285 rows, observed Z=0: 78, Z=1: 33"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	for _, m := range []string{"obs", "ip", "reg", "dr"} {
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
