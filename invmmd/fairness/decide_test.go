package fairness

import (
	"math"
	"math/rand/v2"
	"testing"
)

// aucByPairs is the AUC by its definition: every (positive, negative) pair, a tie one half.
func aucByPairs(s []float64, y []int) float64 {
	var in, pairs float64
	for i := range s {
		for j := range s {
			if y[i] == 1 && y[j] == 0 {
				pairs++
				switch {
				case s[i] > s[j]:
					in++
				case s[i] == s[j]:
					in += 0.5
				}
			}
		}
	}
	return in / pairs
}

func TestAUCAgainstPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		n := 5 + rng.IntN(60)
		s, y := make([]float64, n), make([]int, n)
		for i := range n {
			s[i] = float64(rng.IntN(6)) / 5 // many ties
			y[i] = rng.IntN(2)
		}
		y[0], y[1] = 0, 1
		if got, want := AUC(s, y), aucByPairs(s, y); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: AUC %v, pairs %v", trial, got, want)
		}
	}
	if got := AUC([]float64{1, 2}, []int{1, 1}); !math.IsNaN(got) {
		t.Errorf("AUC of one class: %v, want NaN", got)
	}
}

func TestDecideAtRateTies(t *testing.T) {
	// A constant score: the rate rule selects a random subset of round(rate·n) rows, another
	// one for another seed, the same one for the same seed.
	s := make([]float64, 100)
	a := DecideAtRate(s, 0.3, rand.New(rand.NewPCG(1, 0)))
	b := DecideAtRate(s, 0.3, rand.New(rand.NewPCG(1, 0)))
	c := DecideAtRate(s, 0.3, rand.New(rand.NewPCG(2, 0)))
	sum, same, diff := 0, true, false
	for i := range s {
		sum += a[i]
		same = same && a[i] == b[i]
		diff = diff || a[i] != c[i]
	}
	if sum != 30 || !same || !diff {
		t.Fatalf("selected %d (want 30), same seed same rows %v, other seed other rows %v", sum, same, diff)
	}
	// Distinct scores: exactly the top rows, by a plain loop.
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range s {
		s[i] = rng.Float64()
	}
	d := DecideAtRate(s, 0.25, rng)
	for i := range s {
		above := 0
		for j := range s {
			if s[j] > s[i] {
				above++
			}
		}
		if want := above < 25; (d[i] == 1) != want {
			t.Fatalf("row %d with %d rows above: decision %d", i, above, d[i])
		}
	}
}

func TestEvaluateScoresKnownGap(t *testing.T) {
	// Group 0: scores rank by label perfectly; group 1: every row scores low. At rate 0.25 on
	// 200 rows with 50 positives (25 in each group, 100 rows each), the 50 selected are group
	// 0's 25 positives and 25 of its negatives... by score: group 0 positives 0.9, negatives
	// 0.6, group 1 all 0.1. TPR: 1 vs 0, so the gap is 1 and far beyond the noise.
	var s []float64
	var y, z []int
	for g := range 2 {
		for i := range 100 {
			pos := i < 25
			sc := 0.1
			if g == 0 && pos {
				sc = 0.9
			} else if g == 0 {
				sc = 0.6
			}
			s, y, z = append(s, sc), append(y, b2i(pos)), append(z, g)
		}
	}
	r, h, err := EvaluateScores(s, y, z, DecisionOptions{Rate: 0.25, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Selection != 0.25 || r.Groups[0].TPR != 1 || r.Groups[1].TPR != 0 || math.Abs(r.Gap-1) > 1e-12 {
		t.Fatalf("rate rule: selection %v, TPRs %v %v, gap %v; want 0.25, 1, 0, 1", r.Selection, r.Groups[0].TPR, r.Groups[1].TPR, r.Gap)
	}
	if r.WithinNoise || r.NoiseMean > 0.3 || r.NoiseSD <= 0 {
		t.Errorf("noise %v ± %v (95%% %v), within %v: want a gap far beyond a random ranking's", r.NoiseMean, r.NoiseSD, r.Noise95, r.WithinNoise)
	}
	// At 0.5: group 0's 100 rows selected (FPR 1 vs 0): gap 1; AUC overall by pairs.
	if h.Selection != 0.5 || h.Gap != 1 || h.Groups[0].FPR != 1 {
		t.Errorf("threshold rule: selection %v gap %v FPR0 %v", h.Selection, h.Gap, h.Groups[0].FPR)
	}
	if want := aucByPairs(s, y); math.Abs(r.AUC-want) > 1e-12 || r.LowAUC {
		t.Errorf("AUC %v, want %v (not flagged)", r.AUC, want)
	}
	// A balanced accuracy by hand: TPR 0.5 overall (25 of 50), FPR 25/150.
	if want := (0.5 + 1 - 25.0/150) / 2; math.Abs(r.BalancedAcc-want) > 1e-12 {
		t.Errorf("balanced accuracy %v, want %v", r.BalancedAcc, want)
	}
}

func TestEvaluateScoresFlags(t *testing.T) {
	// Random scores, all above 0.5: at 0.5 every row selected (collapsed), AUC about 0.5
	// (flagged), and at the rate rule a gap within the noise.
	rng := rand.New(rand.NewPCG(7, 8))
	n := 2000
	s, y, z := make([]float64, n), make([]int, n), make([]int, n)
	for i := range n {
		s[i], y[i], z[i] = 0.6+0.3*rng.Float64(), rng.IntN(2), rng.IntN(3)
	}
	r, h, err := EvaluateScores(s, y, z, DecisionOptions{Rate: 0.4, Seed: 2, Draws: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !h.Collapsed || r.Collapsed || !r.LowAUC || !r.WithinNoise {
		t.Errorf("flags: half collapsed %v, rate collapsed %v, low AUC %v, within noise %v (gap %v, noise 95%% %v)", h.Collapsed, r.Collapsed, r.LowAUC, r.WithinNoise, r.Gap, r.Noise95)
	}
	if f := h.Flags(); f != "collapsed; AUC<0.55; gap within noise" {
		t.Errorf("flags %q", f)
	}
	r2, _, _ := EvaluateScores(s, y, z, DecisionOptions{Rate: 0.4, Seed: 2, Draws: 100})
	if r2.Gap != r.Gap || r2.NoiseMean != r.NoiseMean {
		t.Errorf("same seed, other numbers: %v %v vs %v %v", r2.Gap, r2.NoiseMean, r.Gap, r.NoiseMean)
	}
	for _, bad := range []DecisionOptions{{Rate: 0}, {Rate: 1}} {
		if _, _, err := EvaluateScores(s, y, z, bad); err == nil {
			t.Errorf("rate %v accepted", bad.Rate)
		}
	}
	y2 := append([]int(nil), y...)
	for i := range y2 {
		if z[i] == 2 {
			y2[i] = 0
		}
	}
	if _, _, err := EvaluateScores(s, y2, z, DecisionOptions{Rate: 0.4}); err == nil {
		t.Error("a group without positives accepted")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestEvaluateOwnReference checks the own rule against plain loops over the rows (the
// expected confusion counts of Ŷ ~ Bernoulli(score)) and against the mean of many drawn
// decisions' rates, whose expectation it is.
func TestEvaluateOwnReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 600
	s, y, z := make([]float64, n), make([]int, n), make([]int, n)
	for i := range n {
		y[i], z[i] = rng.IntN(2), rng.IntN(2)
		s[i] = math.Min(1, 0.2+0.3*float64(y[i])+0.2*float64(z[i])*rng.Float64())
		if i%7 == 0 {
			s[i] = float64(rng.IntN(2)) // some hard decisions, as a mixture's
		}
	}
	d, err := EvaluateOwn(s, y, z, DecisionOptions{Seed: 3, Draws: 50})
	if err != nil {
		t.Fatal(err)
	}
	var tp, fp, pos, neg, sel [2]float64
	for i := range n {
		sel[z[i]] += s[i]
		if y[i] == 1 {
			tp[z[i]] += s[i]
			pos[z[i]]++
		} else {
			fp[z[i]] += s[i]
			neg[z[i]]++
		}
	}
	N := float64(n)
	wantSel := (sel[0] + sel[1]) / N
	wantAcc := (tp[0] + tp[1] + neg[0] + neg[1] - fp[0] - fp[1]) / N
	tprAll, fprAll := (tp[0]+tp[1])/(pos[0]+pos[1]), (fp[0]+fp[1])/(neg[0]+neg[1])
	var tpr, fpr [2]float64
	for g := range 2 {
		tpr[g], fpr[g] = tp[g]/pos[g], fp[g]/neg[g]
	}
	wantGap := math.Max(math.Abs(tpr[0]-tpr[1]), math.Abs(fpr[0]-fpr[1]))
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s %v, want %v", what, got, want)
		}
	}
	near("selection", d.Selection, wantSel)
	near("accuracy", d.Accuracy, wantAcc)
	near("balanced accuracy", d.BalancedAcc, (tprAll+1-fprAll)/2)
	near("gap", d.Gap, wantGap)
	near("AUC", d.AUC, aucByPairs(s, y))
	for g := range 2 {
		near("TPR", d.Groups[g].TPR, tpr[g])
		near("FPR", d.Groups[g].FPR, fpr[g])
		near("group selection", d.Groups[g].Selection, sel[g]/(pos[g]+neg[g]))
	}
	if d.NoiseMean <= 0 || d.Noise95 < d.NoiseMean || d.WithinNoise != (d.Gap <= d.Noise95) {
		t.Errorf("noise %v, 95%% %v, within %v for gap %v", d.NoiseMean, d.Noise95, d.WithinNoise, d.Gap)
	}
	// The expectation of drawn decisions: 4,000 draws of Ŷ, their rates averaged.
	var mTPR0, mFPR1 float64
	draws := 4000
	dec := make([]int, n)
	for range draws {
		for i := range n {
			dec[i] = b2i(rng.Float64() < s[i])
		}
		_, _, _, t0, _ := decisionRates(dec, y, z, 0)
		_, _, _, _, f1 := decisionRates(dec, y, z, 1)
		mTPR0 += t0 / float64(draws)
		mFPR1 += f1 / float64(draws)
	}
	if math.Abs(mTPR0-tpr[0]) > 0.005 || math.Abs(mFPR1-fpr[1]) > 0.005 {
		t.Errorf("drawn decisions' mean TPR_0 %v, FPR_1 %v against the expected %v, %v", mTPR0, mFPR1, tpr[0], fpr[1])
	}
	rounded := append([]float64(nil), s...)
	rounded[5] = 1 + 2e-16 // a mixture's weights summed: clipped, not refused
	if d2, err := EvaluateOwn(rounded, y, z, DecisionOptions{Seed: 3, Draws: 50}); err != nil || d2.Groups[z[5]].Selection > 1 {
		t.Errorf("a score 1 + 2e-16: %v", err)
	}
	bad := append([]float64(nil), s...)
	bad[5] = 1.2
	if _, err := EvaluateOwn(bad, y, z, DecisionOptions{}); err == nil {
		t.Error("a score above 1 accepted")
	}
}

// TestEvaluateOwnKeepsRandomisedOdds: a ThresholdOptimizer-like classifier whose groups'
// randomised decisions have equal expected TPR (0.6) and FPR (0.1), reached by different
// score mixtures, has gap 0 at its own operating point; ranked at a rate it does not.
func TestEvaluateOwnKeepsRandomisedOdds(t *testing.T) {
	var s []float64
	var y, z []int
	add := func(score float64, label, group, count int) {
		for range count {
			s, y, z = append(s, score), append(y, label), append(z, group)
		}
	}
	add(0.6, 1, 0, 100)
	add(0.1, 0, 0, 300)
	add(1, 1, 1, 50) // group 1's positives: half 1, half 0.2: TPR 0.6
	add(0.2, 1, 1, 50)
	add(0.2, 0, 1, 150) // its negatives: half 0.2, half 0: FPR 0.1
	add(0, 0, 1, 150)
	d, err := EvaluateOwn(s, y, z, DecisionOptions{Seed: 1, Draws: 50})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d.Gap) > 1e-12 || !d.WithinNoise {
		t.Errorf("own gap %v (within noise %v), want 0", d.Gap, d.WithinNoise)
	}
	r, _, err := EvaluateScores(s, y, z, DecisionOptions{Rate: d.Selection, Seed: 1, Draws: 50})
	if err != nil {
		t.Fatal(err)
	}
	if r.Gap < 0.2 {
		t.Errorf("ranked at its own selection %v the gap is %v: want the property lost (≥ 0.2)", d.Selection, r.Gap)
	}
}
