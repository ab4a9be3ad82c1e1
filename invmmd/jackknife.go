package invmmd

import "math"

// StandardErrors returns, for each method of the design and each stratum, the jackknife
// standard error of the stratum's MMD² estimate for model outputs h of any width: each row
// of the stratum (main or normaliser) is deleted in turn, the main terms T_bb' and the
// normalisers N_bb' (with their floors) are recomputed without it, and the variance
// estimate is (n−1)/n·Σ_i (θ₋ᵢ − θ̄)² over the n rows. One pass of kernel sums per row
// serves every deletion: with T = Σ_{i≠j} g_ij/(m(m−1)) over m main rows (g symmetric),
// T₋ᵢ = (T − 2t_i)·m/(m−2), t_i = Σ_{j≠i} g_ij/(m(m−1)); the normalisers' sums lose row
// i's terms. By the Efron–Stein inequality the jackknife variance is conservative in
// expectation for a symmetric statistic, including near MMD² = 0, where the U-statistic
// is degenerate and a first-order (Hájek) standard error would be near 0; and because the
// normalisers are recomputed, a batch whose estimate hangs on a near-zero normaliser gets
// the large standard error it deserves. Empty or dropped strata, and strata with fewer
// than 3 rows, get 0. It costs one exact O(n²·(d + P)) pass. It does not check h: pass
// outputs that Evaluate accepts (one finite row per row of the design).
func (d *Design) StandardErrors(h Rep) [][]float64 {
	out := make([][]float64, len(d.methods))
	for k := range out {
		out[k] = make([]float64, len(d.blocks))
	}
	gamma := 1 / (2 * d.opts.Bandwidth * d.opts.Bandwidth)
	for s, blk := range d.blocks {
		var idx []int
		for j, b := range d.colBlock {
			if b == s {
				idx = append(idx, j)
			}
		}
		if len(blk.rows) < 3 || len(idx) == 0 {
			continue
		}
		kv := kernelColumns(h, blk.rows, d.cols, idx, gamma)
		pos := map[int]int{}
		for x, p := range idx {
			pos[p] = x
		}
		for k := range d.methods {
			if d.empty[k][s] { // empty or dropped
				continue
			}
			if d.joint[k] != nil {
				out[k][s] = d.jackknifeJoint(k, s, kv, pos)
				continue
			}
			out[k][s] = d.jackknife(k, s, kv, pos)
		}
	}
	return out
}

// kernelColumns returns kv[a][x] = Σ_{b≠a} k(h_a, h_b)·cols[idx[x]][b] over rows.
func kernelColumns(h Rep, rows []int, cols [][]float64, idx []int, gamma float64) [][]float64 {
	kv := make([][]float64, len(rows))
	for a, i := range rows {
		kv[a] = make([]float64, len(idx))
		for _, j := range rows {
			if j == i {
				continue
			}
			var kij float64
			if h.Dim == 1 { // the scalar path, kept as it was to the last bit
				dh := h.Data[i] - h.Data[j]
				kij = math.Exp(-gamma * dh * dh)
			} else {
				kij = math.Exp(-gamma * sqDist(h.Row(i), h.Row(j)))
			}
			for x, p := range idx {
				kv[a][x] += kij * cols[p][j]
			}
		}
	}
	return kv
}

// pairs are the (b, b') of the three terms of an MMD², and weights their signs·counts:
// MMD² = T₁₁/N₁₁ + T₀₀/N₀₀ − 2T₁₀/N₁₀.
var (
	pairs    = [3][2]int{{1, 1}, {0, 0}, {1, 0}}
	weights3 = [3]float64{1, 1, -2}
)

// jackknife returns the jackknife standard error of method k's estimate in stratum s.
func (d *Design) jackknife(k, s int, kv [][]float64, pos map[int]int) float64 {
	blk := d.blocks[s]
	inc := d.includes[k]
	// Main terms: T[t] and each main row's share tRow[i][t].
	var T [3]float64
	tRow := map[int][3]float64{}
	m := 0.0
	for a, i := range blk.rows {
		if inc[i] == 0 {
			continue
		}
		m++
		var ti [3]float64
		for _, e := range d.coefs[k] {
			if e.s != s {
				continue
			}
			t := 2 // the pair index of (e.b, e.bb)
			if e.b == e.bb {
				t = 1 - e.b // (1,1) → 0, (0,0) → 1
			}
			ti[t] += e.c * (d.cols[e.p][i]*kv[a][pos[e.q]] + d.cols[e.q][i]*kv[a][pos[e.p]]) / 2
		}
		for t := range ti {
			T[t] += ti[t]
		}
		tRow[i] = ti
	}
	// Normaliser sums.
	var sum [2]float64
	var diag [2][2]float64
	nN := 0.0
	normSet := map[int]bool{}
	f := d.rowF[k]
	for _, i := range d.normRows[s] {
		if inc[i] == 0 {
			continue
		}
		nN++
		normSet[i] = true
		for b := 0; b < 2; b++ {
			sum[b] += f[b][i]
			for bb := 0; bb < 2; bb++ {
				diag[b][bb] += f[b][i] * f[bb][i]
			}
		}
	}
	if m < 3 || nN < 3 {
		return 0
	}
	value := func(T [3]float64, N [2][2]float64) float64 {
		v := 0.0
		for t, p := range pairs {
			v += weights3[t] * T[t] / N[p[0]][p[1]]
		}
		return v
	}
	var loo []float64
	seen := map[int]bool{}
	for _, set := range [][]int{blk.rows, d.normRows[s]} {
		for _, i := range set {
			if inc[i] == 0 || seen[i] {
				continue
			}
			seen[i] = true
			Ti := T
			if ti, ok := tRow[i]; ok {
				for t := range Ti {
					Ti[t] = (T[t] - 2*ti[t]) * m / (m - 2)
				}
			}
			si, di, ni := sum, diag, nN
			if normSet[i] {
				ni--
				for b := 0; b < 2; b++ {
					si[b] -= f[b][i]
					for bb := 0; bb < 2; bb++ {
						di[b][bb] -= f[b][i] * f[bb][i]
					}
				}
			}
			N, _ := normalisers(si, di, ni, d.opts.NormFloor, &Report{})
			loo = append(loo, value(Ti, N))
		}
	}
	return jackknifeSE(loo)
}

// jackknifeJoint returns the jackknife standard error of method k's joint estimate in
// stratum s: for each row i the estimate is recomputed without it, from the kernel sums
// less row i's pairs, Q₋ᵢ(p, q) = Q(p, q) − V_ip (KV)_iq − V_iq (KV)_ip, and the
// coefficients rebuilt from S − f_i, R − ‖f_i‖² and n − 1 (the U-statistics' normalisation
// included), so the variance of the row sums S that the triple and quadruple terms carry is
// in the standard error too.
func (d *Design) jackknifeJoint(k, s int, kv [][]float64, pos map[int]int) float64 {
	blk := d.blocks[s]
	inc := d.includes[k]
	js := d.joint[k][s]
	if js.n < 5 {
		return 0
	}
	// Q over the pairs of columns the coefficients use.
	type pq struct{ p, q int }
	Q := map[pq]float64{}
	for _, e := range d.coefs[k] {
		if e.s != s {
			continue
		}
		key := pq{e.p, e.q}
		if _, ok := Q[key]; ok {
			continue
		}
		v := 0.0
		for a, i := range blk.rows {
			v += d.cols[e.p][i] * kv[a][pos[e.q]]
		}
		Q[key] = v
	}
	f := d.rowF[k]
	dim := len(f) - 1
	value := func(j *jointStratum, q func(p, q int) float64) float64 {
		v := 0.0
		for _, e := range j.coefs(s) {
			v += slotWeight[e.b] * e.c * q(e.p, e.q)
		}
		return v
	}
	var loo []float64
	fi := make([]float64, dim)
	for a, i := range blk.rows {
		if inc[i] == 0 {
			continue
		}
		for b := range fi {
			fi[b] = f[b][i]
		}
		ji := js.without(fi, f[dim][i])
		loo = append(loo, value(ji, func(p, q int) float64 {
			return Q[pq{p, q}] - d.cols[p][i]*kv[a][pos[q]] - d.cols[q][i]*kv[a][pos[p]]
		}))
	}
	return jackknifeSE(loo)
}

// jackknifeSE is the jackknife standard error √((n − 1)/n · Σ(θ₋ᵢ − θ̄)²) of the n
// leave-one-out estimates loo (Efron & Tibshirani 1993, eq. 11.5).
func jackknifeSE(loo []float64) float64 {
	n := float64(len(loo))
	mean := 0.0
	for _, v := range loo {
		mean += v
	}
	mean /= n
	ss := 0.0
	for _, v := range loo {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt((n - 1) / n * ss)
}
