package invmmd

import (
	"context"
	"math"
	"sync"
)

// featureMap is an expansion of the kernel in F features per row, cosine and sine parts,
//
//	k(h_a, h_b) ≈ (1/scale)·Σ_f w_f (cos_f(a) cos_f(b) + sin_f(a) sin_f(b)),
//
// whose value at a zero difference is k0: the Fourier series on the outputs' range
// (FourierSums) and random Fourier features (RFFSums). Row sums through it cost
// O((|tgt| + |src|)·F·P): one pass over the sources for the feature moments
// S_fp = Σ_b cols[p][b]·(cos_f(b), sin_f(b)), one over the targets to read
// KV[a][p] = (1/scale)·Σ_f w_f (cos_f(a)·Re S_fp + sin_f(a)·Im S_fp) − k0·cols[p][a] back
// (the last term where the target is also a source).
type featureMap struct {
	F     int
	w     []float64 // per feature
	scale float64   // divides the sums; 1 leaves them
	k0    float64
	grain int                             // source rows per worker of the moments (at least)
	at    func(i int, cos, sin []float64) // row i's features
}

// sums computes the row sums through the features (see featureMap).
func (fm featureMap) sums(ctx context.Context, tgt, src []int, cols colSet, n, workers int, emit func(int, []float64)) error {
	P, F := cols.P, fm.F
	nw := max(1, min(workersOf(workers), len(src)/fm.grain+1))
	re, im := make([][]float64, nw), make([][]float64, nw) // per worker, index f·P + p
	var wg sync.WaitGroup
	for w := range nw {
		wg.Go(func() {
			r, s := make([]float64, F*P), make([]float64, F*P)
			v, cs, sn := make([]float64, P), make([]float64, F), make([]float64, F)
			for k := w; k < len(src); k += nw {
				if k%4096 == w && ctx.Err() != nil {
					return
				}
				i := src[k]
				cols.fill(i, v)
				nz := false
				for _, x := range v {
					nz = nz || x != 0
				}
				if !nz {
					continue
				}
				fm.at(i, cs, sn)
				for f := range F {
					rf, sf := r[f*P:(f+1)*P], s[f*P:(f+1)*P]
					for p, x := range v {
						rf[p] += x * cs[f]
						sf[p] += x * sn[f]
					}
				}
			}
			re[w], im[w] = r, s
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for w := 1; w < nw; w++ {
		for x := range re[0] {
			re[0][x] += re[w][x]
			im[0][x] += im[w][x]
		}
	}
	S, T := re[0], im[0]
	isSrc := make([]bool, n) // true: row i is a source
	for _, i := range src {
		isSrc[i] = true
	}
	return chunkRows(ctx, len(tgt), P, workers, func(lo int, kv []float64) {
		cs, sn, v := make([]float64, F), make([]float64, F), make([]float64, P)
		for a := range len(kv) / max(P, 1) {
			i, acc := tgt[lo+a], kv[a*P:(a+1)*P]
			fm.at(i, cs, sn)
			for f := range F {
				cw, sw := fm.w[f]*cs[f], fm.w[f]*sn[f]
				r, s := S[f*P:(f+1)*P], T[f*P:(f+1)*P]
				for p := range acc {
					acc[p] += cw*r[p] + sw*s[p]
				}
			}
			if fm.scale != 1 {
				for p := range acc {
					acc[p] /= fm.scale
				}
			}
			if isSrc[i] {
				cols.fill(i, v)
				for p, x := range v {
					acc[p] -= fm.k0 * x
				}
			}
		}
	}, emit)
}

// rangeOf returns the smallest and largest of h over sets of rows.
func rangeOf(h []float64, sets ...[]int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, rows := range sets {
		for _, i := range rows {
			lo, hi = math.Min(lo, h[i]), math.Max(hi, h[i])
		}
	}
	return lo, hi
}
