package simcont

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/sim"
)

// TestMoments checks the splits against their definition: P(Z | Y) has mean μ(Y) and
// standard deviation τ, flipped in the test split; the missingness follows sim.TrueG; and the
// invariant h* scores the ceiling sim.InvariantAccuracy on train and test alike (within 4
// standard errors).
func TestMoments(t *testing.T) {
	sp, err := Generate(Config{NTrain: 40000, NVal: 10, NTest: 40000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ceiling := sim.InvariantAccuracy(sim.DefaultSigmaX)
	for _, s := range []struct {
		name string
		test bool
	}{{"train", false}, {"test", true}} {
		set := sp.Train
		if s.test {
			set = sp.Test
		}
		if err := set.Validate(); err != nil {
			t.Fatal(err)
		}
		var sum, sum2, n [2]float64
		right := 0.0
		for i := 0; i < set.Len(); i++ {
			y := int(set.Y[i])
			z := set.Z[i]
			sum[y] += z
			sum2[y] += z * z
			n[y]++
			x := set.Row(i)
			if ((float64(x[0])+float64(x[1]))/2 > 0.5) == (y == 1) {
				right++
			}
			if g := sim.TrueG(float64(x[0]), float64(x[1])); g != set.GTrue[i] {
				t.Fatalf("%s row %d: G %v, want %v", s.name, i, set.GTrue[i], g)
			}
		}
		for y := 0; y < 2; y++ {
			mean := sum[y] / n[y]
			sd := math.Sqrt(sum2[y]/n[y] - mean*mean)
			if want := Mean(float64(y), s.test); math.Abs(mean-want) > 4*DefaultTau/math.Sqrt(n[y]) {
				t.Errorf("%s: E[Z | Y=%d] = %.4f, want %.4f", s.name, y, mean, want)
			}
			if math.Abs(sd-DefaultTau) > 0.01 {
				t.Errorf("%s: sd(Z | Y=%d) = %.4f, want %.2f", s.name, y, sd, DefaultTau)
			}
		}
		acc := right / float64(set.Len())
		if se := math.Sqrt(ceiling * (1 - ceiling) / float64(set.Len())); math.Abs(acc-ceiling) > 4*se {
			t.Errorf("%s: h* accuracy %.4f, ceiling %.4f", s.name, acc, ceiling)
		}
	}
}

// TestTruePosterior checks the closed-form posterior of Z given X and Y against draws:
// among simulated rows whose (x1, x2, y) fall in a small cell, Z's mean and variance match.
func TestTruePosterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := Sample(rng, "train", 400000, false, sim.DefaultSigmaX, DefaultTau)
	var zs []float64
	for i := 0; i < s.Len(); i++ {
		x := s.Row(i)
		if s.Y[i] == 1 && math.Abs(float64(x[0])-0.1) < 0.05 && math.Abs(float64(x[1])-1.7) < 0.05 {
			zs = append(zs, s.Z[i])
		}
	}
	mean, v := TruePosterior(0.1, 1.7, 1, sim.DefaultSigmaX, DefaultTau)
	var m, ss float64
	for _, z := range zs {
		m += z
	}
	m /= float64(len(zs))
	for _, z := range zs {
		ss += (z - m) * (z - m)
	}
	ss /= float64(len(zs) - 1)
	t.Logf("%d rows in the cell: Z mean %.4f (closed form %.4f), variance %.4f (%.4f)", len(zs), m, mean, ss, v)
	if len(zs) < 200 || math.Abs(m-mean) > 4*math.Sqrt(v/float64(len(zs))) || math.Abs(ss-v) > 0.25*v {
		t.Errorf("posterior: draws give mean %.4f variance %.4f over %d rows, closed form %.4f %.4f", m, ss, len(zs), mean, v)
	}
}

// TestBayesAccuracy measures the training distribution's Bayes classifier on train and
// test draws: it must beat the invariant ceiling in training and fall well below it in
// test (the shift in P(Z | Y) that the invariant methods are robust to). The values are
// logged; the experiment's notes quote them.
func TestBayesAccuracy(t *testing.T) {
	sp, err := Generate(Config{NTrain: 200000, NVal: 10, NTest: 200000, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	acc := func(s interface {
		Len() int
		Row(int) []float32
	}, y []float64) float64 {
		right := 0.0
		for i := 0; i < s.Len(); i++ {
			x := s.Row(i)
			if (bayesLogit(float64(x[0]), float64(x[1]), sim.DefaultSigmaX, DefaultTau) > 0) == (y[i] == 1) {
				right++
			}
		}
		return right / float64(s.Len())
	}
	tr, te := acc(sp.Train, sp.Train.Y), acc(sp.Test, sp.Test.Y)
	ceiling := sim.InvariantAccuracy(sim.DefaultSigmaX)
	t.Logf("Bayes classifier of the training distribution: train %.3f, test %.3f; invariant ceiling %.3f", tr, te, ceiling)
	if !(tr > ceiling+0.02 && te < ceiling-0.1) {
		t.Errorf("Bayes train %.3f / test %.3f: want above the ceiling %.3f in training and well below it in test", tr, te, ceiling)
	}
}

// bayesLogit returns log P(Y = 1 | X) − log P(Y = 0 | X) under the training distribution:
// X | Y is normal with mean (Y − μ(Y), Y + μ(Y)) and covariance σ_X²I + τ²[[1, −1], [−1, 1]].
// It is the best a model that may use Z's trace in X can do in training, and what the
// unpenalised method approaches.
func bayesLogit(x1, x2, sigmaX, tau float64) float64 {
	// Σ = [[a, −b], [−b, a]], a = σ² + τ², b = τ²; Σ⁻¹ = [[a, b], [b, a]] / (a² − b²).
	a, b := sigmaX*sigmaX+tau*tau, tau*tau
	det := a*a - b*b
	quad := func(y float64) float64 {
		mu := Mean(y, false)
		d1, d2 := x1-(y-mu), x2-(y+mu)
		return (a*d1*d1 + 2*b*d1*d2 + a*d2*d2) / det
	}
	return -0.5*quad(1) + 0.5*quad(0)
}
