package docscheck

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestNuisanceKindFits checks docs/results.md's table of fit on a categorical (data/college)
// and a continuous (data/flchain) nuisance against the committed results
// (checks/college_fit.csv, checks/flchain_fit.csv): every row, and the moves the text reads
// from them — per seed, the fall of the held-out dr estimate from none to dr in standard errors
// of the difference, and the held-out p-values on either side of 0.05.
func TestNuisanceKindFits(t *testing.T) {
	var rows []string
	for _, tc := range []struct{ file, label string }{
		{"college_fit.csv", "college, categorical"}, {"flchain_fit.csv", "flchain, continuous"},
	} {
		by, order := fitResults(t, tc.file)
		if strings.Join(order, ",") != "none,dr" {
			t.Fatalf("%s: methods %v, want none and dr", tc.file, order)
		}
		for _, m := range order {
			am, as := meanSD(column(t, by[m], "test_acc"))
			var ests, ps []string
			for _, v := range column(t, by[m], "heldout_mmd_dr") {
				ests = append(ests, strings.Replace(fmt.Sprintf("%.3f", v), "-", "−", 1))
			}
			for _, v := range column(t, by[m], "heldout_p_dr") {
				ps = append(ps, fmt.Sprintf("%.2g", v))
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range column(t, by[m], "heldout_mmd_dr_se") {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %.3f ± %.3f | %s | %.3f–%.3f | %s |", tc.label, m, am, as, strings.Join(ests, ", "), lo, hi, strings.Join(ps, ", ")))
		}
		none, dr := by["none"], by["dr"]
		zlo, zhi := math.Inf(1), math.Inf(-1)
		for s := range none {
			d := column(t, none[s:s+1], "heldout_mmd_dr")[0] - column(t, dr[s:s+1], "heldout_mmd_dr")[0]
			se := math.Hypot(column(t, none[s:s+1], "heldout_mmd_dr_se")[0], column(t, dr[s:s+1], "heldout_mmd_dr_se")[0])
			zlo, zhi = math.Min(zlo, d/se), math.Max(zhi, d/se)
			if pn, pd := column(t, none[s:s+1], "heldout_p_dr")[0], column(t, dr[s:s+1], "heldout_p_dr")[0]; !(pn < 0.001 && pd > 0.05) {
				t.Errorf("%s, seed %d: held-out p dr %.2g (none) and %.2g (dr), the text reads a dependence removed", tc.file, s+1, pn, pd)
			}
		}
		says(t, resultsMD, tc.file, fmt.Sprintf("%.1f to %.1f standard errors of the difference", zlo, zhi))
	}
	says(t, resultsMD, "the committed fits on college and flchain", rows...)
}
