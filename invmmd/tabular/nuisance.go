package tabular

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// MaxIntegerLevels is the most distinct values an integer-coded numeric nuisance column may
// have and still be inferred categorical (site 1, 2, 3, …): exactly MaxIntegerLevels codes
// are categorical, one more is continuous. Name the kind (Spec.ZKind) to decide otherwise.
const MaxIntegerLevels = 10

// ParseColumns splits a list of columns "a" or "a,b,c" into its names, refusing an empty
// name (a doubled or trailing comma) and a name listed twice.
func ParseColumns(list string) ([]string, error) {
	parts := strings.Split(list, ",")
	var out []string
	for k, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "" && len(parts) > 1:
			return nil, fmt.Errorf("column %d of %d is empty (a doubled or trailing comma?)", k+1, len(parts))
		case p == "":
			return nil, fmt.Errorf("no column named")
		case slices.Contains(out, p):
			return nil, fmt.Errorf("column %q listed twice", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// ZColumns splits a nuisance specification "a" or "a,b,c" into its column names: several
// columns make a vector nuisance. Empty names are skipped (ParseColumns refuses them).
func ZColumns(z string) []string {
	var out []string
	for _, c := range strings.Split(z, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// InferZKind returns the kind of the nuisance in columns cols of t, and why, when the user
// named none: several columns are a vector; a named positive value, or a numeric column
// holding only 0 and 1, a binary Z; a non-numeric column with more than two levels a
// categorical one (with two, a binary Z whose positive value must be named); a numeric
// column of at most MaxIntegerLevels integer values a categorical one; any other numeric
// column a continuous one.
func (t *Table) InferZKind(cols []string, positive string) (dataset.ZKind, string, error) {
	if len(cols) == 0 {
		return 0, "", fmt.Errorf("%s: no nuisance column (%s)", t.File, t.name("Z"))
	}
	if len(cols) > 1 {
		return dataset.VectorZ, fmt.Sprintf("%d columns", len(cols)), nil
	}
	c := t.Column(cols[0])
	if c == nil {
		return 0, "", &ColumnError{File: t.File, Name: cols[0], Setting: t.name("Z"), Header: t.Header}
	}
	if positive != "" {
		return dataset.BinaryZ, t.name("ZPositive") + ", which names the value read as Z = 1", nil
	}
	if !c.Numeric {
		if len(c.Levels) > 2 {
			return dataset.CategoricalZ, fmt.Sprintf("%d text levels", len(c.Levels)), nil
		}
		return dataset.BinaryZ, fmt.Sprintf("%d text levels", len(c.Levels)), nil
	}
	values := map[float64]bool{}
	integers := true
	for i := 0; i < t.Len(); i++ {
		if v := c.Num[i]; !math.IsNaN(v) {
			values[v] = true
			integers = integers && v == math.Trunc(v)
		}
	}
	if len(values) <= 2 {
		only01 := true
		for v := range values {
			only01 = only01 && (v == 0 || v == 1)
		}
		if only01 {
			return dataset.BinaryZ, "numbers 0 and 1", nil
		}
	}
	if integers && len(values) <= MaxIntegerLevels {
		return dataset.CategoricalZ, fmt.Sprintf("%d integer values", len(values)), nil
	}
	return dataset.ContinuousZ, fmt.Sprintf("numbers with %d distinct values", len(values)), nil
}

// Nuisance reads the nuisance in columns cols of t as kind: a binary Z as Binary does
// (positive names the value read as 1); a categorical Z as the index of its level, the
// levels being the column's text values in order of first appearance, or its numbers in
// increasing order; a continuous Z as its numbers; a vector as its columns' numbers,
// row-major. A missing cell makes the row's Z NaN (for a vector, a row with any cell
// missing). It returns Z and the nuisance's description; every error names the file, line,
// column and value.
func (t *Table) Nuisance(cols []string, kind dataset.ZKind, positive string) ([]float64, dataset.Nuisance, error) {
	nu := dataset.Nuisance{Kind: kind}
	if len(cols) == 0 {
		return nil, nu, fmt.Errorf("%s: no nuisance column (%s)", t.File, t.name("Z"))
	}
	if kind != dataset.VectorZ && len(cols) > 1 {
		return nil, nu, fmt.Errorf("%s: %s names %d columns (%s) but a %v nuisance has one; name the kind vector (%s) for several", t.File, t.name("Z"), len(cols), strings.Join(cols, ","), kind, t.name("ZKind"))
	}
	if kind != dataset.BinaryZ && positive != "" {
		return nil, nu, fmt.Errorf("%s: %s %q is for a binary nuisance, and %s %s is %v", t.File, t.name("ZPositive"), positive, t.name("Z"), strings.Join(cols, ","), kind)
	}
	var columns []*Column
	for _, name := range cols {
		c := t.Column(name)
		if c == nil {
			return nil, nu, &ColumnError{File: t.File, Name: name, Setting: t.name("Z"), Header: t.Header}
		}
		columns = append(columns, c)
	}
	n := t.Len()
	switch kind {
	case dataset.BinaryZ:
		z, err := t.Binary(cols[0], positive, "Z")
		return z, nu, err
	case dataset.CategoricalZ:
		c := columns[0]
		z := make([]float64, n)
		if !c.Numeric {
			nu.Levels = append([]string(nil), c.Levels...)
			for i := range z {
				z[i] = float64(c.Codes[i])
				if c.Codes[i] < 0 {
					z[i] = math.NaN()
				}
			}
		} else {
			seen := map[float64]bool{}
			for _, v := range c.Num {
				if !math.IsNaN(v) {
					seen[v] = true
				}
			}
			vals := slices.Sorted(maps.Keys(seen))
			index := map[float64]int{}
			for k, v := range vals {
				index[v] = k
				nu.Levels = append(nu.Levels, strconv.FormatFloat(v, 'g', -1, 64))
			}
			for i, v := range c.Num {
				z[i] = math.NaN()
				if !math.IsNaN(v) {
					z[i] = float64(index[v])
				}
			}
		}
		if len(nu.Levels) < 2 {
			return nil, nu, fmt.Errorf("%s: column %q (%s) has %d level(s) %s: a categorical nuisance needs at least 2", t.File, c.Name, t.name("Z"), len(nu.Levels), strings.Join(nu.Levels, ", "))
		}
		return z, nu, nil
	case dataset.ContinuousZ, dataset.VectorZ:
		q := len(columns)
		if kind == dataset.VectorZ {
			nu.Dim = q
		}
		z := make([]float64, n*q)
		for j, c := range columns {
			if !c.Numeric {
				return nil, nu, fmt.Errorf("%s:%d: column %q (%s): value %q, want a number (a %v nuisance); name the kind categorical (%s) for a nuisance of levels",
					t.File, c.firstText.line, c.Name, t.name("Z"), c.firstText.value, kind, t.name("ZKind"))
			}
			for i := 0; i < n; i++ {
				z[i*q+j] = c.Num[i]
				if math.Abs(c.Num[i]) > MaxMagnitude {
					return nil, nu, fmt.Errorf("%s:%d: column %q (%s): value %q is beyond ±%g, where the squares that fit m and take the kernel's bandwidth overflow; rescale Z (e.g. divide it, or take its logarithm)",
						t.File, t.Lines[i], c.Name, t.name("Z"), c.Value(i), MaxMagnitude)
				}
			}
		}
		for i := 0; i < n; i++ { // a vector is observed whole or missing whole
			var blank, present int = -1, -1
			for j := 0; j < q; j++ {
				if math.IsNaN(z[i*q+j]) {
					blank = j
				} else {
					present = j
				}
			}
			if blank >= 0 && present >= 0 {
				return nil, nu, fmt.Errorf("%s:%d: column %q (%s): value %q is missing while column %q holds %q: a vector Z (%s) is observed whole or missing whole; fill the cell, or blank every component of the row",
					t.File, t.Lines[i], columns[blank].Name, t.name("Z"), columns[blank].Raw(i), columns[present].Name, columns[present].Value(i), strings.Join(cols, ","))
			}
		}
		return z, nu, nil
	}
	return nil, nu, fmt.Errorf("%s: unknown nuisance kind %v", t.File, kind)
}

// LabelsAndZ reads Y (no missing value allowed) and the nuisance of any kind, and checks
// what every estimator needs: both classes of Y, some observed Z, and for a binary Z an
// observed row in each (Y, Z) cell (LabelsAndNuisance), for another kind at least two
// observed rows in each Y stratum. It returns Y, Z (NaN where missing, row-major for a
// vector), Δ and the nuisance's description.
func (t *Table) LabelsAndZ(yCol, yPos string, zCols []string, kind dataset.ZKind, zPos string) (y, z, delta []float64, nu dataset.Nuisance, err error) {
	if kind == dataset.BinaryZ {
		if len(zCols) != 1 {
			return nil, nil, nil, nu, fmt.Errorf("%s: a binary nuisance is one column, %s names %d", t.File, t.name("Z"), len(zCols))
		}
		y, z, delta, err = t.LabelsAndNuisance(yCol, yPos, zCols[0], zPos)
		return y, z, delta, dataset.Nuisance{}, err
	}
	if y, err = t.labels(yCol, yPos); err != nil {
		return nil, nil, nil, nu, err
	}
	if err := t.bothClasses(y, yCol); err != nil {
		return nil, nil, nil, nu, err
	}
	z, delta, nu, err = t.nuisanceByClass(y, []string{"0", "1"}, yCol, zCols, kind, zPos)
	return y, z, delta, nu, err
}

// checkZSpread checks that each column of a continuous or vector nuisance z (row-major, one
// column per name of zCols) takes more than one value on the rows where it is observed:
// a constant Z carries nothing to be independent of.
func (t *Table) checkZSpread(zCols []string, z, delta []float64, kind dataset.ZKind) error {
	q := len(zCols)
	for j, name := range zCols {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, d := range delta {
			if d == 1 {
				lo, hi = math.Min(lo, z[i*q+j]), math.Max(hi, z[i*q+j])
			}
		}
		if !(hi > lo) {
			return fmt.Errorf("%s: column %q (%s) has the one value %v on every row where it is observed: a %v nuisance needs some spread", t.File, name, t.name("Z"), lo, kind)
		}
	}
	return nil
}
