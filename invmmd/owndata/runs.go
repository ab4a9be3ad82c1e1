package owndata

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Row is one trained model's line of the results table.
type Row struct {
	Method     string
	Seed       uint64
	TestAcc    float64
	TestAUC    float64 // the test AUC; for a label of K > 2 classes the mean of the one-vs-rest AUCs (macro-AUC)
	ValAcc     float64
	DR, IP     float64 // held-out MMD² of h on the test split by dr and ip
	DRSE, IPSE float64 // their jackknife standard errors
	Unreliable string  // held-out strata flagged unreliable, "METHOD: Y = 0 and Y = 1; ..."; empty when none
	Dropped    int     // stratum penalties dropped as unreliable during training
	Warning    string  // the model's warnings joined by " | "
	// AllUnreliable: every held-out stratum of dr and ip is flagged unreliable.
	AllUnreliable bool `json:",omitempty"`
	// DRImpossible and IPImpossible: some stratum of the held-out estimate is impossible
	// (flagImpossible: an MMD² beyond ±MaxMMD2, a probability far outside [0, 1]); the
	// tables show the estimate as IMPOSSIBLE, not as a number.
	DRImpossible, IPImpossible bool `json:",omitempty"`
	// HStop is how h's training ended (best epoch, last epoch, cap, rule); zero in a run
	// file written before it was recorded.
	HStop Stop `json:",omitzero"`
	// Scale names the estimand and scale of DR and IP (MMD2Scale): the joint MMD² of a
	// nuisance that is not binary is unscaled, as estimate and test print it (the 2/v² of
	// Data.JointScale weighs only the training penalty). Empty in a run file written before
	// it was recorded.
	Scale string `json:",omitempty"`
	// HeldOutFull: no Z is missing on the test split, so DR and IP are the full-data
	// estimate (method full), which dr and ip equal there; Ĝ and m̂ fitted on the training
	// split are not read.
	HeldOutFull bool `json:",omitempty"`
	// PDR is the p-value of the test of H₀: h ⊥ Z | Y on the test split by dr's
	// pseudo-outcome, by the cross route; absent (OK false) when the test failed (a warning
	// says why) or the row comes from a run file written before the tests. ip's test is not
	// run: with G fitted on the training split its size rose above α in the calibration of
	// the commands where dr's held (figures/tables/calibration_tool.md, the fit rows).
	PDR PValue `json:",omitzero"`
	// Lambda is the λ of a row of a fit over several λ (Config.Lambdas); nil otherwise.
	Lambda *float64 `json:",omitempty"`
}

// PValue is a p-value that may be absent.
type PValue struct {
	P  float64
	OK bool // false: no p-value
}

// String renders the p-value with 3 significant digits, or "n/a" when absent.
func (p PValue) String() string {
	if !p.OK {
		return "n/a"
	}
	return fmt.Sprintf("%.3g", p.P)
}

// Trained is h trained with one method and seed, evaluated on the splits.
type Trained struct {
	Row     Row
	Model   *train.Model
	History *train.History
	Metrics train.Metrics
	// HeldOut are dr and ip on the test split, with their diagnostics (impossible strata
	// flagged), by the bandwidth rule of Config (the median heuristic by default).
	HeldOut []invmmd.Result
	// Tests are the cross-route tests of H₀: h ⊥ Z | Y on the test split by the
	// pseudo-outcomes of HeldOut's estimators; a failed one is left out.
	Tests    []invmmd.TestResult
	Warnings []string
	Sigma    float64 // the kernel bandwidth of HeldOut
	classes  []string
}

// HeldOutText renders the held-out estimates with their terms and diagnostics (a block of
// heldout.txt).
func (t *Trained) HeldOutText() string {
	var b strings.Builder
	if st := t.Row.HStop.String(); st != "" {
		fmt.Fprintf(&b, "h trained with %s (seed %d; %s), held-out test estimates:\n", t.Row.Method, t.Row.Seed, st)
	} else {
		fmt.Fprintf(&b, "h trained with %s (seed %d), held-out test estimates:\n", t.Row.Method, t.Row.Seed)
	}
	if t.Row.HeldOutFull {
		fmt.Fprintf(&b, "  %s\n", heldOutFullNote)
	}
	for _, res := range t.HeldOut {
		if impossible(res) {
			fmt.Fprintf(&b, "  IMPOSSIBLE estimate (strata %s): not a number to read, see the diagnostics\n", strings.Join(impossibleStrata(res, t.classes), ", "))
		}
		fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(classText(res.String(), t.classes), "\n", "\n  "))
	}
	if len(t.HeldOut) > 0 {
		fmt.Fprintf(&b, "  (Gaussian kernel on h, σ = %.4g; kernel sums %v; MMD²: %s)\n", t.Sigma, t.HeldOut[0].Path, t.Row.Scale)
	}
	if len(t.Tests) > 0 {
		fmt.Fprintf(&b, "  test of H₀: h ⊥ Z | Y on the test split, cross route (halves: a random half of each (Y, Δ) cell; Ĝ and m̂ fitted on the training split, so out of sample), σ = %.4g:\n", t.Tests[0].Sigma)
	}
	for _, r := range t.Tests {
		u := ""
		if len(r.Unreliable) > 0 {
			u = "; unreliable: " + classText(strings.Join(r.Unreliable, "; "), t.classes)
		}
		fmt.Fprintf(&b, "    %v: T = %.4g, p = %.4g (%s)%s\n", r.Method, r.Statistic, r.PValue, strataText(r, t.classes), u)
	}
	return b.String()
}

// trainH trains h with method m and seed on sp, with the frozen nuisances aux. It is the
// one place where owndata calls train.Fit; it returns within a step once ctx is done.
func trainH(ctx context.Context, cfg Config, sp dataset.Splits, aux *train.Aux, m method.Method, seed uint64, jointScale float64) (*train.Model, *train.History, error) {
	fitCount.h.Add(1)
	tc := train.Config{Method: m, Lambda: cfg.Lambda, BatchSize: min(cfg.Batch, sp.Train.Len()), Epochs: cfg.Epochs, Patience: cfg.Patience,
		LearningRate: cfg.LearningRate, Seed: seed, Estimator: invmmd.Options{MinESS: cfg.MinESS, DropUnreliable: cfg.DropUnreliable, JointScale: jointScale}}
	obj, err := cfg.Objective.objective()
	if err != nil {
		return nil, nil, err
	}
	obj.Apply(&tc)
	if tc.Represent, err = cfg.Represent.representation(); err != nil {
		return nil, nil, err
	}
	model, hist, err := train.Fit(ctx, sp, aux, models.MLP{Hidden: cfg.Hidden, Seed: seed}, tc, train.Runtime{Backend: cfg.Backend})
	if err != nil {
		return nil, nil, divergedError(fmt.Errorf("training h with %v (seed %d): %w", m, seed, err), cfg.LearningRate)
	}
	return model, hist, nil
}

// Train trains h with method m and seed (with the nuisances aux that FitNuisances fitted),
// as Execute does for each of its runs, and evaluates it: test accuracy and AUC, the
// held-out MMD² on the test split by dr and ip with their diagnostics, and the p-value of
// dr's test of h ⊥ Z | Y there. Its warnings say when strata were dropped in
// training, when an estimate is impossible, and when the test accuracy is below the
// majority baseline. It stops once ctx is done, with an error wrapping ctx's.
func (p *Plan) Train(ctx context.Context, aux *train.Aux, m method.Method, seed uint64) (*Trained, error) {
	cfg, sp, classes := p.Config, p.Data.Splits, p.Data.Classes
	model, hist, err := trainH(ctx, cfg, sp, aux, m, seed, p.Data.JointScale)
	if err != nil {
		return nil, err
	}
	ev, err := await(ctx, func() (train.Evaluation, error) {
		return train.Evaluate(model, sp, train.EvalOptions{Aux: aux, Options: invmmd.Options{MinESS: cfg.MinESS}, HeldOut: []method.Method{method.DR}})
	})
	if err != nil {
		return nil, err
	}
	held, sigma, note, err := heldOutEstimates(ctx, cfg, model, sp, aux)
	if err != nil {
		return nil, err
	}
	full := held[0].Method == method.Full
	ip := held[len(held)-1]
	met := ev.Metrics
	t := &Trained{Model: model, History: hist, Metrics: met, HeldOut: held, Sigma: sigma, classes: classes}
	who, warn := fmt.Sprintf("h (%v, seed %d)", m, seed), &warner{}
	if note != "" {
		warn.add(who + ": " + note)
	}
	warn.add(flagImpossible(held, classes)...)
	for _, n := range negativeNotes(held) {
		warn.add(who + ": held-out " + n)
	}
	t.Row = Row{Method: m.String(), Seed: seed, TestAcc: met.TestAcc, TestAUC: met.TestAUC, ValAcc: met.ValAcc,
		DR: held[0].Value, IP: ip.Value, DRSE: held[0].ValueSE, IPSE: ip.ValueSE, Unreliable: unreliableList(held, classes), Dropped: hist.DroppedStrata,
		HStop: stopOf(hist), DRImpossible: impossible(held[0]), IPImpossible: impossible(ip), Scale: MMD2Scale(sp.Train.Nuisance.Kind != dataset.BinaryZ, false), HeldOutFull: full}
	logits, err := await(ctx, func() (invmmd.Rep, error) { return model.LogitsRep(sp.Test) })
	if err != nil {
		return nil, err
	}
	var testWarn []string
	t.Tests, testWarn, err = heldOutTests(ctx, cfg, logits, sp, aux, seed, method.DR)
	if err != nil {
		return nil, err
	}
	warn.add(testWarn...)
	for _, r := range t.Tests {
		if r.Method == method.DR {
			t.Row.PDR = PValue{r.PValue, true}
		}
	}
	warn.add(classText(historyWarning(hist, cfg), classes))
	if k := sp.Train.NumClasses(); m.Penalised() && hist.Steps > 0 {
		if off := float64(hist.DroppedStrata) / float64(hist.Steps*k); off > 0.5 {
			warn.add(fmt.Sprintf("%s: the penalty was off on %.0f%% of its stratum-steps (%d of %d dropped as unreliable): λ had little effect; "+
				"use larger batches (%s), or keep the unreliable strata (%s)", who, 100*off, hist.DroppedStrata, hist.Steps*k, cfg.name("Batch"), cfg.unreliableSetting(false)))
		}
	}
	warn.add(stopWarning(who, t.Row.HStop, cfg.name("Epochs")))
	t.Row.AllUnreliable = allUnreliable(held)
	warn.add(collapseWarning(m, seed, met.TestAcc, met.TestAUC, Majority(sp.Test)))
	if base := Majority(sp.Test); m == method.None && met.TestAcc < base-0.005 {
		warn.add(fmt.Sprintf("h (none, seed %d): test accuracy %.3f is below the majority baseline %.3f; h is trained without a penalty, so the features may say little of the label here, or training ended too soon (try a larger %s or %s, or other %s widths)",
			seed, met.TestAcc, base, cfg.name("Epochs"), cfg.name("Patience"), cfg.name("Hidden")))
	}
	t.Warnings = warn.all
	t.Row.Warning = strings.Join(t.Warnings, " | ")
	return t, nil
}

// MMD2Scale names the estimand, and its scale, of every MMD² that fit, estimate and test
// print: for a nuisance that is not binary (joint) the joint MMD² between p(h, Z) and
// p(h)p(Z), unscaled (the 2/v² of invmmd.JointScaleFor weighs only fit's training
// penalty, so that λ means the same for every Z); for a binary Z the MMD² between
// p(h | Z = 1) and p(h | Z = 0). Each is summed over the Y strata, or taken over all rows
// when unconditional.
func MMD2Scale(joint, unconditional bool) string {
	switch {
	case joint && unconditional:
		return "joint MMD² between p(h,Z) and p(h)p(Z) over all rows, unscaled"
	case joint:
		return "joint MMD² between p(h,Z) and p(h)p(Z) within Y strata, unscaled"
	case unconditional:
		return "MMD² between p(h|Z=1) and p(h|Z=0) over all rows"
	}
	return "MMD² between p(h|Z=1) and p(h|Z=0) within Y strata"
}

// collapseWarning says that h (trained with m and seed) may have collapsed, predicting
// about one class for every row: its test accuracy is no better than the majority
// baseline base (equal to it, or below by less than the 0.005 under which the other
// warnings of Train and SteeringWarnings speak), or its test AUC is at most 0.5, no
// better than chance at ranking the rows. Empty otherwise.
func collapseWarning(m method.Method, seed uint64, acc, auc, base float64) string {
	var why []string
	if acc <= base+1e-9 && acc >= base-0.005 {
		why = append(why, fmt.Sprintf("test accuracy %.3f is no better than the majority baseline %.3f", acc, base))
	}
	if auc <= 0.5 {
		why = append(why, fmt.Sprintf("test AUC %.3f is no better than chance", auc))
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("h (%v, seed %d): %s: the fit may have collapsed to (about) one prediction for every row; check h's training (heldout.txt, the h's training column) before reading its held-out MMD²",
		m, seed, strings.Join(why, "; "))
}

// estimatorOptions returns the options of the estimates and tests, every row in the main
// terms: the joint estimand for a nuisance that is not binary (joint), K strata for a
// label of k > 2 classes, and the bandwidth rule sigma (0 with median).
func estimatorOptions(joint bool, k int, sigma float64, median bool, minESS float64) invmmd.Options {
	o := invmmd.Options{Bandwidth: sigma, Median: median, MainFraction: 1, MinESS: minESS}
	if joint {
		o.Estimand = invmmd.JointMMD
	}
	if k > 2 {
		o.Classes = k
	}
	return o
}

// heldOutFullNote says that the held-out estimates are full's (Row.HeldOutFull).
const heldOutFullNote = "Z observed on every test row: dr = ip = full, the full-data estimate (method full), given below; Ĝ and m̂ of the training split are not read"

// observedNuisances sets rows' Ĝ to 1 and m̂ to Z itself (ψ(Z) for a nuisance that is not
// binary, rows.Psi) where no Z of rows is missing, so that dr and ip are full exactly, with
// no model fitted or read: dr's pseudo-outcome m̂ + Δ/Ĝ·(Z − m̂) is Z, and ip's weights Δ/Ĝ
// are 1. It reports whether it did (false, rows untouched, when some Z is missing).
func observedNuisances(rows *invmmd.Rows) bool {
	if rows.Len() == 0 || rows.MissingZ() > 0 {
		return false
	}
	rows.G = slices.Repeat([]float64{1}, rows.Len())
	if rows.Psi != nil {
		rows.M, rows.MPsi = nil, rows.Psi
	} else {
		rows.M, rows.MPsi = slices.Clone(rows.Z), nil
	}
	return true
}

// heldOutEstimates estimates the MMD² of h on the test split by dr and ip, on the scale
// estimate and test print (MMD2Scale: the joint MMD² unscaled), with Ĝ and m̂ of
// aux (fitted on the training split, so out of sample), every test row in the main terms
// and the normalisers, and the kernel's σ by cfg's rule (the median heuristic on h by
// default): h is the logit (the K class logits), or h's last hidden layer when the penalty
// acted on it (Config.Represent). Where no test row has Z missing it returns full's
// estimate alone (the full-data estimate, which dr and ip equal there), not dr and ip with
// Ĝ fitted on the training split's missingness. It returns the estimates, σ, and a note when the median
// heuristic had no bandwidth to give (h tied on most pairs of test rows: σ = 1 instead).
func heldOutEstimates(ctx context.Context, cfg Config, model *train.Model, sp dataset.Splits, aux *train.Aux) ([]invmmd.Result, float64, string, error) {
	h, err := await(ctx, func() (invmmd.Rep, error) {
		if model.Represent == train.RepresentFeatures {
			return model.Features(sp.Test)
		}
		return model.LogitsRep(sp.Test)
	})
	if err != nil {
		return nil, 0, "", err
	}
	rows, err := train.RowsFor(sp.Test, &aux.Test, aux.ZMap)
	if err != nil {
		return nil, 0, "", err
	}
	rows.GTrue = nil // the fitted models only
	note := ""
	sigma, err := bandwidthOf(h, cfg.Bandwidth, cfg.Median)
	if fe := (*FieldError)(nil); errors.As(err, &fe) {
		return nil, 0, "", err
	}
	if err != nil {
		sigma = invmmd.DefaultBandwidth
		note = fmt.Sprintf("%v; the held-out estimates take σ = %g instead (h gives the same output to most test rows: it may be nearly constant)", err, sigma)
	}
	opts := estimatorOptions(sp.Train.Nuisance.Kind != dataset.BinaryZ, sp.Train.NumClasses(), sigma, false, cfg.MinESS)
	methods := []method.Method{method.DR, method.IP}
	if rows.MissingZ() == 0 {
		methods = []method.Method{method.Full}
	}
	res, err := invmmd.Estimate(ctx, h, rows, opts, methods...)
	if err != nil {
		return nil, 0, "", fmt.Errorf("the held-out MMD² on the test split: %w", err)
	}
	return res, sigma, note, nil
}

// MinBandwidthFraction is the smallest fixed σ of the kernel on h that estimate, test and
// fit's held-out numbers take, as a fraction of the median heuristic's σ on h's rows
// (the median distance between them): below it every kernel value between two rows is 0,
// so every estimate is 0 ± 0 whatever h is.
const MinBandwidthFraction = 1e-6

// bandwidthOf returns the kernel's σ on h by a bandwidth rule: the median heuristic on h's
// rows (invmmd.MedianBandwidth), or the fixed sigma, refused (a *FieldError of Bandwidth)
// when below MinBandwidthFraction of the median heuristic's.
func bandwidthOf(h invmmd.Rep, sigma float64, median bool) (float64, error) {
	if !median {
		if med, err := invmmd.MedianBandwidth(h); err == nil && sigma < MinBandwidthFraction*med {
			return 0, fieldError("Bandwidth", sigma, "σ below %g × the median distance between the rows of h (%.4g): every kernel value between two rows would be 0, and every estimate 0 ± 0 whatever h is; give a σ near %.4g, or the median heuristic",
				MinBandwidthFraction, med, med)
		}
		return sigma, nil
	}
	s, err := invmmd.MedianBandwidth(h)
	if err != nil {
		return 0, fmt.Errorf("the median heuristic on h: %w", err)
	}
	return s, nil
}

// TestHeldOut tests H₀: h ⊥ Z | Y on the test split as Train's held-out tests do (the
// cross route, Ĝ and m̂ of aux fitted on the training split, σ by the plan's bandwidth
// rule, the halves seeded by seed), for outputs h given for the test split's rows in
// their order: the calibration study's check of fit's p-values, and a way to test a
// model trained elsewhere on the same split.
func (p *Plan) TestHeldOut(ctx context.Context, aux *train.Aux, h invmmd.Rep, seed uint64, methods ...method.Method) ([]invmmd.TestResult, []string, error) {
	if n := p.Data.Splits.Test.Len(); h.Len() != n {
		return nil, nil, fmt.Errorf("owndata: %d outputs for the %d rows of the test split", h.Len(), n)
	}
	return heldOutTests(ctx, p.Config, h, p.Data.Splits, aux, seed, methods...)
}

// heldOutTests tests H₀: h ⊥ Z | Y on the test split of sp by the pseudo-outcome of each
// of methods (with Ĝ and m̂ of aux), by the cross route with a random half of each (Y, Δ)
// cell of the test rows seeded by seed, and σ by cfg's rule (as the held-out estimates).
// h, given for the test rows, is the model's prediction in Train (Model.LogitsRep): its
// logit, or with a label of K > 2 classes its K class logits as one representation,
// tested within each class. Ĝ and m̂ were fitted on the training split, so they are out
// of sample for every test row and the cross route's p-values are valid (given that G or
// m is right, as the method needs). A method whose test fails (e.g. a stratum of the test
// split with fewer than 2 observed Z in a half) is left out, with a warning saying why;
// err is for rows that cannot be had at all, or ctx done.
func heldOutTests(ctx context.Context, cfg Config, h invmmd.Rep, sp dataset.Splits, aux *train.Aux, seed uint64, methods ...method.Method) ([]invmmd.TestResult, []string, error) {
	rows, err := train.RowsFor(sp.Test, &aux.Test, aux.ZMap)
	if err != nil {
		return nil, nil, err
	}
	rows.GTrue = nil         // the fitted models only, as the held-out estimates
	observedNuisances(&rows) // no Z missing: dr's pseudo-outcome is Z, as the held-out estimates are full's
	o := estimatorOptions(false, sp.Train.NumClasses(), cfg.Bandwidth, cfg.Median, 0)
	opts := invmmd.TestOptions{Options: invmmd.Options{Bandwidth: o.Bandwidth, Median: o.Median, Classes: o.Classes}, Seed: seed}
	var out []invmmd.TestResult
	var warn []string
	for _, m := range methods {
		res, err := invmmd.InvarianceTest(ctx, h, rows, opts, m)
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if err != nil {
			warn = append(warn, fmt.Sprintf("the held-out test by %v has no p-value: %v", m, err))
			continue
		}
		out = append(out, res...)
	}
	return out, warn, nil
}

// allUnreliable reports whether every stratum of every held-out estimate is flagged
// unreliable.
func allUnreliable(res []invmmd.Result) bool {
	for _, r := range res {
		if len(r.Report.Strata) == 0 || len(r.Report.Unreliable()) < len(r.Report.Strata) {
			return false
		}
	}
	return len(res) > 0
}

// unreliableList renders the unreliable strata of the results: "dr: Y = 0; ip: Y = 0 and Y = 1".
func unreliableList(res []invmmd.Result, classes []string) string {
	var parts []string
	for _, r := range res {
		if u := r.Report.Unreliable(); len(u) > 0 {
			parts = append(parts, fmt.Sprintf("%v: %s", r.Method, strataList(u, classes)))
		}
	}
	return strings.Join(parts, "; ")
}

// historyWarning is hist's warning (train.History.Warning) in the terms of cfg's
// settings: the setting that drops unreliable strata (leaving out -keep-unreliable), not
// the library's option.
func historyWarning(hist *train.History, cfg Config) string {
	return strings.Replace(hist.Warning(), train.DropHint, cfg.unreliableSetting(true)+" to drop them from the penalty", 1)
}

// unreliableSetting says how a caller drops (drop) or keeps unreliable strata in the
// training penalty, in its own words: by leaving out or giving the command line's flag
// (-keep-unreliable, which Names maps DropUnreliable to), or DropUnreliable = drop.
func (c Config) unreliableSetting(drop bool) string {
	n := c.name("DropUnreliable")
	switch {
	case n == "DropUnreliable":
		return fmt.Sprintf("DropUnreliable = %t", drop)
	case drop:
		return "leave out " + n
	}
	return n
}
