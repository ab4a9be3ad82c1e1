package experiments

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestToolCalibrationResumes runs the quick study, then runs it again from its runs/
// folder: the second run refits nothing and gives the same tables, and a run with more
// workers gives them too (each table's data is seeded by its cell and index).
func TestToolCalibrationResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("fits G and m for a few dozen tables")
	}
	cfg := ToolCalibrationQuick()
	cfg.Kinds, cfg.Replicates, cfg.OtherReplicates, cfg.PowerReplicates = cfg.Kinds[:1], 4, 2, 2
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
	// The rerun reads every table from runs/: removing the simulator's seed from the
	// config would change nothing, so check by timing-free means that no line is added.
	before := countLines(t, runs)
	cfg.Workers = 2
	b, err := RunToolCalibration(context.Background(), cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if after := countLines(t, runs); after != before {
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

func countLines(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range b {
			if c == '\n' {
				n++
			}
		}
	}
	return n
}
