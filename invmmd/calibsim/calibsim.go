// Package calibsim generates the data of the invariance test's calibration study: a model
// output h that depends on the nuisance Z given Y with a chosen strength δ (δ = 0 is the
// null hypothesis h ⊥ Z | Y), with Z missing at random given X in a way that makes the
// observed rows a biased sample — the setting of the paper's Proposition 2, where a test
// on the observed rows alone is not valid.
//
//	Y ~ B(0.5),  s = 2Y − 1,  X₁ ~ N(0.8·s, 1),  X₂ ~ N(0, 1)  (independent given Y),
//	Z | X, Y ~ B(σ(1.5·X₂ + 0.5·s)),           the true m(X, Y) = P(Z = 1 | X, Y),
//	Δ | X, Y ~ B(σ(0.3 + 0.8·X₁ + 0.8·X₂)),    the true G(X, Y) = P(Δ = 1 | X, Y),
//	h = X₁ + δ·X₂.
//
// h depends on Z given Y only through X₂, with strength δ. Because Δ depends on X₁ + X₂, the
// rows with Δ = 1 carry a negative dependence between X₁ and X₂ (selection on a sum: Berkson's
// bias), so among them h = X₁ depends on Z even at δ = 0. Both G and m are logistic in
// (1, X₁, X₂, s), so a logistic regression on those inputs (FitLogistic) is correctly
// specified for both, as the doubly robust test's validity asks of at least one of them.
package calibsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// The coefficients of the generating process (see the package comment).
const (
	MeanX1 = 0.8 // X₁'s mean is MeanX1·s
	ZX2    = 1.5 // Z's logit: ZX2·X₂ + ZY·s
	ZY     = 0.5
	GConst = 0.3 // Δ's logit: GConst + GX·(X₁ + X₂)
	GX     = 0.8
)

// Sample is n rows of the simulation.
type Sample struct {
	X1, X2 []float64
	Y, Z   []float64 // Z is NaN where Δ = 0
	ZFull  []float64 // Z on every row (the simulation knows it), for the full-data test
	Delta  []float64
	GTrue  []float64 // true P(Δ = 1 | X, Y)
	MTrue  []float64 // true P(Z = 1 | X, Y)
	H      []float64 // h = X₁ + δ·X₂
}

// Len returns the number of rows.
func (s *Sample) Len() int { return len(s.Y) }

// Draw returns n rows with dependence strength delta, from rng.
func Draw(n int, delta float64, rng *rand.Rand) *Sample {
	s, _ := DrawKind(n, delta, dataset.BinaryZ, rng) // no error for the binary kind
	return s
}

// add appends a row with Δ ~ Bernoulli(g) drawn from rng (Z observed where Δ = 1).
func (s *Sample) add(x1, x2, y, z, g, h float64, rng *rand.Rand) {
	d, zo := 0.0, math.NaN()
	if rng.Float64() < g {
		d, zo = 1, z
	}
	s.X1, s.X2, s.Y = append(s.X1, x1), append(s.X2, x2), append(s.Y, y)
	s.Z, s.ZFull, s.Delta = append(s.Z, zo), append(s.ZFull, z), append(s.Delta, d)
	s.GTrue, s.H = append(s.GTrue, g), append(s.H, h)
}

func sigmoid(t float64) float64 { return 1 / (1 + math.Exp(-t)) }

// Inputs returns the design rows (1, X₁, X₂, s) on which G and m are logistic.
func (s *Sample) Inputs() [][]float64 {
	x := make([][]float64, s.Len())
	for i := range x {
		x[i] = []float64{1, s.X1[i], s.X2[i], 2*s.Y[i] - 1}
	}
	return x
}

// Nuisances are G and m fitted by logistic regression on (1, X₁, X₂, s).
type Nuisances struct {
	G, M []float64 // coefficients
}

// FitNuisances fits G on every row of s (target Δ) and m on the rows with Z observed
// (target Z): maximum likelihood, correctly specified for this simulation.
func FitNuisances(s *Sample) (Nuisances, error) {
	x := s.Inputs()
	g, err := FitLogistic(x, s.Delta)
	if err != nil {
		return Nuisances{}, fmt.Errorf("calibsim: G: %w", err)
	}
	var xo [][]float64
	var zo []float64
	for i, d := range s.Delta {
		if d == 1 {
			xo, zo = append(xo, x[i]), append(zo, s.Z[i])
		}
	}
	m, err := FitLogistic(xo, zo)
	if err != nil {
		return Nuisances{}, fmt.Errorf("calibsim: m: %w", err)
	}
	return Nuisances{G: g, M: m}, nil
}

// Predict returns Ĝ and m̂ at every row of s.
func (nu Nuisances) Predict(s *Sample) (g, m []float64) {
	for _, x := range s.Inputs() {
		g, m = append(g, sigmoid(dot(nu.G, x))), append(m, sigmoid(dot(nu.M, x)))
	}
	return g, m
}

func dot(a, b []float64) float64 {
	t := 0.0
	for i := range a {
		t += a[i] * b[i]
	}
	return t
}

// FitLogistic returns the maximum-likelihood coefficients β of P(y = 1 | x) = σ(β·x) by
// Newton's method (iteratively reweighted least squares), stopping when no coefficient
// moves by more than 1e-10; a ridge of 1e-8 on the Hessian keeps it invertible. It returns
// an error for no rows, targets outside {0, 1}, or no convergence in 100 steps (separable
// data).
func FitLogistic(x [][]float64, y []float64) ([]float64, error) {
	if len(x) == 0 || len(x) != len(y) {
		return nil, fmt.Errorf("logistic regression on %d rows and %d targets", len(x), len(y))
	}
	p := len(x[0])
	beta := make([]float64, p)
	for it := 0; it < 100; it++ {
		hess := mat.NewSymDense(p, nil)
		grad := mat.NewVecDense(p, nil)
		for i, xi := range x {
			if y[i] != 0 && y[i] != 1 {
				return nil, fmt.Errorf("row %d: target %v, want 0 or 1", i, y[i])
			}
			mu := sigmoid(dot(beta, xi))
			w := mu * (1 - mu)
			for a := 0; a < p; a++ {
				grad.SetVec(a, grad.AtVec(a)+(y[i]-mu)*xi[a])
				for b := a; b < p; b++ {
					hess.SetSym(a, b, hess.At(a, b)+w*xi[a]*xi[b])
				}
			}
		}
		for a := 0; a < p; a++ {
			hess.SetSym(a, a, hess.At(a, a)+1e-8)
		}
		var chol mat.Cholesky
		if !chol.Factorize(hess) {
			return nil, fmt.Errorf("logistic regression: the Hessian is not positive definite at step %d", it)
		}
		var step mat.VecDense
		if err := chol.SolveVecTo(&step, grad); err != nil {
			return nil, fmt.Errorf("logistic regression: %w", err)
		}
		moved := 0.0
		for a := range beta {
			beta[a] += step.AtVec(a)
			moved = math.Max(moved, math.Abs(step.AtVec(a)))
		}
		if moved < 1e-10 {
			return beta, nil
		}
	}
	return nil, fmt.Errorf("logistic regression did not converge in 100 Newton steps (separable data?)")
}

// The same simulation with a nuisance of another kind (the calibration study of the test
// for every kind of Z): Y, X₁, X₂, Δ and h as in Draw, and
//
//	categorical (3 levels): P(Z = b | X, Y) ∝ exp(l_b),  l₀ = 0,  l₁ = ZX2·X₂ + ZY·s,  l₂ = −ZX2·X₂ + ZY·s,
//	continuous:             Z | X, Y ~ N(ZX2·X₂ + ZY·s, 1).
//
// In both Z depends on X₂ (and Y), so h = X₁ + δ·X₂ depends on Z given Y exactly when
// δ ≠ 0, and the observed rows (Δ depends on X₁ + X₂) carry Berkson's bias as before.

// DrawKind returns n rows with dependence strength delta and a nuisance of the given kind
// (binary, categorical or continuous), from rng: Z and ZFull hold the level (0, 1, 2) or
// the value, and MTrue is set for the binary kind only. The binary kind is Draw's process.
func DrawKind(n int, delta float64, kind dataset.ZKind, rng *rand.Rand) (*Sample, error) {
	if kind != dataset.BinaryZ && kind != dataset.CategoricalZ && kind != dataset.ContinuousZ {
		return nil, fmt.Errorf("calibsim: no simulation of a %v nuisance", kind)
	}
	s := &Sample{}
	for range n {
		y := float64(rng.IntN(2))
		sg := 2*y - 1
		x1 := MeanX1*sg + rng.NormFloat64()
		x2 := rng.NormFloat64()
		g := sigmoid(GConst + GX*(x1+x2))
		var z float64
		switch kind {
		case dataset.BinaryZ:
			m := sigmoid(ZX2*x2 + ZY*sg)
			if rng.Float64() < m {
				z = 1
			}
			s.MTrue = append(s.MTrue, m)
		case dataset.CategoricalZ:
			l := [3]float64{0, ZX2*x2 + ZY*sg, -ZX2*x2 + ZY*sg}
			tot := 0.0
			for b := range l {
				l[b] = math.Exp(l[b])
				tot += l[b]
			}
			u := rng.Float64() * tot
			switch {
			case u < l[0]:
				z = 0
			case u < l[0]+l[1]:
				z = 1
			default:
				z = 2
			}
		default:
			z = ZX2*x2 + ZY*sg + rng.NormFloat64()
		}
		s.add(x1, x2, y, z, g, x1+delta*x2, rng)
	}
	return s, nil
}
