package invmmd

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Summer computes the kernel sums of a Design with the Gaussian kernel
// k(h_i, h_j) = exp(−‖h_i − h_j‖²/(2σ²)) on the rows of a Rep of any width (a scalar output
// is a one-column Rep, ScalarRep): the pair sums of one stratum that an estimate needs,
//
//	Q[p][q] = Σ_{i≠j ∈ rows} cols[p][i] · cols[q][j] · k(h_i, h_j),
//
// and the per-row sums that the jackknife standard errors and the cross route of the test
// need (see rowsums.go),
//
//	KV[a][p] = Σ_{b ∈ src, b ≠ tgt[a]} k(h_tgt[a], h_b) · cols[p][b]   (len(tgt)×P, row-major),
//
// with the path taken and its error bound. The columns are indexed by row (len ≥ h.Len()).
// Implementations trade exactness for speed; ExactSums is the reference. FourierSums and
// WindowSums serve one-column outputs only; RFFSums any width; AutoSums picks.
type Summer interface {
	PairSums(h Rep, rows []int, cols [][]float64, sigma float64) ([][]float64, error)
	RowSums(ctx context.Context, h Rep, tgt, src []int, cols [][]float64, sigma float64) ([]float64, KernelPath, error)
}

// ExactSums sums over every pair in float64. With Workers ≤ 1 it visits all n² ordered pairs
// in one goroutine (the plain loop that benchmarks compare against); otherwise it visits
// each unordered pair once, spread over Workers goroutines. A pair costs O(d) for outputs of
// d columns (the squared distance) plus one exponential, so a call is O(n²·(d + P)).
type ExactSums struct {
	Workers int
}

// DefaultSummer returns the summer used when none is given: Exact on every CPU.
func DefaultSummer() Summer { return ExactSums{Workers: runtime.GOMAXPROCS(0)} }

// PairSums implements Summer.
func (e ExactSums) PairSums(h Rep, rows []int, cols [][]float64, sigma float64) ([][]float64, error) {
	if !(sigma > 0) {
		return nil, fmt.Errorf("invmmd: kernel bandwidth %v, want > 0", sigma)
	}
	n, p, dim := len(rows), len(cols), h.Dim
	hs := make([]float64, n*dim) // row-major copy of the block's outputs
	vals := make([]float64, n*p) // row-major copy of the block: cache-friendly inner loops
	for a, i := range rows {
		copy(hs[a*dim:(a+1)*dim], h.Row(i))
		for k, c := range cols {
			vals[a*p+k] = c[i]
		}
	}
	gamma := 1 / (2 * sigma * sigma)
	var kv []float64 // (K V) restricted to the block, diagonal left out
	if e.Workers <= 1 {
		kv = make([]float64, n*p)
		for a := 0; a < n; a++ {
			acc := kv[a*p : (a+1)*p]
			for b := 0; b < n; b++ {
				if b == a {
					continue
				}
				var k float64
				if dim == 1 { // the scalar path, kept as it was to the last bit
					d := hs[a] - hs[b]
					k = math.Exp(-gamma * d * d)
				} else {
					k = math.Exp(-gamma * sqDist(hs[a*dim:(a+1)*dim], hs[b*dim:(b+1)*dim]))
				}
				vb := vals[b*p : (b+1)*p]
				for x := range acc {
					acc[x] += k * vb[x]
				}
			}
		}
	} else {
		kv = symmetricKV(hs, dim, vals, p, gamma, e.Workers)
	}
	q := make([][]float64, p)
	for x := range q {
		q[x] = make([]float64, p)
	}
	for a := 0; a < n; a++ {
		va, ka := vals[a*p:(a+1)*p], kv[a*p:(a+1)*p]
		for x := 0; x < p; x++ {
			if va[x] == 0 {
				continue
			}
			for y := 0; y < p; y++ {
				q[x][y] += va[x] * ka[y]
			}
		}
	}
	return q, nil
}

// symmetricKV computes (K V)_a = Σ_{b≠a} k_ab V_b visiting each pair a < b once, with the
// rows interleaved over workers (row a has n−a−1 partners, so interleaving balances them)
// and per-worker accumulators summed at the end; hs holds n rows of dim outputs.
func symmetricKV(hs []float64, dim int, vals []float64, p int, gamma float64, workers int) []float64 {
	n := len(hs) / dim
	if workers > n {
		workers = max(n, 1)
	}
	parts := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			kv := make([]float64, n*p)
			for a := w; a < n; a += workers {
				ra := hs[a*dim : (a+1)*dim]
				ha := ra[0]
				va, acc := vals[a*p:(a+1)*p], kv[a*p:(a+1)*p]
				for b := a + 1; b < n; b++ {
					var k float64
					if dim == 1 { // the scalar path, kept as it was to the last bit
						d := ha - hs[b]
						k = math.Exp(-gamma * d * d)
					} else {
						k = math.Exp(-gamma * sqDist(ra, hs[b*dim:(b+1)*dim]))
					}
					vb, accb := vals[b*p:(b+1)*p], kv[b*p:(b+1)*p]
					for x := 0; x < p; x++ {
						acc[x] += k * vb[x]
						accb[x] += k * va[x]
					}
				}
			}
			parts[w] = kv
		}(w)
	}
	wg.Wait()
	kv := parts[0]
	for _, part := range parts[1:] {
		for i, x := range part {
			kv[i] += x
		}
	}
	return kv
}
