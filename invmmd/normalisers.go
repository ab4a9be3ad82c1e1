package invmmd

import (
	"fmt"

	"github.com/invmmd/invmmd/invmmd/method"
)

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
