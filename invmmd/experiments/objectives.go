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

// FeaturesSuffix is appended to an experiment's name when its penalty acts on h's
// penultimate features (train.RepresentFeatures) instead of the logit, so that its results
// are stored apart: sim_feat, sim_ntrain_feat.
const FeaturesSuffix = "_feat"

// WithRepresentation returns exp with its penalty on representation r: for the features,
// its name suffixed with FeaturesSuffix, its title and notes saying so, its h
// configuration's Represent set, and without the paper's numbers (the paper penalised the
// logit; its train MMD² is of the logit). The logits, the paper's, return exp unchanged.
func WithRepresentation(exp Experiment, r train.Representation) Experiment {
	if r != train.RepresentFeatures {
		return exp
	}
	exp.Name += FeaturesSuffix
	exp.Title += ", penalty on the penultimate features"
	exp.H.Represent = r
	// The paper penalised the logit: its numbers (its train MMD² is of the logit) are no
	// reference for these tables; RepresentationMarkdown sets them next to ours.
	exp.Paper = nil
	exp.Figure.MMDOf = "the penultimate features"
	exp.MMDNote = strings.TrimSuffix(exp.TrMMDNote(), ".") + ", computed on h's penultimate features (the layer the penalty acted on) with the kernel's σ by the median heuristic on the initial network's training features."
	exp.Notes = append([]string{"Representation: the MMD penalty, its validation objective and the tr mmd row act on h's penultimate layer (the last hidden layer's outputs) with the Gaussian kernel exp(−‖f − f'‖²/(2σ²)), σ by the median heuristic on the initial network's training features, as DomainBed's MMD penalises the featurizer's output; the paper penalises the logit (the tables without the " + FeaturesSuffix + " suffix), so its numbers are left out here: representations_" + strings.TrimSuffix(exp.Name, FeaturesSuffix) + ".md compares the two."}, exp.Notes...)
	return exp
}
