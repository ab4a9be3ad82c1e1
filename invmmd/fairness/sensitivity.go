package fairness

import (
	"fmt"
	"math"
)

// Bound is a metric's range when missingness may depend on Z itself: every value the
// metric can take when the odds of observing Z differ between two groups of rows with the
// same W by at most a factor Gamma, widened by the dr estimate's sampling margins at the
// audit's level (the distances from its estimate to its interval's ends). Gamma = 1 is missingness at random (dr's interval); Gamma = +Inf assumes
// nothing (the Manski bounds: each row whose Z is hidden put in the group that pushes the
// metric up, or down).
type Bound struct {
	Metric, Group string
	Gamma         float64
	Low, High     float64
}

// DefaultGammas returns the departures from missingness at random a report shows.
func DefaultGammas() []float64 { return []float64{1, 1.5, 2, 3, math.Inf(1)} }

// Sensitivity returns the bounds of the selection, true- and false-positive rates of every
// group and of equalized_odds_difference at each Γ, from d (its m̂ is read) and res (its dr
// rows: the estimate at Γ = 1 and the sampling margin).
//
// With p = m̂(W) for a row whose Z is hidden, the odds-ratio bound Γ allows the row's chance
// of belonging to group a anywhere in [p/(p + Γ(1 − p)), Γp/(Γp + 1 − p)]; a group's rate, a
// ratio Σ v·q / Σ q over the rows of its stratum, is largest with the upper share on rows
// with v = 1 and the lower on rows with v = 0 (and the reverse for the smallest). The
// bound's distance from the same plug-in at Γ = 1 is added to dr's estimate, so that Γ = 1
// gives dr's interval; at Γ = +Inf the plug-in bounds are used as they are (no model). The
// gap's range is built alike from the outer bounds of the gap (each pair's rates at opposite
// ends of their plug-in ranges: conservative) around dr's simultaneous interval of
// equalized_odds_difference, which it equals at Γ = 1.
func Sensitivity(d *Data, res *Result, gammas []float64) ([]Bound, error) {
	if len(d.M) != d.Len() {
		return nil, fmt.Errorf("the sensitivity bounds read m̂, which the data lacks")
	}
	k := len(d.Levels)
	eo, ok := res.Find(EqualizedOddsDifference, All, "", DR)
	if !ok {
		return nil, fmt.Errorf("the audit has no dr estimate of %s", EqualizedOddsDifference)
	}
	// The plug-in ranges, without sampling margins, of the rates at Γ (at Γ = 1 each is a point).
	plugIn := func(gamma float64) (lo, hi map[string][]float64) {
		lo, hi = map[string][]float64{}, map[string][]float64{}
		for _, m := range []string{SelectionRate, TPR, FPR} {
			lo[m], hi[m] = make([]float64, k), make([]float64, k)
			for a := range k {
				lo[m][a], hi[m][a] = d.plugInBounds(rates[m].base, a, gamma)
			}
		}
		return lo, hi
	}
	// widen moves dr's interval r by the plug-in range's distance from its value at Γ = 1
	// (lo1, hi1), or at Γ = ∞ puts dr's margins around the plug-in range itself.
	widen := func(r Row, gamma, lo, hi, lo1, hi1 float64) (float64, float64) {
		if math.IsInf(gamma, 1) {
			return clip01(lo - (r.Estimate - r.Low)), clip01(hi + (r.High - r.Estimate))
		}
		return clip01(r.Low + lo - lo1), clip01(r.High + hi - hi1)
	}
	lo1, hi1 := plugIn(1)
	gapLo1, gapHi1 := outerGap(lo1, hi1)
	var out []Bound
	for _, gamma := range gammas {
		if !(gamma >= 1) {
			return nil, fmt.Errorf("Γ = %v: a departure from missingness at random is a factor of 1 or more", gamma)
		}
		lo, hi := plugIn(gamma)
		for _, m := range []string{SelectionRate, TPR, FPR} {
			for a := range k {
				dr, ok := res.Find(m, d.Levels[a], "", DR)
				if !ok {
					return nil, fmt.Errorf("the audit has no dr estimate of %s for %q", m, d.Levels[a])
				}
				l, h := widen(dr, gamma, lo[m][a], hi[m][a], lo1[m][a], hi1[m][a])
				out = append(out, Bound{m, d.Levels[a], gamma, l, h})
			}
		}
		gl, gh := outerGap(lo, hi)
		gl, gh = widen(eo, gamma, gl, gh, gapLo1, gapHi1)
		out = append(out, Bound{EqualizedOddsDifference, All, gamma, gl, gh})
	}
	return out, nil
}

// outerGap returns the smallest and largest equalized_odds_difference that rates anywhere in
// their ranges allow: each pair's rates taken at opposite ends (outer bounds, conservative).
func outerGap(lo, hi map[string][]float64) (float64, float64) {
	var gl, gh float64
	for _, m := range []string{TPR, FPR} {
		for a := range lo[m] {
			for c := a + 1; c < len(lo[m]); c++ {
				dl, dh := lo[m][a]-hi[m][c], hi[m][a]-lo[m][c]
				absL := math.Min(math.Abs(dl), math.Abs(dh))
				if dl <= 0 && dh >= 0 {
					absL = 0
				}
				gl, gh = math.Max(gl, absL), math.Max(gh, math.Max(math.Abs(dl), math.Abs(dh)))
			}
		}
	}
	return gl, gh
}

// plugInBounds returns the smallest and largest value of base b's ratio for group a when
// each hidden row's share in a lies in the Γ range around m̂ (Γ = 1: the share is m̂).
func (d *Data) plugInBounds(b, a int, gamma float64) (float64, float64) {
	var num, den, up1, up0, dn1, dn0 float64
	for i := range d.Y {
		in, v := inStratum(b, d.Y[i], d.Decision[i])
		if !in {
			continue
		}
		if z := d.Group[i]; z >= 0 {
			if z == a {
				num += v
				den++
			}
			continue
		}
		p := d.M[i][a]
		ql, qh := p/(p+gamma*(1-p)), gamma*p/(gamma*p+1-p)
		if math.IsInf(gamma, 1) {
			ql, qh = 0, 1
		}
		if math.IsNaN(ql) { // p = 0 and Γ = ∞, or p = 1
			ql = 0
		}
		if math.IsNaN(qh) {
			qh = 1
		}
		if v > 0 {
			up1 += qh
			dn1 += ql
		} else {
			up0 += ql
			dn0 += qh
		}
	}
	high := (num + up1) / (den + up1 + up0)
	low := (num + dn1) / (den + dn1 + dn0)
	if den+dn1+dn0 == 0 {
		low = 0
	}
	if den+up1+up0 == 0 {
		high = 1
	}
	return low, high
}
