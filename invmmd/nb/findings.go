package nb

import (
	"fmt"
	"math"
	"slices"
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
// finding says whether this run agrees. Its String is one plain sentence that can be read
// aloud: the claim, then whether it holds on this run, then the numbers.
type Finding struct {
	// Claim is the statement as a sentence, e.g. "in test accuracy, none is below obs,
	// which is below each of full, dr and reg".
	Claim string
	// Checked is false when the run lacks a number the claim needs (a method the quick
	// sweep does not train): Evidence then says which.
	Checked bool
	// Holds says whether the run's numbers show the claim.
	Holds bool
	// Evidence is the numbers behind the verdict, in words: the values in the claim's order
	// when it holds ("0.562 against 0.682", or "none at 0.660; obs at 0.780, full at 0.810" when a
	// group holds several), what breaks it when it does not ("obs at 0.815 is not below
	// full at 0.810").
	Evidence string
}

// String reads "CLAIM: this holds (EVIDENCE).", "CLAIM: this does NOT hold here
// (EVIDENCE)." or "CLAIM: not checked (EVIDENCE).".
func (f Finding) String() string {
	switch {
	case !f.Checked:
		return fmt.Sprintf("%s: not checked (%s).", f.Claim, f.Evidence)
	case f.Holds:
		return fmt.Sprintf("%s: this holds (%s).", f.Claim, f.Evidence)
	default:
		return fmt.Sprintf("%s: this does NOT hold here (%s).", f.Claim, f.Evidence)
	}
}

// As replaces the claim's sentence with one that says what the check means in the
// notebook's words (e.g. "obs and ip do no better than always answering \"approved\""),
// keeping the verdict and the numbers.
func (f Finding) As(claim string) Finding {
	f.Claim = claim
	return f
}

// Check prints each finding on a line of its own, under a heading that says whose
// findings they are (e.g. "The paper's findings, on this run"), and, when any does not
// hold, a last line that says how many.
func Check(heading string, findings ...Finding) {
	fmt.Print(CheckText(heading, findings...))
}

// CheckText is what Check prints.
func CheckText(heading string, findings ...Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", heading)
	failed := 0
	for _, f := range findings {
		fmt.Fprintf(&b, "  - %s\n", f)
		if f.Checked && !f.Holds {
			failed++
		}
	}
	switch {
	case failed == 1 && len(findings) == 1:
		b.WriteString("  This check fails here.\n")
	case failed == 1:
		fmt.Fprintf(&b, "  One of these %d checks fails here.\n", len(findings))
	case failed > 1:
		fmt.Fprintf(&b, "  %s of these %d checks fail here.\n", count(failed), len(findings))
	}
	return b.String()
}

// Ordered checks that tiers increase strictly: every value of each tier is below every
// value of the next. The claim reads "in WHAT, a is below b, which is below each of c and
// d"; a bare bound (a V without a name) first reads as "each of b and c is above 0.07".
func Ordered(what string, tiers ...[]V) Finding {
	f := Finding{Claim: orderClaim(tiers)}
	if what != "" {
		f.Claim = "In " + what + ", " + f.Claim
	}
	if i := slices.IndexFunc(tiers, func(t []V) bool { return len(t) == 0 }); i >= 0 {
		f.Evidence = fmt.Sprintf("the %s group of values is empty in this run", ordinal(i+1))
		return f
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
			f.Evidence = fmt.Sprintf("%s is not below %s", withValue(hi), withValue(lo))
			if boundFirst(tiers) {
				f.Evidence = fmt.Sprintf("%s is not above %s", withValue(lo), withValue(hi))
			}
			return f
		}
	}
	f.Holds = true
	if boundFirst(tiers) {
		f.Evidence = chainEvidence([][]V{tiers[1], tiers[0]})
	} else {
		f.Evidence = chainEvidence(tiers)
	}
	return f
}

// boundFirst reports whether a chain is two tiers whose first is a bare bound, which the
// claim reads the other way round ("each of b and c is above 0.07").
func boundFirst(tiers [][]V) bool {
	return len(tiers) == 2 && len(tiers[0]) == 1 && tiers[0][0].Name == "" && len(tiers[1]) > 0
}

// chainEvidence gives the numbers of a chain that holds: "0.562 against 0.682" for two
// values, "0.687, then 0.774, then 0.807" for a chain of single values (the claim names
// them in that order), and each value with its name, tiers apart by semicolons, when a
// tier holds several ("none at 0.660; obs at 0.780, full at 0.810").
func chainEvidence(tiers [][]V) string {
	if !slices.ContainsFunc(tiers, func(t []V) bool { return len(t) != 1 }) { // single values
		vals := make([]string, len(tiers))
		for i, t := range tiers {
			vals[i] = Num(t[0].Value)
		}
		if len(vals) == 2 {
			return vals[0] + " against " + vals[1]
		}
		return strings.Join(vals, ", then ")
	}
	parts := make([]string, len(tiers))
	for i, t := range tiers {
		vals := make([]string, len(t))
		for j, v := range t {
			vals[j] = withValue(v)
		}
		parts[i] = strings.Join(vals, ", ")
	}
	return strings.Join(parts, "; ")
}

// orderClaim words a chain of tiers: "a is below b, which is below each of c and d"; a
// tier of several values after the first reads "each of c and d", and a chain that goes
// on after one, "each of which is below"; two tiers whose first is a bare bound read the
// other way round, "each of b and c is above 0.07".
func orderClaim(tiers [][]V) string {
	if boundFirst(tiers) {
		return subject(tiers[1]) + " is above " + Num(tiers[0][0].Value)
	}
	var b strings.Builder
	for i, t := range tiers {
		switch {
		case i == 0:
			b.WriteString(subject(t) + " is below ")
		case i+1 < len(tiers) && len(t) > 1:
			b.WriteString(subject(t) + ", each of which is below ")
		case i+1 < len(tiers):
			b.WriteString(subject(t) + ", which is below ")
		default:
			b.WriteString(subject(t))
		}
	}
	return b.String()
}

// subject names a tier in a sentence: "a", "each of a and b" (which reads as one),
// "nothing".
func subject(t []V) string {
	switch len(t) {
	case 0:
		return "nothing"
	case 1:
		return label(t[0])
	}
	return "each of " + listOf(t)
}

// listOf names values as a list: "a", "a and b", "a, b and c"; a name with a comma of its
// own is set off by semicolons, so that the list still reads as one.
func listOf(t []V) string {
	names := make([]string, len(t))
	sep := ", "
	for i, v := range t {
		names[i] = label(v)
		if strings.Contains(names[i], ",") {
			sep = "; "
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], sep) + " and " + names[len(names)-1]
}

// Less checks a < b: Ordered with one value per tier.
func Less(what string, a, b V) Finding { return Ordered(what, []V{a}, []V{b}) }

// Within checks that v is within tol of target: the claim reads "NAME is within TOL of
// TARGET", the target by its name (e.g. "the truth" or "0.9"), or "NAME equals TARGET"
// when tol is 0.
func Within(v V, target V, tol float64) Finding {
	d := math.Abs(v.Value - target.Value)
	f := Finding{Checked: true, Holds: d <= tol}
	if tol == 0 {
		f.Claim = fmt.Sprintf("%s equals %s", label(v), label(target))
		if f.Holds {
			f.Evidence = "both are " + Num(v.Value)
		} else {
			f.Evidence = fmt.Sprintf("%s, not %s", Num(v.Value), Num(target.Value))
		}
		return f
	}
	f.Claim = fmt.Sprintf("%s is within %s of %s", label(v), Num(tol), label(target))
	f.Evidence = fmt.Sprintf("%s, which is %s from %s", Num(v.Value), Num(d), Num(target.Value))
	return f
}

// Closer checks that a is closer to target than b is.
func Closer(a, b, target V) Finding {
	da, db := math.Abs(a.Value-target.Value), math.Abs(b.Value-target.Value)
	return Finding{
		Claim:    fmt.Sprintf("%s is closer to %s than %s is", a.Name, target.Name, b.Name),
		Checked:  true,
		Holds:    da < db,
		Evidence: fmt.Sprintf("%s is %s from it, %s %s", a.Name, Num(da), b.Name, Num(db)),
	}
}

// Span checks that the values lie within width of each other (largest − smallest ≤
// width): "close to each other" in numbers.
func Span(what string, vs []V, width float64) Finding {
	f := Finding{Claim: fmt.Sprintf("the %s of %s lie within %s of each other", what, listOf(vs), Num(width))}
	if len(vs) < 2 {
		f.Evidence = "this run has fewer than two of them"
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
	f.Evidence = fmt.Sprintf("from %s to %s, %s apart", withValue(lo), withValue(hi), Num(hi.Value-lo.Value))
	return f
}

// count writes a small count as a capitalised word ("Two") and a larger one in digits.
func count(n int) string {
	words := []string{"No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"}
	if n >= 0 && n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}

// ordinal writes 1, 2, 3 as "first", "second", "third", and larger numbers as "5th".
func ordinal(n int) string {
	words := []string{"", "first", "second", "third", "fourth"}
	if n > 0 && n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n) + "th"
}

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
	if names := [...]string{"train MMD", "train accuracy", "test accuracy"}; m >= 0 && int(m) < len(names) {
		return names[m]
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

// label is v's name, or its number when it has none (a bound such as 0.05).
func label(v V) string {
	if v.Name == "" {
		return Num(v.Value)
	}
	return v.Name
}

// withValue is v's name and number ("obs at 0.800", which reads aloud as it is written),
// or the number alone when v is a bare bound (no name, or a name that is the number
// itself).
func withValue(v V) string {
	if x, err := strconv.ParseFloat(v.Name, 64); v.Name == "" || err == nil && x == v.Value {
		return Num(v.Value)
	}
	return v.Name + " at " + Num(v.Value)
}
