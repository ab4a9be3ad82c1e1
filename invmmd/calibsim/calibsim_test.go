package calibsim

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// TestFitLogisticRecoversTheTruth fits G and m on a large sample: the coefficients must be
// within 4 standard errors (approximated as 4/√n times a generous constant) of the
// generating ones, with 0 for the inputs the truth does not use.
func TestFitLogisticRecoversTheTruth(t *testing.T) {
	s := Draw(40000, 0, rand.New(rand.NewPCG(1, 2)))
	nu, err := FitNuisances(s)
	if err != nil {
		t.Fatal(err)
	}
	// Inputs (1, X1, X2, s).
	wantG := []float64{GConst, GX, GX, 0}
	wantM := []float64{0, 0, ZX2, ZY}
	tol := 4 * 3 / math.Sqrt(float64(s.Len())) // about 4 SE: each SE ≤ 3/√n here
	for i := range wantG {
		if math.Abs(nu.G[i]-wantG[i]) > tol {
			t.Errorf("G coefficient %d: %.4f, want %.4f ± %.3f", i, nu.G[i], wantG[i], tol)
		}
		if math.Abs(nu.M[i]-wantM[i]) > 2*tol { // m is fitted on the observed rows only
			t.Errorf("m coefficient %d: %.4f, want %.4f ± %.3f", i, nu.M[i], wantM[i], 2*tol)
		}
	}
}

// TestObservedRowsAreBiased checks the property the study rests on: at δ = 0, h and Z are
// uncorrelated within Y = 1 on all rows and clearly correlated on the observed rows.
func TestObservedRowsAreBiased(t *testing.T) {
	s := Draw(40000, 0, rand.New(rand.NewPCG(3, 4)))
	corr := func(observed bool) float64 {
		var h, z []float64
		for i := range s.H {
			if s.Y[i] == 1 && (!observed || s.Delta[i] == 1) {
				h, z = append(h, s.H[i]), append(z, s.ZFull[i])
			}
		}
		mh, mz := mean(h), mean(z)
		var c, vh, vz float64
		for i := range h {
			c += (h[i] - mh) * (z[i] - mz)
			vh += (h[i] - mh) * (h[i] - mh)
			vz += (z[i] - mz) * (z[i] - mz)
		}
		return c / math.Sqrt(vh*vz)
	}
	all, obs := corr(false), corr(true)
	se := 1 / math.Sqrt(20000.0)
	if math.Abs(all) > 4*se {
		t.Errorf("all rows: corr(h, Z | Y = 1) = %.4f, want 0 within %.4f", all, 4*se)
	}
	if obs > -3*se {
		t.Errorf("observed rows: corr(h, Z | Y = 1) = %.4f, want clearly negative (< %.4f, 3 SE)", obs, -3*se)
	}
	if d := mean(s.Delta); d < 0.3 || d > 0.8 {
		t.Errorf("share of rows with Z observed %.3f, want between 0.3 and 0.8", d)
	}
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func TestFitLogisticErrors(t *testing.T) {
	x := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
	for _, c := range []struct {
		y    []float64
		want string
	}{
		{[]float64{0, 0, 1, 2}, "target 2"},
		{[]float64{0, 0, 1, 1}, "did not converge"}, // separable
		{nil, "4 rows and 0 targets"},
	} {
		if _, err := FitLogistic(x, c.y); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("y %v: error %v, want one containing %q", c.y, err, c.want)
		}
	}
}

// TestDrawKind checks the categorical and continuous simulations: the observed share of
// each level (or Z's mean and variance) given Y against the process, and that h ⊥ Z | Y at
// δ = 0 on the full data (correlation of h with Z's levels or value within each Y near 0)
// while the observed rows carry a dependence (Berkson's bias).
func TestDrawKind(t *testing.T) {
	for _, kind := range []dataset.ZKind{dataset.CategoricalZ, dataset.ContinuousZ} {
		k, err := DrawKind(60000, 0, kind, rand.New(rand.NewPCG(3, uint64(kind))))
		if err != nil {
			t.Fatal(err)
		}
		// The statistic: within Y = 1, the correlation of h with Z (continuous) or with
		// 1[Z = 1] − 1[Z = 2] (categorical, the direction Z follows X₂ in).
		score := func(z float64) float64 {
			if kind == dataset.ContinuousZ {
				return z
			}
			return map[float64]float64{0: 0, 1: 1, 2: -1}[z]
		}
		corr := func(observed bool) (float64, int) {
			var xs, ys []float64
			for i := range k.Y {
				if k.Y[i] != 1 || observed && k.Delta[i] == 0 {
					continue
				}
				xs, ys = append(xs, k.H[i]), append(ys, score(k.ZFull[i]))
			}
			return pearson(xs, ys), len(xs)
		}
		full, n := corr(false)
		obs, no := corr(true)
		if math.Abs(full) > 4/math.Sqrt(float64(n)) {
			t.Errorf("%v: corr(h, Z | Y = 1) on the full data %.4f over %d rows, want ≈ 0 at δ = 0", kind, full, n)
		}
		if obs > -4/math.Sqrt(float64(no)) {
			t.Errorf("%v: corr(h, Z | Y = 1) on the observed rows %.4f over %d rows, want clearly negative (Berkson's bias)", kind, obs, no)
		}
		if kind == dataset.ContinuousZ {
			var m, v float64
			for i := range k.Y {
				r := k.ZFull[i] - (ZX2*k.X2[i] + ZY*(2*k.Y[i]-1)) // Z − E[Z | X, Y]
				m += r / float64(k.Len())
				v += r * r / float64(k.Len())
			}
			if math.Abs(m) > 0.02 || math.Abs(v-1) > 0.03 {
				t.Errorf("continuous: Z − E[Z | X, Y] has mean %.4f, variance %.4f, want 0 and 1", m, v)
			}
		}
	}
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}
