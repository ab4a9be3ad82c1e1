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

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestREADMEVarianceNumbers recomputes from the committed variance.csv the numbers the
// README quotes about the variance study, and checks that the README quotes them so: a
// rerun that moves them fails here until the text follows. Line breaks and runs of spaces
// in the README count as one space.
func TestREADMEVarianceNumbers(t *testing.T) {
	pts, err := results.ReadVarianceCSV(filepath.Join(committedTables, "variance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(raw)), " ")
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
	// The paper's reg findings, by mean and sd, and by IQR.
	regCloser, regLeastSD, regLeastIQR, regAboveFull := 0, 0, 0, 0
	// Finding 2: dr less variable than dr+.
	drBelowDRPlus, drIQRBelow := 0, 0
	// Finding 1: dr's centre against full's.
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
	// The largest factor by which dr's sd and IQR change from one size to the next.
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
		t.Errorf("the true G's minimum varies over the sizes (%g–%g): the README says it is one value", gtLo, gtHi)
	}
	f3 := func(e string, n int, sd bool) string {
		p := at[e][n]
		if sd {
			return fmt.Sprintf("%.3f", p.Std)
		}
		return fmt.Sprintf("%.3f", p.Mean)
	}
	k := len(sizes)
	d1 := dr[small]
	want := []string{
		// The description and the small-batch outliers.
		fmt.Sprintf("At %s rows dr's mean is %.2f and its sd %.2f, while its median is %.3f and its quartiles %.3f–%.3f (IQR %.3f); %d of its normaliser estimates were floored there, and the smallest Ĝ it divided by was %.3f.",
			thousands(small), d1.Mean, d1.Std, d1.Median, d1.Q25, d1.Q75, d1.IQR(), d1.Floored, d1.MinG),
		fmt.Sprintf("dr's sd is %.2f–%.2f at the %d with a floored normaliser and %.3f–%.3f at the %d without; from one size to the next it changes by up to %.1f times, its IQR by at most %.1f times.",
			sdFlLo, sdFlHi, len(floored), sdClLo, sdClHi, len(clean), sdJump, iqrJump),
		// Finding 1.
		fmt.Sprintf("dr's IQR falls from %.3f at %s rows to %.3f at %s, its sd from %.2f to %.3f.", d1.IQR(), thousands(small), dr[large].IQR(), thousands(large), d1.Std, dr[large].Std),
		fmt.Sprintf("(from %s rows on, its mean is within %.3f of full's)", thousands(from), meanGap),
		fmt.Sprintf("its median exceeds full's at %s %d sizes (by %.3f–%.3f from %s rows on; %.3f against %.3f at %s) and lies within the middle half of full's estimates at only %d of the %d.",
			map[bool]string{true: "all", false: fmt.Sprintf("%d of the", drAboveFull)}[drAboveFull == k], k, offLo, offHi, thousands(from), dr[large].Median, full[large].Median, thousands(large), drInFullsMiddle, k),
		fmt.Sprintf("reg's median is above full's too, at %d of the %d", regAboveFull, k),
		// Finding 2.
		fmt.Sprintf("dr's sd is below dr+'s at %d of the %d sizes and its IQR at %d, as often as chance gives (one-sided sign test: P = %.2f and %.2f); at %s rows the IQRs are %.3f and %.3f.",
			drBelowDRPlus, k, drIQRBelow, results.SignTestP(drBelowDRPlus, k), results.SignTestP(drIQRBelow, k), thousands(large), dr[large].IQR(), drPlus[large].IQR()),
		fmt.Sprintf("the smallest Ĝ among a size's observed rows is %.3f–%.3f, the smallest true G %.3f at every size", gLo, gHi, gtLo),
		// The paper's reg findings and the IP family.
		fmt.Sprintf("Over the %d batch sizes, reg's mean is closer to full's than dr's at %d and reg has the smallest sd at %d and the smallest IQR at %d", k, regCloser, regLeastSD, regLeastIQR),
		fmt.Sprintf("At 10,000 rows full's mean is %s", f3("full", 10000, false)),
		fmt.Sprintf("(sd %s against full's %s and dr's %s)", f3("reg", 10000, true), f3("full", 10000, true), f3("dr", 10000, true)),
		fmt.Sprintf("`reg`'s mean is %s, against dr's %s and full's %s", f3("reg", 10000, false), f3("dr", 10000, false), f3("full", 10000, false)),
		fmt.Sprintf("ip and ip+ stay above full even at 10,000 rows (means %s and %s), and their means at 1,000 rows (%.2f and %.2f, against medians of %.3f and %.3f)",
			f3("ip", 10000, false), f3("ip+", 10000, false), at["ip"][1000].Mean, at["ip+"][1000].Mean, at["ip"][1000].Median, at["ip+"][1000].Median),
		fmt.Sprintf("at batch 3,000 its sd over 100 batches is %s for full and %s for dr+ (against means of %s and %s and medians of %.3f and %.3f: %d of dr+'s normalisers over the 100 batches was floored;",
			f3("full", 3000, true), f3("dr+", 3000, true), f3("full", 3000, false), f3("dr+", 3000, false), full[3000].Median, drPlus[3000].Median, drPlus[3000].Floored),
	}
	for _, w := range want {
		if !strings.Contains(readme, w) {
			t.Errorf("README.md does not say, as variance.csv gives:\n%s", w)
		}
	}
	// The verdicts the README gives follow from the counts: finding 2 does not hold when
	// neither count is more than chance gives.
	if results.SignTestP(drBelowDRPlus, k) < 0.05 || results.SignTestP(drIQRBelow, k) < 0.05 {
		t.Errorf("dr below dr+ at %d (sd) and %d (IQR) of %d sizes: more than chance, but the README says finding 2 does not hold", drBelowDRPlus, drIQRBelow, k)
	}
	if !(dr[large].IQR() < d1.IQR() && dr[large].Std < d1.Std) {
		t.Errorf("dr's spread does not shrink from %d to %d rows, but the README says it does", small, large)
	}
}

// thousands formats n with a comma between thousands (10,000), as the README prints sizes.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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

// TestREADMEDiagnosisNumbers recomputes from the committed diagnosis of the collapsed fit
// (sim_mf075, dr, λ = 5, seed 1) the numbers the README quotes about it, and checks that the
// README quotes the objectives' comparison table as ObjectiveComparison makes it from the
// committed tables.
func TestREADMEDiagnosisNumbers(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	steps, err := results.ReadDiagnosisCSV(filepath.Join(committedTables, "diagnosis_sim_mf075_dr_lambda5_seed1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(committedTables, "diagnosis_sim_mf075_dr_lambda5_seed1_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec DiagnosisRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
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
	minus := func(x float64, prec int) string { return strings.Replace(fmt.Sprintf("%.*f", prec, x), "-", "−", 1) }
	want := []string{
		fmt.Sprintf("%d of\n  %d steps had a stratum's estimate below 0 (the lowest %s) and %d had one above 1 (the\n  highest %.2f)", below, n, minus(lo, 2), above, hi),
		fmt.Sprintf("P(Z = 1 | Y = 0) at %.3f–%.3f", pzLo, pzHi),
		fmt.Sprintf("The initial network's NLL is %.2f", nll0),
		fmt.Sprintf("it climbs to %.2f and the fit ends at\n  train accuracy %.2f", nllMax, acc["paper"]),
		fmt.Sprintf("descends to\n  %.2f and train accuracy %.2f", nllEnd, acc["train-norms"]),
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("README.md does not say, as the diagnosis gives:\n%s", w)
		}
	}
	md, err := ObjectiveComparison(committedTables, "sim_mf075", 5)
	if err != nil {
		t.Fatal(err)
	}
	table := md[:strings.Index(md, "\n\n")+1]
	if !strings.Contains(text, indent(table, "  ")) {
		t.Errorf("README.md does not quote the objectives' table as the committed tables give it:\n%s", indent(table, "  "))
	}
	if committed, err := os.ReadFile(filepath.Join(committedTables, "objectives_sim_mf075_lambda5.md")); err != nil || string(committed) != md {
		t.Errorf("figures/tables/objectives_sim_mf075_lambda5.md is not what invmmd figures writes from the tables (%v)", err)
	}
	mf1, err := ObjectiveComparison(committedTables, "sim_mf075", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, indent(mf1[:strings.Index(mf1, "\n\n")+1], "  ")) {
		t.Errorf("README.md does not quote the λ = 1 objectives table as the committed tables give it:\n%s", mf1)
	}
	sim, err := ObjectiveComparison(committedTables, "sim", 5)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, indent(sim[:strings.Index(sim, "\n\n")+1], "  ")) {
		t.Errorf("README.md does not quote the simulation's objectives table as the committed tables give it:\n%s", sim)
	}
	// "every method's mean moves by less than its seeds' sd"
	movedLessThanSD(t, "sim_lambda5.csv", "sim_ntrain_lambda5.csv")
	// Textured MNIST at λ = 1 under robust: the table quoted, and "every mean moves by less
	// than its seeds' sd".
	tm, err := ObjectiveComparison(committedTables, "tmnist", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, indent(tm[:strings.Index(tm, "\n\n")+1], "  ")) {
		t.Errorf("README.md does not quote textured MNIST's objectives table as the committed tables give it:\n%s", tm)
	}
	if committed, err := os.ReadFile(filepath.Join(committedTables, "objectives_tmnist_lambda1.md")); err != nil || string(committed) != tm {
		t.Errorf("figures/tables/objectives_tmnist_lambda1.md is not what invmmd figures writes from the tables (%v)", err)
	}
	movedLessThanSD(t, "tmnist_lambda1.csv", "tmnist_robust_lambda1.csv")
}

// movedLessThanSD checks the README's "every method's mean moves by less than its seeds'
// sd": for each method of the committed table variant, its mean test accuracy differs from
// that of the table paper by less than the larger of the two standard deviations.
func movedLessThanSD(t *testing.T, paper, variant string) {
	t.Helper()
	base, err := results.ReadCSVFile(filepath.Join(committedTables, paper))
	if err != nil {
		t.Fatal(err)
	}
	other, err := results.ReadCSVFile(filepath.Join(committedTables, variant))
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

// indent prefixes every line of s with pre.
func indent(s, pre string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "")
}

// hmdaQuotes returns what the README says about the committed HMDA fits
// (figures/tables/checks/hmda_fit_{robust,paper}.csv, results.csv of invmmd fit), keyed by
// what it describes.
func hmdaQuotes(t *testing.T) map[string]string {
	t.Helper()
	read := func(name string) map[string][]map[string]string {
		f, err := os.Open(filepath.Join(committedTables, "checks", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		by := map[string][]map[string]string{}
		for _, r := range recs[1:] {
			row := map[string]string{}
			for j, h := range recs[0] {
				row[h] = r[j]
			}
			by[row["method"]] = append(by[row["method"]], row)
		}
		return by
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	col := func(rows []map[string]string, c string) []float64 {
		var out []float64
		for _, r := range rows {
			out = append(out, num(r[c]))
		}
		return out
	}
	meanSD := func(xs []float64) (float64, float64) {
		c := results.Summarize(func() []results.Row {
			var rs []results.Row
			for _, x := range xs {
				rs = append(rs, results.Row{Method: "dr", TeAcc: x})
			}
			return rs
		}())[0].TeAcc
		return c.Mean, c.Std
	}
	robust, paper := read("hmda_fit_robust.csv"), read("hmda_fit_paper.csv")
	order := []string{"none", "obs", "ip", "reg", "dr", "dr-po"}
	var accs []string
	for _, m := range order {
		mean, sd := meanSD(col(robust[m], "test_acc"))
		accs = append(accs, fmt.Sprintf("%s %.3f ± %.3f", m, mean, sd))
	}
	span := func(by map[string][]map[string]string, c string, methods []string, f func([]float64) float64, format string) string {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, m := range methods {
			v := f(col(by[m], c))
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		return fmt.Sprintf(format, lo) + "–" + fmt.Sprintf(format, hi)
	}
	early := func(by map[string][]map[string]string, methods []string) string {
		k, n := 0, 0
		for _, m := range methods {
			for _, v := range col(by[m], "h_best_epoch") {
				n++
				if v <= 9 {
					k++
				}
			}
		}
		return fmt.Sprintf("%d of %d", k, n)
	}
	mean := func(xs []float64) float64 { m, _ := meanSD(xs); return m }
	pen := []string{"obs", "ip", "dr", "dr-po"}
	neg := func(s string) string { return strings.ReplaceAll(s, "-", "−") }
	return map[string]string{
		"accuracy":       strings.Join(accs[:len(accs)-1], ", ") + " and " + accs[len(accs)-1],
		"paper epochs":   early(paper, pen),
		"paper auc":      span(paper, "test_auc", pen, mean, "%.2f"),
		"robust epochs":  early(robust, pen),
		"robust auc":     span(robust, "test_auc", pen, mean, "%.2f"),
		"held-out range": neg(strings.Replace(span(robust, "heldout_mmd_dr", order, mean, "%.2f"), "–", " to ", 1)),
	}
}

// TestREADMEHMDANumbers checks the README's HMDA paragraph against the committed fits.
func TestREADMEHMDANumbers(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	q := hmdaQuotes(t)
	for _, w := range []string{
		"test accuracy was " + q["accuracy"] + ":",
		"dr-po kept an epoch ≤ 9 in " + q["paper epochs"] + " runs — a nearly untrained h, mean test AUC " + q["paper auc"],
		"they did so in " + q["robust epochs"] + ", mean test AUC " + q["robust auc"],
		"for every method (" + q["held-out range"] + ")",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("README.md does not say, as the committed HMDA fits give:\n%s", w)
		}
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

// TestREADMEClinicalSelection checks the README's account of the clinical dr fit's
// selection against the committed diagnosis record.
func TestREADMEClinicalSelection(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(committedTables, "diagnosis_clinical_dr_lambda1_seed1_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec DiagnosisRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	fits := map[string]DiagnosisSummary{}
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
	f := func(x float64) string { return strings.Replace(fmt.Sprintf("%.3f", x), "-", "−", 1) }
	text := strings.Join(strings.Fields(string(readme)), " ")
	want := fmt.Sprintf("paper's objective kept epoch %d with a validation objective of %s: NLL %s plus estimates of %s (Y = 0) and %s (Y = 1)",
		p.BestEpoch, f(p.BestVal), f(p.BestValNLL), f(p.BestValStrata[0]), f(p.BestValStrata[1]))
	want2 := fmt.Sprintf("on the training split's normalisers, are %s and %s and the objective %s, at least the NLL; here the same epoch was kept",
		f(r.BestValStrata[0]), f(r.BestValStrata[1]), f(r.BestVal))
	for _, w := range []string{want, want2} {
		if !strings.Contains(text, w) {
			t.Errorf("README.md does not say, as the clinical diagnosis gives:\n%s", w)
		}
	}
	if p.BestEpoch != r.BestEpoch {
		t.Errorf("the README says the same epoch was kept; the record says %d and %d", p.BestEpoch, r.BestEpoch)
	}
}

// tmnistAblation is the textured-MNIST ablation of data/README.md: each construction's row
// label there, and the committed result file its seeds 1–3 come from (the default's from the
// paper-size table, the others from the checks folder, written by invmmd tmnist -rendering
// or -textures with -methods obs,full -lambdas 1 -seeds 1,2,3).
var tmnistAblation = []struct{ label, name, file string }{
	{"make_mnistplus, brick / grass (the default)", "tmnist", filepath.Join(committedTables, "tmnist_lambda1.csv")},
	{"make_mnistplus, brick / gravel", "tmnist_brick_gravel", filepath.Join(committedTables, "checks", "tmnist_brick_gravel_lambda1.csv")},
	{"without the emboss step (`-rendering fused`)", "tmnist_fused", filepath.Join(committedTables, "checks", "tmnist_fused_lambda1.csv")},
	{"the earlier toned rendering (`-rendering toned`)", "tmnist_toned", filepath.Join(committedTables, "checks", "tmnist_toned_lambda1.csv")},
}

// TestREADMETexturedMNISTAblation recomputes the ablation's rows (obs and full test accuracy
// over seeds 1–3, mean ± sd, and full − obs) from the committed result files and checks
// data/README.md's table, the README's sentence and the experiment's own note against them.
func TestREADMETexturedMNISTAblation(t *testing.T) {
	dataReadme, err := os.ReadFile(filepath.Join("..", "..", "data", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	oneLine := func(b []byte) string { return strings.Join(strings.Fields(string(b)), " ") }
	gap := map[string]string{}
	full := map[string]string{}
	for _, a := range tmnistAblation {
		rows, err := results.ReadCSVFile(a.file)
		if err != nil {
			t.Fatal(err)
		}
		var kept []results.Row
		for _, r := range rows {
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
		want := fmt.Sprintf("| %s | %.3f ± %.3f | %.3f ± %.3f | %s |", a.label, obs.Mean, obs.Std, fl.Mean, fl.Std, gap[a.name])
		if !strings.Contains(string(dataReadme), want) {
			t.Errorf("data/README.md lacks the ablation row the files give:\n%s", want)
		}
	}
	for _, want := range []string{
		fmt.Sprintf("gap (%s with it, %s without, %s with the earlier toned rendering), and no packaged texture pair opens it further (brick and gravel %s)",
			gap["tmnist"], gap["tmnist_fused"], gap["tmnist_toned"], gap["tmnist_brick_gravel"]),
		fmt.Sprintf("full reaches %s on the earlier toned rendering and %s without the emboss step", full["tmnist_toned"], full["tmnist_fused"]),
	} {
		if !strings.Contains(oneLine(readme), want) {
			t.Errorf("README.md does not say, as the ablation's files give:\n%s", want)
		}
	}
	exp, ok := Describe("tmnist")
	if !ok {
		t.Fatal("no tmnist experiment")
	}
	note := fmt.Sprintf("obs falls below full by %s test accuracy with this construction, %s with brick and gravel, %s without the emboss and %s with the earlier toned rendering",
		gap["tmnist"], gap["tmnist_brick_gravel"], gap["tmnist_fused"], gap["tmnist_toned"])
	if !strings.Contains(strings.Join(exp.Notes, "\n"), note) {
		t.Errorf("the tmnist experiment's notes do not say, as the ablation's files give:\n%s", note)
	}
}
