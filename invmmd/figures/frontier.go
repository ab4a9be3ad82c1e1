package figures

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FrontierPoint is one model on the accuracy-against-gap plane: its mean gap (X) and
// balanced accuracy (Y) over seeds with their standard errors, and a label (its λ).
type FrontierPoint struct {
	X, Y, XSE, YSE float64
	Label          string
}

// FrontierSeries is one method's points (over λ, joined by a line when Line) or a lone
// model's point; Glyph is its marker (nil: the next of a fixed cycle, by its place).
type FrontierSeries struct {
	Name   string
	Colour color.Color
	Line   bool
	Glyph  draw.GlyphDrawer
	Points []FrontierPoint
}

// FrontierPlot draws the accuracy-against-gap frontier of a table: each series' points with
// their standard errors as whiskers, labelled, joined over λ where Line; the noise (the
// gap of a random ranking at the same rate, its 95th percentile) as a dashed vertical line;
// the key below the panel, off the data.
func FrontierPlot(title string, series []FrontierSeries, noise95 float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "equalized_odds_difference (mean over seeds)"
	p.Y.Label.Text = "balanced accuracy"
	key := legendBelow(p)
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	yMin, yMax, xMax := math.Inf(1), math.Inf(-1), 0.0
	for i, s := range series {
		xy := make(plotter.XYs, len(s.Points))
		xe := make(plotter.XErrors, len(s.Points))
		ye := make(plotter.YErrors, len(s.Points))
		var labels []string
		for k, pt := range s.Points {
			xy[k] = plotter.XY{X: pt.X, Y: pt.Y}
			xe[k] = struct{ Low, High float64 }{pt.XSE, pt.XSE}
			ye[k] = struct{ Low, High float64 }{pt.YSE, pt.YSE}
			labels = append(labels, pt.Label)
			yMin, yMax, xMax = math.Min(yMin, pt.Y-pt.YSE), math.Max(yMax, pt.Y+pt.YSE), math.Max(xMax, pt.X+pt.XSE)
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.Colour, Radius: vg.Points(3), Shape: glyphs[i%len(glyphs)]}
		if s.Glyph != nil {
			sc.GlyphStyle.Shape = s.Glyph
		}
		bars := struct {
			plotter.XYs
			plotter.XErrors
		}{xy, xe}
		xb, err := plotter.NewXErrorBars(bars)
		if err != nil {
			return nil, err
		}
		vbars := struct {
			plotter.XYs
			plotter.YErrors
		}{xy, ye}
		yb, err := plotter.NewYErrorBars(vbars)
		if err != nil {
			return nil, err
		}
		xb.LineStyle.Color, yb.LineStyle.Color = s.Colour, s.Colour
		xb.CapWidth, yb.CapWidth = 0, 0
		p.Add(xb, yb, sc)
		thumbs := []plot.Thumbnailer{sc}
		if s.Line && len(xy) > 1 {
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.LineStyle.Color, l.LineStyle.Width = s.Colour, vg.Points(1)
			p.Add(l)
			thumbs = []plot.Thumbnailer{l, sc}
		}
		if slices.ContainsFunc(labels, func(l string) bool { return l != "" }) {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
			if err != nil {
				return nil, err
			}
			for k := range lb.TextStyle {
				lb.TextStyle[k].Color = s.Colour
				lb.TextStyle[k].Font.Size = vg.Points(7)
				lb.TextStyle[k].XAlign = draw.XLeft
			}
			lb.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
			p.Add(lb)
		}
		key.add(s.Name, thumbs...)
	}
	if noise95 > 0 && !math.IsInf(yMin, 0) {
		nl, err := plotter.NewLine(plotter.XYs{{X: noise95, Y: yMin}, {X: noise95, Y: yMax}})
		if err != nil {
			return nil, err
		}
		nl.LineStyle.Color, nl.LineStyle.Dashes = color.Gray{120}, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(nl)
		key.add("noise at the training prevalence: a random ranking's gap, 95th percentile", nl)
	}
	// Room for the labels right of the points and above the highest.
	p.X.Min, p.X.Max = 0, 1.15*math.Max(xMax, noise95)
	if pad := 0.08 * (yMax - yMin); pad > 0 {
		p.Y.Min, p.Y.Max = yMin-pad, yMax+pad
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// Frontier draws FrontierPlot to base+".png" and base+".svg".
func Frontier(title string, series []FrontierSeries, noise95 float64, base string) error {
	p, err := FrontierPlot(title, series, noise95)
	if err != nil {
		return err
	}
	return Save(p, base, 16*vg.Centimeter, 14*vg.Centimeter)
}
