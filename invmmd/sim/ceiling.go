package sim

import "math"

// InvariantAccuracy is the accuracy of the invariant predictor h* = (X₁ + X₂)/2 thresholded
// at 1/2, on any split: h* ~ N(Y, σ_X²/2) whatever Z, so it is right with probability
// Φ(1/(σ_X√2)) (0.843 at σ_X = 0.7). No model that is invariant to Z does better on the test
// split, which makes it the ceiling drawn on the simulation's results figures.
func InvariantAccuracy(sigmaX float64) float64 {
	return 0.5 * math.Erfc(-1/(2*sigmaX))
}
