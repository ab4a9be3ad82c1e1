package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/results"
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
	Grey   = color.RGBA{120, 120, 120, 255}
	Series = []color.Color{Blue, Orange, Green, Red, Purple, Sky, Black, Yellow}
)

// DefaultChance is the accuracy of guessing a balanced binary label, the bottom of the
// results figures' accuracy axis: every experiment of the paper has P(Y = 1) = 1/2.
const DefaultChance = 0.5

// MMDLinear is where the results figures' train-MMD axis turns from linear (within ±MMDLinear)
// to logarithmic: below the paper's printed precision (0.01) differences are noise.
const MMDLinear = 0.01

// ResultOption adds to a results figure what its table does not hold: reference lines and
// where the paper's numbers come from.
type ResultOption func(*resultOptions)

type resultOptions struct {
	chance       float64
	ceiling      float64 // NaN: none
	ceilingWhat  string
	paperDataset string
}

// Chance sets the chance accuracy (default DefaultChance): the accuracy axis starts there,
// with a reference line.
func Chance(acc float64) ResultOption { return func(o *resultOptions) { o.chance = acc } }

// Ceiling draws a reference line at the best test accuracy an invariant model can reach,
// e.g. Ceiling(0.843, "invariant h*") in the simulation; what names the source.
func Ceiling(acc float64, what string) ResultOption {
	return func(o *resultOptions) { o.ceiling, o.ceilingWhat = acc, what }
}

// PaperDataset says that the paper's numbers come from another dataset than ours (e.g.
// "MIMIC-III" next to the NMES1988 stand-in); the legend says so.
func PaperDataset(name string) ResultOption {
	return func(o *resultOptions) { o.paperDataset = name }
}

// Hints draws what an experiment's FigureHints say (an experiment's Figure): its ceiling
// when it has one (Ceiling) and the paper's dataset when it is not ours (PaperDataset).
func Hints(h results.FigureHints) ResultOption {
	return func(o *resultOptions) {
		if h.Ceiling > 0 {
			Ceiling(h.Ceiling, h.CeilingWhat)(o)
		}
		if h.PaperDataset != "" {
			PaperDataset(h.PaperDataset)(o)
		}
	}
}

// Results returns the two panels of an experiment's summary figure, one point per method:
//   - test accuracy on an axis from chance up, with lines at chance, at none's accuracy and
//     at the invariant ceiling when given (Ceiling);
//   - train MMD² (the full-data estimator) on a symmetric log axis (SymLog, linear within
//     ±MMDLinear), so that none's large value and the others' small ones are all readable.
//
// Ours is a filled dot with a ± standard deviation whisker over seeds; the paper's mean and
// standard deviation, where it reports the method, is an open diamond beside it. A value
// beyond the axis is a triangle on the edge with its value printed. One legend, right of the
// train-MMD panel (so right of the figure), says what the markers of both panels, the
// accuracy panel's lines and the train-MMD axis are; the accuracy panel has none.
func Results(title string, sums []results.Summary, paper map[string]results.PaperRow, opts ...ResultOption) ([][]*plot.Plot, error) {
	if len(sums) == 0 {
		return nil, fmt.Errorf("figures: Results %q: no methods", title)
	}
	o := resultOptions{chance: DefaultChance, ceiling: math.NaN()}
	for _, f := range opts {
		f(&o)
	}
	acc := methodPanel(title+": test accuracy", "test accuracy", false, sums, paper, o,
		func(s results.Summary) results.Cell { return s.TeAcc },
		func(p results.PaperRow) results.Cell { return p.TeAcc })
	// The markers mean the same in both panels: one legend, right of the figure (the
	// train-MMD panel's), says what they and the accuracy panel's lines are.
	mmd := methodPanel(title+": train MMD² (full-data estimator)", "train MMD²", true, sums, paper, o,
		func(s results.Summary) results.Cell { return s.TrMMD },
		func(p results.PaperRow) results.Cell { return p.TrMMD })
	if err := mmdAxis(mmd, sums, paper); err != nil {
		return nil, fmt.Errorf("figures: Results %q: %w", title, err)
	}
	accuracyAxis(acc, &mmd.Legend, sums, paper, o)
	mmd.Legend.Add(" ")
	mmd.Legend.Add("right panel: log axis,")
	mmd.Legend.Add(fmt.Sprintf("linear within ±%g", MMDLinear))
	return [][]*plot.Plot{{acc, mmd}}, nil
}

// methodPanel draws ours and the paper's value of one cell per method; with legend, its
// legend says what the markers are.
func methodPanel(title, ylabel string, legend bool, sums []results.Summary, paper map[string]results.PaperRow, o resultOptions,
	ours func(results.Summary) results.Cell, theirs func(results.PaperRow) results.Cell) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	grid := plotter.NewGrid()
	grid.Vertical.Width = 0
	p.Add(grid)
	we, them := newDotWhiskers(Blue, draw.CircleGlyph{}, true), newDotWhiskers(Red, diamond{}, false)
	we.labelLeft = true // ours sits left of the paper's
	names := make([]string, len(sums))
	minN, maxN := sums[0].N, sums[0].N
	for i, s := range sums {
		names[i] = s.Method
		minN, maxN = min(minN, s.N), max(maxN, s.N)
		x := float64(i)
		pr, ok := paper[s.Method]
		if ok {
			x -= 0.15
			c := theirs(pr)
			them.add(float64(i)+0.15, c.Mean, c.Std)
		}
		c := ours(s)
		we.add(x, c.Mean, c.Std)
	}
	p.Add(we)
	seeds := fmt.Sprintf("%d seeds", maxN)
	if minN != maxN {
		seeds = fmt.Sprintf("%d–%d seeds", minN, maxN)
	}
	if len(them.x) > 0 {
		p.Add(them)
	}
	if legend {
		p.Legend.Add("both panels:")
		if maxN <= 1 {
			p.Legend.Add("ours (1 seed: no spread)", we)
		} else {
			p.Legend.Add("ours: mean ± sd over "+seeds, we)
		}
		if len(them.x) > 0 {
			label := "paper: mean ± sd, where reported"
			if o.paperDataset != "" {
				label = fmt.Sprintf("paper (%s): mean ± sd, where reported", o.paperDataset)
			}
			p.Legend.Add(label, them)
		}
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(sums))-0.4
	return p
}

// accuracyAxis starts the accuracy axis just below chance, ends it just above the highest
// value, and adds the reference lines, named in legend under "left panel (test accuracy):".
func accuracyAxis(p *plot.Plot, legend *plot.Legend, sums []results.Summary, paper map[string]results.PaperRow, o resultOptions) {
	hi := o.chance
	if !math.IsNaN(o.ceiling) {
		hi = math.Max(hi, o.ceiling)
	}
	for _, s := range sums {
		hi = math.Max(hi, s.TeAcc.Mean+s.TeAcc.Std)
		if pr, ok := paper[s.Method]; ok {
			hi = math.Max(hi, pr.TeAcc.Mean+pr.TeAcc.Std)
		}
	}
	span := hi - o.chance
	p.Y.Min = o.chance - 0.04*span
	p.Y.Max = math.Min(1, hi+0.06*span)
	p.Y.Tick.Marker = roundTicks{}
	chance := newHLine(o.chance, Grey, vg.Points(6), vg.Points(3))
	p.Add(chance)
	legend.Add(" ")
	legend.Add("left panel (test accuracy):")
	legend.Add(fmt.Sprintf("chance (%g)", o.chance), chance)
	for _, s := range sums {
		if s.Method == "none" && s.TeAcc.Mean >= p.Y.Min {
			none := newHLine(s.TeAcc.Mean, Blue, vg.Points(2), vg.Points(2))
			none.style.Width = vg.Points(0.8)
			p.Add(none)
			legend.Add(fmt.Sprintf("none, no penalty (%.3f)", s.TeAcc.Mean), none)
		}
	}
	if !math.IsNaN(o.ceiling) {
		ceil := newHLine(o.ceiling, Green, vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2))
		p.Add(ceil)
		legend.Add(fmt.Sprintf("ceiling, %s (%.3f)", o.ceilingWhat, o.ceiling), ceil)
	}
}

// mmdAxis puts the train-MMD panel on a SymLog axis covering every value and whisker, with
// 5% of room on each side.
func mmdAxis(p *plot.Plot, sums []results.Summary, paper map[string]results.PaperRow) error {
	lo, hi := 0.0, 0.0
	for _, s := range sums {
		c := s.TrMMD
		if math.IsNaN(c.Mean) || math.IsInf(c.Mean, 0) {
			return fmt.Errorf("method %s: train MMD %v", s.Method, c.Mean)
		}
		lo, hi = math.Min(lo, c.Mean-c.Std), math.Max(hi, c.Mean+c.Std)
		if pr, ok := paper[s.Method]; ok {
			lo, hi = math.Min(lo, pr.TrMMD.Mean-pr.TrMMD.Std), math.Max(hi, pr.TrMMD.Mean+pr.TrMMD.Std)
		}
	}
	s := SymLog{Linear: MMDLinear}
	flo, fhi := s.forward(lo), s.forward(math.Max(hi, MMDLinear))
	pad := 0.05 * (fhi - flo)
	p.Y.Min, p.Y.Max = s.inverse(flo-pad), s.inverse(fhi+pad)
	p.Y.Scale = s
	p.Y.Tick.Marker = SymLogTicks{Linear: MMDLinear}
	zero := newHLine(0, Grey)
	zero.style.Width = vg.Points(0.6)
	p.Add(zero)
	return nil
}
