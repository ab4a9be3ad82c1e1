// Package simcont generates the simulation with a continuous nuisance: Experiment 1 of the
// paper (its eq. 10) with Z a real number instead of a bit, so that the paper's extension
// to continuous nuisances (its appendix H, the MMD between p(h, Z) and p(h)p(Z)) can be
// trained and compared with the same protocol.
//
//	Y ~ B(0.5),   Z | Y ~ N(μ(Y), τ²),   μ(Y) = 0.1 + 0.8·Y (train, validation), 0.9 − 0.8·Y (test),
//	X = [N(Y − Z, σ_X²), N(Y + Z, σ_X²)],
//	h* = (X₁ + X₂)/2,  Ẑ = (X₂ − X₁)/2,  Q = 1[h* > 0.6]·1[Ẑ < 0.6],  Δ ~ B(Q + 0.2(1 − Q)).
//
// Z has the mean and variance of the binary simulation's Z given Y (0.9 or 0.1, variance
// 0.09 at τ = 0.3), and P(Z | Y) flips between training and test as there. The missingness is
// the binary simulation's (sim.TrueG): it depends on X, so the rows with Z observed are a
// biased sample and independence on them does not imply independence in the population
// (the paper's Proposition 2). h* ~ N(Y, σ_X²/2) whatever Z, so an invariant model scores at
// most sim.InvariantAccuracy(σ_X) (0.843 at σ_X = 0.7) on any split. Given X and Y, Z is
// normal (TruePosterior), so the true m(W) = E[ψ(Z) | X, Y] of a Gaussian kernel's Fourier
// features has a closed form (invmmd.GaussianMap.MeanUnderNormal).
package simcont

import (
	"cmp"
	"fmt"
	"math/rand/v2"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/sim"
)

// Config sizes and seeds the simulation.
type Config struct {
	NTrain, NVal, NTest int     // rows per split; 0 means the binary simulation's 10,000, 5,000 and 10,000
	SigmaX              float64 // feature noise σ_X; 0 means 0.7, as the binary simulation
	Tau                 float64 // standard deviation τ of Z given Y; 0 means 0.3
	Seed                uint64
}

// Defaults of Config.
const (
	DefaultTau = 0.3
	// μ(Y) = a + b·Y (Mean): train and validation a = 0.1, b = 0.8;
	// test a = 0.9, b = −0.8.
	trainA, trainB = 0.1, 0.8
	testA, testB   = 0.9, -0.8
)

// Resolved returns cfg with defaults filled in (the sizes and σ_X as sim.Config's), or an
// error for negative sizes or noise.
func (c Config) Resolved() (Config, error) {
	c.Tau = cmp.Or(c.Tau, DefaultTau)
	b, err := sim.Config{NTrain: c.NTrain, NVal: c.NVal, NTest: c.NTest, SigmaX: c.SigmaX}.Resolved()
	c.NTrain, c.NVal, c.NTest, c.SigmaX = b.NTrain, b.NVal, b.NTest, b.SigmaX
	if err != nil || !(c.Tau > 0) {
		return c, fmt.Errorf("simcont: config %+v: want positive sizes, σ_X > 0 and τ > 0", c)
	}
	return c, nil
}

// Generate draws the three splits, each from its own random stream derived from the seed.
func Generate(cfg Config) (dataset.Splits, error) {
	c, err := cfg.Resolved()
	if err != nil {
		return dataset.Splits{}, err
	}
	mk := func(name string, n int, test bool, stream uint64) *dataset.Set {
		return Sample(rand.New(rand.NewPCG(c.Seed, stream)), name, n, test, c.SigmaX, c.Tau)
	}
	return dataset.Splits{
		Train: mk("train", c.NTrain, false, 1),
		Val:   mk("val", c.NVal, false, 2),
		Test:  mk("test", c.NTest, true, 3),
	}, nil
}

// Mean returns μ(Y) = E[Z | Y] under the training (test = false) or test distribution.
func Mean(y float64, test bool) float64 {
	if test {
		return testA + testB*y
	}
	return trainA + trainB*y
}

// Sample draws n rows of the training (test = false) or test distribution from rng. Z is
// kept on every row (the hidden truth where Δ = 0, for the full method).
func Sample(rng *rand.Rand, name string, n int, test bool, sigmaX, tau float64) *dataset.Set {
	s := sim.SampleZ(rng, name, n, sigmaX, func(y float64) float64 { return Mean(y, test) + tau*rng.NormFloat64() })
	s.Nuisance = dataset.Nuisance{Kind: dataset.ContinuousZ}
	return s
}

// TruePosterior returns the mean and variance of Z given X = (x1, x2) and Y = y under the
// training distribution: the prior N(μ(y), τ²) and Ẑ = (x₂ − x₁)/2 ~ N(Z, σ_X²/2), which
// given Y and Z is independent of h* (ε₁ + ε₂ and ε₂ − ε₁ are independent for iid normal ε).
func TruePosterior(x1, x2, y, sigmaX, tau float64) (mean, variance float64) {
	zHat := (x2 - x1) / 2
	pPrior, pObs := 1/(tau*tau), 2/(sigmaX*sigmaX)
	variance = 1 / (pPrior + pObs)
	return variance * (pPrior*Mean(y, false) + pObs*zHat), variance
}
