package invmmd

import (
	"fmt"
	"math"

	"github.com/invmmd/invmmd/invmmd/method"
)

// The joint estimand (Options.Estimand JointMMD; the paper's last appendix, H): within a
// stratum of Y, the MMD² between the joint p(h, Z) and the product p(h)p(Z) under the
// product kernel k_h(h, h')·k_z(Z, Z'), k_z(z, z') = ψ(z)ᵀψ(z') (FeatureMap):
//
//	MMD²_joint = E[k_h(h, h') ψ·ψ'] + E[k_h(h, h')]·E[ψ·ψ'] − 2·E[k_h(h₁, h₂) ψ₁·ψ₃]
//	           = Σ_d E[k_h(h, h') (ψ_d − μ_d)(ψ'_d − μ_d)],   μ = E[ψ(Z) | Y = y],
//
// pairs and triples of independent rows of the stratum (in the last term (h₁, Z₁) is one
// row). It is zero exactly when h ⊥ Z | Y for a characteristic k_z (the delta kernel of a
// categorical Z, the Gaussian of a continuous one), and for a binary Z it is 2·p₀²p₁² times
// the paper's MMD²(p(h | Z = 1), p(h | Z = 0)) (p_b = P(Z = b | Y)); for a categorical Z it
// is Σ_b p_b²‖μ_{h|b} − μ_h‖², each level's distance from the pooled kernel mean embedding.
//
// Each method estimates its three expectations with U-statistics over the stratum's rows
// (distinct rows in every pair, triple and quadruple), the pair term with the method's pair
// weight w_ij (factorsFor: ψ·ψ' for full, u·u' for ip, m·m' for reg, the paper's DR pair
// weight u·u' − v·v' + m·m' for dr, f·f' for dr-po) and the one-row factors with the
// method's per-row estimate f_i of ψ(Z_i) (ψ, Δψ/G, m, or the DR pseudo-outcome
// m + Δ/G·(ψ − m) for dr and dr-po):
//
//	Pair   = 1/(n)₂ Σ_{i≠j} k_ij w_ij
//	Triple = 1/(n)₃ Σ_{i,j,l distinct} k_ij f_i·f_l
//	Quad   = 1/(n)₄ Σ_{i,j,k,l distinct} k_ij f_k·f_l,       MMD²_joint = Pair + Quad − 2·Triple,
//
// (n)_r = n(n−1)…(n−r+1). Rows are independent, and f_i is unbiased for ψ(Z_i) given the row
// when G is right (and for m(W_i) = E[ψ(Z_i) | W_i] when m is right), so every term is
// unbiased under the same conditions as the paper's estimators: full always, ip with the
// right G, reg with the right m, dr and dr-po with either. (Centring ψ by a plug-in μ̂ from
// the same rows instead would keep an O(1/n) bias that differs between estimators.) With
// S = Σ_l f_l and R = Σ_l ‖f_l‖², inclusion–exclusion turns the triple and quadruple sums
// into pair sums of the factor columns, the ones column and r_i = ‖f_i‖²:
//
//	Σ_{i≠j} k_ij f_i·(S − f_i − f_j)                       = Σ_d S_d Q(f_d, 1) − Q(r, 1) − Σ_d Q(f_d, f_d)
//	Σ_{i≠j} k_ij (‖S − f_i − f_j‖² − (R − r_i − r_j))       = (‖S‖² − R) Q(1, 1) − 4 Σ_d S_d Q(f_d, 1) + 4 Q(r, 1) + 2 Σ_d Q(f_d, f_d)
//
// with Q(a, c) = Σ_{i≠j} a_i c_j k_ij, so one kernel pass over the design's columns serves all
// three terms, exactly as for the conditional estimand, and S, R fold into the coefficients
// (they do not depend on h). There are no normalisers and nothing to floor.

// jointStratum holds what one method's coefficients in one stratum are built from.
type jointStratum struct {
	n     float64   // rows the U-statistics run over: the stratum's rows with include = 1
	sum   []float64 // S_d = Σ_i f_d,i over those rows
	sumSq float64   // R = Σ_i ‖f_i‖²
	cols  [][]int   // the design column of term t, feature d
	signs []float64 // term t's sign
	one   int       // the column of the ones (the include indicator) on the stratum's rows
	sq    int       // the column of r_i = ‖f_i‖²
	scale float64   // Options.JointScale
}

// The slots of a joint coefficient (coef.b); weights3 holds their weights in the estimate.
const (
	slotPair, slotQuad, slotTriple = 0, 1, 2
)

// coefs returns the stratum's coefficients: each adds c·Q_pq to the term of its slot, the
// normalisation 1/(n)_r folded in.
func (j *jointStratum) coefs(s int) []coef {
	n := j.n
	s2 := j.scale / (n * (n - 1))
	s3 := s2 / (n - 2)
	s4 := s3 / (n - 3)
	var out []coef
	add := func(p, q, slot int, c float64) {
		if c != 0 {
			out = append(out, coef{p: p, q: q, s: s, b: slot, bb: -1, c: c})
		}
	}
	var norm2 float64
	for _, v := range j.sum {
		norm2 += v * v
	}
	for t, cols := range j.cols {
		for d, p := range cols {
			add(p, p, slotPair, j.signs[t]*s2)
			// Σ_d S_d Q(f_d, 1): in the triple with weight 1, in the quadruple with −4.
			add(p, j.one, slotTriple, j.signs[t]*j.sum[d]*s3)
			add(p, j.one, slotQuad, -4*j.signs[t]*j.sum[d]*s4)
			// Σ_d Q(f_d, f_d) = Σ_d Σ_tt' sign_t sign_t' Q(a_t,d, a_t',d): triple −1, quadruple +2.
			for u, other := range j.cols {
				ss := j.signs[t] * j.signs[u]
				add(p, other[d], slotTriple, -ss*s3)
				add(p, other[d], slotQuad, 2*ss*s4)
			}
		}
	}
	add(j.sq, j.one, slotTriple, -s3)
	add(j.sq, j.one, slotQuad, 4*s4)
	add(j.one, j.one, slotQuad, (norm2-j.sumSq)*s4)
	return out
}

// addJoint adds method w's coefficients and reports for the joint estimand to the design.
func (d *Design) addJoint(rows Rows, w weights, column func(key string, b, s int, values []float64) int) {
	o := d.opts
	rep := Report{FlooredG: w.flooredG}
	var cs []coef
	dim := 0 // features of ψ; none for method None, whose every stratum is empty
	if len(w.terms) > 0 {
		dim = len(w.terms[0].col)
	}
	// f_i and r_i = ‖f_i‖² on the included rows.
	f, sq := make([][]float64, dim), make([]float64, d.n)
	for b := range f {
		f[b] = make([]float64, d.n)
		for i := 0; i < d.n; i++ {
			if w.include[i] != 0 {
				f[b][i] = rowMean(w.terms, b, i)
				sq[i] += f[b][i] * f[b][i]
			}
		}
	}
	sqKey, incKey := "‖f‖²", "1"
	for _, t := range w.terms {
		sqKey += fmt.Sprintf("%+g%s", t.sign, t.key)
	}
	if w.method == method.Obs {
		incKey = "Δ"
	}
	js := make([]*jointStratum, len(d.blocks))
	empty := make([]bool, len(d.blocks))
	for s, blk := range d.blocks {
		j := &jointStratum{one: column(incKey, 0, s, w.include), sq: column(sqKey, 0, s, sq), scale: o.JointScale}
		for _, t := range w.terms {
			ids := make([]int, dim)
			for b := range ids {
				ids[b] = column(t.key, b, s, t.col[b])
			}
			j.cols = append(j.cols, ids)
			j.signs = append(j.signs, t.sign)
		}
		j.sum = make([]float64, dim)
		mass := 0.0
		for _, i := range blk.rows {
			if w.include[i] == 0 {
				continue
			}
			j.n++
			j.sumSq += sq[i]
			for b := range f {
				j.sum[b] += f[b][i]
				for _, t := range w.terms {
					mass += math.Abs(t.col[b][i])
				}
			}
		}
		js[s] = j
		sr := diagnose(rows, w, blk, nil)
		sr.All, sr.Joint = o.Unconditional, true
		if j.n < 4 || mass == 0 {
			rep.EmptyStrata = append(rep.EmptyStrata, blk.label)
			sr.Empty, empty[s] = true, true
			reason := fmt.Sprintf("empty: %v rows, want at least 4", j.n)
			if j.n >= 4 {
				reason = "empty: no row carries weight"
			}
			sr.flag(o, reason)
			rep.Strata = append(rep.Strata, sr)
			continue
		}
		sr.flag(o)
		rep.Strata = append(rep.Strata, sr)
		cs = append(cs, j.coefs(s)...)
	}
	d.per = append(d.per, methodTerms{method: w.method, coefs: cs, include: w.include, rowF: append(f, sq),
		norms: make([][2][2]float64, len(d.blocks)), empty: empty, joint: js, report: rep})
}

// JointScaleFor returns the constant 2/v² that puts the joint MMD² on the paper's scale
// (Options.JointScale): v is the mean over the Y strata of tr Cov(ψ(Z) | Y = y), the total
// variance of the features, over the rows with Z observed (Δ = 1; psi may hold NaN rows
// where Z is missing). For a binary Z with the delta kernel, tr Cov(ψ | y) = 2p(1 − p)
// (p = P(Z = 1 | Y = y)) and the joint MMD² is 2p²(1 − p)² times the paper's MMD², so the
// scaled joint MMD² equals the paper's MMD² when p(1 − p) is the same in both strata. It is
// computed once, before training, from a training split (it must not change from batch to
// batch: a scale estimated on each batch would make the estimators ratios again).
func JointScaleFor(psi *Features, y, delta []float64) (float64, error) {
	if psi == nil || psi.Len() != len(y) || len(delta) != len(y) {
		return 0, fmt.Errorf("invmmd: JointScaleFor: %d feature rows, %d labels and %d indicators", psi.Len(), len(y), len(delta))
	}
	top := 1.0 // the largest class: 1 for a binary label
	for _, v := range y {
		if v > top {
			top = v
		}
	}
	var vs []float64
	for lab := 0.0; lab <= top; lab++ {
		mean := make([]float64, psi.Dim)
		var n, ss float64
		for i := range y {
			if y[i] != lab || delta[i] != 1 {
				continue
			}
			n++
			for d, v := range psi.Row(i) { // Welford, feature by feature
				dv := v - mean[d]
				mean[d] += dv / n
				ss += dv * (v - mean[d])
			}
		}
		if n >= 2 {
			vs = append(vs, ss/(n-1))
		}
	}
	if len(vs) == 0 {
		return 0, fmt.Errorf("invmmd: JointScaleFor: no stratum of Y has two rows with Z observed")
	}
	v := 0.0
	for _, x := range vs {
		v += x / float64(len(vs))
	}
	if !(v > 0) {
		return 0, fmt.Errorf("invmmd: JointScaleFor: the features of the observed Z do not vary within a stratum of Y")
	}
	return 2 / (v * v), nil
}
