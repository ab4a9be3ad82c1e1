package invmmd

// Leave-one-out and leave-two-out values of the joint estimate, without rebuilding its
// coefficients: the estimate is a fixed combination of a few kernel sums of the design's
// columns (jointStratum.coefs),
//
//	θ = s₂·A + (−2s₃ − 4s₄)·Σ_d S_d B_d + (2s₃ + 2s₄)·C + (2s₃ + 4s₄)·Q(r, 1) + s₄(‖S‖² − R)·Q(1, 1),
//
// A = Σ_t sign_t Σ_d Q(a_td, a_td), B_d = Σ_t sign_t Q(a_td, 1), C = Σ_tu sign_t sign_u Σ_d
// Q(a_td, a_ud) over the method's terms t and features d, s₂ = scale/(n(n−1)),
// s₃ = s₂/(n−2), s₄ = s₃/(n−3). Deleting rows changes n, S and R and subtracts the deleted
// rows' terms from the kernel sums, which are linear: so the sums' combination (jointAgg)
// of the deletion is that of Q less those of the rows' terms.

// jointAgg holds A, B, C, Q(r, 1) and Q(1, 1) of some kernel sums.
type jointAgg struct {
	a, c, qr, q1 float64
	b            []float64
}

// add adds w times o to g.
func (g *jointAgg) add(w float64, o jointAgg) {
	g.a += w * o.a
	g.c += w * o.c
	g.qr += w * o.qr
	g.q1 += w * o.q1
	for d := range g.b {
		g.b[d] += w * o.b[d]
	}
}

// clone returns a copy of g with its own b.
func (g jointAgg) clone() jointAgg {
	g.b = append([]float64(nil), g.b...)
	return g
}

// aggOf returns the combination of the kernel sums q(p, q) that the estimate reads, into
// g (its b reused when long enough).
func (j *jointStratum) aggOf(g jointAgg, q func(p, q int) float64) jointAgg {
	dim := len(j.sum)
	if cap(g.b) < dim {
		g.b = make([]float64, dim)
	}
	g.b = g.b[:dim]
	clear(g.b)
	g.a, g.c = 0, 0
	for t, cols := range j.cols {
		for d, p := range cols {
			g.a += j.signs[t] * q(p, p)
			g.b[d] += j.signs[t] * q(p, j.one)
			for u, other := range j.cols {
				g.c += j.signs[t] * j.signs[u] * q(p, other[d])
			}
		}
	}
	g.qr, g.q1 = q(j.sq, j.one), q(j.one, j.one)
	return g
}

// valueWithout returns the estimate over the stratum's rows less `drop` rows whose
// one-row factors sum to df (per feature) and whose ‖f‖² sum to dr, from the combination g
// of the kernel sums without them.
func (j *jointStratum) valueWithout(drop int, df []float64, dr float64, g jointAgg) float64 {
	n := j.n - float64(drop)
	s2 := j.scale / (n * (n - 1))
	s3 := s2 / (n - 2)
	s4 := s3 / (n - 3)
	var sb, norm2 float64
	for d, s := range j.sum {
		sd := s - df[d]
		sb += sd * g.b[d]
		norm2 += sd * sd
	}
	return s2*g.a + (-2*s3-4*s4)*sb + (2*s3+2*s4)*g.c + (2*s3+4*s4)*g.qr + s4*(norm2-(j.sumSq-dr))*g.q1
}

// jointLOO computes the leave-one-out and leave-two-out values of method k's joint
// estimate in stratum s from the row sums.
type jointLOO struct {
	js      *jointStratum
	rows    []int       // the stratum's rows
	cols    [][]float64 // the design's columns
	kv      []float64   // the stratum's row sums, P per row, column q at pos[q] (strataSums)
	pos     []int
	P       int
	f       [][]float64 // the method's per-row factors, ‖f‖² last
	full    jointAgg    // the combination of the stratum's kernel sums
	scratch jointAgg
	df      []float64
}

func (d *Design) jointLOO(k, s int, rs *strataSums) *jointLOO {
	js := d.per[k].joint[s]
	jl := &jointLOO{js: js, rows: d.blocks[s].rows, cols: d.cols, kv: rs.kv, pos: rs.pos, P: len(rs.idx[s]),
		f: d.per[k].rowF, df: make([]float64, len(js.sum))}
	q := map[[2]int]float64{}
	jl.full = js.aggOf(jointAgg{}, func(p, qq int) float64 {
		key := [2]int{p, qq}
		if v, ok := q[key]; ok {
			return v
		}
		v := 0.0
		for a, i := range jl.rows {
			v += jl.cols[p][i] * jl.kv[a*jl.P+jl.pos[qq]]
		}
		q[key] = v
		return v
	})
	return jl
}

// rowAgg returns the combination of row a's terms V_ap (KV)_aq + V_aq (KV)_ap (a: position
// in the stratum's rows).
func (jl *jointLOO) rowAgg(a int) jointAgg {
	i, ka := jl.rows[a], jl.kv[a*jl.P:(a+1)*jl.P]
	return jl.js.aggOf(jointAgg{}, func(p, q int) float64 {
		return jl.cols[p][i]*ka[jl.pos[q]] + jl.cols[q][i]*ka[jl.pos[p]]
	})
}

// factors sets jl.df to the sum of the one-row factors of the given rows (row indices) and
// returns the sum of their ‖f‖².
func (jl *jointLOO) factors(rows ...int) float64 {
	dim := len(jl.df)
	clear(jl.df)
	r := 0.0
	for _, i := range rows {
		for b := 0; b < dim; b++ {
			jl.df[b] += jl.f[b][i]
		}
		r += jl.f[dim][i]
	}
	return r
}

// without1 returns the estimate without the row at position a.
func (jl *jointLOO) without1(a int) float64 {
	g := jl.full.clone()
	g.add(-1, jl.rowAgg(a))
	r := jl.factors(jl.rows[a])
	return jl.js.valueWithout(1, jl.df, r, g)
}

// without2 returns the estimate without the rows at positions a and b, whose kernel value
// is kab, given their rows' combinations ra and rb (rowAgg).
func (jl *jointLOO) without2(a, b int, kab float64, ra, rb jointAgg) float64 {
	i, j, cols := jl.rows[a], jl.rows[b], jl.cols
	pair := jl.js.aggOf(jl.scratch, func(p, q int) float64 {
		return kab * (cols[p][i]*cols[q][j] + cols[p][j]*cols[q][i])
	})
	jl.scratch = pair
	g := jl.full.clone()
	g.add(-1, ra)
	g.add(-1, rb)
	g.add(1, pair)
	r := jl.factors(i, j)
	return jl.js.valueWithout(2, jl.df, r, g)
}
