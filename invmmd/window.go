package invmmd

import (
	"context"
	"math"
	"slices"
	"sort"
)

// WindowSums is the Summer of scalar outputs that sums, for each row, only the rows within
// the kernel's reach: the outputs are sorted, and a row meets the rows whose output lies
// within r = σ·√(2 ln(1/Tol)) of its own, beyond which every kernel value is below Tol.
// Its cost is the number of pairs within r, so it serves outputs spread over a range many
// bandwidths wide (outliers, a diverging model), where the Fourier series needs too many
// terms; on outputs packed within a few bandwidths it is the exact sum.
type WindowSums struct {
	Tol     float64 // the largest kernel value left out; 0 means ReferenceFourierTol
	Workers int     // goroutines; 0 means one per CPU
}

func (w WindowSums) radius(sigma float64) (r, tol float64) {
	tol = tolOr(w.Tol)
	return sigma * math.Sqrt(2*math.Log(1/tol)), tol
}

// tolOr returns the per-pair kernel error tol of an expansion or window, or
// ReferenceFourierTol when it is not positive.
func tolOr(tol float64) float64 {
	if tol > 0 {
		return tol
	}
	return ReferenceFourierTol
}

func (w WindowSums) rowSums(ctx context.Context, h Rep, tgt, src []int, cols colSet, sigma float64, emit func(int, []float64)) (KernelPath, error) {
	if err := oneColumn(h, "window"); err != nil {
		return KernelPath{}, err
	}
	r, tol := w.radius(sigma)
	P := cols.P
	ss := slices.Clone(src) // sorted by output, ties by row
	sort.SliceStable(ss, func(a, b int) bool { return h.Data[ss[a]] < h.Data[ss[b]] })
	sv := make([]float64, len(ss))
	vals := make([]float64, len(ss)*P)
	for q, j := range ss {
		sv[q] = h.Data[j]
		cols.fill(j, vals[q*P:(q+1)*P])
	}
	err := chunkRows(ctx, len(tgt), P, w.Workers, func(lo int, kv []float64) {
		for a := range len(kv) / max(P, 1) {
			i, acc := tgt[lo+a], kv[a*P:(a+1)*P]
			x := h.Data[i]
			for q := sort.SearchFloat64s(sv, x-r); q < len(ss) && sv[q] <= x+r; q++ {
				if ss[q] == i {
					continue
				}
				k := gaussian1D(x, sv[q], sigma)
				vb := vals[q*P : (q+1)*P]
				for p := range acc {
					acc[p] += k * vb[p]
				}
			}
		}
	}, emit)
	return KernelPath{Name: "window", Bound: tol}, err
}

// windowPairs counts the (target, source) pairs within r of each other, in
// O((|tgt| + |src|) log) time: the window's cost. It stops counting beyond limit.
func windowPairs(h []float64, tgt, src []int, r, limit float64) float64 {
	sorted := func(rows []int) []float64 {
		v := make([]float64, len(rows))
		for k, i := range rows {
			v[k] = h[i]
		}
		slices.Sort(v)
		return v
	}
	sv := sorted(src)
	tv := sv // targets and sources one slice (an estimate's, the jackknife's): sorted once
	if len(tgt) != len(src) || len(tgt) > 0 && &tgt[0] != &src[0] {
		tv = sorted(tgt)
	}
	var c float64
	lo, hi := 0, 0
	for _, x := range tv {
		for lo < len(sv) && sv[lo] < x-r {
			lo++
		}
		for hi < len(sv) && sv[hi] <= x+r {
			hi++
		}
		if c += float64(hi - lo); c > limit {
			return c
		}
	}
	return c
}
