package train

import (
	"fmt"
	"strings"
)

// Objective is one way of turning a penalty's estimates into what training minimises and
// what selection compares: the paper's, or a remedy against estimates that an h can drive
// below 0, or that noisy normalisers blow up on one batch. Apply sets it in a Config.
type Objective struct {
	Name string // the value of -objective
	// Suffix is appended to an experiment's name when it is trained with the objective
	// ("" for the paper's), so that its results are stored apart and compared.
	Suffix string
	// Doc says in one sentence what changes, for notes and help.
	Doc   string
	apply func(*Config)
}

// Apply sets the objective's choices in c (Clip, SelectClipped, Normalisers).
func (o Objective) Apply(c *Config) { o.apply(c) }

// objectives is the table of objectives, the paper's first (Objectives).
var objectives = [...]Objective{
	{Name: "paper", Doc: "the paper's: NLL + λ·Σ_y estimate_y in training and in selection, normalisers from each batch's own rows",
		apply: func(c *Config) { c.Clip, c.SelectClipped, c.Normalisers = false, false, NormalisersBatch }},
	{Name: "clip", Suffix: "_clip", Doc: "each stratum's estimate clipped at 0, max(MMD²_y, 0), in training and in selection",
		apply: func(c *Config) { c.Clip, c.SelectClipped, c.Normalisers = true, false, NormalisersBatch }},
	{Name: "select-clip", Suffix: "_selclip", Doc: "trained on the raw estimate, the epoch selected by the objective with each stratum's estimate clipped at 0",
		apply: func(c *Config) { c.Clip, c.SelectClipped, c.Normalisers = false, true, NormalisersBatch }},
	{Name: "train-norms", Suffix: "_ntrain", Doc: "the normalisers P(Z=b|y)P(Z=b'|y) estimated once on every training row instead of on each batch's rows",
		apply: func(c *Config) { c.Clip, c.SelectClipped, c.Normalisers = false, false, NormalisersTraining }},
	{Name: "robust", Suffix: "_robust", Doc: "train-norms and select-clip together: normalisers from the training set, selection on the clipped objective",
		apply: func(c *Config) { c.Clip, c.SelectClipped, c.Normalisers = false, true, NormalisersTraining }},
}

// Objectives returns the objectives, the paper's first: a fresh slice, so that no caller
// can change the table. docs/training.md has the evidence on each.
func Objectives() []Objective { return append([]Objective(nil), objectives[:]...) }

// ObjectiveNames lists the objectives' names, comma-separated, for help texts.
func ObjectiveNames() string {
	names := make([]string, len(objectives))
	for i, o := range objectives {
		names[i] = o.Name
	}
	return strings.Join(names, ",")
}

// ObjectiveByName returns the objective called name.
func ObjectiveByName(name string) (Objective, error) {
	for _, o := range objectives {
		if o.Name == name {
			return o, nil
		}
	}
	return Objective{}, fmt.Errorf("train: objective %q, want one of %s", name, ObjectiveNames())
}
