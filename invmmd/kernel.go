package invmmd

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
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
	if err := checkFinite("h", h, 1); err != nil {
		return 0, err
	}
	s := sortedCopy(h)
	pairs := int64(n) * int64(n-1) / 2
	rank := (pairs + 1) / 2 // the rank-th smallest distance is the (lower) median
	// within counts the pairs within d, the rows split among one goroutine per CPU, each
	// starting its lower pointer by binary search.
	parts := min(workersOf(0), max(1, n/(1<<16)))
	within := func(d float64) int64 {
		counts := make([]int64, parts)
		var wg sync.WaitGroup
		for w := range parts {
			wg.Go(func() {
				from, to := w*n/parts, (w+1)*n/parts
				lo := sort.Search(from, func(i int) bool { return s[from]-s[i] <= d })
				var c int64 // a local sum: the parts' counts share a cache line
				for hi := from; hi < to; hi++ {
					for s[hi]-s[lo] > d {
						lo++
					}
					c += int64(hi - lo)
				}
				counts[w] = c
			})
		}
		wg.Wait()
		var c int64
		for _, x := range counts {
			c += x
		}
		return c
	}
	if within(0) >= rank {
		return 0, fmt.Errorf("invmmd: median heuristic: more than half of the %d pairs of outputs are tied, the median distance is 0", pairs)
	}
	return bisect(s[n-1]-s[0], func(d float64) bool { return within(d) >= rank }), nil
}

// bisect returns the smallest distance d in (0, hi] at which reached(d) holds, to a
// relative 10⁻¹² (at most 200 halvings); reached must be monotone and hold at hi.
func bisect(hi float64, reached func(d float64) bool) float64 {
	lo := 0.0
	for it := 0; it < 200 && hi-lo > 1e-12*math.Max(1, hi); it++ {
		mid := lo + (hi-lo)/2
		if reached(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// sortedCopy returns h sorted: its halves sorted side by side and merged, for long h.
func sortedCopy(h []float64) []float64 {
	if len(h) < 1<<16 {
		s := slices.Clone(h)
		slices.Sort(s)
		return s
	}
	a, b := slices.Clone(h[:len(h)/2]), slices.Clone(h[len(h)/2:])
	var wg sync.WaitGroup
	wg.Go(func() { slices.Sort(a) })
	slices.Sort(b)
	wg.Wait()
	s := make([]float64, 0, len(h))
	for len(a) > 0 && len(b) > 0 {
		if b[0] < a[0] {
			s, b = append(s, b[0]), b[1:]
		} else {
			s, a = append(s, a[0]), a[1:]
		}
	}
	return append(append(s, a...), b...)
}

// weightedMedianDistance returns the weighted median of |z_i − z_j| over the pairs i < j,
// pair (i, j) weighing w_i·w_j: the smallest distance d at which the pairs within d carry at
// least half the total weight. Like medianBandwidth1D it bisects on d, the weighted count
// of pairs within d taken in O(n) with two pointers and prefix sums of the sorted weights,
// so it runs in O(n log n + 200·n). It returns an error when more than half the weight is
// on tied pairs (a median of 0).
func weightedMedianDistance(z, w []float64) (float64, error) {
	n := len(z)
	if n < 2 {
		return 0, fmt.Errorf("invmmd: median heuristic needs at least 2 values, got %d", n)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(z[a], z[b]) })
	s, pw := make([]float64, n), make([]float64, n+1) // sorted values, prefix sums of weights
	var tw, tw2 float64
	for k, i := range idx {
		s[k] = z[i]
		pw[k+1] = pw[k] + w[i]
		tw += w[i]
		tw2 += w[i] * w[i]
	}
	half := (tw*tw - tw2) / 4 // half of Σ_{i<j} w_i w_j
	within := func(d float64) float64 {
		var c float64
		lo := 0
		for hi := 0; hi < n; hi++ {
			for s[hi]-s[lo] > d {
				lo++
			}
			c += (pw[hi+1] - pw[hi]) * (pw[hi] - pw[lo])
		}
		return c
	}
	if within(0) >= half {
		return 0, fmt.Errorf("invmmd: median heuristic: more than half of the weight of the pairs is on tied values, the median distance is 0")
	}
	return bisect(s[n-1]-s[0], func(d float64) bool { return within(d) >= half }), nil
}
