package clinical

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The committed CSV, written by scripts/data/nmes.sh.
func nmesPath(t *testing.T) string {
	t.Helper()
	p, err := FindNMES()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadNMES(t *testing.T) {
	tab, err := ReadNMES(nmesPath(t), DefaultVisitsThreshold)
	if err != nil {
		t.Fatal(err)
	}
	// R: summary(NMES1988) and table(visits > 4, afam) on the same data.
	if tab.Len() != 4406 {
		t.Fatalf("%d rows, want 4406", tab.Len())
	}
	var y, z, male float64
	for i := 0; i < tab.Len(); i++ {
		y += tab.Y[i]
		z += tab.Z[i]
		if tab.Male[i] {
			male++
		}
	}
	if y != 2011 || z != 516 || male != 1778 {
		t.Errorf("Y=1 rows %v, afam rows %v, male rows %v; want 2011, 516, 1778", y, z, male)
	}
	// First data line: 5,0,0,0,0,1,"average",2,"normal","other",6.9,"yes","male","yes",6,2.881,"yes","yes","no"
	want := []float64{0, 1, 0, 2, 0, 0, 0, 0, 1, 6.9, 1, 1, 6, 2.881, 1, 1, 0}
	if got := tab.X[:tab.Dim()]; !slices.Equal(got, want) {
		t.Errorf("row 0 features %v, want %v", got, want)
	}
	if tab.Y[0] != 1 || tab.Z[0] != 1 || !tab.Male[0] {
		t.Errorf("row 0: Y %v Z %v male %v, want 1 1 true", tab.Y[0], tab.Z[0], tab.Male[0])
	}
	// Other thresholds (R: sum(visits == 0) = 683, sum(visits > 8) = 1000).
	for _, tc := range []struct{ threshold, want int }{{0, 4406 - 683}, {8, 1000}} {
		tab, err := ReadNMES(nmesPath(t), tc.threshold)
		if err != nil {
			t.Fatal(err)
		}
		var n float64
		for _, v := range tab.Y {
			n += v
		}
		if n != float64(tc.want) {
			t.Errorf("visits > %d: %v rows, want %d", tc.threshold, n, tc.want)
		}
	}
}

func TestReadNMESMalformed(t *testing.T) {
	const header = `"visits","nvisits","ovisits","novisits","emergency","hospital","health","chronic","adl","region","age","afam","gender","married","school","income","employed","insurance","medicaid"` + "\n"
	const good = `5,0,0,0,0,1,"average",2,"normal","other",6.9,"yes","male","yes",6,2.881,"yes","yes","no"` + "\n"
	for _, tc := range []struct {
		name, body, want string
	}{
		{"ok", header + good + good, ""},
		{"empty", "", "reading the header"},
		{"no rows", header, "no data rows"},
		{"missing column", strings.Replace(header, `"afam",`, "", 1) + good, `header has no column "afam"`},
		{"bad number", header + good + strings.Replace(good, "6.9", "6.9x", 1), `:3: column "age": value "6.9x"`},
		{"field count", header + good + `1,2,3` + "\n", "record on line 3: wrong number of fields"},
		{"unknown level", header + strings.Replace(good, `"male"`, `"M"`, 1), `:2: column "gender": value "M" is not one of female, male`},
		{"NaN", header + strings.Replace(good, "2.881", "NaN", 1), `:2: column "income": value "NaN" is not a finite number`},
		{"fractional visits", header + strings.Replace(good, "5,0,0", "5.5,0,0", 1), `:2: column "visits": value 5.5 is not a count`},
		{"bare quote", header + good + `5,0,0,0,0,1,"aver"age",2` + "\n", `line 3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "nmes.csv")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			tab, err := ReadNMES(p, 4)
			if tc.want == "" {
				if err != nil || tab.Len() != 2 {
					t.Fatalf("ReadNMES: %v", err)
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

func TestReadNMESMissingFile(t *testing.T) {
	_, err := ReadNMES(filepath.Join(t.TempDir(), "nope.csv"), 4)
	if err == nil || !strings.Contains(err.Error(), NMESScript) {
		t.Fatalf("error %v, want one naming %s", err, NMESScript)
	}
	_, _, err = LoadNMES(NMESConfig{Path: filepath.Join(t.TempDir(), "nope.csv")})
	if err == nil || !strings.Contains(err.Error(), NMESScript) {
		t.Fatalf("LoadNMES error %v, want one naming %s", err, NMESScript)
	}
}

func TestLoadNMES(t *testing.T) {
	sp, rep, err := LoadNMES(NMESConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	if math.Abs(rep.PY1-2011.0/4406) > 1e-12 || math.Abs(rep.PZ1-516.0/4406) > 1e-12 {
		t.Errorf("P(Y=1) %v, P(Z=1) %v", rep.PY1, rep.PZ1)
	}
	// Available cells 00=2075 01=320 10=1815 11=196 (R: table(visits > 4, afam)); with the
	// defaults the pool takes 48+272+166+29 = 515 rows and the test set 272+48+29+166 = 515.
	if rep.Split.Available != [2][2]int{{2075, 320}, {1815, 196}} {
		t.Errorf("available cells %v", rep.Split.Available)
	}
	if n := sp.Train.Len() + sp.Val.Len(); n != 515 || sp.Test.Len() != 515 {
		t.Errorf("train+val %d, test %d; want 515 and 515", n, sp.Test.Len())
	}
	if sp.Train.Dim() != len(NMESFeatures()) {
		t.Errorf("feature dim %d, want %d", sp.Train.Dim(), len(NMESFeatures()))
	}
	tr, te := sp.Train.Summarize(), sp.Test.Summarize()
	if tr.PAgreeYZ > 0.2 || te.PAgreeYZ < 0.8 {
		t.Errorf("P(Y=Z): train %v, test %v; want mostly disagreeing, then mostly agreeing", tr.PAgreeYZ, te.PAgreeYZ)
	}
	// The male column is a feature, and G is a function of it.
	male := slices.Index(NMESFeatures(), "male")
	d := sp.Train.Dim()
	for i := 0; i < sp.Train.Len(); i++ {
		isMale := sp.Train.X[i*d+male] > 0
		if (sp.Train.GTrue[i] == 1) != isMale {
			t.Fatalf("train row %d: male feature %v but G = %v", i, sp.Train.X[i*d+male], sp.Train.GTrue[i])
		}
	}
}

func TestReadNMESToleratesBOMAndNamesHugeValues(t *testing.T) {
	b, err := os.ReadFile(nmesPath(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bom := filepath.Join(dir, "bom.csv")
	os.WriteFile(bom, append([]byte("\ufeff"), b...), 0o644)
	tb, err := ReadNMES(bom, DefaultVisitsThreshold)
	if err != nil || tb.Len() < 4000 {
		t.Fatalf("CSV with a byte-order mark: %v", err)
	}
	// Line 3's age (column 11) set to 1e308: finite, but its square is not.
	lines := strings.SplitN(string(b), "\n", 4)
	f := strings.Split(lines[2], ",")
	f[10] = "1e308"
	lines[2] = strings.Join(f, ",")
	huge := filepath.Join(dir, "huge.csv")
	os.WriteFile(huge, []byte(strings.Join(lines, "\n")), 0o644)
	_, err = ReadNMES(huge, DefaultVisitsThreshold)
	if err == nil || !strings.Contains(err.Error(), "huge.csv:3: column \"age\": value \"1e308\" is out of range") {
		t.Fatalf("1e308: error %v, want the CSV line and column", err)
	}
}
