package train

import (
	"context"
	"fmt"
	"sort"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// Metrics are the numbers of the paper's tables for one trained model.
type Metrics struct {
	// TrainMMD estimates the Y-conditional penalty Σ_y MMD²_y (the joint MMD² for a
	// nuisance that is not binary, with the options' JointScale) on the whole training set,
	// whatever the method optimised, with every row serving both the main terms and the
	// normalisers. It is the full estimator (true Z, no missingness; eq. (6)) when every
	// training Z is known; when some Z is really missing (NaN) it is the first of
	// EvalOptions.HeldOut (dr by default), and TrainMMDBy says which.
	TrainMMD   float64
	TrainMMDBy method.Method
	// TrainMMDLogit is, for a model whose penalty acted on its features (Represent), the
	// same estimate taken on its logit with σ = invmmd.DefaultBandwidth (1, the paper's;
	// a bandwidth in the options is the features'): how far the classifier's output, not
	// only its features, depends on Z, in the currency of the logit fits' TrainMMD. 0 (and absent from records) for the logits.
	TrainMMDLogit float64 `json:",omitempty"`
	TrainAcc      float64 // share of rows whose predicted class (the sign of the logit, or the largest of K) is the label
	ValAcc        float64
	TestAcc       float64
	TestAUC       float64 // area under the ROC curve of the test logits (ties count ½); for K > 2 classes the mean over the classes of each one-vs-rest AUC (macro-AUC)
}

// EvalOptions are what Evaluate reads besides the model and the splits.
type EvalOptions struct {
	// Options are the kernel (its bandwidth) and the guards of every estimate; a model
	// trained with Represent features has its MMDs taken on its features with its
	// Model.Bandwidth unless Options sets one.
	Options invmmd.Options
	// ZMap is the feature map of a nuisance that is not binary (the one h was trained
	// with): TrainMMD is then the joint MMD² (with Options.JointScale). nil for a binary Z,
	// or to take Aux's.
	ZMap invmmd.FeatureMap
	// Aux holds the fitted Ĝ and m̂ of every split. With it Evaluate also estimates the MMD
	// on the test split by HeldOut, and, when some training Z is missing, gives TrainMMD by
	// the first of HeldOut instead of the full estimator, which cannot run without Z.
	Aux *Aux
	// HeldOut are the estimators of the held-out estimates; nil means dr and ip.
	HeldOut []method.Method
}

// Evaluation is what Evaluate measures of a model.
type Evaluation struct {
	Metrics
	// HeldOut are the held-out estimates of EvalOptions.HeldOut on the test split, each
	// with its per-stratum diagnostics; nil without EvalOptions.Aux.
	HeldOut []invmmd.Result
}

// Evaluate computes the model's Metrics on sp (the numbers of the paper's tables) and,
// with e.Aux, the held-out estimates on the test split. Without Aux it needs every
// training Z to be known (the full estimator gives TrainMMD).
func Evaluate(m *Model, sp dataset.Splits, e EvalOptions) (ev Evaluation, err error) {
	aux, zmap, opts, methods, out := e.Aux, e.ZMap, e.Options, e.HeldOut, &ev.Metrics
	if zmap == nil && aux != nil {
		zmap = aux.ZMap
	}
	o, err := opts.Resolved()
	if err != nil {
		return ev, err
	}
	if len(methods) == 0 {
		// The two that need only the fitted Ĝ and m̂ and correct for the missingness.
		methods = []method.Method{method.DR, method.IP}
	}
	h := [3]invmmd.Rep{}
	for k, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		if h[k], err = m.LogitsRep(s); err != nil {
			return ev, err
		}
	}
	out.TrainAcc, out.ValAcc, out.TestAcc = labelAccuracy(h[0], sp.Train.Y), labelAccuracy(h[1], sp.Val.Y), labelAccuracy(h[2], sp.Test.Y)
	out.TestAUC = labelAUC(h[2], sp.Test.Y)
	// The MMD of what the penalty acted on: the logits, or the features with their σ.
	reps := [3]invmmd.Rep{h[0], {}, h[2]}
	logitSigma := o.Bandwidth
	if m.Represent == RepresentFeatures {
		logitSigma = invmmd.DefaultBandwidth // opts' bandwidth, when set, is the features'
		for _, k := range []int{0, 2} {
			if reps[k], err = m.Features([]*dataset.Set{sp.Train, sp.Val, sp.Test}[k]); err != nil {
				return ev, err
			}
		}
		if opts.Bandwidth == 0 && m.Bandwidth > 0 {
			o.Bandwidth = m.Bandwidth
		}
	}
	eo := estimandFor(sp.Train, invmmd.Options{Bandwidth: o.Bandwidth, MainFraction: 1, GFloor: o.GFloor, NormFloor: o.NormFloor, MinESS: o.MinESS,
		Estimand: o.Estimand, JointScale: opts.JointScale})
	out.TrainMMDBy = method.Full
	rows, err := RowsFor(sp.Train, nil, zmap)
	if err != nil {
		return ev, err
	}
	if !sp.Train.ZKnown() {
		if aux == nil {
			return ev, fmt.Errorf("train: %d training rows have Z missing, so the full estimator cannot give the training MMD; "+
				"evaluate with the fitted auxiliary models (EvalOptions.Aux) to report %v instead", invmmd.Rows{Z: sp.Train.Z}.MissingZ(), methods)
		}
		out.TrainMMDBy = methods[0]
		if rows, err = RowsFor(sp.Train, aux.split(0), zmap); err != nil {
			return ev, err
		}
	}
	d, err := invmmd.NewDesign(rows, eo, out.TrainMMDBy)
	if err != nil {
		return ev, fmt.Errorf("train: evaluating the training MMD by %v: %w", out.TrainMMDBy, err)
	}
	res, err := d.Evaluate(reps[0], invmmd.AutoSums{}) // the training set can be large: Auto picks the kernel sums' path
	if err != nil {
		return ev, fmt.Errorf("train: evaluating the training MMD by %v: %w", out.TrainMMDBy, err)
	}
	out.TrainMMD = res[0].Value
	if m.Represent == RepresentFeatures {
		lo := eo
		lo.Bandwidth = logitSigma
		if d, err = invmmd.NewDesign(rows, lo, out.TrainMMDBy); err == nil {
			res, err = d.Evaluate(h[0], invmmd.AutoSums{})
		}
		if err != nil {
			return ev, fmt.Errorf("train: evaluating the training MMD of the logit by %v: %w", out.TrainMMDBy, err)
		}
		out.TrainMMDLogit = res[0].Value
	}
	if aux != nil {
		test, err := RowsFor(sp.Test, aux.split(2), zmap)
		if err != nil {
			return ev, err
		}
		test.GTrue = nil // as before: the held-out estimates use the fitted models only
		if ev.HeldOut, err = invmmd.Estimate(context.Background(), reps[2], test, eo, methods...); err != nil {
			return ev, fmt.Errorf("train: held-out MMD on the test split: %w", err)
		}
	}
	return ev, nil
}

// AUC is the area under the ROC curve of scores s for binary labels y: the probability
// that a random positive scores above a random negative, ties counting ½ (the
// Mann–Whitney statistic with mid-ranks). It is 0.5 when one class is absent.
func AUC(s, y []float64) float64 {
	idx := allRows(len(s))
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] < s[idx[b]] })
	var rankPos, nPos float64
	for a := 0; a < len(idx); {
		b := a
		for b < len(idx) && s[idx[b]] == s[idx[a]] {
			b++
		}
		mid := float64(a+b+1) / 2 // mid-rank of the tie group, ranks 1-based
		for k := a; k < b; k++ {
			if y[idx[k]] == 1 {
				rankPos += mid
				nPos++
			}
		}
		a = b
	}
	nNeg := float64(len(s)) - nPos
	if nPos == 0 || nNeg == 0 {
		return 0.5
	}
	return (rankPos - nPos*(nPos+1)/2) / (nPos * nNeg)
}
