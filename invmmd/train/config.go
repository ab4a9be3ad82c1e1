package train

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// Config is how h is trained: the hyperparameters of one fit, and nothing else, so that it
// is what an experiment's configuration record (NAME_config.json, its "H") stores and
// compares. What a fit runs with but does not depend on — the backend, the progress
// display, hooks, the nuisance's feature map — is its Runtime; what Fit derives from the
// data (the full batch's size, the features' bandwidth, the training set's normalisers)
// stays inside the fit and is reported in History, never written back here.
type Config struct {
	Method    method.Method
	Lambda    float64 // weight λ of the penalty (eq. (4)); ignored by None
	BatchSize int     // rows per step, each epoch dropping its incomplete last batch; 0 means every training row (full batch)
	Epochs    int     // the cap on epochs; early stopping (Patience) usually ends training first
	// Patience stops training once this many epochs have brought no better validation
	// objective than the best kept one (History.StopReason records which rule ended a
	// fit). 0 trains for Epochs.
	Patience int
	// SelectAfter is the number of epochs trained before selection starts: the first
	// SelectAfter epochs are never kept. At λ = 5 an early, nearly flat h has a validation
	// penalty near 0 that can outweigh its worse likelihood (without it, seed 2 of the
	// simulation kept epoch 7 of 60, with train accuracy 0.68).
	SelectAfter  int
	LearningRate float64 // Adam's step size
	Seed         uint64  // initial weights and batch order
	// Estimator sets the kernel bandwidth, the normaliser/main split and the guards of the
	// penalty, in training and in validation.
	Estimator invmmd.Options
	Penalty   PenaltyPath // how the graph sums the kernel; Auto by default
	// Represent is the layer of h that the penalty acts on, in training, validation and
	// evaluation: the logit, the paper's (the zero value), or the penultimate features of a
	// models.FeatureNet (RepresentFeatures). For features the kernel's bandwidth is
	// Estimator.Bandwidth when set, otherwise the median heuristic on the initial
	// network's training features (see Model.Bandwidth), and the training step sums the
	// kernel exactly, or by random Fourier features on PathFourier or once a batch holds
	// RFFBatchFactor times their number on PathAuto.
	Represent Representation `json:",omitempty"`
	// Clip trains and validates on max(MMD²_y, 0) per stratum instead of the raw
	// estimate (the paper uses the raw estimate). MMD² is never negative, but the DR
	// estimate of eq. (9) can be (its pair weights are indefinite) and the optimiser can drive it far
	// below 0 by fitting h to the weights; clipping removes that incentive, at the price of
	// no gradient while an estimate is negative (docs/training.md).
	Clip bool
	// SelectClipped selects the epoch by the validation objective with max(MMD²_y, 0) per
	// stratum while training on the raw estimate: an epoch whose validation estimate is
	// far below 0 then cannot win the selection. Clip implies it.
	SelectClipped bool `json:",omitempty"`
	// Normalisers says where the penalty's normalisers N(b, b') come from, in training and
	// in validation: each batch's first (1 − MainFraction) rows, the paper's (the zero
	// value), or the whole training set, once (NormalisersTraining).
	Normalisers NormaliserSource `json:",omitempty"`
	FourierTol  float64          // per-pair kernel error of the Fourier path; 0 means TrainingFourierTol
}

// NormaliserSource says where a penalty's normalisers N(b, b') = P(Z = b | y)P(Z = b' | y)
// come from (Config.Normalisers).
type NormaliserSource string

const (
	// NormalisersBatch estimates them on each batch's first (1 − MainFraction) rows
	// (appendix B.1 of the paper; every row when MainFraction is 1).
	NormalisersBatch NormaliserSource = ""
	// NormalisersTraining estimates them once on every training row by the method's own
	// estimator (invmmd.NormalisersOf) and uses them for every batch and for validation;
	// each batch's rows then serve the main terms only (its first 1 − MainFraction rows are
	// unused). See invmmd.Normalisers for why.
	NormalisersTraining NormaliserSource = "training"
)

// String names the source: "batch" or "training".
func (s NormaliserSource) String() string { return cmp.Or(string(s), "batch") }

// Validate checks the configuration against a training set of n rows.
func (c Config) Validate(n int) error {
	switch {
	case !c.Method.Valid():
		return fmt.Errorf("train: unknown method %d", int(c.Method))
	case c.Lambda < 0 || math.IsNaN(c.Lambda) || math.IsInf(c.Lambda, 0):
		return fmt.Errorf("train: λ = %v, want a finite value ≥ 0", c.Lambda)
	case c.BatchSize < 2 && c.BatchSize != 0:
		return fmt.Errorf("train: batch size %d, want at least 2 (or 0 for full batch)", c.BatchSize)
	case c.BatchSize > n:
		return fmt.Errorf("train: batch size %d is larger than the %d training rows", c.BatchSize, n)
	case c.Epochs < 1:
		return fmt.Errorf("train: %d epochs, want at least 1", c.Epochs)
	case c.Patience < 0:
		return fmt.Errorf("train: patience %d, want ≥ 0", c.Patience)
	case c.SelectAfter < 0 || c.SelectAfter >= c.Epochs:
		return fmt.Errorf("train: selection after %d epochs of %d, want 0 ≤ SelectAfter < Epochs", c.SelectAfter, c.Epochs)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("train: learning rate %v, want a finite value > 0", c.LearningRate)
	case c.Penalty < PathAuto || c.Penalty > PathFourier:
		return fmt.Errorf("train: unknown penalty path %d", int(c.Penalty))
	case c.Normalisers != NormalisersBatch && c.Normalisers != NormalisersTraining:
		return fmt.Errorf("train: normaliser source %q, want batch or training", string(c.Normalisers))
	case c.FourierTol < 0:
		return fmt.Errorf("train: Fourier tolerance %v, want ≥ 0", c.FourierTol)
	case !c.Represent.valid():
		return fmt.Errorf("train: representation %q, want logits or features", string(c.Represent))
	}
	_, err := c.Estimator.Resolved()
	return err
}

// AuxConfig is how the auxiliary models G and m are fit (FitAux): their hyperparameters,
// as an experiment's configuration record stores them (its "Aux"). What the fits run with
// is their Runtime.
type AuxConfig struct {
	BatchSize int // rows per step (0: full batch); m's batches never exceed its observed rows
	Epochs    int // the cap on epochs; Patience usually ends training first
	// Patience stops a fit once this many epochs have brought no better validation NLL
	// (FitReport.StopReason says which rule ended it). 0 trains for Epochs.
	Patience     int
	LearningRate float64
	Seed         uint64  // G uses Seed, m uses Seed+1 (the network's seed and the batch order)
	GFloor       float64 // for the count of floored rows in the report; 0 means invmmd.DefaultGFloor
	// Roles are the models to fit, RoleG and RoleM; empty means both. A caller that has G
	// (or m) from elsewhere fits only the other, so that no model is fitted that is not
	// used (its report and its warnings would speak of a model nobody reads).
	Roles []Role `json:",omitempty"`
}

// fits reports whether the configuration fits the model of role r.
func (c AuxConfig) fits(r Role) bool { return len(c.Roles) == 0 || slices.Contains(c.Roles, r) }

// validate checks the configuration before any fit.
func (c AuxConfig) validate() error {
	if c.Epochs < 1 || c.Patience < 0 || !(c.LearningRate > 0) || (c.BatchSize < 2 && c.BatchSize != 0) {
		return fmt.Errorf("train: auxiliary config (epochs %d, patience %d, learning rate %v, batch %d): want epochs ≥ 1, patience ≥ 0, learning rate > 0, batch ≥ 2 (or 0 for full batch)",
			c.Epochs, c.Patience, c.LearningRate, c.BatchSize)
	}
	return nil
}

// Runtime is what a fit runs with besides its hyperparameters (Config, AuxConfig): the
// backend, where progress goes, the hooks that watch or steer the loop, and what the
// caller knows of the data that the fit needs but no configuration record can hold (the
// feature map of a nuisance that is not binary, the true m of a simulation). None of it
// is stored with results: an experiment records backend.Config() instead of the backend.
// The zero value runs quietly on backend.Shared() with the built-in hooks alone.
type Runtime struct {
	// Backend runs the fit; nil means backend.Shared().
	Backend backends.Backend
	// Progress is where the progress bar goes (ProgressBar); nil is quiet.
	Progress io.Writer
	// Hooks are called by the fit's loop after every step, after every epoch and at its
	// end, in order, after the built-in ones of the configuration (SelectBest,
	// EarlyStopping, then ProgressBar): e.g. Trace, a hook that stops the fit, or one
	// that records what it sees. A hook's error ends the fit with it.
	Hooks []Hook
	// ZMap is the feature map ψ of a nuisance that is not binary (invmmd.NewMap of the
	// training Z). FitAux requires it then: m is fitted as a multi-output network and
	// m̂ = Ê[ψ(Z) | X, Y] comes as Pred.MPsi. Fit takes the auxiliary models' (Aux.ZMap)
	// when it is nil; with such a nuisance the penalty is the joint MMD² between p(h, Z)
	// and p(h)p(Z) (appendix H). Ignored for a binary Z.
	ZMap invmmd.FeatureMap
	// BayesM, read by FitAux alone, returns the true P(Z = 1 | X, Y) of each row of a set
	// (its features without the label column, as the data built them) when the data know
	// it (the simulation: sim.TrueMOf); m's report then shows the Bayes NLL next to m̂'s.
	BayesM func(s *dataset.Set) []float64
}

// backend returns the runtime's backend, or the process's shared one when it has none.
func (rt Runtime) backend() (backends.Backend, error) {
	if rt.Backend != nil {
		return rt.Backend, nil
	}
	return backend.Shared()
}

// Objective is one way of turning a penalty's estimates into what training minimises and
// what selection compares: the paper's, or a remedy against estimates that an h can drive
// below 0, or that noisy normalisers blow up on one batch. Apply sets it in a Config.
type Objective struct {
	Name string // the value of -objective
	// Suffix is appended to an experiment's name when it is trained with the objective
	// ("" for the paper's), so that its results are stored apart and compared.
	Suffix string
	// Doc says in one sentence what changes, for notes and help.
	Doc string
	// What Apply sets: Config.Clip, Config.SelectClipped and Config.Normalisers.
	clip, selectClipped bool
	normalisers         NormaliserSource
}

// Apply sets the objective's choices in c (Clip, SelectClipped, Normalisers).
func (o Objective) Apply(c *Config) {
	c.Clip, c.SelectClipped, c.Normalisers = o.clip, o.selectClipped, o.normalisers
}

// objectives is the table of objectives, the paper's first (Objectives).
var objectives = [...]Objective{
	{Name: "paper", Doc: "the paper's: NLL + λ·Σ_y estimate_y in training and in selection, normalisers from each batch's own rows"},
	{Name: "clip", Suffix: "_clip", Doc: "each stratum's estimate clipped at 0, max(MMD²_y, 0), in training and in selection", clip: true},
	{Name: "select-clip", Suffix: "_selclip", Doc: "trained on the raw estimate, the epoch selected by the objective with each stratum's estimate clipped at 0",
		selectClipped: true},
	{Name: "train-norms", Suffix: "_ntrain", Doc: "the normalisers P(Z=b|y)P(Z=b'|y) estimated once on every training row instead of on each batch's rows",
		normalisers: NormalisersTraining},
	{Name: "robust", Suffix: "_robust", Doc: "train-norms and select-clip together: normalisers from the training set, selection on the clipped objective",
		selectClipped: true, normalisers: NormalisersTraining},
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
