package invmmd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// threeClassDGP is testDGP with a label of three classes: Y uniform on {0, 1, 2},
// Z | Y ~ B(pZ[Y]), X | Y, Z ~ N(Z + 0.5·Y, 1), h = X, and Z observed with a probability
// that depends on X, so that the observed rows are a biased sample within every class.
func threeClassDGP() testDGP { return testDGP{pZ: []float64{0.3, 0.7, 0.5}, gLo: 0.15, gHi: 0.95} }

// TestThreeClassesMatchPairByPairFormula checks every method's penalty over K = 3 strata
// against the pair-by-pair formula summed over the three classes (naiveMMD), and that the
// result carries one stratum per class whose estimates sum to the value.
func TestThreeClassesMatchPairByPairFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	h, rows := threeClassDGP().draw(rng, 300)
	for i := range rows.G { // a learned G and m that differ from the truth
		rows.G[i] = math.Min(1, 0.03+0.9*rng.Float64())
		rows.M[i] = rng.Float64()
	}
	methods := []method.Method{method.Full, method.Obs, method.IP, method.IPPlus, method.Reg, method.DR, method.DRPlus, method.DRPO, method.DRPOPlus}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"defaults", Options{Classes: 3}},
		{"same rows, bandwidth 0.5", Options{Classes: 3, MainFraction: 1, Bandwidth: 0.5}},
		{"four classes, one absent", Options{Classes: 4, MainFraction: 1}},
	} {
		got, err := Estimate(context.Background(), ScalarRep(h), rows, tc.opts, methods...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for k, m := range methods {
			want := naiveMMD(m, ScalarRep(h), rows, tc.opts)
			if diff := math.Abs(got[k].Value - want); diff > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: %v = %.12g, pair-by-pair formula gives %.12g", tc.name, m, got[k].Value, want)
			}
			if len(got[k].Strata) != tc.opts.Classes {
				t.Fatalf("%s: %v has %d strata, want %d", tc.name, m, len(got[k].Strata), tc.opts.Classes)
			}
			sum := 0.0
			for s, v := range got[k].Strata {
				sum += v
				if y := got[k].Terms[s].Y; y != float64(s) {
					t.Errorf("%s: %v stratum %d is Y=%v, want Y=%d", tc.name, m, s, y, s)
				}
			}
			if sum != got[k].Value {
				t.Errorf("%s: %v strata sum to %v, value %v", tc.name, m, sum, got[k].Value)
			}
		}
		if tc.opts.Classes == 4 {
			for _, r := range got {
				if !r.Terms[3].Empty || r.Strata[3] != 0 {
					t.Errorf("%s: %v: the absent class 3 gives %v (empty %v), want an empty stratum", tc.name, r.Method, r.Strata[3], r.Terms[3].Empty)
				}
			}
		}
	}
}

// TestThreeClassesGuards checks the labels a K-class penalty accepts and that a class
// with no observed Z is an empty, flagged stratum for the methods that read only observed Z.
func TestThreeClassesGuards(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	h, rows := threeClassDGP().draw(rng, 300)
	for _, tc := range []struct {
		name  string
		y     float64
		opts  Options
		wants []string
	}{
		{"class 2 under a binary label", 2, Options{}, []string{"row 0", "Y = 2", "want 0 or 1"}},
		{"class 3 of three", 3, Options{Classes: 3}, []string{"row 0", "Y = 3", "0, …, 2", "Classes = 3"}},
		{"fractional class", 1.5, Options{Classes: 3}, []string{"row 0", "Y = 1.5"}},
		{"one class", 0, Options{Classes: 1}, []string{"Options.Classes = 1"}},
	} {
		r := rows
		r.Y = append([]float64(nil), rows.Y...)
		r.Y[0] = tc.y
		_, err := Estimate(context.Background(), ScalarRep(h), r, tc.opts, method.DR)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q, want it to mention %q", tc.name, err, w)
			}
		}
	}

	// Hide Z in every row of class 1: obs and ip have nothing there, reg and dr use m.
	r := rows
	r.Delta = append([]float64(nil), rows.Delta...)
	for i, y := range r.Y {
		if y == 1 {
			r.Delta[i] = 0
		}
	}
	res, err := Estimate(context.Background(), ScalarRep(h), r, Options{Classes: 3}, method.Obs, method.IP, method.Reg, method.DR)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res {
		wantEmpty := x.Method == method.Obs || x.Method == method.IP
		if x.Terms[1].Empty != wantEmpty || x.Terms[0].Empty || x.Terms[2].Empty {
			t.Errorf("%v: strata empty %v %v %v, want class 1 empty = %v and the others estimated",
				x.Method, x.Terms[0].Empty, x.Terms[1].Empty, x.Terms[2].Empty, wantEmpty)
		}
		if wantEmpty && (len(x.Report.EmptyStrata) != 1 || x.Report.EmptyStrata[0] != 1) {
			t.Errorf("%v: report lists empty strata %v, want [1]", x.Method, x.Report.EmptyStrata)
		}
	}
}

// TestMonteCarloThreeClasses checks that the missing-data estimators are unbiased for the
// full-data penalty over three classes, as TestMonteCarloUnbiasedAndDoublyRobust does for
// two: with the normalisers at their population values, ip (true G), reg (true m) and dr
// (true G and m, or one of them wrong) match full within 3 standard errors of the paired
// differences, and obs misses it by more than 6.
func TestMonteCarloThreeClasses(t *testing.T) {
	const draws, n = 300, 1500
	dgp := threeClassDGP()
	plug := func(r Result) float64 {
		v := 0.0
		for _, t := range r.Terms {
			p1, p0 := dgp.pZ[int(t.Y)], 1-dgp.pZ[int(t.Y)]
			v += t.T[1][1]/(p1*p1) + t.T[0][0]/(p0*p0) - 2*t.T[1][0]/(p1*p0)
		}
		return v
	}
	cases := []struct {
		name           string
		method         method.Method
		wrongG, wrongM bool
		biased         bool
	}{
		{"ip (true G)", method.IP, false, false, false},
		{"reg (true m)", method.Reg, false, false, false},
		{"dr (true G and m)", method.DR, false, false, false},
		{"dr (wrong G, true m)", method.DR, true, false, false},
		{"dr (true G, wrong m)", method.DR, false, true, false},
		{"obs", method.Obs, false, false, true},
	}
	for _, opts := range []Options{{Classes: 3, MainFraction: 1}, {Classes: 3}} {
		t.Run(fmt.Sprintf("main fraction %v", opts.MainFraction), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(35, 36))
			diffs := make([][]float64, len(cases))
			for d := 0; d < draws; d++ {
				h, rows := dgp.draw(rng, n)
				full, err := estimateWith(h, rows, opts, method.Full)
				if err != nil {
					t.Fatal(err)
				}
				for k, c := range cases {
					r := rows
					if c.wrongG {
						r.G = make([]float64, n)
						for i := range r.G {
							r.G[i] = 0.5
						}
					}
					if c.wrongM {
						r.M = make([]float64, n)
						for i := range r.M {
							r.M[i] = dgp.pZ[int(rows.Y[i])]
						}
					}
					res, err := estimateWith(h, r, opts, c.method)
					if err != nil {
						t.Fatal(err)
					}
					if len(res[0].Terms) != 3 {
						t.Fatalf("%s: %d strata, want 3", c.name, len(res[0].Terms))
					}
					diffs[k] = append(diffs[k], plug(res[0])-plug(full[0]))
				}
			}
			for k, c := range cases {
				m, se := meanSE(diffs[k])
				t.Logf("%-22s mean − full = %+.4f (se %.4f, %+.1f se)", c.name, m, se, m/se)
				if !c.biased && math.Abs(m) > 3*se {
					t.Errorf("%s: differs from full by %.4f = %.1f standard errors, want within 3", c.name, m, m/se)
				}
				if c.biased && math.Abs(m) < 6*se {
					t.Errorf("%s: differs from full by only %.4f = %.1f standard errors, want a bias beyond 6", c.name, m, m/se)
				}
			}
		})
	}
}
