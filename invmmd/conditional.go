package invmmd

import (
	"fmt"
	"math"

	"github.com/invmmd/invmmd/invmmd/method"
)

// The paper's estimand for a binary Z (Options.Estimand ConditionalMMD): per stratum,
//
//	MMD² = T₁₁/N₁₁ + T₀₀/N₀₀ − 2T₁₀/N₁₀,   T_bb' = Σ_{i≠j} w_ij^{bb'} k(h_i, h_j) / (n(n−1)),
//
// over the stratum's main rows, with w the method's pair weight (factorsFor) and N_bb' the
// U-statistic of the same family's per-row estimates of Z_b over the normaliser rows
// (Options.MainFraction), or estimated once on many rows for every batch (Normalisers). See
// Terms.

// addConditional adds method w's coefficients, normalisers and reports for the paper's
// estimand to the design.
func (d *Design) addConditional(rows Rows, w weights, column func(key string, b, s int, values []float64) int) {
	o := d.opts
	rep := Report{FlooredG: w.flooredG}
	var cs []coef
	norms := make([][2][2]float64, len(d.blocks))
	ids := make([][2]int, len(w.terms))
	mass := func(rows []int) (m [2]float64) { // Σ_i |col_b,i| over the terms, per b
		for _, i := range rows {
			for b := 0; b < 2; b++ {
				for _, t := range w.terms {
					m[b] += math.Abs(t.col[b][i])
				}
			}
		}
		return m
	}
	for s := range d.blocks {
		// Columns exist whether or not the stratum turns out empty, so that the design's
		// shape does not depend on the batch's content.
		for k, t := range w.terms {
			ids[k] = [2]int{column(t.key, 0, s, t.col[0]), column(t.key, 1, s, t.col[1])}
		}
		// Normaliser pieces: Σ_i f_b,i and Σ_i f_b,i f_b',i over the normaliser rows (a row
		// that include leaves out has f = 0: obs's ΔZ).
		nNorm, sum, diag := normSums(w.terms, w.include, d.normRows[s])
		nMain := 0.0
		for _, i := range d.blocks[s].rows {
			nMain += w.include[i]
		}
		mainMass, normMass := mass(d.blocks[s].rows), mass(d.normRows[s])
		sr := diagnose(rows, w, d.blocks[s], d.normRows[s])
		sr.All = o.Unconditional
		if why := emptyReason(nMain, nNorm, mainMass, normMass); why != "" {
			rep.EmptyStrata = append(rep.EmptyStrata, d.blocks[s].label)
			sr.Empty = true
			sr.flag(o, why)
			rep.Strata = append(rep.Strata, sr)
			continue // norms[s] stays zero: the stratum is empty
		}
		sr.Mean = [2]float64{sum[0] / nNorm, sum[1] / nNorm}
		norms[s], sr.RawN = normalisers(sum, diag, nNorm, o.NormFloor, &rep)
		sr.flag(o, normReasons(sr.Mean, sr.RawN, o.NormFloor)...)
		rep.Strata = append(rep.Strata, sr)
		// T_bb' = Σ_k sign_k Q[k_b, k_b'] / (n(n−1)), over the main rows.
		u := 1 / (nMain * (nMain - 1))
		for k, t := range w.terms {
			p0, p1 := ids[k][0], ids[k][1]
			a := t.sign * u
			cs = append(cs, coef{p1, p1, s, 1, 1, a}, coef{p0, p0, s, 0, 0, a}, coef{p1, p0, s, 1, 0, a})
		}
	}
	// The method's factors on the design's columns (one array per key in every stratum),
	// so that the factors' own copies of shared columns are not kept.
	terms := make([]factor, len(w.terms))
	for k, t := range w.terms {
		terms[k] = factor{key: t.key, sign: t.sign, col: [][]float64{d.cols[ids[k][0]], d.cols[ids[k][1]]}}
	}
	empty := make([]bool, len(d.blocks))
	for s := range empty {
		empty[s] = norms[s][0][0] == 0
	}
	d.per = append(d.per, methodTerms{method: w.method, coefs: cs, include: w.include, terms: terms, norms: norms, empty: empty, report: rep})
}

// normalisers returns N(b, b') for b, b' ∈ {(1,1), (0,0), (1,0)} from the per-row
// estimates f of Z_b on n rows, given their sums and the sums of their products: the
// U-statistic Σ_{i≠j} f_b,i f_b',j / (n(n−1)), floored at floor². When a mean estimate of
// P(Z = b) is itself below floor (DR and IP estimates can be negative), the product of
// the floored means is used instead, since the U-statistic of two negative means would be
// positive. Each floor is counted in rep. raw holds the U-statistics before any floor.
func normalisers(sum [2]float64, diag [2][2]float64, n, floor float64, rep *Report) (norm, raw [2][2]float64) {
	mean := [2]float64{sum[0] / n, sum[1] / n}
	for _, bb := range pairs {
		b, c := bb[0], bb[1]
		raw[b][c] = (sum[b]*sum[c] - diag[b][c]) / (n * (n - 1))
	}
	if mean[0] < floor || mean[1] < floor {
		for b := range mean {
			if mean[b] < floor {
				mean[b] = floor
				rep.FlooredNorms++
			}
		}
		for _, bb := range pairs {
			norm[bb[0]][bb[1]] = mean[bb[0]] * mean[bb[1]]
		}
		return norm, raw
	}
	for _, bb := range pairs {
		b, c := bb[0], bb[1]
		if norm[b][c] = raw[b][c]; norm[b][c] < floor*floor {
			norm[b][c] = floor * floor
			rep.FlooredNorms++
		}
	}
	return norm, raw
}

// emptyReason says why a stratum is empty: fewer than 2 main or normaliser rows, or no
// weight for some Z value b in either part; "" when it is not.
func emptyReason(nMain, nNorm float64, mainMass, normMass [2]float64) string {
	if nMain < 2 || nNorm < 2 {
		return fmt.Sprintf("empty: %v main and %v normaliser rows, want at least 2 of each", nMain, nNorm)
	}
	for b := 0; b < 2; b++ {
		if mainMass[b] == 0 || normMass[b] == 0 {
			return fmt.Sprintf("empty: no row carries weight for Z=%d", b)
		}
	}
	return ""
}

// normReasons says which normalisers were not clearly positive: a mean estimate of
// P(Z = b) below the floor, or an N(b, b') below floor², each of which was floored.
func normReasons(mean [2]float64, raw [2][2]float64, floor float64) []string {
	var out []string
	for b := 0; b < 2; b++ {
		if mean[b] < floor {
			out = append(out, fmt.Sprintf("estimate of P(Z=%d|Y) is %.4g < %g (normalisers floored)", b, mean[b], floor))
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, bb := range pairs {
		if v := raw[bb[0]][bb[1]]; v < floor*floor {
			out = append(out, fmt.Sprintf("normaliser N%d%d = %.4g is not clearly positive (floored to %g)", bb[0], bb[1], v, floor*floor))
		}
	}
	return out
}

// Normalisers are one method's estimates of the normalisers N(b, b') = P(Z = b | y)·
// P(Z = b' | y) of the paper's MMD² (the T/N ratios of eq. (5)), per Y stratum, made once
// on many rows (NormalisersOf) and given to the designs of small batches
// (Design.UseNormalisers) in place of each batch's own estimate.
//
// Why: the normalisers do not depend on h, but the paper estimates them on a quarter of
// each batch (appendix B.1). A ratio T/N̂ with N̂ from a few hundred rows is biased upward
// (E[1/N̂] > 1/N) and heavy-tailed: where a batch's quarter holds few rows of a rare
// (Y, Z) cell, one stratum's estimate jumps to 10–20 (the simulation's P(Z = 1 | Y = 0) is
// 0.1), and at λ = 5 those batches and the upward bias on the rare cell steer h. Estimated
// on a whole training set, N̂ is all but exact and every batch's estimate keeps only the
// noise of its main terms.
type Normalisers struct {
	Method method.Method
	// N holds N(b, b') per stratum, as Terms.N: N[s][1][1], N[s][0][0], N[s][1][0]; a
	// stratum whose N[s][0][0] is 0 was empty on the rows they were estimated on.
	N [][2][2]float64
	// Reports is the guard report of the estimate (floored normalisers are counted there).
	Report Report
}

// NormalisersOf estimates method m's normalisers on every row of rows (MainFraction 1,
// whatever opts says), with the method's own per-row estimates of Z (eq. (3) for dr) and
// opts' floors. It needs the conditional estimand: the joint one has no normalisers.
func NormalisersOf(rows Rows, opts Options, m method.Method) (Normalisers, error) {
	o := opts
	o.MainFraction = 1
	if o.Estimand != ConditionalMMD {
		return Normalisers{}, fmt.Errorf("invmmd: NormalisersOf: the %v estimand has no normalisers", o.Estimand)
	}
	if !m.Penalised() {
		return Normalisers{}, fmt.Errorf("invmmd: NormalisersOf: method %v has no penalty", m)
	}
	d, err := NewDesign(rows, o, m)
	if err != nil {
		return Normalisers{}, fmt.Errorf("invmmd: NormalisersOf %v: %w", m, err)
	}
	return Normalisers{Method: m, N: append([][2][2]float64(nil), d.per[0].norms...), Report: d.per[0].report}, nil
}

// UseNormalisers replaces the normalisers of n.Method in the design by n's, in every
// stratum that is not empty in the batch; the batch's normaliser rows are then unused by
// that method. It fails when the design lacks the method or the strata differ, or when n
// has a stratum empty that the batch has not.
func (d *Design) UseNormalisers(n Normalisers) error {
	found := false
	for k, t := range d.per {
		if t.method != n.Method {
			continue
		}
		found = true
		if len(n.N) != len(d.blocks) {
			return fmt.Errorf("invmmd: UseNormalisers: %d strata, the design has %d", len(n.N), len(d.blocks))
		}
		if d.opts.Estimand != ConditionalMMD {
			return fmt.Errorf("invmmd: UseNormalisers: the %v estimand has no normalisers", d.opts.Estimand)
		}
		for s := range d.blocks {
			if d.per[k].empty[s] {
				continue
			}
			if n.N[s][0][0] == 0 {
				return fmt.Errorf("invmmd: UseNormalisers: stratum Y=%v was empty where the normalisers were estimated", d.blocks[s].label)
			}
			d.per[k].norms[s] = n.N[s]
		}
	}
	if !found {
		return fmt.Errorf("invmmd: UseNormalisers: the design has no method %v", n.Method)
	}
	return nil
}
