package invmmd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestJackknifeSE compares the mean jackknife standard error of Estimate with the standard
// deviation of the estimates over independent batches, when h depends on Z (MMD² > 0) and
// when it does not (MMD² = 0, where the U-statistic is degenerate), over the batches whose
// estimate is not flagged unreliable. The jackknife is conservative in expectation
// (Efron–Stein), so the ratio should not fall below 1 by more than the Monte Carlo error of
// a standard deviation from ~200 batches (≈ 5%; 0.85 leaves three of them), and it should
// stay within a small factor of 1 to be informative. A batch far out in the tail (dr's
// estimate is a ratio with an estimated denominator) must carry an SE of its size.
func TestJackknifeSE(t *testing.T) {
	const reps, n = 200, 400
	for _, null := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(51, 52))
		methods := []method.Method{method.Full, method.IP, method.DR}
		type draw struct {
			v, se   float64
			flagged bool
		}
		draws := make([][]draw, len(methods))
		for r := 0; r < reps; r++ {
			h, rows := defaultTestDGP().draw(rng, n)
			if null {
				for i := range h {
					h[i] = 0.5*rows.Y[i] + rng.NormFloat64()
				}
			}
			res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1}, methods...)
			if err != nil {
				t.Fatal(err)
			}
			for k, x := range res {
				draws[k] = append(draws[k], draw{x.Value, x.ValueSE, len(x.Report.Unreliable()) > 0})
			}
		}
		for k, m := range methods {
			var vals []float64
			var se float64
			for _, d := range draws[k] {
				if !d.flagged {
					vals = append(vals, d.v)
					se += d.se
				}
			}
			se /= float64(len(vals))
			mean, _ := meanSE(vals)
			var v float64
			for _, x := range vals {
				v += sq(x - mean)
			}
			sd := math.Sqrt(v / float64(len(vals)-1))
			ratio := se / sd
			t.Logf("null=%v %v: %d of %d batches flagged; others: mean %.4f, sd over batches %.4f, mean jackknife SE %.4f (ratio %.2f)",
				null, m, reps-len(vals), reps, mean, sd, se, ratio)
			if ratio < 0.85 || ratio > 2.5 || len(vals) < reps/2 {
				t.Errorf("null=%v %v: mean SE / sd = %.2f over %d unflagged batches, want within [0.85, 2.5] over at least half of them", null, m, ratio, len(vals))
			}
			for r, d := range draws[k] {
				if math.Abs(d.v-mean) > 8*sd && d.se < math.Abs(d.v-mean)/4 {
					t.Errorf("null=%v %v: batch %d estimate %.3g (%.1f sd out) has SE %.3g, flagged %v", null, m, r, d.v, math.Abs(d.v-mean)/sd, d.se, d.flagged)
				}
			}
		}
	}
}
