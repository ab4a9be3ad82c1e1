package figures

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/experiments"
)

// MeanClip is the top of the variance study's mean axis.
const MeanClip = 1.0

// Variance returns the two panels of the variance study (appendix C.3, figure
// meanstdplot): the mean and the standard deviation of each estimator against batch size.
func Variance(points []experiments.VariancePoint) ([][]*plot.Plot, error) {
	var order []string
	by := map[string]plotter.XYs{}
	bySD := map[string]plotter.XYs{}
	for _, p := range points {
		if _, ok := by[p.Estimator]; !ok {
			order = append(order, p.Estimator)
		}
		by[p.Estimator] = append(by[p.Estimator], plotter.XY{X: float64(p.BatchSize), Y: p.Mean})
		bySD[p.Estimator] = append(bySD[p.Estimator], plotter.XY{X: float64(p.BatchSize), Y: p.Std})
	}
	mean, sd := plot.New(), plot.New()
	mean.Title.Text = "Mean of the MMD estimates"
	sd.Title.Text = "Standard deviation of the MMD estimates"
	for _, p := range []*plot.Plot{mean, sd} {
		p.X.Label.Text = "batch size"
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
	}
	mean.Y.Label.Text = "mean of Σ_y MMD²_y"
	sd.Y.Label.Text = "standard deviation (log scale)"
	sd.Y.Scale = plot.LogScale{}
	sd.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	for k, name := range order {
		for _, pair := range []struct {
			p   *plot.Plot
			xys plotter.XYs
		}{{mean, by[name]}, {sd, bySD[name]}} {
			l, pts, err := plotter.NewLinePoints(pair.xys)
			if err != nil {
				return nil, fmt.Errorf("figures: %w", err)
			}
			c := Series[k%len(Series)]
			l.Color, pts.Color = c, c
			l.Width = vg.Points(1.5)
			pts.Shape = draw.CircleGlyph{}
			pts.Radius = vg.Points(2)
			pair.p.Add(l, pts)
			pair.p.Legend.Add(name, l, pts)
		}
	}
	// Small batches give the DR and IP estimates means far above the rest; clip the mean
	// panel so that the large-batch behaviour stays readable, and say so.
	if mean.Y.Max > MeanClip {
		mean.Y.Max = MeanClip
		mean.Title.Text += fmt.Sprintf(" (axis clipped at %g)", MeanClip)
	}
	return [][]*plot.Plot{{mean, sd}}, nil
}
