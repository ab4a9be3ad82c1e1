package figures

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A canvas that records where each text lands, for the tests that no text is cut at an
// edge of the figure and that no two texts overlap (tick labels included).

// affine maps (x, y) to (a·x + c·y + e, b·x + d·y + f).
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, d: 1}

func (m affine) apply(p vg.Point) vg.Point {
	x, y := float64(p.X), float64(p.Y)
	return vg.Point{X: vg.Length(m.a*x + m.c*y + m.e), Y: vg.Length(m.b*x + m.d*y + m.f)}
}

// then returns m after the local transform n (n applies first).
func (m affine) then(n affine) affine {
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

// textBox is a text drawn on the figure: its full box (ascent to descent, for the edges)
// and its ink box (about the letters' body, for overlaps: the lines of a multi-line text
// touch in their full boxes).
type textBox struct {
	text      string
	full, ink vg.Rectangle
}

// recCanvas is a vg.Canvas that records texts; it draws nothing.
type recCanvas struct {
	w, h  vg.Length
	m     affine
	stack []affine
	texts []textBox
	fills []vg.Rectangle // bounding boxes of filled paths, in figure coordinates
}

func (r *recCanvas) Size() (vg.Length, vg.Length)       { return r.w, r.h }
func (r *recCanvas) SetLineWidth(vg.Length)             {}
func (r *recCanvas) SetLineDash([]vg.Length, vg.Length) {}
func (r *recCanvas) SetColor(color.Color)               {}
func (r *recCanvas) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	r.m = r.m.then(affine{a: c, b: s, c: -s, d: c})
}
func (r *recCanvas) Translate(p vg.Point) {
	r.m = r.m.then(affine{a: 1, d: 1, e: float64(p.X), f: float64(p.Y)})
}
func (r *recCanvas) Scale(x, y float64)                  { r.m = r.m.then(affine{a: x, d: y}) }
func (r *recCanvas) Push()                               { r.stack = append(r.stack, r.m) }
func (r *recCanvas) Pop()                                { r.m, r.stack = r.stack[len(r.stack)-1], r.stack[:len(r.stack)-1] }
func (r *recCanvas) Stroke(vg.Path)                      {}
func (r *recCanvas) DrawImage(vg.Rectangle, image.Image) {}

func (r *recCanvas) Fill(p vg.Path) {
	var pts []vg.Point
	for _, c := range p {
		if c.Type == vg.MoveComp || c.Type == vg.LineComp {
			pts = append(pts, r.m.apply(c.Pos))
		}
	}
	if len(pts) > 0 {
		r.fills = append(r.fills, bounds(pts))
	}
}

func (r *recCanvas) FillString(f font.Face, pt vg.Point, txt string) {
	ext := f.Extents()
	w := f.Width(txt)
	box := func(lo, hi vg.Length) vg.Rectangle {
		return bounds([]vg.Point{
			r.m.apply(vg.Point{X: pt.X, Y: pt.Y - lo}), r.m.apply(vg.Point{X: pt.X + w, Y: pt.Y - lo}),
			r.m.apply(vg.Point{X: pt.X, Y: pt.Y + hi}), r.m.apply(vg.Point{X: pt.X + w, Y: pt.Y + hi}),
		})
	}
	r.texts = append(r.texts, textBox{text: txt, full: box(ext.Descent, ext.Ascent), ink: box(ext.Descent/2, ext.Ascent*0.8)})
}

func bounds(pts []vg.Point) vg.Rectangle {
	b := vg.Rectangle{Min: pts[0], Max: pts[0]}
	for _, p := range pts[1:] {
		b.Min.X, b.Min.Y = min(b.Min.X, p.X), min(b.Min.Y, p.Y)
		b.Max.X, b.Max.Y = max(b.Max.X, p.X), max(b.Max.Y, p.Y)
	}
	return b
}

// drawRecorded draws a grid as the files are drawn (drawGrid) on a recording canvas.
func drawRecorded(g [][]*plot.Plot, w, h vg.Length) *recCanvas {
	r := &recCanvas{w: w, h: h, m: identity}
	drawGrid(g, draw.New(r))
	return r
}

// overlap is the overlap of two rectangles along x and along y (negative: apart).
func overlap(a, b vg.Rectangle) (vg.Length, vg.Length) {
	return min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X), min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
}

// textProblems lists the texts of a grid drawn at w × h that reach past an edge of the
// figure, and the pairs of texts that overlap.
func textProblems(g [][]*plot.Plot, w, h vg.Length) []string {
	r := drawRecorded(g, w, h)
	const tol = 0.25 // points
	var out []string
	for _, t := range r.texts {
		b := t.full
		if b.Min.X < -tol || b.Min.Y < -tol || b.Max.X > w+tol || b.Max.Y > h+tol {
			out = append(out, fmt.Sprintf("%q at x %.1f–%.1f, y %.1f–%.1f pt: past the figure's edge (%.1f × %.1f pt)", t.text, b.Min.X, b.Max.X, b.Min.Y, b.Max.Y, w, h))
		}
	}
	for i, a := range r.texts {
		for _, b := range r.texts[i+1:] {
			if x, y := overlap(a.ink, b.ink); x > tol && y > tol {
				out = append(out, fmt.Sprintf("%q and %q overlap (%.1f × %.1f pt)", a.text, b.text, x, y))
			}
		}
	}
	return out
}

// checkLegible fails t for each text problem of a grid drawn at w × h (textProblems), and
// for each legend (right or below) that covers a data area or reaches past the figure; it
// returns the share of the figure's area the legends take.
func checkLegible(t *testing.T, name string, g [][]*plot.Plot, w, h vg.Length) float64 {
	t.Helper()
	for _, p := range textProblems(g, w, h) {
		t.Errorf("%s: %s", name, p)
	}
	dc := draw.New(&recCanvas{w: w, h: h, m: identity})
	plotCs, legendCs, belowCs := layoutGrid(g, dc)
	var datas, legends []vg.Rectangle
	var area vg.Length
	for i, r := range g {
		for j, p := range r {
			if p == nil {
				continue
			}
			datas = append(datas, p.DataCanvas(plotCs[i][j]).Rectangle)
			for _, lc := range []draw.Canvas{legendCs[i][j], belowCs[i][j]} {
				s := lc.Size()
				if s.X > 0 && s.Y > 0 {
					legends = append(legends, lc.Rectangle)
					area += s.X * s.Y
				}
			}
		}
	}
	for _, l := range legends {
		if l.Min.X < 0 || l.Min.Y < 0 || l.Max.X > w || l.Max.Y > h {
			t.Errorf("%s: a legend at %v reaches past the figure", name, l)
		}
		for _, d := range datas {
			if x, y := overlap(l, d); x > 0.5 && y > 0.5 {
				t.Errorf("%s: a legend at %v covers the data area %v", name, l, d)
			}
		}
	}
	return float64(area / (w * h))
}

// TestRecorderCatchesProblems: the checks fail for a title wider than the figure drawn
// without wrapping, and for two texts on top of each other.
func TestRecorderCatchesProblems(t *testing.T) {
	p := plot.New()
	p.Title.Text = "a title far too long for a figure one inch wide, so that it must be cut"
	if got := textProblems([][]*plot.Plot{{p}}, vg.Inch, vg.Inch); len(got) == 0 {
		t.Error("a title wider than the figure passed")
	}
	q := plot.New()
	q.X.Label.Text = "same"
	q.Y.Label.Text = "y"
	q.X.Min, q.X.Max, q.Y.Min, q.Y.Max = 0, 1, 0, 1
	q.NominalX("long label one", "long label two", "long label three")
	if got := textProblems([][]*plot.Plot{{q}}, vg.Inch, vg.Inch); len(got) == 0 {
		t.Error("overlapping tick labels passed")
	}
	if got := textProblems([][]*plot.Plot{{q, q}}, 8*vg.Inch, 3*vg.Inch); len(got) != 0 {
		t.Errorf("a legible plot fails: %v", got)
	}
}

// TestBelowLegendLayout: entries flow left to right and wrap at the width, a line break and
// a note start a row, a note wraps at the width, and every entry lies within the width.
func TestBelowLegendLayout(t *testing.T) {
	p := legiblePlot("", "", "")
	l := legendBelow(p)
	if legendBelow(p) != l || belowOf(p) != l || belowOf(plot.New()) != nil {
		t.Fatal("legendBelow does not return the plot's one legend")
	}
	key := hLine(0, 1.2, Black)
	l.add("first", key)
	l.add("second", key)
	l.newline()
	l.add("third", key)
	l.note(strings.Repeat("a note long enough to wrap ", 6))
	sty, thumbW := legendStyle(p)
	width := 4 * vg.Inch
	items, h := l.layout(sty, thumbW, width)
	rows := map[vg.Length]int{}
	for _, it := range items {
		rows[it.at.Y]++
		if end := it.at.X + sty.Width(it.text); end > width || it.at.X < 0 {
			t.Errorf("%q spans x %v–%v, outside 0–%v", it.text, it.at.X, end, width)
		}
	}
	if items[0].at.Y != items[1].at.Y || items[2].at.Y >= items[1].at.Y || items[3].at.Y >= items[2].at.Y {
		t.Errorf("rows: %v", items)
	}
	if len(items) < 5 || len(rows) < 4 || h <= 0 {
		t.Errorf("%d items in %d rows, height %v: the note did not wrap", len(items), len(rows), h)
	}
	// Below a single plot: under its data area, inside the figure.
	p.Title.Text = "a plot"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	checkLegible(t, "single plot", [][]*plot.Plot{{p}}, 6*vg.Inch, 4*vg.Inch)
}
