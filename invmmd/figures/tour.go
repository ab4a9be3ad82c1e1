package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/results"
)

// Plots of the teaching tour (notebook 00): Spread and Histograms.

// Group is one named sample of estimates, e.g. one estimator's values over repetitions.
type Group struct {
	Name   string
	Values []float64 // NaN values (undefined estimates) are left out and counted in the label
}

// Reference is a horizontal line drawn across a Spread plot, e.g. the true value.
type Reference struct {
	Value float64 // NaN means no line
	Label string
}

// Spread draws one box plot per group (median, quartiles, whiskers to 1.5 IQR, outliers as
// points; filled in the group's method colour when its name names a method, see
// MethodColor), the group's mean as a cross, and the reference as a dashed horizontal line,
// so that bias (mean off the line) and variance (box height) read off one picture; the
// legend is below the panel. A group with undefined values gets "(k undefined)" appended to
// its name; a group with no finite value is an error, as are no groups and an infinite value.
func Spread(title, ylabel string, groups []Group, ref Reference) (*plot.Plot, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("figures: Spread %q: no groups", title)
	}
	p := newPlot(title, "", ylabel)
	names := make([]string, len(groups))
	var means plotter.XYs
	for i, g := range groups {
		var vals plotter.Values
		undefined := 0
		for k, v := range g.Values {
			switch {
			case math.IsNaN(v):
				undefined++
			case math.IsInf(v, 0):
				return nil, fmt.Errorf("figures: Spread %q: group %q value %d is %v, want a finite value or NaN", title, g.Name, k, v)
			default:
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("figures: Spread %q: group %q has no finite value (%d values, %d undefined)", title, g.Name, len(g.Values), undefined)
		}
		names[i] = g.Name
		if undefined > 0 {
			names[i] = fmt.Sprintf("%s\n(%d undefined)", g.Name, undefined)
		}
		box, err := plotter.NewBoxPlot(vg.Points(18), float64(i), vals)
		if err != nil {
			return nil, fmt.Errorf("figures: Spread %q: group %q: %w", title, g.Name, err)
		}
		box.FillColor = withAlpha(seriesColor(g.Name, i), 90)
		p.Add(box)
		means = append(means, plotter.XY{X: float64(i), Y: results.CellOf(vals).Mean})
	}
	sc, err := plotter.NewScatter(means)
	if err != nil {
		return nil, fmt.Errorf("figures: Spread %q: %w", title, err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Shape: draw.CrossGlyph{}, Radius: vg.Points(4), Color: Black}
	p.Add(sc)
	l := legendBelow(p) // below the panel: a column beside it would take a third of the width
	l.add("mean", sc)
	if !math.IsNaN(ref.Value) {
		if math.IsInf(ref.Value, 0) {
			return nil, fmt.Errorf("figures: Spread %q: reference %v, want a finite value or NaN", title, ref.Value)
		}
		line := &plotter.Line{XYs: plotter.XYs{{X: -0.5, Y: ref.Value}, {X: float64(len(groups)) - 0.5, Y: ref.Value}},
			LineStyle: draw.LineStyle{Color: Black, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
		p.Add(line) // which widens the y axis to the line
		l.add(ref.Label, line)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	p.Add(plotter.NewGrid())
	return p, nil
}

// Distribution is one named sample for Histograms.
type Distribution struct {
	Name   string
	Values []float64
	Dashed bool // draw the outline dashed, e.g. for the observed-only version of a group
}

// Histograms draws the series as overlaid density histograms (step outlines on common
// bins spanning all values), so that distributions of different sizes compare. A series
// named after a method takes its colour (MethodColor), one named "Z = 0" or "Z = 1" (or
// "Z < 0", "Z ≥ 0") its Z value's (ZColors), the others the colours of Series in order; the
// legend is below the panel. It is an error to give no series, bins < 1, a series with no
// values or a non-finite value.
func Histograms(title, xlabel string, series []Distribution, bins int) (*plot.Plot, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("figures: Histograms %q: no series", title)
	}
	if bins < 1 {
		return nil, fmt.Errorf("figures: Histograms %q: %d bins, want at least 1", title, bins)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		if len(s.Values) == 0 {
			return nil, fmt.Errorf("figures: Histograms %q: series %q has no values", title, s.Name)
		}
		for k, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("figures: Histograms %q: series %q value %d is %v, want a finite value", title, s.Name, k, v)
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == lo { // one value everywhere: give the bins a width
		lo, hi = lo-0.5, hi+0.5
	}
	width := (hi - lo) / float64(bins)
	p := newPlot(title, xlabel, "density")
	l := legendBelow(p) // below the panel: a column beside it would take a third of the width
	for i, s := range series {
		counts := make([]float64, bins)
		for _, v := range s.Values {
			b := min(int((v-lo)/width), bins-1)
			counts[b]++
		}
		// The outline: down to 0 at both ends, a flat step over each bin.
		pts := plotter.XYs{{X: lo, Y: 0}}
		for b, c := range counts {
			d := c / (float64(len(s.Values)) * width)
			x0, x1 := lo+float64(b)*width, lo+float64(b+1)*width
			pts = append(pts, plotter.XY{X: x0, Y: d}, plotter.XY{X: x1, Y: d})
		}
		pts = append(pts, plotter.XY{X: hi, Y: 0})
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("figures: Histograms %q: series %q: %w", title, s.Name, err)
		}
		line.Color = seriesColor(s.Name, i)
		line.Width = vg.Points(1.5)
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(line)
		l.add(fmt.Sprintf("%s (n = %d)", s.Name, len(s.Values)), line)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	// Premultiplied: scale the channels by the new alpha.
	s := float64(a) / 255
	return color.RGBA{uint8(float64(r>>8) * s), uint8(float64(g>>8) * s), uint8(float64(b>>8) * s), a}
}
