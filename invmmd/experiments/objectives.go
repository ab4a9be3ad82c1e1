package experiments

import (
	"strings"

	"github.com/invmmd/invmmd/invmmd/train"
)

// WithObjective returns exp trained with objective o (train.Objectives): its name suffixed
// (its results are stored apart), its title and notes saying so, its h configuration
// changed. The paper's objective returns exp unchanged.
func WithObjective(exp Experiment, o train.Objective) Experiment {
	if o.Suffix == "" {
		return exp
	}
	exp.Name += o.Suffix
	exp.Title += ", " + o.Name
	o.Apply(&exp.H)
	exp.Notes = append([]string{"Objective " + o.Name + ": " + o.Doc + " (the paper's objective is in the tables without the " + o.Suffix + " suffix)."}, exp.Notes...)
	return exp
}

// SplitObjective splits a stored name into the name of the experiment it was made from
// and the objective whose suffix it carries (the paper's when none): sim_mf075_ntrain gives
// sim_mf075 and train-norms.
func SplitObjective(name string) (string, train.Objective) {
	for _, o := range train.Objectives[1:] {
		if base, ok := strings.CutSuffix(name, o.Suffix); ok && base != "" {
			return base, o
		}
	}
	return name, train.Objectives[0]
}
