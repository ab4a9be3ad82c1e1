package penalty

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
)

// The rows the graph tests compare the graph penalty on with the float64 reference of
// package invmmd. The graph only has to agree with the reference on some valid rows, so
// these are plain random draws in the shape of package invmmd's test processes, not a
// model with known G and m.

// binaryRows draws n rows of a binary Z: Y ~ B(0.5), Z | Y ~ B(0.3 + 0.4Y), h = Z + 0.5Y +
// N(0, 1) (it leaks Z), Z observed with probability G(h, y) = 0.15 + 0.8σ(3(h − 0.7) + y),
// learned G and m equal to the truth (G also as GTrue).
func binaryRows(rng *rand.Rand, n int) ([]float64, invmmd.Rows) {
	h := make([]float64, n)
	r := invmmd.Rows{Y: make([]float64, n), Z: make([]float64, n), Delta: make([]float64, n),
		G: make([]float64, n), GTrue: make([]float64, n), M: make([]float64, n)}
	for i := range n {
		y := float64(rng.IntN(2))
		p := 0.3 + 0.4*y
		if rng.Float64() < p {
			r.Z[i] = 1
		}
		x := r.Z[i] + 0.5*y + rng.NormFloat64()
		g := 0.15 + 0.8/(1+math.Exp(-(3*(x-0.7)+y)))
		if rng.Float64() < g {
			r.Delta[i] = 1
		}
		l1, l0 := p*math.Exp(-0.5*sq(x-1-0.5*y)), (1-p)*math.Exp(-0.5*sq(x-0.5*y))
		h[i], r.Y[i], r.G[i], r.GTrue[i], r.M[i] = x, y, g, g, l1/(l1+l0)
	}
	return h, r
}

// jointRows draws n rows of a categorical (3 levels) or continuous nuisance given as
// features: h leaks Z, Z observed with probability 0.3–0.9 depending on h, MPsi a random
// perturbation of ψ(Z).
func jointRows(rng *rand.Rand, kind dataset.ZKind, n int) ([]float64, invmmd.Rows) {
	h, z := make([]float64, n), make([]float64, n)
	r := invmmd.Rows{Y: make([]float64, n), Delta: make([]float64, n), G: make([]float64, n), GTrue: make([]float64, n)}
	for i := range n {
		y := float64(rng.IntN(2))
		if kind == dataset.CategoricalZ {
			z[i] = float64(rng.IntN(3))
		} else {
			z[i] = 2*y - 1 + rng.NormFloat64()
		}
		h[i] = z[i] + 0.5*y + rng.NormFloat64()
		g := 0.3 + 0.6/(1+math.Exp(-h[i]))
		if rng.Float64() < g {
			r.Delta[i] = 1
		}
		r.Y[i], r.G[i], r.GTrue[i] = y, g, g
	}
	var fm invmmd.FeatureMap = invmmd.CategoricalMap{K: 3, Names: []string{"a", "b", "c"}}
	if kind != dataset.CategoricalZ {
		gm, err := invmmd.NewGaussianMap(z, nil, 0, 0)
		if err != nil {
			panic(err)
		}
		fm = gm
	}
	return h, withFeatures(rng, r, fm, z)
}

// vectorRows draws n rows of a two-component vector nuisance with random features.
func vectorRows(rng *rand.Rand, n int) ([]float64, invmmd.Rows) {
	z, h := make([]float64, 2*n), make([]float64, n)
	r := invmmd.Rows{Y: make([]float64, n), Delta: make([]float64, n), G: make([]float64, n), GTrue: make([]float64, n)}
	for i := range n {
		r.Y[i] = float64(rng.IntN(2))
		z[2*i], z[2*i+1] = rng.NormFloat64()+r.Y[i], 3*rng.NormFloat64()
		h[i] = z[2*i] + rng.NormFloat64()
		if rng.Float64() < 0.6 {
			r.Delta[i] = 1
		}
		r.G[i], r.GTrue[i] = 0.6, 0.6
	}
	fm, err := invmmd.NewRandomFeatureMap(z, nil, 2, 0, 5, 9)
	if err != nil {
		panic(err)
	}
	return h, withFeatures(rng, r, fm, z)
}

// withFeatures sets r.Psi to ψ(z) (z holds ZDim numbers per row) and r.MPsi to ψ(z) plus noise.
func withFeatures(rng *rand.Rand, r invmmd.Rows, fm invmmd.FeatureMap, z []float64) invmmd.Rows {
	psi, err := invmmd.Apply(fm, z)
	if err != nil {
		panic(err)
	}
	r.Psi = psi
	r.MPsi = &invmmd.Features{Dim: psi.Dim, Data: slices.Clone(psi.Data)}
	for k := range r.MPsi.Data {
		r.MPsi.Data[k] += 0.2 * rng.NormFloat64()
	}
	return r
}

// widen returns an [n, d] representation whose first column is h and whose others mix h
// with noise.
func widen(rng *rand.Rand, h []float64, d int) invmmd.Rep {
	out := make([]float64, len(h)*d)
	for i, x := range h {
		out[i*d] = x
		for k := 1; k < d; k++ {
			a := 1 / math.Sqrt(float64(k+1))
			if k%2 == 1 {
				a = -a
			}
			out[i*d+k] = a*x + 0.5*rng.NormFloat64()
		}
	}
	return invmmd.Rep{Dim: d, Data: out}
}

// wideBandwidth is a bandwidth of the order of the median distance of widen's rows.
func wideBandwidth(d int) float64 { return 0.5 + 0.5*math.Sqrt(float64(d)) }

// span returns max h − min h.
func span(h []float64) float64 { return slices.Max(h) - slices.Min(h) }

func sq(x float64) float64 { return x * x }
