package tabular

import (
	"math"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

func readString(t *testing.T, csv string) *Table {
	t.Helper()
	tab, err := Read(strings.NewReader(csv), "t.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestInferZKind checks each rule of the inference, with the reason it gives.
func TestInferZKind(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		cols      []string
		positive  string
		want      dataset.ZKind
		why       string
	}{
		{"0/1 numbers", "z\n0\n1\n\n1\n", []string{"z"}, "", dataset.BinaryZ, "numbers 0 and 1"},
		{"two text levels", "z\na\nb\nNA\n", []string{"z"}, "", dataset.BinaryZ, "2 text levels"},
		{"named positive", "z\na\nb\nc\n", []string{"z"}, "a", dataset.BinaryZ, "ZPositive"},
		{"three text levels", "z\na\nb\nc\n\n", []string{"z"}, "", dataset.CategoricalZ, "3 text levels"},
		{"integer codes", "z\n1\n2\n3\n2\n", []string{"z"}, "", dataset.CategoricalZ, "3 integer values"},
		// The boundary: exactly MaxIntegerLevels integer codes are levels, one more a number.
		{"ten integer codes", "z\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", []string{"z"}, "", dataset.CategoricalZ, "10 integer values"},
		{"eleven integer codes", "z\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", []string{"z"}, "", dataset.ContinuousZ, "numbers with 11 distinct values"},
		{"real numbers", "z\n0.5\n1.25\n3\n", []string{"z"}, "", dataset.ContinuousZ, "numbers with 3 distinct values"},
		{"several columns", "a,b\n1,2\n3,4\n", []string{"a", "b"}, "", dataset.VectorZ, "2 columns"},
	} {
		k, why, err := readString(t, tc.csv).InferZKind(tc.cols, tc.positive)
		if err != nil || k != tc.want || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %v (%q, %v), want %v (%q)", tc.name, k, why, err, tc.want, tc.why)
		}
	}
}

// TestNuisanceKinds reads each kind: levels in order of first appearance (text) or of value
// (numbers), NaN where missing, a vector row missing when all of its cells are (one blank
// cell beside present ones is an error naming file, line, column and cell).
func TestNuisanceKinds(t *testing.T) {
	tab := readString(t, "c,n,a,b\nx,3,,NA\ny,1,2,5\n,2,3,6\nx,3,4,7\n")
	z, nu, err := tab.Nuisance([]string{"c"}, dataset.CategoricalZ, "")
	if err != nil || strings.Join(nu.Levels, ",") != "x,y" || z[0] != 0 || z[1] != 1 || !math.IsNaN(z[2]) {
		t.Errorf("text levels: %v %+v %v", z, nu, err)
	}
	z, nu, err = tab.Nuisance([]string{"n"}, dataset.CategoricalZ, "")
	if err != nil || strings.Join(nu.Levels, ",") != "1,2,3" || z[0] != 2 || z[1] != 0 {
		t.Errorf("integer levels: %v %+v %v", z, nu, err)
	}
	z, nu, err = tab.Nuisance([]string{"a", "b"}, dataset.VectorZ, "")
	if err != nil || nu.Width() != 2 || !math.IsNaN(z[0]) || !math.IsNaN(z[1]) || z[2] != 2 || z[3] != 5 {
		t.Errorf("vector: %v %+v %v", z, nu, err)
	}
	part := readString(t, "a,b\n1,2\n3,4\n5,NA\n")
	if _, _, err := part.Nuisance([]string{"a", "b"}, dataset.VectorZ, ""); err == nil ||
		!strings.Contains(err.Error(), `t.csv:4: column "b" (Z): value "NA" is missing while column "a" holds "5"`) {
		t.Errorf("a vector with one blank component: %v", err)
	}
}

// TestLabelsAndZRefuses checks the named errors before any work: a level seen fewer than
// twice in a stratum, a continuous Z with no spread, a text value in a continuous Z, -m
// style misuse of -z-positive, and a categorical column with one level.
func TestLabelsAndZRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		kind      dataset.ZKind
		pos       string
		want      string
	}{
		{"rare level", "y,z\n0,a\n0,a\n0,b\n0,b\n0,c\n1,a\n1,a\n1,b\n1,b\n1,c\n1,c\n0,\n", dataset.CategoricalZ, "", `level "c" of column "z" (Z) is observed in 1 row(s) with y = 0`},
		{"no spread", "y,z\n0,2\n0,2\n1,2\n1,2\n1,\n", dataset.ContinuousZ, "", `column "z" (Z) has the one value 2 on every row where it is observed`},
		{"text in continuous", "y,z\n0,1.5\n0,abc\n1,2\n1,3\n", dataset.ContinuousZ, "", `t.csv:3: column "z" (Z): value "abc", want a number`},
		{"positive with categorical", "y,z\n0,a\n1,b\n0,c\n", dataset.CategoricalZ, "a", "ZPositive \"a\" is for a binary nuisance"},
		{"one level", "y,z\n0,a\n1,a\n0,a\n1,\n", dataset.CategoricalZ, "", "has 1 level(s) a: a categorical nuisance needs at least 2"},
	} {
		_, _, _, _, err := readString(t, tc.csv).LabelsAndZ("y", "", []string{"z"}, tc.kind, tc.pos)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}
