// Package dataset holds the tables every experiment produces and every model consumes: a
// split of rows with features X, label Y, nuisance Z, the missingness indicator Δ and,
// when the missingness is simulated from a known rule, its true probability G.
package dataset

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Set is one split (train, validation or test) of an experiment.
type Set struct {
	Name  string    // "train", "val", "test", ...
	X     []float32 // features, row-major: row i is X[i*Dim() : (i+1)*Dim()]
	Shape []int     // shape of one row's features: [d] for tables, [28, 28, 1] for images
	Y     []float64 // label, 0 or 1; a class 0, …, Classes−1 when Classes > 2
	Z     []float64 // nuisance, 0 or 1 where observed (see Nuisance for other kinds); NaN where missing (or, when the missingness is simulated, the hidden truth, kept for the full method)
	Delta []float64 // 1 where Z is observed, 0 where missing
	GTrue []float64 // true P(Δ = 1 | X, Y); nil when unknown
	// Nuisance says what Z holds: the zero value is a binary Z; a categorical Z holds level
	// indices, a continuous one real numbers, a vector one Nuisance.Dim numbers per row
	// (row-major, a row of NaN where missing).
	Nuisance Nuisance
	// Classes is the number K of label classes when there are more than two (Y ∈ {0, …,
	// K−1}); 0 or 2 is the binary label. The model h then has K outputs, the penalty K
	// strata, and the auxiliary models read Y one-hot (train.WithLabel).
	Classes int
}

// NumClasses returns the number K of label classes: Classes, or 2 when it is 0.
func (s *Set) NumClasses() int { return cmp.Or(s.Classes, 2) }

// Len returns the number of rows.
func (s *Set) Len() int { return len(s.Y) }

// Dim returns the number of features per row, the product of Shape.
func (s *Set) Dim() int {
	d := 1
	for _, x := range s.Shape {
		d *= x
	}
	return d
}

// Row returns the features of row i (a view, not a copy).
func (s *Set) Row(i int) []float32 { d := s.Dim(); return s.X[i*d : (i+1)*d] }

// Validate checks that the columns agree in length and that labels and indicators are 0
// or 1, Z is a value of its kind where observed (0 or 1 for a binary Z; Δ = 1; where Δ = 0 it
// may be NaN, or the hidden truth when the missingness is simulated, and then a value of its
// kind), features finite and G in [0, 1]. The error names the set, row, column and value.
func (s *Set) Validate() error {
	n := s.Len()
	if n == 0 {
		return fmt.Errorf("dataset %s: no rows", s.Name)
	}
	if len(s.Shape) == 0 || s.Dim() <= 0 {
		return fmt.Errorf("dataset %s: feature shape %v, want positive dimensions", s.Name, s.Shape)
	}
	if len(s.X) != n*s.Dim() {
		return fmt.Errorf("dataset %s: %d feature values for %d rows of shape %v (want %d)", s.Name, len(s.X), n, s.Shape, n*s.Dim())
	}
	if len(s.Delta) != n {
		return fmt.Errorf("dataset %s: column Delta has %d rows, Y has %d", s.Name, len(s.Delta), n)
	}
	q := s.Nuisance.Width()
	if len(s.Z) != n*q {
		if q == 1 {
			return fmt.Errorf("dataset %s: column Z has %d rows, Y has %d", s.Name, len(s.Z), n)
		}
		return fmt.Errorf("dataset %s: column Z has %d values, want %d rows of %d", s.Name, len(s.Z), n, q)
	}
	if s.Nuisance.Kind == CategoricalZ && len(s.Nuisance.Levels) < 2 {
		return fmt.Errorf("dataset %s: a categorical Z needs at least 2 levels, has %d", s.Name, len(s.Nuisance.Levels))
	}
	if s.GTrue != nil && len(s.GTrue) != n {
		return fmt.Errorf("dataset %s: column GTrue has %d rows, Y has %d", s.Name, len(s.GTrue), n)
	}
	if s.Classes < 0 || s.Classes == 1 {
		return fmt.Errorf("dataset %s: %d label classes, want 0 (binary) or at least 2", s.Name, s.Classes)
	}
	k := float64(s.NumClasses())
	for i := 0; i < n; i++ {
		switch y := s.Y[i]; {
		case k > 2 && (y != math.Trunc(y) || y < 0 || y >= k):
			return fmt.Errorf("dataset %s: row %d: Y = %v, want a class 0, …, %v", s.Name, i, y, k-1)
		case k == 2 && y != 0 && y != 1:
			return fmt.Errorf("dataset %s: row %d: Y = %v, want 0 or 1", s.Name, i, y)
		}
		if d := s.Delta[i]; d != 0 && d != 1 {
			return fmt.Errorf("dataset %s: row %d: Delta = %v, want 0 or 1", s.Name, i, d)
		}
		for k, z := range s.Z[i*q : (i+1)*q] {
			if math.IsNaN(z) {
				if s.Delta[i] == 0 {
					continue // really missing
				}
				return fmt.Errorf("dataset %s: row %d: Z = NaN where Delta = 1, want a value of a %v Z", s.Name, i, s.Nuisance.Kind)
			}
			if err := s.Nuisance.check(z); err != nil {
				if q > 1 {
					return fmt.Errorf("dataset %s: row %d: component %d: %w", s.Name, i, k, err)
				}
				return fmt.Errorf("dataset %s: row %d: %w", s.Name, i, err)
			}
		}
		if s.GTrue != nil && !(s.GTrue[i] >= 0 && s.GTrue[i] <= 1) {
			return fmt.Errorf("dataset %s: row %d: GTrue = %v, want a probability in [0, 1]", s.Name, i, s.GTrue[i])
		}
	}
	d := s.Dim()
	for k, x := range s.X {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("dataset %s: row %d: feature %d = %v, want a finite value", s.Name, k/d, k%d, x)
		}
	}
	return nil
}

// ZKnown reports whether every row's Z is known (no NaN), observed or hidden: only then
// can the full estimator, which reads Z on every row, run.
func (s *Set) ZKnown() bool { return !slices.ContainsFunc(s.Z, math.IsNaN) }

// Subset returns the rows at idx, in that order, as a new set named name.
func (s *Set) Subset(name string, idx []int) *Set {
	d := s.Dim()
	out := &Set{Name: name, Shape: append([]int(nil), s.Shape...), X: make([]float32, 0, len(idx)*d)}
	pick := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		o := make([]float64, len(idx))
		for k, i := range idx {
			o[k] = v[i]
		}
		return o
	}
	q := s.Nuisance.Width()
	out.Z = make([]float64, 0, len(idx)*q)
	for _, i := range idx {
		out.X = append(out.X, s.Row(i)...)
		out.Z = append(out.Z, s.Z[i*q:(i+1)*q]...)
	}
	out.Y, out.Delta, out.GTrue = pick(s.Y), pick(s.Delta), pick(s.GTrue)
	out.Nuisance, out.Classes = s.Nuisance, s.Classes
	return out
}

// Summary describes a set's balance: what a reader checks before trusting a table.
type Summary struct {
	Name string
	// Kind is the nuisance's kind; for a nuisance that is not binary the (Y, Z) statistics
	// below are zero and String leaves them out.
	Kind          ZKind `json:",omitempty"`
	N             int
	ZKnown        bool          // every Z is known; when false, the Z counts cover observed rows only
	PY1           float64       // P(Y = 1)
	PZ1           float64       // P(Z = 1)
	PZ1GivenY     [2]float64    // P(Z = 1 | Y = y), 0 when no row has Y = y
	PObserved     float64       // P(Δ = 1)
	PObsGivenYZ   [2][2]float64 // P(Δ = 1 | Y = y, Z = z), 0 for an empty cell
	PAgreeYZ      float64       // P(Y = Z)
	HasGTrue      bool          // whether the true G is known
	MeanGTrue     float64       // mean true G (0 when unknown)
	MinGTrue      float64       // smallest true G (0 when unknown)
	CountsYZ      [2][2]int
	ObservedCount int
}

// Summarize computes the set's Summary. The (Y, Z) statistics are those of a binary Z; for
// another kind they are left zero (the counts of Y, Δ and G still hold).
func (s *Set) Summarize() Summary {
	if s.Nuisance.Kind != BinaryZ || s.NumClasses() > 2 {
		return s.summarizeOther()
	}
	sum := Summary{Name: s.Name, N: s.Len(), ZKnown: s.ZKnown()}
	var obsYZ [2][2]int
	ny1 := 0.0
	for i := 0; i < s.Len(); i++ {
		ny1 += s.Y[i]
		if s.Delta[i] == 1 {
			sum.ObservedCount++
		}
		if !sum.ZKnown && s.Delta[i] == 0 {
			continue // Z missing: the Z statistics cover the observed rows
		}
		y, z := int(s.Y[i]), int(s.Z[i])
		sum.CountsYZ[y][z]++
		if s.Delta[i] == 1 {
			obsYZ[y][z]++
		}
		if y == z {
			sum.PAgreeYZ++
		}
	}
	n := float64(sum.N)
	c := sum.CountsYZ
	nz := float64(c[0][0] + c[0][1] + c[1][0] + c[1][1])
	sum.PY1 = ny1 / n
	sum.PZ1 = float64(c[0][1]+c[1][1]) / nz
	for y := 0; y < 2; y++ {
		sum.PZ1GivenY[y] = ratio(c[y][1], c[y][0]+c[y][1])
		for z := 0; z < 2; z++ {
			sum.PObsGivenYZ[y][z] = ratio(obsYZ[y][z], c[y][z])
		}
	}
	sum.PObserved = float64(sum.ObservedCount) / n
	sum.PAgreeYZ /= nz
	if s.GTrue != nil {
		sum.HasGTrue, sum.MinGTrue = true, 1
		for _, g := range s.GTrue {
			sum.MeanGTrue += g
			sum.MinGTrue = math.Min(sum.MinGTrue, g)
		}
		sum.MeanGTrue /= n
	}
	return sum
}

// ratio is a/b, or 0 for an empty cell (the counts say which).
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// String renders the summary on one line.
func (s Summary) String() string {
	var b strings.Builder
	if s.Kind != BinaryZ {
		fmt.Fprintf(&b, "%-5s n=%d  P(Y=1)=%.3f  Z %v  observed=%.3f", s.Name, s.N, s.PY1, s.Kind, s.PObserved)
	} else {
		fmt.Fprintf(&b, "%-5s n=%d  P(Y=1)=%.3f  P(Z=1)=%.3f  P(Z=1|Y=0)=%.3f  P(Z=1|Y=1)=%.3f  P(Y=Z)=%.3f  observed=%.3f",
			s.Name, s.N, s.PY1, s.PZ1, s.PZ1GivenY[0], s.PZ1GivenY[1], s.PAgreeYZ, s.PObserved)
	}
	if s.HasGTrue {
		fmt.Fprintf(&b, "  mean G=%.3f", s.MeanGTrue)
	}
	return b.String()
}

// Splits are the three sets of an experiment.
type Splits struct {
	Train, Val, Test *Set
}

// Validate validates each set and checks that they share a feature shape.
func (sp Splits) Validate() error {
	for _, s := range []*Set{sp.Train, sp.Val, sp.Test} {
		if s == nil {
			return fmt.Errorf("dataset: a split is missing")
		}
		if err := s.Validate(); err != nil {
			return err
		}
		if fmt.Sprint(s.Shape) != fmt.Sprint(sp.Train.Shape) {
			return fmt.Errorf("dataset %s: feature shape %v differs from train's %v", s.Name, s.Shape, sp.Train.Shape)
		}
		if s.NumClasses() != sp.Train.NumClasses() {
			return fmt.Errorf("dataset %s: %d label classes, train has %d", s.Name, s.NumClasses(), sp.Train.NumClasses())
		}
	}
	return nil
}

// summarizeOther is Summarize for a nuisance that is not binary, or a label of more than
// two classes: the share of Y = 1, the observed share and the true G.
func (s *Set) summarizeOther() Summary {
	sum := Summary{Name: s.Name, Kind: s.Nuisance.Kind, N: s.Len(), ZKnown: s.ZKnown()}
	n := float64(sum.N)
	for i := 0; i < s.Len(); i++ {
		if s.Y[i] == 1 {
			sum.PY1 += 1 / n
		}
		if s.Delta[i] == 1 {
			sum.ObservedCount++
		}
	}
	sum.PObserved = float64(sum.ObservedCount) / n
	if s.GTrue != nil {
		sum.HasGTrue, sum.MinGTrue = true, 1
		for _, g := range s.GTrue {
			sum.MeanGTrue += g / n
			sum.MinGTrue = math.Min(sum.MinGTrue, g)
		}
	}
	return sum
}

// ZKind is the kind of a nuisance variable Z.
type ZKind int

// The kinds of nuisance.
const (
	// BinaryZ: Z ∈ {0, 1}, the paper's case.
	BinaryZ ZKind = iota
	// CategoricalZ: Z is one of K ≥ 2 levels, coded 0, …, K−1 (Nuisance.Levels names them).
	CategoricalZ
	// ContinuousZ: Z is a real number.
	ContinuousZ
	// VectorZ: Z ∈ ℝ^q, stored as q numbers per row (Nuisance.Dim = q).
	VectorZ
)

var zKindNames = [...]string{"binary", "categorical", "continuous", "vector"}

// String names the kind as the command line spells it.
func (k ZKind) String() string {
	if k < 0 || int(k) >= len(zKindNames) {
		return fmt.Sprintf("ZKind(%d)", int(k))
	}
	return zKindNames[k]
}

// ParseZKind returns the kind named s ("binary", "categorical", "continuous", "vector").
func ParseZKind(s string) (ZKind, error) {
	if i := slices.Index(zKindNames[:], strings.ToLower(strings.TrimSpace(s))); i >= 0 {
		return ZKind(i), nil
	}
	return 0, fmt.Errorf("unknown nuisance kind %q: want one of %s", s, strings.Join(zKindNames[:], ", "))
}

// MarshalText implements encoding.TextMarshaler, so that configurations name the kind.
func (k ZKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *ZKind) UnmarshalText(b []byte) error {
	v, err := ParseZKind(string(b))
	if err == nil {
		*k = v
	}
	return err
}

// Nuisance says what a set's Z holds. The zero value is the paper's binary Z.
type Nuisance struct {
	Kind   ZKind    `json:",omitempty"`
	Levels []string `json:",omitempty"` // categorical: the levels' names; Z holds a level's index 0, …, K−1
	Dim    int      `json:",omitempty"` // vector: numbers per row (Z is row-major, Dim values per row); 0 means 1
}

// Width returns the numbers of Z per row: Dim for a vector, else 1.
func (n Nuisance) Width() int {
	if n.Kind == VectorZ && n.Dim > 0 {
		return n.Dim
	}
	return 1
}

// String describes the nuisance in a few words: "binary", "categorical (3 levels: a, b, c)",
// "continuous", "vector of 4".
func (n Nuisance) String() string {
	switch n.Kind {
	case CategoricalZ:
		return fmt.Sprintf("categorical (%d levels: %s)", len(n.Levels), strings.Join(n.Levels, ", "))
	case VectorZ:
		return fmt.Sprintf("vector of %d", n.Width())
	}
	return n.Kind.String()
}

// check returns an error naming what is wrong with value v of this nuisance, or nil.
func (n Nuisance) check(v float64) error {
	switch n.Kind {
	case BinaryZ:
		if v != 0 && v != 1 {
			return fmt.Errorf("Z = %v, want 0 or 1", v)
		}
	case CategoricalZ:
		if v != float64(int(v)) || v < 0 || int(v) >= len(n.Levels) {
			return fmt.Errorf("Z = %v, want a level index 0, …, %d", v, len(n.Levels)-1)
		}
	default:
		if v-v != 0 { // ±Inf (NaN is handled by the caller)
			return fmt.Errorf("Z = %v, want a finite value", v)
		}
	}
	return nil
}

// ObservedZ returns a copy of s's Z with NaN wherever Z is not observed (Δ = 0; a whole row
// of a vector): the values a nuisance's feature map may be fixed from, since the hidden Z
// that a simulation keeps on those rows is not data.
func (s *Set) ObservedZ() []float64 {
	q := s.Nuisance.Width()
	z := append([]float64(nil), s.Z...)
	for i, d := range s.Delta {
		if d == 0 {
			for j := 0; j < q; j++ {
				z[i*q+j] = math.NaN()
			}
		}
	}
	return z
}
