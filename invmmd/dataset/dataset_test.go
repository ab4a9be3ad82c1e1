package dataset

import (
	"math"
	"strings"
	"testing"
)

func tiny() *Set {
	return &Set{Name: "train", Shape: []int{2},
		X:     []float32{0, 1, 2, 3, 4, 5},
		Y:     []float64{0, 1, 1},
		Z:     []float64{0, 1, 0},
		Delta: []float64{1, 0, 1},
		GTrue: []float64{1, 0.2, 0.5}}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *Set)
		want string
	}{
		{"ok", func(s *Set) {}, ""},
		{"short X", func(s *Set) { s.X = s.X[:5] }, "5 feature values for 3 rows"},
		{"short Z", func(s *Set) { s.Z = s.Z[:2] }, "column Z has 2 rows"},
		{"bad Y", func(s *Set) { s.Y[1] = 3 }, "row 1: Y = 3"},
		{"NaN feature", func(s *Set) { s.X[3] = float32(math.NaN()) }, "row 1: feature 1 = NaN"},
		{"bad G", func(s *Set) { s.GTrue[2] = -0.1 }, "row 2: GTrue = -0.1"},
		{"empty", func(s *Set) { *s = Set{Name: "x", Shape: []int{1}} }, "no rows"},
		{"NaN Z where missing", func(s *Set) { s.Z[1] = math.NaN() }, ""},
		{"NaN Z where observed", func(s *Set) { s.Z[0] = math.NaN() }, "row 0: Z = NaN"},
		{"Z = 2 where missing but not NaN", func(s *Set) { s.Z[1] = 2 }, "row 1: Z = 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tiny()
			tc.edit(s)
			err := s.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestSubsetAndSummary(t *testing.T) {
	s := tiny()
	sub := s.Subset("pick", []int{2, 0})
	if got := sub.Row(0); got[0] != 4 || got[1] != 5 {
		t.Errorf("Subset row 0 = %v, want [4 5]", got)
	}
	if sub.Y[0] != 1 || sub.GTrue[1] != 1 {
		t.Errorf("Subset columns wrong: Y %v, GTrue %v", sub.Y, sub.GTrue)
	}
	sum := s.Summarize()
	if sum.N != 3 || math.Abs(sum.PY1-2.0/3) > 1e-12 || math.Abs(sum.PObserved-2.0/3) > 1e-12 || sum.PZ1GivenY[1] != 0.5 {
		t.Errorf("Summarize = %+v", sum)
	}
	if !strings.Contains(sum.String(), "n=3") {
		t.Errorf("Summary.String() = %q", sum.String())
	}
}

// TestSummaryWithMissingZ checks that a set with really missing (NaN) Z summarises its Z
// over the observed rows and its Y over all rows.
func TestSummaryWithMissingZ(t *testing.T) {
	s := tiny()
	s.Z[1] = math.NaN()
	if s.ZKnown() {
		t.Fatal("ZKnown with a NaN Z")
	}
	sum := s.Summarize()
	if sum.ZKnown || math.Abs(sum.PY1-2.0/3) > 1e-12 || sum.PZ1 != 0 || sum.CountsYZ != [2][2]int{{1, 0}, {1, 0}} || sum.PAgreeYZ != 0.5 {
		t.Errorf("Summarize = %+v", sum)
	}
}
