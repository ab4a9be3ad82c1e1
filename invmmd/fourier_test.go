package invmmd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestFourierPlanBound checks the per-pair error bound of the expansion against the
// Gaussian on a grid of differences spanning the batch's range.
func TestFourierPlanBound(t *testing.T) {
	for _, tc := range []struct{ span, sigma, tol float64 }{
		{1, 1, 1e-10}, {10, 1, 1e-10}, {60, 0.5, 1e-8}, {0.01, 1, 1e-12}, {5, 3, 1e-6},
	} {
		p, err := PlanFourier(tc.span, tc.sigma, tc.tol)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if p.Bound > tc.tol {
			t.Errorf("%+v: bound %g above the tolerance", tc, p.Bound)
		}
		worst := 0.0
		for k := 0; k <= 400; k++ {
			d := tc.span * float64(k) / 400
			worst = math.Max(worst, math.Abs(p.KernelAt(d)-gaussian1D(d, 0, tc.sigma)))
		}
		if worst > p.Bound+1e-15 {
			t.Errorf("%+v (M=%d): worst kernel error %g exceeds the bound %g", tc, p.M, worst, p.Bound)
		}
	}
}

// TestFourierMatchesExact compares Fourier and Auto kernel sums with the exact sum on
// random and adversarial outputs: clustered, spread out, all tied, and two far clusters.
// The error must be within the bound ε·Σ|a|·Σ|c| and, for positive weights, within
// relative 1e-6 of the exact sum.
func TestFourierMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	n := 700
	gen := map[string]func(i int) float64{
		"normal":        func(int) float64 { return rng.NormFloat64() },
		"clustered":     func(i int) float64 { return float64(i%3) + 1e-3*rng.NormFloat64() },
		"spread out":    func(int) float64 { return 40 * rng.Float64() },
		"ties":          func(int) float64 { return 0.25 },
		"two clusters":  func(i int) float64 { return float64(i%2)*25 + 0.1*rng.NormFloat64() },
		"heavy tailed":  func(int) float64 { return rng.NormFloat64() / (0.05 + rng.Float64()) },
		"large offsets": func(int) float64 { return 1e4 + rng.NormFloat64() },
	}
	for name, g := range gen {
		h := make([]float64, n)
		rows := make([]int, n)
		for i := range h {
			h[i], rows[i] = g(i), i
		}
		pos := make([][]float64, 3) // positive weights: the sums a penalty's T terms use
		for k := range pos {
			pos[k] = make([]float64, n)
			for i := range pos[k] {
				pos[k][i] = rng.Float64()
			}
		}
		signed := [][]float64{make([]float64, n)}
		for i := range signed[0] {
			signed[0][i] = rng.NormFloat64()
		}
		for _, cols := range [][][]float64{pos, signed} {
			want, _ := pairSumsT(ExactSums{Workers: 2}, ScalarRep(h), rows, cols, 1)
			lo, hi := rangeOf(h, rows)
			plan, err := PlanFourier(hi-lo, 1, ReferenceFourierTol)
			if err != nil {
				t.Fatal(err)
			}
			for sname, s := range map[string]Summer{"fourier": FourierSums{}, "auto": AutoSums{}} {
				got, err := pairSumsT(s, ScalarRep(h), rows, cols, 1)
				if err != nil {
					t.Fatal(err)
				}
				for a := range cols {
					for b := range cols {
						var la, lb float64
						for i := range h {
							la += math.Abs(cols[a][i])
							lb += math.Abs(cols[b][i])
						}
						diff := math.Abs(got[a][b] - want[a][b])
						bound := plan.Bound*la*lb + 1e-12*math.Abs(want[a][b])
						if diff > bound {
							t.Errorf("%s, %s: Q[%d][%d] off by %g, above the bound %g", name, sname, a, b, diff, bound)
						}
						if &cols[0] == &pos[0] && diff > 1e-6*math.Abs(want[a][b]) {
							t.Errorf("%s, %s: Q[%d][%d] = %.10g, exact %.10g: relative error %g > 1e-6", name, sname, a, b, got[a][b], want[a][b], diff/math.Abs(want[a][b]))
						}
					}
				}
			}
		}
	}
}

// TestEstimateWithFourierSummer checks that a whole design evaluated with the expansion
// agrees with the exact evaluation.
func TestEstimateWithFourierSummer(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	h, rows := defaultTestDGP().draw(rng, 2000)
	d, err := NewDesign(rows, Options{}, method.Full, method.Obs, method.IP, method.IPPlus, method.Reg, method.DR, method.DRPlus)
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := d.Evaluate(ScalarRep(h), ExactSums{Workers: 2})
	fast, _ := d.Evaluate(ScalarRep(h), FourierSums{})
	for k := range exact {
		if math.Abs(exact[k].Value-fast[k].Value) > 1e-7*math.Max(1e-3, math.Abs(exact[k].Value)) {
			t.Errorf("%v: Fourier %.10g, exact %.10g", exact[k].Method, fast[k].Value, exact[k].Value)
		}
	}
}
