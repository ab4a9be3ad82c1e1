// Package figures draws the project's plots with gonum/plot and writes them as PNG and SVG
// files or PNG bytes (for notebooks). It is the last step of the data flow: it reads
// datasets (package dataset) and experiment results (package results), plain data that
// imports none of the training code, and writes nothing else.
//
// Every plot is drawn the same way (drawGrid): a white background, the panels of a grid with
// aligned data areas of one size (layoutGrid), and each panel's legend outside its data area,
// so that no legend hides data: in rows below the panel (legendBelow), where a column would
// take a third of its width, or in a column to its right. A title too wide for its panel is
// wrapped. The colours are the palette's (palette.go): one per method in every figure.
package figures

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default figure size.
const (
	Width  = 8 * vg.Inch
	Height = 5 * vg.Inch
)

// Resolutions of the PNG images: FileDPI for the files under figures/ (sharp when zoomed or
// printed), ScreenDPI for the bytes shown in notebooks (one image pixel per screen pixel, and
// small notebooks).
const (
	FileDPI   = 200
	ScreenDPI = 96
)

// SVGFontFallback is the font-family list written into SVG files in place of the single
// font name gonum/plot writes: a viewer without Liberation Serif then uses a metric-compatible
// or generic serif font rather than its default, which may be wider and overflow the labels.
const SVGFontFallback = `font-family:'Liberation Serif','Times New Roman',Times,serif`

// Save writes p to base+".png" and base+".svg" at the given size, creating the folder.
func Save(p *plot.Plot, base string, w, h vg.Length) error {
	return SaveGrid([][]*plot.Plot{{p}}, base, w, h)
}

// PNG renders p as PNG bytes at ScreenDPI, e.g. for gonbui.DisplayPng in a notebook.
func PNG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	return GridPNG([][]*plot.Plot{{p}}, w, h)
}

// SaveGrid writes a grid of plots (rows of columns, aligned axes) to base+".png" (at
// FileDPI) and base+".svg" (with SVGFontFallback), creating the folder.
func SaveGrid(plots [][]*plot.Plot, base string, w, h vg.Length) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	png, err := gridPNG(plots, w, h, FileDPI)
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".png", png, 0o644); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	svg, err := gridSVG(plots, w, h)
	if err != nil {
		return fmt.Errorf("figures: writing %s.svg: %w", base, err)
	}
	if err := os.WriteFile(base+".svg", svg, 0o644); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	return nil
}

// GridPNG renders a grid of plots as PNG bytes at ScreenDPI.
func GridPNG(plots [][]*plot.Plot, w, h vg.Length) ([]byte, error) {
	return gridPNG(plots, w, h, ScreenDPI)
}

func gridPNG(plots [][]*plot.Plot, w, h vg.Length, dpi int) ([]byte, error) {
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	drawGrid(plots, draw.New(img))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	return buf.Bytes(), nil
}

// gridSVG draws the grid as SVG with every single-font "font-family:NAME" declaration
// replaced by SVGFontFallback.
func gridSVG(plots [][]*plot.Plot, width, height vg.Length) ([]byte, error) {
	svg := vgsvg.New(width, height)
	drawGrid(plots, draw.New(svg))
	var buf bytes.Buffer
	if _, err := svg.WriteTo(&buf); err != nil {
		return nil, err
	}
	return fontFamily.ReplaceAllLiteral(buf.Bytes(), []byte(SVGFontFallback)), nil
}

// fontFamily is a font-family declaration of gonum/plot's SVG, up to its ';' or '"'.
var fontFamily = regexp.MustCompile(`font-family:[^;"]*`)

// legendGap separates a panel's data area from its legend column.
const legendGap = 4 * vg.Millimeter

// legendWidth is the width of the column right of p's data area that holds its legend: the
// legend, the gap before it and room after for the text's overhang; 0 without a legend.
func legendWidth(p *plot.Plot, c draw.Canvas) vg.Length {
	lw := p.Legend.Rectangle(c).Size().X
	if lw == 0 {
		return 0
	}
	return lw + 1.5*legendGap // the gap before, and room after for the text's overhang
}

// panelLayout splits a panel's canvas into the canvas the plot is drawn in and the column to
// its right, lw wide, that holds the legend (empty when lw is 0).
func panelLayout(p *plot.Plot, c draw.Canvas, lw vg.Length) (plotC, legendC draw.Canvas) {
	if lw == 0 {
		return c, emptyAt(c)
	}
	plotC = draw.Crop(c, 0, -lw, 0, 0)
	return plotC, legendBeside(p, plotC, lw)
}

// legendBeside is the legend column lw wide right of plotC, as high as p's data area.
func legendBeside(p *plot.Plot, plotC draw.Canvas, lw vg.Length) draw.Canvas {
	data := p.DataCanvas(plotC)
	return draw.Canvas{Canvas: plotC.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: plotC.Max.X + legendGap, Y: data.Min.Y},
		Max: vg.Point{X: plotC.Max.X + lw, Y: data.Max.Y},
	}}
}

// drawGrid draws the grid of plots on dc as layoutGrid lays it out, legends outside the data.
func drawGrid(plots [][]*plot.Plot, dc draw.Canvas) {
	// White background: PNG canvases start transparent.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	plotCs, legendCs, belowCs := layoutGrid(plots, dc)
	for i, r := range plots {
		for j, p := range r {
			if p != nil {
				legend := p.Legend
				p.Legend = plot.NewLegend() // drawn below, outside the data area
				p.Draw(plotCs[i][j])
				p.Legend = legend
				legend.Left, legend.Top = true, true
				legend.XOffs, legend.YOffs = 0, 0
				legend.Draw(legendCs[i][j])
				belowOf(p).draw(p, belowCs[i][j]) // nothing without a legend below
			}
		}
	}
}

// emptyAt is an empty canvas at c's top-right corner: no legend.
func emptyAt(c draw.Canvas) draw.Canvas {
	return draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: c.Max, Max: c.Max}}
}
