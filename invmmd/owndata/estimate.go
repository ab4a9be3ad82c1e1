package owndata

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/results"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// EstimateConfig is one run of Estimate: which column holds the model outputs h, the
// estimators, and where G and m come from. DefaultEstimateConfig gives the defaults of
// invmmd estimate; set at least Data (Estimate), Y, Z and H. TestConfig extends it.
type EstimateConfig struct {
	// Source is the table, its columns and the model outputs h (H: one column, or several
	// comma-separated columns of one representation h ∈ ℝ^d, with the Gaussian kernel on the
	// Euclidean distance between rows; the cross route only, in Test), and the folds of G
	// and m when they are fitted.
	Source
	// Nets are the settings of the MLPs fitted for G and m on X when G or M is not given
	// (only Hidden, AuxEpochs, AuxPatience, Batch, LearningRate and AuxSeed matter) and
	// MinESS.
	Nets
	G string "flag:\"g\" help:\"column of fitted P(Δ = 1 | X, Y), > 0 on every row whose Z is observed (default: cross-fit an MLP on -x)\" help.test:\"column of P(Δ = 1 | X, Y) fitted on rows other than these, > 0 on every row whose Z is observed (default: cross-fit an MLP on -x)\""
	M string "flag:\"m\" help:\"column of fitted P(Z = 1 | X, Y) of a binary Z (default: cross-fit an MLP on -x)\" help.test:\"column of P(Z = 1 | X, Y) fitted on rows other than these (default: cross-fit an MLP on -x)\""
	// Nuisances, when set, are G and m fitted for this table (FitNuisancesTable): used
	// instead of fitting them.
	Nuisances *Nuisances `json:"-" flag:"-"` // no flag: for Go callers only
	// fit fits G and m where they are fitted; nil is fitNuisancesMLP (a test sets its own,
	// to see which rows fitted what).
	fit nuisanceFitter
	// Methods are the estimators (full only when no Z is missing; none is refused). In
	// Test, the estimators whose pseudo-outcome of Z is tested; nil chooses them once the
	// table is read (full without missing Z; dr; obs on the permutation route).
	Methods       []method.Method "flag:\"methods\" help:\"comma-separated estimators (full only when no Z is missing)\" help.test:\"comma-separated methods whose pseudo-outcome of Z is tested (default: see above)\""
	Unconditional bool            "flag:\"unconditional\" help:\"MMD² between p(h|Z=1) and p(h|Z=0) over all rows instead of Σ_y within Y strata\" help.test:\"test h ⊥ Z over all rows instead of h ⊥ Z | Y\""
	// Exact computes the kernel sums behind the estimates and their standard errors (in
	// Test, the cross route's) on every pair of rows (invmmd.ExactSums, the O(n²)
	// reference) instead of invmmd.AutoSums, which is exact up to invmmd.ExactPairs pairs
	// per stratum and linear in the rows beyond.
	Exact bool "flag:\"exact\" help:\"kernel sums on every pair of rows, the O(n²) reference (default: exact up to 2^24 pairs per stratum, linear in the rows beyond; the output names the path and its error bound)\""
	// Bandwidth and Median are the kernel's σ on h: by the median heuristic on h's rows
	// (Median, the default of estimate, test and fit's held-out numbers; in Test on the
	// rows of half B for the cross route), or the fixed σ Bandwidth.
	Bandwidth float64 "flag:\"bandwidth\" parse:\"bandwidth\" help:\"Gaussian kernel bandwidth σ on h, or median (the median heuristic on h: the median distance between rows of h, of any width)\" help.test:\"Gaussian kernel bandwidth σ on h, or median (the median heuristic on h: of half B for the cross route)\""
	Median    bool
}

// DefaultEstimateConfig returns the defaults of invmmd estimate: the estimators obs, ip,
// reg, dr and dr-po, σ by the median heuristic on h, Σ_y MMD²_y, and DefaultNets for G
// and m when they are fitted.
func DefaultEstimateConfig() EstimateConfig {
	return EstimateConfig{
		Nets:    DefaultNets(),
		Source:  Source{Folds: DefaultFolds},
		Methods: []method.Method{method.Obs, method.IP, method.Reg, method.DR, method.DRPO},
		Median:  true,
	}
}

// Validate checks every setting that can be checked before the table is read (Data
// included, which Estimate reads); it returns a *FieldError.
func (c EstimateConfig) Validate() error { return c.validate(true) }

func (c EstimateConfig) validate(needData bool) error {
	if err := c.Columns.validate(needData); err != nil {
		return err
	}
	if c.H == "" {
		return fieldError("H", nil, "required: the column(s) of model outputs h")
	}
	if _, err := tabular.ParseColumns(c.H); err != nil {
		return &FieldError{Field: "H", Value: c.H, Err: err}
	}
	if err := checkMethods(c.Methods); err != nil {
		return err
	}
	if err := checkEstimators(c.Methods, c.name("G")); err != nil {
		return err
	}
	if err := c.Nets.validate(c.Columns); err != nil {
		return err
	}
	if err := checkBandwidth(c.Bandwidth, c.Median); err != nil {
		return err
	}
	if c.Folds < 0 || c.Folds > MaxFolds {
		return fieldError("Folds", c.Folds, "want 1 (sample splitting) to %d folds (0: %d)", MaxFolds, DefaultFolds)
	}
	if (c.fitG() || c.fitM()) && len(c.X) == 0 {
		return c.noFeaturesError()
	}
	return nil
}

// noFeaturesError says, of methods that need G or m where no column gives them and no
// features (X) are named to fit them on, where G and m come from, and that obs (which
// needs neither) runs alone.
func (c EstimateConfig) noFeaturesError() error {
	fitG, fitM := c.fitG(), c.fitM()
	var need []method.Method
	for _, m := range c.Methods {
		if fitG && m.NeedsG() || fitM && m.NeedsM() {
			need = append(need, m)
		}
	}
	field, which, from := "G", "G = P(Δ = 1 | X, Y)", "it is fitted on the features named by %[1]s, or read from a column of fitted probabilities named by %[2]s"
	switch {
	case fitG && fitM:
		which, from = "G = P(Δ = 1 | X, Y) and m = P(Z = 1 | X, Y)", "they are fitted on the features named by %[1]s, or read from columns of fitted probabilities named by %[2]s and %[3]s"
	case fitM:
		field, which = "M", "m = P(Z = 1 | X, Y)"
	}
	return fieldError(field, nil, "methods %s need %s: %s; obs, which needs neither G nor m, can run alone with %s obs",
		method.List(need), which, fmt.Sprintf(from, c.name("X"), c.name(field), c.name("M")), c.name("Methods"))
}

// seCell writes a standard error for the CSV: empty when it is not printed (NaN).
func seCell(se float64) string {
	if math.IsNaN(se) {
		return ""
	}
	return strconv.FormatFloat(se, 'g', -1, 64)
}

// keepRows returns the rows (and outputs) that keep marks.
func keepRows(rows invmmd.Rows, h invmmd.Rep, keep []bool) (invmmd.Rows, invmmd.Rep) {
	var idx []int
	out := invmmd.Rep{Dim: h.Dim}
	for i, k := range keep {
		if k {
			idx = append(idx, i)
			out.Data = append(out.Data, h.Row(i)...)
		}
	}
	return rows.Subset(idx), out
}

// fitG and fitM say whether G and m must be fitted: an estimator needs them and no column
// gives them.
func (c EstimateConfig) fitG() bool {
	return c.G == "" && slices.ContainsFunc(c.Methods, method.Method.NeedsG)
}
func (c EstimateConfig) fitM() bool {
	return c.M == "" && slices.ContainsFunc(c.Methods, method.Method.NeedsM)
}

// Estimates are each estimator's MMD² of a column of model outputs, with what they rest on.
type Estimates struct {
	Basis
	HColumns []string // the columns of h
	// Estimated is the rows estimated on: every row, or half A with sample splitting.
	Estimated int
	Sigma     float64 // the kernel bandwidth used
	// Results are the estimates, strata whose estimate is impossible (beyond ±MaxMMD2, or
	// a probability far outside [0, 1]) flagged unreliable with the reason.
	Results []invmmd.Result
	// WithheldSE holds, per result, the jackknife standard error that is not printed
	// (Provenance.SEWithheld; NaN where it is printed), for the calibration study that
	// measures it.
	WithheldSE []float64
}

// Estimate runs invmmd estimate on the CSV file cfg.Data: it validates cfg, reads the
// columns it names (stopping once ctx is done) and estimates as EstimateTable does.
func Estimate(ctx context.Context, cfg EstimateConfig) (*Estimates, error) {
	if err := cfg.validate(true); err != nil {
		return nil, err
	}
	tab, err := cfg.readCSV(ctx)
	if err != nil {
		return nil, err
	}
	return EstimateTable(ctx, tab, cfg)
}

// EstimateTable runs invmmd estimate on the table tab, held in memory (tabular.NewTable)
// or read already (cfg.Data is not read): it fits G and m on X where an estimator needs
// them and no column gives them, and estimates the MMD² of h between Z = 1 and Z = 0
// (within each Y stratum, or over all rows) by each estimator, every row in both the main
// terms and the normalisers, with per-stratum terms, diagnostics and jackknife standard
// errors. Where no row has Z missing it fits neither G nor m (Ĝ = 1, m̂ = Z: dr = ip =
// full, at full's cost; ObservedNote). Every check of the settings and the table comes
// before any fitting; once ctx is done it stops within moments with an error wrapping ctx's.
func EstimateTable(ctx context.Context, tab *tabular.Table, cfg EstimateConfig) (*Estimates, error) {
	if err := cfg.validate(false); err != nil {
		return nil, err
	}
	log := orDiscard(cfg.Log)
	warn := &warner{w: cfg.Warn}
	l, err := cfg.load(tab, log)
	if err != nil {
		return nil, err
	}
	rows, h := l.rows, l.rep
	out := &Estimates{Basis: l.basis(tab, cfg), Estimated: tab.Len(), HColumns: hColumns(cfg.H)}
	if out.Sigma, err = bandwidthOf(h, cfg.Bandwidth, cfg.Median); err != nil {
		if fe := (*FieldError)(nil); errors.As(err, &fe) {
			return nil, err
		}
		return nil, &FieldError{Field: "H", Value: cfg.H, Err: err}
	}
	if (out.FittedG || out.FittedM) && observedNuisances(&rows) {
		// No Z missing: G's target would be all ones and m would never stand in for a Z.
		out.FittedG, out.FittedM = false, false
		out.AuxFit = AuxReport{Observed: true, MinG: 1, Rows: rows.Len()}
		fmt.Fprintf(log, "%s\n", ObservedNote)
	} else {
		var inA []bool
		if (out.FittedG || out.FittedM) && cfg.Nuisances == nil && cfg.folds() == 1 {
			inA = invmmd.Halves(invmmd.Rows{Y: rows.Y, Delta: rows.Delta}, false, cfg.AuxSeed)
		}
		if err := l.nuisances(ctx, cfg, inA, &rows, &out.Basis, warn); err != nil {
			return nil, err
		}
		if inA != nil {
			rows, h = keepRows(rows, h, inA)
			out.Estimated = rows.Len()
		}
	}
	if out.ZMap != nil && rows.G == nil && cfg.ZMap.Bandwidth == 0 && (l.kind == dataset.ContinuousZ || l.kind == dataset.VectorZ) && out.MissingZ > 0 {
		warn.add("the kernel on Z takes its bandwidth from the observed Z with equal weights, so it moves with which Z are missing (no G to weigh them by 1/G with): give its bandwidth, or a method that reads G")
	}
	opts := estimatorOptions(out.ZMap != nil, len(l.classes), out.Sigma, false, cfg.MinESS)
	opts.Unconditional, opts.Sums = cfg.Unconditional, summerFor(cfg.Exact)
	if out.Results, err = invmmd.Estimate(ctx, h, rows, opts, cfg.Methods...); err != nil {
		return nil, err
	}
	out.WithheldSE = make([]float64, len(out.Results))
	for k := range out.Results {
		out.WithheldSE[k] = math.NaN()
		if why := out.SEWithheld(out.Results[k].Method); why != "" {
			r := &out.Results[k]
			out.WithheldSE[k] = r.ValueSE
			r.ValueSE = math.NaN()
			for s := range r.SE {
				r.SE[s] = math.NaN()
			}
			warn.add(fmt.Sprintf("%v: no standard error: %s", r.Method, why))
		}
	}
	for _, r := range out.Results {
		if out.SEConservative(r) {
			warn.add(fmt.Sprintf("%v: %s", r.Method, ConservativeSENote))
		}
	}
	warn.add(flagImpossible(out.Results, l.classes)...)
	warn.add(negativeNotes(out.Results)...)
	for _, r := range out.Results {
		if u := r.Report.Unreliable(); len(u) > 0 {
			warn.add(unreliableWarning(r.Method.String(), u, l.classes))
		}
	}
	out.Warnings = warn.all
	return out, nil
}

// NegativeNote follows an estimate more than two standard errors below 0: an MMD² is not
// negative, and noise alone rarely takes its estimate so far below.
const NegativeNote = "negative beyond its noise: the nuisance models may be off"

// negativeNotes returns, for each result more than two standard errors below 0 (its
// standard error printed), a note saying so (NegativeNote).
func negativeNotes(res []invmmd.Result) []string {
	var out []string
	for _, r := range res {
		if se := r.ValueSE; se > 0 && r.Value < -2*se {
			out = append(out, fmt.Sprintf("%v: %.4g is %.1f standard errors below 0, %s", r.Method, r.Value, -r.Value/se, NegativeNote))
		}
	}
	return out
}

// Markdown renders the estimates as invmmd estimate prints them: what was estimated, a
// table of each estimator's MMD² with its jackknife standard error, per-stratum values and
// unreliable strata, an impossible estimate marked as such, then each estimator's terms
// and diagnostics.
func (e *Estimates) Markdown() string {
	var b strings.Builder
	what := "Σ_y MMD²_y of h between Z = 1 and Z = 0 within each Y stratum"
	if e.Unconditional {
		what = "MMD² of h between Z = 1 and Z = 0 over all rows"
	}
	rows := "every row in both the main terms and the normalisers"
	if e.ZMap != nil {
		what = fmt.Sprintf("Σ_y of the joint MMD² between p(h, Z | Y = y) and p(h | Y = y)·p(Z | Y = y) within each Y stratum, unscaled; kernel on Z: %s", e.ZMap.Describe())
		if e.Unconditional {
			what = fmt.Sprintf("joint MMD² between p(h, Z) and p(h)·p(Z) over all rows, unscaled; kernel on Z: %s", e.ZMap.Describe())
		}
		rows = "every row in the U-statistics (the joint estimand has no normalisers)"
	}
	path := invmmd.KernelPath{}
	for _, r := range e.Results {
		path = r.Path
	}
	sigma := fmt.Sprintf("σ = %.4g", e.Sigma)
	if e.Median {
		sigma += " (the median heuristic on h)"
	}
	fmt.Fprintf(&b, "\n%s; Gaussian kernel on h %s, %s; kernel sums %v\n\n", what, sigma, rows, path)
	fmt.Fprintln(&b, "| estimator | MMD² ± jackknife SE | per stratum | unreliable strata |")
	fmt.Fprintln(&b, "|---|---|---|---|")
	for _, r := range e.Results {
		bad := impossibleStrata(r, e.Classes)
		var per []string
		for s, v := range r.Strata {
			name := stratumName(r.Report.Strata[s].Y, r.Report.Strata[s].All, e.Classes)
			per = append(per, fmt.Sprintf("%s: %s", name, estimateText(v, r.SE[s], slices.Contains(bad, name))))
		}
		u := "none"
		if l := r.Report.Unreliable(); len(l) > 0 {
			u = strataList(l, e.Classes)
		}
		fmt.Fprintf(&b, "| %v | %s | %s | %s |\n", r.Method, estimateText(r.Value, r.ValueSE, len(bad) > 0), strings.Join(per, ", "), u)
	}
	if e.ZMap != nil {
		fmt.Fprintln(&b, "\nterms (MMD² = pair + quad − 2·triple: E[k_h k_z] over pairs, E[k_h]·E[k_z], E[k_h(h₁,h₂) k_z(Z₁,Z₃)]) and diagnostics:")
	} else {
		fmt.Fprintln(&b, "\nterms (MMD² = T11/N11 + T00/N00 − 2·T10/N10) and diagnostics:")
	}
	for _, r := range e.Results {
		fmt.Fprintf(&b, "%s\n", classText(r.String(), e.Classes))
		for s, t := range r.Terms {
			name := stratumName(r.Report.Strata[s].Y, r.Report.Strata[s].All, e.Classes)
			if !t.Empty && t.Joint {
				fmt.Fprintf(&b, "    %s: pair %.5g  quad %.5g  triple %.5g\n", name, t.Pair, t.Quad, t.Triple)
				continue
			}
			if !t.Empty {
				fmt.Fprintf(&b, "    %s: T11 %.5g  T00 %.5g  T10 %.5g  |  N11 %.5g  N00 %.5g  N10 %.5g\n", name, t.T[1][1], t.T[0][0], t.T[1][0], t.N[1][1], t.N[0][0], t.N[1][0])
			}
		}
	}
	return b.String()
}

// Scale names the estimand and scale of the estimates (MMD2Scale): the joint MMD² of a
// nuisance that is not binary is unscaled, as fit's held-out estimates are.
func (e *Estimates) Scale() string { return MMD2Scale(e.ZMap != nil, e.Unconditional) }

// CSV writes one row per estimator, with a header: method, the estimate (Σ over strata),
// its jackknife standard error, the unreliable strata separated by ";" ("Y=0;Y=1", empty
// when none), the strata whose estimate is impossible, likewise (a value that is not
// to be read as a number), and mmd2_scale, the estimand and its scale (Scale). Values are written with strconv's shortest round-trip form; a
// NaN as "NaN".
func (e *Estimates) CSV(w io.Writer) error {
	return results.WriteRecords(w, []string{"method", "value", "se", "unreliable", "impossible", "mmd2_scale"}, e.Results, func(r invmmd.Result) []string {
		var u []string
		for _, y := range r.Report.Unreliable() {
			u = append(u, stratumName(y, false, e.Classes))
		}
		return []string{r.Method.String(), strconv.FormatFloat(r.Value, 'g', -1, 64), seCell(r.ValueSE),
			strings.Join(u, ";"), strings.Join(impossibleStrata(r, e.Classes), ";"), e.Scale()}
	})
}

// summerFor returns the kernel sums' path: the exact reference, or nil for invmmd's
// default (AutoSums).
func summerFor(exact bool) invmmd.Summer {
	if exact {
		return invmmd.ExactSums{Workers: runtime.GOMAXPROCS(0)}
	}
	return nil
}
