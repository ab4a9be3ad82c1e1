package docscheck

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/fairstudy"
)

// TestMitigationNumbers checks docs/fairness.md's reading of the mitigation study against
// its per-seed file (figures/tables/mitigation_seeds.csv, invmmd mitigation): the numbers,
// the design it states (8 seeds, λ 0.25 to 25) and its two verdicts, recomputed.
func TestMitigationNumbers(t *testing.T) {
	f, err := os.Open(filepath.Join(tables, "mitigation_seeds.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := fairstudy.ReadMitigationCSV(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	sums := fairstudy.SummariseMitigation(rows)
	get := func(table, model string, lambda float64, rule string) fairstudy.MitigationSummary {
		for _, s := range sums {
			if s.Table == table && s.Model == model && s.Rule == rule && (s.Lambda == lambda || math.IsNaN(s.Lambda) && math.IsNaN(lambda)) {
				if s.Seeds != 8 {
					t.Errorf("%s %s λ %v: %d seeds, the document says 8", table, model, lambda, s.Seeds)
				}
				return s
			}
		}
		t.Fatalf("mitigation_seeds.csv has no %s %s λ %v %s", table, model, lambda, rule)
		return fairstudy.MitigationSummary{}
	}
	nan := math.NaN()
	n, d1, d5, d25 := get("mplsstops", "none", nan, "rate"), get("mplsstops", "dr", 1, "rate"), get("mplsstops", "dr", 5, "rate"), get("mplsstops", "dr", 25, "rate")
	o1, i1, or025, or1 := get("mplsstops", "obs", 1, "rate"), get("mplsstops", "ip", 1, "rate"), get("mplsstops", "oracle", 0.25, "rate"), get("mplsstops", "oracle", 1, "rate")
	n05 := get("mplsstops", "none", nan, "0.5")
	z := (o1.Gap.Mean - d1.Gap.Mean) / math.Hypot(o1.Gap.SE, d1.Gap.SE)
	cn, c1, c5, c25 := get("college", "none", nan, "rate"), get("college", "dr", 1, "rate"), get("college", "dr", 5, "rate"), get("college", "dr", 25, "rate")
	eg, ego, lr := get("mplsstops", "fairlearn_eg_cc_b0.05", nan, "rate"), get("mplsstops", "fairlearn_eg_oracle_b0.02", nan, "rate"), get("mplsstops", "fairlearn_lr_cc", nan, "rate")
	ceg := get("college", "fairlearn_eg_cc_b0.05", nan, "rate")
	src := "figures/tables/mitigation_seeds.csv"
	says(t, fairnessMD, src,
		fmt.Sprintf("the decisions' gap is %.3f ± %.3f against a random ranking's %.3f ± %.3f (95th percentile %.3f)", n.Gap.Mean, n.Gap.SE, n.NoiseMean, n.NoiseSD, n.Noise95),
		fmt.Sprintf("At λ 1 dr lowers it to %.3f at balanced accuracy %.3f (none's %.3f), inside the noise in %d of 8 seeds", d1.Gap.Mean, d1.BalancedAcc.Mean, n.BalancedAcc.Mean, d1.WithinNoise),
		fmt.Sprintf("keeps %.3f (λ 0.25, %.3f) and %.3f (λ 1, %.3f)", or025.Gap.Mean, or025.BalancedAcc.Mean, or1.Gap.Mean, or1.BalancedAcc.Mean),
		fmt.Sprintf("obs keeps %.3f at λ 1 (%.3f); dr's advantage over it, %.3f, is %.1f standard errors", o1.Gap.Mean, o1.BalancedAcc.Mean, o1.Gap.Mean-d1.Gap.Mean, z),
		fmt.Sprintf("does as dr (%.3f at λ 1)", i1.Gap.Mean),
		fmt.Sprintf("its AUC is %.3f at λ 1 and %.3f at λ 5 against none's %.3f, falling to %.3f at λ 25 (below 0.55 in %d of 8 seeds)", d1.AUC.Mean, d5.AUC.Mean, n.AUC.Mean, d25.AUC.Mean, d25.LowAUC),
		fmt.Sprintf("none selects %.3f of the stops against the training prevalence %.3f", n05.Selection.Mean, n.Selection.Mean),
		fmt.Sprintf("the gap is %.3f ± %.3f against a random ranking's 95th percentile %.3f", cn.Gap.Mean, cn.Gap.SE, cn.Noise95),
		fmt.Sprintf("at λ 1 dr's gap is %.3f, inside the noise, with AUC %.3f against none's %.3f", c1.Gap.Mean, c1.AUC.Mean, cn.AUC.Mean),
		fmt.Sprintf("by more than 0.03 (%.3f, %.3f)", c5.AUC.Mean, c25.AUC.Mean),
		fmt.Sprintf("bound 0.05 has gap %.3f at balanced accuracy %.3f and AUC\n%.3f (below 0.55 in %d of 8 seeds), and with the attribute whole (bound 0.02) %.3f at %.3f",
			eg.Gap.Mean, eg.BalancedAcc.Mean, eg.AUC.Mean, eg.LowAUC, ego.Gap.Mean, ego.BalancedAcc.Mean),
		fmt.Sprintf("The unconstrained logistic regression on the complete cases keeps a gap of\n%.3f. dr at λ 1 has a gap as small (%.3f) at balanced accuracy %.3f", lr.Gap.Mean, d1.Gap.Mean, d1.BalancedAcc.Mean),
		fmt.Sprintf("(%.3f with bound 0.05, inside the noise in %d of 8 seeds) at\nbalanced accuracy %.3f against dr's %.3f at λ 1 (%.3f), and %.3f at λ 5 (%.3f)",
			ceg.Gap.Mean, ceg.WithinNoise, ceg.BalancedAcc.Mean, c1.BalancedAcc.Mean, c1.Gap.Mean, c5.BalancedAcc.Mean, c5.Gap.Mean))
	// Fairlearn at its own operating point (the rule own), and its balanced objective (_bal).
	own := func(table, model string) fairstudy.MitigationSummary { return get(table, model, nan, "own") }
	egO, toO := own("mplsstops", "fairlearn_eg_cc_b0.05"), own("mplsstops", "fairlearn_to_cc")
	tcb, tob, ecb, eob := own("mplsstops", "fairlearn_to_cc_bal"), own("mplsstops", "fairlearn_to_oracle_bal"), own("mplsstops", "fairlearn_eg_cc_b0.05_bal"), own("mplsstops", "fairlearn_eg_oracle_b0.05_bal")
	ecbR, tcbR, tobR := get("mplsstops", "fairlearn_eg_cc_b0.05_bal", nan, "rate"), get("mplsstops", "fairlearn_to_cc_bal", nan, "rate"), get("mplsstops", "fairlearn_to_oracle_bal", nan, "rate")
	ctc, cto, cecO := own("college", "fairlearn_to_cc"), own("college", "fairlearn_to_oracle"), own("college", "fairlearn_eg_cc_b0.05")
	ctcb, ctob, cecb := own("college", "fairlearn_to_cc_bal"), own("college", "fairlearn_to_oracle_bal"), own("college", "fairlearn_eg_cc_b0.05_bal")
	says(t, fairnessMD, src,
		fmt.Sprintf("the balanced objective's included (`ExponentiatedGradient`,\nbound 0.05: %.3f at balanced accuracy %.3f)", ecbR.Gap.Mean, ecbR.BalancedAcc.Mean),
		fmt.Sprintf("the default objective's\nmodels select almost no one: `ExponentiatedGradient` on the complete cases (bound 0.05) selects %.3f of the stops in expectation (balanced accuracy %.3f), `ThresholdOptimizer` %.3f (collapsed in %d of 8 seeds)",
			egO.Selection.Mean, egO.BalancedAcc.Mean, toO.Selection.Mean, toO.Collapsed),
		fmt.Sprintf("With the balanced objective, `ThresholdOptimizer` on the complete cases has gap %.3f ± %.3f at balanced accuracy %.3f, selecting %.3f (a random ranking's 95th percentile there %.3f), and with the attribute whole %.3f ± %.3f at %.3f; `ExponentiatedGradient` (bound 0.05) %.3f ± %.3f at %.3f on the complete cases and %.3f ± %.3f at %.3f with the attribute whole",
			tcb.Gap.Mean, tcb.Gap.SE, tcb.BalancedAcc.Mean, tcb.Selection.Mean, tcb.Noise95, tob.Gap.Mean, tob.Gap.SE, tob.BalancedAcc.Mean, ecb.Gap.Mean, ecb.Gap.SE, ecb.BalancedAcc.Mean, eob.Gap.Mean, eob.Gap.SE, eob.BalancedAcc.Mean),
		fmt.Sprintf("Ranked at the\ntraining prevalence the same `ThresholdOptimizer` has gap %.3f on the complete cases and %.3f with the attribute whole", tcbR.Gap.Mean, tobR.Gap.Mean),
		fmt.Sprintf("complete cases cost `ThresholdOptimizer` %.3f against %.3f (%.1f standard errors over the seeds; both inside that noise in %d and %d of 8 seeds), `ExponentiatedGradient` %.3f against %.3f",
			tcb.Gap.Mean, tob.Gap.Mean, (tcb.Gap.Mean-tob.Gap.Mean)/math.Hypot(tcb.Gap.SE, tob.Gap.SE), tcb.WithinNoise, tob.WithinNoise, ecb.Gap.Mean, eob.Gap.Mean),
		fmt.Sprintf("At their own operating point `ThresholdOptimizer` on the complete cases has gap %.3f at balanced accuracy %.3f (selection %.3f), with the attribute whole %.3f at %.3f (%.3f); with the balanced objective %.3f at %.3f and %.3f at %.3f; `ExponentiatedGradient` on the complete cases (bound 0.05) %.3f at %.3f, balanced %.3f at %.3f. Ranked at the training prevalence `ThresholdOptimizer`'s gap is %.3f on the complete cases",
			ctc.Gap.Mean, ctc.BalancedAcc.Mean, ctc.Selection.Mean, cto.Gap.Mean, cto.BalancedAcc.Mean, cto.Selection.Mean, ctcb.Gap.Mean, ctcb.BalancedAcc.Mean, ctob.Gap.Mean, ctob.BalancedAcc.Mean,
			cecO.Gap.Mean, cecO.BalancedAcc.Mean, cecb.Gap.Mean, cecb.BalancedAcc.Mean, get("college", "fairlearn_to_cc", nan, "rate").Gap.Mean))
	// "dr (at λ 1) keeps a gap no larger than the complete-case options' at their own point"
	// (the balanced objective: the default one's decisions are about constant there), and at
	// more than twice the prevalence they select; "every one of these gaps is inside or at
	// the noise" on college (mean gap ≤ mean 95th percentile + one standard error).
	for _, s := range sums {
		if s.Table == "mplsstops" && s.Rule == "own" && strings.Contains(s.Model, "_cc") && strings.HasSuffix(s.Model, "_bal") &&
			(s.Gap.Mean < d1.Gap.Mean || s.Selection.Mean < 2*n.Selection.Mean) {
			t.Errorf("%s at its own point: gap %.3f at selection %.3f; the document says no smaller than dr's %.3f, at more than twice %.3f", s.Model, s.Gap.Mean, s.Selection.Mean, d1.Gap.Mean, n.Selection.Mean)
		}
		if s.Table == "college" && (s.Rule == "own" && strings.HasPrefix(s.Model, "fairlearn_") || s.Model == "dr" && s.Lambda == 1 && s.Rule == "rate") &&
			s.Gap.Mean > s.Noise95+s.Gap.SE {
			t.Errorf("college %s %s: gap %.3f ± %.3f beyond the noise's 95th percentile %.3f; the document says inside or at it", s.Model, s.Rule, s.Gap.Mean, s.Gap.SE, s.Noise95)
		}
	}
	// "dr's frontier lies above every Fairlearn option a user without the whole attribute
	// can run": no complete-case Fairlearn model at the rate has both a smaller gap and a
	// higher balanced accuracy than dr at λ 1 on the Minneapolis stops.
	for _, s := range sums {
		if s.Table == "mplsstops" && s.Rule == "rate" && strings.HasPrefix(s.Model, "fairlearn_") && strings.Contains(s.Model, "_cc") &&
			s.Gap.Mean <= d1.Gap.Mean && s.BalancedAcc.Mean >= d1.BalancedAcc.Mean {
			t.Errorf("%s: gap %.3f at balanced accuracy %.3f dominates dr λ 1's: the document says dr's frontier lies above", s.Model, s.Gap.Mean, s.BalancedAcc.Mean)
		}
	}
	says(t, readme, src,
		fmt.Sprintf("none's equalized_odds_difference %.3f ± %.3f (a random ranking's %.3f ± %.3f); dr at λ 1 %.3f at balanced accuracy %.3f, the oracle (attribute whole) %.3f at %.3f, obs %.3f at %.3f",
			n.Gap.Mean, n.Gap.SE, n.NoiseMean, n.NoiseSD, d1.Gap.Mean, d1.BalancedAcc.Mean, or025.Gap.Mean, or025.BalancedAcc.Mean, o1.Gap.Mean, o1.BalancedAcc.Mean),
		fmt.Sprintf("dr's AUC %.3f at λ 1 against none's %.3f (Minneapolis stops); on college, whose gap is barely beyond the noise, %.3f against %.3f", d1.AUC.Mean, n.AUC.Mean, c1.AUC.Mean, cn.AUC.Mean))
	// The claims in words: on the Minneapolis stops dr's gap within the noise of the
	// oracle's, and below it, wherever a dr λ is within 0.02 of the oracle's balanced
	// accuracy; its AUC more than 0.03 under none's wherever its gap is inside the noise;
	// on college within the noise at every oracle λ, the AUC kept at λ 1 only.
	for _, v := range fairstudy.Verdicts(sums) {
		matched := 0
		for _, m := range v.Match {
			if !m.BalWithin {
				continue
			}
			matched++
			if !m.GapWithinNoise || v.Table == "mplsstops" && m.DRGap > m.OracleGap {
				t.Errorf("%s oracle λ %v: dr λ %v's gap %.3f against the oracle's %.3f (noise sd %.3f): the document says within the noise%s",
					v.Table, m.OracleLambda, m.DRLambda, m.DRGap, m.OracleGap, m.NoiseSD, map[bool]string{true: " and below it", false: ""}[v.Table == "mplsstops"])
			}
		}
		if v.Table == "college" && matched != len(v.Match) || matched == 0 {
			t.Errorf("%s: %d of %d oracle λ matched within 0.02", v.Table, matched, len(v.Match))
		}
		for _, r := range v.Ranks {
			if kept := v.Table == "college" && r.Lambda == 1; r.Kept != kept {
				t.Errorf("%s dr λ %v: AUC %.3f against none's %.3f; the document says kept %v", v.Table, r.Lambda, r.AUC, r.NoneAUC, kept)
			}
		}
	}
}
