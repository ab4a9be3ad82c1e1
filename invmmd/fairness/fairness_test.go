package fairness

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// simulate draws n rows of a population with three groups whose decisions' rates differ,
// Z hidden at random given (X, Y) (mnar = 0) or more often for group 2 (log odds mnar).
// It returns the data (G and M unset), the features (2 columns) and the complete Z.
func simulate(n int, mnar float64, seed uint64) (*Data, []float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	d := &Data{Y: make([]int, n), Decision: make([]int, n), Group: make([]int, n), Levels: []string{"a", "b", "c"}}
	x := make([]float64, 2*n)
	full := make([]int, n)
	expit := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	for i := range n {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		x[2*i], x[2*i+1] = x1, x2
		s := []float64{0, 0.8 * x2, -0.7 + 0.6*x1}
		tot := 0.0
		for a := range s {
			s[a] = math.Exp(s[a])
			tot += s[a]
		}
		u, z := rng.Float64()*tot, 0
		for u > s[z] {
			u -= s[z]
			z++
		}
		full[i] = z
		if rng.Float64() < expit(0.3+x1+0.6*b2f(z == 1)) {
			d.Y[i] = 1
		}
		if x1+0.7*b2f(z == 2)+0.8*rng.NormFloat64() > 0.2 {
			d.Decision[i] = 1
		}
		d.Group[i] = z
		if rng.Float64() > expit(0.4+0.8*x2-1.2*x1-0.9*float64(d.Y[i])-mnar*b2f(z == 2)) {
			d.Group[i] = -1
		}
	}
	return d, x, full
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// plainRate is a group's rate by dr written out with loops, the reference for the ratios.
func plainRate(d *Data, e Estimator, a int, stratum func(y int) bool) float64 {
	var num, den float64
	for i := range d.Y {
		if !stratum(d.Y[i]) {
			continue
		}
		var ind, phi float64
		obs := d.Group[i] >= 0
		if d.Group[i] == a {
			ind = 1
		}
		g := math.Max(d.G[i], 0.05)
		switch e {
		case CompleteCase:
			phi = ind
		case IP:
			if obs {
				phi = ind / g
			}
		case Reg:
			phi = d.M[i][a]
		case DR:
			phi = d.M[i][a]
			if obs {
				phi += (ind - d.M[i][a]) / g
			}
		}
		num += float64(d.Decision[i]) * phi
		den += phi
	}
	return num / den
}

func withTrueNuisances(d *Data, x []float64) {
	n := d.Len()
	d.G, d.M = make([]float64, n), make([][]float64, n)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range n {
		d.G[i] = 0.2 + 0.7*rng.Float64()
		m := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		t := m[0] + m[1] + m[2]
		d.M[i] = []float64{m[0] / t, m[1] / t, m[2] / t}
	}
}

func TestRatesMatchPlainLoops(t *testing.T) {
	d, x, _ := simulate(3000, 0, 1)
	withTrueNuisances(d, x)
	res, err := Estimate(d, Estimators(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Estimators() {
		for a, level := range d.Levels {
			for _, c := range []struct {
				metric  string
				stratum func(int) bool
			}{
				{SelectionRate, func(int) bool { return true }},
				{TPR, func(y int) bool { return y == 1 }},
				{FPR, func(y int) bool { return y == 0 }},
			} {
				want := plainRate(d, e, a, c.stratum)
				got, ok := res.Find(c.metric, level, "", e)
				if !ok || math.Abs(got.Estimate-want) > 1e-12 {
					t.Errorf("%v %s %s: %v, want %v", e, c.metric, level, got.Estimate, want)
				}
			}
			tpr, _ := res.Find(TPR, level, "", e)
			fnr, _ := res.Find(FNR, level, "", e)
			if math.Abs(tpr.Estimate+fnr.Estimate-1) > 1e-12 || math.Abs(tpr.SE-fnr.SE) > 1e-15 {
				t.Errorf("%v %s: TPR %v + FNR %v ≠ 1", e, level, tpr.Estimate, fnr.Estimate)
			}
		}
	}
	// Aggregates read the group rows: equalized_odds_difference is the larger between-groups
	// difference of TPR and FPR; between_groups is max − min.
	for _, e := range Estimators() {
		var tprs, fprs []float64
		for _, level := range d.Levels {
			r, _ := res.Find(TPR, level, "", e)
			tprs = append(tprs, r.Estimate)
			r, _ = res.Find(FPR, level, "", e)
			fprs = append(fprs, r.Estimate)
		}
		spread := func(v []float64) float64 {
			lo, hi := v[0], v[0]
			for _, x := range v {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
			return hi - lo
		}
		eo, _ := res.Find(EqualizedOddsDifference, All, "", e)
		if want := math.Max(spread(tprs), spread(fprs)); math.Abs(eo.Estimate-want) > 1e-12 {
			t.Errorf("%v equalized_odds_difference %v, want %v", e, eo.Estimate, want)
		}
		if !(eo.Low <= eo.Estimate && eo.Estimate <= eo.High) {
			t.Errorf("%v equalized_odds_difference %v outside its interval [%v, %v]", e, eo.Estimate, eo.Low, eo.High)
		}
	}
}

// truth returns the population's rates by group from a large complete sample.
func truth(metric string) []float64 {
	d, _, full := simulate(1_000_000, 0, 999)
	copy(d.Group, full)
	res, err := Estimate(d, []Estimator{CompleteCase}, Options{Draws: 1000})
	if err != nil {
		panic(err)
	}
	out := make([]float64, len(d.Levels))
	for a, l := range d.Levels {
		r, _ := res.Find(metric, l, "", CompleteCase)
		out[a] = r.Estimate
	}
	return out
}

// TestCoverageCrossFitted: dr's 95% intervals, G and m cross-fitted by logistic regressions,
// cover the population's true-positive rates in [0.92, 0.98] of the replicates (with a
// Monte Carlo allowance of three binomial SEs), and complete_case's are biased.
func TestCoverageCrossFitted(t *testing.T) {
	reps := 200
	if testing.Short() {
		reps = 60
	}
	want := truth(TPR)
	var covered, ccCovered, cells int
	var ccBias float64
	for r := range reps {
		d, x, _ := simulate(3000, 0, uint64(100+r))
		nu, err := FitNuisances(context.Background(), d, x, 2, NuisanceOptions{Seed: uint64(r)})
		if err != nil {
			t.Fatal(err)
		}
		d.G, d.M = nu.G, nu.M
		res, err := Estimate(d, []Estimator{CompleteCase, DR}, Options{Draws: 500, Seed: uint64(r)})
		if err != nil {
			t.Fatal(err)
		}
		for a, l := range d.Levels {
			dr, _ := res.Find(TPR, l, "", DR)
			cc, _ := res.Find(TPR, l, "", CompleteCase)
			cells++
			if dr.Low <= want[a] && want[a] <= dr.High {
				covered++
			}
			if cc.Low <= want[a] && want[a] <= cc.High {
				ccCovered++
			}
			ccBias += math.Abs(cc.Estimate - want[a])
		}
	}
	rate := float64(covered) / float64(cells)
	tol := 3 * math.Sqrt(0.95*0.05/float64(cells))
	t.Logf("dr coverage %.3f over %d cells; complete_case %.3f, mean |bias| %.4f", rate, cells, float64(ccCovered)/float64(cells), ccBias/float64(cells))
	if rate < 0.92-tol || rate > 0.98+tol {
		t.Errorf("dr's coverage %.3f outside [0.92, 0.98] ± %.3f", rate, tol)
	}
	if float64(ccCovered)/float64(cells) > rate-0.1 {
		t.Errorf("complete_case covered %d of %d cells, expected it to miss: is the simulation's missingness informative?", ccCovered, cells)
	}
}

func TestSensitivityGammaOneIsDRAndWidens(t *testing.T) {
	d, x, _ := simulate(4000, 0, 5)
	nu, err := FitNuisances(context.Background(), d, x, 2, NuisanceOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d.G, d.M = nu.G, nu.M
	res, err := Estimate(d, Estimators(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	bounds, err := Sensitivity(d, res, DefaultGammas())
	if err != nil {
		t.Fatal(err)
	}
	width := map[float64]float64{}
	for _, b := range bounds {
		if b.Metric == TPR && b.Group == "a" {
			width[b.Gamma] = b.High - b.Low
			if b.Gamma == 1 {
				dr, _ := res.Find(TPR, "a", "", DR)
				if math.Abs(b.Low-dr.Low) > 1e-12 || math.Abs(b.High-dr.High) > 1e-12 {
					t.Errorf("Γ = 1: [%v, %v], dr's interval [%v, %v]", b.Low, b.High, dr.Low, dr.High)
				}
			}
		}
	}
	for _, b := range bounds {
		if b.Metric == EqualizedOddsDifference && b.Gamma == 1 {
			eo, _ := res.Find(EqualizedOddsDifference, All, "", DR)
			if math.Abs(b.Low-eo.Low) > 1e-12 || math.Abs(b.High-eo.High) > 1e-12 {
				t.Errorf("Γ = 1: the gap's range [%v, %v], dr's simultaneous interval [%v, %v]", b.Low, b.High, eo.Low, eo.High)
			}
		}
	}
	prev := 0.0
	for _, g := range DefaultGammas() {
		if width[g] < prev-1e-12 {
			t.Errorf("the bounds narrow from %v to %v at Γ = %v", prev, width[g], g)
		}
		prev = width[g]
	}
}

func TestBadInput(t *testing.T) {
	base := func() *Data {
		return &Data{Y: []int{0, 1, 0, 1}, Decision: []int{0, 1, 1, 0}, Group: []int{0, 0, 1, 1}, Levels: []string{"a", "b"}}
	}
	for _, c := range []struct {
		name string
		edit func(*Data)
		want string
	}{
		{"one group", func(d *Data) { d.Levels = d.Levels[:1]; d.Group = []int{0, 0, 0, 0} }, "at least two"},
		{"decision not 0/1", func(d *Data) { d.Decision[2] = 2 }, "decision 2"},
		{"one class", func(d *Data) { d.Y = []int{1, 1, 1, 1} }, "one class"},
		{"never observed", func(d *Data) { d.Group = []int{0, 0, -1, -1} }, `group "b" is never observed`},
		{"no positives", func(d *Data) { d.Group = []int{0, 0, 1, -1} }, `group "b" has no observed row with Y = 1`},
		{"missing G", func(d *Data) {}, "reads Ĝ"},
		{"too many groups", func(d *Data) {
			d.Levels = nil
			for k := range MaxGroups + 1 {
				d.Levels = append(d.Levels, fmt.Sprint(k))
			}
		}, "bin it or merge"},
	} {
		d := base()
		c.edit(d)
		_, err := Estimate(d, Estimators(), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestFitLogitStationary(t *testing.T) {
	d, x, _ := simulate(2000, 0, 9)
	rows := make([]int, d.Len())
	for i := range rows {
		rows[i] = i
	}
	labels := make([]int, d.Len())
	copy(labels, d.Y)
	m, err := FitLogit(context.Background(), x, 2, labels, rows, 2, LogitOptions{Ridge: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The gradient of the penalised log likelihood vanishes at the fit.
	var g [3]float64
	for _, i := range rows {
		p := m.Probs(x[2*i : 2*i+2])[1]
		r := p - float64(labels[i])
		g[0] += r
		g[1] += r * x[2*i]
		g[2] += r * x[2*i+1]
	}
	g[1] += m.Beta[0][1]
	g[2] += m.Beta[0][2]
	for j, v := range g {
		if math.Abs(v) > 1e-6 {
			t.Errorf("gradient[%d] = %v at the fit", j, v)
		}
	}
}

// TestMaxTCritical: one contrast gives the normal quantile; independent contrasts give the
// Šidák value; beyond MaxTContrasts, Bonferroni's.
func TestMaxTCritical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	eye := func(m int) [][]float64 {
		c := make([][]float64, m)
		for i := range c {
			c[i] = make([]float64, m)
			c[i][i] = 1
		}
		return c
	}
	if q := maxTCritical(eye(1), 0.95, 20000, rng); math.Abs(q-1.959964) > 1e-5 {
		t.Errorf("one contrast: %v, want 1.96", q)
	}
	// Šidák: P(max |T| ≤ q) = (2Φ(q) − 1)^m = 0.95 for m independent contrasts.
	if q := maxTCritical(eye(5), 0.95, 40000, rng); math.Abs(q-2.5683) > 0.03 {
		t.Errorf("five independent contrasts: %v, want about 2.568 (Šidák)", q)
	}
	if q := maxTCritical(eye(MaxTContrasts+1), 0.95, 10, rng); math.Abs(q-distuv.UnitNormal.Quantile(1-0.05/(2*float64(MaxTContrasts+1)))) > 1e-12 {
		t.Errorf("beyond MaxTContrasts: %v, want Bonferroni's", q)
	}
}
