package owndata

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Row is one trained model's line of the results table.
type Row struct {
	Method           string
	Seed             uint64
	TestAcc, TestAUC float64
	ValAcc           float64
	DR, IP           float64 // held-out MMD² of h on the test split by dr and ip
	DRSE, IPSE       float64 // their jackknife standard errors
	Unreliable       string  // held-out strata flagged unreliable, "METHOD: Y=[...]; ..."; empty when none
	Dropped          int     // stratum penalties dropped as unreliable during training
	Warning          string  // the model's warnings joined by " | "
}

// Trained is h trained with one method and seed, evaluated on the splits.
type Trained struct {
	Row      Row
	Model    *train.Model
	History  *train.History
	Metrics  train.Metrics
	HeldOut  []invmmd.Result // dr and ip on the test split, with their diagnostics
	Warnings []string
}

// HeldOutText renders the held-out estimates with their terms and diagnostics (a block of
// heldout.txt).
func (t *Trained) HeldOutText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "h trained with %s (seed %d), held-out test estimates:\n", t.Row.Method, t.Row.Seed)
	for _, res := range t.HeldOut {
		fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(res.String(), "\n", "\n  "))
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
}

// Result is what Fit returns: the data, the auxiliary models and every trained model's
// row, with the held-out diagnostics and the warnings.
type Result struct {
	Data     *Data
	Aux      *train.Aux
	Majority float64 // test accuracy of always predicting the more common label
	Rows     []Row
	HeldOut  string // the held-out estimates of every model, as heldout.txt holds them
	Warnings []string
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
	d, err := tabular.Build(tab, spec)
	if err != nil {
		return nil, err
	}
	out := &Data{Data: d, Table: tab, Seconds: time.Since(t0).Seconds(), ZKindWhy: why}
	if tr := d.Splits.Train; tr.Nuisance.Kind != dataset.BinaryZ {
		if out.ZMap, err = invmmd.NewMap(tr.Nuisance, observedZ(tr), cfg.ZMap); err != nil {
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

// AuxReport says how G and m fit and how small Ĝ gets on the training rows.
type AuxReport struct {
	G, M     train.FitReport
	MinG     float64 // the smallest Ĝ on a training row
	BelowMin int     // training rows with Ĝ below invmmd.DefaultGFloor
	Rows     int     // training rows
}

// String renders the report as invmmd fit prints it.
func (r AuxReport) String() string {
	return fmt.Sprintf("auxiliary models, fitted on (X, Y) of the training split, best epoch by validation NLL:\n  %v\n  %v\n  min Ĝ on training rows %.4f (floor %.2f)\n",
		r.G, r.M, r.MinG, invmmd.DefaultGFloor)
}

// Warning says that positivity fails when some Ĝ is below the floor, and that m learned
// nothing when its validation NLL is not below the marginal model's (a nuisance that is
// not binary); empty otherwise.
func (r AuxReport) Warning() string {
	var w []string
	if r.BelowMin > 0 {
		w = append(w, fmt.Sprintf("Ĝ < %.2f on %d of %d training rows: Z is (almost) never observed for rows like these, so no estimator "+
			"can recover their Z (positivity fails); ip and dr then speak for the rows where Z can be observed", invmmd.DefaultGFloor, r.BelowMin, r.Rows))
	}
	if r.M.HasBaseline && r.M.ValNLL >= r.M.BaselineNLL {
		w = append(w, fmt.Sprintf("m's validation NLL %.4f is not below the %.4f of the marginal model that ignores X and Y: m learned nothing about Z "+
			"(more -aux-epochs, or -x columns that predict Z); reg rests on it, dr's correction then rests on Ĝ alone", r.M.ValNLL, r.M.BaselineNLL))
	}
	return strings.Join(w, " | ")
}

// FitAux fits G (target Δ) and m (target Z where observed) on (X, Y) of the training
// split, MLPs of n.Hidden keeping their best epoch by validation NLL, on backend b (nil:
// backend.Shared()). zmap is the feature map of a nuisance that is not binary (Data.ZMap;
// m then predicts Ê[ψ(Z) | X, Y]), nil for a binary one.
func FitAux(b backends.Backend, n Nets, sp dataset.Splits, zmap invmmd.FeatureMap) (*train.Aux, AuxReport, error) {
	hidden := n.Hidden
	aux, err := train.FitAux(sp, func(_ train.Role, seed uint64) models.Net { return models.MLP{Hidden: hidden, Seed: seed} },
		train.AuxConfig{BatchSize: min(n.Batch, sp.Train.Len()), Epochs: n.AuxEpochs, LearningRate: n.LearningRate, Seed: n.AuxSeed, Backend: b, ZMap: zmap})
	if err != nil {
		return nil, AuxReport{}, fmt.Errorf("fitting G and m: %w", err)
	}
	r := AuxReport{G: aux.G, M: aux.M, MinG: math.Inf(1), Rows: len(aux.Train.G)}
	for _, g := range aux.Train.G {
		r.MinG = math.Min(r.MinG, g)
		if g < invmmd.DefaultGFloor {
			r.BelowMin++
		}
	}
	return aux, r, nil
}

// Majority returns the accuracy of always predicting the more common label of s.
func Majority(s *dataset.Set) float64 {
	p := 0.0
	for _, y := range s.Y {
		p += y
	}
	return math.Max(p, float64(s.Len())-p) / float64(s.Len())
}

// observedZ returns s's Z with NaN where Δ = 0: the values a feature map is fixed from.
func observedZ(s *dataset.Set) []float64 {
	q := s.Nuisance.Width()
	z := append([]float64(nil), s.Z...)
	for i, d := range s.Delta {
		if d == 0 {
			for j := 0; j < q; j++ {
				z[i*q+j] = math.NaN()
			}
		}
	}
	return z
}

// ObservedCells counts the rows of s with Z observed in each (Y, Z) cell of a binary Z,
// indexed [y][z].
func ObservedCells(s *dataset.Set) [2][2]int {
	var c [2][2]int
	for i := range s.Y {
		if s.Delta[i] == 1 {
			c[int(s.Y[i])][int(s.Z[i])]++
		}
	}
	return c
}

// TrainMethod trains h with method m and seed on sp (with the frozen auxiliary models aux),
// as Fit does for each of its methods and seeds, and evaluates it: test accuracy and AUC,
// and the held-out MMD² on the test split by dr and ip, with their diagnostics. Its
// warnings say when strata were dropped in training and when the test accuracy is below
// the majority baseline.
func TrainMethod(cfg Config, sp dataset.Splits, aux *train.Aux, m invmmd.Method, seed uint64) (*Trained, error) {
	tc := train.Config{Method: m, Lambda: cfg.Lambda, BatchSize: min(cfg.Batch, sp.Train.Len()), Epochs: cfg.Epochs,
		LearningRate: cfg.LearningRate, Seed: seed, Backend: cfg.Backend, Estimator: invmmd.Options{MinESS: cfg.MinESS, DropUnreliable: !cfg.KeepUnreliable}}
	model, hist, err := train.Fit(sp, aux, models.MLP{Hidden: cfg.Hidden, Seed: seed}, tc)
	if err != nil {
		return nil, fmt.Errorf("training h with %v (seed %d): %w", m, seed, err)
	}
	met, held, err := train.EvaluateWith(model, sp, aux, invmmd.Options{MinESS: cfg.MinESS})
	if err != nil {
		return nil, err
	}
	t := &Trained{Model: model, History: hist, Metrics: met, HeldOut: held}
	t.Row = Row{Method: m.String(), Seed: seed, TestAcc: met.TestAcc, TestAUC: met.TestAUC, ValAcc: met.ValAcc,
		DR: held[0].Value, IP: held[1].Value, DRSE: held[0].ValueSE, IPSE: held[1].ValueSE, Unreliable: unreliableList(held), Dropped: hist.DroppedStrata}
	if w := hist.Warning(); w != "" {
		t.Warnings = append(t.Warnings, w)
	}
	if majority := Majority(sp.Test); met.TestAcc < majority-0.005 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("h (%v): test accuracy %.3f is below the majority baseline %.3f; the penalty may be steering h (see the held-out diagnostics; try a smaller -lambda)", m, met.TestAcc, majority))
	}
	t.Row.Warning = strings.Join(t.Warnings, " | ")
	return t, nil
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

// Fit runs the whole workflow of invmmd fit: it reads and encodes the table, splits it,
// fits G and m, trains h with each method and seed, evaluates each on the test split,
// and, when cfg.Out is set, saves each model under Out/models/METHOD-seedS/ as it is
// trained and writes the result files at the end.
func Fit(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	warn := &warner{w: cfg.Warn}
	d, err := Read(cfg)
	if err != nil {
		return nil, err
	}
	warn.add(d.Warnings...)
	sp := d.Splits
	for _, m := range cfg.Methods {
		if m == invmmd.Full && !sp.Train.ZKnown() {
			return nil, fmt.Errorf("method full needs Z on every row and %s has %d training rows with Z missing; drop it or use dr, ip or reg", cfg.Data, invmmd.Rows{Z: sp.Train.Z}.MissingZ())
		}
	}
	fmt.Fprintf(log, "%s: %d rows read in %.1fs; %d inputs from %d feature columns\n", cfg.Data, d.Table.Len(), d.Seconds, d.Encoder.Dim(), len(d.Encoder.Features))
	fmt.Fprintf(log, "nuisance Z (%s): %v, %s\n", cfg.Z, sp.Train.Nuisance, d.ZKindWhy)
	if d.ZMap != nil {
		fmt.Fprintf(log, "  penalty and estimates: the joint MMD² between p(h, Z) and p(h)p(Z) within each Y stratum, kernel on Z: %s\n", d.ZMap.Describe())
	}
	for _, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		if s.Nuisance.Kind != dataset.BinaryZ {
			fmt.Fprintf(log, "  %s\n", s.Summarize())
			continue
		}
		c := ObservedCells(s)
		fmt.Fprintf(log, "  %s; observed (Y,Z) cells Y0Z0=%d Y0Z1=%d Y1Z0=%d Y1Z1=%d\n", s.Summarize(), c[0][0], c[0][1], c[1][0], c[1][1])
	}
	aux, rep, err := FitAux(cfg.Backend, cfg.Nets, sp, d.ZMap)
	if err != nil {
		return nil, err
	}
	fmt.Fprint(log, rep)
	if w := rep.Warning(); w != "" {
		warn.add(w)
	}
	res := &Result{Data: d, Aux: aux, Majority: Majority(sp.Test)}
	if cfg.Out != "" {
		if err := os.MkdirAll(filepath.Join(cfg.Out, "models"), 0o755); err != nil {
			return nil, err
		}
	}
	var held strings.Builder
	for _, seed := range cfg.Seeds {
		for _, m := range cfg.Methods {
			t, err := TrainMethod(cfg, sp, aux, m, seed)
			if err != nil {
				return nil, err
			}
			warn.add(t.Warnings...)
			res.Rows = append(res.Rows, t.Row)
			held.WriteString(t.HeldOutText())
			if cfg.Out == "" {
				continue
			}
			info := ModelInfo{Data: cfg.Data, Y: cfg.Y, YPositive: cfg.YPositive, Z: cfg.Z, ZPositive: cfg.ZPositive,
				Method: m.String(), Lambda: cfg.Lambda, Seed: seed, Encoder: d.Encoder}
			if err := SaveModel(ModelDir(cfg.Out, m, seed), t.Model, info); err != nil {
				return nil, err
			}
		}
	}
	res.HeldOut = held.String()
	res.Warnings = warn.all
	if cfg.Out != "" {
		if err := res.write(cfg); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// ModelDir returns the folder where Fit saves h trained with method m and seed under out:
// out/models/METHOD-seedS.
func ModelDir(out string, m invmmd.Method, seed uint64) string {
	return filepath.Join(out, "models", fmt.Sprintf("%s-seed%d", m, seed))
}

// Markdown renders the results table (results.md).
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| method | seed | test acc | test AUC | val acc | held-out MMD² dr ± SE | held-out MMD² ip ± SE | unreliable strata (held-out) | strata dropped in training |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		u := r.Unreliable
		if u == "" {
			u = "none"
		}
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %.4f ± %.4f | %.4f ± %.4f | %s | %d |\n", r.Method, r.Seed, r.TestAcc, r.TestAUC, r.ValAcc, r.DR, r.DRSE, r.IP, r.IPSE, u, r.Dropped)
	}
	return b.String()
}

// write writes results.md, config.json, heldout.txt and results.csv under cfg.Out.
func (r *Result) write(cfg Config) error {
	md := Markdown(r.Rows)
	cfgJSON, err := json.MarshalIndent(map[string]any{"args": cfg.Args, "spec": cfg.Spec(), "methods": MethodList(cfg.Methods), "lambda": cfg.Lambda,
		"seeds": cfg.Seeds, "hidden": cfg.Hidden, "epochs": cfg.Epochs, "aux_epochs": cfg.AuxEpochs, "batch": cfg.Batch, "lr": cfg.LearningRate,
		"min_ess": cfg.MinESS, "drop_unreliable": !cfg.KeepUnreliable, "aux_seed": cfg.AuxSeed, "majority_baseline": r.Majority,
		"aux": map[string]any{"G": r.Aux.G.String(), "m": r.Aux.M.String()}, "inputs": r.Data.Encoder.Names()}, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s/config.json: %w", cfg.Out, err)
	}
	for name, body := range map[string]string{"results.md": md, "config.json": string(cfgJSON) + "\n", "heldout.txt": r.HeldOut} {
		if err := os.WriteFile(filepath.Join(cfg.Out, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return writeCSV(filepath.Join(cfg.Out, "results.csv"), r.Rows)
}

// writeCSV writes the results table as CSV (results.csv), numbers with 8 significant digits.
func writeCSV(path string, rows []Row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"method", "seed", "test_acc", "test_auc", "val_acc", "heldout_mmd_dr", "heldout_mmd_dr_se", "heldout_mmd_ip", "heldout_mmd_ip_se", "unreliable", "dropped_strata", "warning"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for _, r := range rows {
		_ = w.Write([]string{r.Method, strconv.FormatUint(r.Seed, 10), g(r.TestAcc), g(r.TestAUC), g(r.ValAcc), g(r.DR), g(r.DRSE), g(r.IP), g(r.IPSE), r.Unreliable, strconv.Itoa(r.Dropped), r.Warning})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
