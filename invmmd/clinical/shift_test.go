package clinical

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestShiftCounts(t *testing.T) {
	rareZ := [2][2]int{{2075, 320}, {1815, 196}} // a rare Z (12%), as in NMES1988 with Z = African American
	flchain := [2][2]int{{3185, 2520}, {1165, 1004}}
	for _, tc := range []struct {
		name       string
		avail      [2][2]int
		shift      Shift
		pool, test [2][2]int
	}{
		// Label 0: n = min(320/0.5, 2075/0.5) = 640, pool 320 = 272 (Z=1) + 48 (Z=0), test 320 = 272 (Z=0) + 48 (Z=1).
		// Label 1: n = min(1815/0.5, 196/0.5) = 392, pool 196 = floor(166.6) (Z=0) + floor(29.4) (Z=1), test the mirror.
		{"rare Z, defaults", rareZ, Shift{}, [2][2]int{{48, 272}, {166, 29}}, [2][2]int{{272, 48}, {29, 166}}},
		// Rates 0.9: label 0 pool 320 = 288 + 32; label 1 pool 196 = floor(176.4) + floor(19.6).
		{"rare Z, 0.9", rareZ, Shift{TrainDisagree: 0.9, TestAgree: 0.9}, [2][2]int{{32, 288}, {176, 19}}, [2][2]int{{288, 32}, {19, 176}}},
		// flchain (R: table(death, sex == "M")): label 0 n = min(2520/0.5, 3185/0.5) = 5040, pool
		// 2520 = 2142 (Z=1) + 378 (Z=0); label 1 n = min(1165/0.5, 1004/0.5) = 2008, pool 1004 =
		// floor(853.4) (Z=0) + floor(150.6) (Z=1); test the mirror.
		{"flchain cells, defaults", flchain, Shift{}, [2][2]int{{378, 2142}, {853, 150}}, [2][2]int{{2142, 378}, {150, 853}}},
		// Balanced cells of 1000: a_dis = a_agr = 0.5, n = 2000 per label, pool 1000 = 850 + 150.
		{"balanced", [2][2]int{{1000, 1000}, {1000, 1000}}, Shift{}, [2][2]int{{150, 850}, {850, 150}}, [2][2]int{{850, 150}, {150, 850}}},
		// Cap 400 of 4000: each label n = 200, pool 100 = 85 + 15.
		{"capped", [2][2]int{{1000, 1000}, {1000, 1000}}, Shift{MaxRows: 400}, [2][2]int{{15, 85}, {85, 15}}, [2][2]int{{85, 15}, {15, 85}}},
		// Test share 0.2 with cells of 1000: a_dis = 0.85·0.8 + 0.15·0.2 = 0.71, a_agr = 0.29,
		// n = min(1000/0.71, 1000/0.29) = 1408.45; pool 1126.76 → 957 + 169; test 281.69 → 239 + 42.
		{"test share 0.2", [2][2]int{{1000, 1000}, {1000, 1000}}, Shift{TestShare: 0.2}, [2][2]int{{169, 957}, {957, 169}}, [2][2]int{{239, 42}, {42, 239}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, test := ShiftCounts(tc.avail, tc.shift)
			if pool != tc.pool || test != tc.test {
				t.Fatalf("ShiftCounts = pool %v test %v, want pool %v test %v", pool, test, tc.pool, tc.test)
			}
		})
	}
}

// TestShiftCountsFit checks on random cell counts that the counts never exceed what is
// available and that the rates are met up to rounding.
func TestShiftCountsFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		var avail [2][2]int
		for y := 0; y < 2; y++ {
			for z := 0; z < 2; z++ {
				avail[y][z] = 1 + rng.IntN(5000)
			}
		}
		s := Shift{TrainDisagree: 0.55 + 0.44*rng.Float64(), TestAgree: 0.55 + 0.44*rng.Float64(), TestShare: 0.1 + 0.8*rng.Float64()}
		pool, test := ShiftCounts(avail, s)
		for y := 0; y < 2; y++ {
			for z := 0; z < 2; z++ {
				if pool[y][z] < 0 || test[y][z] < 0 || pool[y][z]+test[y][z] > avail[y][z] {
					t.Fatalf("avail %v shift %+v: pool %v test %v exceed the cells", avail, s, pool, test)
				}
			}
			if np := pool[y][0] + pool[y][1]; np > 50 {
				if got := float64(pool[y][1-y]) / float64(np); math.Abs(got-s.TrainDisagree) > 2/float64(np) {
					t.Fatalf("avail %v shift %+v: pool P(Z≠Y|Y=%d) = %v", avail, s, y, got)
				}
			}
			if nt := test[y][0] + test[y][1]; nt > 50 {
				if got := float64(test[y][y]) / float64(nt); math.Abs(got-s.TestAgree) > 2/float64(nt) {
					t.Fatalf("avail %v shift %+v: test P(Z=Y|Y=%d) = %v", avail, s, y, got)
				}
			}
		}
	}
}

// synthTable makes a table with n rows: Y, Z independent fair coins, in the group every other row,
// column "a" = row index, column "b" with NaN on every fifth row.
func synthTable(n int) *Table {
	t := &Table{Name: "synth", Names: []string{"a", "b", "const"}}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < n; i++ {
		b := rng.NormFloat64()*3 + 10
		if i%5 == 0 {
			b = math.NaN()
		}
		t.X = append(t.X, float64(i), b, 4)
		t.Y = append(t.Y, float64(rng.IntN(2)))
		t.Z = append(t.Z, float64(rng.IntN(2)))
		t.Group = append(t.Group, i%2 == 0)
	}
	return t
}

func TestAssemble(t *testing.T) {
	tab := synthTable(8000)
	sp, rep, err := Assemble(tab, Shift{}, Missingness{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	sets := [3]struct {
		name string
		n    int
	}{{sp.Train.Name, sp.Train.Len()}, {sp.Val.Name, sp.Val.Len()}, {sp.Test.Name, sp.Test.Len()}}
	for k, s := range sets {
		if s.name != SplitNames[k] || s.n != len(rep.Index[k]) {
			t.Errorf("split %d: name %q, %d rows, index %d", k, s.name, s.n, len(rep.Index[k]))
		}
	}
	// The splits are disjoint.
	seen := map[int]bool{}
	for _, idx := range rep.Index {
		for _, i := range idx {
			if seen[i] {
				t.Fatalf("row %d is in two splits", i)
			}
			seen[i] = true
		}
	}
	// Rates, up to the binomial noise of the rows.
	tr, te := rep.Summaries[Train], rep.Summaries[Test]
	if math.Abs((1-tr.PAgreeYZ)-0.85) > 0.01 || math.Abs(te.PAgreeYZ-0.85) > 0.01 {
		t.Errorf("P(Y≠Z) train = %v, P(Y=Z) test = %v, want 0.85 both", 1-tr.PAgreeYZ, te.PAgreeYZ)
	}
	if math.Abs(tr.PY1-te.PY1) > 0.01 {
		t.Errorf("P(Y=1) differs: train %v, test %v", tr.PY1, te.PY1)
	}
	// Training columns are standardised; imputed values are the training median.
	d := sp.Train.Dim()
	for j := 0; j < 2; j++ {
		var sum, sq float64
		for i := 0; i < sp.Train.Len(); i++ {
			v := float64(sp.Train.X[i*d+j])
			sum += v
			sq += v * v
		}
		n := float64(sp.Train.Len())
		if m, sd := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n)); math.Abs(m) > 1e-4 || math.Abs(sd-1) > 1e-4 {
			t.Errorf("train column %s: mean %v sd %v, want 0 and 1", tab.Names[j], m, sd)
		}
	}
	if !slices.Equal(rep.Constant, []string{"const"}) {
		t.Errorf("Constant = %v, want [const]", rep.Constant)
	}
	var bTrain []float64
	for _, i := range rep.Index[Train] {
		if v := tab.X[i*3+1]; !math.IsNaN(v) {
			bTrain = append(bTrain, v)
		}
	}
	slices.Sort(bTrain)
	med := bTrain[len(bTrain)/2]
	if len(bTrain)%2 == 0 {
		med = (bTrain[len(bTrain)/2-1] + bTrain[len(bTrain)/2]) / 2
	}
	for k, idx := range rep.Index {
		s := [3]*struct{ x []float32 }{{sp.Train.X}, {sp.Val.X}, {sp.Test.X}}[k]
		nan := 0
		for r, i := range idx {
			want := tab.X[i*3+1]
			if math.IsNaN(want) {
				want = med
				nan++
			}
			want = (want - rep.Mean[1]) / rep.SD[1]
			if got := float64(s.x[r*d+1]); math.Abs(got-want) > 1e-5 {
				t.Fatalf("%s row %d (table row %d): b = %v, want %v", SplitNames[k], r, i, got, want)
			}
			if a := float64(s.x[r*d]); math.Abs(a-(float64(i)-rep.Mean[0])/rep.SD[0]) > 1e-3 {
				t.Fatalf("%s row %d is not table row %d: a = %v", SplitNames[k], r, i, a)
			}
		}
		if nan != rep.Imputed[k][1] || nan == 0 {
			t.Errorf("%s: %d imputed values of b, report says %d", SplitNames[k], nan, rep.Imputed[k][1])
		}
	}
	// Missingness: the group always observed, others with probability 0.2; G recorded.
	for _, s := range []*struct {
		name         string
		y, z, dl, gt []float64
		idx          []int
	}{{"train", sp.Train.Y, sp.Train.Z, sp.Train.Delta, sp.Train.GTrue, rep.Index[Train]}, {"test", sp.Test.Y, sp.Test.Z, sp.Test.Delta, sp.Test.GTrue, rep.Index[Test]}} {
		var other, otherObs float64
		for r, i := range s.idx {
			if tab.Y[i] != s.y[r] || tab.Z[i] != s.z[r] {
				t.Fatalf("%s row %d: Y, Z = %v, %v, table row %d has %v, %v", s.name, r, s.y[r], s.z[r], i, tab.Y[i], tab.Z[i])
			}
			if tab.Group[i] {
				if s.dl[r] != 1 || s.gt[r] != 1 {
					t.Fatalf("%s row %d: in the group with Δ = %v, G = %v", s.name, r, s.dl[r], s.gt[r])
				}
				continue
			}
			if s.gt[r] != 0.2 {
				t.Fatalf("%s row %d: outside the group with G = %v", s.name, r, s.gt[r])
			}
			other++
			otherObs += s.dl[r]
		}
		if p := otherObs / other; math.Abs(p-0.2) > 4*math.Sqrt(0.16/other) {
			t.Errorf("%s: observed fraction outside the group %v, want 0.2 within 4 sd (n = %v)", s.name, p, other)
		}
	}
	// Same seed, same splits; another seed, other splits.
	sp2, _, err := Assemble(tab, Shift{}, Missingness{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sp.Train.X, sp2.Train.X) || !slices.Equal(sp.Test.Delta, sp2.Test.Delta) {
		t.Error("same seed gave different splits")
	}
	sp3, _, err := Assemble(tab, Shift{}, Missingness{}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(sp.Train.X, sp3.Train.X) {
		t.Error("seeds 3 and 4 gave the same training split")
	}
}

func TestAssembleErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(tab *Table)
		shift Shift
		miss  Missingness
		want  string
	}{
		{"empty cell", func(tab *Table) {
			for i := range tab.Z {
				if tab.Y[i] == 1 {
					tab.Z[i] = 0
				}
			}
		}, Shift{}, Missingness{}, "no row with Y=1, Z=1"},
		{"tiny table", func(tab *Table) {
			*tab = *synthTable(40)
		}, Shift{}, Missingness{}, "too small"},
		{"column never measured", func(tab *Table) {
			for i := 0; i < tab.Len(); i++ {
				tab.X[i*3+1] = math.NaN()
			}
		}, Shift{}, Missingness{}, "column b has no measured value"},
		{"infinite feature", func(tab *Table) { tab.X[7] = math.Inf(1) }, Shift{}, Missingness{}, "row 2: column b = +Inf"},
		{"bad Z", func(tab *Table) { tab.Z[4] = 2 }, Shift{}, Missingness{}, "row 4: Z = 2"},
		{"short Group", func(tab *Table) { tab.Group = tab.Group[:3] }, Shift{}, Missingness{}, "Group 3"},
		{"bad fraction", nil, Shift{TrainDisagree: 1.2}, Missingness{}, "Shift.TrainDisagree = 1.2"},
		{"negative cap", nil, Shift{MaxRows: -1}, Missingness{}, "MaxRows = -1"},
		{"bad probability", nil, Shift{}, Missingness{ProbOther: -0.5}, "Missingness.ProbOther = -0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := synthTable(2000)
			if tc.edit != nil {
				tc.edit(tab)
			}
			_, _, err := Assemble(tab, tc.shift, tc.miss, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
