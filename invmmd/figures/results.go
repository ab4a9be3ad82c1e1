package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/experiments"
)

// Palette of the project's figures (colour-blind safe, Okabe & Ito 2008).
var (
	Blue   = color.RGBA{0, 114, 178, 255}
	Orange = color.RGBA{230, 159, 0, 255}
	Green  = color.RGBA{0, 158, 115, 255}
	Red    = color.RGBA{213, 94, 0, 255}
	Purple = color.RGBA{204, 121, 167, 255}
	Sky    = color.RGBA{86, 180, 233, 255}
	Yellow = color.RGBA{240, 228, 66, 255}
	Black  = color.RGBA{0, 0, 0, 255}
	Series = []color.Color{Blue, Orange, Green, Red, Purple, Sky, Black, Yellow}
)

// Results returns the two panels of an experiment's summary figure: test accuracy and
// train MMD per method, our mean ± std over seeds as bars with error bars, and the paper's
// mean as a marker where it reports one.
func Results(title string, sums []experiments.Summary, paper map[string]experiments.PaperRow) ([][]*plot.Plot, error) {
	acc, err := methodPanel(title+": test accuracy", "test accuracy", sums, paper,
		func(s experiments.Summary) experiments.Cell { return s.TeAcc },
		func(p experiments.PaperRow) experiments.Cell { return p.TeAcc })
	if err != nil {
		return nil, err
	}
	mmd, err := methodPanel(title+": train MMD (full estimator)", "train MMD²", sums, paper,
		func(s experiments.Summary) experiments.Cell { return s.TrMMD },
		func(p experiments.PaperRow) experiments.Cell { return p.TrMMD })
	if err != nil {
		return nil, err
	}
	return [][]*plot.Plot{{acc, mmd}}, nil
}

type errorBars struct{ x, y, e []float64 }

func (b errorBars) Len() int                        { return len(b.x) }
func (b errorBars) XY(i int) (float64, float64)     { return b.x[i], b.y[i] }
func (b errorBars) YError(i int) (float64, float64) { return b.e[i], b.e[i] }

func methodPanel(title, ylabel string, sums []experiments.Summary, paper map[string]experiments.PaperRow,
	ours func(experiments.Summary) experiments.Cell, theirs func(experiments.PaperRow) experiments.Cell) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	vals := make(plotter.Values, len(sums))
	eb := errorBars{}
	var names []string
	paperXY := plotter.XYs{}
	for i, s := range sums {
		c := ours(s)
		vals[i] = c.Mean
		eb.x, eb.y, eb.e = append(eb.x, float64(i)), append(eb.y, c.Mean), append(eb.e, c.Std)
		names = append(names, s.Method)
		if pr, ok := paper[s.Method]; ok {
			paperXY = append(paperXY, plotter.XY{X: float64(i), Y: theirs(pr).Mean})
		}
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(22))
	if err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	bars.Color = Blue
	bars.LineStyle.Width = 0
	errs, err := plotter.NewYErrorBars(eb)
	if err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	errs.LineStyle.Width = vg.Points(1.2)
	p.Add(bars, errs)
	p.Legend.Add("ours (mean ± std)", bars)
	if len(paperXY) > 0 {
		sc, err := plotter.NewScatter(paperXY)
		if err != nil {
			return nil, fmt.Errorf("figures: %w", err)
		}
		sc.GlyphStyle.Shape = draw.CrossGlyph{}
		sc.GlyphStyle.Color = Red
		sc.GlyphStyle.Radius = vg.Points(5)
		p.Add(sc)
		p.Legend.Add("paper (mean)", sc)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.Add(plotter.NewGrid())
	// Headroom above the tallest bar for the legend.
	p.Y.Min = math.Min(p.Y.Min, 0)
	p.Y.Max += 0.3 * (p.Y.Max - p.Y.Min)
	return p, nil
}
