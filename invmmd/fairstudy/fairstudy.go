// Package fairstudy is the fairness audit's validation study: on public tables whose
// sensitive attribute is complete, the attribute is hidden by documented rules (at random
// given the features and the label, or depending on the attribute itself), and the audit's
// estimates and intervals are compared with the complete data's values, replicate by
// replicate.
//
// Each table is a population: its decisions come from one logistic regression of the label
// on the features fitted on every row, selecting as many rows as the label's prevalence;
// its complete data's values are Fairlearn's (the complete_case estimator on every row with
// the attribute whole). A replicate draws n rows with replacement, hides the attribute on
// each with the rule's probability, fits G and m by cross-fitted logistic regressions on
// the features and the label (as invmmd audit does) and audits the decisions; an interval
// covers when it holds the population's value.
package fairstudy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// Term is one term of a hiding rule's log odds: Coef times the column's standardised value
// (a numeric column) or times 1{column = Level} (a categorical one).
type Term struct {
	Column string
	Level  string
	Coef   float64
}

// Table is a public table of the study and its hiding rule: the attribute is hidden with
// probability expit(Intercept + Σ terms + YCoef·Y), plus MNAR·1{Z = MNARGroup} in the cells
// where missingness depends on the attribute.
type Table struct {
	Name, File   string
	Y, YPositive string
	Z            string
	X            []string
	Intercept    float64
	Terms        []Term
	YCoef        float64
	MNARGroup    string
}

// Tables are the study's tables (data/fairness/README.md gives their sources).
func Tables() []Table {
	return []Table{
		{
			Name: "college", File: "data/fairness/college_full.csv", Y: "income", YPositive: "high", Z: "ethnicity",
			X:         []string{"gender", "score", "fcollege", "mcollege", "home", "urban", "unemp", "wage", "distance", "tuition", "education", "region"},
			Intercept: -0.6, YCoef: 0.9, MNARGroup: "afam",
			Terms: []Term{{"urban", "yes", 0.9}, {"score", "", -0.7}, {"fcollege", "yes", 0.5}},
		},
		{
			Name: "hmda", File: "data/fairness/hmda_full.csv", Y: "deny", YPositive: "yes", Z: "afam",
			X:         []string{"pirat", "hirat", "lvrat", "chist", "mhist", "phist", "unemp", "selfemp", "insurance", "condomin", "single", "hschool"},
			Intercept: -0.3, YCoef: 1.0, MNARGroup: "yes",
			Terms: []Term{{"pirat", "", 0.8}, {"single", "yes", 0.6}, {"lvrat", "", -0.4}},
		},
	}
}

// Cell is one set-up: a table, a size and a missingness.
type Cell struct {
	Table Table
	N     int
	// MNAR is the log odds by which the attribute of MNARGroup is hidden more than the
	// others' alike in (X, Y): 0 is missing at random; log 2 makes Γ = 2 the true departure.
	MNAR       float64
	Replicates int
	Seed       uint64
}

// Missingness names the cell's missingness for tables: "MAR" or "MNAR Γ=…".
func (c Cell) Missingness() string {
	if c.MNAR == 0 {
		return "MAR"
	}
	return fmt.Sprintf("MNAR Γ=%.3g", math.Exp(math.Abs(c.MNAR)))
}

// population is a table read once: its rows' labels, attribute, features, decisions and
// hiding log odds (without the MNAR term), and the complete data's values.
type population struct {
	levels []string
	y, z   []int
	x      []float64
	dim    int
	dec    []int
	logit  []float64
	mnarZ  int
	truth  map[key]float64
}

type key struct{ metric, group, method string }

// Row is one result of the study: a metric of a group (or a difference) by an estimator in
// a cell, over its replicates.
type Row struct {
	Table, Missingness string
	N, Replicates      int
	Metric, Group      string
	Method             string
	Estimator          string // an estimator's name, or "bounds Γ=…" for the sensitivity bounds
	Truth              float64
	Coverage           float64 // share of replicates whose interval held Truth
	Bias               float64 // mean estimate − Truth
	RMSE               float64
	Width              float64 // mean interval width
	HiddenShare        float64 // mean share of rows whose attribute was hidden
	Refused            int     // replicates the audit refused (a rate undefined: a group without an observed row of a class)
}

func load(t Table, root string) (*population, error) {
	tab, err := tabular.ReadFile(root+"/"+t.File, nil)
	if err != nil {
		return nil, err
	}
	yf, err := tab.Binary(t.Y, t.YPositive, "Y")
	if err != nil {
		return nil, err
	}
	n := tab.Len()
	p := &population{y: make([]int, n), z: make([]int, n), dec: make([]int, n), mnarZ: -1}
	zc := tab.Column(t.Z)
	if zc == nil || zc.Numeric {
		return nil, fmt.Errorf("%s: column %q: want a categorical attribute", t.File, t.Z)
	}
	p.levels = zc.Levels
	for i := range n {
		p.y[i] = int(yf[i])
		p.z[i] = int(zc.Codes[i])
		if p.z[i] < 0 {
			return nil, fmt.Errorf("%s:%d: the attribute is missing: the study needs it whole", t.File, tab.Lines[i])
		}
	}
	p.mnarZ = slices.Index(p.levels, t.MNARGroup)
	if p.mnarZ < 0 {
		return nil, fmt.Errorf("%s: no group %q of %s", t.File, t.MNARGroup, t.Z)
	}
	if p.x, p.dim, err = owndata.EncodeFeatures(tab, t.X); err != nil {
		return nil, err
	}
	// The decisions: a logistic regression of Y on X, selecting the prevalence's share.
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	m, err := fairness.FitLogit(context.Background(), p.x, p.dim, p.y, all, 2, fairness.LogitOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: the decisions' model: %w", t.File, err)
	}
	score := make([]float64, n)
	prev := 0
	for i := range n {
		score[i] = m.Probs(p.x[i*p.dim : (i+1)*p.dim])[1]
		prev += p.y[i]
	}
	cut := cutFor(score, prev)
	for i := range n {
		if score[i] >= cut {
			p.dec[i] = 1
		}
	}
	if p.logit, err = hidingLogits(tab, p.y, t.Intercept, t.YCoef, t.Terms); err != nil {
		return nil, err
	}
	d := &fairness.Data{Y: p.y, Decision: p.dec, Group: p.z, Levels: p.levels}
	res, err := fairness.Estimate(d, []fairness.Estimator{fairness.CompleteCase}, fairness.Options{Draws: 100})
	if err != nil {
		return nil, fmt.Errorf("%s: the complete data's values: %w", t.File, err)
	}
	p.truth = map[key]float64{}
	for _, r := range res.Rows {
		p.truth[key{r.Metric, r.Group, r.Method}] = r.Estimate
	}
	return p, nil
}

// tracked says which rows of an audit the study scores: every rate by group, every
// pairwise difference, the between-groups differences and the scalar gaps.
func tracked(r fairness.Row) bool {
	switch {
	case r.Metric == fairness.Count:
		return false
	case r.Method == "" && r.Group != fairness.All && r.Group != fairness.Overall:
		return true
	case r.Method == fairness.Pair:
		return true
	case r.Method == fairness.BetweenGroups && r.Group == fairness.Difference:
		return true
	case r.Group == fairness.All && (r.Metric == fairness.EqualizedOddsDifference || r.Metric == fairness.DemographicParityDifference):
		return true
	}
	return false
}

// outcome is one replicate's scores of one tracked row.
type outcome struct {
	k       key
	est     string
	value   float64
	covered bool
	width   float64
}

// replicate draws, hides, fits and audits one replicate of the cell.
func (p *population) replicate(ctx context.Context, c Cell, r int) ([]outcome, float64, error) {
	rng := rand.New(rand.NewPCG(c.Seed, uint64(r)))
	n := c.N
	d := &fairness.Data{Y: make([]int, n), Decision: make([]int, n), Group: make([]int, n), Levels: p.levels}
	x := make([]float64, n*p.dim)
	hidden := 0
	for i := range n {
		j := rng.IntN(len(p.y))
		d.Y[i], d.Decision[i], d.Group[i] = p.y[j], p.dec[j], p.z[j]
		copy(x[i*p.dim:], p.x[j*p.dim:(j+1)*p.dim])
		lo := p.logit[j]
		if p.z[j] == p.mnarZ {
			lo += c.MNAR
		}
		if rng.Float64() < 1/(1+math.Exp(-lo)) {
			d.Group[i] = -1
			hidden++
		}
	}
	nu, err := fairness.FitNuisances(ctx, d, x, p.dim, fairness.NuisanceOptions{Seed: uint64(r)})
	if err != nil {
		return nil, 0, err
	}
	d.G, d.M = nu.G, nu.M
	res, err := fairness.Estimate(d, fairness.Estimators(), fairness.Options{Seed: uint64(r), Draws: 4000})
	if err != nil {
		return nil, 0, err
	}
	var out []outcome
	for _, row := range res.Rows {
		if !tracked(row) {
			continue
		}
		k := key{row.Metric, row.Group, row.Method}
		t := p.truth[k]
		out = append(out, outcome{k, row.Estimator.String(), row.Estimate, row.Low <= t && t <= row.High, row.High - row.Low})
	}
	bounds, err := fairness.Sensitivity(d, res, []float64{2})
	if err != nil {
		return nil, 0, err
	}
	for _, b := range bounds {
		k := key{b.Metric, b.Group, ""}
		t := p.truth[k]
		out = append(out, outcome{k, "bounds Γ=2", math.NaN(), b.Low <= t && t <= b.High, b.High - b.Low})
	}
	return out, float64(hidden) / float64(n), nil
}

// Run runs every replicate of the cell on workers goroutines (root: the repository's
// folder, which the tables' files are relative to) and returns its rows. The results do
// not depend on workers: each replicate has its own seed.
func Run(ctx context.Context, c Cell, root string, workers int) ([]Row, error) {
	p, err := load(c.Table, root)
	if err != nil {
		return nil, err
	}
	outs := make([][]outcome, c.Replicates)
	refused := 0
	shares := make([]float64, c.Replicates)
	errs := make([]error, c.Replicates)
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				outs[r], shares[r], errs[r] = p.replicate(ctx, c, r)
			}
		}()
	}
	for r := range c.Replicates {
		next <- r
	}
	close(next)
	wg.Wait()
	for r, err := range errs {
		var undef *fairness.UndefinedError
		switch {
		case errors.As(err, &undef):
			refused++ // a rate the replicate cannot define: the audit refuses it, and so does the study
		case err != nil:
			return nil, fmt.Errorf("%s n=%d %s replicate %d: %w", c.Table.Name, c.N, c.Missingness(), r, err)
		}
	}
	type acc struct {
		n, cov         int
		sum, sq, width float64
	}
	accs := map[[2]string]*acc{}
	var order [][2]string
	keys := map[[2]string]key{}
	for _, o := range outs {
		for _, x := range o {
			id := [2]string{fmt.Sprint(x.k), x.est}
			a, ok := accs[id]
			if !ok {
				a = &acc{}
				accs[id] = a
				order = append(order, id)
				keys[id] = x.k
			}
			dev := x.value - p.truth[x.k] // NaN for bounds: no point estimate
			a.n++
			a.sum += dev
			a.sq += dev * dev
			a.width += x.width
			if x.covered {
				a.cov++
			}
		}
	}
	share := 0.0
	for r, s := range shares {
		if errs[r] == nil {
			share += s / float64(c.Replicates-refused)
		}
	}
	var rows []Row
	for _, id := range order {
		a, k := accs[id], keys[id]
		m := float64(a.n)
		rows = append(rows, Row{c.Table.Name, c.Missingness(), c.N, a.n, k.metric, k.group, k.method, id[1], p.truth[k],
			float64(a.cov) / m, a.sum / m, math.Sqrt(a.sq / m), a.width / m, share, refused})
	}
	return rows, nil
}

// cutFor returns the score at or above which the k highest of scores are selected.
func cutFor(scores []float64, k int) float64 {
	return slices.Sorted(slices.Values(scores))[len(scores)-k]
}
