package docscheck

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// seedAccs returns each seed's test accuracy of method m in the committed table of name at
// λ, in ascending order.
func seedAccs(t *testing.T, name string, lambda float64, m string) []float64 {
	t.Helper()
	var out []float64
	for _, r := range summaries(t, name, lambda)[m].Rows {
		out = append(out, r.TeAcc)
	}
	if len(out) == 0 {
		t.Fatalf("%s at λ = %g: no rows of %s", name, lambda, m)
	}
	slices.Sort(out)
	return out
}

// span formats the range of xs as lo–hi with prec decimals.
func span(xs []float64, prec int) string {
	return fmt.Sprintf("%.*f–%.*f", prec, slices.Min(xs), prec, slices.Max(xs))
}

// TestProseNumbers checks the numbers docs/results.md's prose gives about the simulation
// with the paper's split, the clinical stand-in and the continuous nuisance against their
// committed tables: per-seed ranges and the means the tables quoted beside them do not show.
func TestProseNumbers(t *testing.T) {
	// The paper's split at λ = 1: dr, dr+, dr-po lower; ip and ip+ one low seed each.
	m1 := summaries(t, "sim_mf075", 1)
	var low, rest []float64
	for _, m := range []string{"ip", "ip+"} {
		a := seedAccs(t, "sim_mf075", 1, m)
		low, rest = append(low, a[0]), append(rest, a[1:]...)
	}
	// At λ = 5: the collapsing methods' means and sds, their seeds below chance and above.
	m5 := summaries(t, "sim_mf075", 5)
	var means, sds, twoLow, threeHigh []float64
	for _, m := range []string{"obs", "dr", "dr+", "ip", "ip+", "dr-po", "dr-po+"} {
		means, sds = append(means, m5[m].TeAcc.Mean), append(sds, m5[m].TeAcc.Std)
	}
	for _, m := range []string{"dr", "dr+", "dr-po", "dr-po+"} {
		a := seedAccs(t, "sim_mf075", 5, m)
		if a[1] >= 0.5 || a[2] <= 0.5 {
			t.Errorf("sim_mf075, λ = 5, %s: seeds %v, want 2 of 5 below chance and 3 above", m, a)
		}
		twoLow, threeHigh = append(twoLow, a[:2]...), append(threeHigh, a[2:]...)
	}
	for _, m := range []string{"obs", "ip", "ip+"} {
		if a := seedAccs(t, "sim_mf075", 5, m); a[3] > 0.5 || a[4] <= 0.5 {
			t.Errorf("sim_mf075, λ = 5, %s: seeds %v, want 4 of 5 at or below chance", m, a)
		}
	}
	says(t, resultsMD, "the sim_mf075 tables",
		fmt.Sprintf("dr / dr+ / dr-po (%.3f / %.3f / %.3f)", m1["dr"].TeAcc.Mean, m1["dr+"].TeAcc.Mean, m1["dr-po"].TeAcc.Mean),
		fmt.Sprintf("ip / ip+ become unstable (%.3f ± %.3f, %.3f ± %.3f; one seed each near %s, the other four at %s)",
			m1["ip"].TeAcc.Mean, m1["ip"].TeAcc.Std, m1["ip+"].TeAcc.Mean, m1["ip+"].TeAcc.Std, span(low, 2), span(rest, 2)),
		fmt.Sprintf("(mean test accuracy %s, sd %s) while full (%.3f) and reg (%.3f) hold", span(means, 2), span(sds, 2), m5["full"].TeAcc.Mean, m5["reg"].TeAcc.Mean),
		fmt.Sprintf("2 of 5 seeds at %s (below chance) and 3 at %s", span(twoLow, 2), span(threeHigh, 2)),
	)

	// The clinical stand-in: none's train MMD² against the penalised methods', dr's spread.
	c := summaries(t, "clinical", 1)
	maxPen, widest := 0.0, ""
	for m, s := range c {
		if m == "none" {
			continue
		}
		maxPen = math.Max(maxPen, s.TrMMD.Mean)
		if widest == "" || s.TeAcc.Std > c[widest].TeAcc.Std {
			widest = m
		}
	}
	if widest != "dr" {
		t.Errorf("the widest spread over seeds is %s's, docs/results.md says dr's", widest)
	}
	says(t, resultsMD, "the clinical table",
		fmt.Sprintf("its train MMD² is %.2f against at most %.3f for the penalised methods", c["none"].TrMMD.Mean, maxPen),
		fmt.Sprintf("dr has the widest spread over seeds (%.3f; one seed at %.3f)", c["dr"].TeAcc.Std, seedAccs(t, "clinical", 1, "dr")[0]),
	)

	// The continuous nuisance.
	c1, c5 := summaries(t, "simcont", 1), summaries(t, "simcont", 5)
	var mmd5, acc5, acc1 []float64
	for _, m := range []string{"full", "dr", "dr+", "reg", "ip", "ip+"} {
		mmd5, acc5 = append(mmd5, c5[m].TrMMD.Mean), append(acc5, c5[m].TeAcc.Mean)
	}
	for m, s := range c1 {
		if m != "none" {
			acc1 = append(acc1, s.TeAcc.Mean)
		}
	}
	if d := math.Abs(c1["obs"].TeAcc.Mean - c1["full"].TeAcc.Mean); d >= math.Max(c1["obs"].TeAcc.Std, c1["full"].TeAcc.Std) {
		t.Errorf("simcont, λ = 1: obs and full differ by %.3f, more than a standard deviation, as docs/results.md says they do not", d)
	}
	for _, m := range []string{"dr", "dr+", "reg", "ip", "ip+"} {
		if d := math.Abs(c5[m].TeAcc.Mean - c5["full"].TeAcc.Mean); d >= math.Max(c5[m].TeAcc.Std, c5["full"].TeAcc.Std) {
			t.Errorf("simcont, λ = 5: %s differs from full by %.3f, more than a standard deviation", m, d)
		}
	}
	says(t, resultsMD, "the simcont tables",
		fmt.Sprintf("bring the joint MMD² to %s and test accuracy to %s", span(mmd5, 3), span(acc5, 2)),
		fmt.Sprintf("too weak for any method to get there (%s)", span(acc1, 2)),
		fmt.Sprintf("stays %.2f below the rest at λ = 5", slices.Min(acc5)-c5["obs"].TeAcc.Mean),
	)
}

// TestStopReasons checks docs/results.md's account of how the fits of the main job's tables
// ended, against their configuration records: every h by its stopping rule, and of the
// auxiliary models all but textured MNIST's m̂ on three seeds.
func TestStopReasons(t *testing.T) {
	type report struct {
		StopReason string
		ValNLL     float64
	}
	var capped []string
	nllLo, nllHi := math.Inf(1), math.Inf(-1)
	for _, name := range []string{"sim", "sim_mf075", "tmnist", "clinical", "simcont"} {
		var rec struct {
			Fits []struct {
				Method  string
				History struct{ StopReason string }
			}
			AuxReports map[string]map[string]report
		}
		readJSON(t, name+"_config.json", &rec)
		for _, f := range rec.Fits {
			if f.History.StopReason != "patience" {
				t.Errorf("%s: a fit of h (%s) stopped by %q, but docs/results.md says every one stopped by its rule", name, f.Method, f.History.StopReason)
			}
		}
		for seed, models := range rec.AuxReports {
			for model, r := range models {
				if r.StopReason != "patience" {
					capped = append(capped, fmt.Sprintf("%s %s seed %s", name, model, seed))
					nllLo, nllHi = math.Min(nllLo, r.ValNLL), math.Max(nllHi, r.ValNLL)
				}
			}
		}
	}
	slices.Sort(capped)
	if want := []string{"tmnist M seed 2", "tmnist M seed 4", "tmnist M seed 5"}; !slices.Equal(capped, want) {
		t.Errorf("auxiliary models not stopped by patience: %v, docs/results.md says %v", capped, want)
	}
	says(t, resultsMD, "the main job's *_config.json",
		fmt.Sprintf("all but three (textured MNIST's m̂ on seeds 2, 4 and 5, validation NLL %.3f–%.3f, still creeping down at epoch 60)", nllLo, nllHi))
}
