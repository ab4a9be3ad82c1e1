package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// TestObjectives checks the table of objectives: the paper's first and without a suffix,
// each other one named apart, stored under its suffix and found again by Describe with its
// training choices, and the paper's configuration record unchanged by the new fields.
func TestObjectives(t *testing.T) {
	if train.Objectives()[0].Name != "paper" || train.Objectives()[0].Suffix != "" {
		t.Fatalf("the first objective is %+v, want the paper's without a suffix", train.Objectives()[0])
	}
	seen := map[string]bool{}
	for _, o := range train.Objectives() {
		if seen[o.Name] || seen[o.Suffix] {
			t.Errorf("objective %q: name or suffix %q used twice", o.Name, o.Suffix)
		}
		seen[o.Name], seen[o.Suffix] = true, true
		if got, err := train.ObjectiveByName(o.Name); err != nil || got.Name != o.Name {
			t.Errorf("train.ObjectiveByName(%q) = %v, %v", o.Name, got.Name, err)
		}
	}
	if _, err := train.ObjectiveByName("cheat"); err == nil || !strings.Contains(err.Error(), "paper") {
		t.Errorf("an unknown objective: %v", err)
	}
	want := map[string]func(train.Config) bool{
		"sim_mf075_clip": func(c train.Config) bool {
			return c.Clip && !c.SelectClipped && c.Normalisers == train.NormalisersBatch
		},
		"sim_mf075_selclip": func(c train.Config) bool { return !c.Clip && c.SelectClipped },
		"sim_mf075_ntrain":  func(c train.Config) bool { return c.Normalisers == train.NormalisersTraining && !c.SelectClipped },
		"sim_robust":        func(c train.Config) bool { return c.Normalisers == train.NormalisersTraining && c.SelectClipped },
		"clinical_ntrain":   func(c train.Config) bool { return c.Normalisers == train.NormalisersTraining },
	}
	for name, ok := range want {
		exp, found := Studies().Describe(name)
		if !found || exp.Name != name || !ok(exp.H) {
			t.Errorf("Studies().Describe(%q) = %q (found %v) with %+v", name, exp.Name, found, exp.H)
		}
		if !strings.HasPrefix(exp.Notes[0], "Objective ") {
			t.Errorf("%s: the first note does not say its objective: %q", name, exp.Notes[0])
		}
	}
	for _, name := range []string{"sim_ntrain_ntrain", "nothing_ntrain", "_ntrain"} {
		if _, found := Studies().Describe(name); found {
			t.Errorf("Studies().Describe(%q) found an experiment", name)
		}
	}
	paper, _ := Studies().Describe("sim")
	cfg, err := ConfigOf(paper)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cfg)
	for _, field := range []string{"SelectClipped", "Normalisers"} {
		if strings.Contains(string(b), field) {
			t.Errorf("the paper objective's configuration record holds %s: the committed records would change", field)
		}
	}
	if WithObjective(paper, train.Objectives()[0]).Name != "sim" {
		t.Error("the paper's objective renamed the experiment")
	}
}

// TestDiagnoseRecordsTheFit diagnoses a quick simulation fit under two objectives and
// checks the rows and summaries against the traced steps.
func TestDiagnoseRecordsTheFit(t *testing.T) {
	if testing.Short() {
		t.Skip("trains G, m and two fits of h")
	}
	size := SimulationQuick
	size.NTrain, size.NVal, size.NTest, size.Batch, size.Epochs, size.AuxEpochs, size.SelectAfter = 2000, 1000, 1000, 500, 3, 3, 0
	exp := SimulationPaperSplit(size)
	ds, err := Diagnose(context.Background(), exp, method.DR, 5, 1, []train.Objective{train.Objectives()[0], train.Objectives()[3]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Objective != "paper" || ds[1].Objective != "train-norms" || ds[1].Experiment != "sim_mf075_ntrain" {
		t.Fatalf("diagnoses %v", ds)
	}
	for _, d := range ds {
		rows, err := d.Rows()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3*4 || len(rows) != d.History.Steps {
			t.Fatalf("%s: %d rows for %d steps", d.Objective, len(rows), d.History.Steps)
		}
		for i, r := range rows {
			if r.Step != i+1 || r.Objective != d.Objective || r.MMD2[0] != d.Steps[i].Strata[0] || r.PZ1[1] != d.Steps[i].Report.Strata[1].Mean[1] {
				t.Fatalf("%s: row %d is %+v", d.Objective, i, r)
			}
		}
		s := d.Summary()
		if s.Steps != len(rows) || s.StepsAbove1 > s.Steps || s.TrainAcc != d.Metrics.TrainAcc {
			t.Errorf("%s: summary %+v", d.Objective, s)
		}
		parts := s.BestValNLL
		for _, v := range s.BestValStrata {
			parts += 5 * v // the paper's and train-norms' objectives do not clip
		}
		if math.Abs(parts-s.BestVal) > 1e-9 || len(s.BestValStrata) != 2 {
			t.Errorf("%s: kept objective %v, its parts NLL %v + 5·%v = %v", d.Objective, s.BestVal, s.BestValNLL, s.BestValStrata, parts)
		}
	}
	if _, err := Diagnose(context.Background(), exp, method.None, 5, 1, nil, nil); err == nil {
		t.Error("a diagnosis of none, which has no penalty, ran")
	}
}

// TestCommittedCheckNotes checks that the notes committed with the textured-MNIST checks
// are the ones their experiments give now: a check's record must describe the network it
// trained (the -net wide record once described the standard CNN).
func TestCommittedCheckNotes(t *testing.T) {
	for _, name := range []string{"tmnist_net-wide", "tmnist_digits", "tmnist_fused", "tmnist_toned", "tmnist_brick_gravel"} {
		b, err := os.ReadFile(filepath.Join(committedTables, "checks", name+"_config.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct{ Notes []string }
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		exp, ok := Studies().Describe(name)
		if !ok {
			t.Fatalf("Studies().Describe(%q) found nothing", name)
		}
		if strings.Join(rec.Notes, "\n") != strings.Join(exp.Notes, "\n") {
			t.Errorf("%s: committed notes\n%s\nthe experiment's\n%s", name, strings.Join(rec.Notes, "\n"), strings.Join(exp.Notes, "\n"))
		}
	}
}

// TestObjectiveComparison builds the comparison of two objectives from small tables and
// checks its cells: mean ± sd of the test accuracy and the count of inverted fits.
func TestObjectiveComparison(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rows []results.Row) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := results.WriteCSV(f, rows); err != nil {
			t.Fatal(err)
		}
	}
	write("x_lambda5.csv", []results.Row{{Method: "none", Seed: 1, TeAcc: 0.6, TrAcc: 0.9}, {Method: "dr", Seed: 1, TeAcc: 0.2, TrAcc: 0.3},
		{Method: "dr", Seed: 2, TeAcc: 0.8, TrAcc: 0.8}, {Method: "obs", Seed: 1, TeAcc: 0.7, TrAcc: 0.75}})
	write("x_ntrain_lambda5.csv", []results.Row{{Method: "dr", Seed: 1, TeAcc: 0.8, TrAcc: 0.82}, {Method: "dr", Seed: 2, TeAcc: 0.82, TrAcc: 0.83}})
	md, err := ObjectiveComparison(dir, "x", 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| objective (x, λ = 5) | dr |\n",
		"| paper | 0.500 ± 0.424 [1/2] |",
		"| train-norms | 0.810 ± 0.014 [0/2] |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comparison lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "clip") || strings.Contains(md, "obs") {
		t.Errorf("an objective without a table, or a method no remedy ran, is listed:\n%s", md)
	}
	if err := os.Remove(filepath.Join(dir, "x_ntrain_lambda5.csv")); err != nil {
		t.Fatal(err)
	}
	if md, err := ObjectiveComparison(dir, "x", 5); err != nil || !strings.Contains(md, "| obs | dr |") {
		t.Errorf("the paper's table alone: %v\n%s", err, md)
	}
	if _, err := ObjectiveComparison(dir, "y", 5); err == nil {
		t.Error("a comparison without tables was made")
	}
}

// TestCommittedComparisons checks that the committed comparisons under figures/tables are
// what invmmd figures writes from the committed tables: each objectives_NAME_lambdaΛ.md is
// ObjectiveComparison's and representations_sim.md RepresentationMarkdown's.
func TestCommittedComparisons(t *testing.T) {
	for _, c := range []struct {
		name   string
		lambda float64
	}{{"sim_mf075", 5}, {"sim_mf075", 1}, {"sim", 5}, {"tmnist", 1}} {
		md, err := ObjectiveComparison(committedTables, c.name, c.lambda)
		if err != nil {
			t.Fatal(err)
		}
		file := fmt.Sprintf("objectives_%s_lambda%s.md", c.name, results.LambdaName(c.lambda))
		if committed, err := os.ReadFile(filepath.Join(committedTables, file)); err != nil || string(committed) != md {
			t.Errorf("figures/tables/%s is not what invmmd figures writes from the tables (%v)", file, err)
		}
	}
	fits, err := RepresentationFits(committedTables, "sim")
	if err != nil {
		t.Fatal(err)
	}
	md := RepresentationMarkdown("sim", fits)
	if committed, err := os.ReadFile(filepath.Join(committedTables, "representations_sim.md")); err != nil || string(committed) != md {
		t.Errorf("figures/tables/representations_sim.md is not what RepresentationMarkdown makes of the committed tables (rerun invmmd figures; %v):\n%s", err, md)
	}
}
