package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// tableFlags are the flags that say which columns of a CSV file are what (fit and estimate).
type tableFlags struct {
	data, y, z, yPos, zPos, x string
}

func (t *tableFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.data, "data", "", "CSV file with a header line (required)")
	fs.StringVar(&t.y, "y", "", "label column, binary (required)")
	fs.StringVar(&t.z, "z", "", "nuisance column, binary; empty, NA or NaN cells are missing Z (required)")
	fs.StringVar(&t.yPos, "y-positive", "", "the label's value read as Y = 1, when the column is not 0/1")
	fs.StringVar(&t.zPos, "z-positive", "", "the nuisance's value read as Z = 1, when the column is not 0/1")
	fs.StringVar(&t.x, "x", "", "comma-separated feature columns (default: every other column)")
}

// check refuses a command line without the required flags, before any work.
func (t *tableFlags) check(extra ...[2]string) error {
	for _, f := range append([][2]string{{"data", t.data}, {"y", t.y}, {"z", t.z}}, extra...) {
		if f[1] == "" {
			return fmt.Errorf("flag -%s is required", f[0])
		}
	}
	return nil
}

// columns returns the -x columns, or nil for "every other column".
func (t *tableFlags) columns() []string {
	var out []string
	for _, c := range strings.Split(t.x, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// netFlags are the network and training flags shared by fit and estimate.
type netFlags struct {
	hidden      string
	epochs, aux int
	batch       int
	lr          float64
	minESS      float64
	seedAux     uint64
}

func (n *netFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&n.hidden, "hidden", "32,32", "hidden layer widths of every MLP (h, G and m)")
	fs.IntVar(&n.epochs, "epochs", 100, "training epochs of h (the best epoch by validation objective is kept)")
	fs.IntVar(&n.aux, "aux-epochs", 60, "training epochs of G and m")
	fs.IntVar(&n.batch, "batch", 2048, "rows per step (capped at the training rows); smaller batches leave fewer effective rows per stratum")
	fs.Float64Var(&n.lr, "lr", 5e-3, "Adam learning rate")
	fs.Float64Var(&n.minESS, "min-ess", invmmd.DefaultMinESS, "Kish effective sample size under which a stratum is flagged unreliable (and dropped from the training penalty)")
	fs.Uint64Var(&n.seedAux, "aux-seed", 1, "seed of G and m")
}

func (n *netFlags) widths() ([]int, error) {
	var out []int
	for _, p := range strings.Split(n.hidden, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("-hidden %q: want comma-separated positive widths", n.hidden)
		}
		out = append(out, v)
	}
	switch {
	case n.epochs < 1 || n.aux < 1:
		return nil, fmt.Errorf("-epochs %d, -aux-epochs %d: want at least 1", n.epochs, n.aux)
	case n.batch < 2:
		return nil, fmt.Errorf("-batch %d: want at least 2", n.batch)
	case !(n.lr > 0) || math.IsInf(n.lr, 0):
		return nil, fmt.Errorf("-lr %v: want a finite value > 0", n.lr)
	case !(n.minESS > 0) || math.IsInf(n.minESS, 0):
		return nil, fmt.Errorf("-min-ess %v: want a finite value > 0", n.minESS)
	}
	return out, nil
}

// fitAux fits G (target Δ) and m (target Z where observed) on (X, Y) and prints their reports.
func fitAux(sp dataset.Splits, hidden []int, nf netFlags, stdout, stderr io.Writer) (*train.Aux, error) {
	aux, err := train.FitAux(sp, func(_ train.Role, seed uint64) models.Net { return models.MLP{Hidden: hidden, Seed: seed} },
		train.AuxConfig{BatchSize: min(nf.batch, sp.Train.Len()), Epochs: nf.aux, LearningRate: nf.lr, Seed: nf.seedAux})
	if err != nil {
		return nil, fmt.Errorf("fitting G and m: %w", err)
	}
	minG, low := math.Inf(1), 0
	for _, g := range aux.Train.G {
		minG = math.Min(minG, g)
		if g < invmmd.DefaultGFloor {
			low++
		}
	}
	fmt.Fprintf(stdout, "auxiliary models, fitted on (X, Y) of the training split, best epoch by validation NLL:\n  %v\n  %v\n  min Ĝ on training rows %.4f (floor %.2f)\n",
		aux.G, aux.M, minG, invmmd.DefaultGFloor)
	if low > 0 {
		fmt.Fprintf(stderr, "warning: Ĝ < %.2f on %d of %d training rows: Z is (almost) never observed for rows like these, so no estimator "+
			"can recover their Z (positivity fails); ip and dr then speak for the rows where Z can be observed\n", invmmd.DefaultGFloor, low, len(aux.Train.G))
	}
	return aux, nil
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

func warnAll(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
}

// modelFile is what `invmmd fit` saves beside each trained model's weights, and what
// `invmmd predict` needs to use it.
type modelFile struct {
	Data      string           `json:"data"`
	Y         string           `json:"y"`
	YPositive string           `json:"y_positive,omitempty"`
	Method    string           `json:"method"`
	Lambda    float64          `json:"lambda"`
	Seed      uint64           `json:"seed"`
	Hidden    []int            `json:"hidden"`
	Encoder   *tabular.Encoder `json:"encoder"`
	Inputs    []string         `json:"inputs"`
}

// fitRow is one line of fit's results table.
type fitRow struct {
	Method              string
	Seed                uint64
	TestAcc, TestAUC    float64
	ValAcc              float64
	DR, IP              float64
	DRSE, IPSE          float64
	Unreliable, Dropped string
	Warning             string
}

func runFit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fit", "-data FILE.csv -y COL -z COL [-x COLS] [-split COL | -val-frac F -test-frac F] [-methods ...] [-lambda L] [-seeds ...] [-out DIR]", stderr, nil)
	var tf tableFlags
	var nf netFlags
	tf.register(fs)
	nf.register(fs)
	split := fs.String("split", "", "column whose values (train, val, test) give each row's split (default: a random split)")
	valFrac := fs.Float64("val-frac", 0.2, "share of rows for validation, without -split")
	testFrac := fs.Float64("test-frac", 0.2, "share of rows for test, without -split")
	methods := fs.String("methods", "none,obs,ip,reg,dr,dr-po", "comma-separated methods to train h with")
	lambda := fs.Float64("lambda", 1, "penalty weight λ")
	seeds := fs.String("seeds", "1", "comma-separated seeds of h (and of the random split: the first)")
	out := fs.String("out", "invmmd-fit", "output folder: results.csv, results.md, config.json, models/")
	keep := fs.Bool("keep-unreliable", false, "keep strata flagged unreliable in the training penalty (the paper's behaviour); by default they are dropped, with a warning")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := tf.check(); err != nil {
		return err
	}
	ms, err := parseMethods(*methods)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.NeedsTrueG() {
			return fmt.Errorf("method %v needs the true P(Δ = 1 | X, Y), which only a simulation knows; use %v", m, strings.TrimSuffix(m.String(), "+"))
		}
	}
	if *lambda < 0 || math.IsNaN(*lambda) || math.IsInf(*lambda, 0) {
		return fmt.Errorf("-lambda %v: want a finite value ≥ 0", *lambda)
	}
	seedList, err := parseSeeds(*seeds)
	if err != nil {
		return err
	}
	hidden, err := nf.widths()
	if err != nil {
		return err
	}
	spec := tabular.Spec{Y: tf.y, Z: tf.z, YPositive: tf.yPos, ZPositive: tf.zPos, X: tf.columns(), Split: *split,
		ValFrac: *valFrac, TestFrac: *testFrac, Seed: seedList[0]}
	t0 := time.Now()
	tab, err := readTable(tf.data, spec.Columns(), map[string]string{tf.y: "-y", tf.z: "-z", *split: "-split"})
	if err != nil {
		return err
	}
	d, err := tabular.Build(tab, spec)
	if err != nil {
		return err
	}
	warnAll(stderr, d.Warnings)
	sp := d.Splits
	for _, m := range ms {
		if m == invmmd.Full && !sp.Train.ZKnown() {
			return fmt.Errorf("method full needs Z on every row and %s has %d training rows with Z missing; drop it or use dr, ip or reg", tf.data, invmmd.Rows{Z: sp.Train.Z}.MissingZ())
		}
	}
	fmt.Fprintf(stdout, "%s: %d rows read in %.1fs; %d inputs from %d feature columns\n", tf.data, tab.Len(), time.Since(t0).Seconds(), d.Encoder.Dim(), len(d.Encoder.Features))
	for _, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		sum := s.Summarize()
		fmt.Fprintf(stdout, "  %s; observed (Y,Z) cells %v\n", sum, observedCells(s))
	}
	aux, err := fitAux(sp, hidden, nf, stdout, stderr)
	if err != nil {
		return err
	}
	majority := 0.0
	for _, y := range sp.Test.Y {
		majority += y
	}
	majority = math.Max(majority, float64(sp.Test.Len())-majority) / float64(sp.Test.Len())
	if err := os.MkdirAll(filepath.Join(*out, "models"), 0o755); err != nil {
		return err
	}
	var rows []fitRow
	var heldText strings.Builder
	for _, seed := range seedList {
		for _, m := range ms {
			cfg := train.Config{Method: m, Lambda: *lambda, BatchSize: min(nf.batch, sp.Train.Len()), Epochs: nf.epochs,
				LearningRate: nf.lr, Seed: seed, Estimator: invmmd.Options{MinESS: nf.minESS, DropUnreliable: !*keep}}
			net := models.MLP{Hidden: hidden, Seed: seed}
			model, hist, err := train.Fit(sp, aux, net, cfg)
			if err != nil {
				return fmt.Errorf("training h with %v (seed %d): %w", m, seed, err)
			}
			met, held, err := train.EvaluateWith(model, sp, aux, invmmd.Options{MinESS: nf.minESS})
			if err != nil {
				return err
			}
			r := fitRow{Method: m.String(), Seed: seed, TestAcc: met.TestAcc, TestAUC: met.TestAUC, ValAcc: met.ValAcc,
				DR: held[0].Value, IP: held[1].Value, DRSE: held[0].ValueSE, IPSE: held[1].ValueSE, Unreliable: unreliableList(held), Dropped: strconv.Itoa(hist.DroppedStrata)}
			var warn []string
			if w := hist.Warning(); w != "" {
				warn = append(warn, w)
			}
			if met.TestAcc < majority-0.005 {
				warn = append(warn, fmt.Sprintf("h (%v): test accuracy %.3f is below the majority baseline %.3f; the penalty may be steering h (see the held-out diagnostics; try a smaller -lambda)", m, met.TestAcc, majority))
			}
			warnAll(stderr, warn)
			r.Warning = strings.Join(warn, " | ")
			rows = append(rows, r)
			fmt.Fprintf(&heldText, "h trained with %v (seed %d), held-out test estimates:\n", m, seed)
			for _, res := range held {
				fmt.Fprintf(&heldText, "  %s\n", strings.ReplaceAll(res.String(), "\n", "\n  "))
			}
			dir := filepath.Join(*out, "models", fmt.Sprintf("%s-seed%d", m, seed))
			if err := saveModel(dir, model, modelFile{Data: tf.data, Y: tf.y, YPositive: tf.yPos, Method: m.String(), Lambda: *lambda,
				Seed: seed, Hidden: hidden, Encoder: d.Encoder, Inputs: d.Encoder.Names()}); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(stdout, "\nmajority baseline on test: %.3f\n\n", majority)
	md := fitMarkdown(rows)
	fmt.Fprint(stdout, md)
	fmt.Fprintf(stdout, "\n%s", heldText.String())
	cfgJSON, _ := json.MarshalIndent(map[string]any{"args": args, "spec": spec, "methods": *methods, "lambda": *lambda,
		"seeds": seedList, "hidden": hidden, "epochs": nf.epochs, "aux_epochs": nf.aux, "batch": nf.batch, "lr": nf.lr,
		"min_ess": nf.minESS, "drop_unreliable": !*keep, "aux_seed": nf.seedAux, "majority_baseline": majority,
		"aux": map[string]any{"G": aux.G.String(), "m": aux.M.String()}, "inputs": d.Encoder.Names()}, "", "  ")
	for name, body := range map[string]string{"results.md": md, "config.json": string(cfgJSON) + "\n", "heldout.txt": heldText.String()} {
		if err := os.WriteFile(filepath.Join(*out, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	if err := writeFitCSV(filepath.Join(*out, "results.csv"), rows); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nWrote %s/results.csv, results.md, heldout.txt, config.json and models/\n", *out)
	return nil
}

func observedCells(s *dataset.Set) string {
	var c [2][2]int
	for i := range s.Y {
		if s.Delta[i] == 1 {
			c[int(s.Y[i])][int(s.Z[i])]++
		}
	}
	return fmt.Sprintf("Y0Z0=%d Y0Z1=%d Y1Z0=%d Y1Z1=%d", c[0][0], c[0][1], c[1][0], c[1][1])
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

func saveModel(dir string, model *train.Model, mf modelFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(mf, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return model.Save(filepath.Join(dir, "weights.json"))
}

func fitMarkdown(rows []fitRow) string {
	var b strings.Builder
	b.WriteString("| method | seed | test acc | test AUC | val acc | held-out MMD² dr ± SE | held-out MMD² ip ± SE | unreliable strata (held-out) | strata dropped in training |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		u := r.Unreliable
		if u == "" {
			u = "none"
		}
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %.4f ± %.4f | %.4f ± %.4f | %s | %s |\n", r.Method, r.Seed, r.TestAcc, r.TestAUC, r.ValAcc, r.DR, r.DRSE, r.IP, r.IPSE, u, r.Dropped)
	}
	return b.String()
}

func writeFitCSV(path string, rows []fitRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"method", "seed", "test_acc", "test_auc", "val_acc", "heldout_mmd_dr", "heldout_mmd_dr_se", "heldout_mmd_ip", "heldout_mmd_ip_se", "unreliable", "dropped_strata", "warning"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for _, r := range rows {
		_ = w.Write([]string{r.Method, strconv.FormatUint(r.Seed, 10), g(r.TestAcc), g(r.TestAUC), g(r.ValAcc), g(r.DR), g(r.DRSE), g(r.IP), g(r.IPSE), r.Unreliable, r.Dropped, r.Warning})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
