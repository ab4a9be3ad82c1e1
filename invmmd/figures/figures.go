// Package figures draws the project's plots with gonum/plot and writes them as PNG and SVG
// files or PNG bytes (for notebooks). It is the last step of the data flow: it reads
// datasets (package dataset) and experiment results (package results), plain data that
// imports none of the training code, and writes nothing else.
//
// Every plot is drawn the same way (drawGrid): a white background, the panels of a grid with
// aligned axes, and each panel's legend in a column to the right of its data area, so that
// no legend hides data.
package figures

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

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

// SaveImage writes img as a PNG file at path (the extension must be .png), creating the
// folder.
func SaveImage(img image.Image, path string) error {
	if !strings.HasSuffix(path, ".png") {
		return fmt.Errorf("figures: %s: want a .png path", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("figures: writing %s: %w", path, err)
	}
	return f.Close()
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
	var svg bytes.Buffer
	if err := writeSVG(&svg, plots, w, h); err != nil {
		return fmt.Errorf("figures: writing %s.svg: %w", base, err)
	}
	if err := os.WriteFile(base+".svg", svg.Bytes(), 0o644); err != nil {
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

// writeSVG draws the grid as SVG with every font-family replaced by SVGFontFallback.
func writeSVG(w io.Writer, plots [][]*plot.Plot, width, height vg.Length) error {
	svg := vgsvg.New(width, height)
	drawGrid(plots, draw.New(svg))
	var buf bytes.Buffer
	if _, err := svg.WriteTo(&buf); err != nil {
		return err
	}
	_, err := io.WriteString(w, withFontFallback(buf.String()))
	return err
}

// withFontFallback replaces each single-font "font-family:NAME" declaration of an SVG
// document by SVGFontFallback.
func withFontFallback(svg string) string {
	var b strings.Builder
	for {
		i := strings.Index(svg, "font-family:")
		if i < 0 {
			b.WriteString(svg)
			return b.String()
		}
		b.WriteString(svg[:i])
		rest := svg[i:]
		end := strings.IndexAny(rest, ";\"")
		if end < 0 {
			end = len(rest)
		}
		b.WriteString(SVGFontFallback)
		svg = rest[end:]
	}
}

// legendGap separates a panel's data area from its legend column.
const legendGap = 4 * vg.Millimeter

// panelLayout splits a panel's canvas into the canvas the plot is drawn in and the column to
// its right that holds the legend (empty when the legend has no entries).
func panelLayout(p *plot.Plot, c draw.Canvas) (plotC, legendC draw.Canvas) {
	lw := p.Legend.Rectangle(c).Size().X
	if lw == 0 {
		return c, draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: c.Max, Max: c.Max}}
	}
	lw += 1.5 * legendGap // the gap before, and room after for the text's overhang
	plotC = draw.Crop(c, 0, -lw, 0, 0)
	data := p.DataCanvas(plotC)
	legendC = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: c.Max.X - lw + legendGap, Y: data.Min.Y},
		Max: vg.Point{X: c.Max.X, Y: data.Max.Y},
	}}
	return plotC, legendC
}

// drawPanel draws p with its legend outside the data area, to the right.
func drawPanel(p *plot.Plot, c draw.Canvas) {
	plotC, legendC := panelLayout(p, c)
	legend := p.Legend
	p.Legend = plot.NewLegend() // drawn below, outside the data area
	p.Draw(plotC)
	p.Legend = legend
	legend.Left, legend.Top = true, true
	legend.XOffs, legend.YOffs = 0, 0
	legend.Draw(legendC)
}

func drawGrid(plots [][]*plot.Plot, dc draw.Canvas) {
	// White background: PNG canvases start transparent.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	canvases := alignGrid(plots, dc)
	for i, r := range plots {
		for j, p := range r {
			if p != nil {
				drawPanel(p, canvases[i][j])
			}
		}
	}
}

// alignGrid returns the canvas of each panel of the grid, their data areas aligned. A single
// plot gets the whole canvas, as gonum/plot draws it: figures sized to their content (the
// textured-MNIST image grid) must not lose a margin.
func alignGrid(plots [][]*plot.Plot, dc draw.Canvas) [][]draw.Canvas {
	if len(plots) == 1 && len(plots[0]) == 1 {
		return [][]draw.Canvas{{dc}}
	}
	rows, cols := len(plots), 0
	for _, r := range plots {
		cols = max(cols, len(r))
	}
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: 8 * vg.Millimeter, PadY: 6 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	return plot.Align(plots, t, dc)
}
