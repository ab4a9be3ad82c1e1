package clinical

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// flchainHead is the header of the flchain CSV that scripts/data/flchain.sh writes.
const flchainHead = `"age","sex","sample.yr","kappa","lambda","flc.grp","creatinine","mgus","futime","death","chapter"` + "\n"

// flchainRow is the first data line of that file; flchainRowNoCr the second, with an empty
// creatinine as R writes a missing value with na = "".
const (
	flchainRow     = `97,"F",1997,5.7,4.86,10,1.7,0,85,1,"Circulatory"` + "\n"
	flchainRowNoCr = `61,"M",1996,1.18,1.39,5,,0,4531,0,` + "\n"
)

// The committed CSV, written by scripts/data/flchain.sh.
func flchainPath(t *testing.T) string {
	t.Helper()
	p, err := FindFLChain()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadFLChain(t *testing.T) {
	tab, err := ReadFLChain(flchainPath(t), DefaultGroupMinAge)
	if err != nil {
		t.Fatal(err)
	}
	// R: nrow(flchain); sum(death); sum(sex == "M"); sum(age >= 65); sum(is.na(creatinine)).
	if tab.Len() != 7874 {
		t.Fatalf("%d rows, want 7874", tab.Len())
	}
	var y, z, group, crNA float64
	cr := slices.Index(FLChainFeatures(), "creatinine")
	crMiss := slices.Index(FLChainFeatures(), "creatinine_missing")
	d := tab.Dim()
	for i := 0; i < tab.Len(); i++ {
		y += tab.Y[i]
		z += tab.Z[i]
		if tab.Group[i] {
			group++
		}
		if math.IsNaN(tab.X[i*d+cr]) {
			crNA++
			if tab.X[i*d+crMiss] != 1 {
				t.Fatalf("row %d: creatinine missing but creatinine_missing = %v", i, tab.X[i*d+crMiss])
			}
		} else if tab.X[i*d+crMiss] != 0 {
			t.Fatalf("row %d: creatinine %v but creatinine_missing = %v", i, tab.X[i*d+cr], tab.X[i*d+crMiss])
		}
	}
	if y != 2169 || z != 3524 || group != 3501 || crNA != 1350 {
		t.Errorf("died %v, male %v, aged 65+ %v, creatinine missing %v; want 2169, 3524, 3501, 1350", y, z, group, crNA)
	}
	// First data line: 97,"F",1997,5.7,4.86,10,1.7,0,85,1,"Circulatory"
	want := []float64{97, 1997, 5.7, 4.86, 10, 1.7, 0, 0}
	if got := tab.X[:d]; !slices.Equal(got, want) {
		t.Errorf("row 0 features %v, want %v", got, want)
	}
	if tab.Y[0] != 1 || tab.Z[0] != 0 || !tab.Group[0] {
		t.Errorf("row 0: Y %v Z %v group %v, want 1 0 true", tab.Y[0], tab.Z[0], tab.Group[0])
	}
	if tab.GroupName != "aged 65 or over" {
		t.Errorf("group name %q", tab.GroupName)
	}
	// Another threshold moves the group only (R: sum(age >= 70) = 2388).
	tab70, err := ReadFLChain(flchainPath(t), 70)
	if err != nil {
		t.Fatal(err)
	}
	n70 := 0
	for _, g := range tab70.Group {
		if g {
			n70++
		}
	}
	if n70 != 2388 || !slices.Equal(tab70.Y, tab.Y) {
		t.Errorf("aged 70+: %d rows, want 2388 (and the same labels)", n70)
	}
}

// TestReadFLChainMalformed checks that every kind of bad input is an error naming the file,
// the line, the column (number and name) and the value.
func TestReadFLChainMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"ok", flchainHead + flchainRow + flchainRowNoCr, ""},
		{"NA creatinine", flchainHead + flchainRow + strings.Replace(flchainRowNoCr, ",,", ",NA,", 1), ""},
		{"empty", "", "reading the header"},
		{"no rows", flchainHead, "no data rows"},
		{"missing column", strings.Replace(flchainHead, `"sex",`, "", 1) + flchainRow, `line 1: header has no column "sex"`},
		{"bad number", flchainHead + flchainRow + strings.Replace(flchainRow, "4.86", "4.86x", 1), `:3:17: column "lambda": value "4.86x" is not a finite number`},
		{"NaN", flchainHead + strings.Replace(flchainRow, "5.7", "NaN", 1), `:2:13: column "kappa": value "NaN" is not a finite number`},
		{"Inf", flchainHead + strings.Replace(flchainRow, "97,", "Inf,", 1), `:2:1: column "age": value "Inf" is not a finite number`},
		{"huge", flchainHead + strings.Replace(flchainRow, "5.7", "1e200", 1), `:2:13: column "kappa": value "1e200" is out of range`},
		{"negative age", flchainHead + strings.Replace(flchainRow, "97,", "-97,", 1), `:2:1: column "age": value "-97" is negative`},
		{"empty age", flchainHead + strings.Replace(flchainRow, "97,", ",", 1), `:2:1: column "age": value "" is not a finite number`},
		{"unknown sex", flchainHead + strings.Replace(flchainRow, `"F"`, `"female"`, 1), `:2:4: column "sex": value "female" is not one of F, M`},
		{"death 2", flchainHead + strings.Replace(flchainRow, ",85,1,", ",85,2,", 1), `:2:34: column "death": value "2" is not 0 or 1`},
		{"mgus 0.5", flchainHead + strings.Replace(flchainRow, ",1.7,0,", ",1.7,0.5,", 1), `:2:29: column "mgus": value "0.5" is not 0 or 1`},
		{"flc.grp 11", flchainHead + strings.Replace(flchainRow, ",10,", ",11,", 1), `:2:22: column "flc.grp": value "11" is not a group 1 to 10`},
		{"field count", flchainHead + flchainRow + "1,2,3\n", "record on line 3: wrong number of fields"},
		{"bare quote", flchainHead + flchainRow + `97,"F"x,1997,5.7,4.86,10,1.7,0,85,1,"C"` + "\n", "line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "flchain.csv")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			tab, err := ReadFLChain(p, DefaultGroupMinAge)
			if tc.want == "" {
				if err != nil || tab.Len() != 2 {
					t.Fatalf("ReadFLChain: %v", err)
				}
				if !math.IsNaN(tab.X[tab.Dim()+5]) || tab.X[tab.Dim()+6] != 1 || tab.Z[1] != 1 || tab.Group[1] {
					t.Errorf("second row %v, Z %v, group %v: want creatinine NaN, missing 1, male, under 65", tab.X[tab.Dim():], tab.Z[1], tab.Group[1])
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %v does not name the file", err)
			}
		})
	}
}

func TestReadFLChainMissingFile(t *testing.T) {
	_, err := ReadFLChain(filepath.Join(t.TempDir(), "nope.csv"), DefaultGroupMinAge)
	if err == nil || !strings.Contains(err.Error(), FLChainScript) {
		t.Fatalf("error %v, want one naming %s", err, FLChainScript)
	}
	_, _, err = LoadFLChain(FLChainConfig{Path: filepath.Join(t.TempDir(), "nope.csv")})
	if err == nil || !strings.Contains(err.Error(), FLChainScript) {
		t.Fatalf("LoadFLChain error %v, want one naming %s", err, FLChainScript)
	}
}

func TestReadFLChainToleratesBOM(t *testing.T) {
	b, err := os.ReadFile(flchainPath(t))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bom.csv")
	if err := os.WriteFile(p, append([]byte("\ufeff"), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	if tab, err := ReadFLChain(p, DefaultGroupMinAge); err != nil || tab.Len() != 7874 {
		t.Fatalf("CSV with a byte-order mark: %v", err)
	}
}

// TestLoadFLChain checks the stand-in's shifted split on the committed CSV: its sizes
// (≥ 2,000 training rows), the reversal of the Y–Z association, P(Y = 1) equal in every
// split, and the missingness rule (Z always observed from 65, w.p. 0.2 below, G recorded).
func TestLoadFLChain(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		sp, rep, err := LoadFLChain(FLChainConfig{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if seed == 1 {
			t.Log("\n" + rep.String())
		}
		if math.Abs(rep.PY1-2169.0/7874) > 1e-12 || math.Abs(rep.PZ1-3524.0/7874) > 1e-12 || math.Abs(rep.PGroup-3501.0/7874) > 1e-12 {
			t.Errorf("P(Y=1) %v, P(Z=1) %v, P(group) %v", rep.PY1, rep.PZ1, rep.PGroup)
		}
		// R: table(death, sex). Label 0: n = min(2520/0.5, 3185/0.5) = 5040; label 1:
		// n = min(1165/0.5, 1004/0.5) = 2008. Pool 2520 + 1004 = 3524 rows less the
		// floors (3523), a quarter of it (rounded per cell) to validation; test 3523.
		if rep.Split.Available != [2][2]int{{3185, 2520}, {1165, 1004}} {
			t.Errorf("available cells %v", rep.Split.Available)
		}
		if n := sp.Train.Len() + sp.Val.Len(); n != 3523 || sp.Test.Len() != 3523 || sp.Train.Len() != 2641 {
			t.Errorf("train %d + val %d, test %d; want 2641 + 882 and 3523", sp.Train.Len(), sp.Val.Len(), sp.Test.Len())
		}
		if sp.Train.Dim() != len(FLChainFeatures()) {
			t.Errorf("feature dim %d, want %d", sp.Train.Dim(), len(FLChainFeatures()))
		}
		tr, va, te := sp.Train.Summarize(), sp.Val.Summarize(), sp.Test.Summarize()
		for _, s := range []struct {
			name  string
			agree float64
			want  float64
		}{{"train", tr.PAgreeYZ, 0.15}, {"val", va.PAgreeYZ, 0.15}, {"test", te.PAgreeYZ, 0.85}} {
			if math.Abs(s.agree-s.want) > 0.01 {
				t.Errorf("%s: P(Y=Z) = %v, want %v", s.name, s.agree, s.want)
			}
		}
		if math.Abs(tr.PY1-te.PY1) > 0.002 || math.Abs(va.PY1-te.PY1) > 0.002 {
			t.Errorf("P(Y=1): train %v, val %v, test %v; want equal", tr.PY1, va.PY1, te.PY1)
		}
		// G is a function of the age column: 1 from 65, 0.2 below; Δ = 1 wherever G = 1.
		age := slices.Index(FLChainFeatures(), "age")
		d := sp.Train.Dim()
		var young, youngObs float64
		for i := 0; i < sp.Train.Len(); i++ {
			a := float64(sp.Train.X[i*d+age])*rep.Split.SD[age] + rep.Split.Mean[age]
			old := a >= 65-1e-3
			if old != (sp.Train.GTrue[i] == 1) || (old && sp.Train.Delta[i] != 1) || (!old && sp.Train.GTrue[i] != 0.2) {
				t.Fatalf("train row %d: age %.1f, G %v, Δ %v", i, a, sp.Train.GTrue[i], sp.Train.Delta[i])
			}
			if !old {
				young++
				youngObs += sp.Train.Delta[i]
			}
		}
		if p := youngObs / young; math.Abs(p-0.2) > 4*math.Sqrt(0.16/young) {
			t.Errorf("observed share under 65: %v, want 0.2 within 4 sd (n = %v)", p, young)
		}
	}
}

// TestLoadFLChainConfig checks that the split and missingness parameters of the
// configuration reach the split: another age threshold, missingness rate and shift.
func TestLoadFLChainConfig(t *testing.T) {
	sp, rep, err := LoadFLChain(FLChainConfig{Seed: 1, GroupMinAge: 70, Missingness: Missingness{ProbOther: 0.5},
		Shift: Shift{TrainDisagree: 0.9, TestAgree: 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Config.GroupMinAge != 70 || rep.Split.Missingness.ProbOther != 0.5 || rep.Split.Missingness.ProbGroup != 1 || rep.Split.GroupName != "aged 70 or over" {
		t.Errorf("config %+v, split missingness %+v, group %q", rep.Config, rep.Split.Missingness, rep.Split.GroupName)
	}
	if got := sp.Test.Summarize().PAgreeYZ; math.Abs(got-0.9) > 0.01 {
		t.Errorf("test P(Y=Z) = %v, want 0.9", got)
	}
	for i, g := range sp.Train.GTrue {
		if g != 1 && g != 0.5 {
			t.Fatalf("train row %d: G = %v, want 1 or 0.5", i, g)
		}
	}
}
