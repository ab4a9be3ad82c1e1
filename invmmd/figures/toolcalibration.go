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

	"github.com/invmmd/invmmd/invmmd/results"
)

// Size of the figure of the commands' calibration (ToolCalibration): a row of size panels
// and a row of standard-error panels, one column per kind of nuisance.
const (
	ToolCalibrationWidth  = 10 * vg.Inch
	ToolCalibrationHeight = 8 * vg.Inch
)

// ToolSizeBand is the range of null rejection rates at α = 0.05 that a p-value invmmd test
// prints as valid must lie in; ToolSEBand the range of RMS standard error over the
// estimates' spread that a standard error invmmd estimate prints must lie in.
var (
	ToolSizeBand = [2]float64{0.02, 0.08}
	ToolSEBand   = [2]float64{0.85, 1.2}
)

// toolSizeMax is the right edge of the size panels: a rate beyond it is drawn at the edge,
// and one whose interval reaches it has its value written next to it, so that the band
// stays readable and no marker at the edge is ambiguous.
const toolSizeMax = 0.3

// fittingShapes gives each way of fitting G and m its marker: cross-fitting on 5 folds a
// circle, on 2 folds a square, sample splitting a triangle, fit's held-out test a cross.
var fittingShapes = map[string]draw.GlyphDrawer{
	"crossfit5": draw.CircleGlyph{}, "crossfit2": draw.BoxGlyph{}, "split": draw.PyramidGlyph{}, "fit": draw.CrossGlyph{},
}

// ToolCalibration returns the panels of the calibration of invmmd test and invmmd estimate
// as the commands run them (experiments.RunToolCalibration): (top) per kind of nuisance,
// each method's rejection rate under the null with its 95 % binomial interval, a marker per
// way of fitting G and m and sample size, the band a valid p-value must lie in; (bottom)
// each method's RMS standard error over the spread of its estimates, under the null and
// under dependence, with its 95 % Monte Carlo interval (results.SECalibrationRow.RatioSE)
// and the band a printed standard error must lie in.
func ToolCalibration(rows []results.ToolCalibrationRow, se []results.SECalibrationRow, alpha float64) ([][]*plot.Plot, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("figures: ToolCalibration: no rows")
	}
	kinds := distinct(rows, func(r results.ToolCalibrationRow) string { return r.Kind })
	methods := distinct(rows, func(r results.ToolCalibrationRow) string { return r.Method })
	fittings := distinct(rows, func(r results.ToolCalibrationRow) string { return r.Fitting })
	sizes := distinct(rows, func(r results.ToolCalibrationRow) int { return r.N })
	slices.Sort(sizes)
	// The cells (fitting, size) and the δs of the standard errors are the study's, not a
	// kind's, so that a marker sits at the same place in every panel and the key, in the
	// last column, lists them all.
	var cells []toolCell
	for _, f := range fittings {
		for _, n := range sizes {
			if slices.ContainsFunc(rows, func(r results.ToolCalibrationRow) bool { return r.Fitting == f && r.N == n && r.Delta == 0 }) {
				cells = append(cells, toolCell{f, n})
			}
		}
	}
	deltas := distinct(se, func(s results.SECalibrationRow) float64 { return s.Delta })
	slices.Sort(deltas)
	top := make([]*plot.Plot, len(kinds))
	bottom := make([]*plot.Plot, len(kinds))
	for k, kind := range kinds {
		top[k] = toolSizePanel(rows, kind, methods, cells, sizes, alpha, k == len(kinds)-1)
		bottom[k] = toolSEPanel(se, kind, methods, sizes, deltas, k == len(kinds)-1)
	}
	// One x range for the standard-error panels, so that their ticks line up.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bottom {
		lo, hi = math.Min(lo, b.X.Min), math.Max(hi, b.X.Max)
	}
	// Labelled at 0.5, 1, 1.5: 1 is calibrated.
	ticks := stepTicks(lo, hi, 0.5, func(v float64) string { return fmt.Sprintf("%g", v) })
	for _, b := range bottom {
		b.X.Min, b.X.Max = lo, hi
		b.X.Tick.Marker = ticks
	}
	return [][]*plot.Plot{top, bottom}, nil
}

// toolCell is a way of fitting G and m at a sample size: one marker of the size panels.
type toolCell struct {
	fitting string
	n       int
}

// toolMarker returns the marker of a way of fitting at one of the sizes (sizeMarker).
func toolMarker(fitting string, n int, sizes []int, c color.Color) draw.GlyphStyle {
	shape, ok := fittingShapes[fitting]
	if !ok {
		shape = draw.CrossGlyph{}
	}
	if _, cross := shape.(draw.CrossGlyph); cross {
		// A cross has no inside to open: drawn larger, the same at every size.
		return draw.GlyphStyle{Color: c, Radius: vg.Points(4.5), Shape: shape}
	}
	return sizeMarker(shape, n == sizes[len(sizes)-1], c)
}

// toolSizePanel draws each method's null rejection rate for one kind of nuisance, one row
// per method, one marker per (fitting, size) around it.
func toolSizePanel(rows []results.ToolCalibrationRow, kind string, methods []string, cells []toolCell, sizes []int, alpha float64, legend bool) *plot.Plot {
	p, band, _ := rowPanel(fmt.Sprintf("%s Z: size at α = %g", kind, alpha), "rejection rate under H₀", methods, ToolSizeBand, alpha)
	for k, m := range methods {
		c := methodColorOr(m, Grey)
		for j, ce := range cells {
			for _, r := range rows {
				if r.Kind != kind || r.Method != m || r.Fitting != ce.fitting || r.N != ce.n || r.Delta != 0 {
					continue
				}
				y := float64(len(methods)-1-k) + (float64(len(cells)-1)/2-float64(j))*0.8/float64(max(1, len(cells)-1))
				rate, e := r.Rate(), 1.96*r.SE()
				x := math.Min(rate, toolSizeMax)
				addWhisker(p, math.Max(0, rate-e), math.Min(rate+e, toolSizeMax), x, y, draw.LineStyle{Color: c, Width: vg.Points(1.2)}, toolMarker(ce.fitting, ce.n, sizes, c))
				if rate+e > toolSizeMax { // at or near the edge: the value written
					lab, _ := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{{X: toolSizeMax, Y: y}}, Labels: []string{fmt.Sprintf("%.2f ", rate)}})
					sty := &lab.TextStyle[0]
					sty.Font.Size, sty.XAlign, sty.YAlign = vg.Points(8.5), draw.XRight, draw.YCenter
					lab.Offset = vg.Point{X: -vg.Points(6)}
					p.Add(lab)
				}
			}
		}
	}
	p.Y.Min, p.Y.Max = -0.6, float64(len(methods))-0.4
	p.X.Min, p.X.Max = 0, toolSizeMax
	if legend {
		p.Legend.Add(fmt.Sprintf("valid: %g–%g", ToolSizeBand[0], ToolSizeBand[1]), band)
		for _, ce := range cells {
			p.Legend.Add(fmt.Sprintf("%s, n = %s", ce.fitting, thousands(ce.n)), glyphKey(toolMarker(ce.fitting, ce.n, sizes, KeyColor)))
		}
		p.Legend.Add("bars: 95 % binomial interval")
		p.Legend.Add(fmt.Sprintf("at the %g edge: value written", toolSizeMax))
	}
	return p
}

// toolSEPanel draws each method's RMS standard error over the spread of its estimates for
// one kind of nuisance, with its 95 % Monte Carlo interval: a marker per size and δ (the
// shape by δ, open at the smaller sizes, filled at the largest; seMarker).
func toolSEPanel(se []results.SECalibrationRow, kind string, methods []string, sizes []int, deltas []float64, legend bool) *plot.Plot {
	p, band, _ := rowPanel(fmt.Sprintf("%s Z: standard errors", kind), "RMS SE / sd of the estimates", methods, ToolSEBand, 1)
	lo, hi := 0.5, 1.5
	slots := len(sizes) * len(deltas)
	for k, m := range methods {
		c := methodColorOr(m, Grey)
		for i, n := range sizes {
			for j, d := range deltas {
				for _, s := range se {
					if s.Kind != kind || s.Method != m || s.N != n || s.Delta != d {
						continue
					}
					slot := i*len(deltas) + j
					y := float64(len(methods)-1-k) + (float64(slots-1)/2-float64(slot))*0.7/float64(max(1, slots-1))
					x, e := s.Ratio(), 1.96*s.RatioSE()
					lo, hi = math.Min(lo, x-e), math.Max(hi, x+e)
					addWhisker(p, x-e, x+e, x, y, draw.LineStyle{Color: c, Width: vg.Points(1.2)}, seMarker(i, len(sizes), j, c))
				}
			}
		}
	}
	p.Y.Min, p.Y.Max = -0.6, float64(len(methods))-0.4
	p.X.Min, p.X.Max = math.Max(0, lo-0.05), hi+0.05
	if legend {
		p.Legend.Add(fmt.Sprintf("calibrated: %g–%g", ToolSEBand[0], ToolSEBand[1]), band)
		for i, n := range sizes {
			for j, d := range deltas {
				if !slices.ContainsFunc(se, func(s results.SECalibrationRow) bool { return s.N == n && s.Delta == d }) {
					continue
				}
				p.Legend.Add(fmt.Sprintf("n = %s, δ = %g", thousands(n), d), glyphKey(seMarker(i, len(sizes), j, KeyColor)))
			}
		}
		p.Legend.Add("bars: 95 % Monte Carlo interval")
		p.Legend.Add("ip, dr at δ = 0: upper bounds")
		p.Legend.Add("reg: not printed")
	}
	return p
}

// seMarker is the marker of the standard errors at size index i and δ index j (sizeMarker):
// the shape by δ (circle, square, triangle, …).
func seMarker(i, sizes, j int, c color.Color) draw.GlyphStyle {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}}
	return sizeMarker(shapes[j%len(shapes)], i == sizes-1, c)
}
