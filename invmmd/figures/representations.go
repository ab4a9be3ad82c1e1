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
// per seed whatever the setting: it is drawn once, with the first setting's marker. The x
// axis is linear while every point lies within ±10·MMDLinear, a SymLog (linear within
// ±MMDLinear) beyond, so that the invariant fits near 0 stay apart. It returns an error
// for no fits, more settings than markers, or a non-finite value.
func Representations(title string, fits []results.RepresentationFit) (*plot.Plot, error) {
	if len(fits) == 0 {
		return nil, fmt.Errorf("figures: Representations %q: no fits", title)
	}
	var settings, methods []string
	for _, f := range fits {
		if math.IsNaN(f.LogitMMD) || math.IsInf(f.LogitMMD, 0) || math.IsNaN(f.TeAcc) || math.IsInf(f.TeAcc, 0) {
			return nil, fmt.Errorf("figures: Representations %q: %s, seed %d: logit MMD² %v, test accuracy %v", title, f.Setting(), f.Seed, f.LogitMMD, f.TeAcc)
		}
		if !slices.Contains(settings, f.Setting()) {
			settings = append(settings, f.Setting())
		}
		if !slices.Contains(methods, f.Method) {
			methods = append(methods, f.Method)
		}
	}
	if len(settings) > len(settingShapes) {
		return nil, fmt.Errorf("figures: Representations %q: %d settings, at most %d markers", title, len(settings), len(settingShapes))
	}
	slices.SortStableFunc(methods, func(a, b string) int { return slices.Index(method.Names(), a) - slices.Index(method.Names(), b) })
	p := plot.New()
	legible(p)
	p.Title.Text = title
	p.X.Label.Text = "training MMD² of the logit (σ = 1, full estimator)"
	p.Y.Label.Text = "test accuracy (shifted P(Z | Y))"
	lo, hi := math.Inf(1), math.Inf(-1)
	xlo, xhi := 0.0, MMDLinear
	zero := &vline{x: 0, style: draw.LineStyle{Color: ReferenceColor, Width: vg.Points(0.8)}}
	p.Add(zero)
	noneSeeds := map[uint64]bool{} // none's fits already drawn
	for k, s := range settings {
		for _, m := range methods {
			var xy plotter.XYs
			for _, f := range fits {
				if f.Setting() == s && f.Method == m {
					if m == "none" {
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
			c, ok := MethodColor(m)
			if !ok {
				c = Grey
			}
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, fmt.Errorf("figures: Representations %q: %w", title, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: withAlpha(c, 220), Radius: vg.Points(4), Shape: settingShapes[k]}
			p.Add(sc)
		}
	}
	pad := math.Max(0.01, (hi-lo)*0.06)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.Y.Tick.Marker = roundTicks{}
	if math.Max(-xlo, xhi) <= 10*MMDLinear {
		xpad := 0.04 * (xhi - xlo)
		p.X.Min, p.X.Max = xlo-xpad, xhi+xpad
		p.X.Tick.Marker = roundTicks{}
	} else { // a SymLog as the results figures' MMD axis, so that the fits near 0 spread out
		SymLog{Linear: MMDLinear}.fit(&p.X, xlo, xhi, 0.04)
	}
	p.Add(plotter.NewGrid())
	for _, m := range methods {
		c, ok := MethodColor(m)
		if !ok {
			c = Grey
		}
		key, _ := plotter.NewScatter(plotter.XYs{{}})
		key.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		label := m
		if m == "none" {
			label = "none (no penalty: drawn once)"
		}
		p.Legend.Add(label, key)
	}
	p.Legend.Add("")
	for k, s := range settings {
		key, _ := plotter.NewScatter(plotter.XYs{{}})
		key.GlyphStyle = draw.GlyphStyle{Color: KeyColor, Radius: vg.Points(4), Shape: settingShapes[k]}
		p.Legend.Add("penalty on the "+s, key)
	}
	p.Legend.Add("MMD² = 0", zero)
	p.Legend.Add("one point per fit (seed)")
	if _, ok := p.X.Scale.(SymLog); ok {
		addSymLogKey(p, "x axis")
	}
	return p, nil
}
