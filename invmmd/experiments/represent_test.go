package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// TestWithRepresentation checks the features variants' names: stored under the suffix,
// found again by Describe with Represent set (alone and after an objective's suffix), the
// logits leaving an experiment and its configuration record unchanged, and names that are
// no experiment's refused.
func TestWithRepresentation(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		check      func(train.Config) bool
	}{
		{"sim_feat", "sim", func(c train.Config) bool { return c.Represent == train.RepresentFeatures && !c.SelectClipped }},
		{"sim_mf075_feat", "sim_mf075", func(c train.Config) bool { return c.Represent == train.RepresentFeatures }},
		{"sim_robust_feat", "sim_robust", func(c train.Config) bool {
			return c.Represent == train.RepresentFeatures && c.SelectClipped && c.Normalisers == train.NormalisersTraining
		}},
	} {
		exp, ok := Studies().Describe(tc.name)
		if !ok || exp.Name != tc.name || !tc.check(exp.H) {
			t.Errorf("Studies().Describe(%q) = %q (found %v) with %+v", tc.name, exp.Name, ok, exp.H)
			continue
		}
		if exp.Paper != nil || exp.Figure.MMDOf != "the penultimate features" || !strings.Contains(exp.Notes[0], "representations_"+strings.TrimSuffix(tc.name, "_feat")+".md") {
			t.Errorf("%s: the paper's logit numbers (%v) or the figure's MMD label %q, or the note %q", tc.name, exp.Paper, exp.Figure.MMDOf, exp.Notes[0])
		}
		if !strings.HasPrefix(exp.Notes[0], "Representation: ") || !strings.Contains(exp.TrMMDNote(), "penultimate features") {
			t.Errorf("%s: notes %q, tr mmd note %q", tc.name, exp.Notes[0], exp.TrMMDNote())
		}
		s, _ := Studies().Owner(tc.name)
		v, ok := s.Sweep.variantNamed(tc.name)
		v.Represent = train.RepresentLogits
		if base, err := s.Sweep.VariantName(v); !ok || err != nil || base != tc.base {
			t.Errorf("the variant of %q on the logit is %q (%v, %v), want %q", tc.name, base, ok, err, tc.base)
		}
		cfg, err := ConfigOf(exp)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(cfg); !strings.Contains(string(b), `"Represent":"features"`) {
			t.Errorf("%s: the configuration record does not say the representation: %s", tc.name, b)
		}
	}
	for _, name := range []string{"sim_feat_feat", "_feat", "nothing_feat", "sim_feat_ntrain"} {
		if exp, found := Studies().Describe(name); found {
			t.Errorf("Studies().Describe(%q) found %q", name, exp.Name)
		}
	}
	paper, _ := Studies().Describe("sim")
	if got := WithRepresentation(paper, train.RepresentLogits); got.Name != "sim" || got.H.Represent != train.RepresentLogits {
		t.Errorf("the logits changed the experiment: %q, %+v", got.Name, got.H)
	}
	cfg, err := ConfigOf(paper)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(cfg); strings.Contains(string(b), "Represent") {
		t.Errorf("the paper's configuration record holds Represent: the committed records would change: %s", b)
	}
}

// representationComparison is RepresentationMarkdown of the fits RepresentationFits reads.
func representationComparison(dir, name string) (string, error) {
	fits, err := RepresentationFits(dir, name)
	if err != nil {
		return "", err
	}
	return RepresentationMarkdown(name, fits), nil
}

// TestRepresentationComparison writes the tables and records of a logit and a features
// run and checks the comparison's cells: test accuracy from the tables, the logit's MMD
// from the logit tables and from the features fits' records, the features' MMD, the count
// of capped fits; and that a features table without its record is an error.
func TestRepresentationComparison(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lambda float64, rows []results.Row, logit map[uint64]float64, capped uint64) {
		f, err := os.Create(results.TablePath(dir, name, lambda))
		if err != nil {
			t.Fatal(err)
		}
		if err := results.WriteCSV(f, rows); err != nil {
			t.Fatal(err)
		}
		f.Close()
		var fits []map[string]any
		for _, r := range rows {
			reason := train.StopPatience
			if r.Seed == capped {
				reason = train.StopMaxEpochs
			}
			l := lambda
			if r.Method == "none" {
				l = 0 // as Grid stores it
			}
			fits = append(fits, map[string]any{"Method": r.Method, "Lambda": l, "Seed": r.Seed,
				"Metrics": map[string]any{"TrainMMD": r.TrMMD, "TrainMMDLogit": logit[r.Seed]}, "History": map[string]any{"StopReason": reason}})
		}
		b, _ := json.Marshal(map[string]any{"Fits": fits})
		if err := os.WriteFile(filepath.Join(dir, name+"_config.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := representationComparison(dir, "toy"); err == nil || !strings.Contains(err.Error(), "no table of toy_feat") {
		t.Errorf("no tables: %v", err)
	}
	write("toy", 1, []results.Row{{Method: "none", Seed: 1, TrMMD: 0.2, TeAcc: 0.6}, {Method: "obs", Seed: 1, TrMMD: 0.05, TeAcc: 0.7},
		{Method: "full", Seed: 1, TrMMD: 0.01, TeAcc: 0.8}, {Method: "full", Seed: 2, TrMMD: 0.03, TeAcc: 0.82}}, nil, 0)
	write("toy_feat", 1, []results.Row{{Method: "none", Seed: 1, TrMMD: 0.3, TeAcc: 0.61}, {Method: "full", Seed: 1, TrMMD: 0.004, TeAcc: 0.7}, {Method: "full", Seed: 2, TrMMD: 0.006, TeAcc: 0.72}},
		map[uint64]float64{1: 0.25, 2: 0.15}, 2)
	fits, err := RepresentationFits(dir, "toy")
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != 6 || fits[0].Represent != "logit" || fits[3].Represent != "features" || fits[3].Method != "none" || fits[3].LogitMMD != 0.25 || fits[3].TrMMD != 0.3 || !fits[5].Capped || fits[4].Capped {
		t.Errorf("RepresentationFits: %+v", fits)
	}
	got, err := representationComparison(dir, "toy")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "obs") {
		t.Errorf("the comparison has obs, which only the logit tables have:\n%s", got)
	}
	for _, want := range []string{
		"| penalty on (toy) | λ | none | full |", // the features tables' methods only
		"| logit | 1 | 0.600 ± 0.000 | 0.810 ± 0.014 |\n| features | 1 | 0.610 ± 0.000 | 0.710 ± 0.014 |",
		"| logit | 1 | 0.200 ± 0.000 | 0.020 ± 0.014 |\n| features | 1 | 0.250 ± 0.000 | 0.200 ± 0.071 |",
		"acted on (σ by the median heuristic on the initial network's features, per fit):\n\n| penalty on (toy) | λ | none | full |\n|---|---|---|---|\n| features | 1 | 0.300 ± 0.000 | 0.005 ± 0.001 |\n\n",
		"epoch cap instead of stopping by patience: logit, λ = 1: 0 of 3; features, λ = 1: 1 of 3 (none, trained without a penalty, is the same fit under every setting).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the comparison lacks %q:\n%s", want, got)
		}
	}
	// A features fit recorded without its logit's MMD² is refused, not read as 0.
	b, _ := os.ReadFile(filepath.Join(dir, "toy_feat_config.json"))
	os.WriteFile(filepath.Join(dir, "toy_feat_config.json"), []byte(strings.ReplaceAll(string(b), `,"TrainMMDLogit":0.15`, "")), 0o644)
	if _, err := representationComparison(dir, "toy"); err == nil || !strings.Contains(err.Error(), "full, λ = 1, seed 2 in toy_feat_config.json has no TrainMMDLogit") {
		t.Errorf("a features fit without TrainMMDLogit: %v", err)
	}
	os.Remove(filepath.Join(dir, "toy_feat_config.json"))
	if _, err := representationComparison(dir, "toy"); err == nil || !strings.Contains(err.Error(), "toy_feat_config.json") {
		t.Errorf("a features table without its record: %v", err)
	}
}
