package figures

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// belowLegend is the legend drawn below a panel: the compact alternative to the legend
// column right of the data area (drawGrid's default). Its entries flow left to right in rows
// as wide as the panel, starting under the data area's left edge; a note (text without a
// key) starts a row of its own and wraps at the panel's width. layoutGrid makes room for it.
type belowLegend struct{ items []legendItem }

// legendItem is one entry of a belowLegend: a key (thumbs, possibly none) and its text, or
// a note, or a line break.
type legendItem struct {
	text   string
	thumbs []plot.Thumbnailer
	note   bool // text alone, on rows of its own, wrapped to the panel's width
	br     bool // a line break
}

// add appends an entry: text after the thumbnails drawn over each other.
func (l *belowLegend) add(text string, thumbs ...plot.Thumbnailer) {
	l.items = append(l.items, legendItem{text: text, thumbs: thumbs})
}

// note appends a note: a text on rows of its own, wrapped at the panel's width.
func (l *belowLegend) note(text string) {
	l.items = append(l.items, legendItem{text: text, note: true})
}

// newline makes the next entry start a row.
func (l *belowLegend) newline() { l.items = append(l.items, legendItem{br: true}) }

// belowLegends holds the legends drawn below panels, by panel; an entry goes when its plot
// is collected.
var belowLegends sync.Map // weak.Pointer[plot.Plot] → *belowLegend

// legendBelow returns the legend drawn below p (created empty on first use). A plot with one
// draws no legend of its own (p.Legend should stay empty).
func legendBelow(p *plot.Plot) *belowLegend {
	if l := belowOf(p); l != nil {
		return l
	}
	k := weak.Make(p)
	l, loaded := belowLegends.LoadOrStore(k, &belowLegend{})
	if !loaded {
		runtime.AddCleanup(p, func(k weak.Pointer[plot.Plot]) { belowLegends.Delete(k) }, k)
	}
	return l.(*belowLegend)
}

// belowOf returns p's legend below, or nil when it has none.
func belowOf(p *plot.Plot) *belowLegend {
	if p == nil {
		return nil
	}
	if l, ok := belowLegends.Load(weak.Make(p)); ok {
		return l.(*belowLegend)
	}
	return nil
}

// Spacing of a legend below, in points: above its first row, between entries of a row, and
// the rows' leading (a fraction of the font's height).
const (
	belowGap     = 5
	belowSpacing = 14
	belowLeading = 1.3
)

// placed is an entry of a legend below at its position: thumbnails at icon (empty for a
// note), its text from at, on the row's vertical centre.
type placed struct {
	icon vg.Rectangle
	at   vg.Point
	text string
	item legendItem
}

// legendStyle is the text style and thumbnail width of p's legend below: its legend's.
func legendStyle(p *plot.Plot) (text.Style, vg.Length) {
	sty := p.Legend.TextStyle
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	return sty, p.Legend.ThumbnailWidth
}

// layout places l's entries in rows of at most width, from (0, 0) down (y negative), and
// returns them with the height they take, belowGap included; 0 for no entries.
func (l *belowLegend) layout(sty text.Style, thumbW, width vg.Length) ([]placed, vg.Length) {
	if l == nil || len(l.items) == 0 {
		return nil, 0
	}
	em := sty.Width(" ")
	rowH := sty.Height("Mg") * belowLeading
	var out []placed
	x, row := vg.Length(0), 0
	next := func() {
		if x > 0 {
			row++
		}
		x = 0
	}
	y := func() vg.Length { return -vg.Points(belowGap) - rowH*(vg.Length(row)+0.5) }
	for _, it := range l.items {
		switch {
		case it.br:
			next()
		case it.note:
			next()
			for _, line := range wrapWidth(it.text, sty, width) {
				out = append(out, placed{at: vg.Point{X: 0, Y: y()}, text: line, item: it})
				row++
			}
		default:
			w := sty.Width(it.text)
			if len(it.thumbs) > 0 {
				w += thumbW + em
			}
			if x > 0 && x+w > width {
				next()
			}
			p := placed{text: it.text, item: it}
			tx := x
			if len(it.thumbs) > 0 {
				h := sty.Height("M")
				p.icon = vg.Rectangle{Min: vg.Point{X: x, Y: y() - h/2}, Max: vg.Point{X: x + thumbW, Y: y() + h/2}}
				tx += thumbW + em
			}
			p.at = vg.Point{X: tx, Y: y()}
			out = append(out, p)
			x += w + vg.Points(belowSpacing)
		}
	}
	next() // the last row
	return out, vg.Points(belowGap) + rowH*vg.Length(row)
}

// draw draws l's entries (none for a nil l), laid out for c's width, from c's top-left corner.
func (l *belowLegend) draw(p *plot.Plot, c draw.Canvas) {
	sty, thumbW := legendStyle(p)
	items, _ := l.layout(sty, thumbW, c.Max.X-c.Min.X)
	origin := vg.Point{X: c.Min.X, Y: c.Max.Y}
	for _, it := range items {
		if len(it.item.thumbs) > 0 {
			icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: origin.Add(it.icon.Min), Max: origin.Add(it.icon.Max)}}
			for _, t := range it.item.thumbs {
				t.Thumbnail(&icon)
			}
		}
		if it.text != "" {
			c.FillText(sty, origin.Add(it.at), it.text)
		}
	}
}

// wrapWidth breaks s at spaces into lines no wider than width in style sty (a word wider
// than width gets a line of its own).
func wrapWidth(s string, sty text.Style, width vg.Length) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && sty.Width(line+" "+w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// fitTitle wraps p's title at spaces so that each line fits width (a title that fits is
// left as it is).
func fitTitle(p *plot.Plot, width vg.Length) {
	if p == nil || p.Title.Text == "" || p.Title.TextStyle.Rectangle(p.Title.Text).Size().X <= width {
		return
	}
	var lines []string
	for _, l := range strings.Split(p.Title.Text, "\n") {
		lines = append(lines, wrapWidth(l, p.Title.TextStyle, width)...)
	}
	p.Title.Text = strings.Join(lines, "\n")
}

// singleMargin is the margin round a single plot with a legend below.
const singleMargin = 2 * vg.Millimeter

// belowHeight is the height p's legend below takes when p is drawn in c (0 without one), as
// wide as from the data area's left edge to c's right edge.
func belowHeight(p *plot.Plot, c draw.Canvas) vg.Length {
	sty, thumbW := legendStyle(p)
	_, h := belowOf(p).layout(sty, thumbW, c.Max.X-p.DataCanvas(c).Min.X)
	return h
}

// layoutGrid returns the canvas each panel of the grid is drawn in, the one its legend is
// drawn in when the legend stands right of it (empty otherwise), and the one its legend
// below (legendBelow) is drawn in (empty when it has none). The data areas are aligned and
// of one size, as plot.Align makes them on the canvas less the legends' room: every column
// gets the room its widest legend right of its panels needs, and each row of panels the
// height of its tallest legend below it. Where some panel has a legend below, titles too
// wide for their panel are wrapped (fitTitle). A single plot gets the whole canvas but its
// legend's room, as gonum/plot draws it (figures sized to their content, the textured-MNIST
// image grid, must not lose a margin), and a margin when it has a legend below.
func layoutGrid(plots [][]*plot.Plot, dc draw.Canvas) (plotCs, legendCs, belowCs [][]draw.Canvas) {
	if len(plots) == 1 && len(plots[0]) == 1 {
		p := plots[0][0]
		if belowOf(p) == nil {
			plotC, legendC := panelLayout(p, dc, legendWidth(p, dc))
			return [][]draw.Canvas{{plotC}}, [][]draw.Canvas{{legendC}}, [][]draw.Canvas{{emptyAt(plotC)}}
		}
		// A margin, as the grid's tiles have: gonum/plot draws a single plot's title and y
		// label to the canvas's edges, where their ascent and descent would be cut.
		dc = draw.Crop(dc, singleMargin, -singleMargin, singleMargin, -singleMargin)
		fitTitle(p, dc.Max.X-dc.Min.X)
		h := belowHeight(p, dc)
		c := dc
		c.Min.Y += h
		below := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: p.DataCanvas(c).Min.X, Y: dc.Min.Y}, Max: vg.Point{X: dc.Max.X, Y: dc.Min.Y + h}}}
		plotC, legendC := panelLayout(p, c, legendWidth(p, c))
		return [][]draw.Canvas{{plotC}}, [][]draw.Canvas{{legendC}}, [][]draw.Canvas{{below}}
	}
	// The grid's size and the width of each column's widest legend right of its panels.
	rows, cols := len(plots), 0
	for _, r := range plots {
		cols = max(cols, len(r))
	}
	lw := make([]vg.Length, cols)
	var total vg.Length
	for _, r := range plots {
		for j, p := range r {
			if p != nil {
				lw[j] = max(lw[j], legendWidth(p, dc))
			}
		}
	}
	for _, w := range lw {
		total += w
	}
	narrow := dc
	narrow.Max.X -= total
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: 8 * vg.Millimeter, PadY: 6 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	// Widths do not depend on heights: a first alignment gives each panel its width, for its
	// title and its legend below.
	first := plot.Align(plots, t, narrow)
	if slices.ContainsFunc(slices.Concat(plots...), func(p *plot.Plot) bool { return belowOf(p) != nil }) {
		for i, r := range plots {
			for j, p := range r {
				fitTitle(p, first[i][j].Max.X-first[i][j].Min.X) // nothing for a nil p
			}
		}
		first = plot.Align(plots, t, narrow)
	}
	legH := make([]vg.Length, rows)
	var sum vg.Length
	for i, r := range plots {
		for j, p := range r {
			if p != nil {
				legH[i] = max(legH[i], belowHeight(p, first[i][j]))
			}
		}
		sum += legH[i]
	}
	short := narrow
	short.Min.Y += sum
	aligned := plot.Align(plots, t, short)
	plotCs, legendCs, belowCs = make([][]draw.Canvas, rows), make([][]draw.Canvas, rows), make([][]draw.Canvas, rows)
	var down vg.Length
	for i := range aligned {
		n := len(aligned[i])
		plotCs[i], legendCs[i], belowCs[i] = make([]draw.Canvas, n), make([]draw.Canvas, n), make([]draw.Canvas, n)
		var shift vg.Length
		for j, c := range aligned[i] {
			c.Rectangle = c.Rectangle.Add(vg.Point{X: shift, Y: -down})
			plotCs[i][j] = c
			legendCs[i][j], belowCs[i][j] = emptyAt(c), emptyAt(c)
			if j < len(plots[i]) && plots[i][j] != nil {
				p := plots[i][j]
				if lw[j] > 0 {
					legendCs[i][j] = legendBeside(p, c, lw[j])
				}
				if belowOf(p) != nil {
					belowCs[i][j] = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
						Min: vg.Point{X: p.DataCanvas(c).Min.X, Y: c.Min.Y - legH[i]}, Max: vg.Point{X: c.Max.X, Y: c.Min.Y}}}
				}
			}
			shift += lw[j]
		}
		down += legH[i]
	}
	return plotCs, legendCs, belowCs
}
