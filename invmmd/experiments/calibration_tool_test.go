package experiments

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
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

// TestReadToolRunsCutLine checks that a last line cut short by a killed run is dropped
// from the file, so that the next tables appended start on a line of their own, and that
// a damaged line inside the file is an error naming it.
func TestReadToolRunsCutLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cell.jsonl")
	if err := os.WriteFile(p, []byte(`{"R":0,"P":{"dr":0.5}}`+"\n"+`{"R":1,"P":{"dr":0.`), 0o644); err != nil {
		t.Fatal(err)
	}
	done, err := readToolRuns(p)
	if err != nil || len(done) != 1 || done[0].P["dr"] != 0.5 {
		t.Fatalf("read %v (%v), want table 0 alone", done, err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"R":0,"P":{"dr":0.5}}`+"\n" {
		t.Errorf("the cut line was left in the file: %q", b)
	}
	if err := os.WriteFile(p, []byte("{\"R\":0}\nnot json\n{\"R\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readToolRuns(p); err == nil || !strings.Contains(err.Error(), "cell.jsonl:2") {
		t.Errorf("a damaged line: error %v, want one naming line 2", err)
	}
}
