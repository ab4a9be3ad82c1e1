package invmmd

import (
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestMonteCarloWide is TestMonteCarloUnbiasedAndDoublyRobust for an 8-column
// representation with the exact kernel exp(−‖h − h'‖²/(2σ²)): h is the process's output
// widened to 8 columns (widen: every column depends on Z through X, plus noise independent
// of everything, so the true G and m stay true). With the normalisers at their population
// values each penalty is a linear combination of U-statistics, so full, ip (true G), reg
// (true m) and dr and dr-po (either model right) estimate the same full-data MMD² without
// bias: each case's mean paired difference from full on the same draw must lie within 3
// standard errors of 0, while obs, ip with a wrong G and reg with a wrong m must miss it
// by more than 6.
func TestMonteCarloWide(t *testing.T) {
	const draws, n, dim = 200, 600, 8
	opts := Options{MainFraction: 1, Bandwidth: wideBandwidth(dim)}
	rng := rand.New(rand.NewPCG(111, 112))
	dgp := defaultTestDGP()
	diffs := make([][]float64, len(mcCases))
	for r := 0; r < draws; r++ {
		h, rows := dgp.draw(rng, n)
		w := widen(rng, h, dim)
		// One design per set of auxiliary models (true; wrong G; wrong m), full in the first.
		type variantSet struct {
			wrongG, wrongM bool
			idx            []int // cases served
		}
		sets := []*variantSet{{false, false, nil}, {true, false, nil}, {false, true, nil}}
		for k, c := range mcCases {
			for _, s := range sets {
				if s.wrongG == c.wrongG && s.wrongM == c.wrongM {
					s.idx = append(s.idx, k)
				}
			}
		}
		var full float64
		for si, s := range sets {
			var ms []method.Method
			if si == 0 {
				ms = append(ms, method.Full)
			}
			for _, k := range s.idx {
				ms = append(ms, mcCases[k].method)
			}
			d, err := NewDesign(withWrongModels(rows, s.wrongG, s.wrongM), opts, ms...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := d.Evaluate(w, nil)
			if err != nil {
				t.Fatal(err)
			}
			if si == 0 {
				full, res = plugIn(res[0]), res[1:]
			}
			for j, k := range s.idx {
				diffs[k] = append(diffs[k], plugIn(res[j])-full)
			}
		}
	}
	checkCases(t, diffs, "mean")
}
