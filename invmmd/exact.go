package invmmd

import (
	"context"
	"sync"
)

// ExactSums sums over every (target, source) pair in float64 on Workers goroutines (≤ 0:
// one per CPU), each target row on one goroutine in source order, so that the sums do not
// depend on the number of workers. A pair costs O(d) for outputs of d columns (the squared
// distance) plus one exponential, so a call is O(|tgt|·|src|·(d + P)). It is the
// reference the other summers are tested against.
type ExactSums struct {
	Workers int
}

func (e ExactSums) rowSums(ctx context.Context, h Rep, tgt, src []int, cols colSet, sigma float64, emit func(int, []float64)) (KernelPath, error) {
	P, dim := cols.P, h.Dim
	vals := make([]float64, len(src)*P) // source rows' column values, row-major
	for q, j := range src {
		cols.fill(j, vals[q*P:(q+1)*P])
	}
	err := chunkRows(ctx, len(tgt), P, e.Workers, func(lo int, kv []float64) {
		for a := range len(kv) / max(P, 1) {
			i, acc := tgt[lo+a], kv[a*P:(a+1)*P]
			hi := h.Row(i)
			for q, j := range src {
				if j == i {
					continue
				}
				var k float64
				if dim == 1 {
					k = gaussian1D(hi[0], h.Data[j], sigma)
				} else {
					k = GaussianKernel(hi, h.Row(j), sigma)
				}
				vb := vals[q*P : (q+1)*P]
				for x := range acc {
					acc[x] += k * vb[x]
				}
			}
		}
	}, emit)
	return KernelPath{Name: "exact"}, err
}

// symmetricSums is ExactSums for the pair sums of one set of rows (PairSums): it visits
// each unordered pair once, half the exponentials of ExactSums, with the rows interleaved
// over the workers (row a has n−a−1 partners, so interleaving balances them) and each
// worker's sums added at the end, then hands the row sums on in chunks.
type symmetricSums struct{ workers int }

func (e symmetricSums) rowSums(ctx context.Context, h Rep, rows, _ []int, cols colSet, sigma float64, emit func(int, []float64)) (KernelPath, error) {
	n, P, dim := len(rows), cols.P, h.Dim
	vals := make([]float64, n*P)
	for a, i := range rows {
		cols.fill(i, vals[a*P:(a+1)*P])
	}
	workers := max(1, min(workersOf(e.workers), n))
	parts := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			kv := make([]float64, n*P)
			for a := w; a < n; a += workers {
				if a%256 == w && ctx.Err() != nil {
					return
				}
				ra := h.Row(rows[a])
				va, acc := vals[a*P:(a+1)*P], kv[a*P:(a+1)*P]
				for b := a + 1; b < n; b++ {
					var k float64
					if dim == 1 {
						k = gaussian1D(ra[0], h.Data[rows[b]], sigma)
					} else {
						k = GaussianKernel(ra, h.Row(rows[b]), sigma)
					}
					vb, accb := vals[b*P:(b+1)*P], kv[b*P:(b+1)*P]
					for x := range P {
						acc[x] += k * vb[x]
						accb[x] += k * va[x]
					}
				}
			}
			parts[w] = kv
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return KernelPath{}, err
	}
	kv := parts[0]
	for _, part := range parts[1:] {
		for i, x := range part {
			kv[i] += x
		}
	}
	for lo := 0; lo < n; lo += sumChunk {
		emit(lo, kv[lo*P:min(n, lo+sumChunk)*P])
	}
	return KernelPath{Name: "exact"}, nil
}
