package owndata

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// How estimate and test get G and m when no column gives them: cross-fitted.
//
// A pseudo-outcome built from a Ĝ or m̂ fitted on the same rows carries the fit's
// overfitting into the statistic; cross-fitting (DoubleML's DML2, Chernozhukov et al.
// 2018) removes it: the rows are split into K folds (at random within each (Y, Δ) cell,
// so that every fold holds the same shares of each label and of missing Z), G and m are
// fitted K times, each time on the other K − 1 folds, and every row's Ĝ and m̂ come from
// the models that did not see it. Estimate and test then use every row. With the doubly
// robust pseudo-outcome, whose error in G and m is a product of the two fits' errors, the
// estimates' standard errors and the tests' p-values then need no correction for the fit
// (the calibration study measures it); reg's and ip's pseudo-outcomes are not orthogonal,
// and cross-fitting does not make their tests valid (method.Info.TestCaveat).
//
// Folds = 1 is sample splitting instead: G and m are fitted on a random half B of the rows
// and the estimate or the test uses half A only (the cross route: its statistic sums over
// A, its witness is built on B).
//
// G is fitted first and m second: the kernel on a continuous or vector Z is fixed from the
// observed Z with weights 1/Ĝ (invmmd.NewMap), so that the estimand does not move with
// which Z are missing, and m's features follow from that kernel.

// DefaultFolds is the number of folds of the cross-fitting: DoubleML's default, each fit on
// 80% of the rows. MaxFolds bounds it (each fold costs a fit of G and of m).
const (
	DefaultFolds = 5
	MaxFolds     = 20
)

// MinFoldRows is the fewest rows each fold must hold: G and m are validated on a fifth
// of the other folds, and a fold of fewer rows leaves its estimates to a handful of rows.
const MinFoldRows = 20

// nuisanceFit says how the nuisances of an estimate or a test were obtained.
type nuisanceFit struct {
	Folds int
	// InA marks the rows estimated or tested with sample splitting (Folds = 1): half A,
	// the nuisances fitted on half B. nil with cross-fitting (every row).
	InA []bool
	// ZWeighted: the kernel on a continuous or vector Z had its data-driven constants
	// weighted by 1/Ĝ (ZSigma the bandwidth taken; ZSigmaPlain what equal weights give).
	ZWeighted           bool
	ZSigma, ZSigmaPlain float64
	Report              AuxReport
}

// fitNuisances fits G and m where c needs them fitted (fitG, fitM) for every row of l by
// c.folds()-fold cross-fitting (or, with folds = 1, on half B of inA's halves), seeded by
// c.AuxSeed, sets rows.G and rows.M or rows.MPsi, fixes the kernel on a continuous or
// vector Z with weights 1/G (l.zmap, rows.Psi) unless its bandwidth was given, and reports
// it all to c.Log and its warnings to warn. A given column of G (rows.G set by load)
// weighs the kernel likewise.
func (l *loaded) fitNuisances(ctx context.Context, c EstimateConfig, inA []bool, rows *invmmd.Rows, warn *warner) (nuisanceFit, error) {
	seed, folds, fitG, fitM, log, fit := c.AuxSeed, c.folds(), c.fitG(), c.fitM(), orDiscard(c.Log), c.fit
	if fit == nil {
		fit = fitNuisancesMLP
	}
	nf := nuisanceFit{Folds: folds}
	n := l.tab.Len()
	var parts [][3][]int // per fit: its training rows, its stopping rows, the rows it predicts
	if folds == 1 {
		nf.InA = inA
		var a, b []int
		for i, in := range inA {
			if in {
				a = append(a, i)
			} else {
				b = append(b, i)
			}
		}
		fitRows, stopRows := splitFit(b, c.AuxSeed)
		parts = [][3][]int{{fitRows, stopRows, a}}
	} else {
		fs := fairness.CellFolds(rows.Y, rows.Delta, folds, seed)
		for k, f := range fs {
			if len(f) < MinFoldRows {
				return nf, fieldError("Folds", folds, "fold %d of %d holds %d rows, fewer than %d: use fewer folds", k+1, folds, len(f), MinFoldRows)
			}
			rest := slices.Concat(slices.Delete(slices.Clone(fs), k, k+1)...) // the other folds' rows
			slices.Sort(rest)
			fitRows, stopRows := splitFit(rest, c.AuxSeed+uint64(k))
			parts = append(parts, [3][]int{fitRows, stopRows, f})
		}
	}
	// One phase per model: G first (its Ĝ weighs the kernel on Z), then m. The fold
	// models' warnings are gathered and said once each, with how many models gave them.
	var reps []AuxReport
	folded, fitted := &warner{}, 0
	defer func() { warn.add(onceEach(folded.all, fitted)...) }()
	fold := func(role train.Role) error {
		for k, p := range parts {
			fitted++
			pred, rep, err := fit(ctx, l, c, []train.Role{role}, p, folded)
			if err != nil {
				if folds > 1 {
					return fmt.Errorf("fitting %v on the folds other than %d of %d: %w", role, k+1, folds, err)
				}
				return err
			}
			predicted := p[2]
			if folds == 1 { // the rows of B too: the cross route's witness reads their pseudo-outcomes
				predicted = allRows(n)
			}
			for _, i := range predicted {
				if role == train.RoleG {
					rows.G[i] = pred.G[i]
				} else if pred.MPsi != nil {
					copy(rows.MPsi.Row(i), pred.MPsi.Row(i))
				} else {
					rows.M[i] = pred.M[i]
				}
			}
			if role == train.RoleM && len(reps) > k { // fold k's G came first
				reps[k].M, reps[k].MStop = rep.M, rep.MStop
			} else {
				reps = append(reps, rep)
			}
		}
		return nil
	}
	if fitG {
		rows.G = make([]float64, n)
		if err := fold(train.RoleG); err != nil {
			return nf, err
		}
	}
	if err := l.weighZKernel(c, rows, &nf); err != nil {
		return nf, err
	}
	if fitM {
		if l.zmap != nil {
			rows.MPsi, rows.M = invmmd.NewFeatures(n, l.zmap.Dim()), nil
		} else {
			rows.M = make([]float64, n)
		}
		if err := fold(train.RoleM); err != nil {
			return nf, err
		}
	}
	warn.add(onceEach(folded.all, fitted)...)
	folded.all = nil
	nf.Report = foldsReport(reps, rows.G, rows.Delta, fitG, fitM, folds, parts)
	fmt.Fprint(log, nf.describe(c))
	warn.add(nf.Report.Warning(c.Names))
	return nf, nil
}

// nuisances gives rows their Ĝ and m̂ where b says G or m is fitted — from c.Nuisances
// when set, else fitted on c's folds (on half B of inA's halves with one fold) — and
// fixes the kernel on Z, recording in b how (AuxFit, Folds, ZMap).
func (l *loaded) nuisances(ctx context.Context, c EstimateConfig, inA []bool, rows *invmmd.Rows, b *Basis, warn *warner) error {
	switch {
	case !b.FittedG && !b.FittedM:
		if err := l.weighZKernel(c, rows, &nuisanceFit{}); err != nil {
			return err
		}
	case c.Nuisances != nil:
		if err := l.useNuisances(c.Nuisances, rows, b.FittedG, b.FittedM); err != nil {
			return err
		}
		b.AuxFit, b.Folds = c.Nuisances.Report, c.Nuisances.Folds
	default:
		if c.folds() > 1 {
			inA = nil
		}
		nf, err := l.fitNuisances(ctx, c, inA, rows, warn)
		if err != nil {
			return err
		}
		b.AuxFit, b.Folds = nf.Report, c.folds()
	}
	b.ZMap = l.zmap
	return nil
}

// allRows returns 0, …, n−1.
func allRows(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

// weighZKernel fixes the kernel on a continuous or vector Z from the observed Z weighted
// by 1/G (G fitted or given; floored at invmmd.DefaultGFloor), when its bandwidth is
// data-driven, and recomputes rows.Psi with it.
func (l *loaded) weighZKernel(c EstimateConfig, rows *invmmd.Rows, nf *nuisanceFit) error {
	if l.zmap == nil || rows.G == nil || c.ZMap.Bandwidth > 0 || (l.kind != dataset.ContinuousZ && l.kind != dataset.VectorZ) {
		return nil
	}
	zmap, err := zKernelWeighted(c.Columns, l.tab.File, l.nu, l.zRaw, rows.G)
	if err != nil {
		return err
	}
	if psi, err := invmmd.Apply(zmap, l.zRaw); err == nil {
		rows.Psi = psi
	} else {
		return fmt.Errorf("%s: %w", l.tab.File, err)
	}
	nf.ZWeighted = true
	nf.ZSigma, nf.ZSigmaPlain = bandwidthOfMap(zmap), bandwidthOfMap(l.zmap)
	l.zmap = zmap
	return nil
}

// bandwidthOfMap returns the bandwidth of a continuous or vector Z's map (0 otherwise).
func bandwidthOfMap(m invmmd.FeatureMap) float64 {
	switch m := m.(type) {
	case invmmd.GaussianMap:
		return m.Sigma
	case invmmd.RandomFeatureMap:
		return m.Sigma
	}
	return 0
}

// foldsReport combines the folds' reports: the first fold's fits stand for the others in
// the per-model lines (its numbers are typical; the ranges over folds follow), and
// positivity is judged on the Ĝ in use (every row's out-of-fold Ĝ, or the given column).
func foldsReport(reps []AuxReport, g, delta []float64, fitG, fitM bool, folds int, parts [][3][]int) AuxReport {
	var r AuxReport
	if len(reps) > 0 {
		r = reps[0]
	}
	r.Folds = reps
	r.FittedG, r.FittedM = fitG, fitM
	r.MinG, r.BelowMin, r.Rows = math.Inf(1), 0, len(g)
	for _, x := range g {
		r.MinG = math.Min(r.MinG, x)
		if x < invmmd.DefaultGFloor {
			r.BelowMin++
		}
	}
	if g == nil {
		r.MinG = 0
	}
	trainRows := len(parts[0][0]) + len(parts[0][1])
	if folds == 1 {
		r.On = fmt.Sprintf("half B, %d rows (%d to fit, %d held out to stop training); the other half is estimated or tested", trainRows, len(parts[0][0]), len(parts[0][1]))
	} else {
		r.On = fmt.Sprintf("%d folds: each row's Ĝ and m̂ from the models fitted on the other %d folds (fold 1's: %d rows, %d to fit and %d held out to stop training)", folds, folds-1, trainRows, len(parts[0][0]), len(parts[0][1]))
	}
	return r
}

// describe says how the nuisances were fitted, for the commands' output.
func (nf nuisanceFit) describe(c EstimateConfig) string {
	var b strings.Builder
	b.WriteString(nf.Report.String())
	if nf.ZWeighted {
		fmt.Fprintf(&b, "  kernel on Z: bandwidth %.4g, the median distance between observed Z weighted by 1/Ĝ so that it is the full data's (equal weights would give %.4g)\n", nf.ZSigma, nf.ZSigmaPlain)
	}
	return b.String()
}

// Nuisances are G and m fitted for a table by FitNuisancesTable, cross-fitted as estimate
// and test fit them: given to EstimateConfig.Nuisances or TestConfig.Nuisances, they are
// used instead of a new fit, so that several columns of model outputs, or an estimate and
// a test, share one fit (the fit is the costly part). They belong to the table they were
// fitted on: the same rows, Y, Z and features.
type Nuisances struct {
	G, M []float64        // Ĝ and the binary Z's m̂ for every row (nil when not fitted)
	MPsi *invmmd.Features // m̂ of a nuisance that is not binary
	// ZMap is the kernel on a nuisance that is not binary, fixed with them (weighted by
	// 1/Ĝ for a continuous or vector Z).
	ZMap   invmmd.FeatureMap
	Folds  int
	Report AuxReport
	rows   int
	digest string
}

// FitNuisancesTable fits G and m for tab as EstimateTable would for cfg (the models cfg's
// methods need and no column gives; cross-fitted on cfg.Folds ≥ 2 folds) and returns them
// for EstimateConfig.Nuisances and TestConfig.Nuisances.
func FitNuisancesTable(ctx context.Context, tab *tabular.Table, cfg EstimateConfig) (*Nuisances, error) {
	if err := cfg.validate(false); err != nil {
		return nil, err
	}
	if cfg.folds() < 2 {
		return nil, fieldError("Folds", cfg.Folds, "nuisances to share are cross-fitted: want 2 to %d folds", MaxFolds)
	}
	log, warn := orDiscard(cfg.Log), &warner{w: cfg.Warn}
	l, err := cfg.load(tab, log)
	if err != nil {
		return nil, err
	}
	rows := l.rows
	if !cfg.fitG() && !cfg.fitM() {
		return nil, fieldError("Methods", method.List(cfg.Methods), "no nuisance to fit: the methods need neither G nor m, or columns give them")
	}
	nf, err := l.fitNuisances(ctx, cfg, nil, &rows, warn)
	if err != nil {
		return nil, err
	}
	n := &Nuisances{ZMap: l.zmap, Folds: nf.Folds, Report: nf.Report, rows: tab.Len(), digest: tab.Digest()}
	if cfg.fitG() {
		n.G = rows.G
	}
	if cfg.fitM() {
		n.M, n.MPsi = rows.M, rows.MPsi
	}
	return n, nil
}

// useNuisances sets rows' G and m, and l's kernel on Z, from n, fitted for this table.
func (l *loaded) useNuisances(n *Nuisances, rows *invmmd.Rows, fitG, fitM bool) error {
	if n.rows != l.tab.Len() || n.digest != l.tab.Digest() {
		return fieldError("Nuisances", nil, "fitted for another table (%d rows; this one has %d, or other values)", n.rows, l.tab.Len())
	}
	if fitG {
		if n.G == nil {
			return fieldError("Nuisances", nil, "hold no G, which the methods need")
		}
		rows.G = n.G
	}
	if fitM {
		if n.M == nil && n.MPsi == nil {
			return fieldError("Nuisances", nil, "hold no m, which the methods need")
		}
		rows.M, rows.MPsi = n.M, n.MPsi
	}
	if n.ZMap != nil && l.zmap != nil {
		psi, err := invmmd.Apply(n.ZMap, l.zRaw)
		if err != nil {
			return err
		}
		l.zmap, rows.Psi = n.ZMap, psi
	}
	return nil
}

// onceEach returns the distinct warnings of ws in their first order, each said once: one
// that several of the models fitted (of fitted) gave says how many.
func onceEach(ws []string, fitted int) []string {
	count := map[string]int{}
	var out []string
	for _, w := range ws {
		if count[w]++; count[w] == 1 {
			out = append(out, w)
		}
	}
	for i, w := range out {
		if n := count[w]; n > 1 {
			out[i] = fmt.Sprintf("%s (from %d of the %d models fitted on the folds)", w, n, max(n, fitted))
		}
	}
	return out
}
