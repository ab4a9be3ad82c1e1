package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/results"
)

// MeanClip is the half-width of the variance study's mean axis around the reference (full's
// mean at the largest batch size): small batches give some estimators means far from it on
// either side (−9.7 for dr+ in a quick run), which would squash the rest. Values beyond are
// drawn as triangles on the edge.
const MeanClip = 0.5

// PaperVarianceEstimators are the estimators of the paper's variance figure (figure 3,
// appendix B.3); the others are this project's additions, drawn thinner and dashed.
var PaperVarianceEstimators = []string{"full", "dr", "dr+", "reg"}

// varianceStyle is how one estimator is drawn.
type varianceStyle struct {
	color  color.Color
	dashes []vg.Length
	width  vg.Length
	radius vg.Length
}

// styleOf gives the paper's estimators thick solid lines with points in four distinct
// colours, and the extensions thin lines with no points: dashed for the learned-G version,
// dotted for the true-G (+) version, one colour per family.
func styleOf(name string, k int) varianceStyle {
	paper := map[string]color.Color{"full": Black, "dr": Orange, "dr+": Purple, "reg": Blue}
	if c, ok := paper[name]; ok {
		return varianceStyle{color: c, width: vg.Points(2), radius: vg.Points(2.2)}
	}
	ext := map[string]color.Color{"ip": Sky, "ip+": Sky, "dr-po": Green, "dr-po+": Green}
	s := varianceStyle{color: Series[k%len(Series)], width: vg.Points(1), radius: vg.Points(0.8),
		dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	if c, ok := ext[name]; ok {
		s.color = c
	}
	if len(name) > 0 && name[len(name)-1] == '+' {
		s.dashes = []vg.Length{vg.Points(1.5), vg.Points(2)}
	}
	return s
}

// Variance returns the two panels of the variance study (appendix B.3, the paper's figure
// 3): the mean and the standard deviation of each estimator against batch size, each with a
// band of ± one standard error (of the mean: sd/√n; of the standard deviation:
// sd/√(2(n−1))), so that a one-batch spike reads as noise. The mean panel has a line at full's
// mean at the largest batch size and is clipped symmetrically around it (MeanClip); the
// paper's estimators are drawn thick, the project's extensions thin and dashed. One legend,
// to the right of the second panel, serves both.
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
	// The paper's estimators first, then the extensions, each in the order given.
	slices.SortStableFunc(order, func(a, b string) int {
		return boolInt(!slices.Contains(PaperVarianceEstimators, a)) - boolInt(!slices.Contains(PaperVarianceEstimators, b))
	})
	ref, refN := math.NaN(), 0
	for _, p := range by["full"] {
		if p.BatchSize > refN {
			ref, refN = p.Mean, p.BatchSize
		}
	}
	if math.IsNaN(ref) {
		return nil, fmt.Errorf("figures: Variance: no full estimator to draw the reference at")
	}

	mean, sd := plot.New(), plot.New()
	ticks := batchTicks(slices.Min(sizes), slices.Max(sizes))
	for _, p := range []*plot.Plot{mean, sd} {
		p.X.Label.Text = "batch size"
		p.X.Tick.Marker = ticks
		g := plotter.NewGrid()
		g.Vertical.Width = 0
		p.Add(g)
		p.X.Min, p.X.Max = slices.Min(sizes), slices.Max(sizes)
	}
	mean.Y.Label.Text = "mean of the MMD² estimates (sum over y)"
	mean.Y.Tick.Marker = roundTicks{}
	// No y label on the log axis (see Results): the title names the axis.
	sd.Title.Text = "Standard deviation of the estimates, ± 1 SE (log axis)"
	sd.Y.Scale = plot.LogScale{}
	sd.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	mean.Y.Min, mean.Y.Max = ref-MeanClip, ref+MeanClip

	refLine := newHLine(ref, Grey, vg.Points(6), vg.Points(3))
	mean.Add(refLine)
	sd.Legend.Add("the paper's estimators:")
	var lines []*clippedLine
	clipped := 0
	sdLo, sdHi := math.Inf(1), 0.0
	for k, name := range order {
		if k > 0 && !slices.Contains(PaperVarianceEstimators, name) && slices.Contains(PaperVarianceEstimators, order[k-1]) {
			sd.Legend.Add("extensions (not in the paper):")
		}
		st := styleOf(name, k)
		pts := by[name]
		slices.SortFunc(pts, func(a, b results.VariancePoint) int { return a.BatchSize - b.BatchSize })
		var mXY, sXY plotter.XYs
		mb := &band{fill: withAlpha(st.color, 50)}
		sb := &band{fill: withAlpha(st.color, 50)}
		for _, p := range pts {
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
		glyph := draw.GlyphStyle{Color: st.color, Radius: st.radius, Shape: draw.CircleGlyph{}}
		ml := &clippedLine{xys: mXY, line: line, glyph: glyph}
		sl := &clippedLine{xys: sXY, line: line, glyph: glyph}
		clipped += ml.clipped(mean.Y.Min, mean.Y.Max)
		lines = append(lines, ml)
		if slices.Contains(PaperVarianceEstimators, name) {
			mean.Add(mb)
			sd.Add(sb)
			sd.Legend.Add("  "+name, sb, sl)
		} else {
			sd.Legend.Add("  "+name, sl)
		}
		sd.Add(sl)
	}
	for _, l := range lines { // lines over every band
		mean.Add(l)
	}
	if sdHi == 0 {
		return nil, fmt.Errorf("figures: Variance: every standard deviation is 0")
	}
	sd.Y.Min, sd.Y.Max = sdLo/1.3, sdHi*1.3
	sd.Legend.Add("")
	sd.Legend.Add("bands: ± 1 standard error (paper's estimators)", &band{fill: withAlpha(Grey, 60)})
	sd.Legend.Add(fmt.Sprintf("full's mean at n = %s (%.3f)", thousands(refN), ref), refLine)
	mean.Title.Text = fmt.Sprintf("Mean of the estimates, ± 1 SE (axis: full's mean ± %g)", MeanClip)
	if clipped > 0 {
		mean.Title.Text = fmt.Sprintf("Mean of the estimates, ± 1 SE (axis: full's mean ± %g; %d points beyond, as triangles)", MeanClip, clipped)
	}
	mean.Title.Padding, sd.Title.Padding = vg.Points(6), vg.Points(6)
	return [][]*plot.Plot{{mean, sd}}, nil
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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
