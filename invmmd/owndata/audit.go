package owndata

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// AuditConfig is what invmmd audit reads: a table with the label, the sensitive attribute
// (blank where unknown), the features on which G and m are fitted, and a model's decisions
// (a 0/1 column) or its scores with a threshold.
type AuditConfig struct {
	// Source names the file, Y (and YPositive), Z and X, the score column H (decided by
	// Threshold or Rate; or Decisions instead), and the folds on which G and m are
	// cross-fitted (0 means 5). Z is one column (binary, categorical, or continuous,
	// binned into Bins groups), or several comma-separated, crossed into intersectional
	// groups (missing where any is). X nil means every column but Y, Z, Decisions and H.
	Source
	// Decisions is the 0/1 decision column (or two values, DecisionsPositive the selected
	// one); or H, a score column decided by Threshold: Ŷ = 1{score ≥ Threshold}.
	Decisions         string  "flag:\"decisions\" help:\"column of the model's 0/1 decisions (or -outputs with -threshold)\""
	DecisionsPositive string  "flag:\"decisions-positive\" help:\"the decision column's value read as selected (Ŷ = 1), when the column is not 0/1\""
	Threshold         float64 "flag:\"threshold\" help:\"the score `T` at or above which a row is selected (with -outputs)\""
	// Rate, with H instead of Threshold, selects a share of rows by score, ties at
	// random: "prevalence" (the label's share) or a number in (0, 1) (decide.go).
	Rate string "flag:\"rate\" help:\"with -outputs instead of -threshold: select this share of rows by score, ties at random (seeded by -seed): prevalence (the label's share) or a number in (0, 1)\""
	// Bins are the groups of a continuous Z: its observed values' quantiles (0 means 4).
	Bins int "flag:\"bins\" help:\"groups of a continuous attribute, at its observed values' quantiles (2 to 20; default 4)\""
	// Estimators to report (nil means every one); Level the intervals' confidence level
	// (0 means 0.95); Seed seeds the folds and the simultaneous intervals' draws; Gammas
	// the departures from missingness at random the sensitivity bounds take (nil means
	// fairness.DefaultGammas()).
	Estimators []fairness.Estimator "flag:\"estimators\" help:\"comma-separated estimators to report\""
	Level      float64              "flag:\"level\" help:\"confidence `level` of the intervals (default 0.95)\""
	Seed       uint64               "flag:\"seed\" help:\"`seed` of the folds and of the simultaneous intervals' draws\""
	Gammas     []float64            "flag:\"gammas\" help:\"departures Γ from missingness at random for the sensitivity bounds (1: none; inf: no assumption)\""
	// ScoreTest, with H, also estimates and tests the scores' distribution, h ⊥ Z | Y,
	// as invmmd estimate and test do (EstimateTable and TestTable: dr's MMD² with its SE, and
	// its p-value; G and m fitted once by their MLPs, cross-fitted on the same features;
	// about 10 s at 5,000 rows where the rest takes a second).
	ScoreTest bool "flag:\"score-test\" help:\"with -outputs, also estimate and test the scores' distribution, h ⊥ Z | Y, as invmmd estimate and test do (dr's MMD² with its SE, and its p-value; G and m fitted once by their MLPs: about 10 s at 5,000 rows)\""
}

// AuditReport is an audit's result: the estimates, the sensitivity bounds, and what they
// rest on.
type AuditReport struct {
	File      string
	Rows      int
	Observed  int // rows whose Z is observed
	ZName     string
	Groups    []string
	GroupRows []int  // observed rows by group
	BinRule   string // how a continuous Z was binned ("" otherwise)
	Decision  string // what the decisions are ("column d", "score ≥ 0.5 (column p)")
	Features  []string
	Nuisances *fairness.Nuisances
	Result    *fairness.Result
	Bounds    []fairness.Bound
	Selected  float64 // the decisions' selection rate over every row
	// Protocol is the score column's evaluation (H) on the rows whose attribute is
	// recorded: at the audit's rate (or the label's prevalence there) and at 0.5 (decide.go).
	Protocol   []fairness.Decisions
	Prevalence float64 // P(Y = 1) over every row
	Data       *fairness.Data
	// ScoreEstimate and Scores are the scores' dr estimate of the MMD² of h ⊥ Z | Y and its
	// test (ScoreTest), nil when not asked for.
	ScoreEstimate *Estimates
	Scores        *Tests
}

// Audit reads cfg.Data and audits it (AuditTable).
func Audit(ctx context.Context, cfg AuditConfig) (*AuditReport, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	tab, err := readCSV(ctx, cfg.Data, nil, cfg.Names, cfg.columnKeys(map[string]string{cfg.Decisions: "Decisions", cfg.H: "H"}))
	if err != nil {
		return nil, err
	}
	return AuditTable(ctx, tab, cfg)
}

func (c AuditConfig) validate() error {
	switch {
	case c.Y == "":
		return fieldError("Y", nil, "name the label column")
	case c.Z == "":
		return fieldError("Z", nil, "name the sensitive attribute's column(s)")
	case (c.Decisions == "") == (c.H == ""):
		return fieldError("Decisions", nil, "name either a 0/1 decision column (%s) or a score column (%s) with %s", c.name("Decisions"), c.name("H"), c.name("Threshold"))
	case c.Level != 0 && !(c.Level >= 0.5 && c.Level < 1):
		return fieldError("Level", c.Level, "want a confidence level in [0.5, 1)")
	case c.Folds != 0 && (c.Folds < 2 || c.Folds > MaxFolds):
		return fieldError("Folds", c.Folds, "want 2 to %d folds", MaxFolds)
	case c.ScoreTest && c.H == "":
		return fieldError("ScoreTest", true, "tests the scores' distribution: name the score column (%s)", c.name("H"))
	case c.Bins != 0 && (c.Bins < 2 || c.Bins > 20):
		return fieldError("Bins", c.Bins, "want 2 to 20 groups")
	case c.Rate != "" && (c.H == "" || c.Threshold != 0):
		return fieldError("Rate", c.Rate, "selects a share of rows by their scores: name the score column (%s), without %s", c.name("H"), c.name("Threshold"))
	case math.IsNaN(c.Threshold) || math.IsInf(c.Threshold, 0):
		return fieldError("Threshold", c.Threshold, "want a finite number")
	}
	for _, g := range c.Gammas {
		if !(g >= 1) {
			return fieldError("Gammas", c.Gammas, "want factors of 1 or more (1 is missingness at random; inf assumes nothing)")
		}
	}
	return nil
}

// AuditTable audits a table in memory: it reads the columns (every bad value an error
// naming its file, line, column and value, before any fitting), fits G and m by
// cross-fitted logistic regressions, estimates every metric by each estimator and the
// sensitivity bounds.
func AuditTable(ctx context.Context, tab *tabular.Table, cfg AuditConfig) (*AuditReport, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	log := orDiscard(cfg.Log)
	if len(tab.Header) == 1 {
		for _, sep := range []struct{ char, name string }{{";", "semicolon"}, {"\t", "tab"}, {"|", "bar"}} {
			if strings.Contains(tab.Header[0], sep.char) {
				return nil, fmt.Errorf("%s: the header is one column holding %ss, so the file looks %s-separated; this reads comma-separated values: convert it", tab.File, sep.name, sep.name)
			}
		}
	}
	ests := cfg.Estimators
	if ests == nil {
		ests = fairness.Estimators()
	}
	yf, err := tab.Binary(cfg.Y, cfg.YPositive, "Y")
	if err != nil {
		return nil, err
	}
	n := tab.Len()
	d := &fairness.Data{Y: make([]int, n), Decision: make([]int, n)}
	yc := tab.Column(cfg.Y)
	for i, v := range yf {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%s:%d: column %q (%s): value %q: the label is missing; every row needs one (drop the row)", tab.File, tab.Lines[i], cfg.Y, cfg.name("Y"), yc.Raw(i))
		}
		d.Y[i] = int(v)
	}
	rep := &AuditReport{File: tab.File, Rows: n, ZName: cfg.Z, Data: d}
	if rep.Decision, err = cfg.decisions(tab, d.Decision); err != nil {
		return nil, err
	}
	if d.Group, d.Levels, rep.BinRule, err = cfg.groups(tab); err != nil {
		return nil, err
	}
	rep.Groups, rep.GroupRows = d.Levels, make([]int, len(d.Levels))
	for _, l := range d.Levels {
		if slices.Contains(notRecorded, strings.ToLower(strings.TrimSpace(l))) && cfg.Warn != nil {
			fmt.Fprintf(cfg.Warn, "warning: %s has a group %q, audited as a group; if it means the attribute was not recorded, blank those cells so that they count as missing\n", cfg.Z, l)
		}
	}
	for i, g := range d.Group {
		if g >= 0 {
			rep.Observed++
			rep.GroupRows[g]++
		}
		rep.Selected += float64(d.Decision[i]) / float64(n)
		rep.Prevalence += float64(d.Y[i]) / float64(n)
	}
	if rep.Observed == 0 {
		return nil, fieldError("Z", cfg.Z, "%s: the sensitive attribute is never observed: no estimator here can recover it (the rates are only bounded, 0 to 1)", tab.File)
	}
	if err := d.Check(nil); err != nil {
		return nil, fmt.Errorf("%s: %s (%s): %w", tab.File, cfg.Z, cfg.name("Z"), err)
	}
	if cfg.H != "" {
		if rep.Protocol, err = cfg.protocol(tab, d); err != nil {
			return nil, err
		}
	}
	if rep.Features, err = cfg.features(tab); err != nil {
		return nil, err
	}
	x, dim, err := EncodeFeatures(tab, rep.Features)
	if err != nil {
		return nil, err
	}
	folds := cfg.folds()
	fmt.Fprintf(log, "audit: %s, %d rows, %s observed on %d (%.0f%%), %d groups; fitting G and m by logistic regressions cross-fitted on %d folds\n",
		tab.File, n, cfg.Z, rep.Observed, 100*float64(rep.Observed)/float64(n), len(d.Levels), folds)
	nu, err := fairness.FitNuisances(ctx, d, x, dim, fairness.NuisanceOptions{Folds: folds, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	d.G, d.M, rep.Nuisances = nu.G, nu.M, nu
	if rep.Result, err = fairness.Estimate(d, ests, fairness.Options{Level: cfg.Level, Seed: cfg.Seed}); err != nil {
		return nil, fmt.Errorf("%s: %w", tab.File, err)
	}
	gammas := cfg.Gammas
	if gammas == nil {
		gammas = fairness.DefaultGammas()
	}
	if slices.Contains(ests, fairness.DR) {
		if rep.Bounds, err = fairness.Sensitivity(d, rep.Result, gammas); err != nil {
			return nil, err
		}
	}
	if cfg.ScoreTest {
		if rep.ScoreEstimate, rep.Scores, err = scoreTest(ctx, tab, cfg, rep.Features, d.Levels); err != nil {
			return nil, fmt.Errorf("the scores' test of h ⊥ Z | Y: %w", err)
		}
	}
	if nu.NotConverged > 0 && cfg.Warn != nil {
		fmt.Fprintf(cfg.Warn, "warning: %d of the logistic regressions of G and m met no tolerance in their iterations; their last coefficients are used\n", nu.NotConverged)
	}
	if nu.BelowFloor > 0 && cfg.Warn != nil {
		fmt.Fprintf(cfg.Warn, "warning: Ĝ is below 0.05 on %d observed rows: ip and dr divide by 0.05 there (positivity is weak)\n", nu.BelowFloor)
	}
	return rep, nil
}

// decisions fills dec from the decision column, or the score column and threshold, and
// says what they are.
func (c AuditConfig) decisions(tab *tabular.Table, dec []int) (string, error) {
	if c.Decisions != "" {
		v, err := tab.Binary(c.Decisions, c.DecisionsPositive, "Decisions")
		if err != nil {
			return "", err
		}
		col := tab.Column(c.Decisions)
		for i, x := range v {
			if math.IsNaN(x) {
				return "", fmt.Errorf("%s:%d: column %q (%s): value %q: the decision is missing; every row needs one", tab.File, tab.Lines[i], c.Decisions, c.name("Decisions"), col.Raw(i))
			}
			dec[i] = int(x)
		}
		if c.DecisionsPositive != "" {
			return fmt.Sprintf("column %s (%q read as selected)", c.Decisions, c.DecisionsPositive), nil
		}
		return fmt.Sprintf("column %s (0/1)", c.Decisions), nil
	}
	s, err := tab.Numbers(c.H, "H")
	if err != nil {
		return "", err
	}
	if c.Rate != "" {
		return c.decideAtRate(tab, s, dec)
	}
	lo, hi := slices.Min(s), slices.Max(s)
	if !(c.Threshold > lo && c.Threshold <= hi) {
		return "", fieldError("Threshold", c.Threshold, "%s: the scores in column %q run from %g to %g: a threshold outside (%g, %g] decides every row alike", tab.File, c.H, lo, hi, lo, hi)
	}
	for i, x := range s {
		if x >= c.Threshold {
			dec[i] = 1
		}
	}
	return fmt.Sprintf("score ≥ %g (column %s)", c.Threshold, c.H), nil
}

// groups reads Z as group indices (−1 where missing): one categorical column as its levels,
// a numeric column of few integer values likewise, a continuous one binned at its observed
// quantiles, several columns crossed.
func (c AuditConfig) groups(tab *tabular.Table) ([]int, []string, string, error) {
	cols := tabular.ZColumns(c.Z)
	n := tab.Len()
	group := make([]int, n)
	var levels []string
	index := map[string]int{}
	names := make([][]string, len(cols))
	codes := make([][]int, len(cols))
	rule := ""
	for k, name := range cols {
		col := tab.Column(name)
		if col == nil {
			return nil, nil, "", &tabular.ColumnError{File: tab.File, Name: name, Setting: c.name("Z"), Header: tab.Header}
		}
		codes[k] = make([]int, n)
		switch {
		case !col.Numeric:
			names[k] = col.Levels
			for i := range n {
				codes[k][i] = int(col.Codes[i])
			}
		case integerLevels(col):
			var vals []float64
			for i := range n {
				if !col.IsMissing(i) && !slices.Contains(vals, col.Num[i]) {
					vals = append(vals, col.Num[i])
				}
			}
			slices.Sort(vals)
			for _, v := range vals {
				names[k] = append(names[k], strconv.FormatFloat(v, 'g', -1, 64))
			}
			for i := range n {
				codes[k][i] = -1
				if !col.IsMissing(i) {
					codes[k][i] = slices.Index(vals, col.Num[i])
				}
			}
		default:
			bins := c.Bins
			if bins == 0 {
				bins = 4
			}
			edges, err := quantileEdges(col, bins)
			if err != nil {
				return nil, nil, "", fmt.Errorf("%s: column %q (%s): %w", tab.File, name, c.name("Z"), err)
			}
			for b := range len(edges) + 1 {
				lo, hi := "−∞", "∞"
				if b > 0 {
					lo = strconv.FormatFloat(edges[b-1], 'g', 4, 64)
				}
				if b < len(edges) {
					hi = strconv.FormatFloat(edges[b], 'g', 4, 64)
				}
				names[k] = append(names[k], "["+lo+", "+hi+")")
			}
			for i := range n {
				codes[k][i] = -1
				if !col.IsMissing(i) {
					codes[k][i] = sortSearch(edges, col.Num[i])
				}
			}
			rule = fmt.Sprintf("%s binned into %d groups at the %d-quantiles of its observed values (edges %s)", name, len(edges)+1, bins, fmtList(edges))
		}
	}
	if len(cols) == 1 { // one column: its groups in its order (numbers and bins by value), each held by a row
		return codes[0], names[0], rule, nil
	}
	for i := range n {
		parts := make([]string, len(cols))
		group[i] = -1
		for k := range cols {
			if codes[k][i] < 0 {
				parts = nil
				break
			}
			parts[k] = names[k][codes[k][i]]
		}
		if parts == nil {
			continue
		}
		key := strings.Join(parts, " × ")
		g, ok := index[key]
		if !ok {
			g = len(levels)
			index[key] = g
			levels = append(levels, key)
		}
		group[i] = g
	}
	return group, levels, rule, nil
}

// notRecorded are group names that usually mean the attribute was not recorded: a group
// of that name is audited as a group, with a warning to blank it if it means missing.
var notRecorded = []string{"unknown", "missing", "not recorded", "not reported", "refused", "declined", "n/a", "none"}

// integerLevels reports whether a numeric column holds at most tabular.MaxIntegerLevels
// distinct integer values (site 1, 2, 3: groups, not a continuous attribute).
func integerLevels(col *tabular.Column) bool {
	seen := map[float64]bool{}
	for i, v := range col.Num {
		if col.IsMissing(i) {
			continue
		}
		if v != math.Trunc(v) {
			return false
		}
		if seen[v] = true; len(seen) > tabular.MaxIntegerLevels {
			return false
		}
	}
	return true
}

// quantileEdges returns the distinct inner quantiles of a numeric column's observed values.
func quantileEdges(col *tabular.Column, bins int) ([]float64, error) {
	var v []float64
	for i, x := range col.Num {
		if !col.IsMissing(i) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("no value observed")
	}
	slices.Sort(v)
	var edges []float64
	for b := 1; b < bins; b++ {
		e := v[min(len(v)-1, b*len(v)/bins)]
		if e > v[0] && (len(edges) == 0 || e > edges[len(edges)-1]) {
			edges = append(edges, e)
		}
	}
	if len(edges) == 0 {
		return nil, fmt.Errorf("every observed value is %g: one group", v[0])
	}
	return edges, nil
}

// sortSearch returns the bin of x: the number of edges at or below it.
func sortSearch(edges []float64, x float64) int {
	b := 0
	for b < len(edges) && x >= edges[b] {
		b++
	}
	return b
}

func fmtList(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', 4, 64)
	}
	return strings.Join(s, ", ")
}

// features returns the feature columns: X, or every column but the label, the attribute,
// the decisions and the scores.
func (c AuditConfig) features(tab *tabular.Table) ([]string, error) {
	if c.X != nil {
		for _, x := range c.X {
			if slices.Contains(tabular.ZColumns(c.Z), x) {
				return nil, fieldError("X", c.X, "column %q is the sensitive attribute: G and m are fitted on the other features", x)
			}
		}
		return c.X, nil
	}
	skip := append([]string{c.Y, c.Decisions, c.H}, tabular.ZColumns(c.Z)...)
	var out []string
	for _, h := range tab.Header {
		if !slices.Contains(skip, h) && !tab.Column(h).Identifier() {
			out = append(out, h)
		}
	}
	return out, nil
}

// EncodeFeatures encodes the feature columns of every row (standardised numbers, one-hot
// levels, missing-value indicators) as float64, row-major, for fairness.FitNuisances.
func EncodeFeatures(tab *tabular.Table, cols []string) ([]float64, int, error) {
	all := allRows(tab.Len())
	if len(cols) == 0 {
		return make([]float64, 0), 0, nil
	}
	enc, _, err := tabular.FitEncoder(tab, cols, all)
	if err != nil {
		return nil, 0, err
	}
	x32, _, err := enc.Encode(tab, all)
	if err != nil {
		return nil, 0, err
	}
	x := make([]float64, len(x32))
	for i, v := range x32 {
		x[i] = float64(v)
	}
	return x, enc.Dim(), nil
}

// scoreTest estimates dr's MMD² of the scores' dependence on Z given Y (EstimateTable) and
// tests it (TestTable) as invmmd estimate and test do, G and m fitted once by their MLPs,
// cross-fitted on the audit's folds, for both.
func scoreTest(ctx context.Context, tab *tabular.Table, cfg AuditConfig, features []string, levels []string) (*Estimates, *Tests, error) {
	ec := DefaultEstimateConfig()
	ec.Source, ec.X = cfg.Source, features
	ec.ZKind, ec.ZPositive = scoreTestKind(tab, cfg.Z, levels)
	ec.Methods = []method.Method{method.DR}
	if tab.Column(tabular.ZColumns(cfg.Z)[0]) != nil && allObserved(tab, cfg.Z) {
		ec.Methods = []method.Method{method.Full}
	}
	var err error
	if ec.Methods[0] == method.DR {
		if ec.Nuisances, err = FitNuisancesTable(ctx, tab, ec); err != nil {
			return nil, nil, err
		}
	}
	est, err := EstimateTable(ctx, tab, ec)
	if err != nil {
		return nil, nil, err
	}
	tc := DefaultTestConfig()
	tc.EstimateConfig = ec
	tests, err := TestTable(ctx, tab, tc)
	if err != nil {
		return nil, nil, err
	}
	return est, tests, nil
}

// allObserved reports whether every attribute column of z is observed on every row.
func allObserved(tab *tabular.Table, z string) bool {
	for _, c := range tabular.ZColumns(z) {
		if tab.Column(c).Missing > 0 {
			return false
		}
	}
	return true
}

// scoreTestKind says how the scores' test reads the attribute: several columns as a vector,
// a binned numeric one as continuous (the kernel on its raw values), two groups as a binary
// Z (which of them is 1 does not change the test), more as a categorical one.
func scoreTestKind(tab *tabular.Table, z string, levels []string) (kind ZKind, positive string) {
	cols := tabular.ZColumns(z)
	switch {
	case len(cols) > 1:
		return ZVector, ""
	case tab.Column(cols[0]).Numeric && !integerLevels(tab.Column(cols[0])):
		return ZContinuous, ""
	case len(levels) == 2 && !tab.Column(cols[0]).Numeric:
		return ZBinary, levels[1]
	case len(levels) == 2:
		return "", ""
	}
	return ZCategorical, ""
}
