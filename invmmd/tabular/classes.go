package tabular

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxClasses is the most classes Classes reads from a label column: a column with more
// distinct values is more likely an identifier or a number than a label.
const MaxClasses = 50

// Classes returns column name of t as a label of K ≥ 2 classes: each row's class index
// 0, …, K−1 and the classes' names, in order. A numeric column's classes are its values
// (which must be integers) in increasing order; a text column's are its values in
// byte order. Every row needs a label. flag names the command-line flag that chose the
// column, for the messages, which name file, line, column and value.
func (t *Table) Classes(name, flag string) (y []float64, names []string, err error) {
	c := t.Column(name)
	if c == nil {
		return nil, nil, fmt.Errorf("%s: no column named %q (%s); the columns are %s", t.File, name, flag, strings.Join(t.Header, ", "))
	}
	for i := 0; i < t.Len(); i++ {
		switch {
		case c.IsMissing(i):
			return nil, nil, fmt.Errorf("%s:%d: column %q (%s): the label is missing; every row needs one (drop the row)", t.File, t.Lines[i], name, flag)
		case c.Numeric && c.Num[i] != math.Trunc(c.Num[i]):
			return nil, nil, fmt.Errorf("%s:%d: column %q (%s): value %q is not a class: a numeric label must hold integer codes", t.File, t.Lines[i], name, flag, c.Value(i))
		}
	}
	seen := c.distinct(MaxClasses)
	switch {
	case len(seen) > MaxClasses:
		return nil, nil, fmt.Errorf("%s: column %q (%s) has more than %d distinct values: not a label of classes", t.File, name, flag, MaxClasses)
	case len(seen) < 2:
		return nil, nil, fmt.Errorf("%s: column %q (%s) has only the value %s in all %d rows: one class, nothing to learn or stratify", t.File, name, flag, strings.Join(seen, ""), t.Len())
	}
	if c.Numeric {
		slices.SortFunc(seen, func(a, b string) int {
			x, _ := strconv.ParseFloat(a, 64) // Column.Value formats a number exactly
			z, _ := strconv.ParseFloat(b, 64)
			return cmp.Compare(x, z)
		})
	}
	index := make(map[string]int, len(seen))
	for k, v := range seen {
		index[v] = k
	}
	y = make([]float64, t.Len())
	for i := range y {
		y[i] = float64(index[c.Value(i)])
	}
	return y, seen, nil
}

// ClassIndex returns the class index of each row of column name of t under the classes
// names of a fitted model (Classes at fit time), for predict and evaluation on new data; a
// value that is not one of the classes is an error naming file, line and value. A missing
// label is NaN.
func (t *Table) ClassIndex(name, flag string, names []string) ([]float64, error) {
	c := t.Column(name)
	if c == nil {
		return nil, fmt.Errorf("%s: no column named %q (%s); the columns are %s", t.File, name, flag, strings.Join(t.Header, ", "))
	}
	index := make(map[string]int, len(names))
	for k, v := range names {
		index[v] = k
	}
	y := make([]float64, t.Len())
	for i := range y {
		if c.IsMissing(i) {
			y[i] = math.NaN()
			continue
		}
		k, ok := index[c.Value(i)]
		if !ok {
			return nil, fmt.Errorf("%s:%d: column %q (%s): class %q was absent from training; the model's classes are %s",
				t.File, t.Lines[i], name, flag, c.Value(i), strings.Join(names, ", "))
		}
		y[i] = float64(k)
	}
	return y, nil
}

// CheckClassesObserved checks that every class of a K-class label y (indices into names)
// has at least two rows with Z observed (delta 1): the MMD within a class's stratum needs
// them. The error names the file, the class and the columns, as the binary check does.
func (t *Table) CheckClassesObserved(y, delta []float64, names []string, yCol string, zCols []string) error {
	obs := make([]int, len(names))
	for i, d := range delta {
		if d == 1 {
			obs[int(y[i])]++
		}
	}
	for c, k := range obs {
		if k < 2 {
			return fmt.Errorf("%s: %d row(s) with %s = %s have Z (%s) observed: the MMD within that class's stratum needs at least 2",
				t.File, k, yCol, names[c], strings.Join(zCols, ","))
		}
	}
	return nil
}
