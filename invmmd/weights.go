package invmmd

import (
	"fmt"
	"slices"

	"github.com/invmmd/invmmd/invmmd/method"
)

// factor is one product term of a pair weight: for each feature d of ψ it adds
// sign·col[d][i]·col[d][j] to the pair weight of feature d (w_ij^{bb'} with b = b' = d for the
// binary MMD, whose cross terms pair col[1] with col[0]). Its per-row sum over terms,
// Σ_k sign_k col_k[d][i], is the same family's per-row estimate of ψ_d(Z_i) (of Z_b for a
// binary Z), so the normalisers and the one-row terms come from the same factors.
type factor struct {
	key  string      // names the column so that methods sharing it share one kernel sum
	sign float64     // +1 or −1
	col  [][]float64 // per feature d (b = 0, 1 for a binary Z): per-row values
	// weight is the per-row weight whose Kish effective sample size the reports give when
	// ψ is not a one-hot vector of levels (for one-hot ψ each level's column is its own
	// weight): 1 for full, reg and the m term, Δ for obs, Δ/G for the inverse-weighted terms.
	weight []float64
}

// weights is one method's factorisation of its pair weights on a batch.
type weights struct {
	method   method.Method
	include  []float64 // 1 for rows the U-statistic and the mean run over (Obs: Δ), else 1
	terms    []factor
	flooredG int // Δ = 1 rows whose G was raised to the floor
}

// factorsFor returns the per-row factors of method m: the single place where the weights of
// every estimator are defined (paper eqs. 6–9 and, for the per-row sums, the estimators of
// E[Z] of eq. (3) and appendices E and F), for the features ψ of Z — the one-hot (Z₀, Z₁) = (1 − Z, Z)
// of a binary Z, or any ψ of a FeatureMap — with m_d = E[ψ_d(Z) | X, Y]:
//
//	Full:  w = ψ_d,i ψ_d',j
//	Obs:   w = Δ_i ψ_d,i Δ_j ψ_d',j           over the Δ = 1 rows
//	IP:    w = u_d,i u_d',j                   u_d = Δ ψ_d / G
//	Reg:   w = m_d,i m_d',j
//	DR:    w = u_d,i u_d',j − v_d,i v_d',j + m_d,i m_d',j,   v_d = Δ m_d / G
//	DRPO:  w = f_d,i f_d',j,   f_d = u_d − v_d + m_d   (this project's extension)
//
// The DR line is the paper's DR pair weight (its eq. 9) expanded: Δ_iΔ_j ψ ψ'/(G_iG_j) −
// (Δ_iΔ_j − G_iG_j)/(G_iG_j) m m' = u u' − v v' + m m'. Its per-row sum u − v + m =
// Δψ/G − (Δ − G)/G m is the DR estimator of E[ψ(Z)] (eq. 3). A missing row never reads ψ
// (ΔZ̃: Δ = 0 gives 0 whatever Z holds). Rows must have been validated for m.
//
// ones, when not nil, is a column of n ones that the factors may share (and never change).
func factorsFor(m method.Method, r Rows, gFloor float64, ones []float64) (weights, error) {
	n := r.Len()
	if ones == nil {
		ones = slices.Repeat([]float64{1}, n)
	}
	w := weights{method: m, include: ones}
	d := 0 // features of ψ
	if m != method.None {
		d = 2
		if r.Psi != nil {
			d = r.Psi.Dim
		}
	}
	psi := func(k, i int) float64 { // ψ_k(Z_i), read as the columns are made (featureColumns)
		switch {
		case r.Psi != nil:
			return r.Psi.Data[i*d+k]
		case k == 0:
			return 1 - r.Z[i]
		}
		return r.Z[i]
	}
	cols := func(f func(d, i int) float64) [][]float64 {
		c := make([][]float64, d)
		for k := range c {
			c[k] = make([]float64, n)
			for i := 0; i < n; i++ {
				c[k][i] = f(k, i)
			}
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
	zObs := func(s []float64) [][]float64 { // Δ ψ_d, times s when not nil
		return cols(func(k, i int) float64 {
			if r.Delta[i] == 0 { // Z̃ = ΔZ never reads a missing Z (it may be NaN); ig is 0 there too
				return 0
			}
			if s == nil {
				return psi(k, i)
			}
			return psi(k, i) * s[i]
		})
	}
	g, suffix := r.G, "" // the G the method reads, and the mark of its columns' keys
	if m.NeedsTrueG() {
		g, suffix = r.GTrue, "+"
	}
	switch m.Family() {
	case method.FamilyNone:
	case method.FamilyFull:
		w.terms = []factor{{"Z", 1, r.psi(), ones}}
	case method.FamilyObs:
		w.include = r.Delta
		w.terms = []factor{{"ΔZ", 1, zObs(nil), r.Delta}}
	case method.FamilyIP:
		ig := invG(g)
		w.terms = []factor{{"ΔZ/G" + suffix, 1, zObs(ig), ig}}
	case method.FamilyReg:
		w.terms = []factor{{"m", 1, r.mPsi(), ones}}
	case method.FamilyDR, method.FamilyDRPO:
		ig := invG(g)
		mc := r.mPsi()
		u := zObs(ig)
		v := cols(func(k, i int) float64 { return mc[k][i] * ig[i] }) // ig is 0 where Δ = 0
		if m.Family() == method.FamilyDRPO {
			// The pseudo-outcome f = u − v + m of eq. 3, one rank-one term.
			f := cols(func(k, i int) float64 { return u[k][i] - v[k][i] + mc[k][i] })
			w.terms = []factor{{"f" + suffix, 1, f, ig}}
			break
		}
		w.terms = []factor{{"ΔZ/G" + suffix, 1, u, ig}, {"Δm/G" + suffix, -1, v, ig}, {"m", 1, mc, ones}}
	default:
		return w, fmt.Errorf("invmmd: method %v (family %v) has no pair weights: add its family's case to factorsFor", m, m.Family())
	}
	return w, nil
}

// rowMean returns a method's per-row estimate of ψ_b(Z_i) (Z_b for a binary Z): Σ_k
// sign_k col_k[b][i] over its terms.
func rowMean(terms []factor, b, i int) float64 {
	s := 0.0
	for _, t := range terms {
		s += t.sign * t.col[b][i]
	}
	return s
}

// MeanZ estimates E[Z] from rows with the estimator family of method m (appendices E and F):
// Full the mean of Z, Obs the mean over observed rows, IP/IPPlus the mean of ΔZ̃/G
// (appendix E), Reg the mean of m, DR and DRPO (and their "+" forms) the mean of
// ΔZ̃/G − (Δ − G)/G·m (eq. (3), appendix F). G is floored at opts.GFloor. It uses the same per-row factors as the
// MMD estimators, so the normalisers of a penalty are this function on the normaliser rows.
func MeanZ(m method.Method, rows Rows, opts Options) (float64, error) {
	if m == method.None {
		return 0, fmt.Errorf("invmmd: method none has no estimator of E[Z]")
	}
	o, err := opts.Resolved()
	if err != nil {
		return 0, err
	}
	if err := rows.ValidateClasses(o.NumClasses(), m); err != nil {
		return 0, err
	}
	rows = rows.withDelta()
	w, err := factorsFor(m, rows, o.GFloor, nil)
	if err != nil {
		return 0, err
	}
	sum, count := 0.0, 0.0
	for i := 0; i < rows.Len(); i++ {
		if w.include[i] == 0 {
			continue
		}
		count++
		sum += rowMean(w.terms, 1, i)
	}
	if count == 0 {
		return 0, fmt.Errorf("invmmd: %v estimate of E[Z]: no observed row among %d (all Z missing)", m, rows.Len())
	}
	return sum / count, nil
}
