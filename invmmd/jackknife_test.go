package invmmd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestJackknifeSE compares the root mean square standard error of Estimate (the jackknife less its
// second-order excess, jackknife_degenerate.go) with the standard deviation of the
// estimates over independent batches, when h depends on Z (MMD² > 0) and when it does not
// (MMD² = 0, where the U-statistic is degenerate and the plain jackknife's ratio was
// 1.27–1.36), over the batches whose estimate is not flagged unreliable. The ratio must lie
// within [0.75, 1.3]: the promise [0.85, 1.2] widened by about three Monte Carlo standard
// errors of a standard deviation from 200 batches (≈ 5% each). A batch far out in the tail
// (dr's estimate is a ratio with an estimated denominator) must carry an SE of its size.
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
			var vals, ses []float64
			for _, d := range draws[k] {
				if !d.flagged {
					vals, ses = append(vals, d.v), append(ses, d.se)
				}
			}
			mean, _ := meanSE(vals)
			se, sd := seCalibration(ses, vals)
			ratio := se / sd
			t.Logf("null=%v %v: %d of %d batches flagged; others: mean %.4f, sd over batches %.4f, RMS SE %.4f (ratio %.2f)",
				null, m, reps-len(vals), reps, mean, sd, se, ratio)
			if ratio < 0.75 || ratio > 1.3 || len(vals) < reps/2 {
				t.Errorf("null=%v %v: RMS SE / sd = %.2f over %d unflagged batches, want within [0.75, 1.3] over at least half of them", null, m, ratio, len(vals))
			}
			for r, d := range draws[k] {
				if math.Abs(d.v-mean) > 8*sd && d.se < math.Abs(d.v-mean)/4 {
					t.Errorf("null=%v %v: batch %d estimate %.3g (%.1f sd out) has SE %.3g, flagged %v", null, m, r, d.v, math.Abs(d.v-mean)/sd, d.se, d.flagged)
				}
			}
		}
	}
}

// TestStandardErrorsAtScale checks the standard errors of Estimate at 10⁵ rows, where the
// kernel sums take the Fourier series (linear in the rows): over 100 independent batches
// with h dependent on Z and the true G and m, the RMS SE of full, ip and dr must lie
// within [0.85, 1.2] of the standard deviation of their estimates, widened by the Monte
// Carlo error of a standard deviation from 100 batches (≈ 7%): [0.78, 1.3].
func TestStandardErrorsAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("100 batches of 10⁵ rows (about two minutes)")
	}
	const reps, n = 100, 100000
	rng := rand.New(rand.NewPCG(53, 54))
	methods := []method.Method{method.Full, method.IP, method.DR}
	vals, ses := make([][]float64, len(methods)), make([][]float64, len(methods))
	for r := 0; r < reps; r++ {
		h, rows := defaultTestDGP().draw(rng, n)
		res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1}, methods...)
		if err != nil {
			t.Fatal(err)
		}
		for k, x := range res {
			if x.Path.Name != "fourier" {
				t.Fatalf("%v: path %v, want the Fourier series at %d rows", methods[k], x.Path, n)
			}
			vals[k] = append(vals[k], x.Value)
			ses[k] = append(ses[k], x.ValueSE)
		}
	}
	for k, m := range methods {
		mean, _ := meanSE(vals[k])
		se, sd := seCalibration(ses[k], vals[k])
		t.Logf("%v: mean %.5f, sd over batches %.5f, RMS SE %.5f (ratio %.2f)", m, mean, sd, se, se/sd)
		if r := se / sd; r < 0.78 || r > 1.3 {
			t.Errorf("%v: RMS SE / sd = %.2f at %d rows, want within [0.78, 1.3]", m, r, n)
		}
	}
}
