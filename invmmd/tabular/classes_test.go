package tabular

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// TestClasses checks the reading of a label of several classes: text and integer codes,
// their order, and the errors, each naming the file and line.
func TestClasses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		csv    string
		y      []float64
		names  []string
		errHas []string
	}{
		{"text, three classes", "y,x\nb,1\na,2\nc,3\nb,4\n", []float64{1, 0, 2, 1}, []string{"a", "b", "c"}, nil},
		{"integers in numeric order", "y,x\n10,1\n2,2\n1,3\n2,4\n", []float64{2, 1, 0, 1}, []string{"1", "2", "10"}, nil},
		{"binary is two classes", "y,x\nyes,1\nno,2\n", []float64{1, 0}, []string{"no", "yes"}, nil},
		{"missing label", "y,x\na,1\n,2\nb,3\n", nil, nil, []string{"t.csv:3", `"y"`, "label is missing"}},
		{"fractional code", "y,x\n1,1\n2.5,2\n", nil, nil, []string{"t.csv:3", `"2.5"`, "integer codes"}},
		{"one class", "y,x\na,1\na,2\n", nil, nil, []string{`one class ("a" on every row)`}},
		{"no column", "y,x\na,1\n", nil, nil, []string{`no column named "w"`}},
	} {
		tab := readString(t, tc.csv)
		col := "y"
		if tc.name == "no column" {
			col = "w"
		}
		y, names, err := tab.Classes(col, "Y")
		if tc.errHas != nil {
			if err == nil {
				t.Errorf("%s: no error", tc.name)
				continue
			}
			for _, w := range tc.errHas {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q, want it to mention %q", tc.name, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if fmt.Sprint(y) != fmt.Sprint(tc.y) || fmt.Sprint(names) != fmt.Sprint(tc.names) {
			t.Errorf("%s: classes %v named %v, want %v named %v", tc.name, y, names, tc.y, tc.names)
		}
	}
}

// TestClassIndex checks new data against a fitted model's classes: known classes map to
// their indices, a missing label is NaN, and a class absent from training is an error.
func TestClassIndex(t *testing.T) {
	names := []string{"a", "b", "c"}
	y, err := readString(t, "y,x\nc,1\n,2\na,3\n").ClassIndex("y", "Y", names)
	if err != nil {
		t.Fatal(err)
	}
	if y[0] != 2 || !math.IsNaN(y[1]) || y[2] != 0 {
		t.Errorf("indices %v, want [2 NaN 0]", y)
	}
	_, err = readString(t, "y,x\na,1\nd,2\n").ClassIndex("y", "Y", names)
	if err == nil || !strings.Contains(err.Error(), "t.csv:3") || !strings.Contains(err.Error(), `class "d" was absent from training`) {
		t.Errorf("unknown class: error %v", err)
	}
}

// TestCheckClassesObserved checks that a class with fewer than two observed Z is named.
func TestCheckClassesObserved(t *testing.T) {
	tab := readString(t, "y,z\na,1\nb,0\n")
	names := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name  string
		y, d  []float64
		errAt string // "" for no error
	}{
		{"every class observed twice", []float64{0, 0, 1, 1, 2, 2}, []float64{1, 1, 1, 1, 1, 1}, ""},
		{"class c observed once", []float64{0, 0, 1, 1, 2, 2}, []float64{1, 1, 1, 1, 1, 0}, "1 row(s) with y = c"},
		{"class b never observed", []float64{0, 0, 1, 1, 2, 2}, []float64{1, 1, 0, 0, 1, 1}, "0 row(s) with y = b"},
	} {
		err := tab.CheckClassesObserved(tc.y, tc.d, names, "y", []string{"z"})
		switch {
		case tc.errAt == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.errAt != "" && (err == nil || !strings.Contains(err.Error(), tc.errAt) || !strings.Contains(err.Error(), "t.csv")):
			t.Errorf("%s: error %v, want one naming t.csv and %q", tc.name, err, tc.errAt)
		}
	}
}

// TestLabelClasses checks how a label column is read: two values are binary (nil, read by
// Binary as before), more are classes, and -y-positive with more than two values is a
// named error.
func TestLabelClasses(t *testing.T) {
	for _, tc := range []struct {
		name, csv, positive string
		names               []string
		errHas              string
	}{
		{"0/1 is binary", "y,x\n0,1\n1,2\n1,3\n", "", nil, ""},
		{"two text values are binary", "y,x\nno,1\nyes,2\n", "yes", nil, ""},
		{"three text classes", "y,x\nb,1\na,2\nc,3\n", "", []string{"a", "b", "c"}, ""},
		{"integer codes", "y,x\n3,1\n1,2\n2,3\n", "", []string{"1", "2", "3"}, ""},
		{"positive with three classes", "y,x\nb,1\na,2\nc,3\n", "b", nil, `t.csv: column "y" (Y) has 3 distinct values (a, b, c) and YPositive "b" names the positive value of a binary label`},
		{"missing label among classes", "y,x\nb,1\n,2\nc,3\na,4\n", "", nil, "t.csv:3"},
	} {
		names, err := readString(t, tc.csv).LabelClasses("y", tc.positive, "Y")
		switch {
		case tc.errHas != "":
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.errHas)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case fmt.Sprint(names) != fmt.Sprint(tc.names):
			t.Errorf("%s: classes %v, want %v", tc.name, names, tc.names)
		}
	}
}

// TestLabelsAndZClasses checks the per-class checks of a label of K > 2 classes: the
// indices and Δ of a good table, and an error naming the class for a class without two
// observed Z, without an observed Z = 1, or a categorical level seen once in a class.
func TestLabelsAndZClasses(t *testing.T) {
	names := []string{"a", "b", "c"}
	good := "y,z,x\na,0,1\na,1,2\nb,0,3\nb,1,4\nc,0,5\nc,1,6\nc,,7\n"
	y, z, delta, _, err := readString(t, good).LabelsAndZClasses("y", names, []string{"z"}, dataset.BinaryZ, "")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(y) != "[0 0 1 1 2 2 2]" || fmt.Sprint(delta) != "[1 1 1 1 1 1 0]" || !math.IsNaN(z[6]) {
		t.Errorf("y %v, z %v, delta %v", y, z, delta)
	}
	for _, tc := range []struct {
		name, csv string
		kind      dataset.ZKind
		errHas    string
	}{
		{"one observed Z in a class", "y,z,x\na,0,1\na,1,2\nb,0,3\nb,,4\nc,0,5\nc,1,6\n", dataset.BinaryZ, "t.csv: 1 row(s) with y = b have Z (z) observed"},
		{"no Z = 1 in a class", "y,z,x\na,0,1\na,1,2\nb,0,3\nb,0,4\nc,0,5\nc,1,6\n", dataset.BinaryZ, "t.csv: no row with y = b and z = 1 observed"},
		{"a class absent", "y,z,x\na,0,1\na,1,2\nc,0,5\nc,1,6\n", dataset.BinaryZ, "has no row of class b"},
		{"a class not in training", "y,z,x\na,0,1\nd,1,2\n", dataset.BinaryZ, `t.csv:3: column "y" (Y): class "d" was absent from training`},
		{"a level once in a class", "y,z,x\na,0,1\na,1,2\na,0,1\na,1,2\nb,0,3\nb,0,4\nb,1,3\nb,1,4\nc,0,5\nc,2,6\nc,0,5\nc,1,6\nc,0,5\nc,2,6\na,2,1\na,2,1\nb,2,1\nb,2,1\n", dataset.CategoricalZ,
			`level "1" of column "z" (Z) is observed in 1 row(s) with y = c`},
	} {
		_, _, _, _, err := readString(t, tc.csv).LabelsAndZClasses("y", names, []string{"z"}, tc.kind, "")
		if err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.errHas)
		}
	}
}
