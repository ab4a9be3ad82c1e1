package owndata

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// auditCSV writes rows (a header line first) to a file in a test folder and returns its path.
func auditCSV(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "audit.csv")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAuditBadInput: each bad input is refused before any fitting, with an error that
// names the file (and the line and column where a cell is at fault).
func TestAuditBadInput(t *testing.T) {
	rows := func(z func(i int) string, y func(i int) string, dec func(i int) string) []string {
		out := []string{"y,z,x,d,s"}
		for i := range 40 {
			out = append(out, fmt.Sprintf("%s,%s,%d,%s,%g", y(i), z(i), i%7, dec(i), float64(i)/40))
		}
		return out
	}
	ab := func(i int) string { return []string{"a", "b", ""}[i%3] }
	y01 := func(i int) string { return fmt.Sprint(i / 2 % 2) }
	d01 := func(i int) string { return fmt.Sprint(i % 2) }
	for _, c := range []struct {
		name  string
		lines []string
		cfg   func(*AuditConfig)
		want  string
	}{
		{"attribute never observed", rows(func(int) string { return "" }, y01, d01), nil, "never observed"},
		{"single group", rows(func(i int) string { return []string{"a", ""}[i%2] }, y01, d01), nil, "at least two"},
		{"group without positives", rows(ab, func(i int) string {
			if i%3 == 1 {
				return "0"
			}
			return y01(i)
		}, d01), nil, `group "b" has no observed row with Y = 1`},
		{"decisions not 0/1", rows(ab, y01, func(i int) string { return fmt.Sprint(i % 3) }), nil, `column "d" (-decisions): value "2", want 0 or 1`},
		{"threshold outside the scores", rows(ab, y01, d01), func(c *AuditConfig) { c.Decisions, c.H, c.Threshold = "", "s", 2 }, "decides every row alike"},
		{"label with one class", rows(ab, func(int) string { return "1" }, d01), nil, "one class"},
		{"attribute as a feature", rows(ab, y01, d01), func(c *AuditConfig) { c.X = []string{"x", "z"} }, "is the sensitive attribute"},
		{"no decisions", rows(ab, y01, d01), func(c *AuditConfig) { c.Decisions = "" }, "name either a 0/1 decision column"},
	} {
		path := auditCSV(t, c.lines...)
		cfg := AuditConfig{Source: Source{Columns: Columns{Data: path, Y: "y", Z: "z", X: []string{"x"}, Names: tabular.Names{"Decisions": "-decisions"}}}, Decisions: "d"}
		if c.cfg != nil {
			c.cfg(&cfg)
		}
		_, err := Audit(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), "audit.csv") && !strings.HasPrefix(c.name, "no decisions") && !strings.HasPrefix(c.name, "attribute as") {
			t.Errorf("%s: %v does not name the file", c.name, err)
		}
	}
}

// TestAuditRecoversHiddenRates: on a public table the project uses nowhere else for
// training (AER's HMDA with the attribute complete), afam hidden at random given (X, Y) by a
// seeded rule, invmmd audit's dr intervals hold the complete data's group rates, and the
// complete cases' true-positive rates sit farther from them.
func TestAuditRecoversHiddenRates(t *testing.T) {
	full, err := tabular.ReadFile("../../data/fairness/hmda_full.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := full.Len()
	rng := rand.New(rand.NewPCG(11, 12))
	deny, _ := full.Binary("deny", "yes", "Y")
	pirat := full.Column("pirat")
	afam := full.Column("afam")
	// Decisions: a fixed rule on the payment-to-income ratio and credit history.
	var lines []string
	lines = append(lines, strings.Join(full.Header, ",")+",decision,hidden_afam")
	for i := range n {
		dec := 0
		if pirat.Num[i] > 0.36 || full.Column("chist").Value(i) >= "4" {
			dec = 1
		}
		p := 1 / (1 + math.Exp(-(-0.4 + 1.2*deny[i] + 3*(pirat.Num[i]-0.33))))
		h := afam.Value(i)
		if rng.Float64() < p {
			h = ""
		}
		cells := make([]string, len(full.Header))
		for k, name := range full.Header {
			cells[k] = full.Column(name).Value(i)
		}
		lines = append(lines, strings.Join(cells, ",")+fmt.Sprintf(",%d,%s", dec, h))
	}
	path := auditCSV(t, lines...)
	x := []string{"pirat", "hirat", "lvrat", "chist", "mhist", "phist", "unemp", "selfemp", "insurance", "condomin", "single", "hschool"}
	rep, err := Audit(context.Background(), AuditConfig{Source: Source{Columns: Columns{Data: path, Y: "deny", YPositive: "yes", Z: "hidden_afam", X: x}}, Decisions: "decision"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Observed == n || rep.Observed < n/3 {
		t.Fatalf("%d of %d rows observed: the hiding rule is off", rep.Observed, n)
	}
	// The complete data's values, as Fairlearn computes them.
	truth, err := Audit(context.Background(), AuditConfig{Source: Source{Columns: Columns{Data: path, Y: "deny", YPositive: "yes", Z: "afam", X: x}}, Decisions: "decision", Estimators: []fairness.Estimator{fairness.CompleteCase}})
	if err != nil {
		t.Fatal(err)
	}
	var covered, cells int
	var ccErr, drErr float64
	for _, m := range []string{fairness.SelectionRate, fairness.TPR, fairness.FPR, fairness.Accuracy} {
		for _, g := range []string{"no", "yes"} {
			want, _ := truth.Result.Find(m, g, "", fairness.CompleteCase)
			dr, _ := rep.Result.Find(m, g, "", fairness.DR)
			cc, _ := rep.Result.Find(m, g, "", fairness.CompleteCase)
			cells++
			if dr.Low <= want.Estimate && want.Estimate <= dr.High {
				covered++
			} else {
				t.Logf("%s %s: dr %v misses %v", m, g, dr, want.Estimate)
			}
			if m == fairness.TPR {
				ccErr += math.Abs(cc.Estimate - want.Estimate)
				drErr += math.Abs(dr.Estimate - want.Estimate)
			}
		}
	}
	if covered < cells-1 {
		t.Errorf("dr's intervals held %d of %d complete-data rates", covered, cells)
	}
	if !(drErr < ccErr) {
		t.Errorf("true-positive rates: dr's total error %.4f, complete_case's %.4f: dr no closer", drErr, ccErr)
	}
}

// TestAuditGroupsIntersectionalAndBinned: several attribute columns are crossed into
// intersectional groups (missing where any is), and a continuous attribute is binned at its
// observed quartiles, the rule stated in the report.
func TestAuditGroupsIntersectionalAndBinned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lines := []string{"y,sex,race,age,x,d"}
	for i := range 800 {
		sex, race := []string{"f", "m"}[rng.IntN(2)], []string{"a", "b"}[rng.IntN(2)]
		if i%7 == 0 {
			sex = ""
		}
		if i%5 == 0 {
			race = ""
		}
		age := fmt.Sprintf("%.2f", 20+50*rng.Float64())
		if i%6 == 0 {
			age = ""
		}
		lines = append(lines, fmt.Sprintf("%d,%s,%s,%s,%.3f,%d", rng.IntN(2), sex, race, age, rng.NormFloat64(), rng.IntN(2)))
	}
	path := auditCSV(t, lines...)
	rep, err := Audit(context.Background(), AuditConfig{Source: Source{Columns: Columns{Data: path, Y: "y", Z: "sex,race", X: []string{"x"}}}, Decisions: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 4 || !strings.Contains(strings.Join(rep.Groups, ";"), "f × a") {
		t.Errorf("intersectional groups %q, want the 4 crossings of sex and race", rep.Groups)
	}
	want := 0
	for i := range 800 {
		if i%7 != 0 && i%5 != 0 {
			want++
		}
	}
	if rep.Observed != want {
		t.Errorf("%d rows observed, want %d (missing where either column is)", rep.Observed, want)
	}
	rep, err = Audit(context.Background(), AuditConfig{Source: Source{Columns: Columns{Data: path, Y: "y", Z: "age", X: []string{"x"}}}, Decisions: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 4 || !strings.Contains(rep.BinRule, "age binned into 4 groups at the 4-quantiles") || !strings.Contains(rep.String(), rep.BinRule) {
		t.Errorf("binned groups %q, rule %q", rep.Groups, rep.BinRule)
	}
	for g, n := range rep.GroupRows {
		if n < 150 || n > 190 {
			t.Errorf("bin %q holds %d observed rows, want about a quarter of %d", rep.Groups[g], n, rep.Observed)
		}
	}
}

// TestAuditScoreTest: with H and ScoreTest the report carries dr's estimate of the
// scores' MMD² of h ⊥ Z | Y and its test, from one fit of G and m, as estimate and test
// print them.
func TestAuditScoreTest(t *testing.T) {
	if testing.Short() {
		t.Skip("fits G and m by MLPs (seconds)")
	}
	rng := rand.New(rand.NewPCG(8, 9))
	lines := []string{"y,z,x,s"}
	for range 600 {
		x := rng.NormFloat64()
		z := []string{"a", "b", "c"}[rng.IntN(3)]
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-x)) {
			y = 1
		}
		if rng.Float64() < 0.3 {
			z = ""
		}
		lines = append(lines, fmt.Sprintf("%d,%s,%.4f,%.4f", y, z, x, x+0.3*rng.NormFloat64()))
	}
	path := auditCSV(t, lines...)
	rep, err := Audit(context.Background(), AuditConfig{Source: Source{Columns: Columns{Data: path, Y: "y", Z: "z", X: []string{"x"}}, H: "s"}, Threshold: 0, ScoreTest: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ScoreEstimate == nil || rep.Scores == nil {
		t.Fatal("no score-level estimate or test")
	}
	for _, want := range []string{"h ⊥ Z | Y", "| dr |"} {
		if !strings.Contains(rep.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
