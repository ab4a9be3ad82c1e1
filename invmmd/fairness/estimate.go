package fairness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// The aggregate rows' names: Group is Difference or Ratio with Method BetweenGroups or
// ToOverall (Fairlearn's MetricFrame.difference(method=…) and ratio(method=…)); a pairwise
// difference has Group "a − b" and Method Pair; the scalar metrics have Group All.
const (
	Overall       = "overall"
	Difference    = "difference"
	Ratio         = "ratio"
	All           = "all"
	BetweenGroups = "between_groups"
	ToOverall     = "to_overall"
	Pair          = "pair"
)

// The scalar metrics (Fairlearn's functions of the same names).
const (
	DemographicParityDifference = "demographic_parity_difference"
	DemographicParityRatio      = "demographic_parity_ratio"
	EqualOpportunityDifference  = "equal_opportunity_difference"
	EqualizedOddsDifference     = "equalized_odds_difference"
	EqualizedOddsRatio          = "equalized_odds_ratio"
)

// Row is one estimate: a metric of a group (or an aggregate over groups) by one estimator,
// with its standard error and interval (NaN where none is given). A group's interval is
// pointwise; an aggregate's (between_groups, to_overall, the scalar metrics) is simultaneous
// over the contrasts it takes the maximum of, so it holds for the maximum.
type Row struct {
	Metric    string
	Group     string
	Method    string
	Estimator Estimator
	Estimate  float64
	SE        float64
	Low, High float64
}

// Options tune an audit's estimates.
type Options struct {
	Level  float64 // the intervals' confidence level; 0 means 0.95
	GFloor float64 // ip and dr divide by max(Ĝ, GFloor); 0 means 0.05
	Draws  int     // Monte Carlo draws for a simultaneous critical value; 0 means 20,000
	Seed   uint64  // seeds those draws
}

func (o Options) withDefaults() Options {
	if o.Level == 0 {
		o.Level = 0.95
	}
	if o.GFloor == 0 {
		o.GFloor = 0.05
	}
	if o.Draws == 0 {
		o.Draws = 20000
	}
	return o
}

// Result is an audit's table: every row of every estimator.
type Result struct {
	Levels     []string
	Estimators []Estimator
	Level      float64
	Rows       []Row
}

// Find returns the row of metric, group, method and estimator (false when absent).
func (r *Result) Find(metric, group, method string, e Estimator) (Row, bool) {
	for _, x := range r.Rows {
		if x.Metric == metric && x.Group == group && x.Method == method && x.Estimator == e {
			return x, true
		}
	}
	return Row{}, false
}

// Estimate computes every metric by group, overall, between groups and to the overall value,
// and the scalar metrics, by each estimator of ests.
func Estimate(d *Data, ests []Estimator, o Options) (*Result, error) {
	o = o.withDefaults()
	if !(o.Level > 0 && o.Level < 1) {
		return nil, fmt.Errorf("level %v is not in (0, 1)", o.Level)
	}
	if err := d.Check(ests); err != nil {
		return nil, err
	}
	res := &Result{Levels: d.Levels, Estimators: ests, Level: o.Level}
	z := distuv.UnitNormal.Quantile(0.5 + o.Level/2)
	k := len(d.Levels)
	for _, e := range ests {
		r, err := d.computeRatios(e, o.GFloor)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(o.Seed, uint64(e)+1))
		crit := func(cov [][]float64) float64 { return maxTCritical(cov, o.Level, o.Draws, rng) }
		for a := range k + 1 {
			name := Overall
			if a < k {
				name = d.Levels[a]
			}
			c, se := r.count[a], r.se[a]
			if e == CompleteCase && a == k {
				se = 0 // Fairlearn's overall count: the complete rows, no estimate
			}
			res.Rows = append(res.Rows, Row{Count, name, "", e, c, se, c - z*se, c + z*se})
		}
		metrics := Metrics()[1:]
		for _, m := range metrics {
			v, cov := r.values(m)
			for a := range k + 1 {
				name := Overall
				if a < k {
					name = d.Levels[a]
				}
				se := math.Sqrt(cov[a][a])
				lo, hi := logitInterval(v[a], se, z)
				res.Rows = append(res.Rows, Row{m, name, "", e, v[a], se, lo, hi})
			}
			for a := range k {
				for b := a + 1; b < k; b++ {
					c := contrastOf(v, cov, a, b)
					res.Rows = append(res.Rows, Row{m, d.Levels[a] + " − " + d.Levels[b], Pair, e, c.est, c.se, c.est - z*c.se, c.est + z*c.se})
				}
			}
			for _, agg := range []struct {
				method string
				cs     []contrast
			}{{BetweenGroups, pairs(v, cov, k)}, {ToOverall, toOverall(v, cov, k)}} {
				res.Rows = append(res.Rows, aggregate(m, Difference, agg.method, e, agg.cs, crit))
				lv, lcov := logs(v, cov)
				lc := pairs(lv, lcov, k)
				if agg.method == ToOverall {
					lc = toOverall(lv, lcov, k)
				}
				res.Rows = append(res.Rows, ratioRow(aggregate(m, Ratio, agg.method, e, lc, crit)))
			}
		}
		sel, selCov := r.values(SelectionRate)
		tpr, tprCov := r.values(TPR)
		fpr, fprCov := r.values(FPR)
		eo := append(pairs(tpr, tprCov, k), pairs(fpr, fprCov, k)...)
		eo = blockJoin(eo, len(eo)/2)
		res.Rows = append(res.Rows,
			rename(aggregate(SelectionRate, Difference, BetweenGroups, e, pairs(sel, selCov, k), crit), DemographicParityDifference),
			rename(ratioRow(aggregate(SelectionRate, Ratio, BetweenGroups, e, logPairs(sel, selCov, k), crit)), DemographicParityRatio),
			rename(aggregate(TPR, Difference, BetweenGroups, e, pairs(tpr, tprCov, k), crit), EqualOpportunityDifference),
			rename(aggregate("", Difference, BetweenGroups, e, eo, crit), EqualizedOddsDifference),
		)
		leo := blockJoin(append(logPairs(tpr, tprCov, k), logPairs(fpr, fprCov, k)...), k*(k-1)/2)
		res.Rows = append(res.Rows, rename(ratioRow(aggregate("", Ratio, BetweenGroups, e, leo, crit)), EqualizedOddsRatio))
	}
	return res, nil
}

func clip01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// logitInterval returns a rate's interval: θ ± z·se on the log-odds scale (the delta
// method: se/(θ(1 − θ))), mapped back, so that it stays inside [0, 1] and leans toward 1/2
// as a proportion's sampling distribution does near 0 or 1; the plain Wald interval,
// clipped, where θ is 0 or 1.
func logitInterval(theta, se, z float64) (float64, float64) {
	if !(theta > 0 && theta < 1) {
		return clip01(theta - z*se), clip01(theta + z*se)
	}
	l := math.Log(theta / (1 - theta))
	h := z * se / (theta * (1 - theta))
	return 1 / (1 + math.Exp(-(l - h))), 1 / (1 + math.Exp(-(l + h)))
}

func rename(r Row, metric string) Row {
	r.Metric, r.Group, r.Method = metric, All, ""
	return r
}

// contrast is a linear combination of the values, with its coefficient vector over the
// values (for the joint covariance of several contrasts).
type contrast struct {
	est, se float64
	coef    []float64
	cov     [][]float64 // the values' covariance the coefficients apply to
}

func contrastOf(v []float64, cov [][]float64, a, b int) contrast {
	coef := make([]float64, len(v))
	coef[a], coef[b] = 1, -1
	vr := cov[a][a] + cov[b][b] - 2*cov[a][b]
	return contrast{v[a] - v[b], math.Sqrt(math.Max(vr, 0)), coef, cov}
}

// pairs returns θ_a − θ_b for every pair of groups a < b.
func pairs(v []float64, cov [][]float64, k int) []contrast {
	var cs []contrast
	for a := range k {
		for b := a + 1; b < k; b++ {
			cs = append(cs, contrastOf(v, cov, a, b))
		}
	}
	return cs
}

// toOverall returns θ_a − θ_overall for every group.
func toOverall(v []float64, cov [][]float64, k int) []contrast {
	cs := make([]contrast, k)
	for a := range k {
		cs[a] = contrastOf(v, cov, a, k)
	}
	return cs
}

// logs returns log θ and its covariance by the delta method (−Inf where θ = 0).
func logs(v []float64, cov [][]float64) ([]float64, [][]float64) {
	lv := make([]float64, len(v))
	lc := make([][]float64, len(v))
	for a := range v {
		lv[a] = math.Log(v[a])
		lc[a] = make([]float64, len(v))
	}
	for a := range v {
		for b := range v {
			lc[a][b] = cov[a][b] / (v[a] * v[b])
		}
	}
	return lv, lc
}

func logPairs(v []float64, cov [][]float64, k int) []contrast {
	lv, lc := logs(v, cov)
	return pairs(lv, lc, k)
}

// blockJoin marks two families of contrasts as uncorrelated: the first n read the
// true-positive rates' covariance, the rest the false-positive rates', estimated on disjoint
// rows (Y = 1 and Y = 0), so their influence functions never overlap.
func blockJoin(cs []contrast, n int) []contrast {
	out := slices.Clone(cs)
	for j := range out {
		c := out[j]
		m := len(c.coef)
		coef := make([]float64, 2*m)
		if j < n {
			copy(coef, c.coef)
		} else {
			copy(coef[m:], c.coef)
		}
		cov := make([][]float64, 2*m)
		for a := range cov {
			cov[a] = make([]float64, 2*m)
		}
		first, second := cs[0].cov, cs[len(cs)-1].cov
		for a := range m {
			copy(cov[a][:m], first[a])
			copy(cov[m+a][m:], second[a])
		}
		out[j] = contrast{c.est, c.se, coef, cov}
	}
	return out
}

// aggregate returns the maximum of |contrast| with an interval simultaneous over every
// contrast: each contrast c_j lies in c_j ± q·se_j together with probability level, so the
// maximum of |c_j| lies between the largest lower and the largest upper end of |·|.
func aggregate(metric, group, method string, e Estimator, cs []contrast, crit func([][]float64) float64) Row {
	row := Row{Metric: metric, Group: group, Method: method, Estimator: e, Low: math.NaN(), High: math.NaN(), SE: math.NaN()}
	if len(cs) == 0 {
		return row
	}
	best := -1.0
	for _, c := range cs {
		if math.IsNaN(c.est) || math.IsInf(c.est, 0) {
			row.Estimate = math.NaN()
			return row
		}
		if math.Abs(c.est) > best {
			best, row.SE = math.Abs(c.est), c.se
		}
	}
	row.Estimate = best
	q := crit(jointCov(cs))
	row.Low, row.High = 0, 0
	for _, c := range cs {
		lo, hi := c.est-q*c.se, c.est+q*c.se
		absLo, absHi := math.Min(math.Abs(lo), math.Abs(hi)), math.Max(math.Abs(lo), math.Abs(hi))
		if lo <= 0 && hi >= 0 {
			absLo = 0
		}
		row.Low, row.High = math.Max(row.Low, absLo), math.Max(row.High, absHi)
	}
	return row
}

// ratioRow turns an aggregate of |log θ_a − log θ_b| into Fairlearn's ratio, the smaller
// over the larger: exp(−max|·|), its interval reversed. A rate of 0 makes the ratio 0 with no
// interval.
func ratioRow(r Row) Row {
	if math.IsNaN(r.Estimate) {
		r.Estimate, r.Low, r.High, r.SE = 0, math.NaN(), math.NaN(), math.NaN()
		return r
	}
	est := math.Exp(-r.Estimate)
	r.SE = est * r.SE
	r.Estimate, r.Low, r.High = est, math.Exp(-r.High), math.Exp(-r.Low)
	return r
}

// jointCov returns the covariance of the contrasts: cᵢᵀ Σ cⱼ.
func jointCov(cs []contrast) [][]float64 {
	out := make([][]float64, len(cs))
	for i := range cs {
		out[i] = make([]float64, len(cs))
		for j := range cs {
			s := 0.0
			for a, x := range cs[i].coef {
				if x == 0 {
					continue
				}
				for b, y := range cs[j].coef {
					if y != 0 {
						s += x * y * cs[i].cov[a][b]
					}
				}
			}
			out[i][j] = s
		}
	}
	return out
}

// MaxTContrasts is the most contrasts whose simultaneous critical value is drawn by Monte
// Carlo from their correlation (its cost grows with their square); beyond, Bonferroni's
// bound, valid and more conservative, is used.
const MaxTContrasts = 200

// maxTCritical returns q with P(max_j |T_j| ≤ q) = level for T normal with the correlation
// of cov, by draws Monte Carlo draws (the max-|t| method of simultaneous inference; Hothorn,
// Bretz and Westfall 2008). Contrasts of zero variance are left out; one contrast gives
// the normal quantile.
func maxTCritical(cov [][]float64, level float64, draws int, rng *rand.Rand) float64 {
	var keep []int
	for j := range cov {
		if cov[j][j] > 1e-300 {
			keep = append(keep, j)
		}
	}
	z := distuv.UnitNormal.Quantile(0.5 + level/2)
	if len(keep) <= 1 {
		return z
	}
	m := len(keep)
	if m > MaxTContrasts { // Bonferroni: valid, conservative, and linear in the contrasts
		return distuv.UnitNormal.Quantile(1 - (1-level)/(2*float64(m)))
	}
	corr := make([][]float64, m)
	for i, a := range keep {
		corr[i] = make([]float64, m)
		for j, b := range keep {
			corr[i][j] = cov[a][b] / math.Sqrt(cov[a][a]*cov[b][b])
		}
	}
	l := cholesky(corr)
	maxes := make([]float64, draws)
	e := make([]float64, m)
	for d := range maxes {
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		best := 0.0
		for i := range m {
			s := 0.0
			for j := 0; j <= i; j++ {
				s += l[i][j] * e[j]
			}
			best = math.Max(best, math.Abs(s))
		}
		maxes[d] = best
	}
	slices.Sort(maxes)
	q := maxes[int(math.Ceil(level*float64(draws)))-1]
	return math.Max(q, z)
}

// cholesky returns the lower factor of a positive semi-definite matrix, a pivot below
// 1e-12 taken as 0 (contrasts that are linear combinations of others, as the differences to
// the overall value can be).
func cholesky(a [][]float64) [][]float64 {
	n := len(a)
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
	}
	for j := range n {
		s := a[j][j]
		for k := range j {
			s -= l[j][k] * l[j][k]
		}
		if s < 1e-12 {
			continue
		}
		l[j][j] = math.Sqrt(s)
		for i := j + 1; i < n; i++ {
			t := a[i][j]
			for k := range j {
				t -= l[i][k] * l[j][k]
			}
			l[i][j] = t / l[j][j]
		}
	}
	return l
}

// String formats a row for messages.
func (r Row) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Metric, r.Group)
	if r.Method != "" {
		fmt.Fprintf(&b, " (%s)", r.Method)
	}
	fmt.Fprintf(&b, " %v: %.4f [%.4f, %.4f]", r.Estimator, r.Estimate, r.Low, r.High)
	return b.String()
}
