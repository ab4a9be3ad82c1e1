package owndata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// calibCSV writes n rows of the calibration simulation with dependence δ to a CSV in a
// temporary folder: h, y, z (empty where missing), x1, x2, and the true G and m as g and m.
func calibCSV(t *testing.T, n int, delta float64, seed uint64) string {
	t.Helper()
	s := calibsim.Draw(n, delta, rand.New(rand.NewPCG(seed, 7)))
	var b strings.Builder
	b.WriteString("h,y,z,x1,x2,g,m\n")
	for i := range s.Len() {
		z := ""
		if !math.IsNaN(s.Z[i]) {
			z = fmt.Sprint(s.Z[i])
		}
		fmt.Fprintf(&b, "%.6g,%v,%s,%.6g,%.6g,%.6g,%.6g\n", s.H[i], s.Y[i], z, s.X1[i], s.X2[i], s.GTrue[i], s.MTrue[i])
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("calib-%v.csv", delta))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTestWithTrueNuisances runs Test with the true G and m as columns on the calibration
// simulation: at δ = 0.5 (h depends on Z given Y) every default method rejects with
// p < 0.01 on every route; at δ = 0 the p-values are numbers in (0, 1].
func TestTestWithTrueNuisances(t *testing.T) {
	for _, tc := range []struct {
		delta  float64
		route  invmmd.TestRoute
		reject bool
	}{
		{0.5, invmmd.CrossRoute, true},
		{0.5, invmmd.WildRoute, true},
		{0, invmmd.CrossRoute, false},
		{0, invmmd.WildRoute, false},
	} {
		t.Run(fmt.Sprintf("delta=%v/%v", tc.delta, tc.route), func(t *testing.T) {
			cfg := DefaultTestConfig()
			cfg.Data, cfg.H, cfg.Y, cfg.Z, cfg.G, cfg.M = calibCSV(t, 2000, tc.delta, 3), "h", "y", "z", "g", "m"
			cfg.Route, cfg.Resamples = tc.route, 200
			res, err := Test(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := method.List(testMethods(res.Results)); got != "dr" {
				t.Fatalf("methods %s, want the default dr", got)
			}
			if res.FittedG || res.FittedM || res.Tested != 2000 || res.MissingZ == 0 {
				t.Errorf("fitted %v %v, tested %d, missing %d: want the columns, every row tested, some Z missing", res.FittedG, res.FittedM, res.Tested, res.MissingZ)
			}
			for _, r := range res.Results {
				switch {
				case tc.reject && !(r.PValue < 0.01):
					t.Errorf("%v: p = %v at δ = %v, want < 0.01", r.Method, r.PValue, tc.delta)
				case !(r.PValue > 0 && r.PValue <= 1):
					t.Errorf("%v: p = %v, want a number in (0, 1]", r.Method, r.PValue)
				}
				t.Logf("%v %v: statistic %.4g, p %.4g", tc.route, r.Method, r.Statistic, r.PValue)
			}
			if md := res.Markdown(); !strings.Contains(md, "assumed to have been fitted on rows other than these") || !strings.Contains(md, "| dr | ") {
				t.Errorf("markdown:\n%s", md)
			}
		})
	}
}

func testMethods(rs []invmmd.TestResult) []method.Method {
	var ms []method.Method
	for _, r := range rs {
		ms = append(ms, r.Method)
	}
	return ms
}

// TestTestFitsNuisancesOnHalfB runs Test with G and m fitted on x1, x2: the halves split
// each (Y, Δ) cell, the cross route tests with them (rows per half in the strata add up to
// half A and B's rows with a pseudo-outcome), the wild route tests half A only, the output
// says so, and δ = 0.5 is still rejected.
func TestTestFitsNuisancesOnHalfB(t *testing.T) {
	data := calibCSV(t, 4000, 0.5, 5)
	for _, route := range []invmmd.TestRoute{invmmd.CrossRoute, invmmd.WildRoute} {
		cfg := DefaultTestConfig()
		cfg.Data, cfg.H, cfg.Y, cfg.Z, cfg.X = data, "h", "y", "z", []string{"x1", "x2"}
		cfg.Hidden, cfg.AuxEpochs, cfg.Folds = []int{8}, 30, 1
		cfg.Methods, cfg.Route, cfg.Resamples = []method.Method{method.DR}, route, 200
		var log bytes.Buffer
		cfg.Log = &log
		res, err := Test(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !res.FittedG || !res.FittedM || res.HalfA+res.HalfB != 4000 || res.HalfA < 1990 || res.HalfA > 2000 {
			t.Errorf("%v: fitted %v %v, halves %d/%d", route, res.FittedG, res.FittedM, res.HalfA, res.HalfB)
		}
		r := res.Results[0]
		if !(r.PValue < 0.01) {
			t.Errorf("%v: dr p = %v at δ = 0.5, want < 0.01", route, r.PValue)
		}
		t.Logf("%v dr: statistic %.4g, p %.4g", route, r.Statistic, r.PValue)
		md := res.Markdown()
		switch route {
		case invmmd.CrossRoute:
			a, b := 0, 0
			for _, s := range r.Strata {
				a, b = a+s.Rows[0], b+s.Rows[1]
			}
			if a != res.HalfA || b != res.HalfB || res.Tested != 4000 {
				t.Errorf("cross: strata rows %d/%d, halves %d/%d, tested %d", a, b, res.HalfA, res.HalfB, res.Tested)
			}
			if !strings.Contains(md, "the cross statistic sums over half A") {
				t.Errorf("cross markdown:\n%s", md)
			}
		default:
			if res.Tested != res.HalfA || r.Strata[0].Rows[0]+r.Strata[1].Rows[0] != res.HalfA {
				t.Errorf("wild: tested %d of half A %d, strata %+v", res.Tested, res.HalfA, r.Strata)
			}
			if !strings.Contains(md, "the wild test ran on half A only") {
				t.Errorf("wild markdown:\n%s", md)
			}
		}
		if !strings.Contains(log.String(), "G and m fitted on them only") {
			t.Errorf("log:\n%s", log.String())
		}
	}
}

// TestTestRefusals checks the named errors before any fitting: resamples under the
// minimum, a method the permutation route cannot test, a missing column, a stratum with no
// observed Z, a constant h, and the default methods without G, m or -x.
func TestTestRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var noZ1, constH, ok strings.Builder
	noZ1.WriteString("h,y,z,g,m\n")
	constH.WriteString("h,y,z,g,m\n")
	ok.WriteString("h,y,z,g,m\n")
	for i := range 60 {
		z := fmt.Sprint(i % 2)
		zNoY1 := z
		if i%3 == 0 {
			z, zNoY1 = "", ""
		}
		if i >= 30 {
			zNoY1 = "" // no observed Z in the Y = 1 stratum
		}
		fmt.Fprintf(&noZ1, "%v,%d,%s,0.6,0.5\n", float64(i%7), i/30, zNoY1)
		fmt.Fprintf(&constH, "1.5,%d,%s,0.6,0.5\n", i/30, z)
		fmt.Fprintf(&ok, "%v,%d,%s,0.6,0.5\n", float64(i%7), i/30, z)
	}
	okPath := write("ok.csv", ok.String())
	noZ1Path, constPath := write("noz1.csv", noZ1.String()), write("const.csv", constH.String())
	base := func(data string) TestConfig {
		c := DefaultTestConfig()
		c.Data, c.H, c.Y, c.Z, c.G, c.M = data, "h", "y", "z", "g", "m"
		return c
	}
	for _, tc := range []struct {
		name string
		edit func(*TestConfig)
		want string
	}{
		{"B 50", func(c *TestConfig) { c.Route, c.Resamples = invmmd.WildRoute, 50 }, "Resamples 50: want 100 to 100000 resamples"},
		{"permutation dr", func(c *TestConfig) {
			c.Route, c.Methods = invmmd.PermutationRoute, []method.Method{method.DR}
		}, "the permutation route is valid only for full and obs"},
		{"missing column", func(c *TestConfig) { c.H = "score" }, `no column named "score" (H)`},
		{"no observed Z", func(c *TestConfig) {}, "no row with y = 1 and z = 0 observed"},
		{"constant h", func(c *TestConfig) { c.Data = constPath }, "h is constant"},
		{"default methods need G and m", func(c *TestConfig) { c.Data, c.G, c.M = okPath, "", "" }, "the default methods (dr): G: methods dr need G"},
		{"bandwidth", func(c *TestConfig) { c.Median, c.Bandwidth = false, -1 }, "Bandwidth -1"},
		{"resamples beyond the bound", func(c *TestConfig) { c.Route, c.Resamples = invmmd.WildRoute, 99999999 }, "Resamples 99999999: want 100 to 100000"},
	} {
		cfg := base(noZ1Path)
		tc.edit(&cfg)
		_, err := Test(ctx, cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestTestsCSV checks the CSV header and rows (the command's TestWriteOutFile checks
// that the file is not written over one that exists).
func TestTestsCSV(t *testing.T) {
	res := &Tests{Results: []invmmd.TestResult{
		{Method: method.DR, Statistic: 2.5, PValue: 0.00621, Unreliable: []string{"stratum Y=1: 12 and 11 rows in the halves, fewer than 20", "Ĝ floored"}},
		{Method: method.IP, Statistic: -0.25, PValue: 0.6},
	}}
	var b bytes.Buffer
	if err := res.CSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "method,statistic,p_value,unreliable\ndr,2.5,0.00621,stratum Y=1: 12 and 11 rows in the halves, fewer than 20; Ĝ floored\nip,-0.25,0.6,\n"
	if got := b.String(); got != strings.ReplaceAll(want, "dr,2.5,0.00621,stratum Y=1: 12 and 11 rows in the halves, fewer than 20; Ĝ floored", `dr,2.5,0.00621,"stratum Y=1: 12 and 11 rows in the halves, fewer than 20; Ĝ floored"`) {
		t.Errorf("CSV:\n%s", got)
	}
}

// TestFitHeldOutPValues runs Fit on the calibration simulation and checks the held-out
// p-value of dr's test (ip's is not run: its size with G fitted is not shown to hold): in
// each row, in results.csv's column heldout_p_dr, in results.md and in heldout.txt; and that
// a run file written before the p-values and h's stop existed reads back with none,
// rendered n/a and empty.
func TestFitHeldOutPValues(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Data, cfg.Y, cfg.Z, cfg.X = calibCSV(t, 1500, 0.5, 9), "y", "z", []string{"x1", "x2"}
	cfg.Hidden, cfg.Epochs, cfg.AuxEpochs = []int{8}, 3, 10
	cfg.Methods = []method.Method{method.None}
	cfg.Out = t.TempDir()
	res, err := Fit(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Rows[0]
	if p := r.PDR; !p.OK || !(p.P > 0 && p.P <= 1) {
		t.Errorf("dr: held-out p-value %+v, want one in (0, 1] (warnings %v)", p, res.Warnings)
	}
	csvText, err := os.ReadFile(filepath.Join(cfg.Out, ResultsCSV))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csvText)), "\n")
	want := "," + strconv.FormatFloat(r.PDR.P, 'g', 8, 64) + ","
	if !strings.Contains(lines[0], ",warning,heldout_p_dr,h_best_epoch,") || !strings.Contains(lines[1], want) {
		t.Errorf("results.csv:\n%s", csvText)
	}
	md, _ := os.ReadFile(filepath.Join(cfg.Out, ResultsMD))
	if !strings.Contains(string(md), "| p dr |") || !strings.Contains(string(md), " | "+r.PDR.String()+" | ") {
		t.Errorf("results.md:\n%s", md)
	}
	if !strings.Contains(res.HeldOut, "test of H₀: h ⊥ Z | Y on the test split, cross route") || !strings.Contains(res.HeldOut, "    dr: T = ") || strings.Contains(res.HeldOut, "    ip: T = ") {
		t.Errorf("heldout.txt:\n%s", res.HeldOut)
	}

	var old RunFile
	if err := json.Unmarshal([]byte(`{"row": {"Method": "dr", "Seed": 1, "DR": 0.01, "IP": 0.02}}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Row.PDR.OK || !strings.Contains(Markdown([]Row{old.Row}), "| 0.0100 ± 0.0000 | n/a | 0.0200 ± 0.0000 | none |") {
		t.Errorf("an old run file's row: %+v\n%s", old.Row, Markdown([]Row{old.Row}))
	}
	path := filepath.Join(t.TempDir(), "old.csv")
	if err := writeCSV(path, []Row{old.Row}); err != nil {
		t.Fatal(err)
	}
	// Its p-value, h's stop and its scale (the last seven columns) are empty.
	if b, _ := os.ReadFile(path); !strings.HasSuffix(strings.TrimSpace(string(b)), ",0,,,,,,,,") {
		t.Errorf("an old row's CSV line ends without empty p-values and stop:\n%s", b)
	}
	b, _ := json.Marshal(old.Row)
	if strings.Contains(string(b), "PDR") || strings.Contains(string(b), "HStop") {
		t.Errorf("a row without p-values and stop writes them: %s", b)
	}
}

// TestSharedNuisances: G and m fitted once (FitNuisancesTable) and given to EstimateTable
// and TestTable give exactly the estimates and p-values those give when they fit G and m
// themselves (the same folds and seeds), for a binary and a continuous Z; a table other
// than theirs is refused.
func TestSharedNuisances(t *testing.T) {
	for _, kind := range []dataset.ZKind{dataset.BinaryZ, dataset.ContinuousZ} {
		k, err := calibsim.DrawKind(600, 0.3, kind, rand.New(rand.NewPCG(9, uint64(kind))))
		if err != nil {
			t.Fatal(err)
		}
		tab, err := tabular.NewTable("shared", tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y), tabular.NumberColumn("z", k.Z), tabular.NumberColumn("h", k.H))
		if err != nil {
			t.Fatal(err)
		}
		ec := DefaultEstimateConfig()
		ec.Y, ec.Z, ec.H, ec.X, ec.ZKind = "y", "z", "h", []string{"x1", "x2"}, ZKind(kind.String())
		ec.Hidden, ec.AuxEpochs = []int{8}, 20
		ec.Methods = []method.Method{method.DR, method.IP}
		nu, err := FitNuisancesTable(ctx, tab, ec)
		if err != nil {
			t.Fatal(err)
		}
		own, err := EstimateTable(ctx, tab, ec)
		if err != nil {
			t.Fatal(err)
		}
		ec.Nuisances = nu
		shared, err := EstimateTable(ctx, tab, ec)
		if err != nil {
			t.Fatal(err)
		}
		for i := range own.Results {
			if own.Results[i].Value != shared.Results[i].Value || own.Results[i].ValueSE != shared.Results[i].ValueSE {
				t.Errorf("%v estimate %v: %v ± %v fitting, %v ± %v shared", kind, own.Results[i].Method, own.Results[i].Value, own.Results[i].ValueSE, shared.Results[i].Value, shared.Results[i].ValueSE)
			}
		}
		tc := DefaultTestConfig()
		tc.Y, tc.Z, tc.H, tc.X, tc.ZKind, tc.Hidden, tc.AuxEpochs = "y", "z", "h", []string{"x1", "x2"}, ZKind(kind.String()), []int{8}, 20
		tOwn, err := TestTable(ctx, tab, tc)
		if err != nil {
			t.Fatal(err)
		}
		tc.Nuisances = nu
		tShared, err := TestTable(ctx, tab, tc)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := tOwn.Results[0], tShared.Results[0]; a.PValue != b.PValue || a.Statistic != b.Statistic {
			t.Errorf("%v test: p %v fitting, %v shared", kind, a.PValue, b.PValue)
		}
		other, _ := tabular.NewTable("other", tabular.NumberColumn("x1", k.X2), tabular.NumberColumn("x2", k.X1), tabular.NumberColumn("y", k.Y), tabular.NumberColumn("z", k.Z), tabular.NumberColumn("h", k.H))
		if _, err := TestTable(ctx, other, tc); err == nil || !strings.Contains(err.Error(), "another table") {
			t.Errorf("%v: nuisances of another table: %v", kind, err)
		}
	}
}
