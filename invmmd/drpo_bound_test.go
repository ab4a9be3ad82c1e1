package invmmd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// drpoPhi returns the per-row pseudo-outcomes (f₁, f₀) of dr-po, computed here from their
// definition f₁ = ΔZ/G − (Δ − G)/G·m, f₀ = Δ(1 − Z)/G − (Δ − G)/G·(1 − m), independently of
// factorsFor. f₀ = 1 − f₁ on every row.
func drpoPhi(r Rows, i int) (f1, f0 float64) {
	d, g, m := r.Delta[i], r.G[i], r.M[i]
	return d*r.Z[i]/g - (d-g)/g*m, d*(1-r.Z[i])/g - (d-g)/g*(1-m)
}

// drpoDiagonal returns, per stratum of res, the h-independent quantity
//
//	D_y = Σ_i φ_iᵀ M φ_i / (n_y(n_y − 1)),   φ_i = (f₁, f₀),  M = [[1/N₁₁, −1/N₁₀], [−1/N₁₀, 1/N₀₀]]
//
// over the stratum's main rows: the diagonal the U-statistic leaves out (k(h_i, h_i) = 1).
func drpoDiagonal(t *testing.T, r Rows, o Options, res Result) []float64 {
	t.Helper()
	o, err := o.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	n := r.Len()
	nNorm := n - int(math.Round(o.MainFraction*float64(n)))
	out := make([]float64, len(res.Terms))
	for s, term := range res.Terms {
		sum, cnt := 0.0, 0.0
		for i := 0; i < n; i++ {
			if (o.MainFraction < 1 && i < nNorm) || (!o.Unconditional && r.Y[i] != term.Y) {
				continue
			}
			f1, f0 := drpoPhi(r, i)
			sum += f1*f1/term.N[1][1] + f0*f0/term.N[0][0] - 2*f1*f0/term.N[1][0]
			cnt++
		}
		out[s] = sum / (cnt * (cnt - 1))
	}
	return out
}

// TestDRPOCounterexample is the counterexample that motivated the bound: with the diagonal left out, the dr-po
// estimate is negative (−1.00), so it is not a positive semi-definite form; it stays above
// −D (here −2), the h-independent bound that the doc comment of DRPO states.
func TestDRPOCounterexample(t *testing.T) {
	r := Rows{
		Y:     []float64{1, 1, 1, 1},
		Z:     []float64{1, 0, 1, 0},
		Delta: []float64{1, 1, 1, 1},
		G:     []float64{1, 1, 1, 1},
		M:     []float64{0.5, 0.5, 0.5, 0.5},
	}
	h := []float64{0, 0, 5, 5}
	o := Options{Bandwidth: 1, MainFraction: 1, Unconditional: true}
	res, err := Estimate(context.Background(), ScalarRep(h), r, o, method.DRPO)
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Value; math.Abs(got-(-1)) > 1e-5 {
		t.Fatalf("dr-po estimate %.6f, want −1.00 (the four-row counterexample)", got)
	}
	d := drpoDiagonal(t, r, o, res[0])
	if math.Abs(d[0]-2) > 1e-12 {
		t.Fatalf("D = %v, want 2 (N₁₁ = N₀₀ = 1/6, N₁₀ = 1/3: D = 4·6/12)", d[0])
	}
	if v := res[0].Value + d[0]; v < 0 {
		t.Fatalf("V-statistic (estimate + D) = %v, want ≥ 0", v)
	}
}

// TestDRPOLowerBound checks what holds for dr-po on random rows, for several outputs h
// (including ones chosen to push the estimate down) and both normaliser splits: in every
// stratum where no normaliser was floored,
//
//  1. N₁₀² ≥ N₁₁N₀₀, so M is positive semi-definite (f₀ = 1 − f₁ makes the gap (n−1)(nΣf² − (Σf)²)/(n(n−1))² ≥ 0);
//  2. the estimate is at least −D_y, which does not depend on h;
//  3. n_y·D_y stays bounded as n grows: the bound is −O(1/n).
func TestDRPOLowerBound(t *testing.T) {
	gen := func(n int, seed uint64) Rows {
		rng := rand.New(rand.NewPCG(seed, 7))
		r := Rows{Y: make([]float64, n), Z: make([]float64, n), Delta: make([]float64, n), G: make([]float64, n), M: make([]float64, n)}
		for i := 0; i < n; i++ {
			if rng.Float64() < 0.5 {
				r.Y[i] = 1
			}
			if rng.Float64() < 0.3+0.4*r.Y[i] {
				r.Z[i] = 1
			}
			r.G[i] = 0.2 + 0.8*rng.Float64()
			if rng.Float64() < r.G[i] {
				r.Delta[i] = 1
			} else {
				r.Z[i] = 0 // missing: any value may stand in
			}
			r.M[i] = 0.05 + 0.9*rng.Float64()
		}
		return r
	}
	outputs := map[string]func(r Rows, i int, rng *rand.Rand) float64{
		"gaussian": func(_ Rows, _ int, rng *rand.Rand) float64 { return rng.NormFloat64() },
		"constant": func(Rows, int, *rand.Rand) float64 { return 0.3 },
		// Rows whose pseudo-outcomes say Z = 1 and Z = 0 sit in separate tight clusters, the
		// pairs that the off-diagonal weight −2/N₁₀ makes negative.
		"adversarial": func(r Rows, i int, rng *rand.Rand) float64 {
			f1, _ := drpoPhi(r, i)
			if f1 > 0.5 {
				return 8 + 0.01*rng.Float64()
			}
			return 0.01 * rng.Float64()
		},
		"spread": func(_ Rows, i int, _ *rand.Rand) float64 { return 7 * float64(i) },
	}
	scaled := map[int]float64{} // n → largest n_y·D_y
	for _, n := range []int{400, 6400} {
		for seed := uint64(1); seed <= 3; seed++ {
			r := gen(n, seed)
			for _, mf := range []float64{1, 0.75} {
				o := Options{Bandwidth: 1, MainFraction: mf}
				for name, out := range outputs {
					rng := rand.New(rand.NewPCG(seed, 11))
					h := make([]float64, n)
					for i := range h {
						h[i] = out(r, i, rng)
					}
					res, err := Estimate(context.Background(), ScalarRep(h), r, o, method.DRPO)
					if err != nil {
						t.Fatal(err)
					}
					if res[0].Report.FlooredNorms > 0 {
						t.Fatalf("n %d seed %d: %d normalisers floored; the test wants none", n, seed, res[0].Report.FlooredNorms)
					}
					d := drpoDiagonal(t, r, o, res[0])
					for s, term := range res[0].Terms {
						if gap := term.N[1][0]*term.N[1][0] - term.N[1][1]*term.N[0][0]; gap < -1e-15 {
							t.Errorf("n %d seed %d stratum %v: N₁₀² − N₁₁N₀₀ = %g < 0", n, seed, term.Y, gap)
						}
						if v := res[0].Strata[s]; v < -d[s]-1e-9 {
							t.Errorf("n %d seed %d mf %v h %s stratum %v: estimate %.6g below −D = %.6g", n, seed, mf, name, term.Y, v, -d[s])
						}
						ny := 0.0
						for i := range r.Y {
							if r.Y[i] == term.Y {
								ny++
							}
						}
						scaled[n] = math.Max(scaled[n], ny*mf*d[s])
					}
				}
			}
		}
	}
	// n_y·D_y converges to E[φᵀMφ | Y]; the 16-fold larger n must not grow it.
	if scaled[6400] > 1.5*scaled[400] || scaled[6400] <= 0 {
		t.Errorf("n_y·D_y: %.3f at n = 400, %.3f at n = 6400; want it bounded (the bound is −O(1/n))", scaled[400], scaled[6400])
	}
	t.Logf("largest n_y·D_y: %.3f (n = 400), %.3f (n = 6400)", scaled[400], scaled[6400])
}
