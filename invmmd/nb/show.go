package nb

import (
	"html"
	"image/color"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/invmmd/invmmd/invmmd/figures"
)

// ShowPNG displays an image inline. gonbui sends it to the kernel asynchronously: Sync
// waits until it has arrived, or a cell that ends right after it may exit before it is
// shown, and the figure is silently lost.
func ShowPNG(png []byte) {
	gonbui.DisplayPng(png)
	sync()
}

// Show displays one plot at the default figure size (figures.Width × figures.Height).
func Show(p *plot.Plot) { ShowSized(p, figures.Width, figures.Height) }

// ShowSized displays one plot at w × h.
func ShowSized(p *plot.Plot, w, h vg.Length) { ShowPNG(Must(figures.PNG(p, w, h))) }

// ShowGrid displays rows of panels, two figure widths wide.
func ShowGrid(g [][]*plot.Plot) { showGrid(g, 2*figures.Width, figures.Height) }

// ShowRow displays panels side by side, two figure widths wide.
func ShowRow(panels ...*plot.Plot) { ShowGrid([][]*plot.Plot{panels}) }

// ShowResults displays a results figure (figures.Results) at the size it is drawn for.
func ShowResults(g [][]*plot.Plot) { showGrid(g, figures.ResultsWidth, figures.ResultsHeight) }

// ShowVariance displays the variance figure (figures.Variance) at the size it is drawn for.
func ShowVariance(g [][]*plot.Plot) { showGrid(g, figures.VarianceWidth, figures.VarianceHeight) }

// ShowCalibration displays the invariance test's calibration figure (figures.Calibration)
// at the size it is drawn for.
func ShowCalibration(g [][]*plot.Plot) {
	showGrid(g, figures.CalibrationWidth, figures.CalibrationHeight)
}

// showGrid displays a grid of panels at w × h.
func showGrid(g [][]*plot.Plot, w, h vg.Length) { ShowPNG(Must(figures.GridPNG(g, w, h))) }

// ShowMarkdown displays Markdown: a table, a list of notes.
func ShowMarkdown(s string) {
	gonbui.DisplayMarkdown(s)
	sync()
}

// sync waits for what was sent to the kernel and stops the cell if sending failed.
func sync() {
	gonbui.Sync()
	if err := gonbui.Error(); err != nil {
		panic(err)
	}
}

// LiveProgress shows the progress lines written to it in one output that is updated in
// place while the cell runs; Done clears it, so that the saved notebook keeps the cell's
// summary only (a saved output with \r or terminal escape codes fails the notebook check).
// Use it as experiments.RunConfig.Progress.
type LiveProgress struct{ id string }

// NewLiveProgress returns a progress output with an id of its own.
func NewLiveProgress() *LiveProgress { return &LiveProgress{id: gonbui.UniqueId()} }

// Write implements io.Writer: the output shows the last line written.
func (p *LiveProgress) Write(b []byte) (int, error) {
	if line := lastLine(string(b)); line != "" {
		gonbui.UpdateHtml(p.id, "<pre>"+html.EscapeString(line)+"</pre>")
	}
	return len(b), nil
}

// Done removes the progress line.
func (p *LiveProgress) Done() {
	gonbui.UpdateHtml(p.id, "")
	gonbui.Sync()
}

// lastLine returns the last non-blank line of s, lines ending at \n or \r (a progress
// bar redraws its line with \r), without the terminal's erase-line code.
func lastLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(strings.ReplaceAll(lines[i], "\x1b[K", "")); l != "" {
			return l
		}
	}
	return ""
}

// VLine draws a dashed black vertical line at x across p's vertical range, with a legend
// entry when label is set: a threshold on a histogram, e.g. the 0.3 of a missingness rule.
// Call it after the data are on p, so that the line spans them.
func VLine(p *plot.Plot, x float64, label string) {
	l := Must(plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}}))
	l.Color, l.Width = color.Black, vg.Points(1.2)
	l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(l)
	if label != "" {
		p.Legend.Add(label, l)
	}
}
