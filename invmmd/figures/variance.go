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

	"github.com/invmmd/invmmd/invmmd/results"
)

// Size of the variance figure (Variance): two rows of two panels, legible when a README
// shows it 900 pixels wide.
const (
	VarianceWidth  = 10 * vg.Inch
	VarianceHeight = 7.5 * vg.Inch
)

// MeanQuantile is the share of the variance study's means left out at each end when the
// mean axis is fitted to them: small batches give some estimators means far from the rest
// (5.9 for ip at 1,000 rows, −9.7 for dr+ in a quick run), which would squash the others.
// Values beyond the axis are drawn as triangles on the edge, and the title counts them and
// gives the farthest.
const MeanQuantile = 0.05

// PaperVarianceEstimators are the estimators of the paper's variance figure (figure 3,
// appendix B.3). ip and ip+ are the paper's methods too (its Tables 4–7) but not in that
// figure; ProjectEstimators are this project's additions, in no table of the paper.
var (
	PaperVarianceEstimators = []string{"full", "dr", "dr+", "reg"}
	ProjectEstimators       = []string{"dr-po", "dr-po+"}
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
// is thin.
func styleOf(name string, k int, ref bool) varianceStyle {
	c, ok := MethodColor(name)
	if !ok {
		c = Series[k%len(Series)]
	}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, diamond{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	s := varianceStyle{color: c, width: vg.Points(1.6), shape: shapes[k%len(shapes)]}
	if strings.HasSuffix(name, "+") {
		s.dashes = []vg.Length{vg.Points(5), vg.Points(2.5)}
	}
	if ref {
		s.width, s.shape = vg.Points(1), nil
	}
	return s
}

// isDR says whether an estimator is of the doubly robust family (dr, dr+, dr-po, dr-po+),
// drawn in a row of its own: their lines nearly coincide.
func isDR(name string) bool { return strings.HasPrefix(name, "dr") }

// Variance returns the panels of the variance study (appendix B.3, the paper's figure 3):
// the mean and the standard deviation of each estimator against batch size, each with a
// band of ± one standard error (of the mean: sd/√n; of the standard deviation:
// sd/√(2(n−1))), so that a one-batch spike reads as noise. The doubly robust family (dr,
// dr+, dr-po, dr-po+), whose lines nearly coincide, has a row of its own below the others,
// with full as a thin reference; within a row each estimator has its method's colour and a
// marker shape of its own, and the true-G (+) forms are dashed. Each row's legend, right of
// it, says which estimators are in the paper's figure, which only in its tables, and which
// are this project's. The mean axis of a row spans the row's means but the MeanQuantile
// at each end (and the means just beyond), and always full's mean at the largest batch
// size, drawn as a line.
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
	// In the order of the paper's tables (results.Methods), the paper's before this
	// project's; unknown names last.
	rank := func(name string) int {
		if i := slices.Index(results.Methods, name); i >= 0 {
			return i
		}
		return len(results.Methods)
	}
	for _, r := range [][]string{others, drs} {
		slices.SortStableFunc(r, func(a, b string) int { return rank(a) - rank(b) })
	}
	rows = append(rows, append([]string{"full"}, others...))
	if len(drs) > 0 {
		rows = append(rows, append([]string{"full"}, drs...))
	}
	ticks := batchTicks(slices.Min(sizes), slices.Max(sizes))
	var grid [][]*plot.Plot
	for i, names := range rows {
		mean, sd, err := varianceRow(names, i > 0, by, ref, refN, ticks, slices.Min(sizes), slices.Max(sizes))
		if err != nil {
			return nil, err
		}
		grid = append(grid, []*plot.Plot{mean, sd})
	}
	return grid, nil
}

// varianceRow draws the mean and standard-deviation panels of one row of Variance; with
// refFull, names[0] is full drawn thin as a reference.
func varianceRow(names []string, refFull bool, by map[string][]results.VariancePoint, ref float64, refN int, ticks plot.ConstantTicks, xmin, xmax float64) (mean, sd *plot.Plot, err error) {
	mean, sd = plot.New(), plot.New()
	for _, p := range []*plot.Plot{mean, sd} {
		legible(p)
		p.X.Label.Text = "batch size"
		p.X.Tick.Marker = ticks
		g := plotter.NewGrid()
		g.Vertical.Width = 0
		g.Horizontal.Color = color.Gray{Y: 225}
		p.Add(g)
		p.X.Min, p.X.Max = xmin, xmax
	}
	mean.Y.Label.Text = "mean of the MMD² estimates"
	mean.Y.Tick.Marker = roundTicks{}
	// No y label on the log axis: gonum/plot then reserves room above the data area as if
	// the label stood there, which misaligns the titles. The title names the axis.
	sd.Y.Scale = plot.LogScale{}
	sd.Y.Tick.Marker = plot.LogTicks{Prec: -1}

	var means []float64
	for _, name := range names {
		for _, p := range by[name] {
			means = append(means, p.Mean)
		}
	}
	slices.Sort(means)
	lo, hi := quantile(means, MeanQuantile), quantile(means, 1-MeanQuantile)
	lo, hi = math.Min(lo, ref), math.Max(hi, ref)
	// Then out to the means within a quarter of that range beyond it: a few points just
	// past a quantile are not outliers.
	reach := 0.25 * (hi - lo)
	for _, m := range means {
		if m >= lo-reach && m <= hi+reach {
			lo, hi = math.Min(lo, m), math.Max(hi, m)
		}
	}
	pad := 0.08 * (hi - lo)
	if pad == 0 {
		pad = 0.1 * math.Max(math.Abs(ref), 1)
	}
	mean.Y.Min, mean.Y.Max = lo-pad, hi+pad

	refLine := newHLine(ref, Grey, vg.Points(6), vg.Points(3))
	refLine.style.Width = vg.Points(1)
	mean.Add(refLine)
	var lines, sdLines []*clippedLine
	clipped := 0
	farthest := ref
	sdLo, sdHi := math.Inf(1), 0.0
	heading := ""
	for k, name := range names {
		isRef := refFull && k == 0
		st := styleOf(name, k, isRef)
		var mXY, sXY plotter.XYs
		mb := &band{fill: withAlpha(st.color, 40)}
		sb := &band{fill: withAlpha(st.color, 40)}
		for _, p := range by[name] {
			x := float64(p.BatchSize)
			n := float64(p.N)
			se := p.Std / math.Sqrt(n)
			seSD := p.Std / math.Sqrt(2*(n-1))
			mXY = append(mXY, plotter.XY{X: x, Y: p.Mean})
			sXY = append(sXY, plotter.XY{X: x, Y: p.Std})
			mb.x, mb.lo, mb.hi = append(mb.x, x), append(mb.lo, p.Mean-se), append(mb.hi, p.Mean+se)
			sb.x, sb.lo, sb.hi = append(sb.x, x), append(sb.lo, math.Max(p.Std-seSD, p.Std/10)), append(sb.hi, p.Std+seSD)
			if p.Std > 0 {
				sdLo, sdHi = math.Min(sdLo, sb.lo[len(sb.lo)-1]), math.Max(sdHi, p.Std+seSD)
			}
		}
		line := draw.LineStyle{Color: st.color, Width: st.width, Dashes: st.dashes}
		glyph := draw.GlyphStyle{Color: st.color, Radius: vg.Points(2.6), Shape: st.shape}
		// A marker on every fourth point, shifted per estimator, so that lines that meet
		// keep their markers apart.
		ml := &clippedLine{xys: mXY, line: line, glyph: glyph, every: 4, offset: k % 4}
		sl := &clippedLine{xys: sXY, line: line, glyph: glyph, every: 4, offset: k % 4}
		if st.shape == nil {
			ml.glyph.Radius, sl.glyph.Radius = 0, 0
		}
		clipped += ml.clipped(mean.Y.Min, mean.Y.Max)
		for _, xy := range mXY { // the farthest mean beyond the axis, for the title
			if (xy.Y < mean.Y.Min || xy.Y > mean.Y.Max) && math.Abs(xy.Y-ref) > math.Abs(farthest-ref) {
				farthest = xy.Y
			}
		}
		lines, sdLines = append(lines, ml), append(sdLines, sl)
		if !isRef {
			mean.Add(mb)
			sd.Add(sb)
		}
		var h string
		switch {
		case isRef:
			h = "for reference:"
		case slices.Contains(PaperVarianceEstimators, name):
			h = "in the paper's figure 3:"
		case slices.Contains(ProjectEstimators, name):
			h = "this project's, not in the paper:"
		case slices.Contains(results.Methods, name):
			h = "in the paper's tables only:"
		default:
			h = "others:"
		}
		if h != heading {
			if heading != "" {
				sd.Legend.Add("")
			}
			sd.Legend.Add(h)
			heading = h
		}
		if isRef {
			sd.Legend.Add("  "+name, sl)
		} else {
			sd.Legend.Add("  "+name, sb, sl)
		}
	}
	for i := range lines { // lines over every band, the reference first
		mean.Add(lines[i])
		sd.Add(sdLines[i])
	}
	if sdHi == 0 {
		return nil, nil, fmt.Errorf("figures: Variance: every standard deviation is 0")
	}
	sd.Y.Min, sd.Y.Max = sdLo/1.3, sdHi*1.3
	sd.Legend.Add("")
	sd.Legend.Add("bands: ± 1 standard error", &band{fill: withAlpha(Grey, 60)})
	sd.Legend.Add(fmt.Sprintf("full's mean at n = %s (%.3f)", thousands(refN), ref), refLine)
	mean.Title.Text = "Mean, ± 1 SE"
	if clipped > 0 {
		mean.Title.Text = fmt.Sprintf("Mean, ± 1 SE (%d %s beyond the axis, to %.2f)", clipped, map[bool]string{true: "point", false: "points"}[clipped == 1], farthest)
	}
	sd.Title.Text = "Standard deviation, ± 1 SE (log axis)"
	return mean, sd, nil
}

// quantile returns the q-quantile of sorted values (linear interpolation).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	f := q * float64(len(sorted)-1)
	i := int(math.Floor(f))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (f-float64(i))*(sorted[i+1]-sorted[i])
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
