package clinical

import (
	"fmt"
	"math"
)

// Table is a cohort before it is split: one row per patient (or ICU stay) with raw,
// unstandardised features. It is what a data source hands to Assemble.
type Table struct {
	Name  string    // source name for messages and reports, e.g. "flchain", "mimic3"
	Names []string  // feature names, one per column of X
	X     []float64 // raw features, row-major; NaN marks a value that was not measured
	Y     []float64 // label, 0 or 1
	Z     []float64 // nuisance, 0 or 1 (the truth; Assemble hides some of it)
	// Group marks the rows of the group whose Z is observed with Missingness.ProbGroup
	// (the others with ProbOther): it drives the simulated missingness of Z, as being male
	// does in the paper. It must be a function of X, so that the true G is one too.
	Group []bool
	// GroupName says what Group is, for reports: "male" (MIMIC-III), "aged 65 or over"
	// (flchain).
	GroupName string
}

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.Y) }

// Dim returns the number of feature columns.
func (t *Table) Dim() int { return len(t.Names) }

// Validate checks that the columns agree in length, that Y and Z are 0 or 1 and that every
// feature is finite or NaN (NaN means missing; ±Inf is an error). Errors name the row and
// column.
func (t *Table) Validate() error {
	n, d := t.Len(), t.Dim()
	if n == 0 {
		return fmt.Errorf("clinical table %s: no rows", t.Name)
	}
	if d == 0 {
		return fmt.Errorf("clinical table %s: no feature columns", t.Name)
	}
	if len(t.X) != n*d {
		return fmt.Errorf("clinical table %s: %d feature values for %d rows of %d columns (want %d)", t.Name, len(t.X), n, d, n*d)
	}
	if len(t.Z) != n || len(t.Group) != n {
		return fmt.Errorf("clinical table %s: Y has %d rows, Z %d, Group %d", t.Name, n, len(t.Z), len(t.Group))
	}
	for i := 0; i < n; i++ {
		if t.Y[i] != 0 && t.Y[i] != 1 {
			return fmt.Errorf("clinical table %s: row %d: Y = %v, want 0 or 1", t.Name, i, t.Y[i])
		}
		if t.Z[i] != 0 && t.Z[i] != 1 {
			return fmt.Errorf("clinical table %s: row %d: Z = %v, want 0 or 1", t.Name, i, t.Z[i])
		}
		for j, v := range t.X[i*d : (i+1)*d] {
			if math.IsInf(v, 0) {
				return fmt.Errorf("clinical table %s: row %d: column %s = %v, want a finite value or NaN for missing", t.Name, i, t.Names[j], v)
			}
		}
	}
	return nil
}
