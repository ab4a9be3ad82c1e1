package docscheck

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fitResults reads a committed results.csv of invmmd fit (under figures/tables/checks) into
// its rows by method, in the file's order of methods.
func fitResults(t *testing.T, name string) (by map[string][]map[string]string, order []string) {
	t.Helper()
	recs := records(t, filepath.Join(tables, "checks", name))
	by = map[string][]map[string]string{}
	for _, r := range recs[1:] {
		row := map[string]string{}
		for j, h := range recs[0] {
			row[h] = r[j]
		}
		m := row["method"]
		if by[m] == nil {
			order = append(order, m)
		}
		by[m] = append(by[m], row)
	}
	return by, order
}

// column returns the numbers of column c over rows.
func column(t *testing.T, rows []map[string]string, c string) []float64 {
	t.Helper()
	var out []float64
	for _, r := range rows {
		v, err := strconv.ParseFloat(r[c], 64)
		if err != nil {
			t.Fatalf("column %s: %q: %v", c, r[c], err)
		}
		out = append(out, v)
	}
	return out
}

// meanSD returns the mean and the sample standard deviation (n − 1) of xs.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean) / float64(len(xs)-1)
	}
	return mean, math.Sqrt(sd)
}

// TestHMDANumbers checks the HMDA paragraph of docs/results.md against the committed fits
// (checks/hmda_fit_{robust,paper}.csv, results.csv of invmmd fit).
func TestHMDANumbers(t *testing.T) {
	robust, _ := fitResults(t, "hmda_fit_robust.csv")
	paper, _ := fitResults(t, "hmda_fit_paper.csv")
	order := []string{"none", "obs", "ip", "reg", "dr", "dr-po"}
	var accs []string
	for _, m := range order {
		mean, sd := meanSD(column(t, robust[m], "test_acc"))
		accs = append(accs, fmt.Sprintf("%s %.3f ± %.3f", m, mean, sd))
	}
	span := func(by map[string][]map[string]string, c string, methods []string, format string) string {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, m := range methods {
			v, _ := meanSD(column(t, by[m], c))
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		return fmt.Sprintf(format, lo) + "–" + fmt.Sprintf(format, hi)
	}
	early := func(by map[string][]map[string]string, methods []string) string {
		k, n := 0, 0
		for _, m := range methods {
			for _, v := range column(t, by[m], "h_best_epoch") {
				n++
				if v <= 9 {
					k++
				}
			}
		}
		return fmt.Sprintf("%d of %d", k, n)
	}
	pen := []string{"obs", "ip", "dr", "dr-po"}
	heldOut := strings.ReplaceAll(strings.Replace(span(robust, "heldout_mmd_dr", order, "%.2f"), "–", " to ", 1), "-", "−")
	says(t, resultsMD, "the committed HMDA fits",
		"accuracy was "+strings.Join(accs[:len(accs)-1], ", ")+" and "+accs[len(accs)-1]+":",
		"dr-po kept an epoch ≤ 9 in "+early(paper, pen)+" runs — a nearly untrained h, mean test AUC "+span(paper, "test_auc", pen, "%.2f"),
		"they did so in "+early(robust, pen)+", mean test AUC "+span(robust, "test_auc", pen, "%.2f"),
		"for every method ("+heldOut+")",
	)
	// The glance table's evidence that selection on a raw estimate can be gamed.
	glance, _, _ := between(t, readme, "glance")
	if w := "HMDA, obs, ip, dr and dr-po: under the paper's objective an epoch ≤ 9, a nearly untrained h, kept in " + early(paper, pen) +
		" runs; with the default robust objective in " + early(robust, pen); !strings.Contains(oneLine(glance), w) {
		t.Errorf("README.md's glance table does not say, as the committed HMDA fits give:\n%s", w)
	}
}

// TestChileNumbers checks docs/results.md's multi-class table on data/chile against the
// committed fit (checks/chile_fit.csv and checks/chile_fit_config.json): every row of the
// table, the majority baseline, the classes and the split sizes.
func TestChileNumbers(t *testing.T) {
	by, order := fitResults(t, "chile_fit.csv")
	var wants []string
	for _, m := range order {
		am, as := meanSD(column(t, by[m], "test_acc"))
		um, us := meanSD(column(t, by[m], "test_auc"))
		dm, _ := meanSD(column(t, by[m], "heldout_mmd_ip"))
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range column(t, by[m], "heldout_p_dr") {
			lo, hi = math.Min(lo, p), math.Max(hi, p)
		}
		wants = append(wants, strings.ReplaceAll(fmt.Sprintf("| %s | %.3f ± %.3f | %.3f ± %.3f | %.3f | %.2f–%.2f |", m, am, as, um, us, dm, lo, hi), "-0.", "−0."))
	}
	var rec struct {
		Seeds []uint64
		Data  struct {
			Majority float64  `json:"majority_baseline"`
			Classes  []string `json:"classes"`
			Train    int      `json:"train"`
			Test     int      `json:"test"`
		} `json:"data_read"`
	}
	readJSON(t, "checks/chile_fit_config.json", &rec)
	if len(rec.Data.Classes) != 4 || len(rec.Seeds) != 3 {
		t.Fatalf("config records classes %v and seeds %v", rec.Data.Classes, rec.Seeds)
	}
	wants = append(wants,
		fmt.Sprintf("mean ± sd over the %d seeds, majority baseline %.3f (classes %s; %s training, %d test rows)",
			len(rec.Seeds), rec.Data.Majority, strings.Join(rec.Data.Classes, ", "), thousands(rec.Data.Train), rec.Data.Test),
		fmt.Sprintf("on %d test rows the strata", rec.Data.Test))
	says(t, resultsMD, "the committed chile fit", wants...)
}
