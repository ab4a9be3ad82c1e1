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
