package invmmd

import (
	"fmt"
	"math"
)

// The paper's estimand for a binary Z (Options.Estimand ConditionalMMD): per stratum,
//
//	MMD² = T₁₁/N₁₁ + T₀₀/N₀₀ − 2T₁₀/N₁₀,   T_bb' = Σ_{i≠j} w_ij^{bb'} k(h_i, h_j) / (n(n−1)),
//
// over the stratum's main rows, with w the method's pair weight (factorsFor) and N_bb' the
// U-statistic of the same family's per-row estimates of Z_b over the normaliser rows
// (Options.MainFraction). See Terms.

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
		if nMain < 2 || nNorm < 2 || mainMass[0] == 0 || mainMass[1] == 0 || normMass[0] == 0 || normMass[1] == 0 {
			rep.EmptyStrata = append(rep.EmptyStrata, d.blocks[s].label)
			sr.Empty = true
			sr.flag(o, emptyReason(nMain, nNorm, mainMass, normMass))
			rep.Strata = append(rep.Strata, sr)
			continue // norms[s] stays zero: the stratum is empty
		}
		var raw [2][2]float64
		sr.Mean = [2]float64{sum[0] / nNorm, sum[1] / nNorm}
		norms[s], raw = normalisers(sum, diag, nNorm, o.NormFloor, &rep)
		sr.RawN = raw
		sr.flag(o, normReasons(sr.Mean, raw, o.NormFloor)...)
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

// emptyReason says why a stratum is empty.
func emptyReason(nMain, nNorm float64, mainMass, normMass [2]float64) string {
	if nMain < 2 || nNorm < 2 {
		return fmt.Sprintf("empty: %v main and %v normaliser rows, want at least 2 of each", nMain, nNorm)
	}
	for b := 0; b < 2; b++ {
		if mainMass[b] == 0 || normMass[b] == 0 {
			return fmt.Sprintf("empty: no row carries weight for Z=%d", b)
		}
	}
	return "empty"
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
