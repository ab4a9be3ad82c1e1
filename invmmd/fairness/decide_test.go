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
