package experiments

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestREADMEVarianceNumbers recomputes from the committed variance.csv the numbers the
// README quotes about the variance study, and checks that the README quotes them so: a
// rerun that moves them makes this test fail until the text follows.
func TestREADMEVarianceNumbers(t *testing.T) {
	pts, err := results.ReadVarianceCSV(filepath.Join(committedTables, "variance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]map[int]results.VariancePoint{}
	var sizes []int
	for _, p := range pts {
		if at[p.Estimator] == nil {
			at[p.Estimator] = map[int]results.VariancePoint{}
		}
		at[p.Estimator][p.BatchSize] = p
		if p.Estimator == "full" {
			sizes = append(sizes, p.BatchSize)
		}
	}
	regCloser, regLeastSD, drBelowDRPlus := 0, 0, 0
	for _, n := range sizes {
		full := at["full"][n].Mean
		if math.Abs(at["reg"][n].Mean-full) < math.Abs(at["dr"][n].Mean-full) {
			regCloser++
		}
		least := true
		for e, byN := range at {
			if e != "reg" && byN[n].Std <= at["reg"][n].Std {
				least = false
			}
		}
		if least {
			regLeastSD++
		}
		if at["dr"][n].Std < at["dr+"][n].Std {
			drBelowDRPlus++
		}
	}
	f3 := func(e string, n int, sd bool) string {
		p := at[e][n]
		if sd {
			return fmt.Sprintf("%.3f", p.Std)
		}
		return fmt.Sprintf("%.3f", p.Mean)
	}
	want := []string{
		fmt.Sprintf("Over\nthe %d batch sizes, reg's mean is closer to full's than dr's at %d and reg has the smallest sd at\n%d", len(sizes), regCloser, regLeastSD),
		fmt.Sprintf("holds at only %d of the %d here", drBelowDRPlus, len(sizes)),
		fmt.Sprintf("At 10,000 rows full's mean is %s", f3("full", 10000, false)),
		fmt.Sprintf("(sd %s against full's %s and\ndr's %s)", f3("reg", 10000, true), f3("full", 10000, true), f3("dr", 10000, true)),
		fmt.Sprintf("`reg`'s mean is %s, against\ndr's %s and full's %s", f3("reg", 10000, false), f3("dr", 10000, false), f3("full", 10000, false)),
		fmt.Sprintf("ip and ip+ stay above full even at 10,000 rows\n(means %s and %s), and their means at 1,000 rows (%.2f and %.2f)", f3("ip", 10000, false), f3("ip+", 10000, false), at["ip"][1000].Mean, at["ip+"][1000].Mean),
		fmt.Sprintf("at batch 3,000 its sd over 100 batches is %s for full and %s for dr+ (against means of %s and %s;",
			f3("full", 3000, true), f3("dr+", 3000, true), f3("full", 3000, false), f3("dr+", 3000, false)),
	}
	for _, w := range want {
		if !strings.Contains(string(readme), w) {
			t.Errorf("README.md does not say, as variance.csv gives:\n%s", w)
		}
	}
}

// TestREADMETexturedMNISTNumbers recomputes from the committed textured-MNIST tables the
// ranges the README quotes for full, dr and reg against the paper.
func TestREADMETexturedMNISTNumbers(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	exp, ok := Describe("tmnist")
	if !ok {
		t.Fatal("no tmnist experiment")
	}
	lo, hi := math.Inf(1), math.Inf(-1)       // our test accuracy minus the paper's
	teLo, teHi := math.Inf(1), math.Inf(-1)   // our test accuracy
	ppLo, ppHi := math.Inf(1), math.Inf(-1)   // the paper's
	accLo, accHi := math.Inf(1), math.Inf(-1) // train accuracy at λ = 1
	mmdLo, mmdHi := math.Inf(1), math.Inf(-1) // train MMD at λ = 1
	for _, lambda := range []float64{1, 5} {
		rows, err := results.ReadCSVFile(results.TablePath(committedTables, "tmnist", lambda))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range results.Summarize(rows) {
			if s.Method != "full" && s.Method != "dr" && s.Method != "reg" {
				continue
			}
			paper := exp.Paper[lambda][s.Method].TeAcc.Mean
			our := math.Round(s.TeAcc.Mean*1000) / 1000
			d := our - paper
			lo, hi = math.Min(lo, d), math.Max(hi, d)
			teLo, teHi = math.Min(teLo, our), math.Max(teHi, our)
			ppLo, ppHi = math.Min(ppLo, paper), math.Max(ppHi, paper)
			if lambda == 1 {
				accLo, accHi = math.Min(accLo, s.TrAcc.Mean), math.Max(accHi, s.TrAcc.Mean)
				mmdLo, mmdHi = math.Min(mmdLo, s.TrMMD.Mean), math.Max(mmdHi, s.TrMMD.Mean)
			}
		}
	}
	want := fmt.Sprintf("**full, dr and reg sit %.3f–%.3f below the paper** (%.3f–%.3f against %.2f–%.2f), with\n  train accuracy %.3f–%.3f and train MMD %.3f–%.3f at λ = 1",
		-hi, -lo, teLo, teHi, ppLo, ppHi, accLo, accHi, mmdLo, mmdHi)
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not say, as the tmnist tables give:\n%s", want)
	}
}

// TestREADMEInvarianceBenchmark checks the README's cost ratios of the invariance test's
// routes against the table of BENCHMARKS.md that scripts/bench.sh test wrote.
func TestREADMEInvarianceBenchmark(t *testing.T) {
	bench, err := os.ReadFile(filepath.Join("..", "..", "BENCHMARKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ratio := map[string]string{}
	for _, line := range strings.Split(string(bench), "\n") {
		f := strings.Split(line, "|")
		if len(f) == 6 && (strings.TrimSpace(f[1]) == "500" || strings.TrimSpace(f[1]) == "2000") {
			ratio[strings.TrimSpace(f[1])+"/"+strings.TrimSpace(f[2])] = strings.TrimSpace(f[4])
		}
	}
	want := fmt.Sprintf("a wild test takes\n  %s and %s times the cross route's time at n = 500 and 2,000, and the same bootstrap written as a\n  plain loop over the exact kernel %s and %s times",
		ratio["500/wild"], ratio["2000/wild"], ratio["500/wild-plain-loop"], ratio["2000/wild-plain-loop"])
	if len(ratio) != 6 || !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not quote BENCHMARKS.md's ratios (%v):\n%s", ratio, want)
	}
}

// TestREADMECollapsedFits checks the README's count and train-accuracy range of the fits of
// the paper's normaliser split at λ = 5 that fall under 0.3 test accuracy.
func TestREADMECollapsedFits(t *testing.T) {
	rows, err := results.ReadCSVFile(results.TablePath(committedTables, "sim_mf075", 5))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	n, lo, hi := 0, math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if r.TeAcc < 0.3 {
			n++
			lo, hi = math.Min(lo, r.TrAcc), math.Max(hi, r.TrAcc)
		}
	}
	want := fmt.Sprintf("the %d fits under 0.3 test accuracy have\ntrain accuracy %.2f–%.2f as well", n, lo, hi)
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not say, as sim_mf075_lambda5.csv gives:\n%s", want)
	}
}

// TestREADMEClinicalNumbers recomputes from the committed clinical tables (CSV and
// configuration record) every number the README quotes about the clinical stand-in: the
// split sizes, the majority baseline, each method's test accuracy, its difference from none
// (ours per seed, the paper's from its none), none's margin over the majority baseline and
// how many fits of h stopped by patience.
func TestREADMEClinicalNumbers(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadCSVFile(results.TablePath(committedTables, "clinical", 1))
	if err != nil {
		t.Fatal(err)
	}
	exp, ok := Describe("clinical")
	if !ok {
		t.Fatal("no clinical experiment")
	}
	cfgPath := filepath.Join(committedTables, "clinical_config.json")
	ex, err := exp.TableExtras(cfgPath)
	if err != nil || ex.Majority == nil {
		t.Fatalf("extras %+v: %v", ex, err)
	}
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Data map[string][]struct {
			Name string
			N    int
		}
		Fits []struct {
			Method  string
			History struct{ StopReason string }
		}
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{}
	for seed, sums := range rec.Data {
		for _, s := range sums {
			if n, ok := sizes[s.Name]; ok && n != s.N {
				t.Fatalf("seed %s: %s has %d rows, another seed %d", seed, s.Name, s.N, n)
			}
			sizes[s.Name] = s.N
		}
	}
	patience := 0
	for _, f := range rec.Fits {
		if f.History.StopReason == "patience" {
			patience++
		}
	}
	sums := results.Summarize(rows)
	diffs, ok := results.DiffsFromNone(sums)
	if !ok {
		t.Fatal("no none in the clinical table")
	}
	paper := exp.Paper[1]
	var acc, diff, pdiff strings.Builder
	fmt.Fprintf(&acc, "| te acc, ours (flchain, %d seeds) |", sums[0].N)
	diff.WriteString("| te acc − none, ours (per seed) |")
	pdiff.WriteString("| te acc − none, paper (MIMIC-III) |")
	lo, hi := math.Inf(1), math.Inf(-1) // the penalised methods' differences from none
	var noneAcc float64
	for i, s := range sums {
		fmt.Fprintf(&acc, " %.3f ± %.3f |", s.TeAcc.Mean, s.TeAcc.Std)
		if s.Method == "none" {
			noneAcc = s.TeAcc.Mean
			diff.WriteString(" 0 |")
		} else {
			fmt.Fprintf(&diff, " %+.3f ± %.3f |", diffs[i].Mean, diffs[i].Std)
			lo, hi = math.Min(lo, diffs[i].Mean), math.Max(hi, diffs[i].Mean)
		}
		switch p, ok := paper[s.Method]; {
		case !ok:
			pdiff.WriteString(" – |")
		case s.Method == "none":
			pdiff.WriteString(" 0 |")
		default:
			fmt.Fprintf(&pdiff, " %+.2f |", p.TeAcc.Mean-paper["none"].TeAcc.Mean)
		}
	}
	thousands := func(n int) string {
		if n < 1000 {
			return fmt.Sprint(n)
		}
		return fmt.Sprintf("%d,%03d", n/1000, n%1000)
	}
	m := ex.Majority
	// none's margin over the majority baseline, seed by seed (every seed's test split has
	// the same size and balance, so the same baseline).
	mlo, mhi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if r.Method == "none" {
			mlo, mhi = math.Min(mlo, r.TeAcc-m.TeAcc.Mean), math.Max(mhi, r.TeAcc-m.TeAcc.Mean)
		}
	}
	majRow := fmt.Sprintf("| te acc, %s |", m.Name()) + strings.Repeat(fmt.Sprintf(" %.3f |", m.TeAcc.Mean), len(sums))
	want := []string{
		acc.String() + "\n", diff.String() + "\n", pdiff.String() + "\n", majRow + "\n",
		fmt.Sprintf("%+.3f to %+.3f on each seed", mlo, mhi),
		fmt.Sprintf("%s training, %s validation and %s test rows", thousands(sizes["train"]), thousands(sizes["val"]), thousands(sizes["test"])),
		fmt.Sprintf("always predicting Y = %d scores %.3f on test", m.Label, m.TeAcc.Mean),
		fmt.Sprintf("`none` reaches %.3f, %+.3f above the majority baseline", noneAcc, noneAcc-m.TeAcc.Mean),
		fmt.Sprintf("every penalised method gains %+.3f to %+.3f over `none`", lo, hi),
		fmt.Sprintf("%d of the %d fits of h stopped by patience", patience, len(rec.Fits)),
	}
	for _, w := range want {
		if !strings.Contains(string(readme), w) {
			t.Errorf("README.md does not say, as the committed clinical tables give:\n%s", w)
		}
	}
}
