package tabular

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// MaxClasses is the most classes Classes reads from a label column: a column with more
// distinct values is more likely an identifier or a number than a label.
const MaxClasses = 50

// Classes returns column name of t as a label of K ≥ 2 classes: each row's class index
// 0, …, K−1 and the classes' names, in order. A numeric column's classes are its values
// (which must be integers) in increasing order; a text column's are its values in
// byte order. Every row needs a label. key is the setting that chose the column (Names
// names it), for the messages, which name file, line, column and value.
func (t *Table) Classes(name, key string) (y []float64, names []string, err error) {
	flag := t.name(key)
	c := t.Column(name)
	if c == nil {
		return nil, nil, &ColumnError{File: t.File, Name: name, Setting: flag, Header: t.Header}
	}
	for i := 0; i < t.Len(); i++ {
		switch {
		case c.IsMissing(i):
			return nil, nil, fmt.Errorf("%s:%d: column %q (%s): value %q: the label is missing; every row needs one (drop the row)", t.File, t.Lines[i], name, flag, c.Raw(i))
		case c.Numeric && c.Num[i] != math.Trunc(c.Num[i]):
			return nil, nil, fmt.Errorf("%s:%d: column %q (%s): value %q is not a class: a numeric label must hold integer codes", t.File, t.Lines[i], name, flag, c.Value(i))
		}
	}
	seen := c.distinct(MaxClasses)
	switch {
	case len(seen) > MaxClasses:
		return nil, nil, fmt.Errorf("%s: column %q (%s) has more than %d distinct values: not a label of classes", t.File, name, flag, MaxClasses)
	case len(seen) < 2:
		return nil, nil, oneClassError(t.File, name, flag, strings.Join(seen, ""))
	}
	if c.Numeric {
		slices.SortFunc(seen, func(a, b string) int {
			x, _ := strconv.ParseFloat(a, 64) // Column.Value formats a number exactly
			z, _ := strconv.ParseFloat(b, 64)
			return cmp.Compare(x, z)
		})
	}
	y, err = t.ClassIndex(name, key, seen) // every row's value is one of seen, and present
	return y, seen, err
}

// ClassIndex returns the class index of each row of column name of t under the classes
// names of a fitted model (Classes at fit time), for predict and evaluation on new data; a
// value that is not one of the classes is an error naming file, line and value. A missing
// label is NaN. key is the setting that chose the column (Names names it).
func (t *Table) ClassIndex(name, key string, names []string) ([]float64, error) {
	flag := t.name(key)
	c := t.Column(name)
	if c == nil {
		return nil, &ColumnError{File: t.File, Name: name, Setting: flag, Header: t.Header}
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

// LabelClasses decides how column name of t is read as a label: nil for a binary label,
// read as today by Binary (at most two distinct values, or positive named), or the names
// of its K > 2 classes (Classes). positive (-y-positive) names the value read as Y = 1
// and only a binary label has one: given for a column of more than two values it is an
// error saying so. key is the setting that chose the column ("Y"; Names names it, and
// key+"Positive" the setting of the positive value).
func (t *Table) LabelClasses(name, positive, key string) ([]string, error) {
	flag := t.name(key)
	c := t.Column(name)
	if c == nil {
		return nil, &ColumnError{File: t.File, Name: name, Setting: flag, Header: t.Header}
	}
	seen := c.distinct(MaxClasses)
	if len(seen) <= 2 {
		return nil, nil
	}
	if positive != "" {
		count, more := strconv.Itoa(len(seen)), ""
		if len(seen) > MaxClasses {
			count, seen, more = "more than "+strconv.Itoa(MaxClasses), seen[:MaxClasses], ", ..."
		}
		pos := t.name(key + "Positive")
		return nil, fmt.Errorf("%s: column %q (%s) has %s distinct values (%s%s) and %s %q names the positive value of a binary label: "+
			"drop %s to fit the column's classes, or recode the column to two values", t.File, name, flag, count, strings.Join(seen, ", "), more, pos, positive, pos)
	}
	_, names, err := t.Classes(name, key)
	return names, err
}

// LabelsAndZClasses is LabelsAndZ for a label of K > 2 classes named names (LabelClasses
// at fit time): Y is each row's class index (a value that is not one of names, or a
// missing label, is an error naming file, line and value), every class needs a row, and
// the nuisance is checked within each class (nuisanceByClass).
func (t *Table) LabelsAndZClasses(yCol string, names []string, zCols []string, kind dataset.ZKind, zPos string) (y, z, delta []float64, nu dataset.Nuisance, err error) {
	if y, err = t.ClassIndex(yCol, "Y", names); err != nil {
		return nil, nil, nil, nu, err
	}
	count := make([]int, len(names))
	for i, v := range y {
		if math.IsNaN(v) {
			return nil, nil, nil, nu, fmt.Errorf("%s:%d: column %q (%s): value %q: the label is missing; every row needs one (drop the row)", t.File, t.Lines[i], yCol, t.name("Y"), t.Column(yCol).Raw(i))
		}
		count[int(v)]++
	}
	for k, n := range count {
		if n == 0 {
			return nil, nil, nil, nu, fmt.Errorf("%s: column %q (%s) has no row of class %s (classes %s): a class with no rows has nothing to learn or stratify", t.File, yCol, t.name("Y"), names[k], strings.Join(names, ", "))
		}
	}
	z, delta, nu, err = t.nuisanceByClass(y, names, yCol, zCols, kind, zPos)
	return y, z, delta, nu, err
}

// nuisanceByClass reads the nuisance of columns zCols as kind (Nuisance) and checks it
// within each class of the label y (indices into names, read from column yCol): at least
// two rows with Z observed (CheckClassesObserved), for a binary Z an observed row with Z = 0
// and one with Z = 1, for a categorical Z each level observed twice, for a continuous or
// vector Z some spread. It returns Z, Δ and the nuisance's description.
func (t *Table) nuisanceByClass(y []float64, names []string, yCol string, zCols []string, kind dataset.ZKind, zPos string) (z, delta []float64, nu dataset.Nuisance, err error) {
	if kind == dataset.BinaryZ && len(zCols) != 1 {
		return nil, nil, nu, fmt.Errorf("%s: a binary nuisance is one column, %s names %d", t.File, t.name("Z"), len(zCols))
	}
	if z, nu, err = t.Nuisance(zCols, kind, zPos); err != nil {
		return nil, nil, nu, err
	}
	q := nu.Width()
	delta = make([]float64, len(y))
	for i := range delta {
		if !math.IsNaN(z[i*q]) {
			delta[i] = 1
		}
	}
	if err := t.CheckClassesObserved(y, delta, names, yCol, zCols); err != nil {
		return nil, nil, nu, err
	}
	switch kind {
	case dataset.BinaryZ, dataset.CategoricalZ:
		levels := nu.Levels
		need := 2 // the joint MMD² averages over pairs of each level
		if kind == dataset.BinaryZ {
			levels, need = []string{"0", "1"}, 1
		}
		cell := make([][]int, len(names))
		for k := range cell {
			cell[k] = make([]int, len(levels))
		}
		for i, d := range delta {
			if d == 1 {
				cell[int(y[i])][int(z[i])]++
			}
		}
		for k := range cell {
			for l, n := range cell[k] {
				if n >= need {
					continue
				}
				if kind == dataset.BinaryZ {
					return nil, nil, nu, fmt.Errorf("%s: no row with %s = %s and %s = %d observed: the MMD within that class compares Z = 0 with Z = 1 and has no Z = %d row to compare",
						t.File, yCol, names[k], zCols[0], l, l)
				}
				return nil, nil, nu, fmt.Errorf("%s: level %q of column %q (%s) is observed in %d row(s) with %s = %s; the joint MMD² within that stratum needs each level at least twice (merge rare levels, or drop their rows)",
					t.File, levels[l], zCols[0], t.name("Z"), n, yCol, names[k])
			}
		}
	case dataset.ContinuousZ, dataset.VectorZ:
		if err := t.checkZSpread(zCols, z, delta, kind); err != nil {
			return nil, nil, nu, err
		}
	}
	return z, delta, nu, nil
}
