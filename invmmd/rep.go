package invmmd

import (
	"fmt"
	"math"
	"slices"
)

// Rep is a batch of model outputs h_i ∈ ℝ^d, one row per row of the batch: the logit of a
// binary classifier (d = 1), or a representation of any width, the kind that invariance
// penalties in the field (DomainBed's MMD, CORAL) act on, tens to hundreds of columns. The
// estimators use the Gaussian kernel on rows, k(h, h') = exp(−‖h − h'‖²/(2σ²))
// (GaussianKernel); every estimand, method and
// nuisance kind is defined for any d through k alone, so the penalty of a representation
// is the same formula as the penalty of a logit.
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
	if r.Dim == 1 {
		return checkFinite("h", r.Data, 1)
	}
	return checkFinite("h column", r.Data, r.Dim)
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
// §8: the kernel size set to the median distance between points of the pooled sample),
// and of the random-feature map of a vector Z here. (DomainBed's MMD
// penalty uses no median: a sum of Gaussians exp(−γ‖h − h'‖²) with fixed
// γ ∈ {10⁻³, …, 10³}.)
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
	if h.Dim == 1 {
		return medianBandwidth1D(h.Data)
	}
	if n < 2 {
		return 0, fmt.Errorf("invmmd: median heuristic needs at least 2 outputs, got %d", n)
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
