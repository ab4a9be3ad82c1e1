package invmmd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Random Fourier features of the Gaussian kernel on outputs of any width (Rahimi & Recht,
// "Random Features for Large-Scale Kernel Machines", NIPS 2007). By Bochner's theorem
// k(h, h') = exp(−‖h − h'‖²/(2σ²)) = E_ω[cos ωᵀ(h − h')] for ω ~ N(0, I/σ²). With D
// frequencies ω_j = u_j/σ, u_j ~ N(0, I_d), and the paired features
//
//	φ(h) = √(1/D) (cos ω_jᵀh, sin ω_jᵀh)_{j=1..D}     (2D features),
//
// k̂(h, h') = φ(h)ᵀφ(h') = (1/D) Σ_j cos ω_jᵀ(h − h') is unbiased for k, with variance
// (1 + k(2δ) − 2k(δ)²)/(2D) at difference δ (at most 1/(2D)), and k̂(h, h) = 1 exactly, so
// the diagonal of a U-statistic is removed without error. k̂ is itself a positive-definite,
// shift-invariant kernel, so with a fixed draw every estimator here is unbiased for the MMD²
// under k̂; against the MMD² under k the error is random, of order 1/√D (the committed table
// figures/tables/rff_error.md measures it). A kernel sum then costs O(n·D·(d + P)) instead of
// O(n²·(d + P)):
//
//	Σ_{i≠j} a_i c_j k̂_ij = (1/D) Σ_j [(Σ_i a_i cos ω_jᵀh_i)(Σ_i c_i cos ω_jᵀh_i) + (sin likewise)] − Σ_i a_i c_i.
//
// The outputs are centred on their mean first (k̂ depends on differences only), which keeps
// the arguments of cos and sin small. The frequencies are drawn from a seed
// (RFFFrequencies); the same seed, width and count give the same kernel in Evaluate (RFFSums)
// and in the graph (RFFPenaltyGraph).

// DefaultRFFFrequencies is the number of random frequencies D (2D features) of RFFSums when
// none is given: at D = 1024 the penalty's relative error against the exact kernel was a
// few percent in the committed study (figures/tables/rff_error.md), below the sampling
// noise of a batch's estimate.
const DefaultRFFFrequencies = 1024

// rffStream separates the random stream of the frequencies from other streams drawn from
// the same seed.
const rffStream = 0x7ff5eed

// RFFFrequencies returns count frequencies u_j ~ N(0, I_dim) for a representation of dim
// columns as a dim×count matrix, row-major (element (k, j), component k of frequency j, at
// k·count + j), the layout RFFPenaltyGraph multiplies h [n, dim] by. They are drawn from
// seed frequency by frequency, so the first D' of a draw of D ≥ D' frequencies are the D'
// of the same seed. The kernel's bandwidth enters later (ω = u/σ), so one draw serves any σ.
func RFFFrequencies(dim, count int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, rffStream))
	u := make([]float64, dim*count)
	for j := 0; j < count; j++ {
		for k := 0; k < dim; k++ {
			u[k*count+j] = rng.NormFloat64()
		}
	}
	return u
}

// RFFSums is a Summer that evaluates the kernel sums with D random Fourier features of
// the Gaussian kernel (see RFFFrequencies): O(n·D·(d + P)) for n rows of d columns and P
// factor columns, against ExactSums' O(n²·(d + P)). Its estimates are those of the kernel
// k̂ of its draw, within about 1/√D of the exact kernel's (figures/tables/rff_error.md).
type RFFSums struct {
	Frequencies int    // D; 0 means DefaultRFFFrequencies
	Seed        uint64 // draws the frequencies (RFFFrequencies)
	Workers     int    // goroutines; 0 means one per CPU
}

// scaledFrequencies returns the draw's frequencies ω_j = u_j/σ for outputs of dim columns,
// frequency j's components at j·dim.
func (r RFFSums) scaledFrequencies(dim int, sigma float64) []float64 {
	D := r.count()
	u := RFFFrequencies(dim, D, r.Seed)
	w := make([]float64, D*dim)
	for k := 0; k < dim; k++ {
		for j := 0; j < D; j++ {
			w[j*dim+k] = u[k*D+j] / sigma
		}
	}
	return w
}

func (r RFFSums) count() int {
	if r.Frequencies > 0 {
		return r.Frequencies
	}
	return DefaultRFFFrequencies
}

// PairSums implements Summer.
func (r RFFSums) PairSums(h Rep, rows []int, cols [][]float64, sigma float64) ([][]float64, error) {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("invmmd: kernel bandwidth %v, want a finite value > 0", sigma)
	}
	if r.Frequencies < 0 {
		return nil, fmt.Errorf("invmmd: RFFSums.Frequencies = %d, want ≥ 1 (or 0 for %d)", r.Frequencies, DefaultRFFFrequencies)
	}
	D, dim, P := r.count(), h.Dim, len(cols)
	w := r.scaledFrequencies(dim, sigma)
	center := make([]float64, dim)
	for _, i := range rows {
		for k, x := range h.Row(i) {
			center[k] += x
		}
	}
	for k := range center {
		center[k] /= float64(max(len(rows), 1))
	}
	workers := r.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(rows)/64+1))
	parts := make([]moments, workers) // [D·P], index j·P + p
	var wg sync.WaitGroup
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			mo := newMoments(D, P)
			v := make([]float64, P)
			hc := make([]float64, dim)
			for a := wk; a < len(rows); a += workers {
				i := rows[a]
				nz := false
				for p, c := range cols {
					v[p] = c[i]
					nz = nz || v[p] != 0
				}
				if !nz {
					continue
				}
				for k, x := range h.Row(i) {
					hc[k] = x - center[k]
				}
				for j := 0; j < D; j++ {
					arg := 0.0
					for k, wjk := range w[j*dim : (j+1)*dim] {
						arg += wjk * hc[k]
					}
					s, c := math.Sincos(arg)
					re, im := mo.re[j*P:(j+1)*P], mo.im[j*P:(j+1)*P]
					for p, x := range v {
						re[p] += x * c
						im[p] += x * s
					}
				}
			}
			parts[wk] = mo
		}(wk)
	}
	wg.Wait()
	q := sumMoments(parts).pairs(D, P, func(int) float64 { return 1 })
	for a := range q {
		for b := range q[a] {
			q[a][b] /= float64(D)
		}
	}
	removeDiagonal(q, 1, rows, cols) // k̂_ii = 1
	return q, nil
}
