package figures

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Marks shared by the figures: whiskers, reference lines, bands, shades and lines that stay
// inside the axis range, a value beyond it marked on the edge.

// dotWhiskers draws the paper's values in PaperColor: at each x, an open diamond at y with a
// whisker from lo to hi (the paper's mean ± sd). Points and whiskers outside the y axis range
// are clipped to it; a point outside is drawn as a triangle on the edge it crossed, with its
// value printed right of it, so that an off-scale value is shown rather than hidden or
// allowed to squash the axis.
type dotWhiskers struct{ x, y, lo, hi []float64 }

// The glyph and whisker of dotWhiskers.
var (
	paperGlyph   = draw.GlyphStyle{Color: PaperColor, Radius: vg.Points(3.5), Shape: hollowDiamond{}}
	paperWhisker = draw.LineStyle{Color: PaperColor, Width: vg.Points(1)}
)

// add appends a point with a symmetric whisker of half-width e (0: none).
func (d *dotWhiskers) add(x, y, e float64) {
	d.x, d.y, d.lo, d.hi = append(d.x, x), append(d.y, y), append(d.lo, y-e), append(d.hi, y+e)
}

// Plot implements plot.Plotter.
func (d *dotWhiskers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ymin, ymax := p.Y.Min, p.Y.Max
	label := plot.New().X.Tick.Label // the default tick label font, for off-scale values
	label.Color, label.XAlign = PaperColor, draw.XLeft
	for i := range d.x {
		x := trX(d.x[i])
		lo, hi := math.Max(d.lo[i], ymin), math.Min(d.hi[i], ymax)
		if hi > lo && d.hi[i] > d.lo[i] {
			c.StrokeLine2(paperWhisker, x, trY(lo), x, trY(hi))
			for _, v := range []float64{d.lo[i], d.hi[i]} {
				if v >= ymin && v <= ymax {
					c.StrokeLine2(paperWhisker, x-vg.Points(3), trY(v), x+vg.Points(3), trY(v))
				}
			}
		}
		y, g, sty := d.y[i], paperGlyph, label
		at := vg.Point{X: x + g.Radius + vg.Points(1)} // an off-scale value's label
		switch {
		case y < ymin:
			g.Shape, sty.YAlign, at.Y = triangleDown{}, draw.YBottom, trY(ymin)+vg.Points(1)
			c.DrawGlyph(g, vg.Point{X: x, Y: trY(ymin) + g.Radius})
		case y > ymax:
			g.Shape, sty.YAlign, at.Y = draw.TriangleGlyph{}, draw.YTop, trY(ymax)-vg.Points(1)
			c.DrawGlyph(g, vg.Point{X: x, Y: trY(ymax) - g.Radius})
		default:
			c.DrawGlyph(g, vg.Point{X: x, Y: trY(y)})
			continue
		}
		c.FillText(sty, at, trim3(y))
	}
}

// Thumbnail implements plot.Thumbnailer: the glyph on a short whisker.
func (d *dotWhiskers) Thumbnail(c *draw.Canvas) {
	mid := c.Center()
	c.StrokeLine2(paperWhisker, mid.X, c.Min.Y, mid.X, c.Max.Y)
	c.DrawGlyph(paperGlyph, mid)
}

// triangleDown is a filled triangle pointing down: a value below the axis.
type triangleDown struct{}

func (triangleDown) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	c.Fill(triangleDownPath(pt, sty.Radius))
}

// triangleDownPath is the outline of a triangle of radius r pointing down at pt.
func triangleDownPath(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r*0.7})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y + r*0.7})
	p.Close()
	return p
}

// diamond is a filled diamond.
type diamond struct{}

func diamondPath(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	return p
}

func (diamond) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	c.Fill(diamondPath(pt, sty.Radius*1.2))
}

// hollowDiamond is a diamond's outline on a white fill (the paper's values), so that it
// stays visible on top of another mark.
type hollowDiamond struct{}

func (hollowDiamond) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(color.White)
	c.Fill(diamondPath(pt, sty.Radius*0.9*1.2))
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.2)})
	c.Stroke(diamondPath(pt, sty.Radius*1.2))
}

// refLine is a reference line across the data area: horizontal at v (e.g. chance accuracy),
// not drawn outside the y axis range, or vertical when vertical is set (e.g. α).
type refLine struct {
	v        float64
	vertical bool
	style    draw.LineStyle
}

// hLine is a horizontal refLine at y, width points wide.
func hLine(y, width float64, c color.Color, dashes ...vg.Length) *refLine {
	return &refLine{v: y, style: draw.LineStyle{Color: c, Width: vg.Points(width), Dashes: dashes}}
}

// Plot implements plot.Plotter.
func (l *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	switch {
	case l.vertical:
		c.StrokeLine2(l.style, trX(l.v), c.Min.Y, trX(l.v), c.Max.Y)
	case l.v >= p.Y.Min && l.v <= p.Y.Max:
		c.StrokeLine2(l.style, c.Min.X, trY(l.v), c.Max.X, trY(l.v))
	}
}

// Thumbnail implements plot.Thumbnailer.
func (l *refLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}

// band is a shaded area between lo and hi over x, clipped to the y axis range; with a
// line along mid it makes a legend entry of the line on its band.
type band struct {
	x, lo, hi []float64
	fill      color.Color
}

// Plot implements plot.Plotter.
func (b *band) Plot(c draw.Canvas, p *plot.Plot) {
	if len(b.x) < 2 {
		return
	}
	trX, trY := p.Transforms(&c)
	clip := func(v float64) float64 { return math.Min(math.Max(v, p.Y.Min), p.Y.Max) }
	var path vg.Path
	for i := range b.x {
		pt := vg.Point{X: trX(b.x[i]), Y: trY(clip(b.hi[i]))}
		if i == 0 {
			path.Move(pt)
		} else {
			path.Line(pt)
		}
	}
	for i := len(b.x) - 1; i >= 0; i-- {
		path.Line(vg.Point{X: trX(b.x[i]), Y: trY(clip(b.lo[i]))})
	}
	path.Close()
	c.SetColor(b.fill)
	c.Fill(path)
}

// Thumbnail implements plot.Thumbnailer.
func (b *band) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	r.Min.Y += (r.Max.Y - r.Min.Y) / 4
	r.Max.Y -= (r.Max.Y - r.Min.Y) / 3
	c.SetColor(b.fill)
	c.Fill(r.Path())
}

// columnShade fills the whole height of the data area over each span of x (clipped to the x
// axis range): the valid values of the calibration figures or, hatched when hatch is set,
// a mark of the values in the spans that no shaded band can be taken for, such as the batch
// sizes of the variance study whose estimates rest on a floored normaliser.
type columnShade struct {
	spans [][2]float64
	fill  color.Color
	hatch bool
}

// hatchColor and hatchStep are the colour and spacing of columnShade's diagonal hatching.
var (
	hatchColor color.Color = color.RGBA{150, 150, 150, 255}
	hatchStep              = vg.Points(4)
)

// Plot implements plot.Plotter.
func (s *columnShade) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, x := range s.spans {
		lo, hi := math.Max(x[0], p.X.Min), math.Min(x[1], p.X.Max)
		if lo >= hi {
			continue
		}
		s.fillRect(&c, vg.Rectangle{Min: vg.Point{X: trX(lo), Y: c.Min.Y}, Max: vg.Point{X: trX(hi), Y: c.Max.Y}})
	}
}

// fillRect fills r, then hatches it when s.hatch is set: lines at 45°, hatchStep apart
// along x, cut to r.
func (s *columnShade) fillRect(c *draw.Canvas, r vg.Rectangle) {
	c.SetColor(s.fill)
	c.Fill(r.Path())
	if !s.hatch {
		return
	}
	sty := draw.LineStyle{Color: hatchColor, Width: vg.Points(0.6)}
	h := r.Max.Y - r.Min.Y
	// Each line is y − r.Min.Y = x − x0, for x0 from r.Min.X − h to r.Max.X.
	for x0 := r.Min.X - h; x0 < r.Max.X; x0 += hatchStep {
		x1, x2 := max(x0, r.Min.X), min(x0+h, r.Max.X)
		if x2 <= x1 {
			continue
		}
		c.StrokeLine2(sty, x1, r.Min.Y+(x1-x0), x2, r.Min.Y+(x2-x0))
	}
}

// Thumbnail implements plot.Thumbnailer: a block of the hatched shade, a band's key of a plain one.
func (s *columnShade) Thumbnail(c *draw.Canvas) {
	if !s.hatch {
		(&band{fill: s.fill}).Thumbnail(c)
		return
	}
	s.fillRect(c, c.Rectangle)
}

// edgeArrow marks a value beyond the axis: an arrow pointing out of the plot (up when up is
// true), its tip on the edge, so that it cannot be read as a data marker (the triangles some
// estimators are drawn with).
type edgeArrow struct{ up bool }

// DrawGlyph implements draw.GlyphDrawer: a shaft of 2r and an open head of r.
func (a edgeArrow) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	dir := vg.Length(1)
	if !a.up {
		dir = -1
	}
	tip := vg.Point{X: pt.X, Y: pt.Y + dir*r}
	ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(1.3)}
	c.StrokeLine2(ls, pt.X, pt.Y-dir*r, tip.X, tip.Y)
	c.StrokeLines(ls, []vg.Point{{X: tip.X - r*0.7, Y: tip.Y - dir*r*0.7}, tip, {X: tip.X + r*0.7, Y: tip.Y - dir*r*0.7}})
}

// clippedLine is a polyline clipped to the y axis range, with the points beyond the range
// drawn as arrows (edgeArrow) on the edge they crossed. With every > 1 the glyph marks only every
// every-th point from offset (the arrows mark every point beyond the range); a glyph of
// radius 0 is not drawn.
type clippedLine struct {
	xys           plotter.XYs
	line          draw.LineStyle
	glyph         draw.GlyphStyle
	every, offset int
}

// Plot implements plot.Plotter.
func (l *clippedLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ymin, ymax := p.Y.Min, p.Y.Max
	var pts []vg.Point
	for _, xy := range l.xys {
		y := math.Min(math.Max(xy.Y, ymin), ymax)
		pts = append(pts, vg.Point{X: trX(xy.X), Y: trY(y)})
	}
	c.StrokeLines(l.line, pts)
	for i, xy := range l.xys {
		g := l.glyph
		switch {
		case xy.Y > ymax:
			g.Shape, g.Radius = edgeArrow{up: true}, vg.Points(4)
			pts[i].Y -= g.Radius
		case xy.Y < ymin:
			g.Shape, g.Radius = edgeArrow{up: false}, vg.Points(4)
			pts[i].Y += g.Radius
		default:
			if g.Radius == 0 || g.Shape == nil || (l.every > 1 && (i-l.offset)%l.every != 0) {
				continue
			}
		}
		c.DrawGlyph(g, pts[i])
	}
}

// Thumbnail implements plot.Thumbnailer.
func (l *clippedLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.line, c.Min.X, y, c.Max.X, y)
	if l.glyph.Radius > 0 && l.glyph.Shape != nil {
		c.DrawGlyph(l.glyph, c.Center())
	}
}

// hGrid is a grid of light horizontal lines only, behind a panel's marks.
func hGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Width = 0
	g.Horizontal.Color = color.Gray{Y: 225}
	return g
}

// trim3 formats v with three decimals, or fewer significant digits for large values.
func trim3(v float64) string {
	if math.Abs(v) >= 10 {
		return plotFormat(v, 1)
	}
	return plotFormat(v, 3)
}
