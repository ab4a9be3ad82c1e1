package docscheck

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/sim"
)

// TestCalibrationTable checks that docs/results.md shows the committed calibration.md's
// tables line for line.
func TestCalibrationTable(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(tables, "calibration.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := tableLines(string(md))
	if len(lines) < 10 {
		t.Fatalf("calibration.md holds %d table lines", len(lines))
	}
	says(t, resultsMD, "figures/tables/calibration.md", lines...)
}

// TestCalibrationClaims checks the documents' sentences about the calibration study against
// calibration.csv: the percentages they quote, the band dr's sizes lie in, and the sizes of
// the README's glance table.
func TestCalibrationClaims(t *testing.T) {
	rows, err := results.ReadCalibrationCSV(filepath.Join(tables, "calibration.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rate := func(n int, test string, delta float64) float64 {
		for _, r := range rows {
			if r.N == n && r.Test() == test && r.Delta == delta {
				return r.Rate()
			}
		}
		t.Fatalf("no row %d %s %v", n, test, delta)
		return 0
	}
	pct := func(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }
	says(t, resultsMD, "calibration.csv",
		"At δ = 0.3 and n = 2,000 the cross route rejects "+pct(rate(2000, "dr/cross", 0.3)),
		"obs by permutation rejects a true H₀ "+pct(rate(500, "obs/permutation", 0))+" of the time at n = 500 and "+pct(rate(2000, "obs/permutation", 0))+" at n = 2,000",
		fmt.Sprintf("(%.0f %% at both sizes)", 100*rate(2000, "reg/cross", 0)),
		fmt.Sprintf("shows less (%.0f %%)", 100*rate(2000, "ip/cross", 0)),
	)
	glance, _, _ := between(t, readme, "glance")
	if w := fmt.Sprintf("size at α = 0.05, n = 2,000: dr %.3f; obs by permutation %.3f, reg %.3f",
		rate(2000, "dr/cross", 0), rate(2000, "obs/permutation", 0), rate(2000, "reg/cross", 0)); !strings.Contains(oneLine(glance), w) {
		t.Errorf("README.md's glance table does not say, as calibration.csv gives:\n%s", w)
	}
	if a, b := rate(500, "reg/cross", 0), rate(2000, "reg/cross", 0); math.Abs(a-b) > 0.01 {
		t.Errorf("reg's size %v at n = 500 and %v at n = 2000: the documents say the same at both sizes", a, b)
	}
	if a, b := rate(500, "ip/cross", 0), rate(2000, "ip/cross", 0); math.Round(100*a) != math.Round(100*b) {
		t.Errorf("ip's size %v and %v: the documents quote one percentage", a, b)
	}
	for _, test := range []string{"dr/cross", "dr/wild"} {
		if r := rate(2000, test, 0); r < 0.03 || r > 0.07 {
			t.Errorf("%s size %v at n = 2000, outside 0.03–0.07 as the documents say", test, r)
		}
		if r := rate(500, test, 0); r < 0.02 || r > 0.09 {
			t.Errorf("%s size %v at n = 500, outside 0.02–0.09 as the documents say", test, r)
		}
		if rate(2000, test, 0.3) < 0.8 {
			t.Errorf("%s power at δ = 0.3, n = 2000 below 0.8", test)
		}
	}
	// The wild route is the more powerful at every δ > 0 of the larger size, as the
	// documents say.
	for _, d := range []float64{0.1, 0.2, 0.3, 0.4} {
		if rate(2000, "dr/wild", d) < rate(2000, "dr/cross", d) {
			t.Errorf("δ = %v: dr/wild %v below dr/cross %v", d, rate(2000, "dr/wild", d), rate(2000, "dr/cross", d))
		}
	}
}

// TestRFFError checks the error range docs/estimators.md and BENCHMARKS.md quote for random
// features at D = 1024 (dr's mean relative error over d = 2, 8 and 64) against the committed
// figures/tables/rff_error.csv.
func TestRFFError(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(tables, "rff_error.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	col := map[string]int{}
	for i, h := range strings.Split(lines[0], ",") {
		col[h] = i
	}
	for _, name := range []string{"method", "frequencies", "mean_rel_error"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("rff_error.csv: no column %q in %q", name, lines[0])
		}
	}
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		if f[col["method"]] != "dr" || f[col["frequencies"]] != "1024" {
			continue
		}
		v, err := strconv.ParseFloat(f[col["mean_rel_error"]], 64)
		if err != nil {
			t.Fatalf("rff_error.csv: %q: %v", line, err)
		}
		lo, hi, n = math.Min(lo, v), math.Max(hi, v), n+1
	}
	if n == 0 {
		t.Fatal("rff_error.csv has no dr row at D = 1024")
	}
	want := fmt.Sprintf("%.1f–%.1f%%", 100*lo, 100*hi)
	says(t, estMD, "rff_error.csv", want+" of the penalty at D = 1024")
	says(t, "BENCHMARKS.md", "rff_error.csv", "("+want+" at D = 1024)")
}

// TestInvariantCeiling checks the invariant ceiling of the simulation the documents quote
// (h* = (X₁ + X₂)/2 at σ_X = 0.7) against its closed form, rounded as they print it.
func TestInvariantCeiling(t *testing.T) {
	c := fmt.Sprintf("%.3f", sim.InvariantAccuracy(sim.DefaultSigmaX))
	says(t, resultsMD, "sim.InvariantAccuracy", "approach the invariant ceiling of "+c, "An invariant model scores at most "+c+" on test")
	says(t, trainMD, "sim.InvariantAccuracy", "the invariant h* scores "+c+" on both")
	for _, name := range []string{readme, resultsMD, trainMD, estMD} {
		for _, wrong := range []string{"0.843", "0.845"} {
			if strings.Contains(readDoc(t, name), wrong) && wrong != c {
				t.Errorf("%s says %s where the invariant ceiling is %s", name, wrong, c)
			}
		}
	}
}
