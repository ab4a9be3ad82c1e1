package prop1

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/invmmd/invmmd/invmmd/method"
)

// Write prints the result as a readable table, one line per slice and method, followed by
// the verdicts (Verdicts) of each direction.
// An undefined estimate is printed as "undefined" with the reason.
func (r Result) Write(w io.Writer) error {
	c := r.Config
	vs := r.Verdicts()
	var b strings.Builder
	fmt.Fprintf(&b, "Proposition 2 (appendix D): MMD² of h* between Z = 1 and Z = 0 within slices Y = y\n")
	fmt.Fprintf(&b, "seed %d; %d repetitions of %d rows per slice; Gaussian kernel σ = %g; σ_X = %g, σ_Z = %g; soft rate %g; main fraction %g\n",
		c.Seed, c.Reps, c.N, c.Bandwidth, c.SigmaX, c.SigmaZ, c.SoftRate, c.MainFraction)
	fmt.Fprintf(&b, "estimate: mean ± standard error over repetitions; limit: large-sample value by quadrature\n")
	fmt.Fprintf(&b, "ip+, reg and dr+ are given the true G and m (here X and Y determine Z, so m = Z)\n")
	fmt.Fprintf(&b, "full is the unbiased MMD² of the two groups (its mean scatters around the limit); the others are ratios of estimates, consistent with a bias of order 1/n\n")
	for _, d := range []Direction{Direction1, Direction2} {
		if !slices.ContainsFunc(r.Slices, func(s Slice) bool { return s.Direction == d }) {
			continue
		}
		b.WriteString("\n")
		if d == Direction1 {
			b.WriteString("Direction 1: h* = X1 + X2 = 2Y + ε is independent of Z given Y; Δ = OR(1[h* < 0], 1[Z < 0]).\n")
			b.WriteString("The nuisance is the event Z ≥ 0 (column Z1 counts observed rows with Z ≥ 0).\n")
		} else {
			b.WriteString("Direction 2: h* = 1[Y − Z ≥ 0] depends on Z given Y ∈ (0, 1); Δ = h*.\n")
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "rule\ty\tobserved\tZ1 obs\tZ0 obs\tmethod\testimate\tlimit\t")
		for _, s := range r.Slices {
			if s.Direction != d {
				continue
			}
			for k, e := range s.Estimates {
				if k == 0 {
					fmt.Fprintf(tw, "%v\t%g\t%.3f\t%.1f\t%.1f\t", s.Variant, s.Y, s.Observed, s.ObservedZ1, s.ObservedZ0)
				} else {
					fmt.Fprint(tw, "\t\t\t\t\t")
				}
				limit := "undefined"
				if !math.IsNaN(e.Limit) {
					limit = fmt.Sprintf("%.4f", e.Limit)
				}
				fmt.Fprintf(tw, "%v\t%s\t%s\t\n", e.Method, e.formatEstimate(s, c.Reps), limit)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		b.WriteString("Verdict, obs against full:\n") // every slice of d has its verdict
		for _, v := range vs {
			if v.Slice.Direction == d {
				fmt.Fprintf(&b, "  %v, y = %g: %s\n", v.Slice.Variant, v.Slice.Y, v.Text)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (e Estimate) formatEstimate(s Slice, reps int) string {
	if e.Defined < 2 {
		why := "a group has no row carrying weight"
		switch {
		case s.ObservedZ1 == 0:
			why = "no observed row has Z = 1"
		case s.ObservedZ0 == 0:
			why = "no observed row has Z = 0"
		}
		return fmt.Sprintf("undefined in %d of %d repetitions (%s)", reps-e.Defined, reps, why)
	}
	str := fmt.Sprintf("%.4f ± %.4f", e.Mean, e.SE)
	if e.Defined < reps {
		str += fmt.Sprintf(" (defined in %d of %d)", e.Defined, reps)
	}
	return str
}

// Verdict says whether full and obs disagree in one slice.
type Verdict struct {
	Slice Slice
	// Diff is obs − full and Z its size in standard errors of the difference (NaN when obs
	// is undefined).
	Diff, Z float64
	// Allowance is Slice.BiasAllowance: differences below it may be the estimators'
	// small-sample bias rather than a disagreement of their limits.
	Allowance float64
	// Disagree is true when obs is undefined while full is not, or when |Diff| exceeds both
	// 3 standard errors and the allowance.
	Disagree bool
	// Text is a one-line reading of the comparison.
	Text string
}

// Verdicts compares full and obs in every slice.
func (r Result) Verdicts() []Verdict {
	var out []Verdict
	for _, s := range r.Slices {
		full, _ := s.Get(method.Full)
		obs, _ := s.Get(method.Obs)
		v := Verdict{Slice: s, Diff: math.NaN(), Z: math.NaN(), Allowance: s.BiasAllowance(r.Config.N)}
		switch {
		case full.Defined < 2:
			v.Text = "full is undefined"
		case obs.Defined < 2:
			v.Disagree = true
			v.Text = fmt.Sprintf("full = %.4f but obs is undefined: it sees no row with Z = 1 and cannot detect the dependence "+
				"(as a penalty, the empty group adds 0)", full.Mean)
			if s.ObservedZ1 > 0 {
				v.Text = fmt.Sprintf("full = %.4f but obs is undefined: obs sees no row with Z = 0", full.Mean)
			}
		default:
			v.Diff = obs.Mean - full.Mean
			v.Z = v.Diff / math.Hypot(obs.SE, full.SE)
			v.Disagree = math.Abs(v.Z) > 3 && math.Abs(v.Diff) > v.Allowance
			v.Text = verdictText(s.Direction, v)
		}
		out = append(out, v)
	}
	return out
}

// verdictText reads a comparison of obs with full as a sentence: whether they agree, by
// how much they differ, and which of the two yardsticks (3 standard errors of the
// difference, the small-sample bias allowance) decides it, so that a difference of many
// standard errors that small-sample bias or rounding explains does not read as a
// contradiction.
func verdictText(d Direction, v Verdict) string {
	diff := fmt.Sprintf("%.2g", math.Abs(v.Diff))
	if math.Abs(v.Diff) >= 0.001 {
		diff = fmt.Sprintf("%.4f", math.Abs(v.Diff))
	}
	by := fmt.Sprintf("%.1f standard errors", math.Abs(v.Z))
	switch {
	case v.Disagree && d == Direction1 && v.Diff > 0:
		return fmt.Sprintf("they disagree: obs exceeds full by %s (%s, and more than the %.4f that small-sample bias can explain), so obs calls the invariant h* dependent",
			diff, by, v.Allowance)
	case v.Disagree:
		return fmt.Sprintf("they disagree: obs − full = %.4f (%s, and more than the %.4f that small-sample bias can explain)", v.Diff, by, v.Allowance)
	case math.Abs(v.Diff) < 1e-9:
		return fmt.Sprintf("they agree: they are equal up to rounding (they differ by %s)", diff)
	case math.Abs(v.Z) > 3:
		return fmt.Sprintf("they agree: they differ by %s, which is %s but less than the %.4f that small-sample bias alone can explain",
			diff, by, v.Allowance)
	default:
		return fmt.Sprintf("they agree: they differ by %s, %s, which chance alone can explain (the cut is 3)", diff, by)
	}
}
