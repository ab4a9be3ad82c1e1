package invmmd

import (
	"cmp"
	"fmt"
	"math"
)

// Estimand names what a penalty estimates within each Y stratum (or over all rows).
type Estimand int

const (
	// ConditionalMMD is the paper's estimand for a binary Z: MMD²(p(h | Z = 1), p(h | Z = 0))
	// (eq. 5), a ratio of kernel expectations to normalisers N(b, b') = P(Z = b)P(Z = b').
	ConditionalMMD Estimand = iota
	// JointMMD is the MMD² between the joint p(h, Z) and the product p(h)p(Z) with the
	// product kernel k_h·k_z (the paper's last appendix, H; also known as HSIC), for a Z of
	// any kind (FeatureMap). It has no normalisers; for a binary Z it equals
	// 2·p₀²p₁²·ConditionalMMD, p_b = P(Z = b | Y).
	JointMMD
)

var estimandNames = [...]string{"conditional", "joint"}

// String names the estimand: "conditional" or "joint".
func (e Estimand) String() string {
	if e < 0 || int(e) >= len(estimandNames) {
		return fmt.Sprintf("Estimand(%d)", int(e))
	}
	return estimandNames[e]
}

// Options are the choices the paper leaves open. The zero value gives the project's
// defaults, listed with each field.
type Options struct {
	// Bandwidth σ of the Gaussian kernel k(a, b) = exp(−‖a−b‖²/(2σ²)) on the outputs
	// ((a−b)² for a logit). 0 means 1 (or, with Median, the median heuristic).
	Bandwidth float64

	// Median takes σ by the median heuristic on the outputs instead (MedianBandwidth: on
	// every row for an estimate, on the rows of half B for the cross route of a test); then
	// Bandwidth must be 0. Training fixes σ before the first step, so it reads Bandwidth
	// only.
	Median bool `json:",omitempty"`

	// MainFraction is the share of each batch's rows that estimates the main terms T_bb';
	// the first (1 − MainFraction)·n rows estimate the normalisers N(b, b') (appendix B.1).
	// 0 means the paper's 3/4. 1 means every row serves both.
	MainFraction float64

	// GFloor is the smallest G (learned or true) used in a denominator; smaller values are
	// raised to it and counted in Report.FlooredG. 0 means 0.05.
	GFloor float64

	// NormFloor bounds the normalisers from below: an estimate of N(b, b') =
	// P(Z = b)P(Z' = b') under NormFloor² (the DR and IP estimates can be negative or 0 in
	// a small batch) is raised to it and counted in Report.FlooredNorms. 0 means 0.01.
	NormFloor float64

	// MinESS is the smallest Kish effective sample size (Σw)²/Σw² of a factor column,
	// within a stratum and for each Z value, under which the stratum is flagged unreliable
	// (StratumReport). 0 means DefaultMinESS. Why 10: a column with ESS k carries the
	// information of about k equally weighted rows, so its T and N terms are averages over
	// about k rows (T over about k² pairs of them); at k = 10 the relative standard error of
	// N = P(Z = b)² estimated from k Bernoulli rows with P(Z = b) = 1/2 is already about
	// 2·√(1/k) ≈ 0.6, and below it the ratio T/N is dominated by a handful of rows (one row
	// with ESS 1 gives T = 0 over an arbitrary N). It is the usual survey-weighting rule of
	// thumb for a cell too small to report.
	MinESS float64

	// DropUnreliable makes training leave strata flagged unreliable out of the penalty
	// and the validation objective (Design.TrainingGuard), so that a stratum resting on a
	// handful of rows or a floored normaliser cannot dominate the loss. The zero value keeps
	// them, as the paper does (its experiments are reproduced that way); training then only
	// counts them (train.History.Warning). invmmd fit turns it on.
	DropUnreliable bool

	// Estimand selects the paper's MMD between the two groups of a binary Z (the zero
	// value, ConditionalMMD) or the joint-vs-product MMD (JointMMD), which a categorical,
	// continuous or vector Z needs (Rows.Psi). The joint estimand has no normalisers, so
	// MainFraction, NormFloor and the normalisers' guards do not apply to it: every row
	// serves its three terms.
	Estimand Estimand `json:",omitempty"`

	// JointScale multiplies the joint estimand (0 means 1), a constant fixed before
	// training, so that every estimator stays unbiased for the scaled estimand and λ keeps
	// the meaning it has for the paper's MMD: JointScaleFor gives 2/v², v the within-stratum
	// variance of the features ψ(Z), with which a binary Z's joint MMD² equals the paper's
	// MMD² between the two groups (when P(Z = 1 | Y) is p in one stratum and 1 − p or p in
	// the other).
	JointScale float64 `json:",omitempty"`

	// Classes is the number K of label classes: Y takes the values 0, …, K−1 and the
	// penalty sums MMD²_y over the K strata (eq. (4) with K terms). 0 means 2, the paper's
	// binary label. It is fixed before training, not read from a batch, so that every
	// batch's design has the same K strata (a class absent from a batch is an empty stratum).
	Classes int `json:",omitempty"`

	// Unconditional selects the MMD between p(h|Z=1) and p(h|Z=0) over all rows
	// (eq. (5)) instead of the paper's penalty Σ_y MMD_y within each Y stratum
	// (eq. (4)).
	Unconditional bool

	// Sums computes the per-row kernel sums behind Estimate's estimates and standard
	// errors and the cross route of InvarianceTest. nil means AutoSums: exact up to
	// ExactPairs pairs per stratum, linear in the rows beyond (Result.Path and
	// TestResult.Path say which path ran, with its error bound). ExactSums forces the
	// quadratic reference. Training's graph does not read it.
	Sums Summer `json:"-"`
}

// Defaults used for zero fields of Options.
const (
	DefaultBandwidth    = 1.0
	DefaultMainFraction = 0.75
	DefaultGFloor       = 0.05
	DefaultNormFloor    = 0.01
	DefaultMinESS       = 10.0
)

// Resolved returns the options with every default filled in, or an error naming a field
// that is out of range.
func (o Options) Resolved() (Options, error) {
	if o.Median && o.Bandwidth != 0 {
		return o, fmt.Errorf("invmmd: Options.Median with Options.Bandwidth = %v: give one bandwidth rule", o.Bandwidth)
	}
	o.Bandwidth = cmp.Or(o.Bandwidth, DefaultBandwidth)
	o.MainFraction = cmp.Or(o.MainFraction, DefaultMainFraction)
	o.GFloor = cmp.Or(o.GFloor, DefaultGFloor)
	o.NormFloor = cmp.Or(o.NormFloor, DefaultNormFloor)
	o.MinESS = cmp.Or(o.MinESS, DefaultMinESS)
	if o.JointScale == 0 && o.Estimand == JointMMD {
		o.JointScale = 1
	}
	switch {
	case checkBandwidth(o.Bandwidth) != nil:
		return o, fmt.Errorf("invmmd: Options.Bandwidth = %v, want a finite value > 0", o.Bandwidth)
	case !(o.MainFraction > 0 && o.MainFraction <= 1):
		return o, fmt.Errorf("invmmd: Options.MainFraction = %v, want a value in (0, 1]", o.MainFraction)
	case !(o.GFloor > 0 && o.GFloor <= 1):
		return o, fmt.Errorf("invmmd: Options.GFloor = %v, want a value in (0, 1]", o.GFloor)
	case !(o.NormFloor > 0 && o.NormFloor < 1):
		return o, fmt.Errorf("invmmd: Options.NormFloor = %v, want a value in (0, 1)", o.NormFloor)
	case !(o.MinESS > 0) || math.IsInf(o.MinESS, 0):
		return o, fmt.Errorf("invmmd: Options.MinESS = %v, want a finite value > 0", o.MinESS)
	case o.JointScale < 0 || math.IsNaN(o.JointScale) || math.IsInf(o.JointScale, 0):
		return o, fmt.Errorf("invmmd: Options.JointScale = %v, want a finite value > 0 (or 0 for 1)", o.JointScale)
	case o.Classes < 0 || o.Classes == 1:
		return o, fmt.Errorf("invmmd: Options.Classes = %d, want 0 (a binary label) or at least 2", o.Classes)
	case o.Estimand != ConditionalMMD && o.Estimand != JointMMD:
		return o, fmt.Errorf("invmmd: Options.Estimand = %d, want ConditionalMMD or JointMMD", int(o.Estimand))
	}
	return o, nil
}

// NumClasses returns the number K of label classes: Classes, or 2 when it is 0.
func (o Options) NumClasses() int { return cmp.Or(o.Classes, 2) }
