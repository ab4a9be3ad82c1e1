package experiments

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/experiments/store"
)

// TestToolCalibrationResumes runs the quick study, then runs it again from its store: the
// second run refits nothing and gives the same tables, and a run with more
// workers gives them too (each table's data is seeded by its cell and index).
func TestToolCalibrationResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("fits G and m for a few dozen tables")
	}
	cfg := ToolCalibrationQuick()
	cfg.Kinds, cfg.Replicates, cfg.PowerReplicates = cfg.Kinds[:1], 4, 2
	for i := range cfg.Fittings[1:] {
		cfg.Fittings[i+1].Replicates = 2
	}
	cfg.Workers = 1
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	a, err := RunToolCalibration(context.Background(), cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Rows {
		if r.Replicates == 0 || r.Failed == r.Replicates {
			t.Errorf("%+v: no p-values", r)
		}
	}
	if len(a.SE) == 0 {
		t.Fatal("no standard errors summarised")
	}
	seen := map[string]bool{}
	for _, s := range a.SE {
		seen[s.Method] = true
		if !(s.RMSSE > 0) || math.IsNaN(s.SD) {
			t.Errorf("%+v: no standard error", s)
		}
	}
	for _, m := range []string{"full", "dr", "ip", "reg", "obs"} {
		if !seen[m] {
			t.Errorf("no standard errors of %s summarised (reg's is measured though not printed)", m)
		}
	}
	// The rerun reads every table from the store: no file is added.
	before := countFiles(t, runs)
	cfg.Workers = 2
	b, err := RunToolCalibration(context.Background(), cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if after := countFiles(t, runs); after != before {
		t.Errorf("the rerun added %d results; it should have read them all", after-before)
	}
	if a.Markdown() != b.Markdown() {
		t.Errorf("the rerun's tables differ:\n%s\n%s", a.Markdown(), b.Markdown())
	}
	// A fresh run with two workers gives the same numbers.
	c, err := RunToolCalibration(context.Background(), cfg, filepath.Join(dir, "runs2"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Markdown() != c.Markdown() {
		t.Errorf("two workers give other tables:\n%s\n%s", a.Markdown(), c.Markdown())
	}
}

// countFiles counts the result files under the study's store in out.
func countFiles(t *testing.T, out string) int {
	t.Helper()
	ents, err := os.ReadDir(store.Dir(out, "calibration_tool"))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestToolCalibrationRefusesAnotherSeed: a store of another seed would mix tables, so the
// study refuses it, naming what differs.
func TestToolCalibrationRefusesAnotherSeed(t *testing.T) {
	cfg := ToolCalibrationQuick()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the store is opened, no table is run
	dir := t.TempDir()
	if _, err := RunToolCalibration(ctx, cfg, dir); err != context.Canceled {
		t.Fatalf("cancelled: error %v", err)
	}
	cfg.Seed++
	if _, err := RunToolCalibration(ctx, cfg, dir); err == nil || !strings.Contains(err.Error(), "Seed") {
		t.Errorf("another seed: error %v, want one naming Seed", err)
	}
}

// TestToolReplicateJSON: a table's record writes NaN (no p-value, no standard error) as
// null and reads it back as NaN, every other number as it was.
func TestToolReplicateJSON(t *testing.T) {
	nan := nanFloat(math.NaN())
	rep := toolReplicate{R: 3, P: map[string]nanFloat{"dr": 0.25, "ip": nan}, Marked: map[string]bool{"dr": true},
		Est: map[string][2]nanFloat{"reg": {0.5, nan}}}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"R":3,"P":{"dr":0.25,"ip":null},"Marked":{"dr":true},"Est":{"reg":[0.5,null]}}`; string(b) != want {
		t.Fatalf("written as %s, want %s", b, want)
	}
	var back toolReplicate
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.R != 3 || back.P["dr"] != 0.25 || !math.IsNaN(float64(back.P["ip"])) || !back.Marked["dr"] ||
		back.Est["reg"][0] != 0.5 || !math.IsNaN(float64(back.Est["reg"][1])) {
		t.Errorf("read back as %+v", back)
	}
}

// TestToolCalibrationCommittedRecord: the committed calibration_tool_config.json is
// ToolCalibrationPaper's record, byte for byte.
func TestToolCalibrationCommittedRecord(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(committedTables, "calibration_tool_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(ToolCalibrationPaper().Record(), "", "  ")
	if strings.TrimSpace(string(b)) != string(want) {
		t.Errorf("calibration_tool_config.json is not ToolCalibrationPaper's record:\n%s\nwant\n%s", b, want)
	}
}
