package dataset

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

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
