package dataset

import (
	"math"
	"testing"
)

// TestObservedZ: rows with Δ = 0 become NaN (a whole row of a vector), the others keep
// their values, and s itself is not changed.
func TestObservedZ(t *testing.T) {
	s := &Set{Z: []float64{1, 2, 3, 4, 5, 6}, Delta: []float64{1, 0, 1}, Nuisance: Nuisance{Kind: VectorZ, Dim: 2}}
	z := s.ObservedZ()
	if z[0] != 1 || z[1] != 2 || !math.IsNaN(z[2]) || !math.IsNaN(z[3]) || z[4] != 5 || z[5] != 6 || s.Z[2] != 3 {
		t.Errorf("ObservedZ = %v (set's Z now %v)", z, s.Z)
	}
}
