package docscheck

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const fairnessMD = "docs/fairness.md"

// validationRow is one row of figures/tables/audit_validation.csv (invmmd auditstudy).
type validationRow struct {
	table, missingness, metric, group, method, estimator string
	n, replicates, refused                               int
	coverage, bias                                       float64
}

func (r validationRow) kind() string {
	switch {
	case r.method == "pair":
		return "pairs"
	case r.method == "" && r.group != "all":
		return "rates"
	}
	return "gaps"
}

// records reads a CSV file whole (its header first).
func records(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
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

func auditValidation(t *testing.T) []validationRow {
	t.Helper()
	recs := records(t, filepath.Join(tables, "audit_validation.csv"))
	col := map[string]int{}
	for k, h := range recs[0] {
		col[h] = k
	}
	num := func(r []string, c string) float64 {
		v, err := strconv.ParseFloat(r[col[c]], 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	var out []validationRow
	for _, r := range recs[1:] {
		out = append(out, validationRow{table: r[col["table"]], missingness: r[col["missingness"]], metric: r[col["metric"]], group: r[col["group"]],
			method: r[col["method"]], estimator: r[col["estimator"]], n: int(num(r, "n")), replicates: int(num(r, "replicates")),
			refused: int(num(r, "refused")), coverage: num(r, "coverage"), bias: num(r, "bias")})
	}
	if len(out) == 0 {
		t.Fatal("audit_validation.csv holds no rows")
	}
	return out
}

// covSpan returns the smallest and largest coverage, and the mean absolute bias, of the rows
// that keep accepts.
func covSpan(rows []validationRow, keep func(validationRow) bool) (lo, hi, bias float64, n int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if keep(r) {
			lo, hi = math.Min(lo, r.coverage), math.Max(hi, r.coverage)
			bias += math.Abs(r.bias)
			n++
		}
	}
	return lo, hi, bias / float64(n), n
}

// TestAuditValidationDesign: the committed study has the design docs/fairness.md
// describes: two public tables, 1,000 and 4,000 rows, the attribute hidden at random given
// (X, Y) and depending on itself (Γ = 2), at least 400 replicates per cell.
func TestAuditValidationDesign(t *testing.T) {
	rows := auditValidation(t)
	for _, table := range []string{"college", "hmda"} {
		for _, n := range []int{1000, 4000} {
			for _, miss := range []string{"MAR", "MNAR Γ=2"} {
				found := false
				for _, r := range rows {
					if r.table == table && r.n == n && r.missingness == miss && r.estimator == "dr" {
						found = true
						if r.replicates+r.refused < 400 {
							t.Errorf("%s n=%d %s: %d replicates, want at least 400", table, n, miss, r.replicates+r.refused)
						}
					}
				}
				if !found {
					t.Errorf("audit_validation.csv has no cell %s n=%d %s", table, n, miss)
				}
			}
		}
	}
}

// TestAuditValidationNumbers checks docs/fairness.md's and the README's reading of the
// committed study.
func TestAuditValidationNumbers(t *testing.T) {
	rows := auditValidation(t)
	cell := func(table string, n int, miss, est string, kinds ...string) func(validationRow) bool {
		return func(r validationRow) bool {
			if r.table != table || r.n != n || r.missingness != miss || r.estimator != est {
				return false
			}
			for _, k := range kinds {
				if r.kind() == k {
					return true
				}
			}
			return false
		}
	}
	var wants, glance []string
	for _, table := range []string{"college", "hmda"} {
		lo, hi, _, n := covSpan(rows, cell(table, 4000, "MAR", "dr", "rates", "pairs"))
		ccLo, _, ccBias, _ := covSpan(rows, cell(table, 4000, "MAR", "complete_case", "rates"))
		_, _, drBias, _ := covSpan(rows, cell(table, 4000, "MAR", "dr", "rates"))
		gLo, gHi, _, _ := covSpan(rows, cell(table, 4000, "MAR", "dr", "gaps"))
		mLo, mHi, _, _ := covSpan(rows, cell(table, 4000, "MNAR Γ=2", "dr", "rates", "pairs"))
		bLo, _, _, _ := covSpan(rows, cell(table, 4000, "MNAR Γ=2", "bounds Γ=2", "rates", "gaps"))
		wants = append(wants,
			fmt.Sprintf("| %s | %.3f–%.3f (%d cells) | %.3f–%.3f | %.4f | %.3f | %.4f | %.3f–%.3f | %.3f |", table, lo, hi, n, gLo, gHi, drBias, ccLo, ccBias, mLo, mHi, bLo))
		glance = append(glance, fmt.Sprintf("%s %.3f–%.3f", table, lo, hi))
	}
	ccLo, _, _, _ := covSpan(rows, func(r validationRow) bool {
		return r.n == 4000 && r.missingness == "MAR" && r.estimator == "complete_case" && r.kind() == "rates"
	})
	mnarLo, _, _, _ := covSpan(rows, func(r validationRow) bool {
		return r.n == 4000 && r.missingness == "MNAR Γ=2" && r.estimator == "dr" && r.kind() != "gaps"
	})
	boundsLo, _, _, _ := covSpan(rows, func(r validationRow) bool {
		return r.n == 4000 && r.missingness == "MNAR Γ=2" && r.estimator == "bounds Γ=2"
	})
	says(t, fairnessMD, "figures/tables/audit_validation.csv", wants...)
	says(t, readme, "figures/tables/audit_validation.csv", strings.Join(glance, ", "),
		fmt.Sprintf("the complete cases' (Fairlearn's numbers) as few as %.3f", ccLo),
		fmt.Sprintf("dr's coverage down to %.3f (HMDA); the Γ = 2 sensitivity bounds held in at least %.3f", mnarLo, boundsLo))
}

// TestMplsNumbers checks docs/fairness.md's reading of the Minneapolis case
// (figures/tables/audit_mplsstops.csv, invmmd auditstudy -case).
func TestMplsNumbers(t *testing.T) {
	recs := records(t, filepath.Join(tables, "audit_mplsstops.csv"))
	get := func(metric, group, method, est string) (float64, float64, float64) {
		for _, r := range recs[1:] {
			if r[0] == metric && r[1] == group && r[2] == method && r[3] == est {
				v, _ := strconv.ParseFloat(r[4], 64)
				lo, _ := strconv.ParseFloat(r[6], 64)
				hi, _ := strconv.ParseFloat(r[7], 64)
				return v, lo, hi
			}
		}
		t.Fatalf("audit_mplsstops.csv has no row %s %s %s %s", metric, group, method, est)
		return 0, 0, 0
	}
	cc, _, _ := get("equalized_odds_difference", "all", "", "complete_case")
	dr, lo, hi := get("equalized_odds_difference", "all", "", "dr")
	other, _, _ := get("count", "Other", "", "complete_case")
	otherDR, _, _ := get("count", "Other", "", "dr")
	says(t, readme, "figures/tables/audit_mplsstops.csv", fmt.Sprintf("equalized_odds_difference %.3f [%.3f, %.3f] by dr", dr, lo, hi))
	says(t, fairnessMD, "figures/tables/audit_mplsstops.csv",
		fmt.Sprintf("equalized_odds_difference` is %.3f by the complete cases and %.3f by dr (95%% interval %.3f to %.3f)", cc, dr, lo, hi),
		fmt.Sprintf("the group `Other` counts %.0f complete rows but dr estimates %.0f stops", other, otherDR))
	// The gap's sensitivity ranges (audit_mplsstops.md): its lower ends at Γ = 3 and Γ = inf.
	md := readDoc(t, filepath.Join("figures", "tables", "audit_mplsstops.md"))
	var lows []float64
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| equalized_odds_difference | all | [") {
			for _, c := range strings.Split(l, "|")[3:] {
				if c = strings.TrimSpace(c); strings.HasPrefix(c, "[") {
					v, _ := strconv.ParseFloat(strings.TrimPrefix(strings.Split(c, ",")[0], "["), 64)
					lows = append(lows, v)
				}
			}
		}
	}
	if len(lows) != 5 {
		t.Fatalf("audit_mplsstops.md: %d sensitivity ranges of equalized_odds_difference, want 5 (Γ = 1, 1.5, 2, 3, inf)", len(lows))
	}
	floor2 := func(v float64) string { return fmt.Sprintf("%.2f", math.Floor(v*100)/100) }
	says(t, fairnessMD, "figures/tables/audit_mplsstops.md",
		"the gap would be at least "+floor2(lows[3]), "at all it is above "+floor2(lows[4]))
	says(t, readme, "figures/tables/audit_mplsstops.md", "above "+floor2(lows[4])+" assuming nothing")
	// The searches of stops with race unknown and recorded (data/mplsstops/mplsstops.csv).
	stops := records(t, filepath.Join(repoRoot(t), "data", "mplsstops", "mplsstops.csv"))
	c := map[string]int{}
	for k, h := range stops[0] {
		c[h] = k
	}
	var n, s [2]float64
	for _, r := range stops[1:] {
		if r[c["MDC"]] != "MDC" || r[c["personSearch"]] == "" {
			continue
		}
		k := 0
		if r[c["race"]] == "" {
			k = 1
		}
		n[k]++
		if r[c["personSearch"]] == "YES" {
			s[k]++
		}
	}
	says(t, fairnessMD, "data/mplsstops/mplsstops.csv",
		fmt.Sprintf("searched in %.1f%% of cases against %.1f%% for the others", 100*s[1]/n[1], 100*s[0]/n[0]))
}

// TestAuditSpeed checks docs/fairness.md's times against BENCHMARKS.md's audit table.
func TestAuditSpeed(t *testing.T) {
	bench := readDoc(t, "BENCHMARKS.md")
	_, sec, ok := strings.Cut(bench, "<!-- audit -->")
	if !ok {
		t.Fatal("BENCHMARKS.md has no audit section")
	}
	sec, _, _ = strings.Cut(sec, "<!-- /audit -->")
	wall := map[string][2]string{}
	for _, l := range tableLines(sec)[2:] {
		c := strings.Split(strings.Trim(l, "|"), "|")
		wall[strings.TrimSpace(c[0])] = [2]string{strings.TrimSpace(c[1]), strings.TrimSpace(c[2])}
	}
	small, big := wall["5000"], wall["1000000"]
	if small[0] == "" || big[0] == "" {
		t.Fatalf("BENCHMARKS.md's audit table lacks 5,000 or 10⁶ rows: %v", wall)
	}
	says(t, fairnessMD, "BENCHMARKS.md", "An audit of 5,000 rows took "+small[0]+" s, and one of 10⁶ rows "+big[0]+" s and "+big[1]+" MB")
	for n, w := range map[string]float64{"5000": 10, "1000000": 60} {
		if v, _ := strconv.ParseFloat(wall[n][0], 64); !(v < w) {
			t.Errorf("the audit of %s rows took %s s, over the %g s the audit promises", n, wall[n][0], w)
		}
	}
}
