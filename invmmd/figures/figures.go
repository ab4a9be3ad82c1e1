// Package figures draws the project's plots with gonum/plot and writes them as PNG and SVG
// files or PNG bytes (for notebooks). It is the last step of the data flow: it reads
// datasets and experiment results and writes nothing else.
package figures

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
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
	Height = 4 * vg.Inch
)

// Save writes p to base+".png" and base+".svg" at the given size, creating the folder.
func Save(p *plot.Plot, base string, w, h vg.Length) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(w, h, base+ext); err != nil {
			return fmt.Errorf("figures: writing %s: %w", base+ext, err)
		}
	}
	return nil
}

// PNG renders p as PNG bytes, e.g. for gonbui.DisplayPng in a notebook.
func PNG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	wt, err := p.WriterTo(w, h, "png")
	if err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	return buf.Bytes(), nil
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

// SaveGrid writes a grid of plots (rows of columns, aligned axes) to base+".png" and
// base+".svg".
func SaveGrid(plots [][]*plot.Plot, base string, w, h vg.Length) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	png, err := GridPNG(plots, w, h)
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".png", png, 0o644); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	svg := vgsvg.New(w, h)
	drawGrid(plots, draw.New(svg))
	f, err := os.Create(base + ".svg")
	if err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	if _, err := svg.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("figures: writing %s.svg: %w", base, err)
	}
	return f.Close()
}

// GridPNG renders a grid of plots as PNG bytes.
func GridPNG(plots [][]*plot.Plot, w, h vg.Length) ([]byte, error) {
	img := vgimg.New(w, h)
	drawGrid(plots, draw.New(img))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	return buf.Bytes(), nil
}

func drawGrid(plots [][]*plot.Plot, dc draw.Canvas) {
	rows, cols := len(plots), 0
	for _, r := range plots {
		cols = max(cols, len(r))
	}
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: 8 * vg.Millimeter, PadY: 6 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	// White background: PNG canvases start transparent.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	canvases := plot.Align(plots, t, dc)
	for i, r := range plots {
		for j, p := range r {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
}
