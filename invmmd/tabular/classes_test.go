package tabular

import (
	"fmt"
	"math"
	"strings"
	"testing"
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
		{"one class", "y,x\na,1\na,2\n", nil, nil, []string{"one class", "only the value a"}},
		{"no column", "y,x\na,1\n", nil, nil, []string{`no column named "w"`}},
	} {
		tab := readString(t, tc.csv)
		col := "y"
		if tc.name == "no column" {
			col = "w"
		}
		y, names, err := tab.Classes(col, "-y")
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
	y, err := readString(t, "y,x\nc,1\n,2\na,3\n").ClassIndex("y", "-y", names)
	if err != nil {
		t.Fatal(err)
	}
	if y[0] != 2 || !math.IsNaN(y[1]) || y[2] != 0 {
		t.Errorf("indices %v, want [2 NaN 0]", y)
	}
	_, err = readString(t, "y,x\na,1\nd,2\n").ClassIndex("y", "-y", names)
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
