package invmmd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// mcCase is one estimator configuration of the Monte Carlo tests: a method, and whether G
// or m is replaced by a wrong model.
type mcCase struct {
	name           string
	method         method.Method
	wrongG, wrongM bool
	biased         bool // expected to be biased
}

var mcCases = []mcCase{
	{"ip+", method.IPPlus, false, false, false},
	{"reg (true m)", method.Reg, false, false, false},
	{"dr+ (true G and m)", method.DRPlus, false, false, false},
	{"dr (wrong G, true m)", method.DR, true, false, false},
	{"dr (true G, wrong m)", method.DR, false, true, false},
	{"dr-po+ (true G and m)", method.DRPOPlus, false, false, false},
	{"dr-po (wrong G, true m)", method.DRPO, true, false, false},
	{"dr-po (true G, wrong m)", method.DRPO, false, true, false},
	{"obs", method.Obs, false, false, true},
	{"ip (wrong G)", method.IP, true, false, true},
	{"reg (wrong m)", method.Reg, false, true, true},
}

// withWrongModels returns a copy of rows whose G (the learned slot; GTrue keeps the truth)
// and/or m are replaced by wrong models: G by a constant, ignoring that the missingness
// depends on X; m by P(Z = 1 | Y), ignoring X, so it carries no information within a stratum.
func withWrongModels(rows Rows, wrongG, wrongM bool) Rows {
	r := rows
	if wrongG {
		r.G = make([]float64, rows.Len())
		for i := range r.G {
			r.G[i] = 0.5
		}
	}
	if wrongM {
		r.M = make([]float64, rows.Len())
		for i := range r.M {
			r.M[i] = defaultTestDGP().pZ[int(rows.Y[i])]
		}
	}
	return r
}

// plugIn is the penalty with the normalisers at their population values P(Z = b | Y = y)
// P(Z' = b' | Y = y): a linear combination of the T terms, so it is unbiased exactly when
// they are.
func plugIn(r Result) float64 {
	p := defaultTestDGP().pZ
	v := 0.0
	for _, t := range r.Terms {
		p1, p0 := p[int(t.Y)], 1-p[int(t.Y)]
		v += t.T[1][1]/(p1*p1) + t.T[0][0]/(p0*p0) - 2*t.T[1][0]/(p1*p0)
	}
	return v
}

// TestMonteCarloUnbiasedAndDoublyRobust draws independent batches from a process with known
// G and m and checks, for each case, the mean over draws of (estimate − full estimate on the
// same draw); pairing cancels most of the sampling noise. With the normalisers at their true
// values the penalty is a linear combination of the U-statistics T_bb', which are unbiased
// when G or m is right (Propositions 3–5): ip+, reg with the true m, dr+, and dr with one
// wrong model must match full within 3 standard errors, while obs, ip with a wrong G and
// reg with a wrong m must miss it by more than 6.
func TestMonteCarloUnbiasedAndDoublyRobust(t *testing.T) {
	for _, opts := range []Options{{MainFraction: 1}, {}} {
		t.Run(fmt.Sprintf("main fraction %v", opts.MainFraction), func(t *testing.T) { plugInStudy(t, opts) })
	}
}

func plugInStudy(t *testing.T, opts Options) {
	const draws, n = 300, 1200
	rng := rand.New(rand.NewPCG(11, 12))
	dgp := defaultTestDGP()
	diffs := make([][]float64, len(mcCases))
	for r := 0; r < draws; r++ {
		h, rows := dgp.draw(rng, n)
		full, err := estimateWith(h, rows, opts, method.Full)
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range mcCases {
			res, err := estimateWith(h, withWrongModels(rows, c.wrongG, c.wrongM), opts, c.method)
			if err != nil {
				t.Fatal(err)
			}
			diffs[k] = append(diffs[k], plugIn(res[0])-plugIn(full[0]))
		}
	}
	checkCases(t, diffs, "mean")
}

// TestMonteCarloMeanZ checks the estimators of E[Z] (appendix E) the same way: IP with the
// true G, regression with the true m, and DR with either one right are unbiased for E[Z];
// the observed mean, IP with a wrong G and regression with a wrong m are biased.
func TestMonteCarloMeanZ(t *testing.T) {
	const draws, n = 400, 1000
	rng := rand.New(rand.NewPCG(21, 22))
	dgp := defaultTestDGP()
	diffs := make([][]float64, len(mcCases))
	for r := 0; r < draws; r++ {
		_, rows := dgp.draw(rng, n)
		full, err := MeanZ(method.Full, rows, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range mcCases {
			// E[Z] pools both strata, so a wrong m must ignore X and Y alike to be wrong.
			rr := withWrongModels(rows, c.wrongG, false)
			if c.wrongM {
				rr.M = make([]float64, n)
				for i := range rr.M {
					rr.M[i] = 0.3
				}
			}
			est, err := MeanZ(c.method, rr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			diffs[k] = append(diffs[k], est-full)
		}
	}
	checkCases(t, diffs, "E[Z] estimate")
}

// TestMonteCarloRatioEstimators checks the estimators as used, with normalisers estimated
// from the batch: a ratio of unbiased estimates is only consistent, with a bias of order
// 1/n, so the draws are large (summed with the Fourier expansion) for that bias to sit
// inside the 3 standard errors. The same cases as above must hold.
func TestMonteCarloRatioEstimators(t *testing.T) {
	if testing.Short() {
		t.Skip("large Monte Carlo study")
	}
	//
	// The normalisers are estimated on the batch's own rows (MainFraction 1). With the
	// paper's 1/4 : 3/4 split they come from a quarter of the rows and are independent of
	// the main terms, and the ratio's bias against full is larger: at n = 24000 ip+ sits
	// +0.008 (4 standard errors) above full, about 4% of the MMD. The split's T terms are
	// still unbiased (TestMonteCarloUnbiasedAndDoublyRobust runs both settings).
	const draws, n = 160, 8000
	opts := Options{MainFraction: 1}
	rng := rand.New(rand.NewPCG(51, 52))
	dgp := defaultTestDGP()
	diffs := make([][]float64, len(mcCases))
	for r := 0; r < draws; r++ {
		h, rows := dgp.draw(rng, n)
		// One design per set of auxiliary models: true G and m; wrong G; wrong m.
		type variantSet struct {
			rows Rows
			idx  []int // cases served
		}
		sets := map[[2]bool]*variantSet{}
		for k, c := range mcCases {
			key := [2]bool{c.wrongG, c.wrongM}
			if sets[key] == nil {
				sets[key] = &variantSet{rows: withWrongModels(rows, c.wrongG, c.wrongM)}
			}
			sets[key].idx = append(sets[key].idx, k)
		}
		full, err := func() (float64, error) {
			d, err := NewDesign(rows, opts, method.Full)
			if err != nil {
				return 0, err
			}
			res, err := d.Evaluate(ScalarRep(h), FourierSums{})
			if err != nil {
				return 0, err
			}
			return res[0].Value, nil
		}()
		if err != nil {
			t.Fatal(err)
		}
		for _, vs := range sets {
			var ms []method.Method
			for _, k := range vs.idx {
				ms = append(ms, mcCases[k].method)
			}
			d, err := NewDesign(vs.rows, opts, ms...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := d.Evaluate(ScalarRep(h), FourierSums{})
			if err != nil {
				t.Fatal(err)
			}
			for j, k := range vs.idx {
				diffs[k] = append(diffs[k], res[j].Value-full)
			}
		}
	}
	checkCases(t, diffs, "mean")
}

// estimateWith is Estimate with the kernel sums of the Fourier expansion (per-pair error
// 1e-10), which keeps the Monte Carlo studies fast.
func estimateWith(h []float64, rows Rows, opts Options, methods ...method.Method) ([]Result, error) {
	d, err := NewDesign(rows, opts, methods...)
	if err != nil {
		return nil, err
	}
	return d.Evaluate(ScalarRep(h), FourierSums{})
}

// checkCases checks the paired differences (estimate − full, one slice per mcCase): an
// unbiased case's mean within 3 standard errors of 0, a biased case's beyond 6.
func checkCases(t *testing.T, diffs [][]float64, what string) {
	t.Helper()
	for k, c := range mcCases {
		m, se := meanSE(diffs[k])
		t.Logf("%-22s mean − full = %+.4f (se %.4f, %+.1f se)", c.name, m, se, m/se)
		if !c.biased && math.Abs(m) > 3*se {
			t.Errorf("%s: %s differs from full by %.4f = %.1f standard errors, want within 3", c.name, what, m, m/se)
		}
		if c.biased && math.Abs(m) < 6*se {
			t.Errorf("%s: %s differs from full by only %.4f = %.1f standard errors, want a bias beyond 6", c.name, what, m, m/se)
		}
	}
}
