package invmmd

import (
	"context"
	"fmt"
	"math"
)

// Fourier expansion of the Gaussian kernel for scalar outputs.
//
// On a batch whose outputs span D = max h − min h, every pair difference d lies in [−D, D].
// The periodised kernel k_L(d) = Σ_n k(d + nL) equals k(d) there up to
// 2·exp(−(L − D)²/(2σ²)) (the two nearest images), and its Fourier series is
//
//	k_L(d) = κ₀ + 2 Σ_{m≥1} κ_m cos(ω_m d),  ω_m = 2πm/L,  κ_m = (σ√(2π)/L)·exp(−σ²ω_m²/2),
//
// whose tail beyond M terms is 2 Σ_{m>M} κ_m. Since cos(ω(a−b)) = cos ωa cos ωb + sin ωa sin ωb,
//
//	Σ_ij a_i c_j k_L(h_i − h_j) = κ₀ (Σa)(Σc) + 2 Σ_m κ_m [(Σ a cos ω_m h)(Σ c cos ω_m h) + (Σ a sin ω_m h)(Σ c sin ω_m h)],
//
// which costs O(n·M) instead of O(n²). With per-pair kernel error ε, a kernel sum is off by
// at most ε·Σ|a_i|·Σ|c_j|. (This is the "Fourier series on the batch's range" of the
// fast-Gauss-transform literature: Greengard & Strain 1991, §2; Rahimi & Recht 2007 use the
// same identity with random rather than regular frequencies.)

// ReferenceFourierTol is the per-pair kernel error of the float64 expansion when none is set.
const ReferenceFourierTol = 1e-10

// FourierPlan is the expansion chosen for one batch.
type FourierPlan struct {
	Sigma float64 // kernel bandwidth
	L     float64 // period: D plus a margin
	M     int     // number of cosine terms beyond the constant
	Bound float64 // per-pair kernel error bound: periodisation plus truncation
}

// PlanFourier chooses the period and number of terms for outputs spanning span with
// bandwidth sigma, so that each kernel value is within tol. The number of terms grows like
// span/sigma; it returns an error, without looping or allocating, for a span or bandwidth
// that is not finite and positive (a diverging model's outputs), a tolerance outside
// (0, 1), or a plan of more than MaxFourierTerms terms (a range more than about 10⁵
// bandwidths wide, which the window serves instead: WindowSums).
func PlanFourier(span, sigma, tol float64) (FourierPlan, error) {
	switch {
	case !(span >= 0) || math.IsInf(span, 0):
		return FourierPlan{}, fmt.Errorf("invmmd: Fourier plan: the outputs span %v, want a finite range", span)
	case checkBandwidth(sigma) != nil:
		return FourierPlan{}, fmt.Errorf("invmmd: Fourier plan: bandwidth %v, want a finite value > 0", sigma)
	case !(tol > 0 && tol < 1):
		return FourierPlan{}, fmt.Errorf("invmmd: Fourier plan: tolerance %v, want a value in (0, 1)", tol)
	}
	// Periodisation: 2·exp(−(L−D)²/(2σ²)) ≤ tol/2 (the next images are far smaller).
	margin := sigma * math.Sqrt(2*math.Log(4/tol))
	p := FourierPlan{Sigma: sigma, L: span + margin}
	// Truncation: the tail 2 Σ_{m>M} κ_m must be ≤ tol/2; κ decays like a Gaussian in m.
	m := math.Ceil(p.L / (2 * math.Pi * sigma) * math.Sqrt(2*math.Log(4/tol)))
	if !(m <= MaxFourierTerms) {
		return FourierPlan{}, fmt.Errorf("invmmd: Fourier plan: outputs spanning %.3g with bandwidth %.3g need about %.3g terms, more than %d", span, sigma, m, MaxFourierTerms)
	}
	p.M = int(m)
	for p.M > 1 && p.tail(p.M-1) <= tol/2 {
		p.M--
	}
	for p.tail(p.M) > tol/2 && p.M < MaxFourierTerms+64 {
		p.M++
	}
	p.Bound = 2*math.Exp(-(p.L-span)*(p.L-span)/(2*sigma*sigma))*(1+1e-3) + p.tail(p.M)
	return p, nil
}

// Kappa returns κ_m of the plan.
func (p FourierPlan) Kappa(m int) float64 {
	w := 2 * math.Pi * float64(m) / p.L
	return p.Sigma * math.Sqrt(2*math.Pi) / p.L * math.Exp(-p.Sigma*p.Sigma*w*w/2)
}

// tail returns 2 Σ_{m>M} κ_m, summed until the terms vanish.
func (p FourierPlan) tail(mMax int) float64 {
	s := 0.0
	for m := mMax + 1; ; m++ {
		k := p.Kappa(m)
		s += 2 * k
		if k < 1e-30 || k < s*1e-17 {
			return s
		}
	}
}

// KernelAt returns the expansion's value of the kernel at difference d (for tests and the
// diagonal correction).
func (p FourierPlan) KernelAt(d float64) float64 {
	s := p.Kappa(0)
	for m := 1; m <= p.M; m++ {
		s += 2 * p.Kappa(m) * math.Cos(2*math.Pi*float64(m)*d/p.L)
	}
	return s
}

// MaxFourierTerms bounds the terms of a Fourier plan (PlanFourier refuses more): a range of
// outputs more than about 10⁵ bandwidths wide is summed by the window instead.
const MaxFourierTerms = 1 << 16

// FourierSums is a Summer that evaluates the row sums through the Fourier expansion of the
// Gaussian on the range of the target and source outputs: O((|tgt| + |src|)·M·P). For
// spread-out outputs (range ≫ σ) M grows like range/σ, and AutoSums then prefers the
// exact sum or the window. It serves one-column outputs only (a regular grid of
// frequencies in d dimensions would need M^d terms), and returns an error for more, or for
// a range too wide for MaxFourierTerms terms; RFFSums is the expansion for outputs of any
// width.
type FourierSums struct {
	Tol     float64 // per-pair kernel error; 0 means ReferenceFourierTol
	Workers int     // goroutines; 0 means one per CPU
	planned *FourierPlan
	center  float64 // with planned: the plan AutoSums made for these rows (their range is one pass)
}

// plan returns the expansion of the targets' and sources' range, and its centre.
func (f FourierSums) plan(h Rep, tgt, src []int, sigma float64) (FourierPlan, float64, error) {
	if f.planned != nil {
		return *f.planned, f.center, nil
	}
	if err := oneColumn(h, "Fourier expansion"); err != nil {
		return FourierPlan{}, 0, err
	}
	lo, hi := rangeOf(h.Data, tgt, src)
	plan, err := PlanFourier(hi-lo, sigma, tolOr(f.Tol))
	return plan, (lo + hi) / 2, err
}

func (f FourierSums) rowSums(ctx context.Context, h Rep, tgt, src []int, cols colSet, sigma float64, emit func(int, []float64)) (KernelPath, error) {
	plan, center, err := f.plan(h, tgt, src, sigma)
	if err != nil {
		return KernelPath{}, err
	}
	M := plan.M
	w := make([]float64, M+1)
	for m := range w {
		w[m] = plan.Kappa(m)
		if m > 0 {
			w[m] *= 2
		}
	}
	// Row i's features e^{imθ_i}, m = 0..M: powers of e^{iθ_i}, resynchronised every 64
	// terms against drift.
	at := func(i int, cs, sn []float64) {
		theta := 2 * math.Pi * (h.Data[i] - center) / plan.L
		s1, c1 := math.Sincos(theta)
		zr, zi := 1.0, 0.0
		for m := 0; m <= M; m++ {
			if m > 0 {
				if m%64 == 0 {
					zi, zr = math.Sincos(float64(m) * theta)
				} else {
					zr, zi = zr*c1-zi*s1, zr*s1+zi*c1
				}
			}
			cs[m], sn[m] = zr, zi
		}
	}
	fm := featureMap{F: M + 1, w: w, scale: 1, k0: plan.KernelAt(0), grain: 256, at: at}
	err = fm.sums(ctx, tgt, src, cols, h.Len(), f.Workers, emit)
	return KernelPath{Name: "fourier", Terms: M, Bound: plan.Bound}, err
}
