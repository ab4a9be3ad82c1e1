package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGenerateMatchesTheProcess(t *testing.T) {
	sp, err := Generate(Config{NTrain: 40000, NVal: 100, NTest: 40000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	tr, te := sp.Train.Summarize(), sp.Test.Summarize()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"train P(Y=1)", tr.PY1, 0.5},
		{"train P(Y=Z)", tr.PAgreeYZ, 0.9},
		{"test P(Y=Z)", te.PAgreeYZ, 0.1},
	} {
		if math.Abs(c.got-c.want) > 0.01 {
			t.Errorf("%s = %.4f, want %.2f", c.name, c.got, c.want)
		}
	}
	// Δ follows the true G: P(Δ = 1) equals the mean of G within sampling error.
	if math.Abs(tr.PObserved-tr.MeanGTrue) > 0.01 {
		t.Errorf("observed fraction %.4f, mean true G %.4f", tr.PObserved, tr.MeanGTrue)
	}
}

func TestGenerateIsReproducible(t *testing.T) {
	a, _ := Generate(Config{NTrain: 50, NVal: 10, NTest: 10, Seed: 7})
	b, _ := Generate(Config{NTrain: 50, NVal: 10, NTest: 10, Seed: 7})
	c, _ := Generate(Config{NTrain: 50, NVal: 10, NTest: 10, Seed: 8})
	for i := range a.Train.X {
		if a.Train.X[i] != b.Train.X[i] {
			t.Fatal("same seed, different data")
		}
	}
	same := true
	for i := range a.Train.X {
		same = same && a.Train.X[i] == c.Train.X[i]
	}
	if same {
		t.Fatal("different seeds, same data")
	}
}

// TestCalibration checks the calibration of σ_X = 0.7 that the package comment states: the Bayes
// classifier of the training distribution scores ≈ 0.891 on train and ≈ 0.680 on test, and
// the invariant h* = (X₁+X₂)/2 thresholded at 1/2 scores ≈ 0.843 on both.
func TestCalibration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	bayes := func(x1, x2 float64) float64 { // P(Y = 1 | X) under training
		var p, q float64
		for _, y := range []float64{0, 1} {
			l := 0.0
			for _, z := range []float64{0, 1} {
				pz := TrainAgree*boolf(z == y) + (1-TrainAgree)*boolf(z != y)
				a, b := x1-(y-z), x2-(y+z)
				l += pz * math.Exp(-(a*a+b*b)/(2*DefaultSigmaX*DefaultSigmaX))
			}
			if y == 1 {
				p = l
			} else {
				q = l
			}
		}
		return p / (p + q)
	}
	for _, c := range []struct {
		agree, bayesAcc, hStarAcc float64
	}{{TrainAgree, 0.891, 0.843}, {TestAgree, 0.680, 0.843}} {
		s := Sample(rng, "mc", 200000, c.agree, DefaultSigmaX)
		var bOK, hOK float64
		for i := 0; i < s.Len(); i++ {
			x1, x2 := float64(s.X[2*i]), float64(s.X[2*i+1])
			if (bayes(x1, x2) > 0.5) == (s.Y[i] == 1) {
				bOK++
			}
			if ((x1+x2)/2 > 0.5) == (s.Y[i] == 1) {
				hOK++
			}
		}
		n := float64(s.Len())
		if math.Abs(bOK/n-c.bayesAcc) > 0.005 || math.Abs(hOK/n-c.hStarAcc) > 0.005 {
			t.Errorf("P(Z=Y)=%.1f: Bayes accuracy %.4f (want %.3f), h* accuracy %.4f (want %.3f)", c.agree, bOK/n, c.bayesAcc, hOK/n, c.hStarAcc)
		}
	}
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestTrueMOf checks that TrueMOf is TrueM row by row and that, on rows drawn from the
// training distribution, its mean matches the share of Z = 1 within three standard errors
// (it is the conditional probability, so its mean is P(Z = 1)).
func TestTrueMOf(t *testing.T) {
	sp, err := Generate(Config{NTrain: 100, NVal: 20000, NTest: 100, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	m := TrueMOf(sp.Val, DefaultSigmaX)
	x := sp.Val.Row(7)
	if want := TrueM(float64(x[0]), float64(x[1]), sp.Val.Y[7], TrainAgree, DefaultSigmaX); m[7] != want {
		t.Fatalf("row 7: %v, want %v", m[7], want)
	}
	var sm, sz float64
	for i := range m {
		sm += m[i]
		sz += sp.Val.Z[i]
	}
	n := float64(len(m))
	se := math.Sqrt(0.25 / n)
	if d := math.Abs(sm/n - sz/n); d > 3*se {
		t.Errorf("mean TrueM %.4f, share of Z = 1 %.4f: differ by %.4f > 3 SE (%.4f)", sm/n, sz/n, d, 3*se)
	}
}
