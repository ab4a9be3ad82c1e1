package experiments

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Diagnosis is the step-by-step record of one fit of h, to see how a penalty that an
// estimator can drive below 0, or noisy normalisers blow up, shapes the fit: every step's
// per-stratum estimates, every epoch's validation parts, and the outcome.
type Diagnosis struct {
	Experiment string
	Objective  string // the objective's name (Objectives)
	Key        store.Key
	Steps      []train.StepTrace
	History    *train.History
	Metrics    train.Metrics
}

// Diagnose fits h for method at λ on seed's data of exp once per objective (the paper's
// when none are given), as the sweep does (G and m fitted once), recording every step
// (train.Trace). Once ctx is done it returns with an error wrapping ctx.Err().
func Diagnose(ctx context.Context, exp Experiment, method method.Method, lambda float64, seed uint64, objectives []train.Objective, progress io.Writer) ([]*Diagnosis, error) {
	if !method.Penalised() {
		return nil, fmt.Errorf("experiments: Diagnose: method %v has no penalty to diagnose", method)
	}
	if len(objectives) == 0 {
		objectives = train.Objectives()[:1]
	}
	sp, err := exp.Data(seed)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s, seed %d: %w", exp.Name, seed, err)
	}
	zmap, scale, err := exp.nuisanceMap(sp)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s, seed %d: the kernel on Z: %w", exp.Name, seed, err)
	}
	var aux *train.Aux
	if method.NeedsG() || method.NeedsM() {
		if aux, err = exp.fitAux(ctx, sp, seed, zmap, RunConfig{Verbose: progress}); err != nil {
			return nil, err
		}
	}
	var out []*Diagnosis
	for _, o := range objectives {
		e := WithObjective(exp, o)
		d := &Diagnosis{Experiment: e.Name, Objective: o.Name, Key: store.Key{Method: method.String(), Lambda: lambda, Seed: seed}}
		rt := train.Runtime{Progress: progress, Hooks: []train.Hook{train.Trace(func(t train.StepTrace) { d.Steps = append(d.Steps, t) })}}
		if d.Metrics, d.History, err = e.fitH(ctx, sp, aux, d.Key, method, zmap, scale, rt); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Rows returns the diagnosis's steps as result rows (results.DiagnosisStep), numbered over
// the fit. It needs the two strata of a binary Z's conditional penalty.
func (d *Diagnosis) Rows() ([]results.DiagnosisStep, error) {
	out := make([]results.DiagnosisStep, len(d.Steps))
	for i, t := range d.Steps {
		if len(t.Strata) != 2 || len(t.Report.Strata) != 2 {
			return nil, fmt.Errorf("experiments: %s: step %d has %d strata; the diagnosis table needs a binary Z's two", d.Experiment, i+1, len(t.Strata))
		}
		out[i] = results.DiagnosisStep{Objective: d.Objective, Step: i + 1, Epoch: t.Epoch, NLL: t.NLL,
			MMD2: [2]float64{t.Strata[0], t.Strata[1]}, PZ1: [2]float64{t.Report.Strata[0].Mean[1], t.Report.Strata[1].Mean[1]},
			Floored: t.Report.FlooredNorms}
	}
	return out, nil
}

// DiagnosisSummary is what a diagnosis's config record says of each fit: its objective,
// selection and outcome.
type DiagnosisSummary struct {
	Objective                string
	BestEpoch, StopEpoch     int
	StopReason               train.StopReason
	BestVal                  float64
	TrainAcc, TestAcc        float64
	FlooredNorms, Steps      int
	StepsAbove1, StepsBelow0 int // steps with a stratum's estimate above 1 or below 0
	// BestValNLL and BestValStrata are the parts of BestVal: the kept epoch's validation
	// NLL and the method's raw estimate of each stratum's MMD² on the validation split
	// (BestVal = BestValNLL + λ·Σ of the strata, each clipped at 0 by a clipping objective).
	BestValNLL    float64
	BestValStrata []float64
}

// Summary returns the diagnosis's summary.
func (d *Diagnosis) Summary() DiagnosisSummary {
	s := DiagnosisSummary{Objective: d.Objective, BestEpoch: d.History.BestEpoch, StopEpoch: d.History.StopEpoch,
		StopReason: d.History.StopReason, BestVal: d.History.BestVal, TrainAcc: d.Metrics.TrainAcc, TestAcc: d.Metrics.TestAcc,
		FlooredNorms: d.History.FlooredNorms, Steps: len(d.Steps)}
	if k := d.History.BestEpoch; k >= 1 && k <= len(d.History.Epochs) {
		s.BestValNLL, s.BestValStrata = d.History.Epochs[k-1].ValNLL, d.History.Epochs[k-1].ValStrata
	}
	for _, t := range d.Steps {
		if slices.ContainsFunc(t.Strata, func(v float64) bool { return v > 1 }) {
			s.StepsAbove1++
		}
		if slices.ContainsFunc(t.Strata, func(v float64) bool { return v < 0 }) {
			s.StepsBelow0++
		}
	}
	return s
}

// DiagnosisName is the base name of a diagnosis's files: diagnosis_EXPERIMENT_METHOD_lambdaΛ_seedS.
func DiagnosisName(experiment string, k store.Key) string {
	return fmt.Sprintf("diagnosis_%s_%s_lambda%s_seed%d", experiment, k.Method, results.LambdaName(k.Lambda), k.Seed)
}

// DiagnosisRecord is what a diagnosis's config file holds: the fit diagnosed, the
// experiment's configuration and each objective's summary.
type DiagnosisRecord struct {
	Experiment string
	Method     string
	Lambda     float64
	Seed       uint64
	Config     Config
	Fits       []DiagnosisSummary
}

// WriteDiagnoses writes the diagnoses of one fit (one per objective, from Diagnose) of
// exp under dir/tables: the steps as DIAGNOSIS.csv (results.DiagnosisStep) and the record
// as DIAGNOSIS_config.json, DIAGNOSIS being DiagnosisName. It returns DIAGNOSIS.
func WriteDiagnoses(exp Experiment, ds []*Diagnosis, dir string) (string, error) {
	if len(ds) == 0 {
		return "", fmt.Errorf("experiments: WriteDiagnoses: no diagnosis")
	}
	cfg, err := ConfigOf(exp)
	if err != nil {
		return "", err
	}
	k := ds[0].Key
	rec := DiagnosisRecord{Experiment: exp.Name, Method: k.Method, Lambda: k.Lambda, Seed: k.Seed, Config: cfg}
	var rows []results.DiagnosisStep
	for _, d := range ds {
		r, err := d.Rows()
		if err != nil {
			return "", err
		}
		rows = append(rows, r...)
		rec.Fits = append(rec.Fits, d.Summary())
	}
	name := DiagnosisName(exp.Name, k)
	t := filepath.Join(dir, "tables")
	if err := results.WriteFile(filepath.Join(t, name+".csv"), func(w io.Writer) error { return results.WriteDiagnosisCSV(w, rows) }); err != nil {
		return "", err
	}
	return name, results.WriteJSON(filepath.Join(t, name+"_config.json"), rec)
}

// Fit names the diagnosed fit in a few words, for the figure: "sim_mf075, dr, λ = 5, seed 1".
func (r DiagnosisRecord) Fit() string {
	return fmt.Sprintf("%s, %s, λ = %s, seed %d", r.Experiment, r.Method, results.LambdaName(r.Lambda), r.Seed)
}

// Kept returns each objective's kept epoch and its validation values, for the figure; a
// fit whose record lacks the strata (fewer than two) is left out.
func (r DiagnosisRecord) Kept() []results.DiagnosisKept {
	var out []results.DiagnosisKept
	for _, f := range r.Fits {
		if f.BestEpoch < 1 || len(f.BestValStrata) < 2 {
			continue
		}
		out = append(out, results.DiagnosisKept{Objective: f.Objective, Epoch: f.BestEpoch, Val: f.BestVal,
			ValNLL: f.BestValNLL, ValStrata: [2]float64{f.BestValStrata[0], f.BestValStrata[1]}})
	}
	return out
}

// Labels names each objective's fit for the figure's legends, with its accuracies.
func (r DiagnosisRecord) Labels() map[string]string {
	out := map[string]string{}
	for _, f := range r.Fits {
		out[f.Objective] = fmt.Sprintf("%s: train acc %.2f", f.Objective, f.TrainAcc)
	}
	return out
}
