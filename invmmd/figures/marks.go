package figures

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/results"
)

// Marks shared by the results and variance figures: dots with whiskers that stay inside the
// axis range (a value beyond it becomes a triangle at the edge with its value printed),
// labelled horizontal reference lines, and shaded bands.

// dotWhiskers draws, at each x, a glyph at y with a whisker from lo to hi. Points and
// whiskers outside the y axis range are clipped to it; a point outside is drawn as a
// triangle on the edge it crossed, with its value printed next to it, so that an
// off-scale value is shown rather than hidden or allowed to squash the axis.
type dotWhiskers struct {
	x, y, lo, hi []float64
	glyph        draw.GlyphStyle
	whisker      draw.LineStyle
	capWidth     vg.Length
	label        draw.TextStyle // for off-scale values
	labelLeft    bool           // print off-scale values left of the triangle (else right)
	format       func(float64) string
}

func newDotWhiskers(c color.Color, shape draw.GlyphDrawer, filled bool) *dotWhiskers {
	g := draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: shape}
	if !filled {
		g.Shape = hollow{shape}
	}
	label := plot.New().X.Tick.Label // the default tick label font
	label.Color = c
	return &dotWhiskers{
		glyph:    g,
		whisker:  draw.LineStyle{Color: c, Width: vg.Points(1.2)},
		capWidth: vg.Points(6),
		label:    label,
		format:   func(v float64) string { return trim3(v) },
	}
}

// add appends a point with a symmetric whisker of half-width e (0: none).
func (d *dotWhiskers) add(x, y, e float64) {
	d.x, d.y, d.lo, d.hi = append(d.x, x), append(d.y, y), append(d.lo, y-e), append(d.hi, y+e)
}

// Plot implements plot.Plotter.
func (d *dotWhiskers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ymin, ymax := p.Y.Min, p.Y.Max
	for i := range d.x {
		x := trX(d.x[i])
		lo, hi := math.Max(d.lo[i], ymin), math.Min(d.hi[i], ymax)
		if hi > lo && d.hi[i] > d.lo[i] {
			c.StrokeLine2(d.whisker, x, trY(lo), x, trY(hi))
			for _, v := range []float64{d.lo[i], d.hi[i]} {
				if v >= ymin && v <= ymax {
					c.StrokeLine2(d.whisker, x-d.capWidth/2, trY(v), x+d.capWidth/2, trY(v))
				}
			}
		}
		y := d.y[i]
		switch {
		case y < ymin:
			g := d.glyph
			g.Shape = triangleDown{}
			pt := vg.Point{X: x, Y: trY(ymin) + g.Radius}
			c.DrawGlyph(g, pt)
			sty, at := d.offLabel(x, g.Radius)
			sty.YAlign = draw.YBottom
			c.FillText(sty, vg.Point{X: at, Y: trY(ymin) + vg.Points(1)}, d.format(y))
		case y > ymax:
			g := d.glyph
			g.Shape = draw.TriangleGlyph{}
			pt := vg.Point{X: x, Y: trY(ymax) - g.Radius}
			c.DrawGlyph(g, pt)
			sty, at := d.offLabel(x, g.Radius)
			sty.YAlign = draw.YTop
			c.FillText(sty, vg.Point{X: at, Y: trY(ymax) - vg.Points(1)}, d.format(y))
		default:
			c.DrawGlyph(d.glyph, vg.Point{X: x, Y: trY(y)})
		}
	}
}

// offLabel returns the style and x position of an off-scale value's label beside the
// triangle at x.
func (d *dotWhiskers) offLabel(x, r vg.Length) (draw.TextStyle, vg.Length) {
	sty := d.label
	if d.labelLeft {
		sty.XAlign = draw.XRight
		return sty, x - r - vg.Points(1)
	}
	sty.XAlign = draw.XLeft
	return sty, x + r + vg.Points(1)
}

// Thumbnail implements plot.Thumbnailer: the glyph on a short whisker.
func (d *dotWhiskers) Thumbnail(c *draw.Canvas) {
	mid := c.Center()
	c.StrokeLine2(d.whisker, mid.X, c.Min.Y, mid.X, c.Max.Y)
	c.DrawGlyph(d.glyph, mid)
}

// hollow draws a shape as an outline on a white fill, so that it stays visible on top of
// another mark.
type hollow struct{ draw.GlyphDrawer }

func (h hollow) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	white := sty
	white.Color = color.White
	white.Radius = sty.Radius * 0.9
	h.GlyphDrawer.DrawGlyph(c, white, pt)
	ring := sty
	ring.Shape = outline(h.GlyphDrawer)
	ring.Shape.DrawGlyph(c, ring, pt)
}

// outline returns the ring version of a filled shape.
func outline(g draw.GlyphDrawer) draw.GlyphDrawer {
	switch g.(type) {
	case draw.CircleGlyph:
		return draw.RingGlyph{}
	case draw.SquareGlyph:
		return draw.BoxGlyph{}
	case draw.TriangleGlyph:
		return draw.PyramidGlyph{}
	case diamond:
		return diamondRing{}
	}
	return g
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

// diamond is a filled diamond (the paper's values); diamondRing its outline.
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

type diamondRing struct{}

func (diamondRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.2)})
	c.Stroke(diamondPath(pt, sty.Radius*1.2))
}

// hline is a horizontal reference line across the data area, e.g. chance accuracy.
type hline struct {
	y     float64
	style draw.LineStyle
}

func newHLine(y float64, c color.Color, dashes ...vg.Length) *hline {
	return &hline{y: y, style: draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: dashes}}
}

// Plot implements plot.Plotter; a line outside the axis range is not drawn.
func (l *hline) Plot(c draw.Canvas, p *plot.Plot) {
	if l.y < p.Y.Min || l.y > p.Y.Max {
		return
	}
	_, trY := p.Transforms(&c)
	y := trY(l.y)
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}

// Thumbnail implements plot.Thumbnailer.
func (l *hline) Thumbnail(c *draw.Canvas) {
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

// columnShade fills the whole height of the data area over [x−half, x+half] at each x
// (clipped to the x axis range): a mark of the values at those x, such as the batch sizes
// of the variance study whose estimates rest on a floored normaliser.
type columnShade struct {
	x    []float64
	half float64
	fill color.Color
}

// Plot implements plot.Plotter.
func (s *columnShade) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	c.SetColor(s.fill)
	for _, x := range s.x {
		lo, hi := math.Max(x-s.half, p.X.Min), math.Min(x+s.half, p.X.Max)
		if lo >= hi {
			continue
		}
		r := vg.Rectangle{Min: vg.Point{X: trX(lo), Y: c.Min.Y}, Max: vg.Point{X: trX(hi), Y: c.Max.Y}}
		c.Fill(r.Path())
	}
}

// Thumbnail implements plot.Thumbnailer: a block of the shade.
func (s *columnShade) Thumbnail(c *draw.Canvas) {
	c.SetColor(s.fill)
	c.Fill(c.Rectangle.Path())
}

// clippedLine is a polyline clipped to the y axis range, with the points beyond the range
// drawn as triangles on the edge they crossed. With every > 1 the glyph marks only every
// every-th point from offset (the triangles mark every point beyond the range); a glyph of
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
			g.Shape, g.Radius = draw.TriangleGlyph{}, vg.Points(3.5)
			pts[i].Y -= g.Radius
		case xy.Y < ymin:
			g.Shape, g.Radius = triangleDown{}, vg.Points(3.5)
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

// clipped counts the points of the line beyond the y range [lo, hi].
func (l *clippedLine) clipped(lo, hi float64) int {
	n := 0
	for _, xy := range l.xys {
		if xy.Y < lo || xy.Y > hi {
			n++
		}
	}
	return n
}

// trim3 formats v with three decimals, or fewer significant digits for large values.
func trim3(v float64) string {
	if math.Abs(v) >= 10 {
		return plotFormat(v, 1)
	}
	return plotFormat(v, 3)
}

// Sizes of seedMarks, in points.
const (
	seedRadius = 2.6
	meanHalf   = 9   // half-width of the mean's bar
	meanWidth  = 2.5 // thickness of the mean's bar
)

// seedMarks draws, per method, each seed's value as a small dot in the method's colour
// (spread sideways around x, in the rows' order, so that equal values stay apart), the mean
// as a horizontal bar and the standard deviation as a whisker clipped to the seeds' range.
// Marks beyond the y axis range are drawn on the edge: a seed as a small triangle, the mean
// as a triangle with its value printed left of it, a cut whisker as an open triangle.
type seedMarks struct{ entries []seedEntry }

type seedEntry struct {
	x            float64
	mean, lo, hi float64 // the whisker: mean ± sd, clipped to the seeds' range
	seeds        []float64
	color        color.Color
}

// add appends a method's marks at x: c's mean ± sd and the seeds' values (none: the mean ±
// sd alone).
func (m *seedMarks) add(x float64, c results.Cell, seeds []float64, col color.Color) {
	e := seedEntry{x: x, mean: c.Mean, lo: c.Mean - c.Std, hi: c.Mean + c.Std, seeds: seeds, color: col}
	if len(seeds) > 0 {
		e.lo, e.hi = math.Max(e.lo, slices.Min(seeds)), math.Min(e.hi, slices.Max(seeds))
	}
	m.entries = append(m.entries, e)
}

// hasSeeds says whether any method has per-seed values.
func (m *seedMarks) hasSeeds() bool {
	for _, e := range m.entries {
		if len(e.seeds) > 0 {
			return true
		}
	}
	return false
}

// seedX returns the x of the k-th of n seeds of a method drawn at x.
func seedX(x float64, k, n int) float64 {
	if n < 2 {
		return x
	}
	return x - seedHalf + 2*seedHalf*float64(k)/float64(n-1)
}

// Plot implements plot.Plotter.
func (m *seedMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ymin, ymax := p.Y.Min, p.Y.Max
	label := plot.New().Y.Tick.Label
	label.Font.Size = vg.Points(tickSize - 1)
	label.XAlign = draw.XRight
	for _, e := range m.entries {
		x := trX(e.x)
		whisker := draw.LineStyle{Color: e.color, Width: vg.Points(1.4)}
		if e.hi > e.lo && e.hi >= ymin && e.lo <= ymax {
			lo, hi := math.Max(e.lo, ymin), math.Min(e.hi, ymax)
			c.StrokeLine2(whisker, x, trY(lo), x, trY(hi))
			for _, v := range []float64{e.lo, e.hi} {
				if v >= ymin && v <= ymax {
					c.StrokeLine2(whisker, x-vg.Points(4), trY(v), x+vg.Points(4), trY(v))
				}
			}
			open := draw.GlyphStyle{Color: e.color, Radius: vg.Points(3.5)}
			if e.hi > ymax {
				open.Shape = draw.PyramidGlyph{}
				c.DrawGlyph(open, vg.Point{X: x, Y: trY(ymax) - open.Radius})
			}
			if e.lo < ymin {
				open.Shape = triangleDownRing{}
				c.DrawGlyph(open, vg.Point{X: x, Y: trY(ymin) + open.Radius})
			}
		}
		switch {
		case e.mean > ymax || e.mean < ymin:
			g := draw.GlyphStyle{Color: e.color, Radius: vg.Points(4), Shape: draw.TriangleGlyph{}}
			edge, at, sty := trY(ymax)-g.Radius, trY(ymax)-vg.Points(1), label
			sty.YAlign = draw.YTop
			if e.mean < ymin {
				g.Shape = triangleDown{}
				edge, at = trY(ymin)+g.Radius, trY(ymin)+vg.Points(1)
				sty.YAlign = draw.YBottom
			}
			c.DrawGlyph(g, vg.Point{X: x, Y: edge})
			sty.Color = e.color
			c.FillText(sty, vg.Point{X: x - g.Radius - vg.Points(1), Y: at}, trim3(e.mean))
		default:
			bar := draw.LineStyle{Color: e.color, Width: vg.Points(meanWidth)}
			c.StrokeLine2(bar, x-vg.Points(meanHalf), trY(e.mean), x+vg.Points(meanHalf), trY(e.mean))
		}
		dot := draw.GlyphStyle{Color: withAlpha(e.color, 215), Radius: vg.Points(seedRadius), Shape: ringedCircle{}}
		for k, v := range e.seeds {
			pt := vg.Point{X: trX(seedX(e.x, k, len(e.seeds)))}
			g := dot
			switch {
			case v > ymax:
				g.Shape, g.Color = draw.TriangleGlyph{}, e.color
				pt.Y = trY(ymax) - g.Radius
			case v < ymin:
				g.Shape, g.Color = triangleDown{}, e.color
				pt.Y = trY(ymin) + g.Radius
			default:
				pt.Y = trY(v)
			}
			c.DrawGlyph(g, pt)
		}
	}
}

// GlyphBoxes implements plot.GlyphBoxer: one box per seed drawn inside the axis range, so
// that a dot on the edge of the data area is not cut.
func (m *seedMarks) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	r := vg.Points(seedRadius)
	for _, e := range m.entries {
		for k, v := range e.seeds {
			if v < p.Y.Min || v > p.Y.Max {
				continue
			}
			boxes = append(boxes, plot.GlyphBox{
				X: p.X.Norm(seedX(e.x, k, len(e.seeds))), Y: p.Y.Norm(v),
				Rectangle: vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}},
			})
		}
	}
	return boxes
}

// ringedCircle is a filled circle with a thin white ring, so that overlapping dots stay
// apart.
type ringedCircle struct{}

func (ringedCircle) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	draw.CircleGlyph{}.DrawGlyph(c, sty, pt)
	ring := sty
	ring.Color = color.White
	c.SetLineStyle(draw.LineStyle{Color: color.White, Width: vg.Points(0.5)})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// triangleDownRing is the outline of triangleDown: a whisker cut by the bottom of the axis.
type triangleDownRing struct{}

func (triangleDownRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1)})
	c.Stroke(triangleDownPath(pt, sty.Radius))
}

// Kinds of legendKey.
const (
	keyMean = iota // our mean ± sd: a bar on a whisker
	keySeed        // our seeds: dots in three methods' colours
)

// legendKey is the legend thumbnail of a mark drawn in each method's colour.
type legendKey struct{ kind int }

// Thumbnail implements plot.Thumbnailer.
func (k legendKey) Thumbnail(c *draw.Canvas) {
	mid := c.Center()
	switch k.kind {
	case keyMean:
		w := draw.LineStyle{Color: KeyColor, Width: vg.Points(1.4)}
		c.StrokeLine2(w, mid.X, c.Min.Y, mid.X, c.Max.Y)
		bar := draw.LineStyle{Color: KeyColor, Width: vg.Points(meanWidth)}
		c.StrokeLine2(bar, mid.X-vg.Points(meanHalf), mid.Y, mid.X+vg.Points(meanHalf), mid.Y)
	case keySeed:
		for i, col := range []color.Color{Blue, Vermillion, BluishGreen} {
			g := draw.GlyphStyle{Color: col, Radius: vg.Points(seedRadius), Shape: ringedCircle{}}
			c.DrawGlyph(g, vg.Point{X: mid.X + vg.Points(6)*vg.Length(i-1), Y: mid.Y})
		}
	}
}
