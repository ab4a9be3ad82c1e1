package invmmd

import "fmt"

// factor is one product term of a pair weight: it adds sign·col[b][i]·col[b'][j] to
// w_ij^{bb'}. Its per-row sum over terms, Σ_k sign_k col_k[b][i], is the same family's
// per-row estimate of Z_b, so the normalisers come from the same factors.
type factor struct {
	key  string       // names the column so that methods sharing it share one kernel sum
	sign float64      // +1 or −1
	col  [2][]float64 // per-row values for b = 0 and b = 1
}

// weights is one method's factorisation of its pair weights on a batch.
type weights struct {
	method   Method
	include  []float64 // 1 for rows the U-statistic and the mean run over (Obs: Δ), else 1
	terms    []factor
	flooredG int // Δ = 1 rows whose G was raised to the floor
}

// factorsFor returns the per-row factors of method m: the single place where the weights of
// every estimator are defined (SPEC table; paper eqs. fullmmd, reweightingmmd,
// regressionmmd, drmmd and, for the per-row sums, ipestimator and drestimator):
//
//	Full:  w = Z_b,i Z_b',j
//	Obs:   w = Δ_i Z_b,i Δ_j Z_b',j          over the Δ = 1 rows
//	IP:    w = u_b,i u_b',j                  u_b = Δ Z̃_b / G
//	Reg:   w = m_b,i m_b',j
//	DR:    w = u_b,i u_b',j − v_b,i v_b',j + m_b,i m_b',j,   v_b = Δ m_b / G
//	DRPO:  w = f_b,i f_b',j,   f_b = u_b − v_b + m_b   (this project's extension)
//
// The DR line is eq. drmmd expanded: Δ_iΔ_j Z̃_b Z̃_b'/(G_iG_j) − (Δ_iΔ_j − G_iG_j)/(G_iG_j)
// m_b m_b' = u u' − v v' + m m'. Its per-row sum u − v + m = ΔZ̃_b/G − (Δ − G)/G m_b is the
// DR estimator of E[Z_b] (eq. drestimator). Z̃_0 = Δ(1 − Z): a missing row never reads Z.
// Rows must have been validated for m.
func factorsFor(m Method, r Rows, gFloor float64) (weights, error) {
	n := r.Len()
	w := weights{method: m, include: make([]float64, n)}
	for i := range w.include {
		w.include[i] = 1
	}
	pair := func(f func(i int) (z0, z1 float64)) [2][]float64 {
		c := [2][]float64{make([]float64, n), make([]float64, n)}
		for i := 0; i < n; i++ {
			c[0][i], c[1][i] = f(i)
		}
		return c
	}
	// invG returns 1/max(G, floor) for the rows where Δ = 1 (the only rows G enters).
	invG := func(g []float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			if r.Delta[i] == 0 {
				continue
			}
			gi := g[i]
			if gi < gFloor {
				gi = gFloor
				w.flooredG++
			}
			out[i] = 1 / gi
		}
		return out
	}
	zObs := func() [2][]float64 { // Δ Z̃_b
		return pair(func(i int) (float64, float64) {
			if r.Delta[i] == 0 { // Z̃ = ΔZ never reads a missing Z (it may be NaN)
				return 0, 0
			}
			return 1 - r.Z[i], r.Z[i]
		})
	}
	scaled := func(c [2][]float64, s []float64) [2][]float64 {
		return pair(func(i int) (float64, float64) { return c[0][i] * s[i], c[1][i] * s[i] })
	}
	mCols := func() [2][]float64 {
		return pair(func(i int) (float64, float64) { return 1 - r.M[i], r.M[i] })
	}
	switch m {
	case None:
	case Full:
		w.terms = []factor{{"Z", 1, pair(func(i int) (float64, float64) { return 1 - r.Z[i], r.Z[i] })}}
	case Obs:
		copy(w.include, r.Delta)
		w.terms = []factor{{"ΔZ", 1, zObs()}}
	case IP, IPPlus:
		g, key := r.G, "ΔZ/G"
		if m == IPPlus {
			g, key = r.GTrue, "ΔZ/G+"
		}
		w.terms = []factor{{key, 1, scaled(zObs(), invG(g))}}
	case Reg:
		w.terms = []factor{{"m", 1, mCols()}}
	case DR, DRPlus, DRPO, DRPOPlus:
		g, suffix := r.G, ""
		if m == DRPlus || m == DRPOPlus {
			g, suffix = r.GTrue, "+"
		}
		ig := invG(g)
		mc := mCols()
		u, v := scaled(zObs(), ig), scaled(mc, ig) // ig is 0 where Δ = 0
		if m == DRPO || m == DRPOPlus {
			// The pseudo-outcome f = u − v + m of eq. drestimator, one rank-one term.
			f := pair(func(i int) (float64, float64) { return u[0][i] - v[0][i] + mc[0][i], u[1][i] - v[1][i] + mc[1][i] })
			w.terms = []factor{{"f" + suffix, 1, f}}
			break
		}
		w.terms = []factor{{"ΔZ/G" + suffix, 1, u}, {"Δm/G" + suffix, -1, v}, {"m", 1, mc}}
	default:
		return w, fmt.Errorf("invmmd: unknown method %v", m)
	}
	return w, nil
}

// rowMean returns the per-row estimate of Z_b summed over terms, for row i.
func (w *weights) rowMean(b, i int) float64 {
	s := 0.0
	for _, t := range w.terms {
		s += t.sign * t.col[b][i]
	}
	return s
}

// MeanZ estimates E[Z] from rows with the estimator family of method m (appendix E):
// Full the mean of Z, Obs the mean over observed rows, IP/IPPlus the mean of ΔZ̃/G
// (eq. ipestimator), Reg the mean of m, DR and DRPO (and their "+" forms) the mean of
// ΔZ̃/G − (Δ − G)/G·m (eq. drestimator). G is floored at opts.GFloor. It uses the same per-row factors as the
// MMD estimators, so the normalisers of a penalty are this function on the normaliser rows.
func MeanZ(m Method, rows Rows, opts Options) (float64, error) {
	if m == None {
		return 0, fmt.Errorf("invmmd: method none has no estimator of E[Z]")
	}
	o, err := opts.Resolved()
	if err != nil {
		return 0, err
	}
	if err := rows.Validate(m); err != nil {
		return 0, err
	}
	rows = rows.withDelta()
	w, err := factorsFor(m, rows, o.GFloor)
	if err != nil {
		return 0, err
	}
	sum, count := 0.0, 0.0
	for i := 0; i < rows.Len(); i++ {
		if w.include[i] == 0 {
			continue
		}
		count++
		sum += w.rowMean(1, i)
	}
	if count == 0 {
		return 0, fmt.Errorf("invmmd: %v estimate of E[Z]: no observed row among %d (all Z missing)", m, rows.Len())
	}
	return sum / count, nil
}
