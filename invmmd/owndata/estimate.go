package owndata

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// EstimateConfig is one run of Estimate: which column holds the model outputs h, the
// estimators, and where G and m come from. DefaultEstimateConfig gives the defaults of
// invmmd estimate; set at least Data, Y, Z and H.
type EstimateConfig struct {
	Columns
	// Nets are the settings of the MLPs fitted for G and m on X when G or M is not given
	// (only Hidden, AuxEpochs, AuxPatience, Batch, LearningRate and AuxSeed matter) and
	// MinESS.
	Nets
	// H is the column of model outputs h, logits or scores, or several comma-separated
	// columns of one representation h ∈ ℝ^d (-h COL1,COL2,...), with the Gaussian kernel
	// on the Euclidean distance between rows.
	H string
	G string // a column of fitted P(Δ = 1 | X, Y) (-g); empty: fit an MLP on X
	M string // a column of fitted P(Z = 1 | X, Y) of a binary Z (-m); empty: fit an MLP on X
	// Methods are the estimators (full only when no Z is missing; none is refused).
	Methods []method.Method
	// Unconditional estimates the MMD² between p(h | Z = 1) and p(h | Z = 0) over all rows
	// instead of Σ_y MMD²_y within Y strata (-unconditional).
	Unconditional bool
	Bandwidth     float64 // σ of the Gaussian kernel (-bandwidth σ)
	Median        bool    // take σ by the median heuristic on h instead of Bandwidth (-bandwidth median)
	// Backend, Log and Warn are as in Config.
	Backend backends.Backend `json:"-"`
	Log     io.Writer        `json:"-"`
	Warn    io.Writer        `json:"-"`
}

// DefaultEstimateConfig returns the defaults of invmmd estimate: the estimators obs, ip,
// reg, dr and dr-po, σ = 1, Σ_y MMD²_y, and DefaultNets for G and m when they are fitted.
func DefaultEstimateConfig() EstimateConfig {
	return EstimateConfig{
		Nets:      DefaultNets(),
		Methods:   []method.Method{method.Obs, method.IP, method.Reg, method.DR, method.DRPO},
		Bandwidth: 1,
	}
}

// The split on which Estimate fits G and m when they are not given: a random 70% of the
// rows to fit, 20% held out for the stopping rule (the validation NLL that picks the best
// epoch and stops after Nets.AuxPatience epochs without a better one), and 10% unused,
// seeded by Nets.AuxSeed.
const (
	estimateAuxValFrac  = 0.2
	estimateAuxTestFrac = 0.1
)

// Validate checks the settings that can be checked before the table is read.
func (c EstimateConfig) Validate() error {
	if err := c.Columns.validate(); err != nil {
		return err
	}
	if c.H == "" {
		return fmt.Errorf("-h: required")
	}
	hc := HColumns(c.H)
	if len(hc) == 0 {
		return fmt.Errorf("-h %q: no column named", c.H)
	}
	for k, col := range hc {
		if slices.Contains(hc[:k], col) {
			return fmt.Errorf("-h %s: column %q listed twice", c.H, col)
		}
	}
	if err := checkMethods(c.Methods); err != nil {
		return err
	}
	for _, m := range c.Methods {
		if m == method.None {
			return fmt.Errorf("method none has no estimate; name estimators such as obs, ip, reg, dr")
		}
		if m.NeedsTrueG() {
			return fmt.Errorf("method %v needs the true P(Δ = 1 | X, Y), which only a simulation knows; use %v with -g", m, strings.TrimSuffix(m.String(), "+"))
		}
	}
	if err := c.Nets.Validate(); err != nil {
		return err
	}
	if !c.Median && (!(c.Bandwidth > 0) || math.IsInf(c.Bandwidth, 0)) {
		return fmt.Errorf("-bandwidth %v: want a number > 0 or median", c.Bandwidth)
	}
	need := c.fitG() || c.fitM()
	if need && len(c.X) == 0 {
		which := "G = P(Δ = 1 | X, Y) (-g)"
		if !c.fitG() {
			which = "m = P(Z = 1 | X, Y) (-m)"
		}
		return fmt.Errorf("methods %s need %s: give a column of fitted probabilities, or -x COLS to fit an MLP on (X, Y)", method.List(c.Methods), which)
	}
	return nil
}

// fitG and fitM say whether G and m must be fitted: an estimator needs them and no column
// gives them.
func (c EstimateConfig) fitG() bool { return c.G == "" && c.needs(method.Method.NeedsG) }
func (c EstimateConfig) fitM() bool { return c.M == "" && c.needs(method.Method.NeedsM) }

func (c EstimateConfig) needs(f func(method.Method) bool) bool {
	for _, m := range c.Methods {
		if f(m) {
			return true
		}
	}
	return false
}

// HColumns splits -h's "a" or "a,b,c" into the columns of h (several make a
// representation of that width).
func HColumns(h string) []string { return tabular.ZColumns(h) }

// Estimates are each estimator's MMD² of a column of model outputs, with what they rest on.
type Estimates struct {
	File     string
	HColumns []string // the columns of h (-h)
	// Classes names the label's K > 2 classes (Table.LabelClasses), each one stratum; nil
	// for a binary label.
	Classes        []string
	Rows, MissingZ int     // rows of the table, and those with Z missing
	Sigma          float64 // the kernel bandwidth used
	Unconditional  bool
	// Nuisance is Z's kind (and levels), KindWhy how the kind was decided, and ZMap the
	// kernel on a nuisance that is not binary (nil for a binary Z), whose estimand is the
	// joint MMD² between p(h, Z) and p(h)p(Z).
	Nuisance dataset.Nuisance
	KindWhy  string
	ZMap     invmmd.FeatureMap
	FittedG  bool // Ĝ came from an MLP fitted on X, not from a column
	FittedM  bool // m̂ likewise
	// AuxFit is how the fitted G and m fit and how their training ended (zero when
	// neither was fitted).
	AuxFit   AuxReport
	Results  []invmmd.Result
	Warnings []string
}

// Estimate runs invmmd estimate: it reads the columns of cfg, fits G and m on X where an
// estimator needs them and no column gives them, and estimates the MMD² of h between
// Z = 1 and Z = 0 (within each Y stratum, or over all rows) by each estimator, every row
// in both the main terms and the normalisers, with per-stratum terms, diagnostics and
// jackknife standard errors.
func Estimate(cfg EstimateConfig) (*Estimates, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	warn := &warner{w: cfg.Warn}
	l, err := cfg.load(log)
	if err != nil {
		return nil, err
	}
	rows, h := l.rows, l.rep
	out := &Estimates{File: cfg.Data, Rows: l.tab.Len(), Unconditional: cfg.Unconditional, FittedG: cfg.fitG(), FittedM: cfg.fitM(),
		Nuisance: l.nu, KindWhy: l.why, ZMap: l.zmap, MissingZ: rows.MissingZ(), HColumns: HColumns(cfg.H), Classes: l.classes}
	if out.FittedG || out.FittedM {
		if out.AuxFit, err = l.fitAux(cfg, &rows, out.FittedG, out.FittedM, nil, log, warn); err != nil {
			return nil, err
		}
	}
	out.Sigma = cfg.Bandwidth
	if cfg.Median {
		if out.Sigma, err = invmmd.MedianBandwidth(h); err != nil {
			return nil, fmt.Errorf("-bandwidth median on -h %s: %w", cfg.H, err)
		}
	}
	opts := invmmd.Options{Bandwidth: out.Sigma, MainFraction: 1, Unconditional: cfg.Unconditional, MinESS: cfg.MinESS}
	if out.ZMap != nil {
		opts.Estimand = invmmd.JointMMD
	}
	if len(l.classes) > 2 {
		opts.Classes = len(l.classes)
	}
	if out.Results, err = invmmd.Estimate(context.Background(), h, rows, opts, cfg.Methods...); err != nil {
		return nil, err
	}
	for _, r := range out.Results {
		if len(r.Report.Unreliable()) > 0 {
			warn.add(fmt.Sprintf("%v: strata Y=%v are unreliable (see the diagnostics); their terms rest on too few effective rows or a floored normaliser", r.Method, r.Report.Unreliable()))
		}
	}
	out.Warnings = warn.all
	return out, nil
}

// loaded is a table read for Estimate or Test: its rows as the estimators take them, the
// model outputs h, and how the nuisance was read.
type loaded struct {
	tab  *tabular.Table
	kind dataset.ZKind
	why  string // how kind was decided
	nu   dataset.Nuisance
	zmap invmmd.FeatureMap // the kernel on a nuisance that is not binary; nil for a binary one
	rows invmmd.Rows       // Y, Z (or Psi), Δ, and G and M where columns give them
	rep  invmmd.Rep        // the model outputs h, one or more columns (-h)
	// classes names the label's K > 2 classes; nil for a binary label.
	classes []string
}

// load reads the columns of c, checks that method full (if listed) has Z on every row, and
// reports the table to log.
func (c EstimateConfig) load(log io.Writer) (*loaded, error) {
	hCols := HColumns(c.H)
	cols := append(append(slices.Clone(hCols), c.Y), tabular.ZColumns(c.Z)...)
	for _, col := range []string{c.G, c.M} {
		if col != "" {
			cols = append(cols, col)
		}
	}
	flags := c.zFlags(map[string]string{c.Y: "-y", c.G: "-g", c.M: "-m"})
	for _, col := range hCols {
		flags[col] = "-h"
	}
	tab, err := readTable(c.Data, append(cols, c.X...), flags)
	if err != nil {
		return nil, err
	}
	l := &loaded{tab: tab}
	if l.kind, l.why, err = c.nuisanceKind(tab); err != nil {
		return nil, err
	}
	if l.kind != dataset.BinaryZ && c.M != "" {
		return nil, fmt.Errorf("-m %s: a column gives P(Z = 1 | X, Y) of a binary Z; for a %v nuisance m = E[ψ(Z) | X, Y] is fitted on -x (drop -m)", c.M, l.kind)
	}
	if l.classes, err = tab.LabelClasses(c.Y, c.YPositive, "-y"); err != nil {
		return nil, err
	}
	var y, z, delta []float64
	var nu dataset.Nuisance
	if len(l.classes) > 2 {
		y, z, delta, nu, err = tab.LabelsAndZClasses(c.Y, l.classes, tabular.ZColumns(c.Z), l.kind, c.ZPositive)
	} else {
		y, z, delta, nu, err = tab.LabelsAndZ(c.Y, c.YPositive, tabular.ZColumns(c.Z), l.kind, c.ZPositive)
	}
	if err != nil {
		return nil, err
	}
	l.nu = nu
	l.rows = invmmd.Rows{Y: y, Z: z, Delta: delta}
	if l.kind != dataset.BinaryZ {
		if l.zmap, err = invmmd.NewMap(nu, z, nil, c.ZMap); err != nil {
			return nil, fmt.Errorf("%s: the kernel on Z: %w", c.Data, err)
		}
		if l.rows.Psi, err = invmmd.Apply(l.zmap, z); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Data, err)
		}
		l.rows.Z = nil
	}
	missing := l.rows.MissingZ()
	for _, m := range c.Methods {
		if m != method.Full {
			continue
		}
		for i, d := range delta {
			if d == 0 {
				return nil, fmt.Errorf("%s:%d: column %q (-z): Z is missing (NaN) but method full needs Z on every row (%d rows lack it); use dr, ip or reg", c.Data, tab.Lines[i], c.Z, missing)
			}
		}
	}
	if l.rep, err = readH(tab, hCols); err != nil {
		return nil, err
	}
	if c.G != "" {
		if l.rows.G, err = tab.Probabilities(c.G, "-g"); err != nil {
			return nil, err
		}
	}
	if c.M != "" {
		if l.rows.M, err = tab.Probabilities(c.M, "-m"); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(log, "%s: %d rows, %d with Z missing; Z (%s) is %v, %s\n", c.Data, tab.Len(), missing, c.Z, nu, l.why)
	if len(hCols) > 1 {
		fmt.Fprintf(log, "h: %d columns (%s), one representation; the kernel on the Euclidean distance between rows\n", len(hCols), strings.Join(hCols, ", "))
	}
	if len(l.classes) > 2 {
		fmt.Fprintf(log, "label %s: %d classes %s, one stratum each\n", c.Y, len(l.classes), strings.Join(l.classes, ", "))
	}
	return l, nil
}

// readH reads the columns of h from tab as one representation, row-major: a single column
// as tabular.Table.Numbers reads it; several columns each need a finite number on every
// row, and a blank cell in one of them (the columns of different lengths) is an error
// naming file, line, column and the columns of h. (Reading the file already refuses an
// infinite value, naming its cell.)
func readH(tab *tabular.Table, cols []string) (invmmd.Rep, error) {
	if len(cols) == 1 {
		h, err := tab.Numbers(cols[0], "-h")
		return invmmd.ScalarRep(h), err
	}
	d := len(cols)
	data := make([]float64, tab.Len()*d)
	for j, name := range cols {
		c := tab.Column(name)
		for i := 0; i < tab.Len(); i++ {
			switch {
			case c.IsMissing(i):
				return invmmd.Rep{}, fmt.Errorf("%s:%d: column %q (-h): the cell is empty or missing (NA, NaN...): h is the %d columns %s together, and every row needs a number in each (the columns have different lengths)",
					tab.File, tab.Lines[i], name, d, strings.Join(cols, ","))
			case !c.Numeric:
				return invmmd.Rep{}, fmt.Errorf("%s:%d: column %q (-h): value %q, want a number", tab.File, tab.Lines[i], name, c.Value(i))
			case math.IsInf(c.Num[i], 0):
				return invmmd.Rep{}, fmt.Errorf("%s:%d: column %q (-h): value %q is not finite", tab.File, tab.Lines[i], name, c.Value(i))
			}
			data[i*d+j] = c.Num[i]
		}
	}
	return invmmd.NewRep(data, d)
}

// fitAux fits G and m on X and Y of some of the table's rows, sets rows.G (with fitG) and
// rows.M (with fitM) to their predictions for every row and returns their report. split
// gives the rows to fit on, the held-out rows whose validation NLL picks the best epoch and
// stops training (c.AuxPatience), and the rest (table row indices); nil draws Estimate's
// random 70/20/10 split, seeded by c.AuxSeed.
func (l *loaded) fitAux(c EstimateConfig, rows *invmmd.Rows, fitG, fitM bool, split *[3][]int, log io.Writer, warn *warner) (AuxReport, error) {
	spec := tabular.Spec{Y: c.Y, Classes: l.classes, Z: c.Z, ZKind: l.kind, YPositive: c.YPositive, ZPositive: c.ZPositive, X: c.X,
		ValFrac: estimateAuxValFrac, TestFrac: estimateAuxTestFrac, Seed: c.AuxSeed}
	var d *tabular.Data
	var err error
	if split == nil {
		d, err = tabular.Build(l.tab, spec)
	} else {
		d, err = tabular.BuildRows(l.tab, spec, *split)
	}
	if err != nil {
		return AuxReport{}, err
	}
	warn.add(d.Warnings...)
	if split == nil {
		fmt.Fprintf(log, "fitting G and m: MLP %v on the %d encoded inputs of -x and Y, on a random 70%% of the rows (20%% held out for early stopping)\n", c.Hidden, d.Encoder.Dim())
	} else {
		fmt.Fprintf(log, "fitting G and m: MLP %v on the %d encoded inputs of -x and Y, on %d rows (%d more held out for early stopping)\n", c.Hidden, d.Encoder.Dim(), len(split[0]), len(split[1]))
	}
	aux, rep, err := FitAux(c.Backend, c.Nets, d.Splits, l.zmap)
	if err != nil {
		return AuxReport{}, err
	}
	rep.On = fmt.Sprintf("%d rows (validation NLL on %d held-out rows)", d.Splits.Train.Len(), d.Splits.Val.Len())
	fmt.Fprint(log, rep)
	if w := rep.Warning(); w != "" {
		warn.add(w)
	}
	all := make([]int, l.tab.Len())
	for i := range all {
		all[i] = i
	}
	xs, _, err := d.Encoder.Encode(l.tab, all)
	if err != nil {
		return AuxReport{}, err
	}
	pred, err := aux.Predict(&dataset.Set{Name: "all", X: xs, Shape: []int{d.Encoder.Dim()}, Y: rows.Y, Delta: rows.Delta, Nuisance: l.nu, Classes: d.Splits.Train.Classes})
	if err != nil {
		return AuxReport{}, err
	}
	if fitG {
		rows.G = pred.G
	}
	if fitM {
		rows.M, rows.MPsi = pred.M, pred.MPsi
	}
	return rep, nil
}

// Markdown renders the estimates as invmmd estimate prints them: what was estimated, a
// table of each estimator's MMD² with its jackknife standard error, per-stratum values and
// unreliable strata, then each estimator's terms and diagnostics.
func (e *Estimates) Markdown() string {
	var b strings.Builder
	what := "Σ_y MMD²_y of h between Z = 1 and Z = 0 within each Y stratum"
	if e.Unconditional {
		what = "MMD² of h between Z = 1 and Z = 0 over all rows"
	}
	if e.ZMap != nil {
		what = fmt.Sprintf("Σ_y of the joint MMD² between p(h, Z | Y = y) and p(h | Y = y)·p(Z | Y = y) within each Y stratum; kernel on Z: %s", e.ZMap.Describe())
		if e.Unconditional {
			what = fmt.Sprintf("joint MMD² between p(h, Z) and p(h)·p(Z) over all rows; kernel on Z: %s", e.ZMap.Describe())
		}
	}
	rows := "every row in both the main terms and the normalisers"
	if e.ZMap != nil {
		rows = "every row in the U-statistics (the joint estimand has no normalisers)"
	}
	path := invmmd.KernelPath{}
	for _, r := range e.Results {
		path = r.Path
	}
	fmt.Fprintf(&b, "\n%s; Gaussian kernel on h σ = %.4g, %s; kernel sums %v\n\n", what, e.Sigma, rows, path)
	fmt.Fprintln(&b, "| estimator | MMD² ± jackknife SE | per stratum | unreliable strata |")
	fmt.Fprintln(&b, "|---|---|---|---|")
	for _, r := range e.Results {
		var per []string
		for s, v := range r.Strata {
			per = append(per, fmt.Sprintf("%s: %.5g ± %.2g", r.Report.Strata[s].Name(), v, r.SE[s]))
		}
		u := "none"
		if l := r.Report.Unreliable(); len(l) > 0 {
			u = fmt.Sprintf("Y=%v", l)
		}
		fmt.Fprintf(&b, "| %v | %.5g ± %.2g | %s | %s |\n", r.Method, r.Value, r.ValueSE, strings.Join(per, ", "), u)
	}
	if e.ZMap != nil {
		fmt.Fprintln(&b, "\nterms (MMD² = pair + quad − 2·triple: E[k_h k_z] over pairs, E[k_h]·E[k_z], E[k_h(h₁,h₂) k_z(Z₁,Z₃)]) and diagnostics:")
	} else {
		fmt.Fprintln(&b, "\nterms (MMD² = T11/N11 + T00/N00 − 2·T10/N10) and diagnostics:")
	}
	for _, r := range e.Results {
		fmt.Fprintf(&b, "%s\n", r)
		for s, t := range r.Terms {
			if !t.Empty && t.Joint {
				fmt.Fprintf(&b, "    %s: pair %.5g  quad %.5g  triple %.5g\n", r.Report.Strata[s].Name(), t.Pair, t.Quad, t.Triple)
				continue
			}
			if !t.Empty {
				fmt.Fprintf(&b, "    %s: T11 %.5g  T00 %.5g  T10 %.5g  |  N11 %.5g  N00 %.5g  N10 %.5g\n", r.Report.Strata[s].Name(), t.T[1][1], t.T[0][0], t.T[1][0], t.N[1][1], t.N[0][0], t.N[1][0])
			}
		}
	}
	return b.String()
}

// CSV writes one row per estimator, with a header: method, the estimate (Σ over strata),
// its jackknife standard error, and the unreliable strata separated by ";" ("Y=0;Y=1",
// empty when none). Values are written with strconv's shortest round-trip form; a NaN as
// "NaN".
func (e *Estimates) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"method", "value", "se", "unreliable"}); err != nil {
		return err
	}
	for _, r := range e.Results {
		var u []string
		for _, y := range r.Report.Unreliable() {
			u = append(u, fmt.Sprintf("Y=%v", y))
		}
		if err := cw.Write([]string{r.Method.String(), strconv.FormatFloat(r.Value, 'g', -1, 64), strconv.FormatFloat(r.ValueSE, 'g', -1, 64), strings.Join(u, ";")}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSVFile writes CSV to a new file at path, refusing one that exists.
func (e *Estimates) WriteCSVFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if err := e.CSV(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// CheckNewFile refuses an output path that exists (results on disk are never replaced
// unasked) or that is the input data file.
func CheckNewFile(path, data string) error {
	if a, errA := filepath.Abs(path); errA == nil {
		if b, errB := filepath.Abs(data); errB == nil && a == b {
			return fmt.Errorf("%s is the -data file", path)
		}
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists; remove it or name another file", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
