package figures

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/results"
)

// Size of the calibration figure (Calibration): two rows of two panels, legible when a
// README shows it 900 pixels wide.
const (
	CalibrationWidth  = 10 * vg.Inch
	CalibrationHeight = 7.5 * vg.Inch
)

// SizeBand is the range of null rejection rates at α = 0.05 that the calibration study
// accepts at its larger sample size ([0.03, 0.07]), drawn as a band in the size panel.
var SizeBand = [2]float64{0.03, 0.07}

// routeDashes draw a test's route: the cross route solid (none here), the wild bootstrap
// dashed, the permutation test dotted; the method gives the colour (MethodColor).
var routeDashes = map[string][]vg.Length{"wild": {vg.Points(6), vg.Points(3)}, "permutation": {vg.Points(1.5), vg.Points(2.5)}}

// methodShapes are the calibration figure's marker shapes, one per method, so that tests
// whose colours are near (dr's vermillion and obs's orange) or whose lines lie on each other
// (dr's and full's on the QQ plot's diagonal) stay apart without colour; the route is the
// line's dashes (routeDashes).
var methodShapes = map[method.Method]draw.GlyphDrawer{
	method.Full: draw.CircleGlyph{},
	method.DR:   draw.BoxGlyph{},     // filled (gonum's SquareGlyph is an outline)
	method.Obs:  diamond{},           // filled
	method.Reg:  draw.PyramidGlyph{}, // filled (gonum's TriangleGlyph is an outline)
	method.IP:   triangleDown{},
}

// testStyle returns the line and glyph of a test "method/route": the method's colour
// (MethodColor) and marker (methodShapes), the route's dashes.
func testStyle(name, route string) (draw.LineStyle, draw.GlyphStyle) {
	c := methodColorOr(name, Grey)
	m, err := method.Parse(name)
	shape, ok := methodShapes[m]
	if err != nil || !ok {
		shape = draw.CrossGlyph{}
	}
	return draw.LineStyle{Color: c, Width: vg.Points(1.8), Dashes: routeDashes[route]},
		draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: shape}
}

// Calibration returns the panels of the invariance test's calibration study: (top left) each
// test's rejection rate under the null at every sample size, with a 95 % binomial interval,
// α and the accepted band; (top right) the QQ plot of the null p-values at the largest size
// against the uniform; (bottom) the power curves against the dependence strength δ at the
// smallest and the largest sample size. Each test has its method's colour and marker and its
// route's dashes; the QQ plot and the first power panel each have their key beside them.
func Calibration(rows []results.CalibrationRow, null []results.CalibrationP, alpha float64) ([][]*plot.Plot, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("figures: Calibration: no rows")
	}
	tests := distinct(rows, results.CalibrationRow.Test)
	sizes := distinct(rows, func(r results.CalibrationRow) int { return r.N })
	slices.Sort(sizes)
	big, small := sizes[len(sizes)-1], sizes[0]
	size := sizePanel(rows, tests, sizes, alpha)
	qq := qqPanel(null, tests, big)
	powSmall := powerPanel(rows, tests, small, alpha, true)
	if small == big { // one sample size: one power panel
		return [][]*plot.Plot{{size, qq}, {powSmall, nil}}, nil
	}
	// The legends that name the tests are in the left column, so that the right column's
	// panels keep their width.
	return [][]*plot.Plot{{size, qq}, {powSmall, powerPanel(rows, tests, big, alpha, false)}}, nil
}

// sizePanel draws each test's null rejection rate per sample size with its 95 % interval,
// one test per row (the first at the top), the rate along the x axis.
func sizePanel(rows []results.CalibrationRow, tests []string, sizes []int, alpha float64) *plot.Plot {
	labels := make([]string, len(tests))
	for k, t := range tests {
		m, r, _ := strings.Cut(t, "/")
		labels[k] = m + " " + strings.Replace(r, "permutation", "perm.", 1)
	}
	p, band, aLine := rowPanel(fmt.Sprintf("Size at α = %g (H₀ true)", alpha), "rejection rate under H₀ (δ = 0)", labels, SizeBand, alpha)
	hi := 0.0
	for k, t := range tests {
		m, r, _ := strings.Cut(t, "/")
		for j, n := range sizes {
			for _, row := range rows {
				if row.N != n || row.Test() != t || row.Delta != 0 {
					continue
				}
				ls, gs := testStyle(m, r)
				y := float64(len(tests)-1-k) + (float64(len(sizes)-1)/2-float64(j))*0.32
				rate, e := row.Rate(), 1.96*row.SE()
				hi = math.Max(hi, rate+e)
				ls.Dashes = nil
				ls.Width = vg.Points(1.3)
				addWhisker(p, math.Max(0, rate-e), rate+e, rate, y, ls, sizeMarker(gs.Shape, j == len(sizes)-1, gs.Color))
			}
		}
	}
	p.Y.Min, p.Y.Max = -0.6, float64(len(tests))-0.4
	p.X.Min, p.X.Max = 0, math.Max(0.12, hi*1.05)
	p.Legend.Add(fmt.Sprintf("α = %g", alpha), aLine)
	p.Legend.Add(fmt.Sprintf("accepted at largest n: %g–%g", SizeBand[0], SizeBand[1]), band)
	for j, n := range sizes {
		p.Legend.Add(fmt.Sprintf("n = %s", thousands(n)), glyphKey(sizeMarker(draw.CircleGlyph{}, j == len(sizes)-1, KeyColor)))
	}
	p.Legend.Add("lines: 95 % interval")
	p.Legend.Add("marker: method (key at right)")
	return p
}

// rowPanel is a panel with one row per label, the first at the top (row k at y = n−1−k of
// n rows), the x range band shaded (the valid values) and a dashed line at x; it returns
// the shade and the line for the legend.
func rowPanel(title, xlabel string, labels []string, band [2]float64, x float64) (*plot.Plot, *columnShade, *refLine) {
	p := legiblePlot(title, xlabel, "")
	b := &columnShade{spans: [][2]float64{band}, fill: withAlpha(LightGrey, 90)}
	l := &refLine{v: x, vertical: true, style: draw.LineStyle{Color: Grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
	p.Add(b, l)
	var ticks plot.ConstantTicks
	for k, label := range labels {
		ticks = append(ticks, plot.Tick{Value: float64(len(labels) - 1 - k), Label: label})
	}
	p.Y.Tick.Marker = ticks
	return p, b, l
}

// addWhisker adds the interval [lo, hi] at height y, drawn with ls, and a marker gs at x.
func addWhisker(p *plot.Plot, lo, hi, x, y float64, ls draw.LineStyle, gs draw.GlyphStyle) {
	whisker := &plotter.Line{XYs: plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}}, LineStyle: ls}
	p.Add(whisker, &plotter.Scatter{XYs: plotter.XYs{{X: x, Y: y}}, GlyphStyle: gs})
}

// glyphKey is a legend key of one marker drawn as g.
func glyphKey(g draw.GlyphStyle) *plotter.Scatter {
	return &plotter.Scatter{XYs: plotter.XYs{{}}, GlyphStyle: g}
}

// sizeMarker is a marker of one of several sample sizes: shape in c, filled at the largest
// size, open (holed) at the smaller ones.
func sizeMarker(shape draw.GlyphDrawer, largest bool, c color.Color) draw.GlyphStyle {
	if !largest {
		shape = holed{shape}
	}
	return draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: shape}
}

// holed draws a filled shape with a white centre: an open marker whose outline is as
// thick as the shape's colour needs to be read at a glance, for any shape.
type holed struct{ draw.GlyphDrawer }

// DrawGlyph implements draw.GlyphDrawer.
func (h holed) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	// gonum's filled glyphs fill with the canvas's current colour: set it for each.
	c.SetColor(sty.Color)
	h.GlyphDrawer.DrawGlyph(c, sty, pt)
	white := sty
	white.Color, white.Radius = color.White, sty.Radius*0.5
	c.SetColor(color.White)
	h.GlyphDrawer.DrawGlyph(c, white, pt)
}

// inflated reports whether test's null rejection rate at size n lies above SizeBand by more
// than two binomial standard errors (more than its replicates' noise): its power is then not
// comparable with the others' (it rejects without dependence too).
func inflated(rows []results.CalibrationRow, test string, n int) bool {
	for _, r := range rows {
		if r.N == n && r.Test() == test && r.Delta == 0 {
			return r.Rate()-2*r.SE() > SizeBand[1]
		}
	}
	return false
}

// powerPanel draws each test's rejection rate against δ at sample size n; a test whose size
// at n is inflated (inflated) is drawn thin and faded, and its legend entry says so.
// With legend false it has no legend: its title says that the tests are drawn as in the
// panel left of it.
func powerPanel(rows []results.CalibrationRow, tests []string, n int, alpha float64, legend bool) *plot.Plot {
	p := legiblePlot(fmt.Sprintf("Power at n = %s", thousands(n)), "dependence strength δ (h = X₁ + δ·X₂)", "rejection rate")
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(hLine(alpha, 1.2, Grey, vg.Points(5), vg.Points(3)))
	p.Add(hLine(0.8, 1.2, LightGrey, vg.Points(2), vg.Points(2)))
	p.Add(hGrid())
	for _, t := range tests {
		var xys plotter.XYs
		for _, r := range rows {
			if r.N == n && r.Test() == t {
				xys = append(xys, plotter.XY{X: r.Delta, Y: r.Rate()})
			}
		}
		slices.SortFunc(xys, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		if len(xys) == 0 {
			continue
		}
		m, r, _ := strings.Cut(t, "/")
		ls, gs := testStyle(m, r)
		label := m + " " + r
		if inflated(rows, t, n) {
			ls.Color, gs.Color = withAlpha(ls.Color, 110), withAlpha(gs.Color, 110)
			ls.Width, gs.Radius = vg.Points(1), vg.Points(2.2)
			label += " *"
		}
		l, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue
		}
		l.LineStyle, sc.GlyphStyle = ls, gs
		p.Add(l, sc)
		if legend {
			p.Legend.Add(label, l, sc)
		}
	}
	if !legend {
		p.Title.Text += " (tests as left)"
		return p
	}
	p.Legend.Add("")
	p.Legend.Add(fmt.Sprintf("* faded: size > %g by", SizeBand[1]))
	p.Legend.Add("  2 SE at this n: power")
	p.Legend.Add("  not comparable")
	p.Legend.Add("grey: α, power 0.8")
	p.Legend.Add("line: route (solid cross,")
	p.Legend.Add("  dashed wild, dotted perm.)")
	return p
}

// qqPanel draws the sorted null p-values of each test at size n against uniform quantiles.
func qqPanel(null []results.CalibrationP, tests []string, n int) *plot.Plot {
	p := legiblePlot(fmt.Sprintf("Null p-values at n = %s", thousands(n)), "uniform quantile", "p-value (sorted)")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	key := legendBelow(p) // the key beside the lines it names
	diag := &plotter.Line{XYs: plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}},
		LineStyle: draw.LineStyle{Color: Grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
	for k, t := range tests {
		m, r, _ := strings.Cut(t, "/")
		var ps []float64
		for _, v := range null {
			if v.N == n && v.Method == m && v.Route == r {
				ps = append(ps, v.P)
			}
		}
		if len(ps) == 0 {
			continue
		}
		slices.Sort(ps)
		xys := make(plotter.XYs, len(ps))
		for i, v := range ps {
			xys[i] = plotter.XY{X: (float64(i) + 0.5) / float64(len(ps)), Y: v}
		}
		ls, gs := testStyle(m, r)
		ls.Width = vg.Points(1.5)
		l, err := plotter.NewLine(xys)
		if err != nil {
			continue
		}
		l.LineStyle = ls
		// Markers at every eighth of the quantiles, staggered by test, so that lines lying
		// on each other (every valid test's, on the diagonal) show each test's marker.
		var marks plotter.XYs
		for j := 0; j < 8; j++ {
			q := (float64(j) + (float64(k)+0.5)/float64(len(tests))) / 8
			i := min(len(xys)-1, int(q*float64(len(xys))))
			marks = append(marks, xys[i])
		}
		sc, err := plotter.NewScatter(marks)
		if err != nil {
			continue
		}
		sc.GlyphStyle = gs
		p.Add(l, sc)
		key.add(m+" "+strings.Replace(r, "permutation", "perm.", 1), l, sc)
	}
	p.Add(diag) // on top: the reference every valid test's line should follow
	key.add("uniform p-values", diag)
	return p
}
