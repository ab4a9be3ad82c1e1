package docscheck

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/results"
)

// The checks of docs/results.md (and of the README's glance table where it quotes the same
// numbers) against the committed tables: a rerun that moves a number fails here until the
// text follows.

// summaries returns the committed table of experiment name at λ, summarised by method.
func summaries(t *testing.T, name string, lambda float64) map[string]results.Summary {
	t.Helper()
	rows, err := results.ReadCSVFile(results.TablePath(tables, name, lambda))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]results.Summary{}
	for _, s := range results.Summarize(rows) {
		out[s.Method] = s
	}
	return out
}

// readJSON decodes the committed file name (a path under figures/tables) into v.
func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tables, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestVarianceNumbers recomputes from the committed variance.csv the numbers the documents
// quote about the variance study.
func TestVarianceNumbers(t *testing.T) {
	pts, err := results.ReadVarianceCSV(filepath.Join(tables, "variance.csv"))
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
	small, large := sizes[0], sizes[len(sizes)-1]
	full, dr, drPlus, reg := at["full"], at["dr"], at["dr+"], at["reg"]
	regCloser, regLeastSD, regLeastIQR, regAboveFull := 0, 0, 0, 0
	drBelowDRPlus, drIQRBelow := 0, 0
	drAboveFull, drInFullsMiddle := 0, 0
	var floored, clean []int // sizes with and without a floored normaliser of dr
	for _, n := range sizes {
		f := full[n]
		if math.Abs(reg[n].Mean-f.Mean) < math.Abs(dr[n].Mean-f.Mean) {
			regCloser++
		}
		leastSD, leastIQR := true, true
		for e, byN := range at {
			if e != "reg" && byN[n].Std <= reg[n].Std {
				leastSD = false
			}
			if e != "reg" && byN[n].IQR() <= reg[n].IQR() {
				leastIQR = false
			}
		}
		if leastSD {
			regLeastSD++
		}
		if leastIQR {
			regLeastIQR++
		}
		if reg[n].Median > f.Median {
			regAboveFull++
		}
		if dr[n].Std < drPlus[n].Std {
			drBelowDRPlus++
		}
		if dr[n].IQR() < drPlus[n].IQR() {
			drIQRBelow++
		}
		if dr[n].Median > f.Median {
			drAboveFull++
		}
		if f.Q25 <= dr[n].Median && dr[n].Median <= f.Q75 {
			drInFullsMiddle++
		}
		if dr[n].Floored > 0 {
			floored = append(floored, n)
		} else {
			clean = append(clean, n)
		}
	}
	// From the first size on which no larger size floors a normaliser of dr: dr's mean
	// against full's, and its median's offset above full's.
	from := large
	for i := len(sizes) - 1; i >= 0 && dr[sizes[i]].Floored == 0; i-- {
		from = sizes[i]
	}
	meanGap, offLo, offHi := 0.0, math.Inf(1), math.Inf(-1)
	for _, n := range sizes {
		if n < from {
			continue
		}
		meanGap = math.Max(meanGap, math.Abs(dr[n].Mean-full[n].Mean))
		off := dr[n].Median - full[n].Median
		offLo, offHi = math.Min(offLo, off), math.Max(offHi, off)
	}
	rangeOf := func(ns []int, v func(results.VariancePoint) float64, e string) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, n := range ns {
			lo, hi = math.Min(lo, v(at[e][n])), math.Max(hi, v(at[e][n]))
		}
		return lo, hi
	}
	std := func(p results.VariancePoint) float64 { return p.Std }
	minG := func(p results.VariancePoint) float64 { return p.MinG }
	sdJump, iqrJump := 1.0, 1.0
	for i := 1; i < len(sizes); i++ {
		a, b := dr[sizes[i-1]], dr[sizes[i]]
		sdJump = math.Max(sdJump, math.Max(a.Std/b.Std, b.Std/a.Std))
		iqrJump = math.Max(iqrJump, math.Max(a.IQR()/b.IQR(), b.IQR()/a.IQR()))
	}
	sdFlLo, sdFlHi := rangeOf(floored, std, "dr")
	sdClLo, sdClHi := rangeOf(clean, std, "dr")
	gLo, gHi := rangeOf(sizes, minG, "dr")
	gtLo, gtHi := rangeOf(sizes, minG, "dr+")
	if gtLo != gtHi {
		t.Errorf("the true G's minimum varies over the sizes (%g–%g): the documents say it is one value", gtLo, gtHi)
	}
	f3 := func(e string, n int, sd bool) string {
		if sd {
			return fmt.Sprintf("%.3f", at[e][n].Std)
		}
		return fmt.Sprintf("%.3f", at[e][n].Mean)
	}
	k := len(sizes)
	d1 := dr[small]
	all := fmt.Sprintf("%d of the", drAboveFull)
	if drAboveFull == k {
		all = "all"
	}
	says(t, resultsMD, "variance.csv",
		fmt.Sprintf("At %s rows dr's mean is %.2f and its sd %.2f, while its median is %.3f and its quartiles %.3f–%.3f (IQR %.3f); %d of its normaliser estimates were floored there, and the smallest Ĝ it divided by was %.3f.",
			thousands(small), d1.Mean, d1.Std, d1.Median, d1.Q25, d1.Q75, d1.IQR(), d1.Floored, d1.MinG),
		fmt.Sprintf("dr's sd is %.2f–%.2f at the %d with a floored normaliser and %.3f–%.3f at the %d without; from one size to the next it changes by up to %.1f times, its IQR by at most %.1f times.",
			sdFlLo, sdFlHi, len(floored), sdClLo, sdClHi, len(clean), sdJump, iqrJump),
		fmt.Sprintf("dr's IQR falls from %.3f at %s rows to %.3f at %s, its sd from %.2f to %.3f.", d1.IQR(), thousands(small), dr[large].IQR(), thousands(large), d1.Std, dr[large].Std),
		fmt.Sprintf("(from %s rows on, its mean is within %.3f of full's)", thousands(from), meanGap),
		fmt.Sprintf("its median exceeds full's at %s %d sizes (by %.3f–%.3f from %s rows on; %.3f against %.3f at %s) and lies within the middle half of full's estimates at only %d of the %d.",
			all, k, offLo, offHi, thousands(from), dr[large].Median, full[large].Median, thousands(large), drInFullsMiddle, k),
		fmt.Sprintf("reg's median is above full's too, at %d of the %d", regAboveFull, k),
		fmt.Sprintf("dr's sd is below dr+'s at %d of the %d sizes and its IQR at %d, as often as chance gives (one-sided sign test: P = %.2f and %.2f); at %s rows the IQRs are %.3f and %.3f.",
			drBelowDRPlus, k, drIQRBelow, results.SignTestP(drBelowDRPlus, k), results.SignTestP(drIQRBelow, k), thousands(large), dr[large].IQR(), drPlus[large].IQR()),
		fmt.Sprintf("the smallest Ĝ among a size's observed rows is %.3f–%.3f, the smallest true G %.3f at every size", gLo, gHi, gtLo),
		fmt.Sprintf("Over the %d batch sizes, reg's mean is closer to full's than dr's at %d and reg has the smallest sd at %d and the smallest IQR at %d", k, regCloser, regLeastSD, regLeastIQR),
		fmt.Sprintf("At 10,000 rows full's mean is %s", f3("full", 10000, false)),
		fmt.Sprintf("(sd %s against full's %s and dr's %s)", f3("reg", 10000, true), f3("full", 10000, true), f3("dr", 10000, true)),
		fmt.Sprintf("`reg`'s mean is %s, against dr's %s and full's %s", f3("reg", 10000, false), f3("dr", 10000, false), f3("full", 10000, false)),
		fmt.Sprintf("ip and ip+ stay above full even at 10,000 rows (means %s and %s), and their means at 1,000 rows (%.2f and %.2f, against medians of %.3f and %.3f)",
			f3("ip", 10000, false), f3("ip+", 10000, false), at["ip"][1000].Mean, at["ip+"][1000].Mean, at["ip"][1000].Median, at["ip+"][1000].Median),
		fmt.Sprintf("for each of the %d batch sizes 1000, 1250, …, 10000", k),
	)
	says(t, trainMD, "variance.csv",
		fmt.Sprintf("at batch 3,000 its sd over 100 batches is %s for full and %s for dr+ (against means of %s and %s and medians of %.3f and %.3f: %d of dr+'s normalisers over the 100 batches was floored;",
			f3("full", 3000, true), f3("dr+", 3000, true), f3("full", 3000, false), f3("dr+", 3000, false), full[3000].Median, drPlus[3000].Median, drPlus[3000].Floored))
	glance, _, _ := between(t, readme, "glance")
	for _, w := range []string{
		fmt.Sprintf("IQR %.3f → %.3f from %s to %s rows; its median above full's at %s %d sizes", d1.IQR(), dr[large].IQR(), thousands(small), thousands(large), all, k),
		fmt.Sprintf("dr's sd below dr+'s at %d of %d sizes, as chance gives (P = %.2f)", drBelowDRPlus, k, results.SignTestP(drBelowDRPlus, k)),
		fmt.Sprintf("smallest sd at %d of %d sizes", regLeastSD, k),
	} {
		if !strings.Contains(oneLine(glance), w) {
			t.Errorf("README.md's glance table does not say, as variance.csv gives:\n%s", w)
		}
	}
	// The verdicts follow from the counts: finding 2 does not hold when neither count is
	// more than chance gives; finding 1's spread shrinks; reg is the least variable.
	if results.SignTestP(drBelowDRPlus, k) < 0.05 || results.SignTestP(drIQRBelow, k) < 0.05 {
		t.Errorf("dr below dr+ at %d (sd) and %d (IQR) of %d sizes: more than chance, but the documents say finding 2 does not hold", drBelowDRPlus, drIQRBelow, k)
	}
	if !(dr[large].IQR() < d1.IQR() && dr[large].Std < d1.Std) {
		t.Errorf("dr's spread does not shrink from %d to %d rows, but the documents say it does", small, large)
	}
	if regLeastSD != k {
		t.Errorf("reg has the smallest sd at %d of %d sizes: the glance table says reg's finding holds", regLeastSD, k)
	}
}

// TestTexturedMNISTNumbers recomputes from the committed textured-MNIST tables and records
// the ranges the documents quote for full, dr and reg against the paper, none's row, and
// the auxiliary models' validation NLL.
func TestTexturedMNISTNumbers(t *testing.T) {
	exp, ok := experiments.Studies().Describe("tmnist")
	if !ok {
		t.Fatal("no tmnist experiment")
	}
	lo, hi := math.Inf(1), math.Inf(-1)       // our test accuracy minus the paper's
	teLo, teHi := math.Inf(1), math.Inf(-1)   // our test accuracy
	ppLo, ppHi := math.Inf(1), math.Inf(-1)   // the paper's
	accLo, accHi := math.Inf(1), math.Inf(-1) // train accuracy at λ = 1
	mmdLo, mmdHi := math.Inf(1), math.Inf(-1) // train MMD at λ = 1
	for _, lambda := range []float64{1, 5} {
		for m, s := range summaries(t, "tmnist", lambda) {
			if m != "full" && m != "dr" && m != "reg" {
				continue
			}
			paper := exp.Paper[lambda][m].TeAcc.Mean
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
	s1 := summaries(t, "tmnist", 1)
	none := s1["none"]
	var rec struct {
		AuxReports map[string]map[string]struct{ ValNLL, BayesNLL float64 }
	}
	readJSON(t, "tmnist_config.json", &rec)
	gLo, gHi, bLo, bHi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, r := range rec.AuxReports {
		g := r["G"]
		gLo, gHi, bLo, bHi = math.Min(gLo, g.ValNLL), math.Max(gHi, g.ValNLL), math.Min(bLo, g.BayesNLL), math.Max(bHi, g.BayesNLL)
	}
	if len(rec.AuxReports) != 5 {
		t.Fatalf("tmnist_config.json holds %d seeds' auxiliary reports, want 5", len(rec.AuxReports))
	}
	says(t, resultsMD, "the tmnist tables",
		fmt.Sprintf("**full, dr and reg sit %.3f–%.3f below the paper** (%.3f–%.3f against %.2f–%.2f), with train accuracy %.3f–%.3f and train MMD %.3f–%.3f at λ = 1",
			-hi, -lo, teLo, teHi, ppLo, ppHi, accLo, accHi, mmdLo, mmdHi),
		fmt.Sprintf("(%.3f train, %.3f test accuracy, train MMD %.2f; paper %.2f, %.2f, %.2f)",
			none.TrAcc.Mean, none.TeAcc.Mean, none.TrMMD.Mean, exp.Paper[1]["none"].TrAcc.Mean, exp.Paper[1]["none"].TeAcc.Mean, exp.Paper[1]["none"].TrMMD.Mean),
		fmt.Sprintf("(obs %.2f below full at λ = 1, the paper %.2f;", s1["full"].TeAcc.Mean-s1["obs"].TeAcc.Mean, exp.Paper[1]["full"].TeAcc.Mean-exp.Paper[1]["obs"].TeAcc.Mean),
		fmt.Sprintf("Ĝ's validation NLL is %.2f–%.2f against the Bayes %.2f–%.2f", gLo, gHi, bLo, bHi),
	)
	glance, _, _ := between(t, readme, "glance")
	for _, w := range []string{
		fmt.Sprintf("full, dr, reg %.3f–%.3f below the paper", -hi, -lo),
		fmt.Sprintf("λ = 1: full, dr, reg %.3f–%.3f, obs %.3f, ip %.3f; obs %.2f below full (paper %.2f)",
			min(s1["full"].TeAcc.Mean, s1["dr"].TeAcc.Mean, s1["reg"].TeAcc.Mean), max(s1["full"].TeAcc.Mean, s1["dr"].TeAcc.Mean, s1["reg"].TeAcc.Mean),
			s1["obs"].TeAcc.Mean, s1["ip"].TeAcc.Mean, s1["full"].TeAcc.Mean-s1["obs"].TeAcc.Mean, exp.Paper[1]["full"].TeAcc.Mean-exp.Paper[1]["obs"].TeAcc.Mean),
	} {
		if !strings.Contains(oneLine(glance), w) {
			t.Errorf("README.md's glance table does not say, as the tmnist tables give:\n%s", w)
		}
	}
}

// TestTexturedMNISTChecks checks the documents' numbers of the two textured-MNIST checks
// committed under figures/tables/checks: how well the network reads the digits (-digits)
// and full with the wider network (-net wide) against the default network on the same seeds.
func TestTexturedMNISTChecks(t *testing.T) {
	digits, err := results.ReadCSVFile(filepath.Join(tables, "checks", "tmnist_digits_lambda1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	d := results.Summarize(digits)
	if len(d) != 1 || d[0].Method != "none" || d[0].N != 5 {
		t.Fatalf("tmnist_digits: %+v, want none over five seeds", d)
	}
	read := fmt.Sprintf("%.3f", d[0].TeAcc.Mean)
	fullOn := func(file string, seeds int) float64 {
		rows, err := results.ReadCSVFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var kept []results.Row
		for _, r := range rows {
			if r.Method == "full" && r.Seed >= 1 && int(r.Seed) <= seeds {
				kept = append(kept, r)
			}
		}
		s := results.Summarize(kept)
		if len(s) != 1 || s[0].N != seeds {
			t.Fatalf("%s: full over seeds 1–%d: %+v", file, seeds, s)
		}
		return s[0].TeAcc.Mean
	}
	wide1 := fullOn(filepath.Join(tables, "checks", "tmnist_net-wide_lambda1.csv"), 3)
	wide5 := fullOn(filepath.Join(tables, "checks", "tmnist_net-wide_lambda5.csv"), 3)
	std1 := fullOn(results.TablePath(tables, "tmnist", 1), 3)
	std5 := fullOn(results.TablePath(tables, "tmnist", 5), 3)
	says(t, resultsMD, "figures/tables/checks/tmnist_digits and tmnist_net-wide",
		fmt.Sprintf("it reads %s ± %.3f of test digits over five seeds, so an h that reads only the digit would reach 0.25 + 0.5 · %s = %.3f here", read, d[0].TeAcc.Std, read, 0.25+0.5*d[0].TeAcc.Mean),
		fmt.Sprintf("full on seeds 1–3: %.3f at λ = 1 and %.3f at λ = 5, against %.3f and %.3f with `StridedCNN` on the same seeds", wide1, wide5, std1, std5),
		fmt.Sprintf("(train MMD %.2f between textures within a digit)", d[0].TrMMD.Mean),
	)
	glance, _, _ := between(t, readme, "glance")
	if w := "the network's digit reading, " + read; !strings.Contains(oneLine(glance), w) {
		t.Errorf("README.md's glance table does not say, as tmnist_digits gives:\n%s", w)
	}
}

// TestInvarianceBenchmark checks the cost ratios of the invariance test's routes against the
// table of BENCHMARKS.md that scripts/bench.sh test wrote.
func TestInvarianceBenchmark(t *testing.T) {
	ratio := map[string]string{}
	for _, line := range strings.Split(readDoc(t, "BENCHMARKS.md"), "\n") {
		f := strings.Split(line, "|")
		if len(f) == 6 && (strings.TrimSpace(f[1]) == "500" || strings.TrimSpace(f[1]) == "2000") {
			ratio[strings.TrimSpace(f[1])+"/"+strings.TrimSpace(f[2])] = strings.TrimSpace(f[4])
		}
	}
	if len(ratio) != 6 {
		t.Fatalf("BENCHMARKS.md's invariance-test table gives %d ratios, want 6: %v", len(ratio), ratio)
	}
	says(t, resultsMD, "BENCHMARKS.md",
		fmt.Sprintf("a wild test takes %s and %s times the cross route's time at n = 500 and 2,000, and the same bootstrap written as a plain loop over the exact kernel %s and %s times",
			ratio["500/wild"], ratio["2000/wild"], ratio["500/wild-plain-loop"], ratio["2000/wild-plain-loop"]))
}

// TestCollapsedFits checks the count and train-accuracy range of the fits of the paper's
// normaliser split at λ = 5 that fall under 0.3 test accuracy.
func TestCollapsedFits(t *testing.T) {
	rows, err := results.ReadCSVFile(results.TablePath(tables, "sim_mf075", 5))
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
	says(t, resultsMD, "sim_mf075_lambda5.csv", fmt.Sprintf("the %d fits under 0.3 test accuracy have train accuracy %.2f–%.2f as well", n, lo, hi))
}

// objectivesTable returns the table of the objectives comparison of name at λ, as
// ObjectiveComparison makes it from the committed tables (the text before its first blank
// line).
func objectivesTable(t *testing.T, name string, lambda float64) string {
	t.Helper()
	md, err := experiments.ObjectiveComparison(tables, name, lambda)
	if err != nil {
		t.Fatal(err)
	}
	return md[:strings.Index(md, "\n\n")+1]
}

// TestDiagnosisNumbers recomputes from the committed diagnosis of the collapsed fit
// (sim_mf075, dr, λ = 5, seed 1) the numbers the documents quote about it, and checks that
// docs/results.md quotes the objectives' comparison tables as the committed tables give them.
func TestDiagnosisNumbers(t *testing.T) {
	steps, err := results.ReadDiagnosisCSV(filepath.Join(tables, "diagnosis_sim_mf075_dr_lambda5_seed1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var rec experiments.DiagnosisRecord
	readJSON(t, "diagnosis_sim_mf075_dr_lambda5_seed1_config.json", &rec)
	acc := map[string]float64{}
	for _, f := range rec.Fits {
		acc[f.Objective] = f.TrainAcc
	}
	var n, below, above int
	lo, hi, nllMax := math.Inf(1), math.Inf(-1), math.Inf(-1)
	pzLo, pzHi := math.Inf(1), math.Inf(-1)
	var nll0, nllEnd float64
	for _, s := range steps {
		if s.Objective == "train-norms" {
			nllEnd = s.NLL
			continue
		}
		if s.Objective != "paper" {
			continue
		}
		if n == 0 {
			nll0 = s.NLL
		}
		n++
		if s.MMD2[0] < 0 || s.MMD2[1] < 0 {
			below++
		}
		if s.MMD2[0] > 1 || s.MMD2[1] > 1 {
			above++
		}
		if s.MMD2[0] > 1 {
			pzLo, pzHi = math.Min(pzLo, s.PZ1[0]), math.Max(pzHi, s.PZ1[0])
		}
		lo, hi = math.Min(lo, math.Min(s.MMD2[0], s.MMD2[1])), math.Max(hi, math.Max(s.MMD2[0], s.MMD2[1]))
		nllMax = math.Max(nllMax, s.NLL)
	}
	says(t, resultsMD, "the diagnosis of sim_mf075, dr, λ = 5, seed 1",
		fmt.Sprintf("%d of %d steps had a stratum's estimate below 0 (the lowest %s) and %d had one above 1 (the highest %.2f)", below, n, minus(lo, 2), above, hi),
		fmt.Sprintf("P(Z = 1 | Y = 0) at %.3f–%.3f", pzLo, pzHi),
		fmt.Sprintf("The initial network's NLL is %.2f", nll0),
		fmt.Sprintf("it climbs to %.2f and the fit ends at train accuracy %.2f", nllMax, acc["paper"]),
		fmt.Sprintf("descends to %.2f and train accuracy %.2f", nllEnd, acc["train-norms"]),
	)
	mf5 := objectivesTable(t, "sim_mf075", 5)
	says(t, resultsMD, "ObjectiveComparison of the committed tables",
		mf5, objectivesTable(t, "sim_mf075", 1), objectivesTable(t, "sim", 5), objectivesTable(t, "tmnist", 1))
	// The glance table's row: dr under the paper's objective and under train-norms.
	var paper, norms string
	for _, l := range strings.Split(mf5, "\n") {
		cells := strings.Split(l, "|")
		if len(cells) < 5 {
			continue
		}
		switch strings.TrimSpace(cells[1]) {
		case "paper":
			paper = strings.TrimSpace(cells[4])
		case "train-norms":
			norms = strings.TrimSpace(cells[4])
		}
	}
	if !strings.HasPrefix(mf5, "| objective (sim_mf075, λ = 5) | obs | full | dr |") {
		t.Fatalf("the comparison's columns moved:\n%s", mf5)
	}
	paperMean, paperInv, _ := strings.Cut(paper, " [")
	normsMean, normsInv, _ := strings.Cut(norms, " [")
	glance, _, _ := between(t, readme, "glance")
	w := fmt.Sprintf("dr: %s [%s inverted] → %s [%s] with train-norms", paperMean, strings.TrimSuffix(paperInv, "]"), normsMean, strings.TrimSuffix(normsInv, "]"))
	if !strings.Contains(oneLine(glance), w) {
		t.Errorf("README.md's glance table does not say, as the objectives comparison gives:\n%s", w)
	}
	// "every method's mean moves by less than its seeds' sd"
	movedLessThanSD(t, "sim_lambda5.csv", "sim_ntrain_lambda5.csv")
	movedLessThanSD(t, "tmnist_lambda1.csv", "tmnist_robust_lambda1.csv")
}

// movedLessThanSD checks "every method's mean moves by less than its seeds' sd": for each
// method of the committed table variant, its mean test accuracy differs from that of the
// table paper by less than the larger of the two standard deviations.
func movedLessThanSD(t *testing.T, paper, variant string) {
	t.Helper()
	base, err := results.ReadCSVFile(filepath.Join(tables, paper))
	if err != nil {
		t.Fatal(err)
	}
	other, err := results.ReadCSVFile(filepath.Join(tables, variant))
	if err != nil {
		t.Fatal(err)
	}
	pm := map[string]results.Summary{}
	for _, s := range results.Summarize(base) {
		pm[s.Method] = s
	}
	for _, s := range results.Summarize(other) {
		p := pm[s.Method]
		if d := math.Abs(s.TeAcc.Mean - p.TeAcc.Mean); d >= math.Max(s.TeAcc.Std, p.TeAcc.Std) && d > 0 {
			t.Errorf("%s, %s: the mean test accuracy moved by %.3f from %s, more than the seeds' sd (%.3f, %.3f)", variant, s.Method, d, paper, p.TeAcc.Std, s.TeAcc.Std)
		}
	}
}

// TestClinicalNumbers recomputes from the committed clinical tables (CSV and configuration
// record) every number the documents quote about the clinical stand-in: the split sizes, the
// majority baseline, each method's test accuracy, its difference from none (ours per seed,
// the paper's from its none), none's margin over the majority baseline and how many fits of
// h stopped by patience.
func TestClinicalNumbers(t *testing.T) {
	rows, err := results.ReadCSVFile(results.TablePath(tables, "clinical", 1))
	if err != nil {
		t.Fatal(err)
	}
	exp, ok := experiments.Studies().Describe("clinical")
	if !ok {
		t.Fatal("no clinical experiment")
	}
	ex, err := exp.TableExtras(filepath.Join(tables, "clinical_config.json"))
	if err != nil || ex.Majority == nil {
		t.Fatalf("extras %+v: %v", ex, err)
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
	readJSON(t, "clinical_config.json", &rec)
	sizes := splitSizes(t, rec.Data)
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
	lo, hi := math.Inf(1), math.Inf(-1)   // the penalised methods' differences from none
	plo, phi := math.Inf(1), math.Inf(-1) // the paper's
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
			d := p.TeAcc.Mean - paper["none"].TeAcc.Mean
			fmt.Fprintf(&pdiff, " %+.2f |", d)
			plo, phi = math.Min(plo, d), math.Max(phi, d)
		}
	}
	m := ex.Majority
	mlo, mhi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if r.Method == "none" {
			mlo, mhi = math.Min(mlo, r.TeAcc-m.TeAcc.Mean), math.Max(mhi, r.TeAcc-m.TeAcc.Mean)
		}
	}
	majRow := fmt.Sprintf("| te acc, %s |", m.Name()) + strings.Repeat(fmt.Sprintf(" %.3f |", m.TeAcc.Mean), len(sums))
	says(t, resultsMD, "the committed clinical tables",
		acc.String(), diff.String(), pdiff.String(), majRow,
		fmt.Sprintf("%+.3f to %+.3f on each seed", mlo, mhi),
		fmt.Sprintf("%s training, %s validation and %s test rows", thousands(sizes["train"]), thousands(sizes["val"]), thousands(sizes["test"])),
		fmt.Sprintf("always predicting Y = %d scores %.3f on test", m.Label, m.TeAcc.Mean),
		fmt.Sprintf("`none` reaches %.3f, %+.3f above the majority baseline", noneAcc, noneAcc-m.TeAcc.Mean),
		fmt.Sprintf("every penalised method gains %+.3f to %+.3f over `none`", lo, hi),
		fmt.Sprintf("%d of the %d fits of h stopped by patience", patience, len(rec.Fits)),
	)
	glance, _, _ := between(t, readme, "glance")
	if w := fmt.Sprintf("%+.3f to %+.3f over none (the paper's %s to %s on other data); majority baseline %.3f", lo, hi, signed(plo, 2), signed(phi, 2), m.TeAcc.Mean); !strings.Contains(oneLine(glance), w) {
		t.Errorf("README.md's glance table does not say, as the clinical tables give:\n%s", w)
	}
}

// splitSizes returns the rows of each split (train, val, test) of a configuration record's
// data summaries, failing when two seeds disagree.
func splitSizes(t *testing.T, data map[string][]struct {
	Name string
	N    int
}) map[string]int {
	t.Helper()
	sizes := map[string]int{}
	for seed, sums := range data {
		for _, s := range sums {
			if n, ok := sizes[s.Name]; ok && n != s.N {
				t.Fatalf("seed %s: %s has %d rows, another seed %d", seed, s.Name, s.N, n)
			}
			sizes[s.Name] = s.N
		}
	}
	if len(sizes) == 0 {
		t.Fatal("a configuration record without data summaries")
	}
	return sizes
}

// TestTrainingSplitSizes checks docs/training.md's split sizes against the committed
// records of the simulation, textured MNIST and the clinical stand-in.
func TestTrainingSplitSizes(t *testing.T) {
	s := map[string]map[string]int{}
	for _, name := range []string{"sim", "tmnist", "clinical"} {
		var rec struct {
			Data map[string][]struct {
				Name string
				N    int
			}
		}
		readJSON(t, name+"_config.json", &rec)
		s[name] = splitSizes(t, rec.Data)
	}
	triple := func(m map[string]int) string {
		return thousands(m["train"]) + " / " + thousands(m["val"]) + " / " + thousands(m["test"])
	}
	says(t, trainMD, "the committed *_config.json",
		"simulation "+triple(s["sim"])+"; textured MNIST "+triple(s["tmnist"]),
		"flchain stand-in "+triple(s["clinical"])+" (every seed)",
		fmt.Sprintf("flchain the whole training split (%s rows", thousands(s["clinical"]["train"])),
	)
}

// TestClinicalSelection checks the account of the clinical dr fit's selection against the
// committed diagnosis record.
func TestClinicalSelection(t *testing.T) {
	var rec experiments.DiagnosisRecord
	readJSON(t, "diagnosis_clinical_dr_lambda1_seed1_config.json", &rec)
	fits := map[string]experiments.DiagnosisSummary{}
	for _, f := range rec.Fits {
		fits[f.Objective] = f
	}
	p, r := fits["paper"], fits["robust"]
	if len(p.BestValStrata) != 2 || len(r.BestValStrata) != 2 {
		t.Fatalf("record without the validation parts: %+v", rec.Fits)
	}
	if r.BestVal < r.BestValNLL {
		t.Errorf("robust kept a validation objective %v below its NLL %v", r.BestVal, r.BestValNLL)
	}
	if p.BestEpoch != r.BestEpoch {
		t.Errorf("the documents say the same epoch was kept; the record says %d and %d", p.BestEpoch, r.BestEpoch)
	}
	f := func(x float64) string { return minus(x, 3) }
	says(t, resultsMD, "the clinical diagnosis",
		fmt.Sprintf("paper's objective kept epoch %d with a validation objective of %s: NLL %s plus estimates of %s (Y = 0) and %s (Y = 1)",
			p.BestEpoch, f(p.BestVal), f(p.BestValNLL), f(p.BestValStrata[0]), f(p.BestValStrata[1])),
		fmt.Sprintf("on the training split's normalisers, are %s and %s and the objective %s, at least the NLL; here the same epoch was kept",
			f(r.BestValStrata[0]), f(r.BestValStrata[1]), f(r.BestVal)))
}

// tmnistAblation is the textured-MNIST ablation of data/README.md: each construction's row
// label there, and the committed result file its seeds 1–3 come from (the default's from the
// paper-size table, the others from the checks folder, written by invmmd tmnist -rendering
// or -textures with -methods obs,full -lambdas 1 -seeds 1,2,3).
var tmnistAblation = []struct{ label, name, file string }{
	{"make_mnistplus, brick / grass (the default)", "tmnist", "tmnist_lambda1.csv"},
	{"make_mnistplus, brick / gravel", "tmnist_brick_gravel", "checks/tmnist_brick_gravel_lambda1.csv"},
	{"without the emboss step (`-rendering fused`)", "tmnist_fused", "checks/tmnist_fused_lambda1.csv"},
	{"the earlier toned rendering (`-rendering toned`)", "tmnist_toned", "checks/tmnist_toned_lambda1.csv"},
}

// TestTexturedMNISTAblation recomputes the ablation's rows (obs and full test accuracy over
// seeds 1–3, mean ± sd, and full − obs) from the committed result files and checks
// data/README.md's table, docs/results.md's sentences and the experiment's own note.
func TestTexturedMNISTAblation(t *testing.T) {
	gap := map[string]string{}
	full := map[string]string{}
	var rows []string
	for _, a := range tmnistAblation {
		all, err := results.ReadCSVFile(filepath.Join(tables, filepath.FromSlash(a.file)))
		if err != nil {
			t.Fatal(err)
		}
		var kept []results.Row
		for _, r := range all {
			if r.Seed >= 1 && r.Seed <= 3 && (r.Method == "obs" || r.Method == "full") {
				kept = append(kept, r)
			}
		}
		cells := map[string]results.Cell{}
		for _, s := range results.Summarize(kept) {
			if s.N != 3 {
				t.Errorf("%s: %s has %d of seeds 1–3", a.file, s.Method, s.N)
			}
			cells[s.Method] = s.TeAcc
		}
		obs, fl := cells["obs"], cells["full"]
		gap[a.name] = fmt.Sprintf("%.3f", fl.Mean-obs.Mean)
		full[a.name] = fmt.Sprintf("%.3f", fl.Mean)
		rows = append(rows, fmt.Sprintf("| %s | %.3f ± %.3f | %.3f ± %.3f | %s |", a.label, obs.Mean, obs.Std, fl.Mean, fl.Std, gap[a.name]))
	}
	says(t, "data/README.md", "the ablation's result files", rows...)
	says(t, resultsMD, "the ablation's result files",
		fmt.Sprintf("gap (%s with it, %s without, %s with the earlier toned rendering), and no packaged texture pair opens it further (brick and gravel %s)",
			gap["tmnist"], gap["tmnist_fused"], gap["tmnist_toned"], gap["tmnist_brick_gravel"]),
		fmt.Sprintf("full reaches %s on the earlier toned rendering and %s without the emboss step", full["tmnist_toned"], full["tmnist_fused"]))
	exp, ok := experiments.Studies().Describe("tmnist")
	if !ok {
		t.Fatal("no tmnist experiment")
	}
	note := fmt.Sprintf("obs falls below full by %s test accuracy with this construction, %s with brick and gravel, %s without the emboss and %s with the earlier toned rendering",
		gap["tmnist"], gap["tmnist_brick_gravel"], gap["tmnist_fused"], gap["tmnist_toned"])
	if !strings.Contains(strings.Join(exp.Notes, "\n"), note) {
		t.Errorf("the tmnist experiment's notes do not say, as the ablation's files give:\n%s", note)
	}
}

// TestSimulationNumbers checks the prose of Experiment 1 and of the continuous nuisance
// against the committed tables and the closed form of the invariant ceiling.
func TestSimulationNumbers(t *testing.T) {
	exp, ok := experiments.Studies().Describe("sim")
	if !ok {
		t.Fatal("no sim experiment")
	}
	s1, s5 := summaries(t, "sim", 1), summaries(t, "sim", 5)
	lo, hi := math.Inf(1), math.Inf(-1) // the penalised methods' train MMD at λ = 1
	for m, s := range s1 {
		if m != "none" && m != "obs" {
			lo, hi = math.Min(lo, s.TrMMD.Mean), math.Max(hi, s.TrMMD.Mean)
		}
	}
	// The difference of the means and its standard error (Welch: our seeds, the paper's
	// results.PaperSeeds), as difference.stated and difference.ratio give them.
	diff := func(m string) difference {
		return difference{ours: s5[m].TeAcc.Mean, oursSD: s5[m].TeAcc.Std, nOurs: s5[m].N, paper: exp.Paper[5][m].TeAcc.Mean, paperSD: exp.Paper[5][m].TeAcc.Std}
	}
	says(t, resultsMD, "the sim tables",
		fmt.Sprintf("the lowest test accuracy (%.3f;", s1["none"].TeAcc.Mean),
		fmt.Sprintf("Our train MMDs at λ = 1 are %.3f–%.3f", lo, hi),
		fmt.Sprintf("%s and %s, |d|/se %s and %s)", diff("obs").stated(), diff("dr+").stated(), diff("obs").ratio(), diff("dr+").ratio()),
	)
	glance, _, _ := between(t, readme, "glance")
	p := exp.Paper[1]
	if w := fmt.Sprintf("none %.3f, obs %.3f, dr %.3f (paper %.2f, %.2f, %.2f)", s1["none"].TeAcc.Mean, s1["obs"].TeAcc.Mean, s1["dr"].TeAcc.Mean,
		p["none"].TeAcc.Mean, p["obs"].TeAcc.Mean, p["dr"].TeAcc.Mean); !strings.Contains(oneLine(glance), w) {
		t.Errorf("README.md's glance table does not say, as the sim tables give:\n%s", w)
	}
	c5 := summaries(t, "simcont", 5)
	loC, hiC := math.Inf(1), math.Inf(-1)
	for _, m := range []string{"full", "dr", "reg"} {
		loC, hiC = math.Min(loC, c5[m].TeAcc.Mean), math.Max(hiC, c5[m].TeAcc.Mean)
	}
	if w := fmt.Sprintf("λ = 5: full, dr, reg %.3f–%.3f, obs %.3f, none %.3f", loC, hiC, c5["obs"].TeAcc.Mean, c5["none"].TeAcc.Mean); !strings.Contains(oneLine(glance), w) {
		t.Errorf("README.md's glance table does not say, as the simcont tables give:\n%s", w)
	}
	says(t, resultsMD, "the simcont tables",
		fmt.Sprintf("(train joint MMD² %.3f)", c5["none"].TrMMD.Mean),
		fmt.Sprintf("removes part of it (%.3f at λ = 5)", c5["obs"].TrMMD.Mean))
	var rec struct {
		Fits []struct{ History struct{ StopReason string } }
	}
	readJSON(t, "simcont_config.json", &rec)
	for _, f := range rec.Fits {
		if f.History.StopReason != "patience" {
			t.Errorf("a simcont fit stopped by %q: docs/results.md says every one of the %d stopped by patience", f.History.StopReason, len(rec.Fits))
		}
	}
	says(t, resultsMD, "simcont_config.json", fmt.Sprintf("every one of the %d fits of h stopped by patience", len(rec.Fits)))
}
