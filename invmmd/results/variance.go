package results

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// VariancePoint is one estimator at one batch size of the variance study: the mean and
// standard deviation of its estimates over N batches, and, because a few extreme batches
// dominate those at small batch sizes, the robust summaries: the median and the quartiles.
type VariancePoint struct {
	Estimator string
	BatchSize int
	Mean, Std float64
	N         int // batches
	// Empty counts strata that contributed 0 over the batches (no row of some Z value);
	// Floored counts normaliser estimates raised to the floor.
	Empty, Floored int
	// Median, Q25 and Q75 are the median and the first and third quartiles of the N
	// estimates (Quantile's definition); Q75 − Q25 is the interquartile range.
	Median, Q25, Q75 float64
	// MinG is the smallest missingness probability among the observed rows (Δ = 1) of the N
	// batches that the estimator divides by: the learned Ĝ for ip, dr and dr-po, the true G
	// for their + forms, before the estimator's floor (Options.GFloor) raises it. It is 0
	// for an estimator that reads no G (full, reg).
	MinG float64 `json:",omitempty"`
}

// IQR returns the interquartile range of the point's estimates, Q75 − Q25.
func (p VariancePoint) IQR() float64 { return p.Q75 - p.Q25 }

// VarianceCSVHeader is the header of variance.csv. Its first five columns are those of the
// earlier tables (mean and sd only), so that a reader of those finds them where it did.
var VarianceCSVHeader = "estimator,batch_size,mean,std,n,median,q25,q75,empty,floored,min_g"

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted, an ascending slice, by linear
// interpolation between order statistics: with h = q·(n−1), the value at ⌊h⌋ plus the
// fraction h − ⌊h⌋ of the step to the next (the default of R and NumPy). It is NaN for an
// empty slice or a q outside [0, 1].
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	h := q * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// Quartiles returns the first quartile, the median and the third quartile of values (by
// Quantile, on a sorted copy: values is not changed); NaN for no values.
func Quartiles(values []float64) (q25, median, q75 float64) {
	s := slices.Clone(values)
	slices.Sort(s)
	return Quantile(s, 0.25), Quantile(s, 0.5), Quantile(s, 0.75)
}

// WriteVarianceCSV writes pts as variance.csv: VarianceCSVHeader, then one line per point
// with the estimates' summaries (mean, sd, median, quartiles) and MinG to 6 decimals;
// min_g is left empty for an estimator that reads no G (MinG 0).
func WriteVarianceCSV(w io.Writer, pts []VariancePoint) error {
	return writeLines(w, VarianceCSVHeader, pts, func(pt VariancePoint) string {
		minG := ""
		if pt.MinG != 0 {
			minG = fmtF(pt.MinG)
		}
		return fmt.Sprintf("%s,%d,%.6f,%.6f,%d,%.6f,%.6f,%.6f,%d,%d,%s", pt.Estimator, pt.BatchSize, pt.Mean, pt.Std, pt.N,
			pt.Median, pt.Q25, pt.Q75, pt.Empty, pt.Floored, minG)
	})
}

// VarianceAsWritten returns a copy of pts with their numbers rounded as variance.csv writes
// them, so that the figure drawn from a run's points is the one redrawn from its table.
func VarianceAsWritten(pts []VariancePoint) []VariancePoint {
	out := make([]VariancePoint, len(pts))
	for i, p := range pts {
		p.Mean, p.Std = asWritten(p.Mean), asWritten(p.Std)
		p.Median, p.Q25, p.Q75 = asWritten(p.Median), asWritten(p.Q25), asWritten(p.Q75)
		p.MinG = asWritten(p.MinG) // 0 stays 0
		out[i] = p
	}
	return out
}

// ReadVarianceCSV reads a variance.csv written by WriteVarianceCSV; errors name the file,
// line and column.
func ReadVarianceCSV(path string) ([]VariancePoint, error) {
	return readFile(path, VarianceCSVHeader, parseVariancePoint)
}

// parseVariancePoint reads a record of variance.csv, checking that the summaries agree.
func parseVariancePoint(f *fieldReader) VariancePoint {
	p := VariancePoint{Estimator: f.method(0), BatchSize: f.count(1, 2), Mean: f.num(2), Std: f.num(3), N: f.count(4, 1),
		Median: f.num(5), Q25: f.num(6), Q75: f.num(7), Empty: f.count(8, 0), Floored: f.count(9, 0)}
	if f.rec[10] != "" { // empty for an estimator that reads no G
		p.MinG = f.num(10)
	}
	switch {
	case p.Std < 0:
		f.bad(3, "a standard deviation ≥ 0")
	case !(p.Q25 <= p.Median && p.Median <= p.Q75):
		f.bad(5, fmt.Sprintf("a median between q25 %s and q75 %s", f.rec[6], f.rec[7]))
	case p.MinG < 0 || p.MinG > 1:
		f.bad(10, "a probability")
	}
	return p
}

// SignTestP returns the one-sided p-value of the sign test: the probability that k or more
// of n fair coin flips come up heads, P(X ≥ k) for X ~ Binomial(n, 1/2). The variance study
// uses it to say whether one estimator is below another at more batch sizes than chance
// would give (a small p-value) or not. It is 1 for k ≤ 0 and 0 for k > n.
func SignTestP(k, n int) float64 {
	if k <= 0 {
		return 1
	}
	if k > n {
		return 0
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	p := 0.0
	for i := k; i <= n; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		p += math.Exp(lgN - a - b - float64(n)*math.Ln2)
	}
	return math.Min(p, 1)
}
