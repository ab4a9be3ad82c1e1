package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/invmmd/invmmd/invmmd/results"
)

// DefaultChance is the accuracy of guessing a balanced binary label, the bottom of the
// results figures' accuracy axis: every experiment of the paper has P(Y = 1) = 1/2.
const DefaultChance = 0.5

// MMDLinear is where the results figures' train-MMD axis turns from linear (within ±MMDLinear)
// to logarithmic: below the paper's printed precision (0.01) differences are noise.
const MMDLinear = 0.01

// ResultOption adds to a results figure what its table does not hold: reference lines and
// where the paper's numbers come from.
type ResultOption func(*resultOptions)

// resultOptions are the FigureHints (Hints) and the chance accuracy, DefaultChance unless
// Majority sets it and chanceName, the label of its line ("" for "chance").
type resultOptions struct {
	results.FigureHints
	chance     float64
	chanceName string
}

// Majority draws the test split's majority baseline (always predicting its more common
// label) in place of the chance line: the accuracy axis starts there and the line is
// labelled with m.Name(), e.g. "majority (always Y=0)". Where P(Y = 1) in test is far from
// 1/2 it, not 0.5, is the accuracy to beat.
func Majority(m results.Majority) ResultOption {
	return func(o *resultOptions) { o.chance, o.chanceName = m.TeAcc.Mean, m.Name() }
}

// Hints draws what an experiment's FigureHints say (an experiment's Figure): a reference
// line at its ceiling when it has one, the best test accuracy an invariant model can reach;
// when the paper's numbers come from another dataset (PaperDataset, e.g. "MIMIC-III" next
// to a public stand-in), whose levels are not ours, the paper's test accuracy as its
// difference from the paper's none in a panel of its own and none of its numbers in the
// other panels, as the legend says; and in the train-MMD panel's title what the MMD² is of
// when it is not the logit (MMDOf).
func Hints(h results.FigureHints) ResultOption {
	return func(o *resultOptions) { o.FigureHints = h }
}

// Size of a results figure (Results): two panels stacked, each as wide as the figure, so
// that ten methods with their seeds get room, and text that stays legible when a README
// shows the figure 900 pixels wide (11-point ticks are then 15 pixels high).
const (
	ResultsWidth  = 9 * vg.Inch
	ResultsHeight = 7.5 * vg.Inch
)

// SplitGap is the gap in test accuracy between two groups of a method's seeds above which
// the results figure says in words that the seeds split (e.g. "dr: 2 of 5 seeds below
// 0.5"): a mean ± sd over seeds that went two ways describes neither.
const SplitGap = 0.15

// MMDLinearMax is the largest train MMD² (over seeds and the paper's means ± sd) that the
// results figures draw on a linear axis; above it (textured MNIST's none, 1.9, next to
// others of 0.01) the axis is a SymLog.
const MMDLinearMax = 0.6

// Results returns the panels of an experiment's summary figure, one column per method,
// stacked: test accuracy (accuracyAxis); when the paper's numbers are on another dataset
// (FigureHints.PaperDataset), test accuracy minus none's, each relative to its own none
// (diffPanel); train MMD², the full-data estimator (mmdAxis). Ours, in the method's colour,
// are each seed and the seeds' median (seedMarks), so that seeds that split in two groups
// are seen as two groups, not summarised by a value no seed has; the paper's mean ± sd,
// where it reports the method, is an open diamond beside ours in PaperColor. A value beyond
// the axis is a triangle on its edge. The legend, in rows below the top panel, names the
// marks and the reference lines, and says which methods' seeds split by more than SplitGap
// in test accuracy.
func Results(title string, sums []results.Summary, paper map[string]results.PaperRow, opts ...ResultOption) ([][]*plot.Plot, error) {
	if len(sums) == 0 {
		return nil, fmt.Errorf("figures: Results %q: no methods", title)
	}
	o := resultOptions{chance: DefaultChance}
	for _, f := range opts {
		f(&o)
	}
	for _, s := range sums {
		for _, v := range append(seedValues(s, trMMD.seed), s.TrMMD.Mean) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("figures: Results %q: method %s: train MMD %v", title, s.Method, v)
			}
		}
	}
	levels := paper // the paper's numbers at their levels: none when on another dataset
	if o.PaperDataset != "" {
		levels = nil
	}
	acc, keys := methodPanel(title+": test accuracy", "test accuracy", sums, levels, teAcc)
	mmdTitle := "train MMD² (full-data estimator), "
	if o.MMDOf != "" {
		mmdTitle = "train MMD² of " + o.MMDOf + " (full-data estimator), "
	}
	// The lower panel's title names only λ ("Simulation, λ = 5" → "λ = 5"), which the upper
	// one's full title introduces; a title without λ is kept whole.
	lambda := title
	if i := strings.LastIndex(title, "λ = "); i >= 0 {
		lambda = title[i:]
	}
	mmd, _ := methodPanel(mmdTitle+lambda, "train MMD²", sums, levels, trMMD)
	l := legendBelow(acc)
	keys.addTo(l, o)
	accuracyAxis(acc, l, sums, levels, o)
	mmdAxis(mmd, sums, levels)
	if c := splitCaption(sums, o.chance); c != "" {
		l.note(c)
	}
	if keys.hiddenMedian {
		l.note(fmt.Sprintf("No median bar where the two middle seeds lie more than %g apart.", SplitGap))
	}
	if o.PaperDataset != "" {
		if diff := diffPanel(sums, paper, o); diff != nil {
			return [][]*plot.Plot{{acc}, {diff}, {mmd}}, nil
		}
	}
	return [][]*plot.Plot{{acc}, {mmd}}, nil
}

// seedValues returns f of each of s's rows (nil when the summary has none).
func seedValues(s results.Summary, f func(results.Row) float64) []float64 {
	var vs []float64
	for _, r := range s.Rows {
		vs = append(vs, f(r))
	}
	return vs
}

// splitCaption is the accuracy panel's caption: for each method whose seeds split in two
// (seedSplit), how many fell below where, methods that split alike named together (e.g.
// "dr, dr+: 2 of 5 seeds below 0.5"); "" when none split.
func splitCaption(sums []results.Summary, chance float64) string {
	var order []string
	by := map[string][]string{}
	for _, s := range sums {
		c, ok := seedSplit(s.Method, seedValues(s, teAcc.seed), chance)
		if !ok {
			continue
		}
		_, what, _ := strings.Cut(c, ": ")
		if _, ok := by[what]; !ok {
			order = append(order, what)
		}
		by[what] = append(by[what], s.Method)
	}
	if len(order) == 0 {
		return ""
	}
	parts := make([]string, len(order))
	for i, what := range order {
		parts[i] = strings.Join(by[what], ", ") + ": " + what
	}
	return fmt.Sprintf("Seeds split by more than %g in test accuracy: %s.", SplitGap, strings.Join(parts, "; "))
}

// seedSplit says, for a method's per-seed values, whether they fall in two groups apart by
// more than SplitGap, and if so a caption such as "dr: 2 of 5 seeds below 0.5": the number
// of seeds below the widest gap, and the gap's threshold (chance when it lies in the gap,
// else the gap's midpoint to two decimals).
func seedSplit(method string, vals []float64, chance float64) (string, bool) {
	if len(vals) < 2 {
		return "", false
	}
	v := slices.Sorted(slices.Values(vals))
	k := 0 // the gap is between v[k] and v[k+1]
	for i := 1; i < len(v)-1; i++ {
		if v[i+1]-v[i] > v[k+1]-v[k] {
			k = i
		}
	}
	lo, hi := v[k], v[k+1]
	if hi-lo <= SplitGap {
		return "", false
	}
	at := plotFormat(math.Round((lo+hi)*50)/100, 2)
	if chance > lo && chance < hi {
		at = strconv.FormatFloat(math.Round(chance*1000)/1000, 'g', -1, 64)
	}
	return fmt.Sprintf("%s: %d of %d seeds below %s", method, k+1, len(v), at), true
}

// Font sizes of the results and variance figures, in points: chosen for the figures shown
// 900 pixels wide (ResultsWidth, VarianceWidth).
const (
	titleSize  = 13
	labelSize  = 12
	tickSize   = 11
	legendSize = 11
)

// legiblePlot is newPlot with its fonts at the sizes above.
func legiblePlot(title, xlabel, ylabel string) *plot.Plot {
	p := newPlot(title, xlabel, ylabel)
	p.Title.TextStyle.Font.Size = vg.Points(titleSize)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(labelSize)
		a.Tick.Label.Font.Size = vg.Points(tickSize)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(legendSize)
	p.Legend.ThumbnailWidth = vg.Points(22)
	p.Title.Padding = vg.Points(6)
	return p
}

// newPlot is a new plot with its title and axis labels.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xlabel, ylabel
	return p
}

// Offsets, in method slots, of our marks and the paper's within a method's column, and the
// half-width of the spread of our seeds.
const (
	oursAt   = -0.13
	paperAt  = 0.22
	seedHalf = 0.1
)

// panelKeys is what a methodPanel drew, for its legend: our seeds' counts, whether any
// method has per-seed values and whether a median went unmarked, and the paper's marks.
type panelKeys struct {
	minN, maxN   int
	seeds        bool
	hiddenMedian bool
	paper        *dotWhiskers // nil when the paper reports none of the methods
}

// addTo names the marks in l: ours (each seed and the median, or the mean ± sd of
// summaries without rows) and the paper's.
func (k panelKeys) addTo(l *belowLegend, o resultOptions) {
	seeds := fmt.Sprintf("%d seeds", k.maxN)
	if k.minN != k.maxN {
		seeds = fmt.Sprintf("%d–%d seeds", k.minN, k.maxN)
	} else if k.maxN == 1 {
		seeds = "1 seed"
	}
	switch {
	case k.seeds && k.maxN > 1:
		l.add("ours: each seed ("+seeds+")", legendKey{kind: keySeed})
		l.add("ours: median of the seeds", legendKey{kind: keyMedian})
	case k.seeds:
		l.add("ours: 1 seed", legendKey{kind: keySeed})
	case k.maxN > 1:
		l.add("ours, "+seeds+": mean ± sd", legendKey{kind: keyMean})
	default:
		l.add("ours, 1 seed (no spread)", legendKey{kind: keyMedian})
	}
	if k.paper != nil {
		l.add(fmt.Sprintf("paper, %d seeds: mean ± sd", results.PaperSeeds), k.paper)
	}
}

// methodPanel draws one cell of each method: our seeds and their median (or the mean ± sd
// of a summary without rows) in the method's colour, and the paper's value. Its legend is
// left to the caller (panelKeys).
func methodPanel(title, ylabel string, sums []results.Summary, paper map[string]results.PaperRow, m metric) (*plot.Plot, panelKeys) {
	p := legiblePlot(title, "", ylabel)
	p.Add(hGrid())
	them := &dotWhiskers{}
	we := &seedMarks{}
	names := make([]string, len(sums))
	k := panelKeys{minN: math.MaxInt}
	for i, s := range sums {
		names[i] = s.Method
		if s.N > 0 { // a method not run (objectives figure) counts no seeds
			k.minN, k.maxN = min(k.minN, s.N), max(k.maxN, s.N)
		}
		x := float64(i)
		if pr, ok := paper[s.Method]; ok {
			c := m.paper(pr)
			them.add(x+paperAt, c.Mean, c.Std)
			x += oursAt
		}
		col := methodColorOr(s.Method, series[i%len(series)])
		we.add(x, m.cell(s), seedValues(s, m.seed), col)
	}
	k.minN = min(k.minN, k.maxN)
	p.Add(we)
	if len(them.x) > 0 {
		p.Add(them)
		k.paper = them
	}
	k.seeds = slices.ContainsFunc(we.entries, func(e seedEntry) bool { return len(e.seeds) > 0 })
	k.hiddenMedian = slices.ContainsFunc(we.entries, func(e seedEntry) bool { return !e.showMid })
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(sums))-0.4
	return p, k
}

// metric is what a panel of methods draws of each: its summary's cell, a seed's value and
// the paper's cell.
type metric struct {
	cell  func(results.Summary) results.Cell
	seed  func(results.Row) float64
	paper func(results.PaperRow) results.Cell
}

// The metrics of the results figures: test accuracy and train MMD².
var (
	teAcc = metric{func(s results.Summary) results.Cell { return s.TeAcc }, func(r results.Row) float64 { return r.TeAcc },
		func(p results.PaperRow) results.Cell { return p.TeAcc }}
	trMMD = metric{func(s results.Summary) results.Cell { return s.TrMMD }, func(r results.Row) float64 { return r.TrMMD },
		func(p results.PaperRow) results.Cell { return p.TrMMD }}
)

// accuracyAxis fits the accuracy axis from chance (or the majority baseline, Majority; or
// the lowest value below it, down to as far below it as the best value is above it, and a
// bit) up, and adds lines at chance, at none's median and at the ceiling when given, named
// in the legend l.
func accuracyAxis(p *plot.Plot, l *belowLegend, sums []results.Summary, paper map[string]results.PaperRow, o resultOptions) {
	hi := o.chance
	if o.Ceiling > 0 {
		hi = math.Max(hi, o.Ceiling)
	}
	var vals []float64
	for _, s := range sums {
		seeds := seedValues(s, teAcc.seed)
		vals = append(vals, seeds...)
		if len(seeds) > 0 {
			hi = math.Max(hi, slices.Max(seeds))
		} else {
			vals = append(vals, s.TeAcc.Mean)
			hi = math.Max(hi, s.TeAcc.Mean+s.TeAcc.Std)
		}
		if pr, ok := paper[s.Method]; ok {
			hi = math.Max(hi, pr.TeAcc.Mean+pr.TeAcc.Std)
			vals = append(vals, pr.TeAcc.Mean)
		}
	}
	// Below chance: down to the lowest value, unless it lies further below chance than 1.2
	// times the top lies above it (textured MNIST's none, at 0.13 next to others at 0.7,
	// would squash the rest): those are drawn on the edge.
	lo := o.chance
	floor := o.chance - 1.2*(hi-o.chance)
	for _, v := range vals {
		if v >= floor {
			lo = math.Min(lo, v)
		}
	}
	span := hi - lo
	p.Y.Min = math.Max(0, lo-0.04*span)
	p.Y.Max = math.Min(1, hi+0.06*span)
	p.Y.Tick.Marker = roundTicks{}
	chance := hLine(o.chance, 1.2, ReferenceColor, vg.Points(6), vg.Points(3))
	p.Add(chance)
	chanceLabel := fmt.Sprintf("chance (%g)", o.chance)
	if o.chanceName != "" {
		chanceLabel = fmt.Sprintf("%s: %.3f", o.chanceName, o.chance)
	}
	var none *refLine
	noneLabel := ""
	for _, s := range sums {
		if s.Method != method.None.String() {
			continue
		}
		what, c := "mean", s.TeAcc.Mean // what our marks of none centre on
		if len(s.Rows) > 0 {
			what, c = "median", median(seedValues(s, teAcc.seed))
		}
		switch {
		case math.Abs(c-o.chance) < 0.01: // a second line on top of chance: one legend entry
			chanceLabel += fmt.Sprintf(" ≈ none's %s (%.3f)", what, c)
		case c >= p.Y.Min:
			none, noneLabel = hLine(c, 0.8, method.None.Colour(), vg.Points(2), vg.Points(2)), fmt.Sprintf("none's %s (%.3f)", what, c)
		}
	}
	l.add(chanceLabel, chance)
	if none != nil {
		p.Add(none)
		l.add(noneLabel, none)
	}
	if o.Ceiling > 0 {
		ceil := hLine(o.Ceiling, 0.8, CeilingColor, vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2))
		p.Add(ceil)
		l.add(fmt.Sprintf("ceiling, %s (%.3f)", o.CeilingWhat, o.Ceiling), ceil)
	}
}

// mmdAxis fits the train-MMD panel's axis to every seed, centre and whisker with 5% of room
// on each side: linear up to MMDLinearMax, a SymLog beyond, which the title describes.
func mmdAxis(p *plot.Plot, sums []results.Summary, paper map[string]results.PaperRow) {
	lo, hi := spanOf(sums, trMMD)
	for _, s := range sums {
		if pr, ok := paper[s.Method]; ok {
			lo, hi = math.Min(lo, pr.TrMMD.Mean-pr.TrMMD.Std), math.Max(hi, pr.TrMMD.Mean+pr.TrMMD.Std)
		}
	}
	p.Add(hLine(0, 0.8, ReferenceColor))
	if math.Max(-lo, hi) <= MMDLinearMax {
		pad := 0.05 * (hi - lo)
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
		p.Y.Tick.Marker = roundTicks{}
		return
	}
	SymLog{Linear: MMDLinear}.fit(&p.Y, lo, math.Max(hi, MMDLinear), 0.05)
	// No y label on a SymLog axis: gonum/plot reserves room for the label's box as if it
	// were centred on the middle of the data range, which a SymLog draws near the top. The
	// title names the axis and says how it is scaled.
	p.Y.Label.Text = ""
	p.Title.Text += fmt.Sprintf("; y axis linear within ±%g, logarithmic beyond", MMDLinear)
}

// spanOf is the range from 0 over m of every seed of sums, or of a summary's mean ± sd
// without rows (none, whose mean is NaN among differences from none, left out).
func spanOf(sums []results.Summary, m metric) (lo, hi float64) {
	for _, s := range sums {
		vs := seedValues(s, m.seed)
		if c := m.cell(s); len(vs) == 0 && !math.IsNaN(c.Mean) {
			vs = []float64{c.Mean - c.Std, c.Mean + c.Std}
		}
		for _, v := range vs {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo, hi
}
