package invmmd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// rowSumCase is a set of outputs, target and source rows and columns for the row-sum tests.
type rowSumCase struct {
	name     string
	h        Rep
	tgt, src []int
	cols     [][]float64
}

// rowSumCases draws outputs of several shapes (normal, clustered, spread out over many
// bandwidths, heavy tailed, with ties, far from 0), with targets equal to the sources,
// overlapping them, or disjoint from them, and signed columns.
func rowSumCases(rng *rand.Rand) []rowSumCase {
	const n = 900
	gen := []struct {
		name string
		f    func(i int) float64
	}{
		{"normal", func(int) float64 { return rng.NormFloat64() }},
		{"clustered", func(i int) float64 { return float64(i%3) + 1e-3*rng.NormFloat64() }},
		{"spread over 400σ", func(int) float64 { return 400 * rng.Float64() }},
		{"heavy tailed", func(int) float64 { return rng.NormFloat64() / (0.02 + rng.Float64()) }},
		{"ties", func(i int) float64 { return float64(i % 2) }},
		{"far from 0", func(int) float64 { return 1e4 + rng.NormFloat64() }},
	}
	var out []rowSumCase
	for _, g := range gen {
		h := make([]float64, n)
		for i := range h {
			h[i] = g.f(i)
		}
		cols := make([][]float64, 3)
		for p := range cols {
			cols[p] = make([]float64, n)
			for i := range cols[p] {
				cols[p][i] = rng.NormFloat64()
				if p == 2 && i%4 == 0 {
					cols[p][i] = 0
				}
			}
		}
		all, lo, hi, odd := make([]int, n), make([]int, 0, n), make([]int, 0, n), make([]int, 0, n)
		for i := range all {
			all[i] = i
			if i < 2*n/3 {
				lo = append(lo, i)
			}
			if i >= n/3 {
				hi = append(hi, i)
			}
			if i%2 == 1 {
				odd = append(odd, i)
			}
		}
		even := make([]int, 0, n)
		for i := 0; i < n; i += 2 {
			even = append(even, i)
		}
		for _, sets := range []struct {
			name     string
			tgt, src []int
		}{{"same rows", all, all}, {"overlapping", lo, hi}, {"disjoint", odd, even}} {
			out = append(out, rowSumCase{fmt.Sprintf("%s, %s", g.name, sets.name), ScalarRep(h), sets.tgt, sets.src, cols})
		}
	}
	return out
}

// TestRowSumsMatchExact checks the Fourier and window row sums, and AutoSums', against the
// exact ones: every KV_ap within the path's bound times Σ_b |c_p(b)| (plus rounding), on
// outputs of every shape, for targets equal to, overlapping and disjoint from the sources.
// The Fourier series may refuse a range too wide for its terms; the window never does.
func TestRowSumsMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	ctx := context.Background()
	for _, c := range rowSumCases(rng) {
		want, wp, err := RowSums(ctx, ExactSums{Workers: 1}, c.h, c.tgt, c.src, c.cols, 0.9)
		if err != nil || wp.Name != "exact" {
			t.Fatalf("%s: exact: %v, path %v", c.name, err, wp)
		}
		mass := make([]float64, len(c.cols))
		for p, col := range c.cols {
			for _, j := range c.src {
				mass[p] += math.Abs(col[j])
			}
		}
		for _, s := range []struct {
			name string
			sum  Summer
		}{{"fourier", FourierSums{}}, {"window", WindowSums{}}, {"auto", AutoSums{}}, {"exact parallel", ExactSums{Workers: 3}}} {
			got, path, err := RowSums(ctx, s.sum, c.h, c.tgt, c.src, c.cols, 0.9)
			if err != nil {
				if s.name == "fourier" && c.name[:6] == "spread" || s.name == "fourier" && c.name[:5] == "heavy" {
					continue // a range of hundreds of bandwidths: the series may need too many terms
				}
				t.Fatalf("%s, %s: %v", c.name, s.name, err)
			}
			P := len(c.cols)
			for a := range c.tgt {
				for p := 0; p < P; p++ {
					diff := math.Abs(got[a*P+p] - want[a*P+p])
					if tol := path.Bound*mass[p] + 1e-9*(1+math.Abs(want[a*P+p])); diff > tol {
						t.Fatalf("%s, %s (%v): KV[%d][%d] = %.12g, exact %.12g, off by %.3g > %.3g", c.name, s.name, path, a, p, got[a*P+p], want[a*P+p], diff, tol)
					}
				}
			}
		}
	}
}

// TestRowSumsRFF checks the random-feature row sums against the exact ones on a
// representation of 8 columns: each kernel value k̂_ab has sd ≤ Bound = 1/√(2D), and the
// values of one row share the D frequencies, so their errors can add up: KV_ap is off by a
// random error of sd at most Bound·Σ_b |c_p(b)|; the test allows 4 of those. It also
// checks that the same seed gives the same sums.
func TestRowSumsRFF(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	ctx := context.Background()
	h1, _ := defaultTestDGP().draw(rng, 600)
	h := widen(rng, h1, 8)
	cols := [][]float64{make([]float64, 600), make([]float64, 600)}
	for i := range 600 {
		cols[0][i], cols[1][i] = rng.NormFloat64(), 1
	}
	all := d0(600)
	sigma := wideBandwidth(8)
	want, _, _ := RowSums(ctx, ExactSums{}, h, all, all, cols, sigma)
	got, path, err := RowSums(ctx, RFFSums{Seed: 5}, h, all, all, cols, sigma)
	if err != nil || path.Name != "rff" || path.Terms != DefaultRFFFrequencies {
		t.Fatalf("rff: %v, path %v", err, path)
	}
	again, _, _ := RowSums(ctx, RFFSums{Seed: 5}, h, all, all, cols, sigma)
	for p := range cols {
		mass := 0.0
		for _, v := range cols[p] {
			mass += math.Abs(v)
		}
		worst := 0.0
		for a := range all {
			worst = math.Max(worst, math.Abs(got[a*2+p]-want[a*2+p]))
			if got[a*2+p] != again[a*2+p] {
				t.Fatal("the same seed gave different sums")
			}
		}
		if lim := 4 * path.Bound * mass; worst > lim {
			t.Errorf("column %d: worst error %.3g beyond 4 × its sd bound (%.3g)", p, worst, lim)
		}
	}
}

// TestAutoChoosesPath checks AutoSums' choices: exact for small strata, the Fourier series
// for packed scalar outputs, the window for outputs spread over many bandwidths, random
// features for a wide representation beyond ExactPairs.
func TestAutoChoosesPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	draw := func(n int, f func() float64) Rep {
		h := make([]float64, n)
		for i := range h {
			h[i] = f()
		}
		return ScalarRep(h)
	}
	big := 1 << 13 // 2^26 pairs > ExactPairs
	for _, tc := range []struct {
		name string
		h    Rep
		want string
	}{
		{"small", draw(500, rng.NormFloat64), "exact"},
		{"packed", draw(big, rng.NormFloat64), "fourier"},
		{"spread", draw(big, func() float64 { return 1e6 * rng.Float64() }), "window"},
		{"wide", widen(rng, draw(big, rng.NormFloat64).Data, 4), "rff"},
	} {
		all := d0(tc.h.Len())
		cols := [][]float64{make([]float64, tc.h.Len())}
		for i := range cols[0] {
			cols[0][i] = 1
		}
		_, path, err := RowSums(context.Background(), AutoSums{}, tc.h, all, all, cols, 1)
		if err != nil || path.Name != tc.want {
			t.Errorf("%s: path %v (err %v), want %s", tc.name, path, err, tc.want)
		}
	}
}

// TestPlanFourierBounded checks that PlanFourier refuses, at once, spans and bandwidths
// that are not finite and positive and ranges too wide for MaxFourierTerms, instead of
// looping or allocating: a diverging model's outputs, a bandwidth of 1e-300.
func TestPlanFourierBounded(t *testing.T) {
	start := time.Now()
	for _, tc := range []struct{ span, sigma, tol float64 }{
		{math.Inf(1), 1, 1e-10}, {math.NaN(), 1, 1e-10}, {-1, 1, 1e-10}, {1e30, 1, 1e-10}, {1, 1e-300, 1e-10},
		{1, 0, 1e-10}, {1, math.Inf(1), 1e-10}, {1, 1, 0}, {1, 1, 1}, {1e9, 1e-3, 1e-3},
	} {
		if p, err := PlanFourier(tc.span, tc.sigma, tc.tol); err == nil {
			t.Errorf("%+v: plan %+v, want an error", tc, p)
		}
	}
	p, err := PlanFourier(1e4, 1, 1e-10) // 10⁴ bandwidths: served, within the cap
	if err != nil || p.M > MaxFourierTerms+64 || p.Bound > 1.001e-10 {
		t.Errorf("span 1e4: plan M=%d bound %g, err %v", p.M, p.Bound, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("planning took %v", d)
	}
}

// TestLinearStandardErrorsMatchExact checks that the jackknife standard errors through the
// expansions equal the exact pass's: to relative 10⁻⁶ through the Fourier series and the
// window (per-pair error 10⁻¹⁰), and within 10% through random features of a wide h (a
// random error of order 1/√D), for a binary, categorical and continuous Z, conditional and
// unconditional, on scalar and wide outputs.
func TestLinearStandardErrorsMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 78))
	ctx := context.Background()
	type tcase struct {
		name string
		h    []float64
		rows Rows
		opts Options
	}
	hb, rb := defaultTestDGP().draw(rng, 800)
	hc, rc, _ := newJointDGP(dataset.CategoricalZ).draw(rng, 800)
	hn, rn, _ := newJointDGP(dataset.ContinuousZ).draw(rng, 800)
	cases := []tcase{
		{"binary", hb, rb, Options{MainFraction: 1}},
		{"binary, half split", hb, rb, Options{}},
		{"binary, unconditional", hb, rb, Options{MainFraction: 1, Unconditional: true}},
		{"categorical", hc, rc, Options{Estimand: JointMMD}},
		{"continuous", hn, rn, Options{Estimand: JointMMD, Unconditional: true}},
	}
	methods := []method.Method{method.Full, method.Obs, method.IP, method.Reg, method.DR, method.DRPO}
	for _, c := range cases {
		d, err := NewDesign(c.rows, c.opts, methods...)
		if err != nil {
			t.Fatal(err)
		}
		exact, _, err := d.StandardErrors(ctx, ScalarRep(c.h), ExactSums{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Summer{FourierSums{}, WindowSums{}} {
			got, path, err := d.StandardErrors(ctx, ScalarRep(c.h), s)
			if err != nil {
				t.Fatal(err)
			}
			for k := range exact {
				for st := range exact[k] {
					if diff := math.Abs(got[k][st] - exact[k][st]); diff > 1e-6*exact[k][st]+1e-12 {
						t.Errorf("%s, %v, stratum %d, %v: SE %.10g, exact %.10g", c.name, methods[k], st, path, got[k][st], exact[k][st])
					}
				}
			}
		}
		// A representation of 4 columns, through random features.
		hw := widen(rng, c.h, 4)
		o := c.opts
		o.Bandwidth = wideBandwidth(4)
		dw, err := NewDesign(c.rows, o, methods...)
		if err != nil {
			t.Fatal(err)
		}
		ew, _, _ := dw.StandardErrors(ctx, hw, ExactSums{})
		gw, path, err := dw.StandardErrors(ctx, hw, RFFSums{Seed: 3, Frequencies: 4096})
		if err != nil || path.Name != "rff" {
			t.Fatalf("%s, wide: %v, %v", c.name, err, path)
		}
		for k := range ew {
			for st := range ew[k] {
				if diff := math.Abs(gw[k][st] - ew[k][st]); diff > 0.1*ew[k][st]+1e-9 {
					t.Errorf("%s, wide, %v, stratum %d: SE %.6g (random features), exact %.6g", c.name, methods[k], st, gw[k][st], ew[k][st])
				}
			}
		}
	}
}

// TestEstimateLinearAtScale runs Estimate on 12,000 rows (about 3.6·10⁷ pairs per
// stratum, beyond ExactPairs): it must take the Fourier series, say so, and give the exact
// sums' estimates to relative 10⁻⁷, with positive standard errors.
func TestEstimateLinearAtScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(79, 80))
	h, rows := defaultTestDGP().draw(rng, 12000)
	methods := []method.Method{method.Full, method.IP, method.Reg, method.DR}
	res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1}, methods...)
	if err != nil {
		t.Fatal(err)
	}
	// The same call with Options.Sums forcing the quadratic reference (invmmd estimate
	// -exact): the estimates and standard errors agree within the expansion's error.
	ref, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1, Sums: ExactSums{Workers: 2}}, methods...)
	if err != nil {
		t.Fatal(err)
	}
	for k := range res {
		if res[k].Path.Name != "fourier" || ref[k].Path.Name != "exact" {
			t.Errorf("%v: paths %v and %v, want the Fourier series and exact", methods[k], res[k].Path, ref[k].Path)
		}
		if diff := math.Abs(res[k].Value - ref[k].Value); diff > 1e-7*math.Max(1, math.Abs(ref[k].Value)) {
			t.Errorf("%v: %.10g, exact %.10g", methods[k], res[k].Value, ref[k].Value)
		}
		if !(res[k].ValueSE > 0) || math.Abs(res[k].ValueSE-ref[k].ValueSE) > 1e-6*ref[k].ValueSE {
			t.Errorf("%v: SE %v, exact %v", methods[k], res[k].ValueSE, ref[k].ValueSE)
		}
	}
}

// TestRowSumsCancel checks that a cancelled context stops every path and returns its error.
func TestRowSumsCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	h := make([]float64, 20000)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	all := d0(len(h))
	cols := [][]float64{h}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range []Summer{ExactSums{}, FourierSums{}, WindowSums{}, RFFSums{}, AutoSums{}} {
		if _, _, err := RowSums(ctx, s, ScalarRep(h), all, all, cols, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("%T: err %v, want context.Canceled", s, err)
		}
	}
}

// TestCrossStatisticLinear checks the cross statistic through the expansions against its
// definition: through the Fourier series and the window on scalar outputs, to 10⁻⁶ of the
// exact kernel's statistic (bruteCross), on 3,000 rows, for a binary and a categorical Z;
// through random features on a representation, to rounding of the statistic defined with
// the features' own kernel k̂(a, b) = (1/D) Σ_j cos ω_jᵀ(h_a − h_b), with which the test is
// exactly the cross test of a positive-definite kernel (so it stays valid).
func TestCrossStatisticLinear(t *testing.T) {
	ctx := context.Background()
	h, rows := calibRows(3000, 0.3, 7)
	hc, rc, _ := newJointDGP(dataset.CategoricalZ).draw(rand.New(rand.NewPCG(83, 84)), 3000)
	for _, c := range []struct {
		name string
		h    []float64
		rows Rows
	}{{"binary", h, rows}, {"categorical", hc, rc}} {
		inA := Halves(c.rows, false, 3)
		for _, m := range []method.Method{method.Full, method.DR, method.IP} {
			phi, inc := pseudo(t, m, c.rows)
			want := bruteCross(ScalarRep(c.h), phi, inc, c.rows.Y, inA, 0.8)
			for _, s := range []Summer{FourierSums{}, WindowSums{}, ExactSums{}} {
				res, err := InvarianceTest(ctx, ScalarRep(c.h), c.rows, TestOptions{Options: Options{Bandwidth: 0.8, Sums: s}, InA: inA}, m)
				if err != nil {
					t.Fatal(err)
				}
				if d := math.Abs(res[0].Statistic - want); d > 1e-6*math.Max(1, math.Abs(want)) {
					t.Errorf("%s, %v, %v: T = %.12g, by definition %.12g", c.name, m, res[0].Path, res[0].Statistic, want)
				}
			}
		}
	}
	// A representation of 3 columns through D = 64 random features.
	hw := widen(rand.New(rand.NewPCG(85, 86)), h[:600], 3)
	rw := rows.Subset(d0(600))
	inA := Halves(rw, false, 4)
	const D, sigma = 64, 1.5
	u := RFFFrequencies(3, D, 9) // ω = u/σ, component k of frequency f at k·D + f
	khat := func(i, j int) float64 {
		s := 0.0
		for f := 0; f < D; f++ {
			arg := 0.0
			for k := 0; k < 3; k++ {
				arg += u[k*D+f] / sigma * (hw.Data[i*3+k] - hw.Data[j*3+k])
			}
			s += math.Cos(arg)
		}
		return s / D
	}
	phi, inc := pseudo(t, method.DR, rw)
	want := bruteCrossKernel(hw, phi, inc, rw.Y, inA, khat)
	res, err := InvarianceTest(ctx, hw, rw, TestOptions{Options: Options{Bandwidth: sigma, Sums: RFFSums{Frequencies: D, Seed: 9}}, InA: inA}, method.DR)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(res[0].Statistic - want); d > 1e-9*math.Max(1, math.Abs(want)) || res[0].Path.Name != "rff" {
		t.Errorf("random features: T = %.12g (%v), by definition with their kernel %.12g", res[0].Statistic, res[0].Path, want)
	}
}

// TestJointDeletionsMatchSubsets checks the joint estimate's leave-one-out and
// leave-two-out values (joint_loo.go), which the jackknife and its excess read, against
// the estimate recomputed from scratch on the rows without the deleted ones, for a
// categorical and a continuous Z and every method.
func TestJointDeletionsMatchSubsets(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []dataset.ZKind{dataset.CategoricalZ, dataset.ContinuousZ} {
		h, rows, _ := newJointDGP(kind).draw(rand.New(rand.NewPCG(87, uint64(kind))), 60)
		opts := Options{Estimand: JointMMD, Unconditional: true}
		for _, m := range []method.Method{method.Full, method.IP, method.Reg, method.DR, method.DRPO} {
			d, err := NewDesign(rows, opts, m)
			if err != nil {
				t.Fatal(err)
			}
			// One stratum (Unconditional): every column is its.
			rs := &strataSums{idx: make([][]int, 1), pos: make([]int, len(d.cols))}
			for j := range d.cols {
				rs.pos[j], rs.idx[0] = j, append(rs.idx[0], j)
			}
			rs.kv, _, err = RowSums(ctx, ExactSums{}, ScalarRep(h), d.blocks[0].rows, d.blocks[0].rows, d.cols, d.opts.Bandwidth)
			if err != nil {
				t.Fatal(err)
			}
			jl := d.jointLOO(0, 0, rs)
			without := func(drop ...int) float64 {
				var keep []int
				for i := range h {
					if i != drop[0] && (len(drop) == 1 || i != drop[1]) {
						keep = append(keep, i)
					}
				}
				hs := make([]float64, len(keep))
				for k, i := range keep {
					hs[k] = h[i]
				}
				ds, err := NewDesign(rows.Subset(keep), opts, m)
				if err != nil {
					t.Fatal(err)
				}
				res, err := ds.Evaluate(ScalarRep(hs), ExactSums{Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				return res[0].Value
			}
			for _, a := range []int{0, 7, 59} {
				if got, want := jl.without1(a), without(d.blocks[0].rows[a]); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
					t.Errorf("%v %v: without row %d %.12g, recomputed %.12g", kind, m, a, got, want)
				}
			}
			for _, p := range [][2]int{{0, 1}, {3, 40}, {58, 59}} {
				a, b := p[0], p[1]
				i, j := d.blocks[0].rows[a], d.blocks[0].rows[b]
				kab := GaussianKernel([]float64{h[i]}, []float64{h[j]}, d.opts.Bandwidth)
				if got, want := jl.without2(a, b, kab, jl.rowAgg(a), jl.rowAgg(b)), without(i, j); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
					t.Errorf("%v %v: without rows %d, %d %.12g, recomputed %.12g", kind, m, a, b, got, want)
				}
			}
		}
	}
}
