package owndata

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
)

// How estimates are shown: strata by the label's class names, and estimates that cannot
// be (an MMD² outside its possible range, a probability far outside [0, 1]) flagged as
// impossible rather than shown as plain numbers.

// MaxMMD2 is the largest value of a stratum's MMD² under a Gaussian kernel (whose values
// lie in [0, 1]): MMD² = E k(h, h') + E k(g, g') − 2 E k(h, g) ≤ 2, for the conditional
// estimand as for the joint one. An estimate beyond ±MaxMMD2 is not noise around a
// possible value but a sign that its normalisers or weights broke down.
const MaxMMD2 = 2.0

// ProbabilitySlack is how far outside [0, 1] a stratum's estimate of P(Z = b | Y) may lie
// before it is flagged impossible: the dr and ip estimates of a probability can stray
// outside [0, 1] by noise in a small stratum, but not by a quarter.
const ProbabilitySlack = 0.25

// flagImpossible marks unreliable, with the reason, each stratum of the results whose
// MMD² lies beyond ±MaxMMD2 (every estimate printed is unscaled, MMD2Scale) or whose
// estimate of P(Z = 1 | Y) lies more than ProbabilitySlack outside [0, 1], and returns
// one warning per result so flagged (classes name the strata of a K-class label).
func flagImpossible(res []invmmd.Result, classes []string) []string {
	var warn []string
	for k := range res {
		r := &res[k]
		var bad []string
		for s := range r.Report.Strata {
			sr := &r.Report.Strata[s]
			var why []string
			if s < len(r.Strata) && math.Abs(r.Strata[s]) > MaxMMD2 {
				why = append(why, fmt.Sprintf("its MMD² %.4g is outside the possible range [0, %g] (impossible)", r.Strata[s], MaxMMD2))
			}
			if !sr.Joint && !sr.Empty {
				if p := sr.Mean[1]; p < -ProbabilitySlack || p > 1+ProbabilitySlack {
					why = append(why, fmt.Sprintf("its estimate of P(Z=1|Y) %.3g is far outside [0, 1] (impossible)", p))
				}
			}
			if len(why) == 0 {
				continue
			}
			sr.Unreliable = true
			sr.Reasons = append(sr.Reasons, why...)
			bad = append(bad, stratumName(sr.Y, sr.All, classes)+": "+strings.Join(why, "; "))
		}
		if len(bad) > 0 {
			warn = append(warn, fmt.Sprintf("%v: impossible estimates, read as a breakdown of the estimator, not as numbers (%s): too few effective rows, or Ĝ or m̂ far from the truth", r.Method, strings.Join(bad, "; ")))
		}
	}
	return warn
}

// impossible reports whether some stratum of r was flagged impossible (flagImpossible).
func impossible(r invmmd.Result) bool { return len(impossibleStrata(r, nil)) > 0 }

// impossibleStrata returns the names of r's strata flagged impossible.
func impossibleStrata(r invmmd.Result, classes []string) []string {
	var out []string
	for _, s := range r.Report.Strata {
		for _, why := range s.Reasons {
			if strings.Contains(why, "(impossible)") {
				out = append(out, stratumName(s.Y, s.All, classes))
				break
			}
		}
	}
	return out
}

// stratumName names a stratum: "Y=0", "Y=1", for a label of K > 2 classes "Y=" and the
// class's name, or "all rows" for the unconditional estimand.
func stratumName(y float64, all bool, classes []string) string {
	if all {
		return "all rows"
	}
	if k := int(y); len(classes) > 2 && float64(k) == y && k >= 0 && k < len(classes) {
		return "Y=" + classes[k]
	}
	return fmt.Sprintf("Y=%v", y)
}

// strataList renders the Y values ys as a list of strata in words: "Y = 0 and Y = 1",
// or for K classes "Y = alpha and Y = gamma".
func strataList(ys []float64, classes []string) string {
	parts := make([]string, len(ys))
	for i, y := range ys {
		parts[i] = strings.TrimPrefix(stratumName(y, false, classes), "Y=")
	}
	return invmmd.StrataList(parts...)
}

// unreliableWarning says that method's strata ys are unreliable.
func unreliableWarning(method string, ys []float64, classes []string) string {
	what := "strata %s are unreliable (see the diagnostics); their terms rest"
	if len(ys) == 1 {
		what = "stratum %s is unreliable (see the diagnostics); its term rests"
	}
	return fmt.Sprintf("%s: "+what+" on too few effective rows or a floored normaliser", method, strataList(ys, classes))
}

// stratumRef matches a stratum "Y=k" or "Y = k" (in a list) of the estimators' text.
var stratumRef = regexp.MustCompile(`Y( = |=)(\d+)\b`)

// classText renames, in text the estimators wrote (Result.String, a stratum's
// diagnostics, a test's reasons), each stratum "Y=k" (or "Y = k" in a list) of a label of
// K > 2 classes by the classes' names; text of a binary label is returned as it is.
func classText(s string, classes []string) string {
	if len(classes) <= 2 {
		return s
	}
	return stratumRef.ReplaceAllStringFunc(s, func(m string) string {
		sub := stratumRef.FindStringSubmatch(m)
		k, _ := strconv.Atoi(sub[2])
		if k < 0 || k >= len(classes) {
			return m
		}
		return "Y" + sub[1] + classes[k]
	})
}

// valueText renders an estimate with its standard error, marking an impossible one.
func estimateText(v, se float64, bad bool) string {
	if math.IsNaN(se) { // a standard error not printed (Provenance.SEWithheld)
		if bad {
			return fmt.Sprintf("IMPOSSIBLE (%.5g)", v)
		}
		return fmt.Sprintf("%.5g (no SE)", v)
	}
	if bad {
		return fmt.Sprintf("IMPOSSIBLE (%.5g ± %.2g)", v, se)
	}
	return fmt.Sprintf("%.5g ± %.2g", v, se)
}
