package docscheck

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestKeepRankingNumbers checks docs/fairness.md's "Keeping the ranking" against the
// per-seed file of scripts/fairness/keep_ranking.py (figures/tables/keep_ranking_mplsstops.csv):
// each model's mean AUC, its AUC less the unconstrained model's of the same seed, its gap
// (mean ± sd over seeds) and the seeds inside the noise (gap ≤ noise mean + 2 sd); and the
// claim in words that no candidate keeps the AUC within 0.03 while inside the noise in
// 4 or more of the 5 seeds.
func TestKeepRankingNumbers(t *testing.T) {
	const src = "figures/tables/keep_ranking_mplsstops.csv"
	f, err := os.Open(filepath.Join(tables, "keep_ranking_mplsstops.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	type agg struct{ auc, dauc, eod, eod2, noise, noiseSD, inside, n float64 }
	base := map[string]float64{}
	for _, r := range recs[1:] {
		if r[1] == "none" {
			base[r[0]], _ = strconv.ParseFloat(r[2], 64)
		}
	}
	m := map[string]*agg{}
	for _, r := range recs[1:] { // seed,model,auc,bal_acc,eod,noise_mean,noise_sd
		v := make([]float64, 7)
		for j := 2; j < 7; j++ {
			if v[j], err = strconv.ParseFloat(r[j], 64); err != nil {
				t.Fatalf("%s: %v", src, err)
			}
		}
		a := m[r[1]]
		if a == nil {
			a = &agg{}
			m[r[1]] = a
		}
		a.n++
		a.auc += v[2]
		a.dauc += v[2] - base[r[0]]
		a.eod += v[4]
		a.eod2 += v[4] * v[4]
		a.noise += v[5]
		a.noiseSD += v[6]
		if v[4] <= v[5]+2*v[6] {
			a.inside++
		}
	}
	get := func(model string) (auc, dauc, eod, sd, inside float64) {
		a := m[model]
		if a == nil || a.n != 5 {
			t.Fatalf("%s: model %s not over 5 seeds", src, model)
		}
		eod = a.eod / a.n
		return a.auc / a.n, a.dauc / a.n, eod, math.Sqrt((a.eod2 - a.n*eod*eod) / (a.n - 1)), a.inside
	}
	f3 := func(x float64) string { return fmt.Sprintf("%.3f", x) }
	noneAUC, _, noneEOD, _, _ := get("none")
	_, dOff, off, offSD, offIn := get("post_dr_z")
	_, _, offCC, _, _ := get("post_cc_z")
	_, dMean, mean10, mean10SD, mean10In := get("mean_dr_l10")
	_, _, mean10CC, _, _ := get("mean_cc_l10")
	_, _, rate10, _, _ := get("rate_dr_l10")
	_, _, rate10CC, _, _ := get("rate_cc_l10")
	_, d1000, mean1000, _, mean1000In := get("mean_dr_l1000")
	_, dr1000, rate1000, _, _ := get("rate_dr_l1000")
	_, _, redLo, _, _ := get("red_dr_hard")
	_, _, redHi, _, _ := get("red_cc_soft")
	a := m["none"]
	says(t, fairnessMD, src,
		"Unconstrained: AUC "+f3(noneAUC)+", gap\n"+f3(noneEOD)+" (a random ranking's "+f3(a.noise/a.n)+" ± "+f3(a.noiseSD/a.n)+")",
		"offsets "+f3(off)+" against "+f3(offCC)+", the mean-score penalty at λ 10 "+f3(mean10)+" against "+f3(mean10CC)+",",
		"the rate penalty at λ 10 "+f3(rate10)+" against "+f3(rate10CC)+".",
		fmt.Sprintf("AIPW offsets (gap %.3f ± %.3f, AUC %.3f lower) and the AIPW mean-score penalty at λ 10 (gap\n%.3f ± %.3f, AUC %.3f lower), inside the noise (its mean + 2 sd) in %.0f and %.0f of 5 seeds",
			off, offSD, -dOff, mean10, mean10SD, -dMean, offIn, mean10In),
		fmt.Sprintf("4 of 5 seeds (the mean-score penalty at λ 1000, gap %.3f) costs %.3f of AUC", mean1000, -d1000),
		fmt.Sprintf("(AUC %.3f lower at λ 1000 for gap %.3f)", -dr1000, rate1000),
		fmt.Sprintf("Reductions lose most (gaps %.3f–%.3f)", redLo, redHi))
	if mean1000In != 4 {
		t.Errorf("the mean-score penalty at λ 1000 is inside the noise in %.0f of 5 seeds; the document says 4", mean1000In)
	}
	for name := range m {
		if _, d, _, _, in := get(name); d > -0.03 && in >= 4 {
			t.Errorf("%s keeps the AUC within 0.03 (%.3f) and is inside the noise in %.0f of 5 seeds: the document says no candidate does", name, d, in)
		}
	}
}
