package train

import (
	"fmt"
	"io"
	"math"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
)

// Config is how h is trained.
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
	// no gradient while an estimate is negative (see README, "Training choices").
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
	Progress    io.Writer        // where the progress bar goes; nil is quiet
	// Trace, when set, is called after every training step of h with the step's record
	// (StepTrace): the per-stratum estimates and what they rested on. It does not change
	// the fit.
	Trace func(StepTrace) `json:"-"`
	// fixedNorms are the normalisers from the training set (Normalisers), set by Fit.
	fixedNorms *invmmd.Normalisers
	// Backend runs the fit; nil means backend.Shared(). It is not part of the stored
	// configuration (an experiment records backend.Config() instead).
	Backend backends.Backend `json:"-"`
	// ZMap is the feature map ψ of a nuisance that is not binary; nil takes the auxiliary
	// models' (Aux.ZMap). With such a nuisance the penalty is the joint MMD² between
	// p(h, Z) and p(h)p(Z) (Estimator.Estimand is set to invmmd.JointMMD).
	ZMap invmmd.FeatureMap `json:"-"`
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
func (s NormaliserSource) String() string {
	if s == NormalisersBatch {
		return "batch"
	}
	return string(s)
}

// ParseNormaliserSource reads "batch" or "training" (the names String gives).
func ParseNormaliserSource(name string) (NormaliserSource, error) {
	switch name {
	case "batch", "":
		return NormalisersBatch, nil
	case "training":
		return NormalisersTraining, nil
	}
	return "", fmt.Errorf("train: normaliser source %q, want batch or training", name)
}

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

// Fit trains h on sp.Train with cfg, validating on sp.Val with the method's own estimator
// of the objective (NLL + λ·penalty), and returns the model at its best epoch. aux holds
// the frozen Ĝ and m̂; it may be nil for methods that need neither.
func Fit(sp dataset.Splits, aux *Aux, net models.Net, cfg Config) (*Model, *History, error) {
	if err := sp.Validate(); err != nil {
		return nil, nil, err
	}
	if err := cfg.Validate(sp.Train.Len()); err != nil {
		return nil, nil, err
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = sp.Train.Len()
	}
	m := cfg.Method
	if (m.NeedsG() || m.NeedsM()) && aux == nil {
		return nil, nil, fmt.Errorf("train: method %v needs the fitted auxiliary models (FitAux)", m)
	}
	if m.NeedsTrueG() && (sp.Train.GTrue == nil || sp.Val.GTrue == nil) {
		return nil, nil, fmt.Errorf("train: method %v needs the true G, which data set %q does not have (its missingness is not from a known rule)", m, sp.Train.Name)
	}
	b, err := backendOr(cfg.Backend)
	if err != nil {
		return nil, nil, err
	}
	if cfg.ZMap == nil && aux != nil {
		cfg.ZMap = aux.ZMap
	}
	cfg.Estimator = estimandFor(sp.Train, cfg.Estimator)
	k := sp.Train.NumClasses()
	if k > 2 {
		if _, ok := net.(models.MultiNet); !ok {
			return nil, nil, fmt.Errorf("train: a label of %d classes needs a network with %d outputs per row (a models.MultiNet such as models.MLP); %s has one", k, k, net.Describe())
		}
		if cfg.Penalty == PathFourier {
			return nil, nil, fmt.Errorf("train: the Fourier penalty path sums the kernel of one logit; a label of %d classes penalises %d logits: use the exact or auto path", k, k)
		}
		if cfg.Represent == RepresentFeatures {
			return nil, nil, fmt.Errorf("train: a label of %d classes penalises its %d logits; the penultimate features (Represent %q) are for a binary label", k, k, cfg.Represent)
		}
		cfg.Penalty = PathExact // the expansion is one-dimensional
	}
	sigma, err := cfg.representation(b, net, sp.Train)
	if err != nil {
		return nil, nil, err
	}
	trainRows, err := estimatorRows(sp.Train, aux, true, cfg.ZMap)
	if err != nil {
		return nil, nil, err
	}
	valRows, err := estimatorRows(sp.Val, aux, false, cfg.ZMap)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Normalisers == NormalisersTraining && m.Penalised() && cfg.Lambda > 0 && cfg.Estimator.Estimand == invmmd.ConditionalMMD {
		n, err := invmmd.NormalisersOf(trainRows, cfg.Estimator, m)
		if err != nil {
			return nil, nil, fmt.Errorf("train: normalisers from the training set: %w", err)
		}
		cfg.fixedNorms = &n
	}
	spec := fitSpec{
		name: "h (" + m.String() + ")", set: sp.Train, rows: allRows(sp.Train.Len()), target: sp.Train.Y,
		batch: cfg.BatchSize, epochs: cfg.Epochs, stop: stopRule{patience: cfg.Patience, selectAfter: cfg.SelectAfter}, lr: cfg.LearningRate, seed: cfg.Seed, progress: cfg.Progress,
		trace: cfg.Trace,
	}
	if k > 2 { // K logits trained by the softmax NLL of the one-hot label
		spec.heads = &headsSpec{k: k, cols: k, target: oneHot(sp.Train.Y, k)}
	}
	if m.Penalised() {
		if spec.penalty, err = newPenaltySpec(cfg, trainRows, spec.rows[:cfg.BatchSize]); err != nil {
			return nil, nil, err
		}
	}
	if spec.validate, spec.valLast, err = validationObjective(sp.Val, valRows, cfg); err != nil {
		return nil, nil, err
	}
	model, hist, err := fit(b, net, spec)
	if err != nil {
		return nil, nil, err
	}
	model.Represent, model.Bandwidth = cfg.Represent, sigma
	hist.Represent, hist.Bandwidth = string(cfg.Represent), sigma // both empty for the logits
	return model, hist, nil
}

// representation prepares a features penalty (Represent): it checks that net exposes its
// features and fixes the kernel's bandwidth in c.Estimator (featureBandwidth), returning
// it; for the logits it returns 0 and changes nothing.
func (c *Config) representation(b backends.Backend, net models.Net, train *dataset.Set) (float64, error) {
	if c.Represent != RepresentFeatures {
		return 0, nil
	}
	if _, err := featureNet(net); err != nil {
		return 0, err
	}
	sigma, err := featureBandwidth(newModel(b, net, min(c.BatchSize, train.Len())), train, c.Estimator.Bandwidth)
	if err != nil {
		return 0, err
	}
	c.Estimator.Bandwidth = sigma
	return sigma, nil
}

// newPenaltySpec returns the training penalty of cfg's method on the estimator rows of
// the training set, its number of design columns read from a design of the rows first.
func newPenaltySpec(cfg Config, rows invmmd.Rows, first []int) (*penaltySpec, error) {
	tol := cfg.FourierTol
	if tol == 0 {
		tol = TrainingFourierTol
	}
	p := &penaltySpec{method: cfg.Method, lambda: cfg.Lambda, rows: rows, opts: cfg.Estimator, path: cfg.Penalty, tol: tol, clip: cfg.Clip,
		norms: cfg.fixedNorms, features: cfg.Represent == RepresentFeatures, seed: cfg.Seed}
	if p.features {
		p.rff = rffPenalty(cfg.Penalty, len(first))
	}
	// A design's column count depends only on the method and the options.
	d0, err := invmmd.NewDesign(rows.Subset(first), cfg.Estimator, cfg.Method)
	if err != nil {
		return nil, fmt.Errorf("train: training rows: %w", err)
	}
	p.columns = d0.NumColumns()
	return p, nil
}

// validationObjective returns h's validation objective on the set val with estimator rows
// rows: the mean NLL, plus λ times the sum of the method's stratum estimates (each clipped
// at 0 with cfg.Clip) when the method is penalised and λ > 0.
// The last evaluation's NLL and raw per-stratum estimates are left in last.
func validationObjective(val *dataset.Set, rows invmmd.Rows, cfg Config) (objective func(*Model) (float64, error), last *valRecord, err error) {
	// The validation design does not depend on h: build it once.
	var design *invmmd.Design
	if cfg.Method.Penalised() && cfg.Lambda > 0 {
		if design, err = invmmd.NewDesign(rows, cfg.Estimator, cfg.Method); err != nil {
			return nil, nil, fmt.Errorf("train: validation rows: %w", err)
		}
		if cfg.fixedNorms != nil {
			if err := design.UseNormalisers(*cfg.fixedNorms); err != nil {
				return nil, nil, fmt.Errorf("train: validation rows: %w", err)
			}
		}
		design.TrainingGuard() // as in training
	}
	last = &valRecord{}
	return func(model *Model) (float64, error) {
		h, err := model.LogitsRep(val)
		if err != nil {
			return 0, err
		}
		obj := labelNLL(h, val.Y)
		last.nll, last.strata = obj, nil
		if design != nil {
			rep := h
			if cfg.Represent == RepresentFeatures {
				if rep, err = model.Features(val); err != nil {
					return 0, err
				}
			}
			res, err := design.Evaluate(rep, invmmd.AutoSums{})
			if err != nil {
				return 0, err
			}
			last.strata = append([]float64(nil), res[0].Strata...)
			for _, v := range res[0].Strata {
				if cfg.Clip || cfg.SelectClipped {
					v = math.Max(v, 0)
				}
				obj += cfg.Lambda * v
			}
		}
		return obj, nil
	}, last, nil
}

// valRecord is what the last evaluation of h's validation objective found: the NLL and the
// method's raw per-stratum estimates (nil without a penalty).
type valRecord struct {
	nll    float64
	strata []float64
}

// estimatorRows returns the estimator's inputs for set s: labels, nuisance, indicator, the
// true G when known and aux's predictions for the training or validation split when fitted.
func estimatorRows(s *dataset.Set, aux *Aux, train bool, zmap invmmd.FeatureMap) (invmmd.Rows, error) {
	var p *Pred
	if aux != nil {
		p = &aux.Val
		if train {
			p = &aux.Train
		}
	}
	return RowsFor(s, p, zmap)
}

// RowsFor returns the estimators' inputs for the rows of s: labels, nuisance, indicator,
// the true G when known and the auxiliary predictions p when given (nil: none). A nuisance
// that is not binary comes as its features ψ(Z) under zmap (required then), with m̂ from
// p.MPsi; estimate it with the options estimandFor sets (the joint MMD²).
func RowsFor(s *dataset.Set, p *Pred, zmap invmmd.FeatureMap) (invmmd.Rows, error) {
	r := invmmd.Rows{Y: s.Y, Z: s.Z, Delta: s.Delta, GTrue: s.GTrue}
	if p != nil {
		r.G, r.M, r.MPsi = p.G, p.M, p.MPsi
	}
	if s.Nuisance.Kind == dataset.BinaryZ {
		return r, nil
	}
	if zmap == nil {
		return r, fmt.Errorf("train: the nuisance of %s is %v and no feature map was given (Config.ZMap or the auxiliary models')", s.Name, s.Nuisance)
	}
	psi, err := invmmd.Apply(zmap, s.Z)
	if err != nil {
		return r, fmt.Errorf("train: %s: %w", s.Name, err)
	}
	r.Z, r.M, r.Psi = nil, nil, psi
	return r, nil
}

// estimandFor returns opts with the joint estimand when s's nuisance is not binary (the
// MMD² between the groups of Z exists only for a binary Z) and with s's number of label
// classes when it has more than two.
func estimandFor(s *dataset.Set, opts invmmd.Options) invmmd.Options {
	if s.Nuisance.Kind != dataset.BinaryZ {
		opts.Estimand = invmmd.JointMMD
	}
	if k := s.NumClasses(); k > 2 {
		opts.Classes = k // one stratum per class
	}
	return opts
}

func allRows(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

// meanNLL is the mean Bernoulli negative log-likelihood of targets y under logits h, over
// the rows where w is 1 (all rows when w is nil).
func meanNLL(h, y, w []float64) float64 {
	s, n := 0.0, 0.0
	for i, v := range h {
		if w != nil && w[i] == 0 {
			continue
		}
		// softplus(v) − y·v, computed stably.
		sp := math.Max(v, 0) + math.Log1p(math.Exp(-math.Abs(v)))
		s += sp - y[i]*v
		n++
	}
	return s / n
}
