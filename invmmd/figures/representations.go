package figures

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
)

// Size of the representation figure (Representations): one panel and its legend, legible
// when a README shows it 900 pixels wide.
const (
	RepresentationsWidth  = 9 * vg.Inch
	RepresentationsHeight = 5.5 * vg.Inch
)

// settingShapes are the markers of the settings (layer, λ) of a representation figure, in
// the order the settings come: filled first, so that the method's colour reads at a
// glance, then the same shapes with a white centre.
var settingShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}, triangleDown{}, diamond{},
	holed{draw.CircleGlyph{}}, holed{draw.PyramidGlyph{}}, holed{draw.BoxGlyph{}}, holed{triangleDown{}}, holed{diamond{}}}

// Representations returns the figure of a comparison of the layer an MMD penalty acts on
// (results.RepresentationFit): each fit of h a point at its logit's training MMD² (x, σ = 1:
// how much what the classifier outputs depends on Z given Y) and its test accuracy under
// the shift (y), coloured by method (MethodColor) and shaped by its setting, the layer and λ
// ("logit, λ = 1", "features, λ = 100"). A penalty that makes the output invariant moves
// a method's points left and, under the shift, up; one that leaves the output's dependence
// where none has it leaves them with none's. none, trained without a penalty, is one fit
// per seed whatever the setting: it is drawn once, as crosses (thickCross). The x axis is
// linear while every point lies within ±10·MMDLinear, else a SymLog linear within
// ±MMDLinear (half a decade each side), as the legend below the plot says. It returns an error for
// no fits, more settings than markers, or a non-finite value.
func Representations(title string, fits []results.RepresentationFit) (*plot.Plot, error) {
	if len(fits) == 0 {
		return nil, fmt.Errorf("figures: Representations %q: no fits", title)
	}
	for _, f := range fits {
		if math.IsNaN(f.LogitMMD) || math.IsInf(f.LogitMMD, 0) || math.IsNaN(f.TeAcc) || math.IsInf(f.TeAcc, 0) {
			return nil, fmt.Errorf("figures: Representations %q: %s, seed %d: logit MMD² %v, test accuracy %v", title, f.Setting(), f.Seed, f.LogitMMD, f.TeAcc)
		}
	}
	settings := distinct(fits, results.RepresentationFit.Setting)
	methods := distinct(fits, func(f results.RepresentationFit) string { return f.Method })
	if len(settings) > len(settingShapes) {
		return nil, fmt.Errorf("figures: Representations %q: %d settings, at most %d markers", title, len(settings), len(settingShapes))
	}
	slices.SortStableFunc(methods, func(a, b string) int { return slices.Index(method.Names(), a) - slices.Index(method.Names(), b) })
	// A short x label: gonum/plot reserves room for its box as if centred on the middle of
	// the data range, which a SymLog draws far right; the legend says the rest.
	p := legiblePlot(title, "logit MMD² (training)", "test accuracy (shifted P(Z | Y))")
	lo, hi := math.Inf(1), math.Inf(-1)
	xlo, xhi := 0.0, MMDLinear
	p.Add(&refLine{vertical: true, style: draw.LineStyle{Color: ReferenceColor, Width: vg.Points(0.8)}})
	noneSeeds := map[uint64]bool{} // none's fits already drawn
	for k, s := range settings {
		for _, m := range methods {
			var xy plotter.XYs
			for _, f := range fits {
				if f.Setting() == s && f.Method == m {
					if m == method.None.String() {
						if noneSeeds[f.Seed] {
							continue
						}
						noneSeeds[f.Seed] = true
					}
					xy = append(xy, plotter.XY{X: f.LogitMMD, Y: f.TeAcc})
					lo, hi = math.Min(lo, f.TeAcc), math.Max(hi, f.TeAcc)
					xlo, xhi = math.Min(xlo, f.LogitMMD), math.Max(xhi, f.LogitMMD)
				}
			}
			if len(xy) == 0 {
				continue
			}
			// Finite, checked above.
			sc := &plotter.Scatter{XYs: xy, GlyphStyle: draw.GlyphStyle{Color: withAlpha(methodColorOr(m, Grey), 220), Radius: vg.Points(4), Shape: settingShapes[k]}}
			if m == method.None.String() {
				sc.GlyphStyle.Shape = thickCross{}
				sc.GlyphStyle.Radius = vg.Points(4.5)
			}
			p.Add(sc)
		}
	}
	pad := math.Max(0.01, (hi-lo)*0.06)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.Y.Tick.Marker = roundTicks{}
	xNote := "One point per fit (seed). x: the logit's training MMD² (σ = 1, full estimator)"
	if math.Max(-xlo, xhi) <= 10*MMDLinear {
		xpad := 0.04 * (xhi - xlo)
		p.X.Min, p.X.Max = xlo-xpad, xhi+xpad
		p.X.Tick.Marker = roundTicks{}
	} else { // a SymLog, so that the fits near 0 spread out; its linear part half a decade
		// each side, so that they stay apart without that part taking half the axis
		SymLog{Linear: MMDLinear, LinearDecades: 0.5}.fit(&p.X, xlo, xhi, 0.04)
		xNote += fmt.Sprintf(", linear within ±%g, logarithmic beyond", MMDLinear)
	}
	p.Add(plotter.NewGrid())
	l := legendBelow(p)
	for _, m := range methods {
		key := glyphKey(draw.GlyphStyle{Color: methodColorOr(m, Grey), Radius: vg.Points(4), Shape: draw.CircleGlyph{}})
		label := m
		if m == method.None.String() {
			key.GlyphStyle.Shape = thickCross{}
			label = "none (no penalty: one fit per seed)"
		}
		l.add(label, key)
	}
	l.newline()
	l.add("penalty on the")
	for k, s := range settings {
		l.add(s, glyphKey(draw.GlyphStyle{Color: KeyColor, Radius: vg.Points(4), Shape: settingShapes[k]}))
	}
	l.note(xNote + "; grey line: 0.")
	return p, nil
}

// thickCross is an × drawn with strokes thick enough to read as a mark beside filled ones:
// none's fits in the representation figure, a shape no setting uses, so that none is not
// taken for full's black.
type thickCross struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (thickCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.6)})
	r := sty.Radius * 0.8
	for _, d := range []vg.Length{r, -r} {
		var p vg.Path
		p.Move(vg.Point{X: pt.X - r, Y: pt.Y - d})
		p.Line(vg.Point{X: pt.X + r, Y: pt.Y + d})
		c.Stroke(p)
	}
}
