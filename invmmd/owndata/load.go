package owndata

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Reading the table of estimate and test: the model outputs h, Y, Z and the columns of G
// and m, every check of them before any fitting, and the seam where G and m are fitted.

// loaded is a table read for Estimate or Test: its rows as the estimators take them, the
// model outputs h, and how the nuisance was read.
type loaded struct {
	tab  *tabular.Table
	kind dataset.ZKind
	why  string // how kind was decided
	nu   dataset.Nuisance
	zmap invmmd.FeatureMap // the kernel on a nuisance that is not binary; nil for a binary one
	zRaw []float64         // the nuisance's values of a continuous or vector Z (NaN where missing)
	rows invmmd.Rows       // Y, Z (or Psi), Δ, and G and M where columns give them
	rep  invmmd.Rep        // the model outputs h, one or more columns (H)
	// classes names the label's K > 2 classes; nil for a binary label.
	classes []string
}

// columns returns the columns c reads: h, Y, Z, G and M when given, and X.
func (c EstimateConfig) columns() []string {
	var out []string
	for _, col := range slices.Concat(hColumns(c.H), []string{c.Y}, tabular.ZColumns(c.Z), []string{c.G, c.M}, c.X) {
		if col != "" && !slices.Contains(out, col) { // G and M "" when not given
			out = append(out, col)
		}
	}
	return out
}

// readCSV reads the columns of c from the CSV file c.Data, stopping once ctx is done.
func (c EstimateConfig) readCSV(ctx context.Context) (*tabular.Table, error) {
	return readCSV(ctx, c.Data, c.columns(), c.Names, c.keys())
}

// keys maps each column c reads to its setting's field, for messages (columnKeys).
func (c EstimateConfig) keys() map[string]string {
	keys := map[string]string{c.G: "G", c.M: "M"}
	for _, col := range hColumns(c.H) {
		keys[col] = "H"
	}
	return c.columnKeys(keys)
}

// load reads the columns of c from tab and checks, before anything is fitted, what the
// estimators and tests need: the kind of Z and the kernel on it, method full only without
// missing Z, h a number on every row and not constant, G and m probabilities, and G > 0
// wherever Z is observed. It reports the table to log.
func (c EstimateConfig) load(tab *tabular.Table, log io.Writer) (*loaded, error) {
	tab.Names = c.Names
	keys := c.keys()
	for _, col := range c.columns() {
		if tab.Column(col) == nil {
			return nil, &tabular.ColumnError{File: tab.File, Name: col, Setting: c.name(cmp.Or(keys[col], "X")), Header: tab.Header}
		}
	}
	l := &loaded{tab: tab}
	var err error
	if l.kind, l.why, err = c.nuisanceKind(tab); err != nil {
		return nil, err
	}
	if l.kind != dataset.BinaryZ && c.M != "" {
		return nil, fieldError("M", c.M, "a column gives P(Z = 1 | X, Y) of a binary Z; for a %v nuisance m = E[ψ(Z) | X, Y] is fitted on the features %s (drop %s)", l.kind, c.name("X"), c.name("M"))
	}
	if l.classes, err = tab.LabelClasses(c.Y, c.YPositive, "Y"); err != nil {
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
		l.zRaw = z
		if l.zmap, err = zKernelWeighted(c.Columns, tab.File, nu, z, nil); err != nil {
			return nil, err
		}
		if l.rows.Psi, err = invmmd.Apply(l.zmap, z); err != nil {
			return nil, fmt.Errorf("%s: %w", tab.File, err)
		}
		l.rows.Z = nil
	}
	missing := l.rows.MissingZ()
	if i, k := slices.Index(delta, 0), slices.IndexFunc(c.Methods, method.Method.UsesMissingZ); i >= 0 && k >= 0 {
		return nil, fmt.Errorf("%s:%d: column %q (%s): value %q: Z is missing but method %v needs Z on every row (%d rows lack it); use dr, ip or reg",
			tab.File, tab.Lines[i], tabular.ZColumns(c.Z)[0], c.name("Z"), tab.Column(tabular.ZColumns(c.Z)[0]).Raw(i), c.Methods[k], missing)
	}
	if l.rep, err = readH(tab, hColumns(c.H), c.name("H")); err != nil {
		return nil, err
	}
	if c.G != "" {
		if l.rows.G, err = tab.Probabilities(c.G, "G"); err != nil {
			return nil, err
		}
		for i, g := range l.rows.G {
			if g == 0 && delta[i] == 1 {
				return nil, fmt.Errorf("%s:%d: column %q (%s): value %q on a row whose Z is observed: G = P(Δ = 1 | X, Y) = 0 says Z cannot be observed there, so the column is not a fitted G for these rows (ip and dr would divide by it)",
					tab.File, tab.Lines[i], c.G, c.name("G"), tab.Column(c.G).Value(i))
			}
		}
	}
	if c.M != "" {
		if l.rows.M, err = tab.Probabilities(c.M, "M"); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(log, "%s: %d rows, %d with Z missing; Z (%s) is %v, %s\n", tab.File, tab.Len(), missing, c.Z, nu, l.why)
	if hc := hColumns(c.H); len(hc) > 1 {
		fmt.Fprintf(log, "h: %d columns (%s), one representation; the kernel on the Euclidean distance between rows\n", len(hc), strings.Join(hc, ", "))
	}
	if len(l.classes) > 2 {
		fmt.Fprintf(log, "label %s: %d classes %s, one stratum each\n", c.Y, len(l.classes), strings.Join(l.classes, ", "))
	}
	return l, nil
}

// readH reads the columns of h from tab as one representation, row-major: each needs a
// finite number within ±tabular.MaxMagnitude on every row (a blank or missing cell is an
// error naming file, line, column and the cell), and h must not be constant. name names
// the setting of h.
func readH(tab *tabular.Table, cols []string, name string) (invmmd.Rep, error) {
	d := len(cols)
	var data []float64 // row-major; one column is the table's own
	for j, col := range cols {
		v, err := tab.Numbers(col, "H")
		if err != nil {
			if d > 1 && strings.Contains(err.Error(), "is missing") {
				err = fmt.Errorf("%w: h is the %d columns %s together, and every row needs a number in each (the columns have different lengths)", err, d, strings.Join(cols, ","))
			}
			return invmmd.Rep{}, err
		}
		if d == 1 {
			data = v
			break
		}
		if data == nil {
			data = make([]float64, tab.Len()*d)
		}
		for i, x := range v {
			data[i*d+j] = x
		}
	}
	h, err := invmmd.NewRep(data, d)
	if err != nil {
		return h, err
	}
	constant := true
	for i := 1; i < h.Len() && constant; i++ {
		constant = slices.Equal(h.Row(i), h.Row(0))
	}
	if constant {
		return h, fieldError("H", strings.Join(cols, ","), "%s: h is constant (every row is %s): a constant output cannot depend on Z, and there is nothing to estimate or test", tab.File, valueText(h.Row(0)[0]))
	}
	return h, nil
}

// hColumns splits H's "a" or "a,b,c" into the columns of h (several make a
// representation of that width).
func hColumns(h string) []string { return tabular.ZColumns(h) }

// nuisanceFitter fits G and m on some rows of a loaded table and predicts them for every
// row. split gives the rows to fit on, the held-out rows whose validation NLL picks the
// best epoch and stops training, and the rest (table row indices). It is the one seam
// where Estimate and Test get fitted nuisances (fitNuisancesMLP; cross-fitting calls it
// once per fold and model), and where a test sees which rows fitted what.
type nuisanceFitter func(ctx context.Context, l *loaded, c EstimateConfig, roles []train.Role, split [3][]int, warn *warner) (train.Pred, AuxReport, error)

// fitNuisancesMLP is the nuisanceFitter of the commands: MLPs of c.Hidden fitted on the
// encoded features c.X and Y of the rows split[0] (fitAux), stopped by split[1], for the
// models roles names (G, m; empty: both).
func fitNuisancesMLP(ctx context.Context, l *loaded, c EstimateConfig, roles []train.Role, split [3][]int, warn *warner) (train.Pred, AuxReport, error) {
	spec := tabular.Spec{Y: c.Y, Classes: l.classes, Z: c.Z, ZKind: l.kind, YPositive: c.YPositive, ZPositive: c.ZPositive, X: c.X}
	d, err := tabular.BuildRows(l.tab, spec, split)
	if err != nil {
		return train.Pred{}, AuxReport{}, err
	}
	warn.add(d.Warnings...)
	if err := checkMemory(c.Columns, c.Nets, "G and m", d.Encoder.Dim()+max(1, len(l.classes)), auxOutputs(l.nu, l.zmap), d.Splits.Train.Len(), false); err != nil {
		return train.Pred{}, AuxReport{}, err
	}
	aux, rep, err := fitAux(ctx, c.Backend, c.Nets, d.Splits, l.zmap, roles...)
	if err != nil {
		return train.Pred{}, AuxReport{}, err
	}
	rep.On = fmt.Sprintf("%d rows (validation NLL on %d held-out rows)", d.Splits.Train.Len(), d.Splits.Val.Len())
	xs, _, err := d.Encoder.Encode(l.tab, allRows(l.tab.Len()))
	if err != nil {
		return train.Pred{}, AuxReport{}, err
	}
	set := &dataset.Set{Name: "all", X: xs, Shape: []int{d.Encoder.Dim()}, Y: l.rows.Y, Delta: l.rows.Delta, Nuisance: l.nu, Classes: d.Splits.Train.Classes}
	pred, err := await(ctx, func() (train.Pred, error) { return aux.Predict(set) })
	return pred, rep, err
}

// checkEstimators refuses methods that have no estimate (none) or need the true G.
func checkEstimators(ms []method.Method, gName string) error {
	for _, m := range ms {
		if m == method.None {
			return fieldError("Methods", method.List(ms), "method none has no estimate; name estimators such as obs, ip, reg, dr")
		}
		if m.NeedsTrueG() {
			return fieldError("Methods", method.List(ms), "method %v needs the true P(Δ = 1 | X, Y), which only a simulation knows; use %v with %s", m, strings.TrimSuffix(m.String(), "+"), gName)
		}
	}
	return nil
}

// basis returns what the estimates or tests of c on tab rest on, before G and m are
// fitted (FittedG and FittedM say whether they are to be).
func (l *loaded) basis(tab *tabular.Table, c EstimateConfig) Basis {
	return Basis{File: tab.File, Rows: tab.Len(), Classes: l.classes, Unconditional: c.Unconditional, Median: c.Median,
		Nuisance: l.nu, KindWhy: l.why, ZMap: l.zmap, Provenance: Provenance{MissingZ: l.rows.MissingZ(), FittedG: c.fitG(), FittedM: c.fitM()}}
}
