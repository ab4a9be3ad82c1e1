package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/fairness"
)

// The audit figure's colours: complete cases grey (what Fairlearn reports), dr Blue, and
// the sensitivity bounds as two greys behind them.
var (
	auditCC     = color.RGBA{110, 110, 110, 255}
	auditGamma  = color.RGBA{150, 195, 230, 255}
	auditManski = color.RGBA{232, 232, 232, 255}
)

// AuditGamma is the departure from missingness at random the figure shades beside the
// assumption-free bounds, when the bounds hold it; otherwise the largest finite Γ above 1
// they hold.
const AuditGamma = 2

// shadedGammas returns the departures the figure shades: Γ = ∞ when present, and AuditGamma
// or else the largest finite Γ above 1.
func shadedGammas(bounds []fairness.Bound) []float64 {
	var out []float64
	finite := 0.0
	for _, b := range bounds {
		switch {
		case math.IsInf(b.Gamma, 1) && !slices.Contains(out, b.Gamma):
			out = append([]float64{b.Gamma}, out...)
		case b.Gamma == AuditGamma:
			finite = AuditGamma
		case b.Gamma > 1 && !math.IsInf(b.Gamma, 1) && finite != AuditGamma:
			finite = math.Max(finite, b.Gamma)
		}
	}
	if finite > 1 {
		out = append(out, finite)
	}
	return out
}

// AuditPlots returns the audit figure's panels: the selection, true-positive and
// false-positive rates of every group (one row each, the rate along the horizontal axis),
// complete_case and dr each with its interval, over the ranges the sensitivity bounds allow
// at Γ = AuditGamma and with no assumption; the key is below the panels, with the gap.
func AuditPlots(res *fairness.Result, bounds []fairness.Bound) ([][]*plot.Plot, error) {
	var row []*plot.Plot
	k := len(res.Levels)
	// Groups from the top down in their order: group g at y = k − 1 − g.
	ys := func(g int) float64 { return float64(k - 1 - g) }
	names := make([]string, k)
	for g, l := range res.Levels {
		names[k-1-g] = l
	}
	shades := shadedGammas(bounds)
	for panel, m := range []string{fairness.SelectionRate, fairness.TPR, fairness.FPR} {
		p := plot.New()
		p.Title.Text = m
		p.X.Label.Text = "rate"
		p.X.Min, p.X.Max = 0, 1
		p.Y.Min, p.Y.Max = -0.6, float64(k)-0.4
		p.NominalY(names...)
		if panel > 0 {
			p.Y.Tick.Label.Font.Size = 0
			p.Y.Tick.Label.Color = color.Transparent
		}
		p.Add(plotter.NewGrid())
		key := legendBelow(p) // the key in three parts, one below each panel
		if panel == 2 {
			if dr, ok := res.Find(fairness.EqualizedOddsDifference, fairness.All, "", fairness.DR); ok {
				note := fmt.Sprintf("equalized_odds_difference: dr %.3f [%.3f, %.3f]", dr.Estimate, dr.Low, dr.High)
				if cc, ok := res.Find(fairness.EqualizedOddsDifference, fairness.All, "", fairness.CompleteCase); ok {
					note += fmt.Sprintf("; complete cases %.3f", cc.Estimate)
				}
				key.note(note)
			}
		}
		for g, level := range res.Levels {
			y := ys(g)
			for k, gamma := range shades {
				shade := struct {
					gamma float64
					fill  color.Color
					half  float64
				}{gamma, auditGamma, 0.3}
				if math.IsInf(gamma, 1) {
					shade.fill, shade.half = auditManski, 0.4
				} else if k == 0 {
					shade.half = 0.4
				}
				for _, b := range bounds {
					if b.Metric == m && b.Group == level && b.Gamma == shade.gamma {
						poly, err := plotter.NewPolygon(plotter.XYs{{X: b.Low, Y: y - shade.half}, {X: b.High, Y: y - shade.half}, {X: b.High, Y: y + shade.half}, {X: b.Low, Y: y + shade.half}})
						if err != nil {
							return nil, err
						}
						poly.Color, poly.LineStyle.Width = shade.fill, 0
						p.Add(poly)
						if g == 0 && panel == 0 {
							key.add(gammaLabel(shade.gamma), poly)
							key.newline()
						}
					}
				}
			}
			for _, e := range []struct {
				est    fairness.Estimator
				dy     float64
				colour color.RGBA
				shape  draw.GlyphDrawer
			}{{fairness.CompleteCase, 0.14, auditCC, draw.BoxGlyph{}}, {fairness.DR, -0.14, Blue, draw.CircleGlyph{}}} {
				r, ok := res.Find(m, level, "", e.est)
				if !ok {
					continue
				}
				bar, err := plotter.NewLine(plotter.XYs{{X: r.Low, Y: y + e.dy}, {X: r.High, Y: y + e.dy}})
				if err != nil {
					return nil, err
				}
				bar.Color, bar.Width = e.colour, vg.Points(1.5)
				pt, err := plotter.NewScatter(plotter.XYs{{X: r.Estimate, Y: y + e.dy}})
				if err != nil {
					return nil, err
				}
				pt.GlyphStyle = draw.GlyphStyle{Color: e.colour, Radius: vg.Points(3), Shape: e.shape}
				p.Add(bar, pt)
				if g == 0 && panel == 1 {
					key.add(fmt.Sprintf("%v, %.0f%% CI", e.est, 100*res.Level), bar, pt)
					key.newline()
				}
			}
		}
		row = append(row, p)
	}
	return [][]*plot.Plot{row}, nil
}

// gammaLabel names a shade of sensitivity bounds in the key.
func gammaLabel(g float64) string {
	if math.IsInf(g, 1) {
		return "bounds assuming nothing (Γ = ∞)"
	}
	return fmt.Sprintf("bounds, recording odds ×%g (Γ = %g)", g, g)
}

// AuditKey adds an entry to the key below one of AuditPlots' panels (0, 1 or 2), for a
// caller that draws more on them (a notebook's complete-data values, say).
func AuditKey(p *plot.Plot, text string, thumbs ...plot.Thumbnailer) {
	k := legendBelow(p)
	k.add(text, thumbs...)
	k.newline()
}

// AuditSize is the audit figure's size for groups groups: taller with more groups.
func AuditSize(groups int) (w, h vg.Length) {
	return 10 * vg.Inch, vg.Length(1.9+0.42*float64(groups)) * vg.Inch
}

// Audit draws AuditPlots to base+".png" and base+".svg".
func Audit(res *fairness.Result, bounds []fairness.Bound, base string) error {
	plots, err := AuditPlots(res, bounds)
	if err != nil {
		return err
	}
	w, h := AuditSize(len(res.Levels))
	return SaveGrid(plots, base, w, h)
}
