// Package sim generates the simulation of Experiment 1 of the paper (eq. (10)): a label Y,
// a nuisance Z that agrees with Y in training and disagrees in test, two features that mix
// them, and a missingness of Z that depends on the features.
//
//	Y ~ B(0.5),  Z ~ B(a·Y + (1−a)·(1−Y))  (a = 0.9 train/validation, 0.1 test),
//	X = [N(Y − Z, σ_X²), N(Y + Z, σ_X²)],
//	h* = (X₁ + X₂)/2,  Ẑ = −(X₁ − X₂)/2,  Q = 1[h* > 0.6]·1[Ẑ < 0.6],  Δ ~ B(Q + 0.2(1 − Q)).
//
// The true G = Q + 0.2(1 − Q) is kept for ip+ and dr+. σ_X is not printed in the paper:
// σ_X = 0.7 is calibrated so that the Bayes classifier of the training distribution scores
// 0.891 on train and 0.680 on test, the paper's "none" row (TestCalibration checks it).
package sim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Config sizes and seeds the simulation.
type Config struct {
	NTrain, NVal, NTest int     // rows per split; 0 means 10,000, 5,000 and 10,000
	SigmaX              float64 // feature noise; 0 means 0.7
	Seed                uint64
}

// Defaults of Config.
const (
	DefaultNTrain = 10000
	DefaultNVal   = 5000
	DefaultNTest  = 10000
	DefaultSigmaX = 0.7
	TrainAgree    = 0.9 // P(Z = Y) in train and validation
	TestAgree     = 0.1 // P(Z = Y) in test
)

// Resolved returns cfg with defaults filled in, or an error for negative sizes or noise.
func (c Config) Resolved() (Config, error) {
	c.NTrain = cmp.Or(c.NTrain, DefaultNTrain)
	c.NVal = cmp.Or(c.NVal, DefaultNVal)
	c.NTest = cmp.Or(c.NTest, DefaultNTest)
	c.SigmaX = cmp.Or(c.SigmaX, DefaultSigmaX)
	if c.NTrain < 0 || c.NVal < 0 || c.NTest < 0 || !(c.SigmaX > 0) {
		return c, fmt.Errorf("sim: config %+v: want positive sizes and σ_X > 0", c)
	}
	return c, nil
}

// Generate draws the three splits. Each split has its own random stream derived from the
// seed, so changing one split's size leaves the others unchanged.
func Generate(cfg Config) (dataset.Splits, error) {
	c, err := cfg.Resolved()
	if err != nil {
		return dataset.Splits{}, err
	}
	mk := func(name string, n int, agree float64, stream uint64) *dataset.Set {
		return Sample(rand.New(rand.NewPCG(c.Seed, stream)), name, n, agree, c.SigmaX)
	}
	return dataset.Splits{
		Train: mk("train", c.NTrain, TrainAgree, 1),
		Val:   mk("val", c.NVal, TrainAgree, 2),
		Test:  mk("test", c.NTest, TestAgree, 3),
	}, nil
}

// Sample draws n rows with P(Z = Y) = agree and feature noise sigmaX from rng.
func Sample(rng *rand.Rand, name string, n int, agree, sigmaX float64) *dataset.Set {
	return SampleZ(rng, name, n, sigmaX, func(y float64) float64 {
		if rng.Float64() >= agree {
			return 1 - y
		}
		return y
	})
}

// SampleZ draws n rows as Sample does, with Z drawn from Y by z (which draws from rng, right
// after Y): X = (Y − Z, Y + Z) + σ_X·noise and Δ ~ Bernoulli(TrueG(X)).
func SampleZ(rng *rand.Rand, name string, n int, sigmaX float64, z func(y float64) float64) *dataset.Set {
	s := &dataset.Set{Name: name, Shape: []int{2}, X: make([]float32, 2*n),
		Y: make([]float64, n), Z: make([]float64, n), Delta: make([]float64, n), GTrue: make([]float64, n)}
	for i := 0; i < n; i++ {
		y := float64(rng.IntN(2))
		z := z(y)
		x1 := y - z + sigmaX*rng.NormFloat64()
		x2 := y + z + sigmaX*rng.NormFloat64()
		g := TrueG(x1, x2)
		d := 0.0
		if rng.Float64() < g {
			d = 1
		}
		s.X[2*i], s.X[2*i+1] = float32(x1), float32(x2)
		s.Y[i], s.Z[i], s.Delta[i], s.GTrue[i] = y, z, d, g
	}
	return s
}

// TrueG is the observation probability of the simulation: 1 where h* > 0.6 and Ẑ < 0.6,
// 0.2 elsewhere.
func TrueG(x1, x2 float64) float64 {
	hStar, zHat := (x1+x2)/2, -(x1-x2)/2
	if hStar > 0.6 && zHat < 0.6 {
		return 1
	}
	return 0.2
}

// TrueM is P(Z = 1 | X, Y) under the training distribution (P(Z = Y) = agree), by Bayes'
// rule with the Gaussian feature densities; the regression m that a perfect model learns.
func TrueM(x1, x2, y, agree, sigmaX float64) float64 {
	p1 := agree*y + (1-agree)*(1-y) // P(Z = 1 | Y)
	ll := func(z float64) float64 {
		a, b := x1-(y-z), x2-(y+z)
		return math.Exp(-(a*a + b*b) / (2 * sigmaX * sigmaX))
	}
	l1, l0 := p1*ll(1), (1-p1)*ll(0)
	return l1 / (l1 + l0)
}

// TrueMOf returns TrueM for every row of a set drawn from the training distribution
// (P(Z = Y) = TrainAgree) with feature noise sigmaX: the Bayes regression that a fitted m̂
// is compared with (train.Runtime.BayesM).
func TrueMOf(s *dataset.Set, sigmaX float64) []float64 {
	out := make([]float64, s.Len())
	for i := range out {
		x := s.Row(i)
		out[i] = TrueM(float64(x[0]), float64(x[1]), s.Y[i], TrainAgree, sigmaX)
	}
	return out
}

// InvariantAccuracy is the accuracy of the invariant predictor h* = (X₁ + X₂)/2 thresholded
// at 1/2, on any split: h* ~ N(Y, σ_X²/2) whatever Z, so it is right with probability
// Φ(1/(σ_X√2)) (0.843 at σ_X = 0.7). No model that is invariant to Z does better on the test
// split, which makes it the ceiling drawn on the simulation's results figures.
func InvariantAccuracy(sigmaX float64) float64 {
	return 0.5 * math.Erfc(-1/(2*sigmaX))
}
