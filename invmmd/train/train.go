package train

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
)

// plan is what Fit derives from its configuration and the data before the first step,
// kept inside the fit so that the Config it was given stays the record of what was asked:
// the batch size (the full batch's when 0), the estimator's options with the estimand of
// the nuisance, the label's classes and the features' bandwidth, the penalty path, the
// nuisance's feature map and the training set's normalisers (Config.Normalisers).
type plan struct {
	Config                     // the hyperparameters, BatchSize, Estimator and Penalty resolved
	zmap   invmmd.FeatureMap   // the runtime's, or the auxiliary models'
	norms  *invmmd.Normalisers // from the training set, with NormalisersTraining
	sigma  float64             // the features' bandwidth (Represent features), 0 for the logits
	k      int                 // the label's classes
}

// Fit trains h on sp.Train with the hyperparameters cfg, validating on sp.Val with the
// method's own estimator of the objective (NLL + λ·penalty, eq. (4)), and returns the
// model at its best epoch (SelectBest) with the fit's record. aux holds the frozen Ĝ and
// m̂; it may be nil for methods that need neither. rt says what the fit runs with: the
// backend, the progress display and hooks (Runtime). ctx is checked before every step:
// once it is done, Fit returns within a step with an error wrapping ctx.Err().
func Fit(ctx context.Context, sp dataset.Splits, aux *Aux, net models.Net, cfg Config, rt Runtime) (*Model, *History, error) {
	if err := sp.Validate(); err != nil {
		return nil, nil, err
	}
	if err := cfg.Validate(sp.Train.Len()); err != nil {
		return nil, nil, err
	}
	m := cfg.Method
	if (m.NeedsG() || m.NeedsM()) && aux == nil {
		return nil, nil, fmt.Errorf("train: method %v needs the fitted auxiliary models (FitAux)", m)
	}
	if m.NeedsTrueG() && (sp.Train.GTrue == nil || sp.Val.GTrue == nil) {
		return nil, nil, fmt.Errorf("train: method %v needs the true G, which data set %q does not have (its missingness is not from a known rule)", m, sp.Train.Name)
	}
	b, err := rt.backend()
	if err != nil {
		return nil, nil, err
	}
	p, err := newPlan(b, sp, aux, net, cfg, rt)
	if err != nil {
		return nil, nil, err
	}
	trainRows, err := RowsFor(sp.Train, aux.split(0), p.zmap)
	if err != nil {
		return nil, nil, err
	}
	valRows, err := RowsFor(sp.Val, aux.split(1), p.zmap)
	if err != nil {
		return nil, nil, err
	}
	if p.Normalisers == NormalisersTraining && m.Penalised() && p.Lambda > 0 && p.Estimator.Estimand == invmmd.ConditionalMMD {
		n, err := invmmd.NormalisersOf(trainRows, p.Estimator, m)
		if err != nil {
			return nil, nil, fmt.Errorf("train: normalisers from the training set: %w", err)
		}
		p.norms = &n
	}
	spec := fitSpec{
		name: "h (" + m.String() + ")", set: sp.Train, rows: allRows(sp.Train.Len()), target: sp.Train.Y,
		batch: p.BatchSize, epochs: p.Epochs, patience: p.Patience, selectAfter: p.SelectAfter, lr: p.LearningRate, seed: p.Seed,
		rt: rt,
	}
	if p.k > 2 { // K logits trained by the softmax NLL of the one-hot label
		spec.heads = &headsSpec{k: p.k, cols: p.k, target: oneHot(sp.Train.Y, p.k)}
	}
	if m.Penalised() {
		if spec.penalty, err = newPenaltySpec(p, trainRows, spec.rows[:p.BatchSize]); err != nil {
			return nil, nil, err
		}
	}
	if spec.validate, spec.valLast, err = validationObjective(sp.Val, valRows, p); err != nil {
		return nil, nil, err
	}
	model, hist, err := fit(ctx, b, net, spec)
	if err != nil {
		return nil, nil, err
	}
	model.Represent, model.Bandwidth = p.Represent, p.sigma
	hist.Represent, hist.Bandwidth = string(p.Represent), p.sigma // both empty for the logits
	return model, hist, nil
}

// newPlan resolves what cfg leaves to the data (plan): the full batch, the estimand of
// the nuisance and the label's classes, the path a label of K > 2 classes needs, the
// nuisance's feature map and the features' bandwidth, checking net against the label.
func newPlan(b backends.Backend, sp dataset.Splits, aux *Aux, net models.Net, cfg Config, rt Runtime) (*plan, error) {
	p := &plan{Config: cfg, zmap: rt.ZMap, k: sp.Train.NumClasses()}
	p.BatchSize = cmp.Or(p.BatchSize, sp.Train.Len())
	if p.zmap == nil && aux != nil {
		p.zmap = aux.ZMap
	}
	p.Estimator = estimandFor(sp.Train, p.Estimator)
	if k := p.k; k > 2 {
		if _, ok := net.(models.MultiNet); !ok {
			return nil, fmt.Errorf("train: a label of %d classes needs a network with %d outputs per row (a models.MultiNet such as models.MLP); %s has one", k, k, net.Describe())
		}
		if p.Penalty == PathFourier {
			return nil, fmt.Errorf("train: the Fourier penalty path sums the kernel of one logit; a label of %d classes penalises %d logits: use the exact or auto path", k, k)
		}
		if p.Represent == RepresentFeatures {
			return nil, fmt.Errorf("train: a label of %d classes penalises its %d logits; the penultimate features (Represent %q) are for a binary label", k, k, p.Represent)
		}
		p.Penalty = PathExact // the expansion is one-dimensional
	}
	if p.Represent == RepresentFeatures {
		if _, err := featureNet(net); err != nil {
			return nil, err
		}
		sigma, err := featureBandwidth(newModel(b, net, min(p.BatchSize, sp.Train.Len())), sp.Train, p.Estimator.Bandwidth)
		if err != nil {
			return nil, err
		}
		p.sigma, p.Estimator.Bandwidth = sigma, sigma
	}
	return p, nil
}

// newPenaltySpec returns the training penalty of the plan's method on the estimator rows
// of the training set, its number of design columns read from a design of the rows first.
func newPenaltySpec(cfg *plan, rows invmmd.Rows, first []int) (*penaltySpec, error) {
	p := &penaltySpec{plan: cfg, rows: rows, tol: cmp.Or(cfg.FourierTol, TrainingFourierTol), features: cfg.Represent == RepresentFeatures}
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
func validationObjective(val *dataset.Set, rows invmmd.Rows, cfg *plan) (objective func(*Model) (float64, error), last *valRecord, err error) {
	// The validation design does not depend on h: build it once.
	var design *invmmd.Design
	if cfg.Method.Penalised() && cfg.Lambda > 0 {
		if design, err = invmmd.NewDesign(rows, cfg.Estimator, cfg.Method); err != nil {
			return nil, nil, fmt.Errorf("train: validation rows: %w", err)
		}
		if cfg.norms != nil {
			if err := design.UseNormalisers(*cfg.norms); err != nil {
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
		return r, fmt.Errorf("train: the nuisance of %s is %v and no feature map was given (Runtime.ZMap or the auxiliary models')", s.Name, s.Nuisance)
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
