package owndata

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Plan is a fit made ready to run: its settings checked, its table read, encoded and
// split, its output folder (Config.Out) locked and checked, and its runs — one per method
// and seed, in the order of the results table — with those that an earlier run's files
// already hold (Config.Resume). Close releases the folder.
type Plan struct {
	Config Config
	Data   *Data
	Runs   []Run
	out    *outFolder // nil without Config.Out
	hash   string     // the table's content hash (tabular.Table.Digest)
	warn   *warner
	log    io.Writer
}

// Run is one model of a plan: the method and seed h is trained with, and the run file of
// an earlier run that Execute keeps instead of training again (nil: to train).
type Run struct {
	Method method.Method
	Seed   uint64
	Kept   *RunFile
	Lambda float64 // the penalty weight h is trained at
	// atLambda: a run of a fit over several λ (Config.Lambdas), named METHOD-lambdaL-seedS.
	atLambda bool
}

// Name is the run's name, METHOD-seedS, as its run file and model folder are named.
func (r Run) Name() string {
	if r.atLambda {
		return lambdaRunName(r.Method.String(), r.Lambda, r.Seed)
	}
	return runName(r.Method, r.Seed)
}

// Observer hears of a fit as it runs: Started once G and m are fitted (or all runs are
// kept), before any h is trained; Finished for each run as it finishes or is kept, in the
// order of Plan.Runs (t is nil for a kept run), after the result has taken its row. An
// error stops the fit. The output folder is one: it writes config.json on Started and each
// run's model, run file and the tables on Finished.
type Observer interface {
	Started(p *Plan, r *Result) error
	Finished(p *Plan, r *Result, rf RunFile, t *Trained) error
}

// Prepare plans a fit of the CSV file cfg.Data: it validates cfg (a *FieldError names the
// first setting refused), opens the output folder cfg.Out (created, locked against a
// second writer, checked against what it holds) before the file is read, reads the file
// (stopping once ctx is done) and makes the plan as PrepareTable does. The caller must
// Close the plan.
func Prepare(ctx context.Context, cfg Config) (*Plan, error) { return PrepareTable(ctx, nil, cfg) }

// PrepareTable plans a fit of the table tab, held in memory (tabular.NewTable) or read
// already: cfg is validated as by Prepare except that Data, which only names the table
// in messages and records, may be empty (tab.File is used). A nil tab is Prepare's: the
// file cfg.Data, read once the output folder is open. The caller must Close the plan.
func PrepareTable(ctx context.Context, tab *tabular.Table, cfg Config) (*Plan, error) {
	if err := cfg.validate(tab == nil); err != nil {
		return nil, err
	}
	if err := ctx.Err(); tab != nil && err != nil { // a file's read stops on ctx itself
		return nil, err
	}
	if cfg.Data == "" {
		cfg.Data = tab.File
	}
	var out *outFolder
	var note string
	var err error
	if cfg.Out != "" {
		if out, note, err = openOut(cfg); err != nil {
			return nil, err
		}
	}
	if tab == nil {
		keys := cfg.columnKeys(map[string]string{cfg.Split: "Split"})
		if tab, err = readCSV(ctx, cfg.Data, cfg.spec().Columns(), cfg.Names, keys); err != nil {
			out.abandon()
			return nil, err
		}
	}
	return newPlan(tab, cfg, out, note)
}

// newPlan makes the plan of tab under cfg, with its output folder out (nil for none),
// whose opening said note; it closes out on an error.
func newPlan(tab *tabular.Table, cfg Config, out *outFolder, note string) (_ *Plan, err error) {
	defer func() {
		if err != nil {
			out.abandon()
		}
	}()
	p := &Plan{Config: cfg, out: out, warn: &warner{w: cfg.Warn}, log: orDiscard(cfg.Log)}
	p.warn.add(note)
	if p.Data, err = prepareData(tab, cfg); err != nil {
		return nil, err
	}
	d, sp := p.Data, p.Data.Splits
	p.warn.add(d.Warnings...)
	p.warn.add(leakWarnings(d, cfg.Y, cfg.name("X"))...)
	p.describe()
	w, err := checkSplitCells(cfg, sp, d.Classes)
	if err != nil {
		return nil, err
	}
	p.warn.add(w...)
	p.hash = tab.Digest()
	kept := map[string]RunFile{}
	if out != nil {
		if kept, err = out.prepare(p.hash); err != nil {
			return nil, err
		}
	}
	for _, r := range runsOf(cfg) {
		if rf, ok := kept[r.Name()]; ok {
			r.Kept = &rf
		}
		p.Runs = append(p.Runs, r)
	}
	return p, nil
}

// describe reports the table, the nuisance and each split to the log.
func (p *Plan) describe() {
	cfg, d, log := p.Config, p.Data, p.log
	fmt.Fprintf(log, "%s: %d rows read; %d inputs from %d feature columns\n", d.Table.File, d.Table.Len(), d.Encoder.Dim(), len(d.Encoder.Features))
	fmt.Fprintf(log, "nuisance Z (%s): %v, %s\n", cfg.Z, d.Splits.Train.Nuisance, d.ZKindWhy)
	if d.ZMap != nil {
		fmt.Fprintf(log, "  penalty and estimates: the joint MMD² between p(h, Z) and p(h)p(Z) within each Y stratum, kernel on Z: %s\n", d.ZMap.Describe())
	}
	if len(d.Classes) > 2 {
		fmt.Fprintf(log, "label %s: %d classes %s\n", cfg.Y, len(d.Classes), strings.Join(d.Classes, ", "))
	}
	sp := d.Splits
	for _, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		missing := invmmd.Rows{Z: s.Z}.MissingZ()
		if s.Nuisance.Kind == dataset.BinaryZ && len(d.Classes) > 2 {
			var cells []string
			for y, c := range classCells(s) {
				cells = append(cells, fmt.Sprintf("%s: Z0=%d Z1=%d", d.Classes[y], c[0], c[1]))
			}
			fmt.Fprintf(log, "  %s: %d rows, %d with Z missing; observed Z by class %s\n", s.Name, s.Len(), missing, strings.Join(cells, "; "))
			continue
		}
		if s.Nuisance.Kind != dataset.BinaryZ || len(d.Classes) > 2 {
			fmt.Fprintf(log, "  %s: %d rows, %d with Z missing; rows by class %s\n", s.Name, s.Len(), missing, classShares(s, d.Classes))
			continue
		}
		c := ObservedCells(s)
		fmt.Fprintf(log, "  %s; observed (Y,Z) cells Y0Z0=%d Y0Z1=%d Y1Z0=%d Y1Z1=%d\n", s.Summarize(), c[0][0], c[0][1], c[1][0], c[1][1])
	}
}

// Close releases the plan's output folder (its lock); the results written stay.
func (p *Plan) Close() error { return p.out.close() }

// FitNuisances fits G = P(Δ = 1 | X, Y) and m = E[ψ(Z) | X, Y] on the training split (the
// validation split stopping their training), as Execute does once before any h. For a
// continuous or vector Z whose kernel's bandwidth is data-driven, it fits G first, refixes
// the kernel (Data.ZMap) from the observed training Z weighted by 1/Ĝ (the full data's
// median distance, which the missingness does not move), then fits m for it; for a Z that
// is not binary it then sets Data.JointScale (the training penalty's only). It stops once ctx is done, with an error
// wrapping ctx's. Where no row of any split has Z missing it fits neither G nor m (Ĝ = 1,
// m̂ = Z, at which dr = ip = full; AuxReport.Observed).
func (p *Plan) FitNuisances(ctx context.Context) (*train.Aux, AuxReport, error) {
	d, cfg := p.Data, p.Config
	tr := d.Splits.Train
	weigh := d.ZMap != nil && cfg.ZMap.Bandwidth == 0 && (tr.Nuisance.Kind == dataset.ContinuousZ || tr.Nuisance.Kind == dataset.VectorZ)
	var aux *train.Aux
	var rep AuxReport
	var err error
	missing := 0
	for _, s := range []*dataset.Set{tr, d.Splits.Val, d.Splits.Test} {
		missing += invmmd.Rows{Z: s.Z}.MissingZ()
	}
	if missing == 0 {
		// G's target would be all ones and m would never stand in for a Z: fit neither.
		aux, err = observedAux(d.Splits, d.ZMap)
		rep = AuxReport{Observed: true, MinG: 1, Rows: tr.Len()}
	} else if !weigh {
		aux, rep, err = fitAux(ctx, cfg.Backend, cfg.Nets, d.Splits, d.ZMap)
	} else {
		aux, rep, err = p.fitWeighted(ctx)
	}
	if err != nil {
		return nil, rep, err
	}
	if d.ZMap != nil {
		psi, err := invmmd.Apply(d.ZMap, tr.ObservedZ())
		if err != nil {
			return nil, rep, err
		}
		if d.JointScale, err = invmmd.JointScaleFor(psi, tr.Y, tr.Delta); err != nil {
			return nil, rep, fmt.Errorf("the penalty's scale: %w", err)
		}
		fmt.Fprintf(p.log, "  the training penalty's joint MMD² scaled by 2/v² = %.4g, v the within-stratum variance of Z's features on the training split: the scale at which λ weighs it as the paper's λ weighs its MMD² for a binary Z (the held-out estimates are unscaled, as estimate prints them)\n", d.JointScale)
	}
	return aux, rep, nil
}

// fitWeighted fits G, refixes the kernel on Z with the observed training rows weighted by
// 1/Ĝ, and fits m for it.
func (p *Plan) fitWeighted(ctx context.Context) (*train.Aux, AuxReport, error) {
	d, cfg := p.Data, p.Config
	tr := d.Splits.Train
	gAux, gRep, err := fitAux(ctx, cfg.Backend, cfg.Nets, d.Splits, d.ZMap, train.RoleG)
	if err != nil {
		return nil, gRep, err
	}
	plain := bandwidthOfMap(d.ZMap)
	zmap, err := zKernelWeighted(cfg.Columns, d.Table.File, tr.Nuisance, tr.ObservedZ(), gAux.Train.G)
	if err != nil {
		return nil, gRep, err
	}
	d.ZMap = zmap
	fmt.Fprintf(p.log, "  kernel on Z refixed with the observed training Z weighted by 1/Ĝ: bandwidth %.4g (equal weights: %.4g), %s\n", bandwidthOfMap(zmap), plain, zmap.Describe())
	mAux, mRep, err := fitAux(ctx, cfg.Backend, cfg.Nets, d.Splits, zmap, train.RoleM)
	if err != nil {
		return nil, mRep, err
	}
	gRep.M, gRep.MStop = mRep.M, mRep.MStop
	return mAux.WithG(gAux), gRep, nil
}

// Execute runs the plan: it fits G and m (unless every run is kept), then trains and
// evaluates h for each run not kept, telling the output folder (when Config.Out is set)
// and then each of observers as each run finishes. Once ctx is done it stops within moments,
// with the result so far and an error wrapping ctx's: every run finished by then has been
// told to the observers (its files are on disk), and the one in progress is dropped.
func (p *Plan) Execute(ctx context.Context, observers ...Observer) (*Result, error) {
	if p.out != nil {
		observers = append([]Observer{p.out}, observers...)
	}
	res := &Result{Data: p.Data, Majority: Majority(p.Data.Splits.Test)}
	defer func() { res.Warnings = p.warn.all }()
	if slices.ContainsFunc(p.Runs, func(r Run) bool { return r.Kept == nil }) {
		aux, rep, err := p.FitNuisances(ctx)
		if err != nil {
			return res, err
		}
		fmt.Fprint(p.log, rep)
		p.warn.add(rep.Warning(p.Config.Names))
		res.Aux, res.AuxFit = aux, rep
	}
	for _, o := range observers {
		if err := o.Started(p, res); err != nil {
			return res, err
		}
	}
	var held strings.Builder
	for _, run := range p.Runs {
		rf, t := run.Kept, (*Trained)(nil)
		if rf != nil {
			fmt.Fprintf(p.log, "%s: kept from %s (%s)\n", run.Name(), filepath.Join(p.Config.Out, RunsDir, run.Name()+".json"), p.Config.name("Resume"))
			res.Resumed++
		} else {
			var err error
			if t, err = p.trainRun(ctx, res.Aux, run); err != nil {
				if ctx.Err() != nil {
					return res, fmt.Errorf("stopped while training h with %v (seed %d), %d of %d runs finished: %w", run.Method, run.Seed, len(res.Rows), len(p.Runs), ctx.Err())
				}
				return res, err
			}
			p.warn.add(t.Warnings...)
			rf = &RunFile{Settings: settingsOf(p.Config, p.hash), Classes: p.Data.Classes, Row: t.Row, HeldOut: t.HeldOutText(), Warnings: t.Warnings}
		}
		res.Rows = append(res.Rows, rf.Row)
		held.WriteString(rf.HeldOut)
		res.HeldOut = held.String()
		for _, o := range observers {
			if err := o.Finished(p, res, *rf, t); err != nil {
				return res, err
			}
		}
	}
	p.warn.add(SteeringWarnings(res.Rows, res.Majority, p.Config)...)
	if len(res.Rows) > 0 && !slices.ContainsFunc(res.Rows, func(r Row) bool { return !r.AllUnreliable }) {
		p.warn.add("every held-out stratum of every model is unreliable (see heldout.txt): the held-out MMD² estimates rest on too few effective test rows to say much; " +
			"use more test rows (" + p.Config.name("TestFrac") + ", or " + p.Config.name("Split") + ") or a smaller " + p.Config.name("MinESS") + " only if you accept noisier estimates")
	}
	return res, nil
}

// SteeringWarnings says which penalised fits of a table's rows ended below the majority
// baseline (more than 0.005 below it) and why, by comparison with none's fit of the same
// seed; Execute (and so Fit and invmmd fit) adds them to its warnings, and a caller that
// trains fit by fit with Plan.Train calls it on the rows it collected. A fit below none's
// by more than 0.01 may be steered by its penalty (a smaller λ would tell); one no worse than none's shares none's
// weakness (the features say little of the label), which is no fault of the penalty; one
// without none's fit to compare says how to find out.
func SteeringWarnings(rows []Row, majority float64, cfg Config) []string {
	none := map[uint64]float64{}
	for _, r := range rows {
		if r.Method == method.None.String() {
			none[r.Seed] = r.TestAcc
		}
	}
	var out []string
	for _, r := range rows {
		if r.Method == method.None.String() || !(r.TestAcc < majority-0.005) {
			continue
		}
		base, ok := none[r.Seed]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("h (%s, seed %d): test accuracy %.3f is below the majority baseline %.3f; train none alongside (%s) to tell whether the penalty is the cause",
				r.Method, r.Seed, r.TestAcc, majority, cfg.name("Methods")))
		case r.TestAcc < base-0.01:
			out = append(out, fmt.Sprintf("h (%s, seed %d): test accuracy %.3f is below the majority baseline %.3f and below none's %.3f on the same seed: the penalty may be steering h (see the held-out diagnostics; try a smaller %s)",
				r.Method, r.Seed, r.TestAcc, majority, base, cfg.name("Lambda")))
		default:
			out = append(out, fmt.Sprintf("h (%s, seed %d): test accuracy %.3f is below the majority baseline %.3f, as none's is (%.3f): the features say little of the label here; the penalty is not the cause",
				r.Method, r.Seed, r.TestAcc, majority, base))
		}
	}
	return out
}
