package figures

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/results"
)

// Size of the diagnosis figure (Diagnosis): two rows of two panels, legible at 900 pixels.
const (
	DiagnosisWidth  = 10 * vg.Inch
	DiagnosisHeight = 7.5 * vg.Inch
)

// diagnosisLinear is the linear range of the diagnosis figure's symmetric-log MMD² axes:
// the estimates of healthy batches (0.01–0.5) sit near it, the blown-up ones (5–20) a
// decade or two above.
const diagnosisLinear = 0.1

// Diagnosis returns the panels of a diagnosed fit (results.DiagnosisStep), one series per
// objective in Series colours: (top) each training step's estimate of MMD²_y for the two
// Y strata, on a symmetric-log axis; (bottom left) each step's training NLL, with log 2,
// the NLL of a constant h on balanced labels; (bottom right) the Y = 0 stratum's estimate
// against the batch's normaliser rows' estimate of P(Z = 1 | Y = 0): with normalisers from
// a quarter of the batch, the batches where that estimate falls short are those whose
// penalty jumps. fit names the fit (in the first panel's title); labels, when they hold an
// objective, name it in the legends (e.g. with its training accuracy).
func Diagnosis(steps []results.DiagnosisStep, fit string, labels map[string]string) ([][]*plot.Plot, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("figures: Diagnosis: no steps")
	}
	var objectives []string
	for _, s := range steps {
		if !slices.Contains(objectives, s.Objective) {
			objectives = append(objectives, s.Objective)
		}
	}
	if len(objectives) > len(series) {
		return nil, fmt.Errorf("figures: Diagnosis: %d objectives, at most %d", len(objectives), len(series))
	}
	of := func(o string) []results.DiagnosisStep {
		var out []results.DiagnosisStep
		for _, s := range steps {
			if s.Objective == o {
				out = append(out, s)
			}
		}
		return out
	}
	lo, hi := 0.0, 0.0
	for _, s := range steps {
		for _, v := range s.MMD2 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	mmdAxis := func(p *plot.Plot) {
		SymLog{Linear: diagnosisLinear}.fit(&p.Y, math.Min(lo, -diagnosisLinear), math.Max(hi, diagnosisLinear), 0.04)
		// No y label on the log axis: gonum/plot then reserves room above the data area as
		// if the label stood there. The titles name the axis.
		p.Y.Label.Text = ""
	}
	label := func(o string) string {
		if l, ok := labels[o]; ok {
			return l
		}
		return o
	}
	stratum := func(y int) *plot.Plot {
		p := plot.New()
		legible(p)
		p.Title.Text = fmt.Sprintf("Y = %d: MMD² estimate per step", y)
		p.X.Label.Text = "training step"
		p.X.Tick.Marker = roundTicks{}
		mmdAxis(p)
		p.Add(newHLine(0, ReferenceColor))
		for k, o := range objectives {
			xys := plotter.XYs{}
			for _, s := range of(o) {
				xys = append(xys, plotter.XY{X: float64(s.Step), Y: s.MMD2[y]})
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				continue
			}
			l.LineStyle = draw.LineStyle{Color: series[k], Width: vg.Points(1)}
			p.Add(l)
			if y == 1 {
				if k == 0 {
					for _, line := range legendLines(fit) {
						p.Legend.Add(line)
					}
					p.Legend.Add("MMD² on log axes;")
					p.Legend.Add("objective:")
				}
				p.Legend.Add(label(o), l)
			}
		}
		return p
	}
	nll := plot.New()
	legible(nll)
	nll.Title.Text = "Training NLL per batch; dashed: log 2"
	nll.X.Label.Text = "training step"
	nll.X.Tick.Marker = roundTicks{}
	nll.Y.Label.Text = "mean NLL (log 2: a constant h)"
	nll.Add(newHLine(math.Ln2, Grey, vg.Points(5), vg.Points(3)))
	for k, o := range objectives {
		xys := plotter.XYs{}
		for _, s := range of(o) {
			xys = append(xys, plotter.XY{X: float64(s.Step), Y: s.NLL})
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			continue
		}
		l.LineStyle = draw.LineStyle{Color: series[k], Width: vg.Points(1.4)}
		nll.Add(l)
	}
	nll.Y.Min = 0

	sc := plot.New()
	legible(sc)
	sc.Title.Text = "Y = 0 stratum: MMD² against P(Z = 1 | Y = 0)"
	sc.X.Label.Text = "P(Z = 1 | Y = 0) estimated on the batch's normaliser rows"
	sc.X.Tick.Marker = roundTicks{}
	mmdAxis(sc)
	sc.Add(newHLine(0, ReferenceColor))
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, diamond{}}
	for k, o := range objectives {
		xys := plotter.XYs{}
		for _, s := range of(o) {
			xys = append(xys, plotter.XY{X: s.PZ1[0], Y: s.MMD2[0]})
		}
		pts, err := plotter.NewScatter(xys)
		if err != nil {
			continue
		}
		pts.GlyphStyle = draw.GlyphStyle{Color: withAlpha(series[k], 170), Radius: vg.Points(2.2), Shape: shapes[k%len(shapes)]}
		sc.Add(pts)
		sc.Legend.Add(label(o), pts)
	}
	return [][]*plot.Plot{{stratum(0), stratum(1)}, {nll, sc}}, nil
}

// legendLines splits a fit's description at its commas into lines of at most about 20
// characters, so that the legend column stays narrow.
func legendLines(fit string) []string {
	var lines []string
	cur := ""
	for _, part := range strings.SplitAfter(fit, ", ") {
		if cur != "" && len([]rune(cur+part)) > 22 {
			lines = append(lines, strings.TrimSpace(cur))
			cur = ""
		}
		cur += part
	}
	if strings.TrimSpace(cur) != "" {
		lines = append(lines, strings.TrimSpace(cur))
	}
	return lines
}
