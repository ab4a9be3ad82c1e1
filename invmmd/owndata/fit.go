package owndata

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tabular"
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
	Unreliable string  // held-out strata flagged unreliable, "METHOD: Y=[...]; ..."; empty when none
	Dropped    int     // stratum penalties dropped as unreliable during training
	Warning    string  // the model's warnings joined by " | "
	// AllUnreliable: every held-out stratum of dr and ip is flagged unreliable.
	AllUnreliable bool `json:",omitempty"`
	// HStop is how h's training ended (best epoch, last epoch, cap, rule); zero in a run
	// file written before it was recorded.
	HStop Stop `json:",omitzero"`
	// PDR and PIP are the p-values of the tests of H₀: h ⊥ Z | Y on the test split by dr's
	// and ip's pseudo-outcomes, by the cross route (HeldOutTests); absent (OK false) when
	// the test failed (a warning says why) or the row comes from a run file written before
	// the tests were added.
	PDR, PIP PValue `json:",omitzero"`
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
	HeldOut []invmmd.Result // dr and ip on the test split, with their diagnostics
	// Tests are the cross-route tests of H₀: h ⊥ Z | Y on the test split by the
	// pseudo-outcomes of HeldOut's estimators (HeldOutTests); a failed one is left out.
	Tests    []invmmd.TestResult
	Warnings []string
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
	for _, res := range t.HeldOut {
		fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(res.String(), "\n", "\n  "))
	}
	if len(t.Tests) > 0 {
		fmt.Fprintf(&b, "  test of H₀: h ⊥ Z | Y on the test split, cross route (halves: a random half of each (Y, Δ) cell; Ĝ and m̂ fitted on the training split, so out of sample), σ = %.4g:\n", t.Tests[0].Sigma)
	}
	for _, r := range t.Tests {
		u := ""
		if len(r.Unreliable) > 0 {
			u = "; unreliable: " + strings.Join(r.Unreliable, "; ")
		}
		fmt.Fprintf(&b, "    %v: T = %.4g, p = %.4g (%s)%s\n", r.Method, r.Statistic, r.PValue, strataText(r), u)
	}
	return b.String()
}

// Data is a table read and made ready for training.
type Data struct {
	*tabular.Data
	Table   *tabular.Table
	Seconds float64 // time spent reading the file
	// ZKindWhy says how the nuisance's kind (Splits.Train.Nuisance) was decided.
	ZKindWhy string
	// ZMap is the feature map of a nuisance that is not binary, fixed from the observed Z
	// of the training split (nil for a binary Z).
	ZMap invmmd.FeatureMap
	// Classes names the label's K > 2 classes, whose indices Y holds (Table.LabelClasses);
	// nil for a binary label.
	Classes []string
}

// Result is what Fit returns: the data, the auxiliary models and every trained model's
// row, with the held-out diagnostics and the warnings.
type Result struct {
	Data *Data
	Aux  *train.Aux
	// AuxFit is how G and m fitted and how their training ended (zero when every method
	// was resumed and they were not fitted).
	AuxFit   AuxReport
	Majority float64 // test accuracy of always predicting the most common label
	Rows     []Row
	HeldOut  string // the held-out estimates of every model, as heldout.txt holds them
	Warnings []string
	Resumed  int // models kept from an earlier run's files (Config.Resume)
}

// Read reads the columns of cfg from its CSV file, splits the rows and encodes the
// features on the training split. A column the file lacks is reported with the flag that
// named it.
func Read(cfg Config) (*Data, error) {
	spec := cfg.Spec()
	t0 := time.Now()
	tab, err := readTable(cfg.Data, spec.Columns(), cfg.zFlags(map[string]string{cfg.Y: "-y", cfg.Split: "-split"}))
	if err != nil {
		return nil, err
	}
	kind, why, err := cfg.nuisanceKind(tab)
	if err != nil {
		return nil, err
	}
	spec.ZKind = kind
	if spec.Classes, err = tab.LabelClasses(cfg.Y, cfg.YPositive, "-y"); err != nil {
		return nil, err
	}
	d, err := tabular.Build(tab, spec)
	if err != nil {
		return nil, err
	}
	out := &Data{Data: d, Table: tab, Seconds: time.Since(t0).Seconds(), ZKindWhy: why, Classes: spec.Classes}
	if tr := d.Splits.Train; tr.Nuisance.Kind != dataset.BinaryZ {
		if out.ZMap, err = invmmd.NewMap(tr.Nuisance, tr.ObservedZ(), cfg.ZMap); err != nil {
			return nil, fmt.Errorf("%s: the kernel on Z: %w", cfg.Data, err)
		}
	}
	return out, nil
}

// readTable reads the named columns of a CSV file; a column the file lacks is reported
// with the flag that named it (flags maps column names to flag names; other columns are -x).
func readTable(path string, cols []string, flags map[string]string) (*tabular.Table, error) {
	tab, err := tabular.ReadFile(path, cols)
	var ce *tabular.ColumnError
	if errors.As(err, &ce) {
		ce.Flag = "-x"
		if f, ok := flags[ce.Name]; ok {
			ce.Flag = f
		}
	}
	return tab, err
}

// TrainMethod trains h with method m and seed on sp (with the frozen auxiliary models aux),
// as Fit does for each of its methods and seeds, and evaluates it: test accuracy and AUC,
// and the held-out MMD² on the test split by dr and ip, with their diagnostics. Its
// warnings say when strata were dropped in training and when the test accuracy is below
// the majority baseline.
func TrainMethod(cfg Config, sp dataset.Splits, aux *train.Aux, m method.Method, seed uint64) (*Trained, error) {
	tc := train.Config{Method: m, Lambda: cfg.Lambda, BatchSize: min(cfg.Batch, sp.Train.Len()), Epochs: cfg.Epochs, Patience: cfg.Patience,
		LearningRate: cfg.LearningRate, Seed: seed, Estimator: invmmd.Options{MinESS: cfg.MinESS, DropUnreliable: !cfg.KeepUnreliable}}
	obj, err := cfg.objective()
	if err != nil {
		return nil, err
	}
	obj.Apply(&tc)
	if tc.Represent, err = train.ParseRepresentation(cfg.Represent); err != nil {
		return nil, fmt.Errorf("-represent: %w", err)
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	model, hist, err := train.Fit(ctx, sp, aux, models.MLP{Hidden: cfg.Hidden, Seed: seed}, tc, train.Runtime{Backend: cfg.Backend})
	if err != nil {
		return nil, fmt.Errorf("training h with %v (seed %d): %w", m, seed, err)
	}
	ev, err := train.Evaluate(model, sp, train.EvalOptions{Aux: aux, Options: invmmd.Options{MinESS: cfg.MinESS}})
	met, held := ev.Metrics, ev.HeldOut
	if err != nil {
		return nil, err
	}
	t := &Trained{Model: model, History: hist, Metrics: met, HeldOut: held}
	t.Row = Row{Method: m.String(), Seed: seed, TestAcc: met.TestAcc, TestAUC: met.TestAUC, ValAcc: met.ValAcc,
		DR: held[0].Value, IP: held[1].Value, DRSE: held[0].ValueSE, IPSE: held[1].ValueSE, Unreliable: unreliableList(held), Dropped: hist.DroppedStrata,
		HStop: StopOf(hist)}
	var testWarn []string
	t.Tests, testWarn, err = HeldOutTests(model, sp, aux, cfg.MinESS, seed, methodsOf(held)...)
	if err != nil {
		return nil, err
	}
	t.Warnings = append(t.Warnings, testWarn...)
	for _, r := range t.Tests {
		switch r.Method {
		case method.DR:
			t.Row.PDR = PValue{r.PValue, true}
		case method.IP:
			t.Row.PIP = PValue{r.PValue, true}
		}
	}
	if w := hist.Warning(); w != "" {
		t.Warnings = append(t.Warnings, w)
	}
	if w := stopWarning(fmt.Sprintf("h (%v, seed %d)", m, seed), t.Row.HStop, "-epochs"); w != "" {
		t.Warnings = append(t.Warnings, w)
	}
	t.Row.AllUnreliable = allUnreliable(held)
	if majority := Majority(sp.Test); met.TestAcc < majority-0.005 {
		why := "the penalty may be steering h (see the held-out diagnostics; try a smaller -lambda)"
		if m == method.None {
			why = "h is trained without a penalty, so the features may say little of the label here, or training ended too soon (try a larger -epochs or -patience, or other -hidden widths)"
		}
		t.Warnings = append(t.Warnings, fmt.Sprintf("h (%v): test accuracy %.3f is below the majority baseline %.3f; %s", m, met.TestAcc, majority, why))
	}
	t.Row.Warning = strings.Join(t.Warnings, " | ")
	return t, nil
}

// HeldOutTests tests H₀: h ⊥ Z | Y on the test split of sp by the pseudo-outcome of each
// of methods (with Ĝ and m̂ of aux), by the cross route with a random half of each (Y, Δ)
// cell of the test rows seeded by seed, and σ the held-out estimates' (the default
// bandwidth). h is the model's prediction (Model.LogitsRep): its logit, or with a label of
// K > 2 classes its K class logits as one representation, tested within each class. Ĝ and m̂ were fitted on the training split, so they are out of sample for
// every test row and the cross route's p-values are valid (given that G or m is right, as
// the method needs). A method whose test fails (e.g. a stratum of the test split with
// fewer than 2 observed Z in a half) is left out, with a warning saying why; err is for
// h or the rows that cannot be had at all.
func HeldOutTests(model *train.Model, sp dataset.Splits, aux *train.Aux, minESS float64, seed uint64, methods ...method.Method) ([]invmmd.TestResult, []string, error) {
	h, err := model.LogitsRep(sp.Test)
	if err != nil {
		return nil, nil, err
	}
	rows, err := train.RowsFor(sp.Test, &aux.Test, aux.ZMap)
	if err != nil {
		return nil, nil, err
	}
	rows.GTrue = nil // the fitted models only, as the held-out estimates
	o, err := invmmd.Options{MinESS: minESS}.Resolved()
	if err != nil {
		return nil, nil, err
	}
	opts := invmmd.TestOptions{Options: invmmd.Options{Bandwidth: o.Bandwidth}, Seed: seed}
	if k := sp.Train.NumClasses(); k > 2 {
		opts.Classes = k // h is the K class logits, tested within each class
	}
	var out []invmmd.TestResult
	var warn []string
	for _, m := range methods {
		res, err := invmmd.InvarianceTest(context.Background(), h, rows, opts, m)
		if err != nil {
			warn = append(warn, fmt.Sprintf("the held-out test by %v has no p-value: %v", m, err))
			continue
		}
		out = append(out, res...)
	}
	return out, warn, nil
}

// methodsOf returns the methods of the results, in order.
func methodsOf(rs []invmmd.Result) []method.Method {
	ms := make([]method.Method, len(rs))
	for i, r := range rs {
		ms[i] = r.Method
	}
	return ms
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

func unreliableList(res []invmmd.Result) string {
	var parts []string
	for _, r := range res {
		if u := r.Report.Unreliable(); len(u) > 0 {
			parts = append(parts, fmt.Sprintf("%v: Y=%v", r.Method, u))
		}
	}
	return strings.Join(parts, "; ")
}

// warner collects warnings and writes each to w as it arises.
type warner struct {
	w   io.Writer
	all []string
}

func (k *warner) add(ws ...string) {
	for _, s := range ws {
		k.all = append(k.all, s)
		if k.w != nil {
			fmt.Fprintln(k.w, "warning:", s)
		}
	}
}

// Fit runs the whole workflow of invmmd fit: it checks the output folder, reads and
// encodes the table, splits it, checks each split's observed (Y, Z) cells, fits G and m,
// trains h with each method and seed, and evaluates each on the test split.
//
// When cfg.Out is set, Out is checked before anything is read or fitted (prepareOut:
// a folder holding results of other settings, or of methods and seeds this run does not
// list, is refused unless cfg.Force), config.json is written before the first method, and
// as each method finishes its model (models/METHOD-seedS/) and its run file
// (runs/METHOD-seedS.json) are written and results.csv, results.md and heldout.txt are
// rewritten with every method finished so far, so that an interruption loses only the
// method in progress. With cfg.Resume, methods whose run file and model hold the same
// settings are not trained again.
//
// cfg.Context is checked before each method: once it is done, Fit returns the result so
// far with an error wrapping the context's.
func Fit(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	warn := &warner{w: cfg.Warn}
	var done map[string]RunFile
	if cfg.Out != "" {
		var err error
		if done, err = prepareOut(cfg); err != nil {
			return nil, err
		}
	}
	d, err := Read(cfg)
	if err != nil {
		return nil, err
	}
	warn.add(d.Warnings...)
	sp := d.Splits
	for _, m := range cfg.Methods {
		if m == method.Full && !sp.Train.ZKnown() {
			return nil, fmt.Errorf("method full needs Z on every row and %s has %d training rows with Z missing; drop it or use dr, ip or reg", cfg.Data, invmmd.Rows{Z: sp.Train.Z}.MissingZ())
		}
	}
	fmt.Fprintf(log, "%s: %d rows read in %.1fs; %d inputs from %d feature columns\n", cfg.Data, d.Table.Len(), d.Seconds, d.Encoder.Dim(), len(d.Encoder.Features))
	fmt.Fprintf(log, "nuisance Z (%s): %v, %s\n", cfg.Z, sp.Train.Nuisance, d.ZKindWhy)
	if d.ZMap != nil {
		fmt.Fprintf(log, "  penalty and estimates: the joint MMD² between p(h, Z) and p(h)p(Z) within each Y stratum, kernel on Z: %s\n", d.ZMap.Describe())
	}
	if len(d.Classes) > 2 {
		fmt.Fprintf(log, "label %s: %d classes %s\n", cfg.Y, len(d.Classes), strings.Join(d.Classes, ", "))
	}
	for _, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		if s.Nuisance.Kind != dataset.BinaryZ {
			fmt.Fprintf(log, "  %s\n", s.Summarize())
			continue
		}
		if len(d.Classes) > 2 {
			var cells []string
			for y, c := range ClassCells(s) {
				cells = append(cells, fmt.Sprintf("%s: Z0=%d Z1=%d", d.Classes[y], c[0], c[1]))
			}
			fmt.Fprintf(log, "  %s: %d rows, %d with Z missing; observed Z by class %s\n", s.Name, s.Len(), invmmd.Rows{Z: s.Z}.MissingZ(), strings.Join(cells, "; "))
			continue
		}
		c := ObservedCells(s)
		fmt.Fprintf(log, "  %s; observed (Y,Z) cells Y0Z0=%d Y0Z1=%d Y1Z0=%d Y1Z1=%d\n", s.Summarize(), c[0][0], c[0][1], c[1][0], c[1][1])
	}
	w, err := checkSplitCells(cfg, sp, d.Classes)
	if err != nil {
		return nil, err
	}
	warn.add(w...)
	res := &Result{Data: d, Majority: Majority(sp.Test)}
	todo := 0
	for _, name := range orderedRuns(cfg) {
		if _, ok := done[name]; !ok {
			todo++
		}
	}
	if todo > 0 {
		aux, rep, err := FitAux(cfg.Backend, cfg.Nets, sp, d.ZMap)
		if err != nil {
			return nil, err
		}
		fmt.Fprint(log, rep)
		if w := rep.Warning(); w != "" {
			warn.add(w)
		}
		res.Aux, res.AuxFit = aux, rep
	}
	if cfg.Out != "" {
		if err := res.writeConfig(cfg); err != nil {
			return nil, err
		}
		for _, dir := range []string{ModelsDir, RunsDir} {
			if err := os.MkdirAll(filepath.Join(cfg.Out, dir), 0o755); err != nil {
				return nil, err
			}
		}
	}
	var held strings.Builder
	finish := func(rf RunFile) error {
		res.Rows = append(res.Rows, rf.Row)
		held.WriteString(rf.HeldOut)
		res.HeldOut = held.String()
		if cfg.Out == "" {
			return nil
		}
		return res.write(cfg)
	}
	for _, seed := range cfg.Seeds {
		for _, m := range cfg.Methods {
			name := runName(m, seed)
			if rf, ok := done[name]; ok {
				fmt.Fprintf(log, "%s: kept from %s (-resume)\n", name, RunPath(cfg.Out, m, seed))
				res.Resumed++
				if err := finish(rf); err != nil {
					return nil, err
				}
				continue
			}
			if err := ctx.Err(); err != nil {
				res.Warnings = warn.all
				return res, fmt.Errorf("stopped before training h with %v (seed %d): %w", m, seed, err)
			}
			t, err := TrainMethod(cfg, sp, res.Aux, m, seed)
			if err != nil {
				return nil, err
			}
			warn.add(t.Warnings...)
			rf := RunFile{Settings: settingsOf(cfg), Classes: d.Classes, Row: t.Row, HeldOut: t.HeldOutText(), Warnings: t.Warnings}
			if cfg.Out != "" {
				info := ModelInfo{Data: cfg.Data, Y: cfg.Y, YPositive: cfg.YPositive, Z: cfg.Z, ZPositive: cfg.ZPositive,
					Method: m.String(), Lambda: cfg.Lambda, Seed: seed, Encoder: d.Encoder, Classes: d.Classes}
				if err := SaveModel(ModelDir(cfg.Out, m, seed), t.Model, info); err != nil {
					return nil, err
				}
				if err := writeJSON(RunPath(cfg.Out, m, seed), rf); err != nil {
					return nil, err
				}
			}
			if err := finish(rf); err != nil {
				return nil, err
			}
		}
	}
	if len(res.Rows) > 0 && allHeldOutUnreliable(res.Rows) {
		warn.add("every held-out stratum of every model is unreliable (see heldout.txt): the held-out MMD² estimates rest on too few effective test rows to say much; " +
			"use more test rows (-test-frac, or -split) or a smaller -min-ess only if you accept noisier estimates")
	}
	res.Warnings = warn.all
	return res, nil
}

// allHeldOutUnreliable reports whether every model's held-out estimates flag every
// stratum unreliable.
func allHeldOutUnreliable(rows []Row) bool {
	for _, r := range rows {
		if !r.AllUnreliable {
			return false
		}
	}
	return true
}
