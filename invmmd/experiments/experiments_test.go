package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// TestRunQuick runs a tiny simulation sweep end to end and checks the files it writes.
func TestRunQuick(t *testing.T) {
	exp := Simulation(SimulationSize{NTrain: 1000, NVal: 500, NTest: 500, Batch: 500, Epochs: 2, AuxEpochs: 2})
	dir := t.TempDir()
	out, err := Run(context.Background(), exp, RunConfig{Methods: []method.Method{method.None, method.Reg}, Lambdas: []float64{1, 5}, Seeds: []uint64{1}, TableDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []float64{1, 5} {
		rows, err := results.ReadCSVFile(results.TablePath(dir, "sim", l))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].Method != "none" || rows[1].Method != "reg" {
			t.Errorf("λ=%v: rows %+v", l, rows)
		}
	}
	js, err := os.ReadFile(filepath.Join(dir, "sim_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(js, &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Backend", "H", "Aux", "Estimator", "Seeds", "Fits", "Data", "AuxReports"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("config record lacks %s", k)
		}
	}
	if len(out.Fits) != 3 { // none once, reg at two λ
		t.Errorf("%d fits, want 3", len(out.Fits))
	}
	if _, err := Run(context.Background(), exp, RunConfig{Methods: []method.Method{method.Obs}, Lambdas: []float64{-1}, Seeds: []uint64{1}}); err == nil {
		t.Error("λ = -1: want an error")
	}
}

// tinySim is a simulation small enough for sweeps in tests.
func tinySim() Experiment {
	exp := Simulation(SimulationSize{NTrain: 1000, NVal: 500, NTest: 500, Batch: 500, Epochs: 2, AuxEpochs: 2})
	exp.Size = "tiny"
	return exp
}

// TestShardedMergeEqualsWholeRun runs a sweep whole and in three shards (one of them
// killed and resumed) and checks that the merged tables are byte-identical, that merge
// names the fits of a missing shard, and that a rerun leaves every table byte-identical.
func TestShardedMergeEqualsWholeRun(t *testing.T) {
	exp := tinySim()
	grid := RunConfig{Methods: []method.Method{method.None, method.Obs, method.DR}, Lambdas: []float64{1, 5}, Seeds: []uint64{1, 2}}
	whole := t.TempDir()
	rc := grid
	rc.StoreDir, rc.TableDir = whole, filepath.Join(whole, "tables")
	if _, err := Run(context.Background(), exp, rc); err != nil {
		t.Fatal(err)
	}
	read := func(dir string) map[string]string {
		got := map[string]string{}
		paths, _ := filepath.Glob(filepath.Join(dir, "tables", "*"))
		for _, p := range paths {
			b, _ := os.ReadFile(p)
			got[filepath.Base(p)] = string(b)
		}
		return got
	}
	want := read(whole)
	if len(want) != 6 { // 2 CSV, 2 Markdown, config, timing
		t.Fatalf("whole run wrote %d tables: %v", len(want), want)
	}

	sharded := t.TempDir()
	rc = grid
	rc.StoreDir = sharded
	total := len(Grid([]string{"none", "obs", "dr"}, grid.Lambdas, grid.Seeds))
	// Shards in reverse order: shard 1 (none and obs of seed 1, no G or m) runs after
	// shard 2 has recorded seed 1's G and m, and must not lose them.
	for _, i := range []int{3, 2, 1} {
		rc.Shard = store.Shard{I: i, N: 3}
		out, err := Run(context.Background(), exp, rc)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := rc.Shard.Range(total)
		if len(out.Fits) != hi-lo || len(out.Rows) != 0 {
			t.Fatalf("shard %v: %d fits (want %d), %d tables", rc.Shard, len(out.Fits), hi-lo, len(out.Rows))
		}
		if i == 2 {
			// Shard 2 killed: its files gone. Merge must name what is missing.
			lo, hi := rc.Shard.Range(total)
			keys := Grid([]string{"none", "obs", "dr"}, grid.Lambdas, grid.Seeds)[lo:hi]
			for _, k := range keys {
				os.Remove(filepath.Join(store.Dir(sharded, "sim"), k.FileName()))
			}
			_, err := Merge(exp, sharded, filepath.Join(sharded, "tables"))
			if err == nil || !strings.Contains(err.Error(), keys[0].String()) {
				t.Fatalf("merge with shard 2 missing: %v, want it to name %v", err, keys[0])
			}
			if _, err := os.Stat(filepath.Join(sharded, "tables", "sim_lambda1.csv")); err == nil {
				t.Fatal("a failed merge wrote tables")
			}
			// Rerun with -resume: fits of the first shard's files are not redone.
			rc.Resume = true
			out, err := Run(context.Background(), exp, rc)
			if err != nil || len(out.Fits) != hi-lo || out.Skipped != 0 {
				t.Fatalf("resumed shard 2: %v, %d fits, %d skipped", err, len(out.Fits), out.Skipped)
			}
			out, err = Run(context.Background(), exp, rc)
			if err != nil || out.Skipped != hi-lo {
				t.Fatalf("shard 2 again with -resume: %v, %d skipped, want %d", err, out.Skipped, hi-lo)
			}
		}
	}
	if _, err := Merge(exp, sharded, filepath.Join(sharded, "tables")); err != nil {
		t.Fatal(err)
	}
	got := read(sharded)
	for name, w := range want {
		if name == "sim_timing.json" {
			continue
		}
		if got[name] != w {
			t.Errorf("%s differs between the whole run and the merged shards:\n%s\n---\n%s", name, w, got[name])
		}
	}

	// A rerun into the same folder leaves every tracked table byte-identical.
	rc = grid
	rc.StoreDir, rc.TableDir = whole, filepath.Join(whole, "tables")
	if _, err := Run(context.Background(), exp, rc); err != nil {
		t.Fatal(err)
	}
	again := read(whole)
	for name, w := range want {
		if name != "sim_timing.json" && again[name] != w {
			t.Errorf("%s changed on a rerun with the same seeds", name)
		}
	}
	if strings.Contains(want["sim_config.json"], "Seconds") || !strings.Contains(want["sim_timing.json"], "Seconds") {
		t.Error("timings are not confined to sim_timing.json")
	}

	// Fewer λ in a rerun: the λ = 5 table goes.
	rc.Lambdas = []float64{1}
	if _, err := Run(context.Background(), exp, rc); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(whole, "tables", "sim_lambda5.csv")); err == nil {
		t.Error("the stale λ = 5 table stayed beside a configuration that no longer lists it")
	}

	// Another configuration into the same folder: an error that says what differs.
	other := exp
	other.H.Epochs = 3
	if _, err := Run(context.Background(), other, rc); err == nil || !strings.Contains(err.Error(), "H.Epochs: 2 → 3") {
		t.Errorf("another configuration into the same folder: %v", err)
	}
}

// TestVarianceShardsMergeToTheWholeStudy runs a tiny variance study whole and in two
// shards and checks that the merged variance.csv and variance_config.json are
// byte-identical, and that merge names the sizes of a missing shard.
func TestVarianceShardsMergeToTheWholeStudy(t *testing.T) {
	cfg := VarianceConfig{Sizes: []int{200, 300, 400}, Batches: 3, Seed: 1, Methods: []method.Method{method.Full, method.DR, method.DRPlus},
		Data: SimulationSize{NTrain: 1000, NVal: 500, NTest: 500, Batch: 500, Epochs: 2, AuxEpochs: 2}}
	whole := t.TempDir()
	c := cfg
	c.TableDir = filepath.Join(whole, "tables")
	c.StoreDir = whole
	res, err := Variance(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 9 {
		t.Fatalf("%d points, want 9", len(res.Points))
	}
	// The robust summaries: quartiles in order, the smallest G only for the estimators that
	// divide by one, and the true G of dr+ one of the simulation's (sim.GTrue: 0.2 or more).
	for _, p := range res.Points {
		if !(p.Q25 <= p.Median && p.Median <= p.Q75) || p.Q75-p.Q25 > 2*p.Std*math.Sqrt(float64(p.N)) {
			t.Errorf("%s at %d: quartiles %g, %g, %g against sd %g", p.Estimator, p.BatchSize, p.Q25, p.Median, p.Q75, p.Std)
		}
		switch p.Estimator {
		case "full":
			if p.MinG != 0 {
				t.Errorf("full at %d: MinG %g, want 0 (it reads no G)", p.BatchSize, p.MinG)
			}
		case "dr", "dr+":
			if p.MinG <= 0 || p.MinG > 1 {
				t.Errorf("%s at %d: MinG %g, want a probability", p.Estimator, p.BatchSize, p.MinG)
			}
		}
	}
	// The table reads back as the points, rounded as written.
	back, err := results.ReadVarianceCSV(filepath.Join(whole, "tables", "variance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, results.VarianceAsWritten(res.Points)) {
		t.Errorf("variance.csv reads back as\n%+v\nwant\n%+v", back, results.VarianceAsWritten(res.Points))
	}
	sharded := t.TempDir()
	c = cfg
	c.StoreDir = sharded
	c.Shard = store.Shard{I: 2, N: 2}
	if _, err := Variance(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	_, err = MergeVariance(sharded, filepath.Join(sharded, "tables"))
	if err == nil || !strings.Contains(err.Error(), "batch sizes are not usable\nmissing (") || !strings.Contains(err.Error(), "with -resume):\n  batch size 200") {
		t.Fatalf("merge without shard 1: %v, want it to name size 200", err)
	}
	c.Shard = store.Shard{I: 1, N: 2}
	if _, err := Variance(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if _, err := MergeVariance(sharded, filepath.Join(sharded, "tables")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"variance.csv", "variance_config.json"} {
		a, _ := os.ReadFile(filepath.Join(whole, "tables", f))
		b, _ := os.ReadFile(filepath.Join(sharded, "tables", f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: sharded and merged differs from the whole study:\n%s\n---\n%s", f, a, b)
		}
	}
	// A folder of the earlier version, whose record names no Summaries (its files lack the
	// median, quartiles and smallest G), is another configuration: refused, naming it.
	old := t.TempDir()
	oc := cfg
	oc.StoreDir = old
	if _, err := Variance(context.Background(), oc); err != nil {
		t.Fatal(err)
	}
	sweepFile := filepath.Join(store.Dir(old, "variance"), "sweep.json")
	b, err := os.ReadFile(sweepFile)
	if err != nil {
		t.Fatal(err)
	}
	var sw map[string]any
	if err := json.Unmarshal(b, &sw); err != nil {
		t.Fatal(err)
	}
	delete(sw["Config"].(map[string]any), "Summaries")
	b, _ = json.Marshal(sw)
	os.WriteFile(sweepFile, b, 0o644)
	oc.Resume = true
	if _, err := Variance(context.Background(), oc); err == nil || !strings.Contains(err.Error(), "Summaries") {
		t.Errorf("resuming a folder of the earlier version: %v, want an error naming Summaries", err)
	}
	// With -resume and every size done, nothing is recomputed: the files stay as they are.
	sizeFile := filepath.Join(store.Dir(sharded, "variance"), "size300_lambda0_seed1.json")
	before, _ := os.Stat(sizeFile)
	c.Resume, c.Shard = true, store.Shard{}
	if _, err := Variance(context.Background(), c); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if after, err := os.Stat(sizeFile); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("resume rewrote %s (%v)", sizeFile, err)
	}
}

// TestSmallestG checks the smallest G of a batch's observed rows, and which of the learned
// and the true one each estimator's VariancePoint.MinG reports.
func TestSmallestG(t *testing.T) {
	rows := invmmd.Rows{
		Delta: []float64{1, 0, 1, 1, 0},
		G:     []float64{0.30, 0.01, 0.12, 0.50, 0.02}, // 0.01 and 0.02 are unobserved rows
		GTrue: []float64{0.20, 0.05, 0.25, 0.08, 0.01},
	}
	for _, tc := range []struct {
		name     string
		idx      []int
		g, gTrue float64
		byMethod map[method.Method]float64
	}{
		{"every row", []int{0, 1, 2, 3, 4}, 0.12, 0.08,
			map[method.Method]float64{method.Full: 0, method.Reg: 0, method.DR: 0.12, method.IP: 0.12, method.DRPO: 0.12,
				method.DRPlus: 0.08, method.IPPlus: 0.08, method.DRPOPlus: 0.08}},
		{"one observed row", []int{0, 1}, 0.30, 0.20, map[method.Method]float64{method.DR: 0.30, method.DRPlus: 0.20}},
		{"no observed row", []int{1, 4}, math.Inf(1), math.Inf(1), map[method.Method]float64{method.DR: 0, method.DRPlus: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, gt := smallestG(rows, tc.idx)
			if g != tc.g || gt != tc.gTrue {
				t.Errorf("smallestG = %g, %g, want %g, %g", g, gt, tc.g, tc.gTrue)
			}
			for m, want := range tc.byMethod {
				if got := minGOf(m, g, gt); got != want {
					t.Errorf("minGOf(%v) = %g, want %g", m, got, want)
				}
			}
		})
	}
}

// TestRunFitAuxHook checks that RunConfig.FitAux sees each seed's fit of G and m, and
// that handing back a kept fit gives the same results as fitting again.
func TestRunFitAuxHook(t *testing.T) {
	exp := Simulation(SimulationSize{NTrain: 1000, NVal: 500, NTest: 500, Batch: 500, Epochs: 2, AuxEpochs: 2})
	kept := map[uint64]*train.Aux{}
	calls := 0
	hook := func(seed uint64, _ dataset.Splits, fit func() (*train.Aux, error)) (*train.Aux, error) {
		calls++
		if a, ok := kept[seed]; ok {
			return a, nil
		}
		a, err := fit()
		kept[seed] = a
		return a, err
	}
	rc := RunConfig{Methods: []method.Method{method.DR}, Lambdas: []float64{1}, Seeds: []uint64{1, 2}, FitAux: hook}
	first, err := Run(context.Background(), exp, rc)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Run(context.Background(), exp, rc) // G and m from kept, not refit
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4 || len(kept) != 2 {
		t.Fatalf("hook called %d times for %d seeds, want 4 calls (2 seeds × 2 runs)", calls, len(kept))
	}
	for i := range first.Fits {
		if a, b := first.Fits[i].Metrics, second.Fits[i].Metrics; a != b {
			t.Errorf("fit %d: %+v with fitted G and m, %+v with kept ones", i, a, b)
		}
	}
}

// TestSimulationContinuousRuns runs the continuous-nuisance simulation, tiny, with a method
// that needs no auxiliary model and one that needs both: each trains on the joint MMD²
// with its per-seed scale and reports a finite training joint MMD² (two epochs: its value,
// not its accuracy, is what can be checked).
func TestSimulationContinuousRuns(t *testing.T) {
	exp := SimulationContinuous(SimulationSize{NTrain: 1000, NVal: 500, NTest: 500, Batch: 500, Epochs: 2, AuxEpochs: 2})
	out, err := Run(context.Background(), exp, RunConfig{Methods: []method.Method{method.Obs, method.DR}, Lambdas: []float64{1}, Seeds: []uint64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Fits) != 2 {
		t.Fatalf("%d fits, want 2", len(out.Fits))
	}
	for _, f := range out.Fits {
		if !(f.Metrics.TrainMMD > 0) || math.IsInf(f.Metrics.TrainMMD, 0) || f.Metrics.TrainMMDBy != method.Full {
			t.Errorf("%s: train joint MMD² %v by %v, want a finite value > 0 by full", f.Method, f.Metrics.TrainMMD, f.Metrics.TrainMMDBy)
		}
	}
	sp, err := exp.Data(1)
	if err != nil {
		t.Fatal(err)
	}
	zmap, scale, err := exp.nuisanceMap(sp)
	if err != nil || zmap == nil || !(scale > 0) {
		t.Errorf("the seed's kernel on Z %v, scale %v (%v): want a map and a positive scale", zmap, scale, err)
	}
}
