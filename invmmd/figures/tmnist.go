package figures

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Layout of TMNISTGrid, in points.
const (
	gridTile   = 0.42 * vg.Inch // one image
	gridGap    = 0.04 * vg.Inch // between images
	gridLabel  = 0.22 * vg.Inch // a cell's caption above its strip
	gridTitle  = 0.32 * vg.Inch // a set's name above its block
	gridColGap = 0.3 * vg.Inch  // between the blocks of two sets
	gridMargin = 0.1 * vg.Inch
	gridScale  = 4 // pixels per image pixel in the embedded strips
)

// TMNISTGrid draws example images of an image data set such as textured MNIST: one block
// per set (e.g. train and test) side by side, and in each block one strip per (Y, Z) cell
// with the first perCell images of that cell in the set's order (the sets are shuffled, so
// these are a random sample). Each strip's caption gives the cell, its share of the set
// and the fraction of its rows with Z observed, the things the experiment depends on.
// zNames names the nuisance values (e.g. "grass, dark" and "brick, light"); empty names are
// left out. note, when not empty, is written below the blocks, wrapped to their width (e.g.
// that the labels shown are noisy). Images must have one channel (Shape [H, W, 1]) with
// values in [0, 1]. It returns the plot and the size to draw it at: pass both to Save or PNG.
func TMNISTGrid(sets []*dataset.Set, perCell int, zNames [2]string, note string) (*plot.Plot, vg.Length, vg.Length, error) {
	if len(sets) == 0 || perCell < 1 {
		return nil, 0, 0, fmt.Errorf("figures: TMNISTGrid needs at least one set and one image per cell, got %d sets, %d per cell", len(sets), perCell)
	}
	g := &tmnistGrid{perCell: perCell}
	for _, s := range sets {
		if s == nil || s.Len() == 0 {
			return nil, 0, 0, fmt.Errorf("figures: TMNISTGrid: empty set")
		}
		if len(s.Shape) != 3 || s.Shape[2] != 1 || s.Dim() != len(s.X)/s.Len() {
			return nil, 0, 0, fmt.Errorf("figures: TMNISTGrid: set %s has feature shape %v, want [H, W, 1] images", s.Name, s.Shape)
		}
		b := gridBlock{name: s.Name}
		var obs, n [2][2]int
		for i := range s.Len() {
			y, z := int(s.Y[i]), int(s.Z[i])
			if y < 0 || y > 1 || z < 0 || z > 1 || float64(y) != s.Y[i] || float64(z) != s.Z[i] {
				return nil, 0, 0, fmt.Errorf("figures: TMNISTGrid: set %s row %d: Y = %v, Z = %v, want 0 or 1", s.Name, i, s.Y[i], s.Z[i])
			}
			n[y][z]++
			if s.Delta[i] == 1 {
				obs[y][z]++
			}
		}
		for y := range 2 {
			for z := range 2 {
				label := fmt.Sprintf("Y=%d, Z=%d", y, z)
				if zNames[z] != "" {
					label += " (" + zNames[z] + ")"
				}
				label += fmt.Sprintf(": %.1f%% of rows", 100*float64(n[y][z])/float64(s.Len()))
				if n[y][z] > 0 {
					label += fmt.Sprintf(", Z observed %.0f%%", 100*float64(obs[y][z])/float64(n[y][z]))
				}
				strip, k, err := cellStrip(s, y, z, perCell)
				if err != nil {
					return nil, 0, 0, err
				}
				b.cells = append(b.cells, gridCell{label: label, strip: strip, n: k})
			}
		}
		g.blocks = append(g.blocks, b)
	}
	p := plot.New()
	p.HideAxes()
	p.Add(g)
	stripW := vg.Length(perCell)*gridTile + vg.Length(perCell-1)*gridGap
	w := vg.Length(len(sets))*stripW + vg.Length(len(sets)-1)*gridColGap + 2*gridMargin
	h := gridTitle + 4*(gridLabel+gridTile+gridGap) + 2*gridMargin
	if note != "" {
		g.note = wrapWidth(note, noteStyle, w-2*gridMargin)
		h += vg.Length(len(g.note))*noteStyle.Height("Mg")*1.25 + gridGap*2
	}
	return p, w, h, nil
}

type gridCell struct {
	label string
	strip image.Image // nil when the cell has no rows
	n     int         // images in the strip
}

type gridBlock struct {
	name  string
	cells []gridCell // (Y, Z) = 00, 01, 10, 11
}

// tmnistGrid is the plotter that draws the blocks.
type tmnistGrid struct {
	blocks  []gridBlock
	perCell int
	note    []string // the note's lines
}

// noteStyle writes the note below TMNISTGrid's blocks.
var noteStyle = text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 10), XAlign: draw.XLeft, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}

// Plot implements plot.Plotter.
func (g *tmnistGrid) Plot(c draw.Canvas, _ *plot.Plot) {
	titleStyle := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 12), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	labelStyle := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 8), XAlign: draw.XLeft, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}
	stripW := vg.Length(g.perCell)*gridTile + vg.Length(g.perCell-1)*gridGap
	for k, b := range g.blocks {
		x0 := c.Min.X + gridMargin + vg.Length(k)*(stripW+gridColGap)
		top := c.Max.Y - gridMargin
		c.FillText(titleStyle, vg.Point{X: x0 + stripW/2, Y: top}, b.name)
		y := top - gridTitle
		for _, cell := range b.cells {
			c.FillText(labelStyle, vg.Point{X: x0, Y: y - gridLabel + 0.05*vg.Inch}, cell.label)
			y -= gridLabel + gridTile
			if cell.strip != nil {
				w := vg.Length(cell.n)*gridTile + vg.Length(cell.n-1)*gridGap
				c.DrawImage(vg.Rectangle{Min: vg.Point{X: x0, Y: y}, Max: vg.Point{X: x0 + w, Y: y + gridTile}}, cell.strip)
			}
			y -= gridGap
		}
	}
	for i, l := range g.note {
		y := c.Min.Y + gridMargin + vg.Length(len(g.note)-1-i)*noteStyle.Height("Mg")*1.25
		c.FillText(noteStyle, vg.Point{X: c.Min.X + gridMargin, Y: y}, l)
	}
}

// gapPixels is the gap between tiles, in pixels, for tiles h pixels high, matching the
// ratio of gridGap to gridTile.
func gapPixels(h int) int { return int(math.Round(float64(h) * float64(gridGap/gridTile))) }

// cellStrip returns the first perCell images of cell (y, z) of s side by side, magnified
// gridScale times with nearest-neighbour sampling so that pixels stay sharp, separated by
// white gaps, and how many images it holds; nil when the cell is empty.
func cellStrip(s *dataset.Set, y, z, perCell int) (image.Image, int, error) {
	var rows []int
	for i := 0; i < s.Len() && len(rows) < perCell; i++ {
		if int(s.Y[i]) == y && int(s.Z[i]) == z {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		return nil, 0, nil
	}
	ih, iw := s.Shape[0], s.Shape[1]
	th, tw := ih*gridScale, iw*gridScale
	if th != tw {
		return nil, 0, fmt.Errorf("figures: TMNISTGrid: set %s has %d×%d images, want square images", s.Name, ih, iw)
	}
	gap := gapPixels(th)
	img := image.NewGray(image.Rect(0, 0, len(rows)*(tw+gap)-gap, th))
	img.Pix = slices.Repeat([]uint8{255}, len(img.Pix)) // white, the gaps
	for k, r := range rows {
		px := s.Row(r)
		for yy := 0; yy < th; yy++ {
			for xx := 0; xx < tw; xx++ {
				v := px[(yy/gridScale)*iw+xx/gridScale]
				if !(v >= 0 && v <= 1) {
					return nil, 0, fmt.Errorf("figures: TMNISTGrid: set %s row %d: pixel value %v, want a value in [0, 1]", s.Name, r, v)
				}
				img.SetGray(k*(tw+gap)+xx, yy, color.Gray{Y: uint8(math.Round(float64(v) * 255))})
			}
		}
	}
	return img, len(rows), nil
}
