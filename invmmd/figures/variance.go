package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
)

// Size of the variance figure (Variance): one row of two panels per estimator family,
// legible when a README shows it 900 pixels wide.
const (
	VarianceWidth  = 10 * vg.Inch
	VarianceHeight = 13 * vg.Inch
)

// MeanQuantile is the share of the variance study's medians and quartiles, or its means,
// left out at each end when a panel's axis is fitted to them: small batches give some
// estimators means far from the rest (5.9 for ip at 1,000 rows, −9.7 for dr+ in a quick
// run), which would squash the others. Means beyond the axis are arrows on its edge, counted
// in the legend.
const MeanQuantile = 0.05

// paperVarianceEstimators are the estimators of the paper's variance figure (figure 3,
// appendix B.3). ip and ip+ are the paper's methods too (its Tables 4–7) but not in that
// figure; the methods the table marks as not the paper's (method.Extensions) are this
// project's additions, in no table of the paper.
var paperVarianceEstimators = []method.Method{method.Full, method.DR, method.DRPlus, method.Reg}

// styleOf gives an estimator's line and marker its method's colour (MethodColor) and a
// marker shape: a circle for an estimator with fitted nuisances, a triangle for its true-G
// (+) form, which is also dashed, so that the two forms of a family stay apart without their
// colours; full drawn as the reference of a family's row (ref) is thin, black and unmarked.
func styleOf(name string, k int, ref bool) (draw.LineStyle, draw.GlyphStyle) {
	c := methodColorOr(name, series[k%len(series)])
	line := draw.LineStyle{Color: c, Width: vg.Points(1.8)}
	glyph := draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	if strings.HasSuffix(name, "+") {
		line.Dashes = []vg.Length{vg.Points(5), vg.Points(2.5)}
		glyph.Shape = draw.PyramidGlyph{}
	}
	if ref {
		line.Width, glyph.Radius, glyph.Shape = vg.Points(1), 0, nil
	}
	return line, glyph
}

// Variance returns the panels of the variance study (appendix B.3, the paper's figure 3):
// one row per estimator family (dr and dr+; reg; ip and ip+; dr-po and dr-po+), in the order
// of the paper's tables, each with full as a thin black reference, against batch size (marks:
// styleOf). Left, each estimator's median (thick) with its quartiles (shaded for the fitted
// form) and its mean, the paper's summary (thin); right, on a log axis labelled at every
// tick, the interquartile range (thick) and the standard deviation (thin): a few extreme
// batches move the mean and sd of the estimators that divide by G by orders of magnitude at
// small batch sizes, and the median and quartiles not. Batch sizes where an estimator of the
// row had a normaliser raised to its floor (Floored) are hatched: their extreme batches are
// the floor's. The left panels share one axis (fitAxis, with full's mean at the largest
// batch size as a line; means beyond it are arrows on its edge), the right ones another, so
// that the families compare down the figure. Each row's legend says which estimators are in
// the paper's figure, which only in its tables and which are this project's; the last row's
// right panel carries the key to the marks.
func Variance(points []results.VariancePoint) ([][]*plot.Plot, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("figures: Variance: no points")
	}
	by := map[string][]results.VariancePoint{}
	for _, p := range points {
		if p.N < 2 {
			return nil, fmt.Errorf("figures: Variance: %s at batch size %d: %d batches, want ≥ 2 for a standard error", p.Estimator, p.BatchSize, p.N)
		}
		if !(p.Q25 <= p.Median && p.Median <= p.Q75) {
			return nil, fmt.Errorf("figures: Variance: %s at batch size %d: median %g not between the quartiles %g and %g", p.Estimator, p.BatchSize, p.Median, p.Q25, p.Q75)
		}
		by[p.Estimator] = append(by[p.Estimator], p)
	}
	for _, pts := range by {
		slices.SortFunc(pts, func(a, b results.VariancePoint) int { return a.BatchSize - b.BatchSize })
	}
	full := method.Full.String() // the reference: the full-data estimator
	ref, refN := math.NaN(), 0
	for _, p := range by[full] {
		if p.BatchSize > refN {
			ref, refN = p.Mean, p.BatchSize
		}
	}
	if math.IsNaN(ref) {
		return nil, fmt.Errorf("figures: Variance: no full estimator to draw the reference at")
	}
	// In the order of the paper's tables (method.Names()), the paper's before this
	// project's; unknown names last.
	rank := func(name string) int {
		if i := slices.Index(method.Names(), name); i >= 0 {
			return i
		}
		return len(method.Names())
	}
	others := slices.DeleteFunc(distinct(points, func(p results.VariancePoint) string { return p.Estimator }), func(name string) bool { return name == full })
	slices.SortStableFunc(others, func(a, b string) int { return rank(a) - rank(b) })
	// Rows: one per family, in the order of its first estimator, full first in each.
	var rows [][]string
	row := map[string]int{}
	for _, name := range others {
		f := strings.TrimSuffix(name, "+") // its family: dr and dr+ the dr family
		i, ok := row[f]
		if !ok {
			i = len(rows)
			row[f] = i
			rows = append(rows, []string{full})
		}
		rows[i] = append(rows[i], name)
	}
	if len(rows) == 0 { // full alone
		rows = [][]string{{full}}
	}
	sizes := distinct(points, func(p results.VariancePoint) float64 { return float64(p.BatchSize) })
	slices.Sort(sizes)
	ax := varianceAxes{ticks: batchTicks(sizes[0], sizes[len(sizes)-1]), xmin: sizes[0], xmax: sizes[len(sizes)-1], half: halfStep(sizes)}
	// One centre axis for every row, fitted to every median and quartile, and one spread axis
	// holding every positive IQR and sd.
	var vals []float64
	ax.spreadLo, ax.spreadHi = math.Inf(1), 0
	for _, pts := range by {
		for _, p := range pts {
			vals = append(vals, p.Median, p.Q25, p.Q75)
			for _, v := range []float64{p.IQR(), p.Std} {
				if v > 0 {
					ax.spreadLo, ax.spreadHi = math.Min(ax.spreadLo, v), math.Max(ax.spreadHi, v)
				}
			}
		}
	}
	if ax.spreadHi == 0 {
		return nil, fmt.Errorf("figures: Variance: every interquartile range and standard deviation is 0")
	}
	ax.spreadLo, ax.spreadHi = ax.spreadLo/1.3, ax.spreadHi*1.3
	ax.centreLo, ax.centreHi = fitAxis(vals, ref)
	anyFloored := slices.ContainsFunc(points, func(p results.VariancePoint) bool { return p.Floored > 0 })
	grid := make([][]*plot.Plot, len(rows))
	for i, names := range rows {
		grid[i] = varianceRow(names, len(names) > 1, i == len(rows)-1, anyFloored, by, ref, refN, ax)
	}
	return grid, nil
}

// varianceAxes are the axes every panel of Variance shares: the batch size's ticks and range,
// half the step between neighbouring batch sizes (the half-width of a shaded size), and the
// y ranges of the centre and spread panels.
type varianceAxes struct {
	ticks              plot.ConstantTicks
	xmin, xmax, half   float64
	centreLo, centreHi float64 // the median panels' y range
	spreadLo, spreadHi float64 // the spread panels' y range (log)
}

// halfStep is half the smallest gap between neighbouring values of sorted, distinct sizes
// (a twentieth of the range when there is one size).
func halfStep(sizes []float64) float64 {
	h := math.Inf(1)
	for i := 1; i < len(sizes); i++ {
		h = math.Min(h, (sizes[i]-sizes[i-1])/2)
	}
	if math.IsInf(h, 1) {
		return math.Max(sizes[0]/20, 0.5)
	}
	return h
}

// varianceRow draws the centre (median and mean) and spread (IQR and sd) panels of one
// family's row of Variance; with refFull, names[0] is full drawn thin as a reference.
func varianceRow(names []string, refFull, keyed, hatched bool, by map[string][]results.VariancePoint, ref float64, refN int, ax varianceAxes) []*plot.Plot {
	centre, spread := legiblePlot("", "batch size", "MMD² estimate"), legiblePlot("", "batch size", "")
	est := legendBelow(centre) // the estimators; the spread panel's legend names the marks
	// Batch sizes with a floored normaliser, shaded under everything else.
	shade := &columnShade{fill: CaveatColor, hatch: true}
	for _, x := range flooredSizes(names, by) {
		shade.spans = append(shade.spans, [2]float64{x - ax.half, x + ax.half})
	}
	for _, p := range []*plot.Plot{centre, spread} {
		p.X.Tick.Marker = ax.ticks
		p.X.Min, p.X.Max = ax.xmin, ax.xmax
		p.Add(shade)
		p.Add(hGrid())
	}
	centre.Y.Tick.Marker = roundTicks{}
	// No y label on the log axis: gonum/plot then reserves room above the data area as if
	// the label stood there, which misaligns the titles. The title names the axis.
	spread.Y.Scale = plot.LogScale{}
	spread.Y.Tick.Marker = labelledLogTicks{}
	centre.Y.Min, centre.Y.Max = ax.centreLo, ax.centreHi
	spread.Y.Min, spread.Y.Max = ax.spreadLo, ax.spreadHi

	fullLine := hLine(ref, 1, Grey, vg.Points(6), vg.Points(3))
	centre.Add(fullLine)
	var thick, thin [2][]plot.Plotter
	clipped, farthest := 0, ref
	heading := ""
	var family []string
	var refKey *clippedLine
	for k, name := range names {
		isRef := refFull && k == 0
		if !isRef {
			family = append(family, name)
		}
		line, glyph := styleOf(name, k, isRef)
		var medXY, meanXY, iqrXY, sdXY plotter.XYs
		qb := &band{fill: withAlpha(line.Color, 45)}
		for _, p := range by[name] {
			x := float64(p.BatchSize)
			medXY = append(medXY, plotter.XY{X: x, Y: p.Median})
			meanXY = append(meanXY, plotter.XY{X: x, Y: p.Mean})
			iqrXY = append(iqrXY, plotter.XY{X: x, Y: p.IQR()})
			sdXY = append(sdXY, plotter.XY{X: x, Y: p.Std})
			qb.x, qb.lo, qb.hi = append(qb.x, x), append(qb.lo, p.Q25), append(qb.hi, p.Q75)
		}
		// A marker on every fourth point, shifted per estimator, so that lines that meet
		// keep their markers apart.
		ml := &clippedLine{xys: medXY, line: line, glyph: glyph, every: 4, offset: 2 * k % 4}
		il := &clippedLine{xys: iqrXY, line: line, glyph: glyph, every: 4, offset: 2 * k % 4}
		// The mean and sd: thin, faded and unmarked, so that the robust summaries read
		// first; a mean beyond the axis is a faded arrow on its edge.
		faded := withAlpha(line.Color, 150)
		thinLine := draw.LineStyle{Color: faded, Width: vg.Points(0.9), Dashes: line.Dashes}
		al := &clippedLine{xys: meanXY, line: thinLine, glyph: draw.GlyphStyle{Color: faded}}
		sl := &clippedLine{xys: sdXY, line: thinLine}
		// The quartiles: a shaded band for the fitted form only, so that two bands never
		// blend into a third colour.
		var quart []plot.Thumbnailer
		if !isRef { // full's mean as a reference is the dashed line
			for _, xy := range meanXY { // the means beyond the axis, and the farthest, for the note
				if xy.Y < centre.Y.Min || xy.Y > centre.Y.Max {
					clipped++
					if math.Abs(xy.Y-ref) > math.Abs(farthest-ref) {
						farthest = xy.Y
					}
				}
			}
			thin[0] = append(thin[0], al)
			if len(line.Dashes) == 0 { // a true-G form's quartiles are left to its IQR
				centre.Add(qb)
				quart = append(quart, qb)
			}
		}
		thin[1] = append(thin[1], sl)
		thick[0], thick[1] = append(thick[0], ml), append(thick[1], il)
		if isRef {
			refKey = ml
			continue
		}
		h := "others:"
		if m, err := method.Parse(name); err == nil {
			switch {
			case slices.Contains(paperVarianceEstimators, m):
				h = "in the paper's figure 3:"
			case !m.InPaper():
				h = "this project's, not in the paper:"
			default:
				h = "in the paper's tables only:"
			}
		}
		if h != heading {
			est.add(h)
			heading = h
		}
		label := name
		if strings.HasSuffix(name, "+") {
			label = name + " (true G)"
		}
		est.add(label, append(quart, ml)...)
	}
	if refKey != nil {
		est.add("full, for reference", refKey)
	}
	if clipped > 0 {
		est.note(fmt.Sprintf("%d means off the axis (arrows), the farthest %.2f.", clipped, farthest))
	}
	// The thin lines under the thick ones, every line over the bands.
	for i, p := range []*plot.Plot{centre, spread} {
		p.Add(thin[i]...)
		p.Add(thick[i]...)
	}
	if keyed {
		keys := legendBelow(spread)
		thickKey := &clippedLine{line: draw.LineStyle{Color: KeyColor, Width: vg.Points(1.8)}}
		keys.add("thick: median (left), IQR (right)", thickKey)
		keys.add("thin: mean (left), sd (right)", &clippedLine{line: draw.LineStyle{Color: withAlpha(KeyColor, 150), Width: vg.Points(0.9)}})
		keys.add("band: quartiles (fitted form)", &band{fill: withAlpha(KeyColor, 70)}, thickKey)
		if hatched {
			keys.add("hatched: a normaliser raised to its floor", &columnShade{fill: CaveatColor, hatch: true})
		}
		// The key covers every row's arrows.
		keys.add("arrow on an edge: a mean beyond the axis", glyphKey(draw.GlyphStyle{Color: withAlpha(KeyColor, 150), Radius: vg.Points(4), Shape: edgeArrow{up: true}}))
		keys.add(fmt.Sprintf("full's mean at n = %s (%.3f)", thousands(refN), ref), fullLine)
	}
	fam := strings.Join(family, ", ")
	if fam == "" {
		fam = names[0]
	}
	centre.Title.Text = fam + ": median, quartiles; mean"
	spread.Title.Text = fam + ": IQR; sd (log axis)"
	return []*plot.Plot{centre, spread}
}

// labelledLogTicks ticks a log axis only where it labels: at 1, 2 and 5 times each power of
// 10 when the axis spans at most two decades, at 1 and 3 times each power beyond, so that
// every tick has its value.
type labelledLogTicks struct{}

// Ticks implements plot.Ticker.
func (labelledLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	mults := []float64{1, 2, 5}
	if math.Log10(hi/lo) > 2 {
		mults = []float64{1, 3}
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range mults {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
		}
	}
	return ticks
}

// flooredSizes returns, in ascending order, the batch sizes at which one of the named
// estimators had a normaliser raised to its floor in some batch (VariancePoint.Floored > 0).
func flooredSizes(names []string, by map[string][]results.VariancePoint) []float64 {
	var floored []float64
	for _, name := range names {
		for _, p := range by[name] {
			if p.Floored > 0 && !slices.Contains(floored, float64(p.BatchSize)) {
				floored = append(floored, float64(p.BatchSize))
			}
		}
	}
	slices.Sort(floored)
	return floored
}

// fitAxis returns the y range of a median or mean panel of Variance: values but the
// MeanQuantile at each end, widened to ref and to the values within a quarter of that range
// beyond it, plus a margin.
func fitAxis(values []float64, ref float64) (lo, hi float64) {
	s := slices.Sorted(slices.Values(values))
	lo, hi = results.Quantile(s, MeanQuantile), results.Quantile(s, 1-MeanQuantile)
	lo, hi = math.Min(lo, ref), math.Max(hi, ref)
	// Then out to the values within a quarter of that range beyond it: a few points just
	// past a quantile are not outliers.
	reach := 0.25 * (hi - lo)
	for _, m := range s {
		if m >= lo-reach && m <= hi+reach {
			lo, hi = math.Min(lo, m), math.Max(hi, m)
		}
	}
	pad := 0.08 * (hi - lo)
	if pad == 0 {
		pad = 0.1 * math.Max(math.Abs(ref), 1)
	}
	return lo - pad, hi + pad
}

// batchTicks labels the batch-size axis at a round step giving at most 6 labels (every 2,000
// over the paper's 1,000–10,000), with an unlabelled tick halfway between labels.
func batchTicks(lo, hi float64) plot.ConstantTicks {
	step := 1000.0
	for _, s := range []float64{250, 500, 1000, 2000, 5000, 10000} {
		step = s
		if (hi-lo)/s <= 5 {
			break
		}
	}
	return stepTicks(lo, hi, step, func(v float64) string { return thousands(int(v)) })
}

// stepTicks ticks [lo, hi] at every half step, labelled by label at the multiples of step.
func stepTicks(lo, hi, step float64, label func(float64) string) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for v := math.Ceil(lo/step*2) * step / 2; v <= hi; v += step / 2 {
		t := plot.Tick{Value: v}
		if math.Mod(v, step) == 0 {
			t.Label = label(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// thousands formats n with a comma between thousands (10,000), as the paper prints sizes.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
