package invmmd

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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

func (r RFFSums) rowSums(ctx context.Context, h Rep, tgt, src []int, cols colSet, sigma float64, emit func(int, []float64)) (KernelPath, error) {
	if r.Frequencies < 0 {
		return KernelPath{}, fmt.Errorf("invmmd: RFFSums.Frequencies = %d, want ≥ 1 (or 0 for %d)", r.Frequencies, DefaultRFFFrequencies)
	}
	D, dim := cmp.Or(r.Frequencies, DefaultRFFFrequencies), h.Dim
	// The draw's frequencies ω_j = u_j/σ, frequency j's components at j·dim.
	u, w := RFFFrequencies(dim, D, r.Seed), make([]float64, D*dim)
	for k := 0; k < dim; k++ {
		for j := 0; j < D; j++ {
			w[j*dim+k] = u[k*D+j] / sigma
		}
	}
	// The outputs centred on their mean over the targets and sources (k̂ depends on
	// differences only), which keeps the arguments of cos and sin small.
	center := make([]float64, dim)
	for _, rows := range [][]int{tgt, src} {
		for _, i := range rows {
			for k, x := range h.Row(i) {
				center[k] += x
			}
		}
	}
	for k := range center {
		center[k] /= float64(max(len(tgt)+len(src), 1))
	}
	ones := slices.Repeat([]float64{1}, D)
	at := func(i int, cs, sn []float64) { // cos and sin of ω_jᵀ(h_i − center)
		row := h.Row(i)
		for j := range cs {
			arg := 0.0
			for k, wjk := range w[j*dim : (j+1)*dim] {
				arg += wjk * (row[k] - center[k])
			}
			sn[j], cs[j] = math.Sincos(arg)
		}
	}
	fm := featureMap{F: D, w: ones, scale: float64(D), k0: 1, grain: 64, at: at} // k̂(h, h) = 1
	err := fm.sums(ctx, tgt, src, cols, h.Len(), r.Workers, emit)
	return KernelPath{Name: "rff", Terms: D, Bound: 1 / math.Sqrt(2*float64(D))}, err
}
