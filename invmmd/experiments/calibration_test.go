package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestCalibrationIndependentOfWorkers runs the quick study with one and with two workers:
// the tables must be the same, and the sizes of the valid tests plausible.
func TestCalibrationIndependentOfWorkers(t *testing.T) {
	cfg := CalibrationQuick()
	cfg.Replicates, cfg.PowerReplicates = 30, 10
	cfg.Workers = 1
	a, err := RunCalibration(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 2
	b, err := RunCalibration(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Rows, b.Rows) || !reflect.DeepEqual(a.NullP, b.NullP) {
		t.Errorf("one worker and two give different results:\n%v\n%v", a.Rows, b.Rows)
	}
	if want := len(cfg.Tests) * (1 + len(cfg.Deltas)); len(a.Rows) != want {
		t.Errorf("%d rows, want %d", len(a.Rows), want)
	}
	if len(a.NullP) != cfg.Replicates*len(cfg.Tests) {
		t.Errorf("%d null p-values, want %d", len(a.NullP), cfg.Replicates*len(cfg.Tests))
	}
}

func TestCalibrationConfigErrors(t *testing.T) {
	for _, c := range []struct {
		edit func(*CalibrationConfig)
		want string
	}{
		{func(c *CalibrationConfig) { c.Sizes = nil }, "no sample size"},
		{func(c *CalibrationConfig) { c.Sizes = []int{50} }, "sample size 50"},
		{func(c *CalibrationConfig) { c.Alpha = 1 }, "α = 1"},
		{func(c *CalibrationConfig) { c.Resamples = 10 }, "10 resamples"},
		{func(c *CalibrationConfig) { c.Deltas = []float64{0} }, "δ = 0"},
	} {
		cfg := CalibrationQuick()
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}

// committedTables is where the committed calibration tables are.
var committedTables = filepath.Join("..", "..", "figures", "tables")

// TestCalibrationCommittedReproduces recomputes the first null replicates of every test at
// each size of the committed study and compares their p-values with calibration_null.csv,
// and the committed configuration with CalibrationPaper: the committed numbers come from
// this code.
func TestCalibrationCommittedReproduces(t *testing.T) {
	p := filepath.Join(committedTables, "calibration_null.csv")
	null, err := results.ReadCalibrationNullCSV(p)
	if err != nil {
		t.Fatalf("the committed study: %v", err)
	}
	cfg := CalibrationPaper()
	b, err := os.ReadFile(filepath.Join(committedTables, "calibration_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(cfg.Record(), "", "  ")
	if strings.TrimSpace(string(b)) != string(want) {
		t.Errorf("calibration_config.json is not CalibrationPaper's record:\n%s\nwant\n%s", b, want)
	}
	got := map[string]float64{}
	for _, v := range null {
		got[fmt.Sprintf("%d/%s/%s/%d", v.N, v.Method, v.Route, v.Replicate)] = v.P
	}
	for _, n := range cfg.Sizes {
		for r := 0; r < 3; r++ {
			ps, _, err := calibrationReplicate(cfg, n, 0, 0, r)
			if err != nil {
				t.Fatal(err)
			}
			for k, test := range cfg.Tests {
				key := fmt.Sprintf("%d/%v/%d", n, test, r)
				c, ok := got[key]
				if !ok || math.Abs(c-ps[k]) > 5e-7 {
					t.Errorf("%s: committed p %v (present %v), recomputed %.6f", key, c, ok, ps[k])
				}
			}
		}
	}
}

// TestREADMEShowsCalibrationTable checks that the README's calibration tables are the
// committed calibration.md's, line for line.
func TestREADMEShowsCalibrationTable(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(committedTables, "calibration.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "|") && !strings.Contains(string(readme), line) {
			t.Errorf("README.md lacks the line of figures/tables/calibration.md:\n%s", line)
		}
	}
}

// TestREADMECalibrationClaims checks the README's sentences about the calibration study
// against calibration.csv: the percentages it quotes and the band dr's sizes lie in.
func TestREADMECalibrationClaims(t *testing.T) {
	rows, err := results.ReadCalibrationCSV(filepath.Join(committedTables, "calibration.csv"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rate := func(n int, test string, delta float64) float64 {
		for _, r := range rows {
			if r.N == n && r.Test() == test && r.Delta == delta {
				return r.Rate()
			}
		}
		t.Fatalf("no row %d %s %v", n, test, delta)
		return 0
	}
	pct := func(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }
	for _, w := range []string{
		"At δ = 0.3 and n = 2,000 the cross route rejects " + pct(rate(2000, "dr/cross", 0.3)),
		"obs by permutation rejects a true H₀ " + pct(rate(500, "obs/permutation", 0)) + " of\n  the time at n = 500 and " + pct(rate(2000, "obs/permutation", 0)) + " at n = 2,000",
		fmt.Sprintf("(%.0f %% at both sizes)", 100*rate(2000, "reg/cross", 0)),
		fmt.Sprintf("shows less (%.0f %%)", 100*rate(2000, "ip/cross", 0)),
	} {
		if !strings.Contains(string(readme), w) {
			t.Errorf("README.md does not say, as calibration.csv gives:\n%s", w)
		}
	}
	if a, b := rate(500, "reg/cross", 0), rate(2000, "reg/cross", 0); math.Abs(a-b) > 0.01 {
		t.Errorf("reg's size %v at n = 500 and %v at n = 2000: the README says the same at both sizes", a, b)
	}
	if a, b := rate(500, "ip/cross", 0), rate(2000, "ip/cross", 0); math.Round(100*a) != math.Round(100*b) {
		t.Errorf("ip's size %v and %v: the README quotes one percentage", a, b)
	}
	for _, test := range []string{"dr/cross", "dr/wild"} {
		if r := rate(2000, test, 0); r < 0.03 || r > 0.07 {
			t.Errorf("%s size %v at n = 2000, outside 0.03–0.07 as the README says", test, r)
		}
		if r := rate(500, test, 0); r < 0.02 || r > 0.09 {
			t.Errorf("%s size %v at n = 500, outside 0.02–0.09 as the README says", test, r)
		}
		if rate(2000, test, 0.3) < 0.8 {
			t.Errorf("%s power at δ = 0.3, n = 2000 below 0.8", test)
		}
	}
	// The wild route is the more powerful at every δ > 0 of the larger size, as the README says.
	for _, d := range []float64{0.1, 0.2, 0.3, 0.4} {
		if rate(2000, "dr/wild", d) < rate(2000, "dr/cross", d) {
			t.Errorf("δ = %v: dr/wild %v below dr/cross %v", d, rate(2000, "dr/wild", d), rate(2000, "dr/cross", d))
		}
	}
}
