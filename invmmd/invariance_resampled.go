package invmmd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The wild and permutation routes of InvarianceTest: the doubly centred V-statistic through
// the Fourier features of the kernel, against its resampled copies (see the comment at the
// top of invariance.go).

// quadForm holds one stratum's doubly centred kernel features F̃ (rows × R, the Fourier
// expansion of the Gaussian kernel with each column centred) and centred pseudo-outcomes φ̃
// (rows × D), so that Σ_{i≠j} (a_i φ̃_i·a_j φ̃_j) k̃_ij = Σ_{r,d} (Σ_i a_i F̃_ir φ̃_id)² −
// Σ_i a_i² |F̃_i|²|φ̃_i|² costs O(rows·R·D) for any row multipliers a (ε for the wild
// bootstrap; a permutation acts on φ̃ instead).
type quadForm struct {
	f, phi []float64
	r, d   int
}

// kernelFeatures returns the rows × R features of the plan's expansion of the Gaussian
// kernel at h[idx] (R = 2M + 1): √κ₀, then √(2κ_m)·cos ω_m(h − c) and √(2κ_m)·sin ω_m(h − c),
// whose inner products are k_L(h_i − h_j), within plan.Bound of k.
func kernelFeatures(h []float64, idx []int, plan FourierPlan, center float64) []float64 {
	R := 2*plan.M + 1
	f := make([]float64, len(idx)*R)
	w := make([]float64, plan.M+1)
	for m := range w {
		w[m] = math.Sqrt(plan.Kappa(m))
		if m > 0 {
			w[m] *= math.Sqrt2
		}
	}
	for k, i := range idx {
		row := f[k*R : (k+1)*R]
		row[0] = w[0]
		theta := 2 * math.Pi * (h[i] - center) / plan.L
		for m := 1; m <= plan.M; m++ {
			s, c := math.Sincos(float64(m) * theta)
			row[2*m-1], row[2*m] = w[m]*c, w[m]*s
		}
	}
	return f
}

// value returns Σ_{i≠j} a_i a_j (φ̃_{π(i)}·φ̃_{π(j)}) k̃_ij for multipliers a (nil: 1) and a
// permutation perm of the pseudo-outcomes (nil: none).
func (q quadForm) value(a []float64, perm []int, acc []float64) float64 {
	n := len(q.f) / q.r
	clear(acc)
	diag := 0.0
	for i := 0; i < n; i++ {
		ai := 1.0
		if a != nil {
			ai = a[i]
		}
		pi := i
		if perm != nil {
			pi = perm[i]
		}
		fi, ph := q.f[i*q.r:(i+1)*q.r], q.phi[pi*q.d:(pi+1)*q.d]
		ff, pp := 0.0, 0.0
		for d, p := range ph {
			s := ai * p
			pp += p * p
			row := acc[d*q.r : (d+1)*q.r]
			for r, x := range fi {
				row[r] += s * x
			}
		}
		for _, x := range fi {
			ff += x * x
		}
		diag += ai * ai * ff * pp
	}
	tot := 0.0
	for _, v := range acc {
		tot += v * v
	}
	return tot - diag
}

// resampledTest fills res with the doubly centred statistic W and its wild-bootstrap or
// permutation p-value (1 + #{W* ≥ W})/(1 + B).
func resampledTest(ctx context.Context, h []float64, phi [][]float64, include []float64, strata []testStratum, sigma float64, B int, seed uint64, res *TestResult) error {
	var all []int
	for i := range h {
		if include[i] != 0 {
			all = append(all, i)
		}
	}
	lo, hi := rangeOf(h, all)
	plan, err := PlanFourier(hi-lo, sigma, ReferenceFourierTol)
	if err == nil && plan.M > MaxResampledTerms {
		err = fmt.Errorf("%d terms, more than %d", plan.M, MaxResampledTerms)
	}
	if err != nil {
		return fmt.Errorf("the %v route expands the kernel on the range of h, and h spans %.4g, %.3g bandwidths of %.4g (%v): use the cross route", res.Route, hi-lo, (hi-lo)/sigma, sigma, err)
	}
	var qs []quadForm
	n := 0
	for _, s := range strata {
		idx := included(s.rows, include)
		if len(idx) < 2 {
			return fmt.Errorf("stratum %s has %d rows with a pseudo-outcome (observed Z for obs), want at least 2", stratumName(s.y), len(idx))
		}
		if len(idx) < MinTestRows {
			res.Unreliable = append(res.Unreliable, fmt.Sprintf("stratum %s: %d rows, fewer than %d", stratumName(s.y), len(idx), MinTestRows))
		}
		fc, R := kernelFeatures(h, idx, plan, (lo+hi)/2), 2*plan.M+1
		for r := range R { // each feature centred over the stratum, as centred does
			mean := 0.0
			for k := range idx {
				mean += fc[k*R+r]
			}
			mean /= float64(len(idx))
			for k := range idx {
				fc[k*R+r] -= mean
			}
		}
		qs = append(qs, quadForm{f: fc, phi: centred(phi, idx), r: R, d: len(phi)})
		res.Strata = append(res.Strata, TestStratum{Y: s.y, Rows: [2]int{len(idx), 0}})
		n += len(idx)
	}
	acc := make([]float64, qs[0].r*qs[0].d)
	stat := func(draw func(q quadForm) ([]float64, []int)) float64 {
		w := 0.0
		for _, q := range qs {
			a, perm := draw(q)
			w += q.value(a, perm, acc) / float64(n)
		}
		return w
	}
	w := stat(func(quadForm) ([]float64, []int) { return nil, nil })
	if w == 0 && allZero(qs) {
		return fmt.Errorf("the statistic has no variance: within every stratum the pseudo-outcome or h does not vary (a single Z value observed, or h constant)")
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	exceed := 0
	for b := 0; b < B; b++ {
		if b%16 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		wb := stat(func(q quadForm) ([]float64, []int) {
			m := len(q.f) / q.r
			if res.Route == PermutationRoute {
				return nil, rng.Perm(m)
			}
			a := make([]float64, m)
			for i := range a {
				a[i] = float64(2*int(rng.Uint64()&1) - 1)
			}
			return a, nil
		})
		if wb >= w {
			exceed++
		}
	}
	res.Statistic = w
	res.Resamples = B
	res.PValue = float64(1+exceed) / float64(1+B)
	return nil
}

// allZero reports whether every stratum's centred features or pseudo-outcomes vanish.
func allZero(qs []quadForm) bool {
	for _, q := range qs {
		if slices.ContainsFunc(q.f, func(v float64) bool { return math.Abs(v) > 1e-12 }) &&
			slices.ContainsFunc(q.phi, func(v float64) bool { return v != 0 }) {
			return false
		}
	}
	return true
}
