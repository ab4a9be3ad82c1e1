package invmmd

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// naiveJoint computes a method's joint estimate by enumerating every pair, triple and
// quadruple of distinct rows of each stratum, with the pair weights and per-row estimates
// written as the paper writes them (full ψ·ψ'; ip ΔΔ'ψ·ψ'/(GG'); reg m·m'; dr
// ΔΔ'/(GG')(ψ·ψ' − m·m') + m·m'; dr-po f·f'; f = Δψ/G − (Δ − G)/G·m), without the
// inclusion–exclusion and factor columns that Design uses: the independent check of both,
// for outputs h of any width (refKernel on rows).
func naiveJoint(m method.Method, h Rep, r Rows, sigma float64, gFloor float64) []float64 {
	D := r.Psi.Dim
	dot := func(a, b []float64) float64 {
		s := 0.0
		for k := range a {
			s += a[k] * b[k]
		}
		return s
	}
	gOf := func(i int) float64 {
		g := r.G[i]
		if m == method.IPPlus || m == method.DRPlus || m == method.DRPOPlus {
			g = r.GTrue[i]
		}
		return math.Max(g, gFloor)
	}
	row := func(i int) []float64 { // the method's per-row estimate of ψ(Z_i)
		out := make([]float64, D)
		psi, mm := r.Psi.Row(i), r.MPsi.Row(i)
		for k := range out {
			switch m {
			case method.Full, method.Obs:
				out[k] = psi[k]
			case method.IP, method.IPPlus:
				if r.Delta[i] == 1 {
					out[k] = psi[k] / gOf(i)
				}
			case method.Reg:
				out[k] = mm[k]
			default:
				if r.Delta[i] == 1 {
					g := gOf(i)
					out[k] = psi[k]/g - (1-g)/g*mm[k]
				} else {
					out[k] = mm[k]
				}
			}
		}
		return out
	}
	pairW := func(i, j int) float64 {
		switch m {
		case method.Full, method.Obs:
			return dot(r.Psi.Row(i), r.Psi.Row(j))
		case method.IP, method.IPPlus:
			if r.Delta[i]*r.Delta[j] == 0 {
				return 0
			}
			return dot(r.Psi.Row(i), r.Psi.Row(j)) / (gOf(i) * gOf(j))
		case method.Reg:
			return dot(r.MPsi.Row(i), r.MPsi.Row(j))
		case method.DRPO, method.DRPOPlus:
			return dot(row(i), row(j))
		}
		mm := dot(r.MPsi.Row(i), r.MPsi.Row(j))
		if r.Delta[i]*r.Delta[j] == 0 {
			return mm
		}
		gg := gOf(i) * gOf(j)
		return (dot(r.Psi.Row(i), r.Psi.Row(j))-mm)/gg + mm
	}
	var out []float64
	for y := 0; y < 2; y++ {
		var idx []int
		for i := range r.Y {
			if int(r.Y[i]) == y && (m != method.Obs || r.Delta[i] == 1) {
				idx = append(idx, i)
			}
		}
		n := len(idx)
		f := make([][]float64, n)
		for a, i := range idx {
			f[a] = row(i)
		}
		k := func(a, b int) float64 { return refKernel(h.Row(idx[a]), h.Row(idx[b]), sigma) }
		var pair, triple, quad float64
		var n2, n3, n4 float64
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if b == a {
					continue
				}
				kab := k(a, b)
				pair += kab * pairW(idx[a], idx[b])
				n2++
				for c := 0; c < n; c++ {
					if c == a || c == b {
						continue
					}
					triple += kab * dot(f[a], f[c])
					n3++
					for e := 0; e < n; e++ {
						if e == a || e == b || e == c {
							continue
						}
						quad += kab * dot(f[c], f[e])
						n4++
					}
				}
			}
		}
		out = append(out, pair/n2+quad/n4-2*triple/n3)
	}
	return out
}

// TestJointMatchesNaive compares the joint estimate of every method and nuisance kind
// (categorical, continuous, and a vector Z through random features) with the brute-force
// U-statistics, for the exact and the Fourier kernel sums.
func TestJointMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, kind := range []dataset.ZKind{dataset.CategoricalZ, dataset.ContinuousZ, dataset.VectorZ} {
		var h []float64
		var rows Rows
		if kind == dataset.VectorZ {
			h, rows = vectorRows(rng, 22)
		} else {
			h, rows, _ = newJointDGP(kind).draw(rng, 22)
		}
		for i := range rows.G {
			rows.G[i] = 0.03 + 0.9*rng.Float64() // some below the floor
			rows.GTrue[i] = 0.1 + 0.9*rng.Float64()
		}
		for _, m := range method.All()[1:] {
			want := naiveJoint(m, ScalarRep(h), rows, 0.7, DefaultGFloor)
			d, err := NewDesign(rows, Options{Estimand: JointMMD, Bandwidth: 0.7}, m)
			if err != nil {
				t.Fatal(err)
			}
			for _, summer := range []Summer{ExactSums{}, FourierSums{}} {
				res, err := d.Evaluate(ScalarRep(h), summer)
				if err != nil {
					t.Fatal(err)
				}
				for s, w := range want {
					if got := res[0].Strata[s]; math.Abs(got-w) > 1e-9*math.Max(1, math.Abs(w)) {
						t.Errorf("%v %v %T: stratum %d: %.12g, naive %.12g", kind, m, summer, s, got, w)
					}
				}
			}
		}
	}
}

// vectorRows draws n rows with a 2-dimensional Z mapped by random features, Z missing at
// random, and arbitrary m features.
func vectorRows(rng *rand.Rand, n int) ([]float64, Rows) {
	z := make([]float64, 2*n)
	h := make([]float64, n)
	r := Rows{Y: make([]float64, n), Delta: make([]float64, n), G: make([]float64, n), GTrue: make([]float64, n)}
	for i := 0; i < n; i++ {
		r.Y[i] = float64(rng.IntN(2))
		z[2*i], z[2*i+1] = rng.NormFloat64()+r.Y[i], 3*rng.NormFloat64()
		h[i] = z[2*i] + rng.NormFloat64()
		if rng.Float64() < 0.6 {
			r.Delta[i] = 1
		}
	}
	fm, err := NewRandomFeatureMap(z, nil, 2, 0, 5, 9)
	if err != nil {
		panic(err)
	}
	if r.Psi, err = Apply(fm, z); err != nil {
		panic(err)
	}
	r.MPsi = NewFeatures(n, fm.Dim())
	for i := range r.MPsi.Data {
		r.MPsi.Data[i] = rng.NormFloat64() * 0.3
	}
	return h, r
}

// TestJointBinaryMatchesConditional ties the joint estimand to the paper's: for a binary Z
// with the delta kernel, the joint MMD² is 2·p₀²p₁² times the conditional MMD² per stratum.
// The two full estimators are different U-statistics, so on one large batch they agree to a
// fraction of a percent (not to float precision); over Monte Carlo draws the joint
// estimate's mean equals 2·p₀²p₁² times the conditional one's with the true normalisers
// (both unbiased) within 3 standard errors.
func TestJointBinaryMatchesConditional(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	dgp := defaultTestDGP()
	asJoint := func(rows Rows) Rows {
		psi, err := Apply(CategoricalMap{K: 2}, rows.Z)
		if err != nil {
			t.Fatal(err)
		}
		r := rows
		r.Psi = psi
		return r
	}
	h, rows := dgp.draw(rng, 3000)
	cond, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1}, method.Full)
	if err != nil {
		t.Fatal(err)
	}
	joint, err := Estimate(context.Background(), ScalarRep(h), asJoint(rows), Options{Estimand: JointMMD}, method.Full)
	if err != nil {
		t.Fatal(err)
	}
	for s := range cond[0].Strata {
		var n, n1 float64
		for i := range rows.Y {
			if int(rows.Y[i]) == s {
				n++
				n1 += rows.Z[i]
			}
		}
		p1, p0 := n1/n, 1-n1/n
		ratio := joint[0].Strata[s] / (2 * p0 * p0 * p1 * p1 * cond[0].Strata[s])
		t.Logf("Y=%d: joint %.6f, 2p0²p1²·conditional %.6f, ratio %.5f", s, joint[0].Strata[s], 2*p0*p0*p1*p1*cond[0].Strata[s], ratio)
		if math.Abs(ratio-1) > 0.005 {
			t.Errorf("Y=%d: joint/(2p0²p1²·conditional) = %.5f, want within 0.5%% of 1", s, ratio)
		}
	}

	// Scaled by JointScaleFor (p(1 − p) = 0.21 in both strata here), the joint estimate is
	// on the paper's scale.
	all := make([]float64, len(rows.Y))
	for i := range all {
		all[i] = 1
	}
	jr := asJoint(rows)
	scale, err := JointScaleFor(jr.Psi, rows.Y, all)
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := Estimate(context.Background(), ScalarRep(h), jr, Options{Estimand: JointMMD, JointScale: scale}, method.Full)
	if err != nil {
		t.Fatal(err)
	}
	if r := scaled[0].Value / cond[0].Value; math.Abs(r-1) > 0.05 {
		t.Errorf("scaled joint %.5f vs conditional %.5f: ratio %.4f, want within 5%% of 1", scaled[0].Value, cond[0].Value, r)
	}
	t.Logf("JointScaleFor = %.3f (2/(2·0.21)² = %.3f); scaled joint %.5f, conditional %.5f", scale, 2/(0.42*0.42), scaled[0].Value, cond[0].Value)

	const draws, n = 300, 800
	var diffs []float64
	for r := 0; r < draws; r++ {
		h, rows := dgp.draw(rng, n)
		c, err := estimateWith(h, rows, Options{MainFraction: 1}, method.Full)
		if err != nil {
			t.Fatal(err)
		}
		j, err := estimateWith(h, asJoint(rows), Options{Estimand: JointMMD}, method.Full)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for _, term := range c[0].Terms {
			p1 := dgp.pZ[int(term.Y)]
			p0 := 1 - p1
			plug := term.T[1][1]/(p1*p1) + term.T[0][0]/(p0*p0) - 2*term.T[1][0]/(p1*p0)
			want += 2 * p0 * p0 * p1 * p1 * plug
		}
		diffs = append(diffs, j[0].Value-want)
	}
	m, se := meanSE(diffs)
	t.Logf("Monte Carlo: mean(joint − 2p0²p1²·conditional) = %+.5f (se %.5f)", m, se)
	if math.Abs(m) > 3*se {
		t.Errorf("joint and 2p0²p1²·conditional differ by %.5f = %.1f standard errors over %d draws", m, m/se, draws)
	}
}

// jointCases are the Monte Carlo cases of the joint estimand.
var jointCases = []mcCase{
	{"ip+", method.IPPlus, false, false, false},
	{"ip (true G)", method.IP, false, false, false},
	{"reg (true m)", method.Reg, false, false, false},
	{"dr (true G and m)", method.DR, false, false, false},
	{"dr (wrong G, true m)", method.DR, true, false, false},
	{"dr (true G, wrong m)", method.DR, false, true, false},
	{"dr-po (true G and m)", method.DRPO, false, false, false},
	{"dr-po (wrong G, true m)", method.DRPO, true, false, false},
	{"dr-po (true G, wrong m)", method.DRPO, false, true, false},
	{"obs", method.Obs, false, false, true},
	{"ip (wrong G)", method.IP, true, false, true},
	{"reg (wrong m)", method.Reg, false, true, true},
}

// TestJointMonteCarlo draws independent batches with known G and m and checks, for a
// categorical and a continuous Z, the mean over draws of (estimate − full estimate on the
// same draw): ip, reg, dr and dr-po with the right models, and dr and dr-po with one wrong
// model, must match full within 3 standard errors (the joint estimators are U-statistics,
// unbiased, not ratios); obs, ip with a wrong G and reg with a wrong m must miss it by more
// than 6 (obs because the observed rows are a biased sample, as in the paper's Proposition 2).
func TestJointMonteCarlo(t *testing.T) {
	for _, kind := range []dataset.ZKind{dataset.CategoricalZ, dataset.ContinuousZ} {
		t.Run(kind.String(), func(t *testing.T) {
			const draws, n = 300, 600
			rng := rand.New(rand.NewPCG(81, uint64(kind)))
			dgp := newJointDGP(kind)
			opts := Options{Estimand: JointMMD}
			diffs := make([][]float64, len(jointCases))
			for r := 0; r < draws; r++ {
				h, rows, _ := dgp.draw(rng, n)
				full, err := estimateWith(h, rows, opts, method.Full)
				if err != nil {
					t.Fatal(err)
				}
				for k, c := range jointCases {
					res, err := estimateWith(h, dgp.withWrong(rows, h, c.wrongG, c.wrongM), opts, c.method)
					if err != nil {
						t.Fatal(err)
					}
					diffs[k] = append(diffs[k], res[0].Value-full[0].Value)
				}
			}
			checkJointCases(t, diffs)
		})
	}
}

func checkJointCases(t *testing.T, diffs [][]float64) {
	t.Helper()
	for k, c := range jointCases {
		m, se := meanSE(diffs[k])
		t.Logf("%-24s mean − full = %+.5f (se %.5f, %+.1f se)", c.name, m, se, m/se)
		if !c.biased && math.Abs(m) > 3*se {
			t.Errorf("%s: differs from full by %.5f = %.1f standard errors, want within 3", c.name, m, m/se)
		}
		if c.biased && math.Abs(m) < 6*se {
			t.Errorf("%s: differs from full by only %.5f = %.1f standard errors, want a bias beyond 6", c.name, m, m/se)
		}
	}
}

// TestJointJackknifeSE checks the joint estimate's jackknife standard error against the
// standard deviation of the estimates over independent batches, for full, ip, reg and dr,
// at a leaky h (estimand > 0) and at an h that ignores Z (estimand 0, where the
// U-statistic is degenerate, and the plain jackknife's ratio reached 1.37): the RMS SE
// must lie within [0.75, 1.3] times the sd (the promise [0.85, 1.2] widened by the Monte
// Carlo error of an sd from 200 batches).
func TestJointJackknifeSE(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo study")
	}
	const draws, n = 200, 400
	for _, kind := range []dataset.ZKind{dataset.CategoricalZ, dataset.ContinuousZ} {
		dgp := newJointDGP(kind)
		for _, leak := range []bool{true, false} {
			rng := rand.New(rand.NewPCG(101, uint64(kind)))
			methods := []method.Method{method.Full, method.IP, method.Reg, method.DR}
			vals := make([][]float64, len(methods))
			ses := make([][]float64, len(methods))
			for r := 0; r < draws; r++ {
				h, rows, _ := dgp.draw(rng, n)
				if !leak {
					for i := range h {
						h[i] = rng.NormFloat64() + rows.Y[i]
					}
				}
				res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{Estimand: JointMMD}, methods...)
				if err != nil {
					t.Fatal(err)
				}
				for k := range methods {
					vals[k] = append(vals[k], res[k].Value)
					ses[k] = append(ses[k], res[k].ValueSE)
				}
			}
			for k, m := range methods {
				mean, _ := meanSE(vals[k])
				mse, sd := seCalibration(ses[k], vals[k])
				t.Logf("%v leak=%v %v: mean %.5f, sd %.5f, RMS SE %.5f (ratio %.2f)", kind, leak, m, mean, sd, mse, mse/sd)
				if r := mse / sd; r < 0.75 || r > 1.3 {
					t.Errorf("%v leak=%v %v: RMS SE / sd = %.2f, want within [0.75, 1.3]", kind, leak, m, r)
				}
			}
		}
	}
}

// TestJointReportsLevels checks the diagnostics of a categorical Z: observed rows and ESS
// per level, and a level with one observed row in a stratum flagged unreliable with its
// name; and that the conditional estimand refuses a non-binary Z with a message naming the
// joint one.
func TestJointReportsLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	h, rows, z := newJointDGP(dataset.CategoricalZ).draw(rng, 400)
	// Hide level c in stratum Y = 0 but for one row.
	kept := false
	for i := range z {
		if rows.Y[i] == 0 && z[i] == 2 {
			if kept {
				rows.Delta[i] = 0
			}
			kept = kept || rows.Delta[i] == 1
		}
	}
	res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{Estimand: JointMMD}, method.IP, method.Reg)
	if err != nil {
		t.Fatal(err)
	}
	s := res[0].Report.Strata[0]
	if len(s.Observed) != 3 || s.Observed[2] != 1 || !s.Unreliable || !strings.Contains(strings.Join(s.Reasons, ";"), "for Z=c is 1.0 < 10") {
		t.Errorf("ip, Y=0: observed %v, unreliable %v, reasons %q; want 3 levels, one observed row of c flagged", s.Observed, s.Unreliable, s.Reasons)
	}
	if line := s.String(); !strings.Contains(line, "observed Z=a:") || !strings.Contains(line, "ESS ΔZ/G (Z=a, Z=b, Z=c)") {
		t.Errorf("report line %q does not name the levels", line)
	}
	if res[1].Report.Strata[0].Unreliable {
		t.Errorf("reg does not rest on the observed rows, but is flagged: %v", res[1].Report.Strata[0].Reasons)
	}
	if _, err := NewDesign(rows, Options{}, method.DR); err == nil || !strings.Contains(err.Error(), "JointMMD") {
		t.Errorf("conditional estimand with a 3-level Z: err = %v, want a message naming JointMMD", err)
	}
	// G is checked as for a binary Z: a non-finite value is named as such, one outside [0, 1] too.
	for g, want := range map[float64]string{math.NaN(): "row 0: G = NaN, want a finite value", 1.5: "row 0: G = 1.5, want a probability in [0, 1]"} {
		bad := rows
		bad.G = slices.Clone(rows.G)
		bad.G[0] = g
		if err := bad.ValidateClasses(2, method.IP); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("G[0] = %v with features: err = %v, want %q", g, err, want)
		}
	}
}

// TestFeatureMaps checks each map: the categorical map's one-hot rows and level errors;
// the Gaussian map's kernel against the Gaussian over its range (within its bound) and its
// closed-form means under a normal Z against Monte Carlo; the random features' kernel
// against the Gaussian on the standardised Z (within a few 1/√J) and their means; and the
// errors for zero spread, bad bandwidths and bad values.
func TestFeatureMaps(t *testing.T) {
	f, err := Apply(CategoricalMap{K: 3}, []float64{0, 2, math.NaN(), 1})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.Data[:6]) != "[1 0 0 0 0 1]" || !math.IsNaN(f.Row(2)[0]) || !f.Indicator {
		t.Errorf("categorical features %v", f.Data)
	}
	if _, err := Apply(CategoricalMap{K: 3}, []float64{0, 3}); err == nil || !strings.Contains(err.Error(), "row 1: Z = 3") {
		t.Errorf("level out of range: err = %v", err)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, 500)
	for i := range z {
		z[i] = 3 + 2*rng.NormFloat64()
	}
	g, err := NewGaussianMap(z, nil, 0, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(g.Describe())
	psiA, psiB := make([]float64, g.Dim()), make([]float64, g.Dim())
	for trial := 0; trial < 200; trial++ {
		a, b := g.Lo+rng.Float64()*(g.Hi-g.Lo), g.Lo+rng.Float64()*(g.Hi-g.Lo)
		g.Map([]float64{a}, psiA)
		g.Map([]float64{b}, psiB)
		k := g.Plan.Kappa(0)
		for d := range psiA {
			k += psiA[d] * psiB[d]
		}
		if e := math.Abs(k - gaussian1D(a, b, g.Sigma)); e > g.Plan.Bound+1e-12 {
			t.Fatalf("Gaussian map: k(%g, %g) = %g, Gaussian %g, error %g > bound %g", a, b, k, gaussian1D(a, b, g.Sigma), e, g.Plan.Bound)
		}
	}
	checkNormalMeans(t, g, []float64{2.5}, []float64{0.8}, rng)

	v := make([]float64, 2*2000)
	for i := 0; i < 2000; i++ {
		v[2*i], v[2*i+1] = rng.NormFloat64(), 10*rng.NormFloat64()
	}
	rf, err := NewRandomFeatureMap(v, nil, 2, 1, 400, 3)
	if err != nil {
		t.Fatal(err)
	}
	maxErr := 0.0
	pa, pb := make([]float64, rf.Dim()), make([]float64, rf.Dim())
	for trial := 0; trial < 50; trial++ {
		a := []float64{rng.NormFloat64(), 10 * rng.NormFloat64()}
		b := []float64{rng.NormFloat64(), 10 * rng.NormFloat64()}
		rf.Map(a, pa)
		rf.Map(b, pb)
		k := 0.0
		for d := range pa {
			k += pa[d] * pb[d]
		}
		d2 := sq((a[0]-b[0])/rf.Scale[0]) + sq((a[1]-b[1])/rf.Scale[1])
		maxErr = math.Max(maxErr, math.Abs(k-math.Exp(-d2/2)))
	}
	if maxErr > 5/math.Sqrt(400) {
		t.Errorf("random features: kernel error %.3f with J = 400, want within 5/√J", maxErr)
	}
	checkNormalMeans(t, rf, []float64{0.3, -4}, []float64{0.5, 9}, rng)

	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"zero spread", func() error { _, err := NewGaussianMap([]float64{2, 2, math.NaN()}, nil, 0, 0); return err }(), "zero spread"},
		{"negative bandwidth", func() error { _, err := NewGaussianMap([]float64{1, 2}, nil, -1, 0); return err }(), "bandwidth -1"},
		{"one value", func() error { _, err := NewGaussianMap([]float64{1, math.NaN()}, nil, 0, 0); return err }(), "1 observed values"},
		{"vector zero spread", func() error { _, err := NewRandomFeatureMap([]float64{1, 5, 2, 5}, nil, 2, 0, 0, 1); return err }(), "component 1"},
		{"vector infinite", func() error {
			_, err := NewRandomFeatureMap([]float64{1, math.Inf(1), 2, 5}, nil, 2, 0, 0, 1)
			return err
		}(), "row 0, component 1"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, c.err, c.want)
		}
	}
}

// checkNormalMeans compares the map's closed-form E[ψ(Z)] for Z ~ N(mu, diag(variance))
// with the mean of ψ over 200,000 draws, within 5 standard errors.
func checkNormalMeans(t *testing.T, m FeatureMap, mu, variance []float64, rng *rand.Rand) {
	t.Helper()
	const draws = 200000
	want := make([]float64, m.Dim())
	m.(NormalMeans).MeanUnderNormal(mu, variance, want)
	sum, sum2 := make([]float64, m.Dim()), make([]float64, m.Dim())
	psi, z := make([]float64, m.Dim()), make([]float64, len(mu))
	for r := 0; r < draws; r++ {
		for k := range z {
			z[k] = mu[k] + math.Sqrt(variance[k])*rng.NormFloat64()
		}
		m.Map(z, psi)
		for d, v := range psi {
			sum[d] += v
			sum2[d] += v * v
		}
	}
	for d := range want {
		mean := sum[d] / draws
		se := math.Sqrt((sum2[d]/draws - mean*mean) / draws)
		if math.Abs(mean-want[d]) > 5*se+1e-12 {
			t.Errorf("%s: feature %d: closed-form mean %.6f, Monte Carlo %.6f (se %.6f)", m.Describe(), d, want[d], mean, se)
		}
	}
}

// TestWeightedMedianDistance checks the weighted median of pairwise distances against a
// brute force over the pairs, and that unit weights give MedianBandwidth's median exactly.
func TestWeightedMedianDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	for trial := range 20 {
		n := 2 + rng.IntN(60)
		z, w := make([]float64, n), make([]float64, n)
		for i := range z {
			z[i] = math.Round(rng.NormFloat64()*20) / 4 // some ties
			w[i] = 0.2 + 3*rng.Float64()
		}
		type pr struct{ d, w float64 }
		var ps []pr
		tot := 0.0
		for i := range z {
			for j := i + 1; j < n; j++ {
				ps = append(ps, pr{math.Abs(z[i] - z[j]), w[i] * w[j]})
				tot += w[i] * w[j]
			}
		}
		slices.SortFunc(ps, func(a, b pr) int { return cmp.Compare(a.d, b.d) })
		want, acc := 0.0, 0.0
		for _, p := range ps {
			if acc += p.w; acc >= tot/2 {
				want = p.d
				break
			}
		}
		got, err := weightedMedianDistance(z, w)
		if want == 0 {
			if err == nil {
				t.Errorf("trial %d: median 0, want an error", trial)
			}
			continue
		}
		if err != nil || math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("trial %d (n=%d): weighted median %v (%v), brute force %v", trial, n, got, err, want)
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		u, err1 := weightedMedianDistance(z, ones)
		m, err2 := MedianBandwidth(ScalarRep(z))
		if (err1 == nil) != (err2 == nil) || err1 == nil && math.Abs(u-m) > 1e-9*math.Max(1, m) {
			t.Errorf("trial %d: unit weights %v (%v), MedianBandwidth %v (%v)", trial, u, err1, m, err2)
		}
	}
}

// TestGaussianMapEstimandUnmovedByMissingness: the bandwidth of a continuous Z by the
// median heuristic, from the observed Z of a copy where Z is missing at random given X,
// weighted by 1/G, estimates the complete data's; unweighted it moves with the
// missingness. On 20 draws of the calibration simulation (continuous Z, 4,000 rows, about
// half missing): the paired differences from the complete data's bandwidth must average 0
// within 3 standard errors weighted, and lie beyond 3 unweighted.
func TestGaussianMapEstimandUnmovedByMissingness(t *testing.T) {
	var dw, du []float64
	for seed := range 20 {
		k, err := calibsim.DrawKind(4000, 0.3, dataset.ContinuousZ, rand.New(rand.NewPCG(uint64(seed), 95)))
		if err != nil {
			t.Fatal(err)
		}
		full, err := NewGaussianMap(k.ZFull, nil, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, k.Len())
		for i, g := range k.GTrue {
			w[i] = 1 / g
		}
		weighted, err := NewGaussianMap(k.Z, w, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := NewGaussianMap(k.Z, nil, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		dw, du = append(dw, weighted.Sigma-full.Sigma), append(du, plain.Sigma-full.Sigma)
	}
	mw, sw := meanSE(dw)
	mu, su := meanSE(du)
	t.Logf("σ_z − complete data's: weighted %.4f ± %.4f, unweighted %.4f ± %.4f", mw, sw, mu, su)
	if math.Abs(mw) > 3*sw {
		t.Errorf("weighted by 1/G the bandwidth moves by %.4f ± %.4f from the complete data's", mw, sw)
	}
	if math.Abs(mu) < 3*su {
		t.Errorf("unweighted the bandwidth moves by only %.4f ± %.4f: the test cannot tell the two apart", mu, su)
	}
}
