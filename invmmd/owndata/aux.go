package owndata

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// The auxiliary models G and m of fit, estimate and test: their fit and its report.

// AuxReport says how G and m fit, how their training ended and how small Ĝ gets on the
// training rows.
type AuxReport struct {
	G, M         train.FitReport
	GStop, MStop Stop    // how the training of G and m ended
	MinG         float64 // the smallest Ĝ on a training row
	BelowMin     int     // training rows with Ĝ below invmmd.DefaultGFloor
	Rows         int     // training rows
	// FittedG and FittedM say which models were fitted (the others came from columns, or
	// were not needed); Folds holds each fold's report when they were cross-fitted.
	FittedG, FittedM bool
	Folds            []AuxReport
	// Observed: no Z is missing in the rows, so neither G nor m was fitted (Ĝ = 1 and
	// m̂ = Z: dr = ip = full; observedNuisances).
	Observed bool `json:",omitempty"`
	// On says which rows G and m were fitted on and which held-out rows their stopping
	// rule read; FitAux sets the training and validation splits', and estimate and test
	// their own.
	On string
}

// String renders the report as invmmd fit, estimate and test print it.
func (r AuxReport) String() string {
	if r.Observed {
		return "auxiliary models: " + ObservedNote + "\n"
	}
	fitG, fitM := r.FittedG, r.FittedM
	if !fitG && !fitM { // fit's report: both, on its training split
		fitG, fitM = true, true
	}
	stop := r.GStop
	if !fitG {
		stop = r.MStop
	}
	rule := "stopped at the cap"
	if stop.Patience > 0 {
		rule = fmt.Sprintf("stopped after %d epochs without a better one", stop.Patience)
	}
	which := "G and m"
	switch {
	case !fitG:
		which = "m (G from its column)"
	case !fitM:
		which = "G (m from its column, or not needed)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "auxiliary models %s, fitted on (X, Y) of %s, best epoch by validation NLL, %s:\n", which, r.On, rule)
	indent := "  "
	if len(r.Folds) > 1 {
		b.WriteString("  fold 1:\n")
		indent = "    "
	}
	if fitG {
		fmt.Fprintf(&b, "%s%v\n", indent, r.G)
	}
	if fitM {
		fmt.Fprintf(&b, "%s%v\n", indent, r.M)
	}
	if len(r.Folds) > 1 {
		// span writes the range over the folds of a model's validation NLL and best epoch.
		span := func(name string, f func(AuxReport) train.FitReport, end string) {
			l, h, el, eh := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
			for _, x := range r.Folds {
				nll, ep := f(x).ValNLL, float64(f(x).BestEpoch)
				l, h, el, eh = math.Min(l, nll), math.Max(h, nll), math.Min(el, ep), math.Max(eh, ep)
			}
			fmt.Fprintf(&b, " %s val NLL %.4f–%.4f, best epochs %.0f–%.0f%s", name, l, h, el, eh, end)
		}
		fmt.Fprintf(&b, "  over the %d folds:", len(r.Folds))
		if fitG {
			span("G", func(x AuxReport) train.FitReport { return x.G }, ";")
		}
		if fitM {
			span("m", func(x AuxReport) train.FitReport { return x.M }, "")
		}
		b.WriteString("\n")
	}
	switch {
	case !r.FittedG && !r.FittedM: // fit's report: Ĝ on its training split
		fmt.Fprintf(&b, "  min Ĝ on training rows %.4f (floor %.2f)\n", r.MinG, invmmd.DefaultGFloor)
	case r.Rows > 0 && !math.IsInf(r.MinG, 0):
		fmt.Fprintf(&b, "  min Ĝ %.4f over the %d rows (floor %.2f)\n", r.MinG, r.Rows, invmmd.DefaultGFloor)
	}
	return b.String()
}

// Warning says that positivity fails when some Ĝ is below the floor, and that m learned
// nothing when its validation NLL is not below the marginal model's (a nuisance that is
// not binary); empty otherwise. names names the settings it suggests (nil: their fields).
func (r AuxReport) Warning(names tabular.Names) string {
	if r.Observed {
		return ""
	}
	var w []string
	fitG, fitM := r.FittedG, r.FittedM
	if !fitG && !fitM {
		fitG, fitM = true, true
	}
	folds := r.Folds
	if len(folds) == 0 {
		folds = []AuxReport{r}
	}
	for _, m := range []struct {
		name string
		on   bool
		s    func(AuxReport) Stop
	}{{"G", fitG, func(x AuxReport) Stop { return x.GStop }}, {"m", fitM, func(x AuxReport) Stop { return x.MStop }}} {
		if !m.on {
			continue
		}
		for _, f := range folds { // the first fold whose fit reached the cap speaks for all
			if s := stopWarning(m.name, m.s(f), names.Of("AuxEpochs")); s != "" {
				w = append(w, s)
				break
			}
		}
	}
	if r.BelowMin > 0 {
		w = append(w, fmt.Sprintf("Ĝ < %.2f on %d of %d rows, Z observed or not (G's line counts only the training rows with Z observed, whose weights the floor caps): Z is (almost) never observed for rows like these, so no estimator "+
			"can recover their Z (positivity fails); ip and dr then speak for the rows where Z can be observed", invmmd.DefaultGFloor, r.BelowMin, r.Rows))
	}
	if r.M.HasBaseline && r.M.ValNLL >= r.M.BaselineNLL {
		w = append(w, fmt.Sprintf("m's validation NLL %.4f is not below the %.4f of the marginal model that ignores X and Y: m learned nothing about Z "+
			"(more %s, or feature columns %s that predict Z); reg rests on it, dr's correction then rests on Ĝ alone", r.M.ValNLL, r.M.BaselineNLL, names.Of("AuxEpochs"), names.Of("X")))
	}
	return strings.Join(w, " | ")
}

// ObservedNote says that no nuisance was fitted because Z is observed on every row.
const ObservedNote = "Z observed on every row: dr = ip = full; no G or m fitted (Ĝ = 1, m̂ = Z)"

// observedAux returns the auxiliary predictions of splits whose Z is observed on every
// row, with no model fitted: Ĝ = 1 and m̂ = Z (ψ(Z) under zmap), at which dr and ip are
// full (observedNuisances).
func observedAux(sp dataset.Splits, zmap invmmd.FeatureMap) (*train.Aux, error) {
	aux := &train.Aux{ZMap: zmap}
	for _, x := range []struct {
		s *dataset.Set
		p *train.Pred
	}{{sp.Train, &aux.Train}, {sp.Val, &aux.Val}, {sp.Test, &aux.Test}} {
		rows, err := train.RowsFor(x.s, nil, zmap)
		if err != nil {
			return nil, err
		}
		if !observedNuisances(&rows) && x.s.Len() > 0 {
			return nil, fmt.Errorf("owndata: %s has Z missing", x.s.Name)
		}
		*x.p = train.Pred{G: rows.G, M: rows.M, MPsi: rows.MPsi}
	}
	return aux, nil
}

// fitAux fits G (target Δ) and m (target Z where observed) on (X, Y) of the training
// split of sp, MLPs of n.Hidden keeping their best epoch by validation NLL on the
// validation split and stopping after n.AuxPatience epochs without a better one (at most
// n.AuxEpochs), on backend b (nil: backend.Shared()). zmap is the feature map of a
// nuisance that is not binary (Data.ZMap; m then predicts Ê[ψ(Z) | X, Y]), nil for a
// binary one. It returns within a step once ctx is done, with an error wrapping ctx's. It
// is the one place where fit, estimate and test fit their nuisances; which rows G and m
// learn from is its callers' (fit: the training split; estimate and test: crossfit.go).
func fitAux(ctx context.Context, b backends.Backend, n Nets, sp dataset.Splits, zmap invmmd.FeatureMap, roles ...train.Role) (*train.Aux, AuxReport, error) {
	fitCount.aux.Add(1)
	hidden := n.Hidden
	aux, err := train.FitAux(ctx, sp, func(_ train.Role, seed uint64) models.Net { return models.MLP{Hidden: hidden, Seed: seed} },
		train.AuxConfig{BatchSize: min(n.Batch, sp.Train.Len()), Epochs: n.AuxEpochs, Patience: n.AuxPatience, LearningRate: n.LearningRate,
			Seed: n.AuxSeed, Roles: roles}, train.Runtime{Backend: b, ZMap: zmap})
	if err != nil {
		return nil, AuxReport{}, divergedError(fmt.Errorf("fitting G and m: %w", err), n.LearningRate)
	}
	r := AuxReport{G: aux.G, M: aux.M, GStop: auxStopOf(aux.G, n.AuxPatience), MStop: auxStopOf(aux.M, n.AuxPatience),
		MinG: math.Inf(1), Rows: len(aux.Train.G), On: "the training split (validation NLL on the validation split)"}
	for _, g := range aux.Train.G {
		r.MinG = math.Min(r.MinG, g)
		if g < invmmd.DefaultGFloor {
			r.BelowMin++
		}
	}
	return aux, r, nil
}

// divergedError turns the error of a network that diverged (train's "diverged" error: a
// learning rate far too high) into a *FieldError of LearningRate, so that the command line
// names its flag; any other error is returned as it is.
func divergedError(err error, lr float64) error {
	if err == nil || !strings.Contains(err.Error(), "diverged") {
		return err
	}
	return &FieldError{Field: "LearningRate", Value: lr, Err: err}
}
