package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/sim"
	"github.com/invmmd/invmmd/invmmd/train"
)

// toyStudy is an experiment that only the tests know: a few hundred simulated rows, small
// networks, a few epochs, one fit in its quick sweep; seconds. Appended to the study list,
// it is the main job's last step.
func toyStudy() experiments.Study {
	return experiments.NewSweep(experiments.SweepSpec{
		Name:    "toy",
		Summary: "a toy experiment that only the tests register",
		Build: func(quick bool, batch int, _ any) (experiments.Experiment, error) {
			return experiments.Experiment{
				Name:  "toy",
				Title: "Toy simulation",
				Data: func(seed uint64) (dataset.Splits, error) {
					return sim.Generate(sim.Config{NTrain: 400, NVal: 200, NTest: 200, Seed: seed})
				},
				Net:    func(_ train.Role, seed uint64) models.Net { return models.MLP{Hidden: []int{8}, Seed: seed} },
				H:      train.Config{Epochs: 3, LearningRate: 1e-2, Estimator: invmmd.Options{MainFraction: 1}},
				Aux:    train.AuxConfig{Epochs: 3, LearningRate: 1e-2},
				Size:   "toy",
				Figure: results.FigureHints{Ceiling: sim.InvariantAccuracy(sim.DefaultSigmaX), CeilingWhat: "invariant h*"},
				Notes:  []string{"A toy: 400 / 200 / 200 rows, three epochs."},
			}, nil
		},
		Sweep: experiments.RunConfig{Methods: []method.Method{method.None, method.DR}, Lambdas: []float64{1}, Seeds: []uint64{1, 2}},
		Quick: experiments.RunConfig{Methods: []method.Method{method.DR}, Lambdas: []float64{1}, Seeds: []uint64{1}},
		Main:  []experiments.MainRun{{}},
	})
}

// registerToy appends the toy experiment to the command line's studies, as a program with
// a study of its own does; TestMain calls it in the test process and in the shard
// processes the tests start.
func registerToy() {
	studies = append(experiments.Studies(), toyStudy())
	if err := studies.Check(); err != nil {
		panic(err)
	}
}

// TestRegisteredExperimentRunsEverywhere: an experiment appended to the study list, and
// nowhere else, is a command, the main job's last step, runs there (in shard processes,
// then merged), and merge and figures know it: they rebuild its tables and figures to the
// byte.
func TestRegisteredExperimentRunsEverywhere(t *testing.T) {
	_, usage, _ := run(t, "help")
	if !regexp.MustCompile(`\n  toy +a toy experiment that only the tests register\n`).MatchString(usage) {
		t.Errorf("the command list lacks the toy:\n%s", usage)
	}
	// The main job's last step, after the project's.
	steps := studies.MainJob(false)
	if last := steps[len(steps)-1]; last.Name != "toy" || len(steps) != len(experiments.Studies().MainJob(false))+1 {
		t.Errorf("main job %v: want the project's steps, then toy", steps)
	}
	if _, help, _ := run(t, "all", "-h"); !strings.Contains(help, ", toy,\n") {
		t.Errorf("all -h does not list the toy last among the main job's steps:\n%s", help)
	}
	if msg, stdout, _ := run(t, "toy", "-quick", "-check", "-out", t.TempDir()); msg != "" || !strings.HasPrefix(stdout, "toy: 1 fits in all;") {
		t.Errorf("toy -quick -check: %q, stdout %q; want its quick sweep's one fit", msg, stdout)
	}

	dir := t.TempDir()
	msg, _, stderr := run(t, "all", "-quick", "-jobs", "2", "-experiments", "toy", "-out", dir)
	if msg != "" {
		t.Fatalf("all -quick -experiments toy: %s\n%s", msg, stderr)
	}
	rows, err := results.ReadCSVFile(results.TablePath(filepath.Join(dir, "tables"), "toy", 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Method != "dr" || rows[0].Seed != 1 {
		t.Errorf("toy's table: %+v, want one row, dr seed 1", rows)
	}
	figs := []string{"toy_lambda1.png", "toy_lambda1.svg"}
	for _, f := range append([]string{"logs/toy.shard1.log", "logs/toy.shard2.log", "fits/toy/dr_lambda1_seed1.json"}, figs...) {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || (st.Size() == 0 && !strings.HasPrefix(f, "logs")) {
			t.Errorf("%s: %v", f, err)
		}
	}
	if svg, _ := os.ReadFile(filepath.Join(dir, "toy_lambda1.svg")); !bytes.Contains(svg, []byte("invariant h*")) {
		t.Error("the toy's figure lacks the ceiling its figure hints give")
	}

	// merge rebuilds the tables and figures from the fits alone, to the byte.
	tables := readTables(t, dir)
	drawn := map[string][]byte{}
	for _, f := range figs {
		drawn[f], _ = os.ReadFile(filepath.Join(dir, f))
		os.Remove(filepath.Join(dir, f))
	}
	os.RemoveAll(filepath.Join(dir, "tables"))
	if msg, stdout, stderr := run(t, "merge", "-out", dir); msg != "" || !strings.Contains(stdout, "toy: wrote") {
		t.Fatalf("merge: %q\n%s\n%s", msg, stdout, stderr)
	}
	for name, want := range tables {
		if got := readTables(t, dir)[name]; got != want {
			t.Errorf("merge: %s differs from the main job's", name)
		}
	}
	for f, want := range drawn {
		if got, _ := os.ReadFile(filepath.Join(dir, f)); len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("merge: %s differs from the main job's (%d → %d bytes)", f, len(want), len(got))
		}
	}
	// figures redraws them from the tables.
	checkRedrawn(t, dir, figs...)
}
