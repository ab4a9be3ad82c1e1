package nb

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/results"
)

// V is a named number of a run: a method's mean test accuracy, an estimator's mean.
type V struct {
	Name  string
	Value float64
}

// Finding is a statement that a notebook's prose makes — usually the paper's finding — and
// whether the run's own numbers show it: a "Reading the …" cell reads the figure, the
// finding says whether this run agrees.
type Finding struct {
	// Claim is the statement, e.g. "none < obs < {full, dr, reg} in test accuracy".
	Claim string
	// Checked is false when the run lacks a number the claim needs (a method the quick
	// sweep does not train): Evidence then says which.
	Checked bool
	// Holds says whether the run's numbers show the claim.
	Holds bool
	// Evidence is the numbers behind the verdict: the chain when it holds ("0.66 < 0.78 <
	// 0.81, 0.82"), the first pair that breaks it when it does not ("obs 0.80 ≥ dr 0.79").
	Evidence string
}

// String reads "CLAIM: holds (EVIDENCE)", "CLAIM: does not hold: EVIDENCE" or "CLAIM:
// not checked (EVIDENCE)".
func (f Finding) String() string {
	switch {
	case !f.Checked:
		return fmt.Sprintf("%s: not checked (%s)", f.Claim, f.Evidence)
	case f.Holds:
		return fmt.Sprintf("%s: holds (%s)", f.Claim, f.Evidence)
	default:
		return fmt.Sprintf("%s: does not hold: %s", f.Claim, f.Evidence)
	}
}

// Check prints each finding on a line of its own, under a heading that says whose
// findings they are (e.g. "The paper's findings, on this run").
func Check(heading string, findings ...Finding) {
	fmt.Print(CheckText(heading, findings...))
}

// CheckText is what Check prints.
func CheckText(heading string, findings ...Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", heading)
	for _, f := range findings {
		fmt.Fprintf(&b, "  - %s\n", f)
	}
	return b.String()
}

// Ordered checks that tiers increase strictly: every value of each tier is below every
// value of the next. The claim reads "a < b < {c, d} in WHAT".
func Ordered(what string, tiers ...[]V) Finding {
	names := make([]string, len(tiers))
	for i, t := range tiers {
		names[i] = tierNames(t)
	}
	f := Finding{Claim: strings.Join(names, " < ")}
	if what != "" {
		f.Claim += " in " + what
	}
	for i, t := range tiers {
		if len(t) == 0 {
			f.Evidence = fmt.Sprintf("tier %d has no value in this run", i+1)
			return f
		}
	}
	f.Checked = true
	for i := 0; i+1 < len(tiers); i++ {
		hi := tiers[i][0]
		for _, v := range tiers[i] {
			if v.Value > hi.Value || math.IsNaN(v.Value) {
				hi = v
			}
		}
		lo := tiers[i+1][0]
		for _, v := range tiers[i+1] {
			if v.Value < lo.Value || math.IsNaN(v.Value) {
				lo = v
			}
		}
		if !(hi.Value < lo.Value) {
			f.Evidence = fmt.Sprintf("%s ≥ %s", withValue(hi), withValue(lo))
			return f
		}
	}
	parts := make([]string, len(tiers))
	for i, t := range tiers {
		vals := make([]string, len(t))
		for j, v := range t {
			vals[j] = Num(v.Value)
		}
		parts[i] = strings.Join(vals, ", ")
	}
	f.Holds, f.Evidence = true, strings.Join(parts, " < ")
	return f
}

// Less checks a < b: Ordered with one value per tier.
func Less(what string, a, b V) Finding { return Ordered(what, []V{a}, []V{b}) }

// Within checks that v is within tol of target: the claim reads "NAME within TOL of
// TARGET", the target by its name (e.g. "the truth" or "0.9").
func Within(v V, target V, tol float64) Finding {
	f := Finding{Claim: fmt.Sprintf("%s within %s of %s", label(v), Num(tol), label(target)), Checked: true}
	d := math.Abs(v.Value - target.Value)
	f.Holds = d <= tol
	f.Evidence = fmt.Sprintf("%s, %s from %s", Num(v.Value), Num(d), Num(target.Value))
	return f
}

// Closer checks that a is closer to target than b is.
func Closer(a, b, target V) Finding {
	da, db := math.Abs(a.Value-target.Value), math.Abs(b.Value-target.Value)
	return Finding{
		Claim:    fmt.Sprintf("%s closer to %s than %s", a.Name, target.Name, b.Name),
		Checked:  true,
		Holds:    da < db,
		Evidence: fmt.Sprintf("|%s − %s| = %s, |%s − %s| = %s", a.Name, target.Name, Num(da), b.Name, target.Name, Num(db)),
	}
}

// Span checks that the values lie within width of each other (largest − smallest ≤
// width): "close to each other" in numbers.
func Span(what string, vs []V, width float64) Finding {
	f := Finding{Claim: fmt.Sprintf("%s of %s within %s of each other", what, tierNames(vs), Num(width))}
	if len(vs) < 2 {
		f.Evidence = "fewer than two values in this run"
		return f
	}
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		if v.Value < lo.Value {
			lo = v
		}
		if v.Value > hi.Value {
			hi = v
		}
	}
	f.Checked, f.Holds = true, hi.Value-lo.Value <= width
	f.Evidence = fmt.Sprintf("from %s %s to %s %s: %s apart", lo.Name, Num(lo.Value), hi.Name, Num(hi.Value), Num(hi.Value-lo.Value))
	return f
}

// Missing is the finding of a claim this run cannot check, saying why.
func Missing(claim, why string) Finding { return Finding{Claim: claim, Evidence: why} }

// Metric picks a column of a results table.
type Metric int

// The columns of the paper's tables.
const (
	TrMMD Metric = iota // train MMD: the full estimator on the training set
	TrAcc               // train accuracy
	TeAcc               // test accuracy
)

// String names the column as the notebooks' prose does.
func (m Metric) String() string {
	switch m {
	case TrMMD:
		return "train MMD"
	case TrAcc:
		return "train accuracy"
	case TeAcc:
		return "test accuracy"
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// Of returns the mean of metric m for each named method in sums, in the order named,
// leaving out the methods that sums lacks (a quick sweep trains fewer).
func Of(sums []results.Summary, m Metric, methods ...string) []V {
	var out []V
	for _, name := range methods {
		for _, s := range sums {
			if s.Method != name {
				continue
			}
			c := s.TeAcc
			switch m {
			case TrMMD:
				c = s.TrMMD
			case TrAcc:
				c = s.TrAcc
			}
			out = append(out, V{Name: name, Value: c.Mean})
		}
	}
	return out
}

// Num formats a number for a finding: a whole number as such (a count), three decimals for
// the accuracies and MMDs the tables print, three significant digits for numbers too small
// or too large for that.
func Num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) >= 1 && math.Abs(x) < 1e6 {
		return fmt.Sprintf("%.0f", x)
	}
	if a := math.Abs(x); a != 0 && (a < 0.01 || a >= 1000) {
		return fmt.Sprintf("%.3g", x)
	}
	return fmt.Sprintf("%.3f", x)
}

// tierNames names a tier: its one value's label, or "{a, b}".
func tierNames(t []V) string {
	if len(t) == 1 {
		return label(t[0])
	}
	names := make([]string, len(t))
	for i, v := range t {
		names[i] = label(v)
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// label is v's name, or its number when it has none (a bound such as 0.05).
func label(v V) string {
	if v.Name == "" {
		return Num(v.Value)
	}
	return v.Name
}

// withValue is v's name and number ("obs 0.800"), or the number alone when v is a bare
// bound (no name, or a name that is the number itself).
func withValue(v V) string {
	if x, err := strconv.ParseFloat(v.Name, 64); v.Name == "" || err == nil && x == v.Value {
		return Num(v.Value)
	}
	return v.Name + " " + Num(v.Value)
}
