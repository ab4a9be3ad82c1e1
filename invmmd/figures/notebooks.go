package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/results"
)

// Plots of the experiment notebooks (01–03): the balance of each split, the features of a
// two-dimensional data set, and the training curves of h.

// cellNames label the four (Y, Z) cells in the order Balance and Features2D draw them.
var cellNames = [4]string{"Y=0, Z=0", "Y=0, Z=1", "Y=1, Z=0", "Y=1, Z=1"}

// cellColor is the colour of cell c of cellNames (CellColors).
func cellColor(c int) color.Color { return CellColors[c/2][c%2] }

// Balance returns the two panels of a data set's balance, one group of four bars per split
// (e.g. the Summarize of train, validation and test): the share of rows in each (Y, Z)
// cell, which shows how the Y–Z association moves between training and test, and
// P(Δ = 1 | Y, Z), the fraction of each cell whose Z is observed, which shows what the
// observed-only estimators see. A cell with no rows has no observed-fraction bar. It is an
// error to give no summary or a summary of no rows.
func Balance(sums []dataset.Summary) ([][]*plot.Plot, error) {
	if len(sums) == 0 {
		return nil, fmt.Errorf("figures: Balance: no summaries")
	}
	names := make([]string, len(sums))
	for i, s := range sums {
		if s.N == 0 {
			return nil, fmt.Errorf("figures: Balance: split %q has no rows", s.Name)
		}
		names[i] = fmt.Sprintf("%s (%d rows)", s.Name, s.N)
	}
	share := newPlot("Share of rows in each (Y, Z) cell", "", "share of the split")
	obs := newPlot("Fraction of each cell with Z observed, P(Δ = 1 | Y, Z)", "", "P(Δ = 1 | Y, Z)")
	const barWidth = 18
	for c := 0; c < 4; c++ {
		y, z := c/2, c%2
		vals := [2]plotter.Values{make(plotter.Values, len(sums)), make(plotter.Values, len(sums))} // share, obs
		for i, s := range sums {
			vals[0][i] = float64(s.CountsYZ[y][z]) / float64(s.N)
			if s.CountsYZ[y][z] > 0 {
				vals[1][i] = s.PObsGivenYZ[y][z]
			}
		}
		for k, p := range []*plot.Plot{share, obs} {
			b, err := plotter.NewBarChart(vals[k], vg.Points(barWidth))
			if err != nil {
				return nil, fmt.Errorf("figures: Balance: %w", err)
			}
			b.Color = cellColor(c)
			b.LineStyle.Width = 0
			b.Offset = vg.Points(barWidth * (float64(c) - 1.5))
			p.Add(b)
			p.Legend.Add(cellNames[c], b)
		}
	}
	for _, p := range []*plot.Plot{share, obs} {
		p.NominalX(names...)
		p.Y.Min, p.Y.Max = 0, 1.15 // room for the legend above the bars
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
	}
	return [][]*plot.Plot{{share, obs}}, nil
}

// Features2D draws the first two features of s, one point per row for at most maxRows rows
// (the first ones; the sets are shuffled, so a random sample; 0 means every row), coloured
// by the (Y, Z) cell: a filled disc where Z is observed, a ring where it is missing (the
// title says so; the legend names the cells). It is meant for the simulation, whose two
// features carry Y + Z and Y − Z. It is an error when s has fewer than two features or no
// rows.
func Features2D(title string, s *dataset.Set, maxRows int) (*plot.Plot, error) {
	if s.Dim() < 2 {
		return nil, fmt.Errorf("figures: Features2D %q: set %q has %d feature(s), want at least 2", title, s.Name, s.Dim())
	}
	n := s.Len()
	if maxRows > 0 {
		n = min(n, maxRows)
	}
	if n == 0 {
		return nil, fmt.Errorf("figures: Features2D %q: set %q has no rows", title, s.Name)
	}
	var pts [4][2]plotter.XYs // [cell][observed]
	for i := 0; i < n; i++ {
		x := s.Row(i)
		c := 2*int(s.Y[i]) + int(s.Z[i])
		o := int(s.Delta[i])
		pts[c][o] = append(pts[c][o], plotter.XY{X: float64(x[0]), Y: float64(x[1])})
	}
	p := newPlot(title, "X1 ~ N(Y − Z, σ²)", "X2 ~ N(Y + Z, σ²)")
	for c := 0; c < 4; c++ {
		for o := 0; o < 2; o++ {
			if len(pts[c][o]) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(pts[c][o])
			if err != nil {
				return nil, fmt.Errorf("figures: Features2D %q: %w", title, err)
			}
			shape := [2]draw.GlyphDrawer{draw.RingGlyph{}, draw.CircleGlyph{}}[o] // a ring where Z is missing
			sc.GlyphStyle = draw.GlyphStyle{Color: cellColor(c), Radius: vg.Points(1.8), Shape: shape}
			p.Add(sc)
			if o == 1 || len(pts[c][1]) == 0 {
				p.Legend.Add(cellNames[c], sc)
			}
		}
	}
	p.Title.Text += " (disc: Z observed, ring: Z missing)"
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p, nil
}

// Curves returns the two panels of the training curves of one or more fits of h: the
// training loss (mean over the epoch's steps of NLL + λ·penalty) and the validation
// objective (the method's own estimator), per epoch, one line per fit in its method's
// colour (MethodColor, when the curve's name names one, e.g. "h (dr)"), with a ring on the
// epoch whose weights were kept. It is an error to give no curve or one with no epoch,
// or a non-finite value. (experiments.CurveOf makes a curve of a train.History.)
func Curves(curves []results.Curve) ([][]*plot.Plot, error) {
	if len(curves) == 0 {
		return nil, fmt.Errorf("figures: Curves: no curves")
	}
	loss := newPlot("Training loss: NLL + λ·penalty", "epoch", "mean over the epoch's steps")
	val := newPlot("Validation objective (ring: the epoch kept)", "epoch", "method's own estimate")
	for k, h := range curves {
		if len(h.Epochs) == 0 {
			return nil, fmt.Errorf("figures: Curves: curve %d (%q) has no epochs", k, h.Name)
		}
		var xys [2]plotter.XYs // loss, validation
		for _, e := range h.Epochs {
			if math.IsNaN(e.TrainLoss) || math.IsInf(e.TrainLoss, 0) || math.IsNaN(e.ValObjective) || math.IsInf(e.ValObjective, 0) {
				return nil, fmt.Errorf("figures: Curves: %s, epoch %d: loss %v, validation %v, want finite values", h.Name, e.Epoch, e.TrainLoss, e.ValObjective)
			}
			xys[0] = append(xys[0], plotter.XY{X: float64(e.Epoch), Y: e.TrainLoss})
			xys[1] = append(xys[1], plotter.XY{X: float64(e.Epoch), Y: e.ValObjective})
		}
		c := seriesColor(h.Name, k)
		for i, p := range []*plot.Plot{loss, val} {
			l := &plotter.Line{XYs: xys[i], LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1.5)}} // finite, checked above
			p.Add(l)
			p.Legend.Add(h.Name, l)
		}
		if b := h.BestEpoch; b >= 1 && b <= len(h.Epochs) {
			val.Add(&plotter.Scatter{XYs: plotter.XYs{xys[1][b-1]}, GlyphStyle: draw.GlyphStyle{Shape: draw.RingGlyph{}, Radius: vg.Points(5), Color: c}})
		}
	}
	for _, p := range []*plot.Plot{loss, val} {
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
	}
	return [][]*plot.Plot{{loss, val}}, nil
}
