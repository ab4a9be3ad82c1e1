package invmmd

import (
	"context"
	"math/rand/v2"
	"slices"
)

// The jackknife's excess at a degenerate U-statistic.
//
// Write the estimate's main part as a U-statistic U = mean_{i≠j} φ_ij over m rows and
// decompose φ (Hoeffding): φ_ij = θ + h₁(i) + h₁(j) + h₂(i, j), ζ₁ = Var h₁, ζ₂ = Var h₂.
// Then Var U = 4ζ₁/m + 2ζ₂/(m(m−1)), while the jackknife variance, whose leave-one-out
// values move with the row sums r_i = Σ_{j≠i} φ_ij, has expectation
// 4ζ₁/m + 4ζ₂/(m(m−2)): its second-order part is about twice the true one. Away from
// MMD² = 0, ζ₁ > 0 dominates and the excess is negligible; at MMD² = 0 (h ⊥ Z | Y, where
// h₁ ≡ 0) the jackknife variance is about twice the variance (measured here: SE/sd 1.27 for
// full and 1.36 for ip at the null, 0.98–1.07 under dependence). So the standard error
// subtracts the excess (4/(m(m−2)) − 2/(m(m−1)))·ζ̂₂, with ζ̂₂ the mean over pairs of the
// squared doubly centred φ (computed from Σ_{i≠j} φ_ij², the row sums and their total:
// Σ_{i≠j} (φ_ij − μ_i − μ_j + μ)² = Σφ² − 2m Σ μ_i² + m(m+1) μ², μ_i = r_i/(m−1),
// μ = Σ r_i/(m(m−1))), and keeps the result between a quarter of the jackknife variance
// and all of it (the correction removes at most half in expectation; the floor guards
// against its sampling noise).
//
// φ for the paper's MMD², a ratio of U-statistics: its linearisation (conditionalExcess),
// k_ij·s_ij − s'_ij, s_ij = m(m−1)·Σ_pq C_pq V_ip V_jq with C the method's coefficients of
// the stratum (its pair weights over the normalisers, Design.Matrices) and s' the
// normalisers' kernel weighted by each term's mean kernel value. Its Σ φ² needs
// Σ_{i≠j} k_ij² (V_ip V_ip')(V_jq V_jq'): the kernel sums of the products of columns under
// k² = exp(−d²/σ²), the Gaussian of bandwidth σ/√2, through the same summer (linear in
// the rows).
//
// The joint MMD² (appendix H) is a U-statistic of order 4 whose second-order part is not
// one pair kernel of the design's columns; its excess is measured from second differences
// of the estimate on a sample of pairs (jackknifeJoint).

// excessOf returns (4/(m(m−2)) − 2/(m(m−1)))·ζ̂₂ from Σ_{i≠j} φ² (a), the row sums r of the
// m rows, and m.
func excessOf(a float64, r []float64, m float64) float64 {
	if m < 4 {
		return 0
	}
	var sumR, sumMu2 float64
	for _, x := range r {
		sumR += x
		sumMu2 += (x / (m - 1)) * (x / (m - 1))
	}
	mu := sumR / (m * (m - 1))
	zeta2 := (a - 2*m*sumMu2 + m*(m+1)*mu*mu) / (m * (m - 1))
	return zeta2 * (4/(m*(m-2)) - 2/(m*(m-1)))
}

// conditionalExcess is the excess of method k's conditional estimate in stratum s. The
// estimate is a ratio Σ_t w_t T_t/N̂_t of U-statistics, so its Hoeffding decomposition is
// that of its linearisation Σ_t (w_t/N_t)(T_t − c_t N̂_t), c_t = T_t/N_t: the main terms'
// pair kernel k_ij·g^t_ij less c_t times the normalisers' pair kernel f_b,i f_b',j (the
// method's per-row estimates of Z_b). With every row in both (MainFraction 1) the two are
// one U-statistic, φ = k·s − s'; with the normalisers on other rows they are two, φ = k·s
// over the main rows and −s' over the normaliser rows, whose excesses add.
func (d *Design) conditionalExcess(ctx context.Context, h Rep, summer Summer, k, s int, rs *strataSums, sigma2 float64) (float64, error) {
	blk := d.blocks[s]
	inc := d.per[k].include
	norm := d.per[k].norms[s]
	kv := rs.kv
	P := len(rs.idx[s])
	col := func(p int) []float64 { return d.cols[rs.idx[s][p]] }
	// Ĉ (the coefficients over the normalisers, symmetrised) and each term's T_t.
	C := make([]float64, P*P)
	var T [3]float64
	for _, e := range d.per[k].coefs {
		if e.s != s {
			continue
		}
		t := termIndex(e.b, e.bb)
		w := weights3[t] * e.c / norm[pairs[t][0]][pairs[t][1]]
		a, b := rs.pos[e.p], rs.pos[e.q]
		C[a*P+b] += w / 2
		C[b*P+a] += w / 2
		for x, i := range blk.rows {
			T[t] += e.c * d.cols[e.p][i] * kv[x*P+b]
		}
	}
	var used []int // columns with a coefficient
	for a := 0; a < P; a++ {
		if slices.ContainsFunc(C[a*P:(a+1)*P], func(c float64) bool { return c != 0 }) {
			used = append(used, a)
		}
	}
	if len(used) == 0 {
		return 0, nil
	}
	// E: the normalisers' part s'_ij = Σ_bb' E_bb' f_b,i f_b',j, E_bb' = w_t c_t / N_t (split
	// over the two orders of the cross term).
	var E [2][2]float64
	for t, p := range pairs {
		n := norm[p[0]][p[1]]
		ct := T[t] / n
		v := weights3[t] * ct / n
		if p[0] == p[1] {
			E[p[0]][p[1]] += v
		} else {
			E[p[0]][p[1]] += v / 2
			E[p[1]][p[0]] += v / 2
		}
	}
	main := included(blk.rows, inc)
	m := float64(len(main))
	scale := m * (m - 1) // s_ij = m(m−1)·Σ Ĉ V V, so that the main terms are the mean of k·s
	// Per main row: (k·s)'s row sum.
	ks := make([]float64, 0, len(main))
	for x, i := range blk.rows {
		if inc[i] == 0 {
			continue
		}
		v := 0.0
		for _, p := range used {
			vp := col(p)[i]
			if vp == 0 {
				continue
			}
			for _, q := range used {
				v += C[p*P+q] * vp * kv[x*P+q]
			}
		}
		ks = append(ks, scale*v)
	}
	// Σ_{i≠j} k² s² over the main rows: k² pair sums of the products of columns, computed
	// as the sums read them (no column of their own).
	idxOf := map[[2]int]int{}
	var prod [][2][]float64
	for x, p := range used {
		for _, q := range used[x:] {
			idxOf[[2]int{p, q}], idxOf[[2]int{q, p}] = len(prod), len(prod)
			prod = append(prod, [2][]float64{col(p), col(q)})
		}
	}
	q2, _, err := pairSums(ctx, summer, h, main, colSet{P: len(prod), fill: func(i int, v []float64) {
		for x, ab := range prod {
			v[x] = ab[0][i] * ab[1][i]
		}
	}}, sigma2)
	if err != nil {
		return 0, err
	}
	kss := 0.0
	for _, p := range used {
		for _, pp := range used {
			w := idxOf[[2]int{p, pp}]
			for _, q := range used {
				cpq := C[p*P+q]
				if cpq == 0 {
					continue
				}
				for _, qq := range used {
					kss += cpq * C[pp*P+qq] * q2[w][idxOf[[2]int{q, qq}]]
				}
			}
		}
	}
	kss *= scale * scale
	// The normalisers' U-statistic −s' over rows nrows: its row sums, Σ s'², and (when it
	// shares the main rows) Σ k·s·s'.
	nrows := included(d.normRows[s], inc)
	_, F, FF := normSums(d.per[k].terms, inc, nrows)
	sp := func(i int) (r float64) { // Σ_{j≠i} s'_ij
		fi := d.fOf(k, i)
		for b := 0; b < 2; b++ {
			for c := 0; c < 2; c++ {
				r += E[b][c] * fi[b] * (F[c] - fi[c])
			}
		}
		return r
	}
	// Σ_{i≠j} s'² = Σ E_bc E_b'c' [(Σ f_b f_b')(Σ f_c f_c') − Σ f_b f_b' f_c f_c'] over the 16
	// (b, c, b', c'), the bits of x from the highest.
	bits := func(x int) (b, c, bb, cc int) { return x >> 3, x >> 2 & 1, x >> 1 & 1, x & 1 }
	var diag [16]float64
	for _, i := range nrows { // one pass for the 16 sums
		fi := d.fOf(k, i)
		for x := range diag {
			b, c, bb, cc := bits(x)
			diag[x] += fi[b] * fi[bb] * fi[c] * fi[cc]
		}
	}
	ss := 0.0
	for x, dg := range diag {
		b, c, bb, cc := bits(x)
		ss += E[b][c] * E[bb][cc] * (FF[b][bb]*FF[c][cc] - dg)
	}
	if d.opts.MainFraction != 1 { // two U-statistics on disjoint rows
		rn := make([]float64, len(nrows))
		for a, i := range nrows {
			rn[a] = -sp(i)
		}
		return excessOf(kss, ks, m) + excessOf(ss, rn, float64(len(nrows))), nil
	}
	// One U-statistic, φ = k·s − s': Σ φ² = Σ k²s² − 2 Σ k s s' + Σ s'², with
	// Σ_{i≠j} k s s' = scale Σ Ĉ_pq E_bc Σ_{i≠j} k (V_p f_b)_i (V_q f_c)_j (k pair sums).
	vf := colSet{P: 2 * len(used), fill: func(i int, v []float64) { // V_p f_b at 2x + b (p = used[x]), computed as read
		fi := d.fOf(k, i)
		for x, p := range used {
			v[2*x], v[2*x+1] = col(p)[i]*fi[0], col(p)[i]*fi[1]
		}
	}}
	q1, _, err := pairSums(ctx, summer, h, main, vf, d.opts.Bandwidth)
	if err != nil {
		return 0, err
	}
	kssp := 0.0
	for x, p := range used {
		for y, q := range used {
			cpq := C[p*P+q]
			if cpq == 0 {
				continue
			}
			for b := 0; b < 2; b++ {
				for c := 0; c < 2; c++ {
					kssp += cpq * E[b][c] * q1[2*x+b][2*y+c]
				}
			}
		}
	}
	kssp *= scale
	for a, i := range main { // φ's row sums, in place of k·s's
		ks[a] -= sp(i)
	}
	return excessOf(kss-2*kssp+ss, ks, m), nil
}

// excessPairs is the number of pairs of rows on which jackknifeJoint measures the second
// differences (all pairs when a stratum has fewer): their mean square estimates the
// excess to about 1%, deterministically (the pairs are drawn from a fixed seed).
const excessPairs = 20000

// jackknifeJoint returns the jackknife standard error of method k's joint estimate in
// stratum s (0 under 5 rows) and its excess (0 under 7 rows). For each row i the estimate
// is recomputed without it, from the kernel sums less row i's pairs, Q₋ᵢ(p, q) = Q(p, q) −
// V_ip (KV)_iq − V_iq (KV)_ip, and the coefficients rebuilt from S − f_i, R − ‖f_i‖² and
// n − 1 (the U-statistics' normalisation included), so the variance of the row sums S that
// the triple and quadruple terms carry is in the standard error too (joint_loo.go).
//
// The joint estimate is a U-statistic of order 4 with estimated one-row factors, whose
// second-order part is not one pair kernel of the design's columns (for dr its pair weight
// and its one-row factors differ); so instead of a formula it measures the jackknife's excess
// directly: to leading order it is Σ_{i<j} Δ_ij², Δ_ij = θ − θ₋ᵢ − θ₋ⱼ + θ₋ᵢⱼ the second
// differences of the estimate over deletions of rows (Efron & Stein 1981: the jackknife
// variance overstates the variance by the second- and higher-order ANOVA components; for a
// U-statistic of order 2, Δ_ij = 2(φ_ij − 2μ_i − 2μ_j + 3μ)/((m−2)(m−3)) and Σ Δ² is the
// conditional formula's excess up to O(1/m)). Each θ₋ᵢⱼ comes from the row sums and one
// kernel value k_ij, as θ₋ᵢ does in the jackknife; the mean of Δ² over excessPairs pairs
// times the number of pairs estimates the sum.
func (d *Design) jackknifeJoint(h Rep, k, s int, rs *strataSums) (se, excess float64) {
	blk := d.blocks[s]
	inc := d.per[k].include
	var rows []int // positions in blk.rows of the included rows
	for a, i := range blk.rows {
		if inc[i] != 0 {
			rows = append(rows, a)
		}
	}
	m := len(rows)
	if m < 5 {
		return 0, 0
	}
	jl := d.jointLOO(k, s, rs)
	loo := make([]float64, len(blk.rows))
	acc := jackknifeAcc{}
	for _, a := range rows {
		loo[a] = jl.without1(a)
		acc.add(loo[a])
	}
	if m < 7 {
		return acc.se(), 0
	}
	theta := jl.js.valueWithout(0, make([]float64, len(jl.df)), 0, jl.full)
	rowAggs := make([]jointAgg, len(blk.rows))
	for _, a := range rows {
		rowAggs[a] = jl.rowAgg(a)
	}
	sum, count := 0.0, 0.0
	pair := func(a, b int) {
		kab := GaussianKernel(h.Row(blk.rows[a]), h.Row(blk.rows[b]), d.opts.Bandwidth)
		delta := theta - loo[a] - loo[b] + jl.without2(a, b, kab, rowAggs[a], rowAggs[b])
		sum += delta * delta
		count++
	}
	if total := m * (m - 1) / 2; total <= excessPairs {
		for x := 0; x < m; x++ {
			for y := x + 1; y < m; y++ {
				pair(rows[x], rows[y])
			}
		}
	} else {
		rng := rand.New(rand.NewPCG(uint64(s)+1, 0xdeb1))
		for range excessPairs {
			x, y := rng.IntN(m), rng.IntN(m-1)
			if y >= x {
				y++
			}
			pair(rows[x], rows[y])
		}
	}
	return acc.se(), sum / count * float64(m) * float64(m-1) / 2
}

// included returns the rows whose include is not 0: rows itself when that is every one.
func included(rows []int, include []float64) []int {
	out := func(i int) bool { return include[i] == 0 }
	if !slices.ContainsFunc(rows, out) {
		return rows
	}
	return slices.DeleteFunc(slices.Clone(rows), out)
}
