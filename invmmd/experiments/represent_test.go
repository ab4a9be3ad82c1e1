package experiments

import (
	"encoding/json"
	"strings"
	"testing"

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
		exp, ok := Describe(tc.name)
		if !ok || exp.Name != tc.name || !tc.check(exp.H) {
			t.Errorf("Describe(%q) = %q (found %v) with %+v", tc.name, exp.Name, ok, exp.H)
			continue
		}
		if !strings.HasPrefix(exp.Notes[0], "Representation: ") || !strings.Contains(exp.TrMMDNote(), "penultimate features") {
			t.Errorf("%s: notes %q, tr mmd note %q", tc.name, exp.Notes[0], exp.TrMMDNote())
		}
		if base, r := SplitRepresentation(tc.name); base != tc.base || r != train.RepresentFeatures {
			t.Errorf("SplitRepresentation(%q) = %q, %q", tc.name, base, r)
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
		if exp, found := Describe(name); found {
			t.Errorf("Describe(%q) found %q", name, exp.Name)
		}
	}
	paper, _ := Describe("sim")
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
