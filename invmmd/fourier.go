package invmmd

import (
	"fmt"
	"math"
	"runtime"
	"sync"
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
	case !(sigma > 0) || math.IsInf(sigma, 0):
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

// FourierSums is a Summer that evaluates kernel sums through the Fourier expansion in
// O(n·M·P): for spread-out outputs (range ≫ σ) M grows like range/σ, and Auto then prefers
// the exact sum. It serves one-column outputs only (a regular grid of frequencies in d
// dimensions would need M^d terms); RFFSums is the expansion for outputs of any width.
type FourierSums struct {
	Tol     float64 // per-pair kernel error; 0 means DefaultFourierTol
	Workers int     // goroutines; 0 means one per CPU
}

// PairSums implements Summer. It returns an error for outputs of more than one column, or
// outputs spread too wide for the expansion (PlanFourier).
func (f FourierSums) PairSums(h Rep, rows []int, cols [][]float64, sigma float64) ([][]float64, error) {
	if !(sigma > 0) {
		return nil, fmt.Errorf("invmmd: kernel bandwidth %v, want > 0", sigma)
	}
	if h.Dim != 1 {
		return nil, fmt.Errorf("invmmd: the Fourier expansion serves one-column outputs, got %d columns; use RFFSums or ExactSums", h.Dim)
	}
	lo, hi := rangeOf(h.Data, rows)
	plan, err := PlanFourier(hi-lo, sigma, f.tol())
	if err != nil {
		return nil, err
	}
	return f.sums(h.Data, rows, cols, plan, (lo+hi)/2), nil
}

func (f FourierSums) tol() float64 {
	if f.Tol > 0 {
		return f.Tol
	}
	return ReferenceFourierTol
}

func rangeOf(h []float64, rows []int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, i := range rows {
		lo, hi = math.Min(lo, h[i]), math.Max(hi, h[i])
	}
	return lo, hi
}

// sums accumulates the cosine and sine moments S[m][p] = Σ_i cols[p][i]·e^{iω_m(h_i−c)} row
// by row (powers of e^{iθ_i}, resynchronised every 64 terms against drift), then assembles
// Q from them and removes the diagonal with the expansion's own k(0).
func (f FourierSums) sums(h []float64, rows []int, cols [][]float64, plan FourierPlan, center float64) [][]float64 {
	P, M := len(cols), plan.M
	workers := f.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(rows)/256+1))
	parts := make([]moments, workers) // [(M+1)·P], index m*P+p
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			mo := newMoments(M+1, P)
			v := make([]float64, P)
			for k := w; k < len(rows); k += workers {
				i := rows[k]
				nz := false
				for p, c := range cols {
					v[p] = c[i]
					nz = nz || v[p] != 0
				}
				if !nz {
					continue
				}
				theta := 2 * math.Pi * (h[i] - center) / plan.L
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
					re, im := mo.re[m*P:(m+1)*P], mo.im[m*P:(m+1)*P]
					for p, x := range v {
						re[p] += x * zr
						im[p] += x * zi
					}
				}
			}
			parts[w] = mo
		}(w)
	}
	wg.Wait()
	q := sumMoments(parts).pairs(M+1, P, func(m int) float64 {
		w := plan.Kappa(m)
		if m > 0 {
			w *= 2
		}
		return w
	})
	removeDiagonal(q, plan.KernelAt(0), rows, cols)
	return q
}

// AutoSums is the Summer that picks, per block, the path that its cost model says is
// cheapest. Its PairSums (the estimates of training and evaluation) takes the Fourier
// expansion when it is cheaper than the exact pairwise sum, the exact parallel sum
// otherwise, and the window (WindowSums) for scalar outputs spread too wide for the
// expansion; for outputs of more than one column it always takes the exact sum, since the
// only expansion for them, RFFSums, has a random error. Its RowSums (the standard errors
// and the cross route of the test) is described there.
type AutoSums struct {
	Tol     float64 // per-pair kernel error of the expansion; 0 means DefaultFourierTol
	Workers int     // 0 means one per CPU
}

// PairSums implements Summer.
func (a AutoSums) PairSums(h Rep, rows []int, cols [][]float64, sigma float64) ([][]float64, error) {
	f := FourierSums{Tol: a.Tol, Workers: a.Workers}
	if !(sigma > 0) {
		return nil, fmt.Errorf("invmmd: kernel bandwidth %v, want > 0", sigma)
	}
	w := a.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	if h.Dim != 1 {
		return ExactSums{Workers: w}.PairSums(h, rows, cols, sigma)
	}
	lo, hi := rangeOf(h.Data, rows)
	plan, err := PlanFourier(hi-lo, sigma, f.tol())
	if err != nil { // outputs spread over more bandwidths than the expansion serves
		if len(rows) > 4096 {
			return WindowSums{Tol: a.Tol, Workers: w}.PairSums(h, rows, cols, sigma)
		}
		return ExactSums{Workers: w}.PairSums(h, rows, cols, sigma)
	}
	n, P := float64(len(rows)), float64(len(cols))
	// Work per row: expansion (M+1)·(2P + 6) multiply-adds; exact n/2 pairs × (2P + 20),
	// an exponential costing about 20.
	if float64(plan.M+1)*(2*P+6) < n/2*(2*P+20) {
		return f.sums(h.Data, rows, cols, plan, (lo+hi)/2), nil
	}
	return ExactSums{Workers: w}.PairSums(h, rows, cols, sigma)
}
