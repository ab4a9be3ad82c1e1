package fairstudy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// MplsFile is the Minneapolis police stops of 2017 (data/mplsstops/README.md).
const MplsFile = "data/mplsstops/mplsstops.csv"

// MplsFeatures are the stop's columns the case's model and its G and m read: the officer's
// impression of race before the stop (preRace), gender, the kind of stop, the precinct,
// the neighbourhood, the month and the hour.
func MplsFeatures() []string {
	return []string{"preRace", "gender", "problem", "policePrecinct", "neighborhood", "month", "hour"}
}

// MplsStops is the audit's real case: a model of whether a stop leads to a search of the
// person, audited for equalized odds across the race the officer recorded after the stop,
// which is blank on about a fifth of the stops it covers. It keeps the stops recorded in a
// vehicle (MDC; the others have no search recorded), fits a logistic regression of
// personSearch on MplsFeatures on a random half (seeded), selects on the other half the
// share of stops the training half searched, and audits those decisions there with
// owndata.AuditTable (G and m cross-fitted on the same features and the label).
func MplsStops(ctx context.Context, root string, seed uint64) (*owndata.AuditReport, error) {
	tab, err := tabular.ReadFileContext(ctx, filepath.Join(root, MplsFile), nil)
	if err != nil {
		return nil, err
	}
	search := tab.Column("personSearch")
	race := tab.Column("race")
	if search == nil || race == nil {
		return nil, fmt.Errorf("%s: want columns personSearch and race", tab.File)
	}
	var rows []int
	for i := range tab.Len() {
		if !search.IsMissing(i) {
			rows = append(rows, i)
		}
	}
	feats := MplsFeatures()
	all, err := subTable(tab, rows, append([]string{"personSearch", "race"}, feats...))
	if err != nil {
		return nil, err
	}
	x, dim, err := owndata.EncodeFeatures(all, feats)
	if err != nil {
		return nil, err
	}
	y, err := all.Binary("personSearch", "YES", "Y")
	if err != nil {
		return nil, err
	}
	n := all.Len()
	labels := make([]int, n)
	for i, v := range y {
		labels[i] = int(v)
	}
	rng := rand.New(rand.NewPCG(seed, 0x3b1))
	perm := rng.Perm(n)
	train, test := slices.Clone(perm[:n/2]), slices.Clone(perm[n/2:])
	slices.Sort(train)
	slices.Sort(test)
	model, err := fairness.FitLogit(ctx, x, dim, labels, train, 2, fairness.LogitOptions{})
	if err != nil {
		return nil, fmt.Errorf("the stops' model: %w", err)
	}
	score := func(i int) float64 { return model.Probs(x[i*dim : (i+1)*dim])[1] }
	var trainScores []float64
	searched := 0
	for _, i := range train {
		trainScores = append(trainScores, score(i))
		searched += labels[i]
	}
	cut := cutFor(trainScores, searched)
	dec := make([]float64, len(test))
	for k, i := range test {
		if score(i) >= cut {
			dec[k] = 1
		}
	}
	withDec, err := subTable(all, test, append([]string{"personSearch", "race"}, feats...), tabular.NumberColumn("decision", dec))
	if err != nil {
		return nil, err
	}
	return owndata.AuditTable(ctx, withDec, owndata.AuditConfig{
		Source:    owndata.Source{Columns: owndata.Columns{Y: "personSearch", YPositive: "YES", Z: "race", X: feats}},
		Decisions: "decision", Seed: seed,
	})
}

// subTable returns the rows of tab's columns cols, and the columns extra, as a table in
// memory.
func subTable(tab *tabular.Table, rows []int, cols []string, extra ...tabular.Col) (*tabular.Table, error) {
	var out []tabular.Col
	for _, name := range cols {
		c := tab.Column(name)
		if c == nil {
			return nil, fmt.Errorf("%s: no column %q", tab.File, name)
		}
		if c.Numeric {
			v := make([]float64, len(rows))
			for k, i := range rows {
				v[k] = c.Num[i]
			}
			out = append(out, tabular.NumberColumn(name, v))
			continue
		}
		v := make([]string, len(rows))
		for k, i := range rows {
			if !c.IsMissing(i) {
				v[k] = c.Value(i)
			}
		}
		out = append(out, tabular.TextColumn(name, v))
	}
	return tabular.NewTable(tab.File, append(out, extra...)...)
}
