package experiments

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// chileQuotes recomputes from the committed multi-class fit on data/chile
// (checks/chile_fit.csv, invmmd fit's results.csv, and checks/chile_fit_config.json, its
// config.json) the lines of the README's table: for each method its test accuracy and
// macro-AUC (mean ± sd over the seeds), its held-out ip MMD² (mean over the seeds) and the
// range over the seeds of the held-out dr test's p-value, and
// the majority baseline and the class names.
func chileQuotes(t *testing.T) (rows []string, majority string, classes string) {
	t.Helper()
	f, err := os.Open(filepath.Join(committedTables, "checks", "chile_fit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for j, h := range recs[0] {
		idx[h] = j
	}
	var order []string
	by := map[string][][]string{}
	for _, r := range recs[1:] {
		m := r[idx["method"]]
		if by[m] == nil {
			order = append(order, m)
		}
		by[m] = append(by[m], r)
	}
	stat := func(rs [][]string, col string) (mean, sd float64) { // sd over the seeds, n − 1
		var xs []float64
		for _, r := range rs {
			v, err := strconv.ParseFloat(r[idx[col]], 64)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, v)
			mean += v / float64(len(rs))
		}
		for _, v := range xs {
			sd += (v - mean) * (v - mean) / float64(len(xs)-1)
		}
		return mean, math.Sqrt(sd)
	}
	for _, m := range order {
		am, as := stat(by[m], "test_acc")
		um, us := stat(by[m], "test_auc")
		dm, _ := stat(by[m], "heldout_mmd_ip")
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range by[m] {
			p, err := strconv.ParseFloat(r[idx["heldout_p_dr"]], 64)
			if err != nil {
				t.Fatalf("%s: heldout_p_dr %q: %v", m, r[idx["heldout_p_dr"]], err)
			}
			lo, hi = math.Min(lo, p), math.Max(hi, p)
		}
		rows = append(rows, strings.ReplaceAll(fmt.Sprintf("| %s | %.3f ± %.3f | %.3f ± %.3f | %.3f | %.2f–%.2f |", m, am, as, um, us, dm, lo, hi), "-0.", "−0."))
	}
	b, err := os.ReadFile(filepath.Join(committedTables, "checks", "chile_fit_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Seeds []uint64
		Data  struct {
			Majority float64  `json:"majority_baseline"`
			Classes  []string `json:"classes"`
		} `json:"data_read"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Data.Classes) != 4 || len(recs)-1 != len(order)*len(rec.Seeds) {
		t.Fatalf("config records classes %v and seeds %v for %d rows of %d methods", rec.Data.Classes, rec.Seeds, len(recs)-1, len(order))
	}
	return rows, fmt.Sprintf("%.3f", rec.Data.Majority), strings.Join(rec.Data.Classes, ", ")
}

// TestREADMEChileNumbers checks the README's multi-class table on data/chile against the
// committed fit: every row of the table and the majority baseline are what the committed
// files give.
func TestREADMEChileNumbers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	rows, majority, classes := chileQuotes(t)
	for _, want := range append(rows, "majority baseline "+majority, "classes "+classes) {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say, as the committed chile fit gives:\n%s", want)
		}
	}
}
