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
			lv, lcov := logs(v, cov)
			for _, method := range []string{BetweenGroups, ToOverall} {
				cs, lcs := pairs(v, cov, 0, k), pairs(lv, lcov, 0, k)
				if method == ToOverall {
					cs, lcs = toOverall(v, cov, k), toOverall(lv, lcov, k)
				}
				res.Rows = append(res.Rows, aggregate(m, Difference, method, e, cs, cov, crit),
					ratioRow(aggregate(m, Ratio, method, e, lcs, lcov, crit)))
			}
		}
		// The scalar gaps: three are rows above under Fairlearn's names; equalized odds
		// takes the true- and false-positive rates' pairs together.
		for _, alias := range []struct{ metric, group, name string }{
			{SelectionRate, Difference, DemographicParityDifference},
			{SelectionRate, Ratio, DemographicParityRatio},
			{TPR, Difference, EqualOpportunityDifference},
		} {
			row, _ := res.Find(alias.metric, alias.group, BetweenGroups, e)
			res.Rows = append(res.Rows, rename(row, alias.name))
		}
		tpr, tprCov := r.values(TPR)
		fpr, fprCov := r.values(FPR)
		v, cov := joined(tpr, tprCov, fpr, fprCov)
		lv, lcov := logs(v, cov)
		eo := append(pairs(v, cov, 0, k), pairs(v, cov, k+1, k)...)
		leo := append(pairs(lv, lcov, 0, k), pairs(lv, lcov, k+1, k)...)
		res.Rows = append(res.Rows,
			rename(aggregate("", Difference, BetweenGroups, e, eo, cov, crit), EqualizedOddsDifference),
			rename(ratioRow(aggregate("", Ratio, BetweenGroups, e, leo, lcov, crit)), EqualizedOddsRatio))
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

// contrast is a linear combination of the values, with its coefficient vector over them
// (for the joint covariance of several contrasts of the same values).
type contrast struct {
	est, se float64
	coef    []float64
}

func contrastOf(v []float64, cov [][]float64, a, b int) contrast {
	coef := make([]float64, len(v))
	coef[a], coef[b] = 1, -1
	vr := cov[a][a] + cov[b][b] - 2*cov[a][b]
	return contrast{v[a] - v[b], math.Sqrt(math.Max(vr, 0)), coef}
}

// pairs returns θ_a − θ_b for every pair of the k groups whose values start at off.
func pairs(v []float64, cov [][]float64, off, k int) []contrast {
	var cs []contrast
	for a := range k {
		for b := a + 1; b < k; b++ {
			cs = append(cs, contrastOf(v, cov, off+a, off+b))
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

// joined returns two metrics' values side by side and their covariance, block-diagonal:
// the true- and false-positive rates are estimated on disjoint rows (Y = 1 and Y = 0), so
// their influence functions never overlap.
func joined(v1 []float64, c1 [][]float64, v2 []float64, c2 [][]float64) ([]float64, [][]float64) {
	m := len(v1)
	v := append(slices.Clone(v1), v2...)
	cov := make([][]float64, 2*m)
	for a := range cov {
		cov[a] = make([]float64, 2*m)
	}
	for a := range m {
		copy(cov[a][:m], c1[a])
		copy(cov[m+a][m:], c2[a])
	}
	return v, cov
}

// aggregate returns the maximum of |contrast| with an interval simultaneous over every
// contrast: each contrast c_j lies in c_j ± q·se_j together with probability level, so the
// maximum of |c_j| lies between the largest lower and the largest upper end of |·|.
func aggregate(metric, group, method string, e Estimator, cs []contrast, cov [][]float64, crit func([][]float64) float64) Row {
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
	q := crit(jointCov(cs, cov))
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

// jointCov returns the covariance of the contrasts of values whose covariance is cov: cᵢᵀ Σ cⱼ.
func jointCov(cs []contrast, cov [][]float64) [][]float64 {
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
						s += x * y * cov[a][b]
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
