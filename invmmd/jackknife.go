package invmmd

import (
	"context"
	"math"
	"sync"
)

// StandardErrors returns, for each method of the design and each stratum, the jackknife
// standard error of the stratum's MMD² estimate for model outputs h of any width, and the
// path its kernel sums took: each row of the stratum (main or normaliser) is deleted in
// turn, the main terms T_bb' and the normalisers N_bb' (with their floors) are recomputed
// without it, and the variance estimate is (n−1)/n·Σ_i (θ₋ᵢ − θ̄)² over the n rows. One
// per-row kernel sum serves every deletion: with T = Σ_{i≠j} g_ij/(m(m−1)) over m main
// rows (g symmetric), T₋ᵢ = (T − 2t_i)·m/(m−2), t_i = Σ_{j≠i} g_ij/(m(m−1)), and t_i comes
// from the row sums KV_ip = Σ_{j≠i} k_ij V_jp (RowSums); the normalisers' sums lose
// row i's terms. By the Efron–Stein inequality the jackknife variance is conservative in
// expectation for a symmetric statistic, including near MMD² = 0, where the U-statistic
// is degenerate and a first-order (Hájek) standard error would be near 0; and because the
// normalisers are recomputed, a batch whose estimate hangs on a near-zero normaliser gets
// the large standard error it deserves. Empty or dropped strata, and strata with fewer
// than 3 rows, get 0.
//
// The row sums go through summer (nil: AutoSums, linear in the rows beyond ExactPairs
// pairs per stratum, within the error its KernelPath states). It does not check h: pass
// outputs that Evaluate accepts (one finite row per row of the design). It returns ctx's
// error if ctx is cancelled first.
func (d *Design) StandardErrors(ctx context.Context, h Rep, summer Summer) ([][]float64, KernelPath, error) {
	_, se, path, err := d.strataSums(ctx, h, summer)
	return se, path, err
}

// strataSums are the per-row kernel sums of the stratum in hand, s: kv holds, for each of
// its main rows a (in block order), the sums KV_ap of its columns idx[s] (P_s of them,
// row-major); pos[p] is column p's place in its stratum's idx.
type strataSums struct {
	kv   []float64
	idx  [][]int
	pos  []int
	path KernelPath
}

// strataSums computes, stratum by stratum, the row sums of every stratum with at least 2
// main rows, the pair sums Q_pq = Σ_a V_ap KV_aq of its columns, and each method's
// standard error in it: the jackknife's from the row sums, less its second-order excess
// where the U-statistic is degenerate (jackknife_degenerate.go). It holds one stratum's
// row sums at a time.
func (d *Design) strataSums(ctx context.Context, h Rep, summer Summer) (q, se [][]float64, path KernelPath, err error) {
	rs := &strataSums{idx: make([][]int, len(d.blocks)), pos: make([]int, len(d.cols))}
	se = make([][]float64, len(d.per))
	for k := range se {
		se[k] = make([]float64, len(d.blocks))
	}
	q, err = d.perStratum(func(s int, idx []int, cols [][]float64) ([][]float64, error) {
		rs.idx[s] = idx
		for a, j := range idx {
			rs.pos[j] = a
		}
		rows := d.blocks[s].rows
		kv, p, err := RowSums(ctx, summer, h, rows, rows, cols, d.opts.Bandwidth)
		if err != nil {
			return nil, err
		}
		rs.kv, rs.path = kv, rs.path.worse(p)
		// The methods' standard errors read the row sums and write nothing shared: one
		// goroutine per CPU takes them, so that their row loops run side by side.
		errs := make([]error, len(d.per))
		var wg sync.WaitGroup
		slots := make(chan struct{}, workersOf(0))
		for k := range d.per {
			slots <- struct{}{}
			wg.Go(func() {
				se[k][s], errs[k] = d.stratumSE(ctx, h, summer, rs, k, s)
				<-slots
			})
		}
		wg.Wait()
		rs.kv = nil
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		return pairsOf(rows, sliceCols(cols), kv, nil), nil
	})
	return q, se, rs.path, err
}

// stratumSE returns method k's standard error in stratum s: the jackknife's, less its
// variance's second-order excess (jackknife_degenerate.go; none under 4 rows, and for the
// joint estimand none under 7 included rows, an SE of 0 under 5), kept within [¼, 1] of
// its variance. Empty or dropped strata, and strata with fewer than 3 rows, get 0.
func (d *Design) stratumSE(ctx context.Context, h Rep, summer Summer, rs *strataSums, k, s int) (float64, error) {
	rows := len(d.blocks[s].rows)
	var e, excess float64
	var err error
	switch {
	case d.per[k].empty[s] || rows < 3:
	case d.per[k].joint != nil:
		e, excess = d.jackknifeJoint(h, k, s, rs)
	default:
		e = d.jackknife(k, s, rs)
		if rows >= 4 { // k² is the Gaussian of bandwidth σ/√2
			excess, err = d.conditionalExcess(ctx, h, summer, k, s, rs, d.opts.Bandwidth/math.Sqrt2)
		}
	}
	v := e * e
	return math.Sqrt(min(v, max(v-excess, v/4))), err
}

// pairs are the (b, b') of the three terms of an MMD², and weights3 their signs·counts:
// MMD² = T₁₁/N₁₁ + T₀₀/N₀₀ − 2T₁₀/N₁₀ (termIndex), and likewise the joint estimand's
// Pair + Quad − 2·Triple (by slot).
var (
	pairs    = [3][2]int{{1, 1}, {0, 0}, {1, 0}}
	weights3 = [3]float64{1, 1, -2}
)

// termIndex returns the index in pairs of the term (b, b').
func termIndex(b, bb int) int {
	if b == bb {
		return 1 - b // (1,1) → 0, (0,0) → 1
	}
	return 2
}

// fOf returns method k's per-row estimates (f_0,i, f_1,i) of (Z₀, Z₁) at row i (rowMean).
func (d *Design) fOf(k, i int) [2]float64 {
	return [2]float64{rowMean(d.per[k].terms, 0, i), rowMean(d.per[k].terms, 1, i)}
}

// normSums returns the normalisers' pieces of a method's factors over rows (those include
// marks): their count, Σ_i f_i and Σ_i f_i f_iᵀ, f_i = (f_0,i, f_1,i) (rowMean).
func normSums(terms []factor, include []float64, rows []int) (n float64, sum [2]float64, diag [2][2]float64) {
	for _, i := range rows {
		if include[i] == 0 {
			continue
		}
		n++
		fi := [2]float64{rowMean(terms, 0, i), rowMean(terms, 1, i)}
		for b := 0; b < 2; b++ {
			sum[b] += fi[b]
			for bb := 0; bb < 2; bb++ {
				diag[b][bb] += fi[b] * fi[bb]
			}
		}
	}
	return n, sum, diag
}

// jackknife returns the jackknife standard error of method k's estimate in stratum s.
func (d *Design) jackknife(k, s int, rs *strataSums) float64 {
	blk := d.blocks[s]
	inc := d.per[k].include
	P := len(rs.idx[s])
	kv := rs.kv
	// Main terms: T[t] and each main row's share share(a, i)[t] (a: position in blk.rows),
	// computed again where the row is left out rather than held for every row.
	var T [3]float64
	m := 0.0
	var cs []coef // the stratum's
	for _, e := range d.per[k].coefs {
		if e.s == s {
			cs = append(cs, e)
		}
	}
	share := func(a, i int) (ti [3]float64) {
		ka := kv[a*P : (a+1)*P]
		for _, e := range cs {
			ti[termIndex(e.b, e.bb)] += e.c * (d.cols[e.p][i]*ka[rs.pos[e.q]] + d.cols[e.q][i]*ka[rs.pos[e.p]]) / 2
		}
		return ti
	}
	for a, i := range blk.rows {
		if inc[i] == 0 {
			continue
		}
		m++
		ti := share(a, i)
		for t := range ti {
			T[t] += ti[t]
		}
	}
	nN, sum, diag := normSums(d.per[k].terms, inc, d.normRows[s])
	if m < 3 || nN < 3 {
		return 0
	}
	// Delete each row once: a row is a main row, a normaliser row, or both (MainFraction 1,
	// where NewDesign makes the two lists one). The main rows come first, in block order;
	// then the normaliser rows when they are other rows.
	both := d.opts.MainFraction == 1
	acc := jackknifeAcc{}
	leaveOut := func(i int, main, norm bool, ti [3]float64) {
		Ti := T
		if main {
			for t := range Ti {
				Ti[t] = (T[t] - 2*ti[t]) * m / (m - 2)
			}
		}
		si, di, ni := sum, diag, nN
		if norm {
			ni--
			fi := d.fOf(k, i)
			for b := 0; b < 2; b++ {
				si[b] -= fi[b]
				for bb := 0; bb < 2; bb++ {
					di[b][bb] -= fi[b] * fi[bb]
				}
			}
		}
		N, _ := normalisers(si, di, ni, d.opts.NormFloor, &Report{})
		v := 0.0
		for t, p := range pairs {
			v += weights3[t] * Ti[t] / N[p[0]][p[1]]
		}
		acc.add(v)
	}
	for a, i := range blk.rows {
		if inc[i] != 0 {
			leaveOut(i, true, both, share(a, i))
		}
	}
	for _, i := range d.normRows[s] {
		if inc[i] != 0 && !both {
			leaveOut(i, false, true, [3]float64{})
		}
	}
	return acc.se()
}

// jackknifeAcc accumulates leave-one-out estimates θ₋ᵢ by Welford's method (stable, O(1)
// memory) for the jackknife standard error √((n − 1)/n · Σ(θ₋ᵢ − θ̄)²) (Efron & Tibshirani
// 1993, eq. 11.5).
type jackknifeAcc struct{ n, mean, ss float64 }

func (j *jackknifeAcc) add(v float64) {
	j.n++
	d := v - j.mean
	j.mean += d / j.n
	j.ss += d * (v - j.mean)
}

func (j *jackknifeAcc) se() float64 {
	if j.n < 2 {
		return 0
	}
	return math.Sqrt((j.n - 1) / j.n * j.ss)
}
