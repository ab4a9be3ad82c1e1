package prop1

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/method"
)

// quick is a configuration small enough for unit tests (about 0.2 s).
func quick(seed uint64) Config {
	return Config{Seed: seed, N: 1200, Reps: 16, Ys1: []float64{0, 0.5}, Ys2: []float64{0.5}}
}

func run(t *testing.T, c Config) Result {
	t.Helper()
	r, err := Run(context.Background(), c)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
}

func get(t *testing.T, r Result, d Direction, v Variant, y float64, m method.Method) (Slice, Estimate) {
	t.Helper()
	s, ok := r.Find(d, v, y)
	if !ok {
		t.Fatalf("no slice %v %v y=%g", d, v, y)
	}
	e, ok := s.Get(m)
	if !ok {
		t.Fatalf("slice %v %v y=%g has no %v estimate", d, v, y, m)
	}
	return s, e
}

// Direction 1: h* is invariant (full ≈ 0) but obs is far from 0, in both variants.
func TestDirection1ObsRejectsInvariantModel(t *testing.T) {
	r := run(t, quick(7))
	for _, v := range []Variant{Hard, Soft} {
		for _, y := range r.Config.Ys1 {
			s, full := get(t, r, Direction1, v, y, method.Full)
			_, obs := get(t, r, Direction1, v, y, method.Obs)
			fullBias := 1/s.Z1 + 1/(float64(r.Config.N)-s.Z1)
			if math.Abs(full.Mean) > 4*full.SE+fullBias {
				t.Errorf("%v y=%g: full = %.4f ± %.4f, want ≈ 0 (h* is invariant; bias allowance %.4f)", v, y, full.Mean, full.SE, fullBias)
			}
			diff, se := obs.Mean-full.Mean, math.Hypot(obs.SE, full.SE)
			if diff < 6*se || diff < 2*s.BiasAllowance(r.Config.N) {
				t.Errorf("%v y=%g: obs − full = %.4f (SE %.4f, allowance %.4f), want obs clearly above full",
					v, y, diff, se, s.BiasAllowance(r.Config.N))
			}
			if full.Defined != r.Config.Reps || obs.Defined != r.Config.Reps {
				t.Errorf("%v y=%g: full defined in %d, obs in %d of %d repetitions, want all", v, y, full.Defined, obs.Defined, r.Config.Reps)
			}
		}
	}
}

// Direction 2: h* depends on Z (full > 0); with the hard rule obs never sees a Z = 1 row,
// so it is undefined in every repetition; with the soft rule it sees them and agrees.
func TestDirection2ObsBlindUnderHardRule(t *testing.T) {
	r := run(t, quick(8))
	y := r.Config.Ys2[0]
	for _, v := range []Variant{Hard, Soft} {
		s, full := get(t, r, Direction2, v, y, method.Full)
		_, obs := get(t, r, Direction2, v, y, method.Obs)
		if !(full.Mean > 10*full.SE+0.1) {
			t.Errorf("%v: full = %.4f ± %.4f, want clearly > 0 (h* depends on Z)", v, full.Mean, full.SE)
		}
		switch v {
		case Hard:
			if s.ObservedZ1 != 0 || obs.Defined != 0 || !math.IsNaN(obs.Mean) {
				t.Errorf("hard: observed Z=1 rows %.1f, obs defined in %d reps (mean %v), want 0, 0 and NaN", s.ObservedZ1, obs.Defined, obs.Mean)
			}
		case Soft:
			if s.ObservedZ1 == 0 || obs.Defined != r.Config.Reps {
				t.Errorf("soft: observed Z=1 rows %.1f, obs defined in %d of %d reps, want rows and all reps", s.ObservedZ1, obs.Defined, r.Config.Reps)
			}
		}
	}
	for _, v := range r.Verdicts() {
		want := v.Slice.Direction == Direction1 || v.Slice.Variant == Hard
		if v.Disagree != want {
			t.Errorf("%v %v y=%g: Disagree = %v, want %v (%s)", v.Slice.Direction, v.Slice.Variant, v.Slice.Y, v.Disagree, want, v.Text)
		}
	}
}

// The Monte Carlo means (through invmmd) agree with the large-sample values (quadrature,
// written independently of invmmd) up to sampling error and the small-sample bias.
func TestEstimatesMatchLimits(t *testing.T) {
	r := run(t, quick(9))
	checked := 0
	for _, s := range r.Slices {
		allow := s.BiasAllowance(r.Config.N)
		for _, e := range s.Estimates {
			switch {
			case math.IsNaN(e.Limit):
				if e.Defined != 0 {
					t.Errorf("%v %v y=%g %v: limit undefined but %d repetitions defined", s.Direction, s.Variant, s.Y, e.Method, e.Defined)
				}
				continue
			case e.Defined < r.Config.Reps:
				t.Errorf("%v %v y=%g %v: limit %.4f but only %d of %d repetitions defined", s.Direction, s.Variant, s.Y, e.Method, e.Limit, e.Defined, r.Config.Reps)
				continue
			}
			tol := 4*e.SE + allow
			if e.Method == method.IPPlus {
				tol = 4*e.SE + 2*allow // weights 1/G inflate the effective-sample-size bias
			}
			if math.IsInf(allow, 1) {
				tol = 4*e.SE + 0.01
			}
			if d := math.Abs(e.Mean - e.Limit); d > tol {
				t.Errorf("%v %v y=%g %v: mean %.4f ± %.4f, limit %.4f: off by %.4f > %.4f", s.Direction, s.Variant, s.Y, e.Method, e.Mean, e.SE, e.Limit, d, tol)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d estimates compared with their limits", checked)
	}
}

// The quadrature against closed forms: direction 2's full limit is k(0,0) + k(1,1) −
// 2k(0,1) = 2(1 − exp(−1/(2σ²))) for y ∈ (0,1) and 0 outside; direction 1's full limit is 0.
func TestLimitsClosedForm(t *testing.T) {
	for _, tc := range []struct {
		d     Direction
		y, bw float64
		want  float64
	}{
		{Direction2, 0.5, 1, 2 * (1 - math.Exp(-0.5))},
		{Direction2, 0.1, 0.5, 2 * (1 - math.Exp(-2))},
		{Direction2, -0.5, 1, 0},
		{Direction2, 1.5, 1, 0},
		{Direction1, 0, 1, 0},
		{Direction1, 0.7, 2, 0},
	} {
		c, err := Config{Bandwidth: tc.bw}.Resolved()
		if err != nil {
			t.Fatal(err)
		}
		got := limits(c, tc.d, Hard, tc.y)[method.Full]
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%v y=%g σ=%g: full limit %.6f, want %.6f", tc.d, tc.y, tc.bw, got, tc.want)
		}
	}
	// Direction 1, hard rule: obs compares N(2y,1) truncated to h* < 0 against N(2y,1); its
	// limit grows as y grows (the truncation cuts more).
	c, _ := Config{}.Resolved()
	prev := 0.0
	for _, y := range []float64{-1, -0.5, 0, 0.5} {
		got := limits(c, Direction1, Hard, y)[method.Obs]
		if !(got > prev) {
			t.Errorf("direction 1 hard obs limit at y=%g is %.4f, want > %.4f (the previous y)", y, got, prev)
		}
		prev = got
	}
}

// Sample draws what the constructions say.
func TestSampleFollowsConstructions(t *testing.T) {
	c, _ := Config{}.Resolved()
	for _, tc := range []struct {
		d Direction
		v Variant
		y float64
	}{{Direction1, Hard, 0.3}, {Direction1, Soft, 0.3}, {Direction2, Hard, 0.4}, {Direction2, Soft, 0.4}} {
		rng := rand.New(rand.NewPCG(1, 2))
		h, rows, err := Sample(rng, tc.d, tc.v, tc.y, 20000, c)
		if err != nil {
			t.Fatal(err)
		}
		if err := rows.ValidateClasses(2, Methods()...); err != nil {
			t.Fatalf("%v %v: rows do not validate: %v", tc.d, tc.v, err)
		}
		mean := 0.0
		for i := range h {
			mean += h[i]
			g, z, obs := rows.GTrue[i], rows.Z[i], rows.Delta[i] == 1
			if rows.M[i] != z {
				t.Fatalf("%v row %d: m = %v, want Z = %v (X and Y determine Z)", tc.d, i, rows.M[i], z)
			}
			if g != 1 && g != map[Variant]float64{Hard: 0, Soft: c.SoftRate}[tc.v] {
				t.Fatalf("%v %v row %d: G = %v, want 1 or the variant's rate", tc.d, tc.v, i, g)
			}
			if g == 0 && obs {
				t.Fatalf("%v %v row %d: observed with G = 0", tc.d, tc.v, i)
			}
			switch {
			case tc.d == Direction1 && z == 0 && g != 1:
				t.Fatalf("direction 1 row %d: Z < 0 but G = %v, want 1", i, g)
			case tc.d == Direction1 && z == 1 && (g == 1) != (h[i] < 0):
				t.Fatalf("direction 1 row %d: Z ≥ 0, h* = %v, G = %v: want G = 1 exactly when h* < 0", i, h[i], g)
			case tc.d == Direction2 && h[i] != 1-z:
				t.Fatalf("direction 2 row %d: h* = %v with Z = %v at y = %g, want 1 − Z", i, h[i], z, tc.y)
			case tc.d == Direction2 && tc.v == Hard && obs && z == 1:
				t.Fatalf("direction 2 hard row %d: an observed row with Z = 1", i)
			}
		}
		mean /= float64(len(h))
		if tc.d == Direction1 && math.Abs(mean-2*tc.y) > 0.05 {
			t.Errorf("direction 1: mean h* = %.3f, want 2y = %.3f", mean, 2*tc.y)
		}
	}
}

func TestRunIsReproducible(t *testing.T) {
	c := quick(11)
	c.Ys2 = []float64{}
	a, b := run(t, c), run(t, c)
	c.Seed = 12
	other := run(t, c)
	same := func(x, y Result) bool {
		for i := range x.Slices {
			for k := range x.Slices[i].Estimates {
				for j, v := range x.Slices[i].Estimates[k].Values {
					if v != y.Slices[i].Estimates[k].Values[j] {
						return false
					}
				}
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("two runs with the same seed gave different estimates")
	}
	if same(a, other) {
		t.Error("runs with seeds 11 and 12 gave identical estimates")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{N: 2}, "Config.N"},
		{Config{Reps: 1}, "Config.Reps"},
		{Config{SigmaX: -1}, "SigmaX"},
		{Config{SigmaZ: math.NaN()}, "SigmaZ"},
		{Config{SoftRate: 1.5}, "SoftRate"},
		{Config{Bandwidth: math.Inf(1)}, "Bandwidth"},
		{Config{Ys1: []float64{}, Ys2: []float64{}}, "no slice"},
		{Config{Ys1: []float64{math.NaN()}}, "y = NaN"},
		{Config{Variants: []Variant{7}}, "Variants"},
		{Config{MainFraction: 2}, "MainFraction"},
	} {
		_, err := Run(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v) error = %v, want one naming %q", tc.cfg, err, tc.want)
		}
	}
	if _, _, err := Sample(rand.New(rand.NewPCG(1, 1)), 3, Hard, 0, 10, Config{}); err == nil || !strings.Contains(err.Error(), "direction 3") {
		t.Errorf("Sample with direction 3: error %v, want one naming the direction", err)
	}
}

func TestWriteShowsDisagreement(t *testing.T) {
	r := run(t, quick(13))
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"seed 13; 16 repetitions of 1200 rows",
		"Direction 1:", "Direction 2:",
		"so obs calls the invariant h* dependent",
		"undefined in 16 of 16 repetitions (no observed row has Z = 1)",
		"cannot detect the dependence",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Write output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "NaN") {
		t.Errorf("Write output prints NaN:\n%s", out)
	}
}

// Run evaluates the kernel sums with invmmd.AutoSums (the Fourier expansion, exact to 1e-10 per
// pair) rather than invmmd.Estimate's exact pairwise sums; on a draw of each direction the
// two agree.
func TestAutoMatchesEstimate(t *testing.T) {
	c, _ := Config{}.Resolved()
	opts := invmmd.Options{Unconditional: true, MainFraction: 1}
	for _, d := range []Direction{Direction1, Direction2} {
		h, rows, err := Sample(rand.New(rand.NewPCG(5, uint64(d))), d, Soft, 0.5, 800, c)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := invmmd.Estimate(context.Background(), invmmd.ScalarRep(h), rows, opts, Methods()...)
		if err != nil {
			t.Fatal(err)
		}
		design, err := invmmd.NewDesign(rows, opts, Methods()...)
		if err != nil {
			t.Fatal(err)
		}
		auto, err := design.Evaluate(invmmd.ScalarRep(h), invmmd.AutoSums{})
		if err != nil {
			t.Fatal(err)
		}
		for k := range exact {
			if math.Abs(exact[k].Value-auto[k].Value) > 1e-7 {
				t.Errorf("%v %v: Estimate %.10f, Auto %.10f", d, exact[k].Method, exact[k].Value, auto[k].Value)
			}
		}
	}
}

// The verdict reads as a sentence whose reason matches its conclusion: a difference of many
// standard errors that the bias allowance or rounding explains is an agreement, and says so.
func TestVerdictText(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Direction
		v    Verdict
		want string
	}{
		{"obs inflates an invariant h*", Direction1, Verdict{Diff: 0.0217, Z: 37.5, Allowance: 0.0042, Disagree: true},
			"they disagree: obs exceeds full by 0.0217 (37.5 standard errors, and more than the 0.0042 that small-sample bias can explain), so obs calls the invariant h* dependent"},
		{"obs below full", Direction2, Verdict{Diff: -0.05, Z: -8, Allowance: 0.01, Disagree: true},
			"they disagree: obs − full = -0.0500 (8.0 standard errors, and more than the 0.0100 that small-sample bias can explain)"},
		{"many SE, within the allowance", Direction1, Verdict{Diff: 0.0157, Z: 7.3, Allowance: 0.0166},
			"they agree: they differ by 0.0157, which is 7.3 standard errors but less than the 0.0166 that small-sample bias alone can explain"},
		{"equal up to rounding", Direction2, Verdict{Diff: 1e-14, Z: 24.4, Allowance: 0.008},
			"they agree: they are equal up to rounding (they differ by 1e-14)"},
		{"within chance", Direction1, Verdict{Diff: -0.0002, Z: -1.2, Allowance: 0.004},
			"they agree: they differ by 0.0002, 1.2 standard errors, which chance alone can explain (the cut is 3)"},
	} {
		if got := verdictText(c.d, c.v); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
