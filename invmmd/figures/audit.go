package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/fairness"
)

// The audit figure's colours: complete cases grey (what Fairlearn reports), dr blue, and
// the sensitivity bounds as two greys behind them.
var (
	auditCC     = color.RGBA{110, 110, 110, 255}
	auditDR     = color.RGBA{0, 114, 178, 255}
	auditGamma  = color.RGBA{190, 215, 235, 255}
	auditManski = color.RGBA{232, 232, 232, 255}
)

// AuditGamma is the departure from missingness at random the figure shades (beside the
// assumption-free bounds).
const AuditGamma = 2

// AuditPlots returns the audit figure's panels: the selection, true-positive and
// false-positive rates of every group, complete_case and dr each with its interval, over
// the ranges the sensitivity bounds allow at Γ = AuditGamma and with no assumption.
func AuditPlots(res *fairness.Result, bounds []fairness.Bound) ([][]*plot.Plot, error) {
	var row []*plot.Plot
	for k, m := range []string{fairness.SelectionRate, fairness.TPR, fairness.FPR} {
		p := plot.New()
		p.Title.Text = m
		p.Y.Label.Text = "rate"
		p.Y.Min, p.Y.Max = 0, 1
		p.X.Min, p.X.Max = -0.6, float64(len(res.Levels))-0.4
		p.NominalX(res.Levels...)
		for g, level := range res.Levels {
			x := float64(g)
			for _, shade := range []struct {
				gamma float64
				fill  color.Color
				half  float64
			}{{math.Inf(1), auditManski, 0.38}, {AuditGamma, auditGamma, 0.3}} {
				for _, b := range bounds {
					if b.Metric == m && b.Group == level && b.Gamma == shade.gamma {
						poly, err := plotter.NewPolygon(plotter.XYs{{X: x - shade.half, Y: b.Low}, {X: x + shade.half, Y: b.Low}, {X: x + shade.half, Y: b.High}, {X: x - shade.half, Y: b.High}})
						if err != nil {
							return nil, err
						}
						poly.Color, poly.LineStyle.Width = shade.fill, 0
						p.Add(poly)
						if g == 0 && k == 2 {
							p.Legend.Add(fmt.Sprintf("bounds, Γ = %s", gammaLabel(shade.gamma)), poly)
						}
					}
				}
			}
			for _, e := range []struct {
				est    fairness.Estimator
				dx     float64
				colour color.RGBA
				shape  draw.GlyphDrawer
			}{{fairness.CompleteCase, -0.12, auditCC, draw.SquareGlyph{}}, {fairness.DR, 0.12, auditDR, draw.CircleGlyph{}}} {
				r, ok := res.Find(m, level, "", e.est)
				if !ok {
					continue
				}
				bar, err := plotter.NewLine(plotter.XYs{{X: x + e.dx, Y: r.Low}, {X: x + e.dx, Y: r.High}})
				if err != nil {
					return nil, err
				}
				bar.Color, bar.Width = e.colour, vg.Points(1.5)
				pt, err := plotter.NewScatter(plotter.XYs{{X: x + e.dx, Y: r.Estimate}})
				if err != nil {
					return nil, err
				}
				pt.GlyphStyle = draw.GlyphStyle{Color: e.colour, Radius: vg.Points(3.5), Shape: e.shape}
				p.Add(bar, pt)
				if g == 0 && k == 2 {
					p.Legend.Add(fmt.Sprintf("%v, %.0f%% CI", e.est, 100*res.Level), bar, pt)
				}
			}
		}
		if k == 2 {
			p.Legend.Top = true
			p.Legend.TextStyle.Font.Size = vg.Points(8)
		}
		row = append(row, p)
	}
	return [][]*plot.Plot{row}, nil
}

func gammaLabel(g float64) string {
	if math.IsInf(g, 1) {
		return "∞ (no assumption)"
	}
	return fmt.Sprintf("%g", g)
}

// Audit draws AuditPlots to base+".png" and base+".svg".
func Audit(res *fairness.Result, bounds []fairness.Bound, base string) error {
	plots, err := AuditPlots(res, bounds)
	if err != nil {
		return err
	}
	return SaveGrid(plots, base, 9*vg.Inch, 3.4*vg.Inch)
}
