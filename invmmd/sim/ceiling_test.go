package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestInvariantAccuracy checks the closed form against h*'s accuracy on drawn rows, on the
// training and the test distribution, within four standard errors. (The documents quote
// InvariantAccuracy(DefaultSigmaX) rounded, 0.844; internal/docscheck checks them.)
func TestInvariantAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, c := range []struct{ agree, sigma float64 }{{TrainAgree, DefaultSigmaX}, {TestAgree, DefaultSigmaX}, {TestAgree, 0.4}} {
		s := Sample(rng, "mc", 100000, c.agree, c.sigma)
		ok := 0.0
		for i := 0; i < s.Len(); i++ {
			if ((float64(s.X[2*i])+float64(s.X[2*i+1]))/2 > 0.5) == (s.Y[i] == 1) {
				ok++
			}
		}
		n := float64(s.Len())
		want := InvariantAccuracy(c.sigma)
		se := math.Sqrt(want * (1 - want) / n)
		if got := ok / n; math.Abs(got-want) > 4*se {
			t.Errorf("P(Z=Y)=%.1f, σ_X=%.1f: h* accuracy %.4f, closed form %.4f (4 SE = %.4f)", c.agree, c.sigma, got, want, 4*se)
		}
	}
}
