// Package figures draws the project's plots with gonum/plot and writes them as PNG and SVG
// files or PNG bytes (for notebooks). It is the last step of the data flow: it reads
// datasets and experiment results and writes nothing else.
package figures

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
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
