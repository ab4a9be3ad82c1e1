package invmmd

import "context"

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
