package invmmd

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// Rep is a batch of model outputs h_i ∈ ℝ^d, one row per row of the batch: the logit of a
// binary classifier (d = 1), or a representation of any width, the kind that invariance
// penalties in the field (DomainBed's MMD, CORAL) act on, tens to hundreds of columns. The
// estimators use the Gaussian kernel on rows, k(h, h') = exp(−‖h − h'‖²/(2σ²))
// (GaussianKernel); every estimand, method and nuisance kind is defined for any d through k
// alone, so the penalty of a representation is the same formula as the penalty of a logit.
//
// A logit is the Rep of one column (ScalarRep), which holds exactly the values of a
// []float64 of outputs; computations on one column take the scalar arithmetic path.
type Rep struct {
	Dim  int       // columns d ≥ 1
	Data []float64 // n·Dim values, row-major: row i is Data[i*Dim : (i+1)*Dim]
}

// ScalarRep returns the one-column Rep of scalar outputs h (sharing h's storage).
func ScalarRep(h []float64) Rep { return Rep{Dim: 1, Data: h} }

// NewRep returns the Rep of data, n rows of dim values in row-major order, or an error when
// dim is not positive or len(data) is not a multiple of it. It shares data's storage.
func NewRep(data []float64, dim int) (Rep, error) {
	if dim < 1 {
		return Rep{}, fmt.Errorf("invmmd: representation of %d columns, want at least 1", dim)
	}
	if len(data)%dim != 0 {
		return Rep{}, fmt.Errorf("invmmd: %d representation values do not make rows of %d columns", len(data), dim)
	}
	return Rep{Dim: dim, Data: data}, nil
}

// Len returns the number of rows n.
func (r Rep) Len() int {
	if r.Dim < 1 {
		return 0
	}
	return len(r.Data) / r.Dim
}

// Row returns row i (a view).
func (r Rep) Row(i int) []float64 { return r.Data[i*r.Dim : (i+1)*r.Dim] }

// check returns an error unless r is a well-formed Rep of n rows with finite values; the
// error names the row and column of the first non-finite value.
func (r Rep) check(n int) error {
	if r.Dim < 1 || len(r.Data)%r.Dim != 0 {
		return fmt.Errorf("invmmd: representation of %d values in rows of %d columns, want d ≥ 1 dividing the values", len(r.Data), r.Dim)
	}
	if r.Len() != n {
		return fmt.Errorf("invmmd: %d model outputs for %d rows", r.Len(), n)
	}
	for k, x := range r.Data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if r.Dim == 1 {
				return fmt.Errorf("invmmd: row %d: h = %v, want a finite value", k, x)
			}
			return fmt.Errorf("invmmd: row %d: h column %d = %v, want a finite value", k/r.Dim, k%r.Dim, x)
		}
	}
	return nil
}

// constant reports whether every row of r equals the first (no row: true).
func (r Rep) constant() bool {
	for i := 1; i < r.Len(); i++ {
		if !slices.Equal(r.Row(i), r.Row(0)) {
			return false
		}
	}
	return true
}

// sqDist returns ‖a − b‖² for rows of equal length.
func sqDist(a, b []float64) float64 {
	s := 0.0
	for k, x := range a {
		d := x - b[k]
		s += d * d
	}
	return s
}

// GaussianKernel returns k(a, b) = exp(−‖a − b‖²/(2σ²)) for two rows of a Rep: the kernel
// of every estimator here, on outputs of any width (one-element rows for a logit).
func GaussianKernel(a, b []float64, sigma float64) float64 {
	if len(a) == 1 {
		return gaussian1D(a[0], b[0], sigma)
	}
	return math.Exp(-sqDist(a, b) / (2 * sigma * sigma))
}

// MedianRows is the number of rows above which MedianBandwidth takes the median over a
// subsample of rows of a representation with more than one column.
const MedianRows = 1000

// MedianBandwidth returns the median heuristic bandwidth of outputs h of any width: σ =
// the median of the Euclidean distances ‖h_i − h_j‖ over the pairs i < j (the lower median
// when their number is even), itself, not divided by √2, so that the kernel
// exp(−‖h − h'‖²/(2σ²)) at the median distance is e^{−1/2}. That is the convention of
// Gretton, Borgwardt, Rasch, Schölkopf and Smola, "A Kernel Two-Sample Test" (JMLR 13, 2012,
// §8: the kernel size set to the median distance between points of the pooled sample), and
// of the random-feature map of a vector Z here. (DomainBed's MMD penalty uses no median: a
// sum of Gaussians exp(−γ‖h − h'‖²) with fixed γ ∈ {10⁻³, …, 10³}.)
//
// For d = 1 it takes all pairs, exactly, in O(n log n) (medianBandwidth1D). For d > 1 it takes all
// pairs of up to MedianRows rows, and above that the pairs of the MedianRows rows at
// positions ⌊k·n/MedianRows⌋, k = 0, …, MedianRows − 1 (about 5·10⁵ pairs, a deterministic
// stride through the batch, so the same outputs give the same σ). It returns an error on
// fewer than two rows, a non-finite value, or a median of 0 (more than half the pairs tied).
func MedianBandwidth(h Rep) (float64, error) {
	n := h.Len()
	if err := h.check(n); err != nil {
		return 0, err
	}
	if n < 2 {
		return 0, fmt.Errorf("invmmd: median heuristic needs at least 2 outputs, got %d", n)
	}
	if h.Dim == 1 {
		return medianBandwidth1D(h.Data)
	}
	rows := make([]int, min(n, MedianRows))
	for k := range rows {
		rows[k] = k * n / len(rows)
	}
	d := make([]float64, 0, len(rows)*(len(rows)-1)/2)
	for a, i := range rows {
		for _, j := range rows[a+1:] {
			d = append(d, sqDist(h.Row(i), h.Row(j)))
		}
	}
	slices.Sort(d)
	med := math.Sqrt(d[(len(d)-1)/2])
	if !(med > 0) {
		return 0, fmt.Errorf("invmmd: median heuristic: more than half of the %d pairs of outputs are tied, the median distance is 0", len(d))
	}
	return med, nil
}

// gaussian1D returns k(a, b) = exp(−(a−b)²/(2σ²)) of two scalar outputs: GaussianKernel of
// one-element rows, which calls it, so that scalar outputs take one arithmetic path.
func gaussian1D(a, b, sigma float64) float64 {
	d := a - b
	return math.Exp(-d * d / (2 * sigma * sigma))
}

// medianBandwidth1D returns the median heuristic bandwidth for scalar outputs h: the median of
// |h_i − h_j| over the n(n−1)/2 pairs i < j (the lower median when their number is even).
// It runs in O(n log n · 64): h is sorted, then the median is found by bisection on the
// distance, counting the pairs within each candidate with two pointers. h holds at least
// two finite values (MedianBandwidth checks); it returns an error for a median of 0 (more
// than half the pairs tied), which would give no usable bandwidth.
func medianBandwidth1D(h []float64) (float64, error) {
	n := len(h)
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
