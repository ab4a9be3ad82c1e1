package tabular

import (
	"fmt"
	"math"
	"strings"
)

// Binary returns column name of t as 0/1 values, NaN where missing. A numeric column
// must hold only 0 and 1 unless positive is given; with positive, that value is 1 and the
// one other value 0. flag names the command-line flag that chose the column, for the
// messages (which list the values seen and say how to name the positive one).
func (t *Table) Binary(name, positive, flag string) ([]float64, error) {
	c := t.Column(name)
	if c == nil {
		return nil, fmt.Errorf("%s: no column named %q (%s); the columns are %s", t.File, name, flag, strings.Join(t.Header, ", "))
	}
	seen := c.distinct(20)
	if len(seen) > 2 && (positive != "" || !c.Numeric) { // a numeric column is checked value by value below
		more := ""
		if len(seen) > 20 {
			seen, more = seen[:20], ", ..."
		}
		first := map[string]bool{}
		for i := 0; i < t.Len(); i++ {
			if c.IsMissing(i) {
				continue
			}
			if first[c.Value(i)] = true; len(first) > 2 {
				return nil, fmt.Errorf("%s:%d: column %q (%s) is not binary: value %q is a third value; values seen %s%s",
					t.File, t.Lines[i], name, flag, c.Value(i), strings.Join(seen, ", "), more)
			}
		}
	}
	out := make([]float64, t.Len())
	if positive == "" {
		for i := range out {
			switch {
			case c.IsMissing(i):
				out[i] = math.NaN()
			case c.Numeric && (c.Num[i] == 0 || c.Num[i] == 1):
				out[i] = c.Num[i]
			default:
				return nil, fmt.Errorf("%s:%d: column %q (%s): value %q, want 0 or 1; the column's values are %s: name the positive one with %s-positive VALUE",
					t.File, t.Lines[i], name, flag, c.Value(i), strings.Join(seen, ", "), flag)
			}
		}
		return out, nil
	}
	found := false
	for _, v := range seen {
		found = found || v == positive
	}
	if !found {
		return nil, fmt.Errorf("%s: column %q (%s): no value %q (%s-positive); the values seen are %s", t.File, name, flag, positive, flag, strings.Join(seen, ", "))
	}
	for i := range out {
		switch {
		case c.IsMissing(i):
			out[i] = math.NaN()
		case c.Value(i) == positive:
			out[i] = 1
		}
	}
	return out, nil
}

// Probabilities returns column name of t as values in [0, 1] (a fitted G or m). flag names
// the command-line flag that chose it.
func (t *Table) Probabilities(name, flag string) ([]float64, error) {
	c := t.Column(name)
	if c == nil {
		return nil, fmt.Errorf("%s: no column named %q (%s); the columns are %s", t.File, name, flag, strings.Join(t.Header, ", "))
	}
	for i := 0; i < t.Len(); i++ {
		if c.IsMissing(i) || !c.Numeric || !(c.Num[i] >= 0 && c.Num[i] <= 1) {
			return nil, fmt.Errorf("%s:%d: column %q (%s): value %q, want a probability in [0, 1]", t.File, t.Lines[i], name, flag, c.Value(i))
		}
	}
	return append([]float64(nil), c.Num...), nil
}

// Numbers returns column name of t as finite numbers (model outputs h), refusing missing
// cells. flag names the command-line flag that chose it.
func (t *Table) Numbers(name, flag string) ([]float64, error) {
	c := t.Column(name)
	if c == nil {
		return nil, fmt.Errorf("%s: no column named %q (%s); the columns are %s", t.File, name, flag, strings.Join(t.Header, ", "))
	}
	for i := 0; i < t.Len(); i++ {
		if c.IsMissing(i) || !c.Numeric {
			return nil, fmt.Errorf("%s:%d: column %q (%s): value %q, want a number", t.File, t.Lines[i], name, flag, c.Value(i))
		}
	}
	return append([]float64(nil), c.Num...), nil
}

// LabelsAndNuisance reads Y (no missing value allowed) and Z (missing allowed) and checks
// what every estimator needs: both classes of Y, some observed Z, and an observed row in
// each (Y, Z) cell. It returns Y, Z (NaN where missing) and Δ.
func (t *Table) LabelsAndNuisance(yCol, yPos, zCol, zPos string) (y, z, delta []float64, err error) {
	if y, err = t.Binary(yCol, yPos, "-y"); err != nil {
		return nil, nil, nil, err
	}
	for i, v := range y {
		if math.IsNaN(v) {
			return nil, nil, nil, fmt.Errorf("%s:%d: column %q (-y): the label is missing; every row needs one (drop the row)", t.File, t.Lines[i], yCol)
		}
	}
	if z, err = t.Binary(zCol, zPos, "-z"); err != nil {
		return nil, nil, nil, err
	}
	delta = make([]float64, len(z))
	var count [2]int
	var cell [2][2]int
	for i := range z {
		count[int(y[i])]++
		if !math.IsNaN(z[i]) {
			delta[i] = 1
			cell[int(y[i])][int(z[i])]++
		}
	}
	for c := 0; c < 2; c++ {
		if count[c] == 0 {
			return nil, nil, nil, fmt.Errorf("%s: column %q (-y) has only the value %v in all %d rows: one class, nothing to learn or stratify", t.File, yCol, 1-c, len(y))
		}
	}
	if cell[0][0]+cell[0][1]+cell[1][0]+cell[1][1] == 0 {
		return nil, nil, nil, fmt.Errorf("%s: column %q (-z) is missing in all %d rows: no estimator can say anything about Z", t.File, zCol, len(z))
	}
	for yy := 0; yy < 2; yy++ {
		for zz := 0; zz < 2; zz++ {
			if cell[yy][zz] == 0 {
				return nil, nil, nil, fmt.Errorf("%s: no row with %s = %d and %s = %d observed (cells observed: Y=0,Z=0: %d; Y=0,Z=1: %d; Y=1,Z=0: %d; Y=1,Z=1: %d): "+
					"the MMD within Y = %d compares Z = 0 with Z = 1 and has no Z = %d row to compare", t.File, yCol, yy, zCol, zz,
					cell[0][0], cell[0][1], cell[1][0], cell[1][1], yy, zz)
			}
		}
	}
	return y, z, delta, nil
}
