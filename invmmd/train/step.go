package train

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/penalty"
)

// compiled returns the training step for a number of Fourier terms (0: the exact sum, or
// no penalty), compiling it on first use.
func (r *fitRun) compiled(terms int) (*context.Exec, error) {
	if e, ok := r.steps[terms]; ok {
		return e, nil
	}
	e, err := context.NewExec(r.b, r.model.ctx, r.stepGraph(terms))
	if err != nil {
		return nil, fmt.Errorf("building the training step: %w", err)
	}
	r.steps[terms] = e
	return e, nil
}

// stepGraph returns the graph of one training step with the penalty's kernel sums exact
// (terms = 0) or by the Fourier expansion with terms terms. Its inputs are the batch's
// features and targets, then, with a penalty, the design's V and C, σ and λ; it applies
// one Adam update of loss = NLL + λ·penalty and returns the loss, the NLL, the penalty,
// the expansion's error bound and the span of the outputs (these two 0 when unused), and
// the penalty's per-stratum estimates before any clipping (one 0 without a penalty).
func (r *fitRun) stepGraph(terms int) func(ctx *context.Context, in []*Node) []*Node {
	p := r.s.penalty
	return func(ctx *context.Context, in []*Node) []*Node {
		g := in[0].Graph()
		var logits, nll, feats *Node
		switch hs := r.s.heads; {
		case hs != nil: // k outputs per row: m of a nuisance that is not binary, or h of K classes
			logits = r.net.(models.MultiNet).Heads(ctx.In(modelScope), in[0], hs.k)
			nll = hs.loss(logits, in[1])
		case p != nil && p.features: // the penalty on the penultimate layer (Config.Represent)
			feats, logits = r.net.(models.FeatureNet).Features(ctx.In(modelScope), in[0])
			nll = models.BernoulliNLL(logits, in[1])
		default:
			logits = r.net.Logit(ctx.In(modelScope), in[0])
			nll = models.BernoulliNLL(logits, in[1])
		}
		loss, pen := nll, ScalarZero(g, nll.DType())
		bound, span := ScalarZero(g, nll.DType()), ScalarZero(g, nll.DType())
		raw := Reshape(ScalarZero(g, nll.DType()), 1)
		if p != nil {
			v, c, sg, lambda := in[2], in[3], in[4], in[5]
			var strata *Node
			if p.features {
				strata = featuresPenaltyGraph(feats, v, c, sg, p.rff, p.Seed)
			} else if terms > 0 {
				strata, bound = penalty.FourierPenaltyGraph(logits, v, c, sg, terms, p.tol)
			} else {
				strata = penalty.PenaltyGraph(logits, v, c, sg)
			}
			raw = StopGradient(strata)
			if p.Clip {
				strata = Max(strata, ZerosLike(strata))
			}
			pen = ReduceAllSum(strata)
			hs := StopGradient(logits)
			span = Sub(ReduceAllMax(hs), ReduceAllMin(hs))
			loss = Add(nll, Mul(lambda, pen))
		}
		r.opt.UpdateGraph(ctx, g, loss)
		return []*Node{loss, nll, pen, bound, span, raw}
	}
}

// chooseInitialTerms sets the Fourier terms of the first steps from the span of the
// untrained network's outputs on the first batch (0: the exact path is cheaper).
func (r *fitRun) chooseInitialTerms() error {
	s := r.s
	h0, err := r.model.Logits(s.set.Subset("first batch", s.rows[:s.batch]))
	if err != nil {
		return err
	}
	r.terms = s.penalty.chooseTerms(slices.Max(h0)-slices.Min(h0), r.sigma, s.batch)
	return nil
}

// chooseTerms returns the Fourier terms for outputs spanning span, or 0 (the exact path)
// when the exact sum is cheaper for this batch size or the path is Exact.
func (p *penaltySpec) chooseTerms(span, sigma float64, batch int) int {
	if p.Penalty == PathExact {
		return 0
	}
	m, err := penalty.FourierTermsFor(span, sigma, p.tol)
	if err != nil { // outputs spread beyond what the expansion serves: the exact sum
		return 0
	}
	// Per row: the expansion evaluates 2(M+1) sines and cosines and their products with
	// the P columns; the exact path n kernel values and n·P products.
	if p.Penalty == PathAuto && float64(2*(m+1))*(2*float64(p.columns)+10) > float64(batch)*(float64(p.columns)+10) {
		return 0
	}
	return m
}

// batchDesign builds the penalty's V and C for the batch's rows.
func (p *penaltySpec) batchDesign(idx []int) (v, c *tensors.Tensor, rep invmmd.Report, err error) {
	d, err := invmmd.NewDesign(p.rows.Subset(idx), p.Estimator, p.Method)
	if err != nil {
		return nil, nil, rep, err
	}
	if p.norms != nil {
		if err := d.UseNormalisers(*p.norms); err != nil {
			return nil, nil, rep, err
		}
	}
	d.TrainingGuard() // with Options.DropUnreliable, unreliable strata leave the penalty
	v, c, err = penalty.Tensors(d, dtypes.Float32)
	return v, c, d.Reports()[0], err
}
