package figures

import (
	"fmt"
	"math"

	"github.com/invmmd/invmmd/invmmd/method"

	"gonum.org/v1/plot"

	"github.com/invmmd/invmmd/invmmd/results"
)

// diffPanel is the results figure's panel for the paper's numbers on another dataset
// (PaperDataset): each method's test accuracy minus none's, ours per seed (against none on
// the same seed; a summary without rows by its mean minus none's mean) with their median,
// and the paper's mean minus its none's mean as an open diamond beside it (the paper gives
// no sd of a difference). Each is relative to its own none: the two datasets' levels are not
// comparable, their gains over none are. nil when sums has no none.
func diffPanel(sums []results.Summary, paper map[string]results.PaperRow, o resultOptions) *plot.Plot {
	d, ok := diffSummaries(sums)
	if !ok {
		return nil
	}
	theirs := map[string]results.PaperRow{} // empty when the paper has no none
	for m, p := range paper {
		if pn, ok := paper[method.None.String()]; ok && m != method.None.String() {
			theirs[m] = results.PaperRow{TeAcc: results.Cell{Mean: p.TeAcc.Mean - pn.TeAcc.Mean}}
		}
	}
	p, keys := methodPanel(fmt.Sprintf("test accuracy minus none's: ours (per seed) and the paper's (%s), each from its own none", o.PaperDataset),
		"test acc. − none's", d, theirs, teAcc)
	lo, hi := spanOf(d, teAcc)
	for _, t := range theirs {
		lo, hi = math.Min(lo, t.TeAcc.Mean), math.Max(hi, t.TeAcc.Mean)
	}
	pad := 0.08 * (hi - lo)
	if pad == 0 {
		pad = 0.01
	}
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.Y.Tick.Marker = roundTicks{}
	zero := hLine(0, 0.8, ReferenceColor)
	p.Add(zero)
	l := legendBelow(p)
	l.add("0: none", zero)
	if keys.paper != nil {
		l.add(fmt.Sprintf("paper (%s, %d seeds): its mean minus its none's mean", o.PaperDataset, results.PaperSeeds), keys.paper)
	}
	return p
}

// diffSummaries returns sums with each test accuracy replaced by its difference from none's:
// per row, minus none's row of the same seed (rows of seeds none lacks are left out); for a
// summary without rows, its mean minus none's mean. none itself is left out (its
// differences are 0), its column kept empty. ok is false without none.
func diffSummaries(sums []results.Summary) ([]results.Summary, bool) {
	diffs, ok := results.DiffsFromNone(sums)
	if !ok {
		return nil, false
	}
	d := make([]results.Summary, len(sums))
	for i, s := range sums {
		d[i] = results.Summary{Method: s.Method, N: s.N, TeAcc: results.Cell{Mean: math.NaN()}}
		if s.Method != method.None.String() {
			d[i].Rows, d[i].TeAcc = diffs[i].Rows, diffs[i].Cell
			if diffs[i].Seeds > 0 {
				d[i].N = diffs[i].Seeds
			}
		}
	}
	return d, true
}
