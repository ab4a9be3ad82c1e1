package results

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRatioSE checks SECalibrationRow.RatioSE by simulation: over many studies of R
// normal estimates whose standard errors are exact, the ratio RMS SE / sd spreads as
// RatioSE says (within 10 %, the Monte Carlo error of a spread over 4000 studies).
func TestRatioSE(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, reps := range []int{100, 400} {
		const studies = 4000
		var ratios []float64
		var predicted float64
		for range studies {
			var sum, sum2 float64
			for range reps {
				x := rng.NormFloat64()
				sum, sum2 = sum+x, sum2+x*x
			}
			mean := sum / float64(reps)
			sd := math.Sqrt((sum2 - float64(reps)*mean*mean) / float64(reps-1))
			r := SECalibrationRow{Replicates: reps, SD: sd, RMSSE: 1}
			ratios = append(ratios, r.Ratio())
			predicted += r.RatioSE() / studies
		}
		var m, v float64
		for _, r := range ratios {
			m += r / studies
		}
		for _, r := range ratios {
			v += (r - m) * (r - m) / (studies - 1)
		}
		if got := math.Sqrt(v); math.Abs(got/predicted-1) > 0.1 {
			t.Errorf("R = %d: ratios spread %.4f over %d studies, RatioSE says %.4f", reps, got, studies, predicted)
		}
	}
}
