package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
)

// ObjectiveRun is the result table of one training objective (the paper's, or a remedy such
// as clip or train-norms) of an experiment at one λ.
type ObjectiveRun struct {
	Objective string // its name, e.g. "paper", "train-norms"
	Rows      []results.Row
}

// ObjectivesSize is the size of an objectives figure (Objectives) of n objectives: as wide as
// a results figure, and 1.8 inches per objective plus room for the title and the legend.
func ObjectivesSize(n int) (w, h vg.Length) {
	return ResultsWidth, vg.Length(n)*1.8*vg.Inch + 1.1*vg.Inch
}

// Objectives returns the figure that compares the objectives an experiment was trained
// with at one λ: one panel per objective, in the order given (the paper's first), each
// with the test accuracy of every method that an objective other than the paper's was run
// with (every method of the runs when there is only the paper's; none, which has no
// penalty, is a reference line), one column per method in the same place in every panel,
// on one shared axis, each seed and the median as Results draws them (seedMarks); a method
// an objective was not run with says so. Each panel's title names the objective, its seeds
// and how many of its fits ended with train accuracy below 0.5 (the inverted label); the
// first adds title. The shared axis spans the seeds' accuracies and the ceiling, with lines
// (referenceLines). The legend, below the first panel, keys the seeds in the colours of the
// methods drawn. It is an error to give no run or a run without rows.
func Objectives(title string, runs []ObjectiveRun, opts ...ResultOption) ([][]*plot.Plot, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("figures: Objectives %q: no runs", title)
	}
	o := resultOptions{chance: DefaultChance}
	for _, f := range opts {
		f(&o)
	}
	var methods []string
	var none []float64
	for k, r := range runs {
		if len(r.Rows) == 0 {
			return nil, fmt.Errorf("figures: Objectives %q: objective %s has no rows", title, r.Objective)
		}
		for _, row := range r.Rows {
			if math.IsNaN(row.TeAcc) || math.IsInf(row.TeAcc, 0) {
				return nil, fmt.Errorf("figures: Objectives %q: objective %s, %s, seed %d: test accuracy %v", title, r.Objective, row.Method, row.Seed, row.TeAcc)
			}
			if row.Method == method.None.String() {
				if none == nil || k == 0 {
					none = append(none, row.TeAcc)
				}
				continue
			}
			if (k > 0 || len(runs) == 1) && !slices.Contains(methods, row.Method) {
				methods = append(methods, row.Method)
			}
		}
	}
	slices.SortStableFunc(methods, func(a, b string) int { return slices.Index(method.Names(), a) - slices.Index(method.Names(), b) })
	// The axis spans the seeds' accuracies and the ceiling; chance and none's median are drawn
	// only where they fall within it.
	lo, hi := math.Inf(1), math.Inf(-1)
	if o.Ceiling > 0 {
		lo, hi = o.Ceiling, o.Ceiling
	}
	var grid [][]*plot.Plot
	var notRuns [][]float64 // per panel, the columns of methods it was not run with
	for k, r := range runs {
		var sums []results.Summary
		by := map[string]results.Summary{}
		for _, s := range results.Summarize(r.Rows) {
			by[s.Method] = s
		}
		inverted, fits := 0, 0
		var seeds []uint64
		var absent []float64 // the columns of methods the objective was not run with
		for _, m := range methods {
			s, ok := by[m]
			if !ok {
				s = results.Summary{Method: m, TeAcc: results.Cell{Mean: math.NaN()}}
				absent = append(absent, float64(len(sums)))
			}
			for _, row := range s.Rows {
				lo, hi = math.Min(lo, row.TeAcc), math.Max(hi, row.TeAcc)
				fits++
				if row.TrAcc < 0.5 {
					inverted++
				}
				if !slices.Contains(seeds, row.Seed) {
					seeds = append(seeds, row.Seed)
				}
			}
			sums = append(sums, s)
		}
		slices.Sort(seeds)
		head := fmt.Sprintf("%s (seeds %s): %d of %d fits ended with train accuracy below 0.5", r.Objective, seedRange(seeds), inverted, fits)
		if k == 0 {
			head = title + ": test accuracy by objective\n" + head
		}
		p, keys := methodPanel(head, "test acc.", sums, nil, teAcc)
		notRuns = append(notRuns, absent)
		if k == 0 && keys.seeds {
			l := legendBelow(p)
			// The methods' own colours when they fit the key (three at most), else the
			// key's three.
			var cols []color.Color
			for _, m := range methods {
				if c, ok := MethodColor(m); ok {
					cols = append(cols, c)
				}
			}
			if len(cols) > 3 {
				cols = nil
			}
			l.add("each seed", legendKey{kind: keySeed, colors: cols})
			l.add("median of the seeds", legendKey{kind: keyMedian})
		}
		grid = append(grid, []*plot.Plot{p})
	}
	if math.IsInf(lo, 0) { // no seed and no ceiling: chance alone
		lo, hi = o.chance, o.chance
	}
	span := math.Max(hi-lo, 0.02)
	for k, row := range grid {
		p := row[0]
		p.Y.Min, p.Y.Max = math.Max(0, lo-0.05*span), math.Min(1, hi+0.06*span)
		p.Y.Tick.Marker = roundTicks{most: 6}
		var l *belowLegend
		if k == 0 {
			l = legendBelow(p)
		}
		referenceLines(p, l, o, none)
		if len(notRuns[k]) > 0 { // over the reference lines
			p.Add(&notRun{x: notRuns[k]})
		}
	}
	return grid, nil
}

// referenceLines draws chance and none's median (from the first run that has none; each
// when within p's y range) and the
// ceiling (when set) across p, and names them in l when l is not nil (chance, when below or
// above the axis, in a note that says so).
func referenceLines(p *plot.Plot, l *belowLegend, o resultOptions, none []float64) {
	add := func(label string, h *refLine) {
		p.Add(h)
		if l != nil {
			l.add(label, h)
		}
	}
	if o.chance >= p.Y.Min && o.chance <= p.Y.Max {
		add(fmt.Sprintf("chance (%g)", o.chance), hLine(o.chance, 1.2, ReferenceColor, vg.Points(6), vg.Points(3)))
	}
	if len(none) > 0 && median(none) >= p.Y.Min && median(none) <= p.Y.Max {
		add(fmt.Sprintf("none's median (%.3f; no penalty)", median(none)), hLine(median(none), 0.8, method.None.Colour(), vg.Points(2), vg.Points(2)))
	}
	if o.Ceiling > 0 {
		add(fmt.Sprintf("ceiling, %s (%.3f)", o.CeilingWhat, o.Ceiling), hLine(o.Ceiling, 0.8, CeilingColor, vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)))
	}
	if l != nil && (o.chance < p.Y.Min || o.chance > p.Y.Max) {
		where := "below"
		if o.chance > p.Y.Max {
			where = "above"
		}
		l.note(fmt.Sprintf("Chance (%g) is %s the axis, which spans the seeds' accuracies.", o.chance, where))
	}
}

// seedRange writes sorted seeds as "1–5" when they run without a gap, else "1, 3, 4".
func seedRange(seeds []uint64) string {
	if len(seeds) == 0 {
		return method.None.String()
	}
	if n := len(seeds); n > 2 && seeds[n-1]-seeds[0] == uint64(n-1) {
		return fmt.Sprintf("%d–%d", seeds[0], seeds[n-1])
	}
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

// notRun writes "not run" on a white box in the middle of the data area at each x: a method
// the panel's objective was not trained with.
type notRun struct{ x []float64 }

// Plot implements plot.Plotter.
func (n *notRun) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := p.X.Tick.Label
	sty.Color = Grey
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	const text = "not run"
	half := vg.Point{X: sty.Width(text)/2 + vg.Points(3), Y: sty.Height(text)/2 + vg.Points(2)}
	for _, x := range n.x {
		at := vg.Point{X: trX(x), Y: (c.Min.Y + c.Max.Y) / 2}
		box := vg.Rectangle{Min: at.Sub(half), Max: at.Add(half)}
		c.SetColor(color.White) // over the reference lines, which it would otherwise strike through
		c.Fill(box.Path())
		c.FillText(sty, at, text)
	}
}
