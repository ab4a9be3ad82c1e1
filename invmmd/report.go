package invmmd

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
)

// Report counts what the guards did while one method's penalty was estimated on a batch,
// and says, stratum by stratum, whether the estimate can be trusted.
type Report struct {
	// FlooredG counts Δ = 1 rows whose G was below Options.GFloor and was raised to it.
	FlooredG int
	// FlooredNorms counts normaliser estimates N(b, b') below Options.NormFloor² that
	// were raised to it (the conditional estimand only: the joint one has no normalisers).
	FlooredNorms int
	// EmptyStrata lists the Y values (0 for the unconditional penalty) of strata that
	// contributed 0: for the conditional estimand because, for some Z value b, no row of the
	// stratum's main or normaliser part carried weight for b, or the main part had fewer
	// than two rows; for the joint estimand because the stratum had fewer than four rows or
	// none carried weight.
	EmptyStrata []float64
	// Strata holds the diagnostics of each stratum, in the order of Result.Strata.
	Strata []StratumReport
}

// StratumReport is what one stratum's estimate rests on, computed from the same factor
// columns as the estimate (factorsFor), and whether it is reliable.
type StratumReport struct {
	Y    float64 // the stratum's Y value (0 when unconditional)
	All  bool    // the unconditional penalty's one stratum: every row, whatever Y
	Rows int     // rows of the stratum in the batch
	// Observed counts the stratum's rows with Z observed (Δ = 1): per level b for a binary
	// or categorical Z (Observed[b] rows with Z = b), else one count.
	Observed []int
	// Levels names the entries of Observed and of each ColumnESS.ESS ("Z=0", "Z=1", …;
	// one entry "Z" for a continuous or vector Z).
	Levels []string
	// Columns holds, for each factor column of the method, its Kish effective sample
	// size (Σw)²/Σw² over the stratum's main rows: per level of a binary or categorical Z
	// (the column for Z = b), else of the term's row weight (Δ/G for the inverse-weighted
	// terms, Δ for obs, 1 otherwise).
	Columns []ColumnESS
	// Mean is the normaliser rows' mean of the per-row estimate of Z_b: the method's
	// estimate of P(Z = b | Y = y) before any floor (conditional estimand only).
	Mean [2]float64
	// RawN holds N(b, b') before the floor Options.NormFloor² (the floored value is in
	// Terms.N); N[0][1] is left 0 (conditional estimand only).
	RawN [2][2]float64
	// Joint marks a stratum of the joint estimand (no normalisers: Mean and RawN unused).
	Joint bool
	// Empty: the stratum contributed 0 (see Report.EmptyStrata).
	Empty bool
	// Unreliable: the stratum is empty, or a normaliser was not clearly positive (it was
	// floored), or a factor column's ESS for some level is below Options.MinESS.
	Unreliable bool
	// Reasons says why the stratum is unreliable, one phrase per cause.
	Reasons []string
	// Dropped: Design.DropUnreliable removed the stratum from the penalty.
	Dropped bool
}

// ColumnESS is the Kish effective sample size of one factor column, per level of Z
// (StratumReport.Levels).
type ColumnESS struct {
	Factor string // the column's name, e.g. "ΔZ/G", "m", "f"
	ESS    []float64
}

// Unreliable returns the Y values of the strata flagged unreliable.
func (r Report) Unreliable() []float64 {
	var out []float64
	for _, s := range r.Strata {
		if s.Unreliable {
			out = append(out, s.Y)
		}
	}
	return out
}

// String renders the report in a few lines: guard counts, then one line per stratum.
func (r Report) String() string {
	var b strings.Builder
	if len(r.Strata) > 0 && r.Strata[0].Joint {
		fmt.Fprintf(&b, "%d row(s) with G raised to the floor (joint estimand: no normalisers)", r.FlooredG)
	} else {
		fmt.Fprintf(&b, "%d row(s) with G raised to the floor, %d normaliser(s) raised to the floor", r.FlooredG, r.FlooredNorms)
	}
	for _, s := range r.Strata {
		b.WriteString("\n  ")
		b.WriteString(s.String())
	}
	return b.String()
}

// StrataList names the strata of the label values ys (as printed: "0", or a class's
// name) in words: "Y = 1", "Y = 0 and Y = 1", "Y = A, Y = N and Y = Y"; "" for none.
func StrataList(ys ...string) string {
	parts := make([]string, len(ys))
	for i, y := range ys {
		parts[i] = "Y = " + y
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Name names the stratum: "Y=0", "Y=1", or "all rows" for the unconditional penalty.
func (s StratumReport) Name() string {
	if s.All {
		return "all rows"
	}
	return fmt.Sprintf("Y=%v", s.Y)
}

// String renders the stratum's diagnostics on one line.
func (s StratumReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d rows, observed", s.Name(), s.Rows)
	for k, c := range s.Observed {
		if k > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s: %d", s.Levels[k], c)
	}
	for _, c := range s.Columns {
		if len(c.ESS) == 1 {
			fmt.Fprintf(&b, "; ESS %s = %.1f", c.Factor, c.ESS[0])
			continue
		}
		vals := make([]string, len(c.ESS))
		for k, e := range c.ESS {
			vals[k] = fmt.Sprintf("%.1f", e)
		}
		fmt.Fprintf(&b, "; ESS %s (%s) = (%s)", c.Factor, strings.Join(s.Levels, ", "), strings.Join(vals, ", "))
	}
	if !s.Empty && !s.Joint {
		fmt.Fprintf(&b, "; P(Z=1|Y) est. %.3f; N11 %.4g, N00 %.4g, N10 %.4g", s.Mean[1], s.RawN[1][1], s.RawN[0][0], s.RawN[1][0])
	}
	switch {
	case s.Dropped:
		fmt.Fprintf(&b, "; UNRELIABLE, dropped from the penalty: %s", strings.Join(s.Reasons, "; "))
	case s.Unreliable:
		fmt.Fprintf(&b, "; UNRELIABLE: %s", strings.Join(s.Reasons, "; "))
	default:
		b.WriteString("; reliable")
	}
	return b.String()
}

// Result is one method's estimate on one batch.
type Result struct {
	Method method.Method
	// Value is the penalty: Σ_y MMD²_y (eq. 4), or the unconditional MMD².
	Value float64
	// Strata holds MMD²_y per stratum, indexed by the Y value (one entry when unconditional).
	Strata []float64
	// SE holds each stratum's jackknife standard error (Estimate only; nil from
	// Design.Evaluate), and ValueSE that of Value (the strata are disjoint rows).
	SE      []float64
	ValueSE float64
	// Path is how the kernel sums of Estimate were computed and their error bound (the
	// path furthest from exact over the strata); zero from Design.Evaluate.
	Path KernelPath
	// Terms holds the pieces of each stratum's MMD², in the order of Strata.
	Terms  []Terms
	Report Report
}

// String renders the estimate: the value, each stratum's MMD² and the Report.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: MMD² = %.6g", r.Method, r.Value)
	if r.SE != nil && !math.IsNaN(r.ValueSE) { // NaN: a standard error withheld by the caller
		fmt.Fprintf(&b, " ± %.2g", r.ValueSE)
	}
	for s, v := range r.Strata {
		name := fmt.Sprintf("Y=%v", r.Terms[s].Y)
		if s < len(r.Report.Strata) {
			name = r.Report.Strata[s].Name()
		}
		fmt.Fprintf(&b, "  [%s: %.6g", name, v)
		if r.SE != nil && !math.IsNaN(r.SE[s]) {
			fmt.Fprintf(&b, " ± %.2g", r.SE[s])
		}
		b.WriteString("]")
	}
	if u := r.Report.Unreliable(); len(u) > 0 {
		names := make([]string, len(u))
		for i, y := range u {
			names[i] = fmt.Sprint(y)
		}
		fmt.Fprintf(&b, "  UNRELIABLE in %s", StrataList(names...))
	}
	b.WriteString("\n  ")
	b.WriteString(r.Report.String())
	return b.String()
}

// Terms are the pieces of one stratum's estimate.
//
// Conditional estimand: MMD² = T₁₁/N₁₁ + T₀₀/N₀₀ − 2T₁₀/N₁₀ (eqs. 5 and 6). T_bb' estimates
// E[k(h, h') Z_b Z'_b'] and N_bb' estimates N(b, b') = P(Z = b) P(Z' = b') within the
// stratum, both as U-statistics over pairs i ≠ j: N_bb' = Σ_{i≠j} f_b,i f_b',j / (n(n−1)) with
// f the method's per-row estimate of Z_b (appendix E). Each is unbiased when its auxiliary
// models are right; their ratio is consistent (section 3.3), and for Full it is exactly the
// usual unbiased MMD² between the two groups. (The product of two sample means as N_bb'
// would keep the i = j terms that T leaves out, biasing each within-group term by about
// −k̄/n_b.)
//
// Joint estimand (Joint): MMD² = Pair + Quad − 2·Triple, the three U-statistics of JointMMD.
type Terms struct {
	Y     float64       // the stratum's Y value (0 when unconditional)
	T     [2][2]float64 // T[b][b']; T[0][1] is left 0 (the MMD uses T[1][0])
	N     [2][2]float64 // N[b][b'] after the floor Options.NormFloor²; N[0][1] is left 0
	Joint bool          // the joint estimand: Pair, Triple and Quad hold the terms, T and N are unused
	// Pair estimates E[k_h(h, h') k_z(Z, Z')], Quad E[k_h(h, h')]·E[k_z(Z, Z')] and Triple
	// E[k_h(h₁, h₂) k_z(Z₁, Z₃)] (joint estimand).
	Pair, Triple, Quad float64
	Empty              bool // the stratum contributed 0 (see Report.EmptyStrata)
}

// MMD returns the stratum's MMD² from its terms (0 when Empty).
func (t Terms) MMD() float64 {
	switch {
	case t.Empty:
		return 0
	case t.Joint:
		return t.Pair + t.Quad - 2*t.Triple
	}
	return t.T[1][1]/t.N[1][1] + t.T[0][0]/t.N[0][0] - 2*t.T[1][0]/t.N[1][0]
}

// diagnose returns the diagnostics of one stratum that do not depend on its normalisers:
// its rows, its observed rows per level of Z and each factor column's Kish ESS over its
// main rows. They come from w, the same factor columns that make the estimate.
func diagnose(rows Rows, w weights, blk block, normRows []int) StratumReport {
	sr := StratumReport{Y: blk.label}
	ind, levels := rows.indicator()
	if ind {
		sr.Observed = make([]int, levels)
		for b := 0; b < levels; b++ { // "Z=b" when the level has no name (a binary Z: Psi nil)
			name := strconv.Itoa(b)
			if rows.Psi != nil && b < len(rows.Psi.Levels) && rows.Psi.Levels[b] != "" {
				name = rows.Psi.Levels[b]
			}
			sr.Levels = append(sr.Levels, "Z="+name)
		}
	} else {
		sr.Observed, sr.Levels = make([]int, 1), []string{"Z"}
	}
	level := func(i int) int { // the level of an observed row's Z
		switch {
		case !ind:
			return 0
		case rows.Psi == nil:
			return int(rows.Z[i])
		}
		return max(0, slices.Index(rows.Psi.Row(i), 1)) // the one-hot's level
	}
	seen := make([]bool, rows.Len())
	for _, set := range [][]int{blk.rows, normRows} {
		for _, i := range set {
			if seen[i] {
				continue
			}
			seen[i] = true
			sr.Rows++
			if rows.Delta[i] == 1 {
				sr.Observed[level(i)]++
			}
		}
	}
	kish := func(x func(i int) float64) float64 {
		var s, s2 float64
		for _, i := range blk.rows {
			v := x(i)
			s += v
			s2 += v * v
		}
		if s2 > 0 {
			return s * s / s2
		}
		return 0
	}
	for _, t := range w.terms {
		c := ColumnESS{Factor: t.key}
		if ind {
			for b := 0; b < levels; b++ {
				c.ESS = append(c.ESS, kish(func(i int) float64 { return t.col[b][i] }))
			}
		} else {
			c.ESS = []float64{kish(func(i int) float64 { return t.weight[i] })}
		}
		sr.Columns = append(sr.Columns, c)
	}
	return sr
}

// belowText renders e, which is below min, with one decimal, or with as many digits as
// it takes not to read as min or more ("9.96", not "10.0 < 10").
func belowText(e, min float64) string {
	for d := 1; d <= 15; d++ {
		s := strconv.FormatFloat(e, 'f', d, 64)
		if v, err := strconv.ParseFloat(s, 64); err == nil && v < min {
			return s
		}
	}
	return strconv.FormatFloat(e, 'g', -1, 64)
}

// flag marks the stratum unreliable for each reason given, and for each factor column
// whose ESS is below o.MinESS.
func (sr *StratumReport) flag(o Options, reasons ...string) {
	for _, c := range sr.Columns {
		for b, e := range c.ESS {
			if e < o.MinESS {
				reasons = append(reasons, fmt.Sprintf("ESS of %s for %s is %s < %g", c.Factor, sr.Levels[b], belowText(e, o.MinESS), o.MinESS))
			}
		}
	}
	if len(reasons) > 0 {
		sr.Unreliable = true
		sr.Reasons = append(sr.Reasons, reasons...)
	}
}
