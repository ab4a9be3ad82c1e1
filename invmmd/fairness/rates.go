package fairness

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Estimator is one way of estimating a group's rates with Z partly missing (see the
// package doc for each pseudo-outcome).
type Estimator int

// The estimators, in the order every table shows them.
const (
	CompleteCase Estimator = iota // the rows whose Z is observed, as Fairlearn after dropping the rest
	IP                            // inverse-probability weighting by 1/Ĝ
	Reg                           // regression: every row's m̂
	DR                            // doubly robust (AIPW)
)

var estimatorNames = [...]string{"complete_case", "ip", "reg", "dr"}

// String returns the estimator's name in tables and CSV files.
func (e Estimator) String() string {
	if e < 0 || int(e) >= len(estimatorNames) {
		return fmt.Sprintf("Estimator(%d)", int(e))
	}
	return estimatorNames[e]
}

// Estimators returns every estimator, in table order.
func Estimators() []Estimator { return []Estimator{CompleteCase, IP, Reg, DR} }

// ParseEstimators reads a comma-separated list of estimator names.
func ParseEstimators(list string) ([]Estimator, error) {
	var out []Estimator
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		k := slices.Index(estimatorNames[:], s)
		if k < 0 {
			return nil, fmt.Errorf("unknown estimator %q: want some of %s", s, strings.Join(estimatorNames[:], ", "))
		}
		if slices.Contains(out, Estimator(k)) {
			return nil, fmt.Errorf("estimator %q listed twice", s)
		}
		out = append(out, Estimator(k))
	}
	return out, nil
}

// NeedsG and NeedsM say which nuisance the estimator reads.
func (e Estimator) NeedsG() bool { return e == IP || e == DR }

// NeedsM reports whether the estimator reads m̂.
func (e Estimator) NeedsM() bool { return e == Reg || e == DR }

// The metrics by group, Fairlearn's names.
const (
	Count         = "count"
	SelectionRate = "selection_rate"
	TPR           = "true_positive_rate"
	FPR           = "false_positive_rate"
	FNR           = "false_negative_rate"
	TNR           = "true_negative_rate"
	Accuracy      = "accuracy"
)

// Metrics returns the metrics by group in table order.
func Metrics() []string { return []string{Count, SelectionRate, TPR, FPR, FNR, TNR, Accuracy} }

// rate is how a metric other than count is computed: the base ratio it reads (over which
// stratum, of which value) and whether it is one minus that ratio.
type rate struct {
	base int // index into bases
	flip bool
}

// The base ratios: selection rate (every row, v = Ŷ), true-positive rate (Y = 1, v = Ŷ),
// false-positive rate (Y = 0, v = Ŷ), accuracy (every row, v = 1{Ŷ = Y}).
const (
	baseSel = iota
	baseTPR
	baseFPR
	baseAcc
	nBases
)

var rates = map[string]rate{
	SelectionRate: {baseSel, false},
	TPR:           {baseTPR, false},
	FPR:           {baseFPR, false},
	FNR:           {baseTPR, true},
	TNR:           {baseFPR, true},
	Accuracy:      {baseAcc, false},
}

// inStratum reports whether a row of label y belongs to base b's stratum, and its value.
func inStratum(b, y, d int) (bool, float64) {
	switch b {
	case baseTPR:
		return y == 1, float64(d)
	case baseFPR:
		return y == 0, float64(d)
	case baseAcc:
		if d == y {
			return true, 1
		}
		return true, 0
	}
	return true, float64(d)
}

// Data is what an audit reads, one entry per row.
type Data struct {
	Y        []int       // the label, 0 or 1
	Decision []int       // the model's decision Ŷ, 0 or 1
	Group    []int       // Z as an index into Levels; −1 where Z is missing
	Levels   []string    // the groups' names
	G        []float64   // Ĝ = P(Δ = 1 | W): read by ip and dr
	M        [][]float64 // m̂_a(W) = P(Z = a | W, Δ = 1), one slice of len(Levels) per row: read by reg and dr
}

// Len returns the number of rows.
func (d *Data) Len() int { return len(d.Y) }

// Observed returns the number of rows whose Z is observed.
func (d *Data) Observed() int {
	n := 0
	for _, g := range d.Group {
		if g >= 0 {
			n++
		}
	}
	return n
}

// MaxGroups is the most groups an audit compares.
const MaxGroups = 50

// Check refuses data an audit cannot read: unequal lengths, values other than 0 and 1,
// group indices out of range, fewer than two groups observed, a label with one class, and a
// missing G or m that the estimators read. Its errors name the row (from 0).
func (d *Data) Check(ests []Estimator) error {
	n := len(d.Y)
	if n == 0 {
		return errors.New("no rows")
	}
	if len(d.Decision) != n || len(d.Group) != n {
		return fmt.Errorf("Y has %d rows, Decision %d and Group %d", n, len(d.Decision), len(d.Group))
	}
	if len(d.Levels) > MaxGroups {
		return fmt.Errorf("the sensitive attribute has %d groups, more than %d: bin it or merge small groups (an audit of so many groups' rates is mostly noise)", len(d.Levels), MaxGroups)
	}
	if len(d.Levels) < 2 {
		return fmt.Errorf("the sensitive attribute has %d group (%s): an audit compares at least two", len(d.Levels), strings.Join(d.Levels, ", "))
	}
	var classes [2]int
	for i := range n {
		if y := d.Y[i]; y != 0 && y != 1 {
			return fmt.Errorf("row %d: label %d is not 0 or 1", i, y)
		}
		if v := d.Decision[i]; v != 0 && v != 1 {
			return fmt.Errorf("row %d: decision %d is not 0 or 1", i, v)
		}
		if g := d.Group[i]; g < -1 || g >= len(d.Levels) {
			return fmt.Errorf("row %d: group %d is outside 0..%d (or −1 for missing)", i, g, len(d.Levels)-1)
		}
		classes[d.Y[i]]++
	}
	if classes[0] == 0 || classes[1] == 0 {
		return fmt.Errorf("the label has one class (%d rows of 0, %d of 1): true- and false-positive rates need both", classes[0], classes[1])
	}
	if err := d.checkCells(); err != nil {
		return err
	}
	for _, e := range ests {
		if e.NeedsG() && len(d.G) != n {
			return fmt.Errorf("%v reads Ĝ: want %d values, have %d", e, n, len(d.G))
		}
		if e.NeedsM() && len(d.M) != n {
			return fmt.Errorf("%v reads m̂: want %d rows, have %d", e, n, len(d.M))
		}
	}
	for i, g := range d.G {
		if !(g >= 0 && g <= 1) {
			return fmt.Errorf("row %d: Ĝ = %v is not a probability", i, g)
		}
	}
	for i, m := range d.M {
		if len(m) != len(d.Levels) {
			return fmt.Errorf("row %d: m̂ has %d values for %d groups", i, len(m), len(d.Levels))
		}
		for _, p := range m {
			if !(p >= 0 && p <= 1) {
				return fmt.Errorf("row %d: m̂ = %v is not a probability", i, p)
			}
		}
	}
	return nil
}

// checkCells refuses groups whose rates are undefined on the complete cases: a group never
// observed, or observed with no row of one class.
func (d *Data) checkCells() error {
	k := len(d.Levels)
	cells := make([][2]int, k)
	for i, g := range d.Group {
		if g >= 0 {
			cells[g][d.Y[i]]++
		}
	}
	var bad []string
	for a, c := range cells {
		switch {
		case c[0]+c[1] == 0:
			bad = append(bad, fmt.Sprintf("group %q is never observed", d.Levels[a]))
		case c[1] == 0:
			bad = append(bad, fmt.Sprintf("group %q has no observed row with Y = 1 (its true-positive rate is undefined)", d.Levels[a]))
		case c[0] == 0:
			bad = append(bad, fmt.Sprintf("group %q has no observed row with Y = 0 (its false-positive rate is undefined)", d.Levels[a]))
		}
	}
	if len(bad) > 0 {
		return &UndefinedError{strings.Join(bad, "; ")}
	}
	return nil
}

// UndefinedError reports a rate that the data cannot define: a group never observed, or
// observed without a row of one class, or a stratum whose estimated size is not positive.
type UndefinedError struct{ Msg string }

func (e *UndefinedError) Error() string { return e.Msg }

// phi writes row i's pseudo-outcomes φ_a for every group a into out (len(Levels) + 1: the
// last is the overall population's, 1 for every row, or Δ for complete_case, whose overall
// value is Fairlearn's over the complete rows).
func (d *Data) phi(e Estimator, i int, floor float64, out []float64) {
	k := len(d.Levels)
	z := d.Group[i]
	for a := range k {
		ind := 0.0
		if z == a {
			ind = 1
		}
		switch e {
		case CompleteCase:
			out[a] = ind
		case IP:
			if z >= 0 {
				out[a] = ind / math.Max(d.G[i], floor)
			} else {
				out[a] = 0
			}
		case Reg:
			out[a] = d.M[i][a]
		case DR:
			out[a] = d.M[i][a]
			if z >= 0 {
				out[a] += (ind - d.M[i][a]) / math.Max(d.G[i], floor)
			}
		}
	}
	out[k] = 1
	if e == CompleteCase && z < 0 {
		out[k] = 0
	}
}

// ratios holds one estimator's base ratios for every group and overall (index K), their
// covariance from the influence functions, and the estimated group sizes.
type ratios struct {
	theta [nBases][]float64
	cov   [nBases][][]float64
	count []float64 // Σ φ_a over every row (complete_case: the observed rows of the group)
	se    []float64 // the count's standard error
}

// computeRatios makes two passes over the rows: the ratios, then their influence functions'
// cross-products.
func (d *Data) computeRatios(e Estimator, floor float64) (*ratios, error) {
	n, k := d.Len(), len(d.Levels)
	r := &ratios{count: make([]float64, k+1), se: make([]float64, k+1)}
	var sum, val [nBases][]float64
	for b := range nBases {
		sum[b], val[b] = make([]float64, k+1), make([]float64, k+1)
		r.cov[b] = make([][]float64, k+1)
		for a := range r.cov[b] {
			r.cov[b][a] = make([]float64, k+1)
		}
	}
	phi := make([]float64, k+1)
	for i := range n {
		d.phi(e, i, floor, phi)
		for b := range nBases {
			in, v := inStratum(b, d.Y[i], d.Decision[i])
			if !in {
				continue
			}
			for a, p := range phi {
				sum[b][a] += p
				val[b][a] += v * p
			}
		}
	}
	for b := range nBases {
		r.theta[b] = make([]float64, k+1)
		for a := range k + 1 {
			if !(sum[b][a] > 0) {
				return nil, &UndefinedError{fmt.Sprintf("%v: %s of %s is undefined (its estimated stratum size is %.3g)", e, baseName(b), groupName(d.Levels, a), sum[b][a])}
			}
			r.theta[b][a] = val[b][a] / sum[b][a]
		}
	}
	copy(r.count, sum[baseSel])
	mean := make([]float64, k+1)
	for a := range mean {
		mean[a] = r.count[a] / float64(n)
	}
	inf := make([]float64, k+1)
	for i := range n {
		d.phi(e, i, floor, phi)
		for a, p := range phi {
			dev := p - mean[a]
			r.se[a] += dev * dev
		}
		for b := range nBases {
			in, v := inStratum(b, d.Y[i], d.Decision[i])
			if !in {
				continue
			}
			for a, p := range phi {
				inf[a] = p * (v - r.theta[b][a]) / (sum[b][a] / float64(n))
			}
			for a := range inf {
				row := r.cov[b][a]
				for c := range inf {
					row[c] += inf[a] * inf[c]
				}
			}
		}
	}
	n2 := float64(n) * float64(n)
	for b := range nBases {
		for a := range r.cov[b] {
			for c := range r.cov[b][a] {
				r.cov[b][a][c] /= n2
			}
		}
	}
	for a := range r.se {
		r.se[a] = math.Sqrt(r.se[a])
	}
	return r, nil
}

func baseName(b int) string {
	return [...]string{SelectionRate, TPR, FPR, Accuracy}[b]
}

func groupName(levels []string, a int) string {
	if a == len(levels) {
		return "overall"
	}
	return fmt.Sprintf("group %q", levels[a])
}

// values returns metric m's value for every group and overall, and their covariance.
func (r *ratios) values(m string) ([]float64, [][]float64) {
	rt := rates[m]
	v := slices.Clone(r.theta[rt.base])
	if rt.flip {
		for a := range v {
			v[a] = 1 - v[a]
		}
	}
	return v, r.cov[rt.base] // 1 − θ has θ's covariance
}
