package tabular

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Binary returns column name of t as 0/1 values, NaN where missing (without positive the
// column's own values, not a copy: the caller must not change them). A numeric column
// must hold only 0 and 1 unless positive is given; with positive, that value is 1 and the
// one other value 0. key is the setting that chose the column ("Y", "Z"; Names names it,
// and key+"Positive" the setting of its positive value), for the messages (which list the
// values seen and say how to name the positive one).
func (t *Table) Binary(name, positive, key string) ([]float64, error) {
	flag := t.name(key)
	c := t.Column(name)
	if c == nil {
		return nil, &ColumnError{File: t.File, Name: name, Setting: flag, Header: t.Header}
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
	if positive == "" {
		for i := range t.Len() {
			switch {
			case c.IsMissing(i): // NaN in Num
			case c.Numeric && (c.Num[i] == 0 || c.Num[i] == 1):
			default:
				return nil, fmt.Errorf("%s:%d: column %q (%s): value %q, want 0 or 1; the column's values are %s: name the positive one with %s",
					t.File, t.Lines[i], name, flag, c.Value(i), strings.Join(seen, ", "), t.name(key+"Positive"))
			}
		}
		return c.Num, nil // the column's own values, as numbers returns them
	}
	out := make([]float64, t.Len())
	if !slices.Contains(seen, positive) {
		return nil, fmt.Errorf("%s: column %q (%s): no value %q (%s); the values seen are %s", t.File, name, flag, positive, t.name(key+"Positive"), strings.Join(seen, ", "))
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

// Probabilities returns column name of t as values in [0, 1] (a fitted G or m), the
// column's own (see numbers). key is the setting that chose it (Names names it).
func (t *Table) Probabilities(name, key string) ([]float64, error) {
	return t.numbers(name, key, "a probability in [0, 1]", ", want a probability in [0, 1]", func(v float64) bool { return v >= 0 && v <= 1 })
}

// Numbers returns column name of t as finite numbers (model outputs h), the column's own
// (see numbers), refusing missing cells (quoted as written: "", "NA", "NaN"...). key is the setting that chose it.
func (t *Table) Numbers(name, key string) ([]float64, error) {
	return t.numbers(name, key, "a number", fmt.Sprintf(" is beyond ±%g, where the squared distances of a kernel overflow; rescale the column", MaxMagnitude),
		func(v float64) bool { return !(math.Abs(v) > MaxMagnitude) })
}

// numbers returns column name of t (chosen by setting key) when every row holds a number
// that ok accepts; the error names the first row that does not: a missing or non-numeric
// value wants want, a value ok refuses says why (its text after the quoted value). The
// values are the column's own, not a copy (a table of 10⁷ rows holds 80 MB per column):
// the caller must not change them.
func (t *Table) numbers(name, key, want, why string, ok func(float64) bool) ([]float64, error) {
	flag := t.name(key)
	c := t.Column(name)
	if c == nil {
		return nil, &ColumnError{File: t.File, Name: name, Setting: flag, Header: t.Header}
	}
	for i := 0; i < t.Len(); i++ {
		switch {
		case c.IsMissing(i):
			return nil, fmt.Errorf("%s:%d: column %q (%s): value %q is missing, want %s on every row", t.File, t.Lines[i], name, flag, c.Raw(i), want)
		case !c.Numeric:
			return nil, fmt.Errorf("%s:%d: column %q (%s): value %q, want %s", t.File, t.Lines[i], name, flag, c.Value(i), want)
		case !ok(c.Num[i]):
			return nil, fmt.Errorf("%s:%d: column %q (%s): value %q%s", t.File, t.Lines[i], name, flag, c.Value(i), why)
		}
	}
	return c.Num, nil
}

// labels reads the binary label column yCol (positive: its value read as 1) and checks
// that every row has one.
func (t *Table) labels(yCol, yPos string) ([]float64, error) {
	y, err := t.Binary(yCol, yPos, "Y")
	if err != nil {
		return nil, err
	}
	c := t.Column(yCol)
	for i, v := range y {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%s:%d: column %q (%s): value %q: the label is missing; every row needs one (drop the row)", t.File, t.Lines[i], yCol, t.name("Y"), c.Raw(i))
		}
	}
	return y, nil
}

// bothClasses checks that both classes of the binary label y (column yCol) occur.
func (t *Table) bothClasses(y []float64, yCol string) error {
	var count [2]int
	for _, v := range y {
		count[int(v)]++
	}
	if count[0] == 0 || count[1] == 0 {
		c, value := t.Column(yCol), ""
		if vs := c.distinct(1); len(vs) == 1 { // every row has a label (labels)
			value = vs[0]
		}
		return oneClassError(t.File, yCol, t.name("Y"), value)
	}
	return nil
}

// oneClassError says that label column name (setting flag) of file holds one class,
// value (as the file wrote it) on every row.
func oneClassError(file, name, flag, value string) error {
	return fmt.Errorf("%s: column %q (%s) has one class (%q on every row): nothing to compare", file, name, flag, value)
}

// LabelsAndNuisance reads Y (no missing value allowed) and Z (missing allowed) and checks
// what every estimator needs: both classes of Y, some observed Z, and an observed row in
// each (Y, Z) cell. It returns Y, Z (NaN where missing) and Δ.
func (t *Table) LabelsAndNuisance(yCol, yPos, zCol, zPos string) (y, z, delta []float64, err error) {
	if y, err = t.labels(yCol, yPos); err != nil {
		return nil, nil, nil, err
	}
	if z, err = t.Binary(zCol, zPos, "Z"); err != nil {
		return nil, nil, nil, err
	}
	if err := t.bothClasses(y, yCol); err != nil {
		return nil, nil, nil, err
	}
	delta = make([]float64, len(z))
	var cell [2][2]int
	for i := range z {
		if !math.IsNaN(z[i]) {
			delta[i] = 1
			cell[int(y[i])][int(z[i])]++
		}
	}
	if cell[0][0]+cell[0][1]+cell[1][0]+cell[1][1] == 0 {
		return nil, nil, nil, fmt.Errorf("%s: column %q (%s) is missing in all %d rows: no estimator can say anything about Z", t.File, zCol, t.name("Z"), len(z))
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
