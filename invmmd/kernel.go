package invmmd

import (
	"fmt"
	"math"
	"slices"
)

// gaussian1D returns k(a, b) = exp(−(a−b)²/(2σ²)) of two scalar outputs: GaussianKernel of
// one-element rows, which calls it, so that scalar outputs take one arithmetic path.
func gaussian1D(a, b, sigma float64) float64 {
	d := a - b
	return math.Exp(-d * d / (2 * sigma * sigma))
}

// medianBandwidth1D returns the median heuristic bandwidth for scalar outputs h: the median of
// |h_i − h_j| over the n(n−1)/2 pairs i < j (the lower median when their number is even).
// It runs in O(n log n · 64): h is sorted, then the median is found by bisection on the
// distance, counting the pairs within each candidate with two pointers. It returns an
// error when h has fewer than two rows, a non-finite value, or a median of 0 (more than
// half the pairs tied), which would give no usable bandwidth.
func medianBandwidth1D(h []float64) (float64, error) {
	n := len(h)
	if n < 2 {
		return 0, fmt.Errorf("invmmd: median heuristic needs at least 2 outputs, got %d", n)
	}
	if err := checkFinite("h", h); err != nil {
		return 0, err
	}
	s := slices.Clone(h)
	slices.Sort(s)
	pairs := int64(n) * int64(n-1) / 2
	rank := (pairs + 1) / 2 // the rank-th smallest distance is the (lower) median
	within := func(d float64) int64 {
		var c int64
		lo := 0
		for hi := 0; hi < n; hi++ {
			for s[hi]-s[lo] > d {
				lo++
			}
			c += int64(hi - lo)
		}
		return c
	}
	lo, hi := 0.0, s[n-1]-s[0]
	if within(0) >= rank {
		return 0, fmt.Errorf("invmmd: median heuristic: more than half of the %d pairs of outputs are tied, the median distance is 0", pairs)
	}
	for it := 0; it < 200 && hi-lo > 1e-12*math.Max(1, hi); it++ {
		mid := lo + (hi-lo)/2
		if within(mid) >= rank {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}
