package figures

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/results"
)

// The marks of our seeds in the results and objectives figures: a dot per seed and their
// median, and the legend keys that name them.

// Sizes of seedMarks, in points.
const (
	seedRadius = 2.6
	meanHalf   = 9   // half-width of the bar (the median, or the mean)
	meanWidth  = 2.5 // thickness of the bar
)

// seedMarks draws, per method, each seed's value as a small dot in the method's colour
// (spread sideways around x, in the rows' order, so that equal values stay apart) and the
// seeds' median as a horizontal bar, left out where the two middle seeds of an even number
// lie more than SplitGap apart (it would mark a value between two groups of seeds). A method
// without per-seed values is drawn as its mean (the bar) ± sd (a whisker). Marks beyond the
// y axis range are drawn on the edge: a seed as a small triangle, the bar as a triangle
// with its value printed left of it, a cut whisker as an open triangle.
type seedMarks struct{ entries []seedEntry }

type seedEntry struct {
	x       float64
	mid     float64 // the bar: the seeds' median, or the mean without seeds
	showMid bool
	lo, hi  float64 // the whisker (mean ± sd, without seeds); lo == hi: none
	seeds   []float64
	color   color.Color
}

// add appends a method's marks at x: the seeds' values and their median, or without seeds
// c's mean ± sd.
func (m *seedMarks) add(x float64, c results.Cell, seeds []float64, col color.Color) {
	e := seedEntry{x: x, mid: c.Mean, showMid: true, lo: c.Mean - c.Std, hi: c.Mean + c.Std, seeds: seeds, color: col}
	switch {
	case len(seeds) > 0:
		e.mid, e.lo, e.hi = median(seeds), 0, 0
		v := slices.Sorted(slices.Values(seeds))
		if n := len(v); n%2 == 0 && v[n/2]-v[n/2-1] > SplitGap {
			e.showMid = false
		}
	case math.IsNaN(c.Mean): // nothing to draw (none among differences from none)
		e.showMid, e.lo, e.hi = false, 0, 0
	}
	m.entries = append(m.entries, e)
}

// median is the median of v (the mean of the two middle values of an even number); v must
// not be empty.
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// distinct returns the keys of xs in the order they first come, each once.
func distinct[T any, K comparable](xs []T, key func(T) K) []K {
	var out []K
	for _, x := range xs {
		if k := key(x); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
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
		case !e.showMid:
		case e.mid > ymax || e.mid < ymin:
			g := draw.GlyphStyle{Color: e.color, Radius: vg.Points(4), Shape: draw.TriangleGlyph{}}
			edge, at, sty := trY(ymax)-g.Radius, trY(ymax)-vg.Points(1), label
			sty.YAlign = draw.YTop
			if e.mid < ymin {
				g.Shape = triangleDown{}
				edge, at = trY(ymin)+g.Radius, trY(ymin)+vg.Points(1)
				sty.YAlign = draw.YBottom
			}
			c.DrawGlyph(g, vg.Point{X: x, Y: edge})
			sty.Color = e.color
			c.FillText(sty, vg.Point{X: x - g.Radius - vg.Points(1), Y: at}, trim3(e.mid))
		default:
			bar := draw.LineStyle{Color: e.color, Width: vg.Points(meanWidth)}
			c.StrokeLine2(bar, x-vg.Points(meanHalf), trY(e.mid), x+vg.Points(meanHalf), trY(e.mid))
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
	keyMean   = iota // our mean ± sd: a bar on a whisker
	keySeed          // our seeds: dots in the methods' colours
	keyMedian        // the seeds' median: a bar
)

// legendKey is the legend thumbnail of a mark drawn in each method's colour: for keySeed,
// one dot per colour of colors (three methods' colours when nil).
type legendKey struct {
	kind   int
	colors []color.Color
}

// Thumbnail implements plot.Thumbnailer.
func (k legendKey) Thumbnail(c *draw.Canvas) {
	mid := c.Center()
	switch k.kind {
	case keyMean, keyMedian:
		if k.kind == keyMean { // the whisker
			c.StrokeLine2(draw.LineStyle{Color: KeyColor, Width: vg.Points(1.4)}, mid.X, c.Min.Y, mid.X, c.Max.Y)
		}
		bar := draw.LineStyle{Color: KeyColor, Width: vg.Points(meanWidth)}
		c.StrokeLine2(bar, mid.X-vg.Points(meanHalf), mid.Y, mid.X+vg.Points(meanHalf), mid.Y)
	case keySeed:
		cols := k.colors
		if cols == nil {
			cols = []color.Color{Blue, Vermillion, BluishGreen}
		}
		for i, col := range cols {
			g := draw.GlyphStyle{Color: col, Radius: vg.Points(seedRadius), Shape: ringedCircle{}}
			c.DrawGlyph(g, vg.Point{X: mid.X + vg.Points(6)*(vg.Length(i)-vg.Length(len(cols)-1)/2), Y: mid.Y})
		}
	}
}
