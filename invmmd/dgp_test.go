package invmmd

import (
	"math"
	"math/rand/v2"
)

// testDGP is a data-generating process with known missingness G and regression m, used by
// the Monte Carlo tests. Y uniform on the classes (B(0.5) for two), Z | Y ~ B(pZ[Y]), X | Y, Z ~ N(Z + 0.5·Y, 1), the
// model output is h = X (it leaks Z), and Z is observed with probability
// G(x, y) = gLo + (gHi − gLo)·σ(3(x − 0.7) + y), which depends on X, so that the observed
// rows are a biased sample (the situation of Proposition 2).
type testDGP struct {
	pZ       []float64 // P(Z = 1 | Y = y) for each class y; Y is uniform on the classes
	gLo, gHi float64
}

func defaultTestDGP() testDGP { return testDGP{pZ: []float64{0.3, 0.7}, gLo: 0.15, gHi: 0.95} }

func (d testDGP) g(x, y float64) float64 {
	return d.gLo + (d.gHi-d.gLo)/(1+math.Exp(-(3*(x-0.7)+y)))
}

// m is P(Z = 1 | X = x, Y = y) by Bayes' rule.
func (d testDGP) m(x, y float64) float64 {
	p := d.pZ[int(y)]
	l1 := p * math.Exp(-0.5*sq(x-1-0.5*y))
	l0 := (1 - p) * math.Exp(-0.5*sq(x-0.5*y))
	return l1 / (l1 + l0)
}

func sq(x float64) float64 { return x * x }

// draw returns n rows with h, the true G (in both G and GTrue) and the true m.
func (d testDGP) draw(rng *rand.Rand, n int) ([]float64, Rows) {
	h := make([]float64, n)
	r := Rows{Y: make([]float64, n), Z: make([]float64, n), Delta: make([]float64, n),
		G: make([]float64, n), GTrue: make([]float64, n), M: make([]float64, n)}
	for i := 0; i < n; i++ {
		y := float64(rng.IntN(len(d.pZ)))
		z := 0.0
		if rng.Float64() < d.pZ[int(y)] {
			z = 1
		}
		x := z + 0.5*y + rng.NormFloat64()
		g := d.g(x, y)
		if rng.Float64() < g {
			r.Delta[i] = 1
		}
		h[i], r.Y[i], r.Z[i], r.G[i], r.GTrue[i], r.M[i] = x, y, z, g, g, d.m(x, y)
	}
	return h, r
}

// meanSE returns the mean and standard error of xs.
func meanSE(xs []float64) (mean, se float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	v := 0.0
	for _, x := range xs {
		v += sq(x - mean)
	}
	return mean, math.Sqrt(v / (n - 1) / n)
}

// seCalibration returns the root mean square of the standard errors ses and the standard
// deviation of the estimates vals, whose ratio says whether a variance estimator is
// calibrated: E[SE²] = Var. (The mean SE is pulled below the sd by a heavy tail of
// estimates even when SE² is unbiased; the root mean square is not.)
func seCalibration(ses, vals []float64) (rms, sd float64) {
	mean, _ := meanSE(vals)
	for k, v := range vals {
		sd += sq(v - mean)
		rms += ses[k] * ses[k]
	}
	return math.Sqrt(rms / float64(len(ses))), math.Sqrt(sd / float64(len(vals)-1))
}
