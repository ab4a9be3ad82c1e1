package figures

import (
	"fmt"
	"image/color"
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

// Size of the variance figure (Variance): two rows of two panels, legible when a README
// shows it 900 pixels wide.
const (
	VarianceWidth  = 10 * vg.Inch
	VarianceHeight = 8 * vg.Inch
)

// MeanQuantile is the share of the variance study's medians and quartiles, or its means,
// left out at each end when a panel's axis is fitted to them: small batches give some
// estimators means far from the rest (5.9 for ip at 1,000 rows, −9.7 for dr+ in a quick
// run), which would squash the others. Values beyond the axis are drawn as arrows on the
// edge, and the title counts them and gives the farthest.
const MeanQuantile = 0.05

// paperVarianceEstimators are the estimators of the paper's variance figure (figure 3,
// appendix B.3). ip and ip+ are the paper's methods too (its Tables 4–7) but not in that
// figure; projectEstimators are this project's additions, in no table of the paper.
var (
	paperVarianceEstimators = []string{"full", "dr", "dr+", "reg"}
	projectEstimators       = []string{"dr-po", "dr-po+"}
)

// varianceStyle is how one estimator is drawn.
type varianceStyle struct {
	color  color.Color
	dashes []vg.Length
	width  vg.Length
	shape  draw.GlyphDrawer
}

// styleOf gives an estimator its method's colour (MethodColor) and, so that the estimators
// of one panel stay apart where their lines meet, the k-th marker shape of its panel; a
// true-G (+) form is dashed, and full drawn as a reference in a panel not its own (ref)
// is thin. In a layered panel (the DR family's, whose lines lie on each other) the k-th
// estimator's line is thinner than the one before, so that each shows as a border of the
// next where they coincide.
func styleOf(name string, k int, ref, layered bool) varianceStyle {
	c, ok := MethodColor(name)
	if !ok {
		c = series[k%len(series)]
	}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, diamond{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	s := varianceStyle{color: c, width: vg.Points(1.6), shape: shapes[k%len(shapes)]}
	if strings.HasSuffix(name, "+") {
		s.dashes = []vg.Length{vg.Points(5), vg.Points(2.5)}
	}
	if layered {
		s.width = vg.Points(max(1, 3.4-0.75*float64(k-1)))
	}
	if ref {
		s.width, s.shape = vg.Points(1), nil
	}
	return s
}

// isDR says whether an estimator is of the doubly robust family (dr, dr+, dr-po, dr-po+),
// drawn in a row of its own: their lines nearly coincide.
func isDR(name string) bool { return strings.HasPrefix(name, "dr") }

// Variance returns the panels of the variance study (appendix B.3, the paper's figure 3),
// two per row against batch size. Left, the median of each estimator's estimates (thick)
// with the middle half of the batches, first to third quartile, shaded, and the mean, the
// paper's summary (thin); right, on a log axis, the interquartile range (thick) and the
// standard deviation (thin). A few extreme batches move the mean and sd of the estimators
// that divide by G by orders of magnitude at small batch sizes, and the median and
// quartiles not: the thick and thin lines side by side show which is which. Batch sizes
// where an estimator of the row had a normaliser raised to its floor (Floored) are shaded in
// both panels of the row: their extreme batches are the floor's. The doubly robust family
// (dr, dr+, dr-po, dr-po+), whose lines nearly coincide, has a row of its own below the
// others, with full as a thin reference; within a row each estimator has its method's
// colour and a marker shape of its own, and the true-G (+) forms are dashed. Each row's
// legend, right of it, says which estimators are in the paper's figure, which only in its
// tables, and which are this project's. The left axis spans the row's medians and quartiles
// but the MeanQuantile at each end (and the values just beyond), and always full's mean at
// the largest batch size, drawn as a line; means beyond it are arrows on its edge.
func Variance(points []results.VariancePoint) ([][]*plot.Plot, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("figures: Variance: no points")
	}
	var order []string
	by := map[string][]results.VariancePoint{}
	var sizes []float64
	for _, p := range points {
		if _, ok := by[p.Estimator]; !ok {
			order = append(order, p.Estimator)
		}
		if p.N < 2 {
			return nil, fmt.Errorf("figures: Variance: %s at batch size %d: %d batches, want ≥ 2 for a standard error", p.Estimator, p.BatchSize, p.N)
		}
		if !(p.Q25 <= p.Median && p.Median <= p.Q75) {
			return nil, fmt.Errorf("figures: Variance: %s at batch size %d: median %g not between the quartiles %g and %g", p.Estimator, p.BatchSize, p.Median, p.Q25, p.Q75)
		}
		by[p.Estimator] = append(by[p.Estimator], p)
		sizes = append(sizes, float64(p.BatchSize))
	}
	for _, pts := range by {
		slices.SortFunc(pts, func(a, b results.VariancePoint) int { return a.BatchSize - b.BatchSize })
	}
	ref, refN := math.NaN(), 0
	for _, p := range by["full"] {
		if p.BatchSize > refN {
			ref, refN = p.Mean, p.BatchSize
		}
	}
	if math.IsNaN(ref) {
		return nil, fmt.Errorf("figures: Variance: no full estimator to draw the reference at")
	}
	// Rows: the others (full first), then the DR family with full as a reference.
	var rows [][]string
	var others, drs []string
	for _, name := range order {
		if isDR(name) {
			drs = append(drs, name)
		} else if name != "full" {
			others = append(others, name)
		}
	}
	// In the order of the paper's tables (method.Names()), the paper's before this
	// project's; unknown names last.
	rank := func(name string) int {
		if i := slices.Index(method.Names(), name); i >= 0 {
			return i
		}
		return len(method.Names())
	}
	for _, r := range [][]string{others, drs} {
		slices.SortStableFunc(r, func(a, b string) int { return rank(a) - rank(b) })
	}
	rows = append(rows, append([]string{"full"}, others...))
	if len(drs) > 0 {
		rows = append(rows, append([]string{"full"}, drs...))
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	ax := varianceAxes{ticks: batchTicks(sizes[0], sizes[len(sizes)-1]), xmin: sizes[0], xmax: sizes[len(sizes)-1], half: halfStep(sizes)}
	var grid [][]*plot.Plot
	var anyFloored bool
	for _, names := range rows {
		anyFloored = anyFloored || len(flooredSizes(names, by)) > 0
	}
	for i, names := range rows {
		r, err := varianceRow(names, i > 0, i == len(rows)-1, anyFloored, by, ref, refN, ax)
		if err != nil {
			return nil, err
		}
		grid = append(grid, r)
	}
	return grid, nil
}

// varianceAxes is the batch-size axis every panel of Variance shares: its ticks and range,
// and half the step between neighbouring batch sizes (the half-width of a shaded size).
type varianceAxes struct {
	ticks            plot.ConstantTicks
	xmin, xmax, half float64
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
// row of Variance; with refFull, names[0] is full drawn thin as a reference.
func varianceRow(names []string, refFull, keyed, hatched bool, by map[string][]results.VariancePoint, ref float64, refN int, ax varianceAxes) ([]*plot.Plot, error) {
	centre, spread := plot.New(), plot.New()
	est := legendBelow(centre) // the estimators; the spread panel's legend names the marks
	// Batch sizes with a floored normaliser, shaded under everything else.
	floored := flooredSizes(names, by)
	shade := &columnShade{x: floored, half: ax.half, fill: CaveatColor, hatch: true}
	for _, p := range []*plot.Plot{centre, spread} {
		legible(p)
		p.X.Label.Text = "batch size"
		p.X.Tick.Marker = ax.ticks
		p.X.Min, p.X.Max = ax.xmin, ax.xmax
		p.Add(shade)
		g := plotter.NewGrid()
		g.Vertical.Width = 0
		g.Horizontal.Color = color.Gray{Y: 225}
		p.Add(g)
	}
	centre.Y.Label.Text = "MMD² estimate"
	centre.Y.Tick.Marker = roundTicks{}
	// No y label on the log axis: gonum/plot then reserves room above the data area as if
	// the label stood there, which misaligns the titles. The title names the axis.
	spread.Y.Scale = plot.LogScale{}
	spread.Y.Tick.Marker = plot.LogTicks{Prec: -1}

	// The centre axis fits the medians and quartiles (the means may leave it).
	var vals []float64
	for _, name := range names {
		for _, p := range by[name] {
			vals = append(vals, p.Median, p.Q25, p.Q75)
		}
	}
	centre.Y.Min, centre.Y.Max = fitAxis(vals, ref)

	refLine := newHLine(ref, Grey, vg.Points(6), vg.Points(3))
	refLine.style.Width = vg.Points(1)
	centre.Add(refLine)
	var thick, thin [2][]plot.Plotter
	clipped, farthest := 0, ref
	spreadLo, spreadHi := math.Inf(1), 0.0
	heading := ""
	for k, name := range names {
		isRef := refFull && k == 0
		st := styleOf(name, k, isRef, refFull)
		var medXY, meanXY, iqrXY, sdXY plotter.XYs
		qb := &band{fill: withAlpha(st.color, 35)}
		for _, p := range by[name] {
			x := float64(p.BatchSize)
			medXY = append(medXY, plotter.XY{X: x, Y: p.Median})
			meanXY = append(meanXY, plotter.XY{X: x, Y: p.Mean})
			iqrXY = append(iqrXY, plotter.XY{X: x, Y: p.IQR()})
			sdXY = append(sdXY, plotter.XY{X: x, Y: p.Std})
			qb.x, qb.lo, qb.hi = append(qb.x, x), append(qb.lo, p.Q25), append(qb.hi, p.Q75)
			for _, v := range []float64{p.IQR(), p.Std} {
				if v > 0 {
					spreadLo, spreadHi = math.Min(spreadLo, v), math.Max(spreadHi, v)
				}
			}
		}
		line := draw.LineStyle{Color: st.color, Width: st.width, Dashes: st.dashes}
		glyph := draw.GlyphStyle{Color: st.color, Radius: vg.Points(2.6), Shape: st.shape}
		if st.shape == nil {
			glyph.Radius = 0
		}
		// A marker on every fourth point, shifted per estimator, so that lines that meet
		// keep their markers apart.
		ml := &clippedLine{xys: medXY, line: line, glyph: glyph, every: 4, offset: k % 4}
		il := &clippedLine{xys: iqrXY, line: line, glyph: glyph, every: 4, offset: k % 4}
		// The mean and sd: thin, faded and unmarked, so that the robust summaries read
		// first; a mean beyond the axis is a faded arrow on its edge.
		faded := withAlpha(st.color, 150)
		thinLine := draw.LineStyle{Color: faded, Width: vg.Points(0.9), Dashes: st.dashes}
		al := &clippedLine{xys: meanXY, line: thinLine, glyph: draw.GlyphStyle{Color: faded}}
		sl := &clippedLine{xys: sdXY, line: thinLine}
		if !isRef { // full's mean as a reference is the dashed line
			clipped += al.clipped(centre.Y.Min, centre.Y.Max)
			for _, xy := range meanXY { // the farthest mean beyond the axis, for the title
				if (xy.Y < centre.Y.Min || xy.Y > centre.Y.Max) && math.Abs(xy.Y-ref) > math.Abs(farthest-ref) {
					farthest = xy.Y
				}
			}
			thin[0] = append(thin[0], al)
			centre.Add(qb)
		}
		thin[1] = append(thin[1], sl)
		thick[0], thick[1] = append(thick[0], ml), append(thick[1], il)
		var h string
		switch {
		case isRef:
			h = "for reference:"
		case slices.Contains(paperVarianceEstimators, name):
			h = "in the paper's figure 3:"
		case slices.Contains(projectEstimators, name):
			h = "this project's, not in the paper:"
		case slices.Contains(method.Names(), name):
			h = "in the paper's tables only:"
		default:
			h = "others:"
		}
		if h != heading {
			if heading != "" {
				est.newline()
			}
			est.add(h)
			heading = h
		}
		if isRef {
			est.add(name, il)
		} else {
			est.add(name, qb, il)
		}
	}
	// The thin lines under the thick ones, every line over the bands.
	for i, p := range []*plot.Plot{centre, spread} {
		p.Add(thin[i]...)
		p.Add(thick[i]...)
	}
	if spreadHi == 0 {
		return nil, fmt.Errorf("figures: Variance: every interquartile range and standard deviation is 0")
	}
	spread.Y.Min, spread.Y.Max = spreadLo/1.3, spreadHi*1.3
	if keyed {
		keys := legendBelow(spread)
		thickKey := &clippedLine{line: draw.LineStyle{Color: KeyColor, Width: vg.Points(1.6)}}
		keys.add("thick: median (left), IQR (right)", thickKey)
		keys.add("thin: mean (left), sd (right)", &clippedLine{line: draw.LineStyle{Color: withAlpha(KeyColor, 150), Width: vg.Points(0.9)}})
		keys.add("band: quartiles", &band{fill: withAlpha(KeyColor, 70)}, thickKey)
		if hatched {
			keys.add("hatched: a normaliser raised to its floor", &columnShade{fill: CaveatColor, hatch: true})
		}
		arrow, _ := plotter.NewScatter(plotter.XYs{{}}) // the key covers every row's arrows
		arrow.GlyphStyle = draw.GlyphStyle{Color: withAlpha(KeyColor, 150), Radius: vg.Points(4), Shape: edgeArrow{up: true}}
		keys.add("arrow on an edge: a mean beyond the axis", arrow)
		keys.add(fmt.Sprintf("full's mean at n = %s (%.3f)", thousands(refN), ref), refLine)
	}
	if refFull && len(names) > 2 {
		if d := medianSpread(names[1:], by); d < 0.05 {
			est.note(fmt.Sprintf("Medians within %.2f of each other at every size: lines drawn thick to thin, so that all show.", d))
		}
	}
	centre.Title.Text = "Median, quartiles; mean"
	if clipped > 0 {
		centre.Title.Text = fmt.Sprintf("Median, quartiles; mean (%d off the axis, to %.2f)", clipped, farthest)
	}
	spread.Title.Text = "IQR; sd (log axis)"
	return []*plot.Plot{centre, spread}, nil
}

// medianSpread is the largest gap, over the batch sizes, between the medians of the named
// estimators at one size.
func medianSpread(names []string, by map[string][]results.VariancePoint) float64 {
	lo, hi := map[int]float64{}, map[int]float64{}
	for _, name := range names {
		for _, p := range by[name] {
			if l, ok := lo[p.BatchSize]; !ok || p.Median < l {
				lo[p.BatchSize] = p.Median
			}
			if h, ok := hi[p.BatchSize]; !ok || p.Median > h {
				hi[p.BatchSize] = p.Median
			}
		}
	}
	d := 0.0
	for n, l := range lo {
		d = math.Max(d, hi[n]-l)
	}
	return d
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
	s := slices.Clone(values)
	slices.Sort(s)
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
	var ticks plot.ConstantTicks
	for v := math.Ceil(lo/step*2) * step / 2; v <= hi; v += step / 2 {
		t := plot.Tick{Value: v}
		if math.Mod(v, step) == 0 {
			t.Label = thousands(int(v))
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
