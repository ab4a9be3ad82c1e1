package fairness

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// records reads a CSV file of testdata whole (its header first).
func records(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// readExample reads testdata/example.csv: y, z (blank where missing), x1, x2, decision.
func readExample(t *testing.T) *Data {
	t.Helper()
	recs := records(t, "example.csv")
	d := &Data{}
	index := map[string]int{}
	for _, r := range recs[1:] {
		y, _ := strconv.Atoi(r[0])
		dec, _ := strconv.Atoi(r[4])
		g := -1
		if r[1] != "" {
			k, ok := index[r[1]]
			if !ok {
				k = len(d.Levels)
				index[r[1]] = k
				d.Levels = append(d.Levels, r[1])
			}
			g = k
		}
		d.Y, d.Decision, d.Group = append(d.Y, y), append(d.Decision, dec), append(d.Group, g)
	}
	return d
}

// TestCountingMatchesFairlearn: complete_case on the committed example gives, for every
// metric Fairlearn v0.9.0's MetricFrame computes after dropping the rows without the
// attribute (testdata/fairlearn_reference.csv, written by scripts/fairness/fairlearn_reference.py
// from testdata/example.csv), the same value.
func TestCountingMatchesFairlearn(t *testing.T) {
	d := readExample(t)
	res, err := Estimate(d, []Estimator{CompleteCase}, Options{Draws: 200})
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, "fairlearn_reference.csv")
	checked := 0
	for _, r := range recs[1:] {
		metric, group := r[0], r[1]
		want, err := strconv.ParseFloat(r[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		g, method := group, ""
		switch {
		case strings.HasSuffix(metric, "_to_overall"), metric == Count && group != Overall && len(group) > 1:
			continue // the scalar gaps to the overall value, and differences of counts: not reported
		case strings.HasPrefix(group, "difference_"):
			g, method = Difference, strings.TrimPrefix(group, "difference_")
		case strings.HasPrefix(group, "ratio_"):
			g, method = Ratio, strings.TrimPrefix(group, "ratio_")
		}
		row, ok := res.Find(metric, g, method, CompleteCase)
		if !ok {
			t.Errorf("no row %s %s %s", metric, g, method)
			continue
		}
		if math.Abs(row.Estimate-want) > 1e-12 {
			t.Errorf("%s %s %s: %.17g, Fairlearn %.17g", metric, g, method, row.Estimate, want)
		}
		checked++
	}
	if checked < 50 {
		t.Errorf("checked %d values, want the reference's 50 or more", checked)
	}
}
