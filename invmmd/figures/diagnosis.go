package figures

import (
	"fmt"
	"image/color"
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

// Diagnosis returns the panels of a diagnosed fit (results.DiagnosisStep), one series per
// objective in Series colours: (top) each training step's estimate of MMD²_y for the two
// Y strata; (bottom left) each step's training NLL, with log 2, the NLL of a constant h on
// balanced labels; (bottom right) the Y = 0 stratum's estimate against the batch's
// normaliser rows' estimate of P(Z = 1 | Y = 0) (pzScatter), or, where that estimate is the
// same at every step, each stratum's per step (pzLines). The MMD² axes turn SymLog beyond
// ±diagnosisLogFrom, as their titles say. An objective whose steps equal an earlier one's at
// every step is drawn dashed over it, as its legend entry says. fit names the fit in the
// legend; labels, when they hold an objective, name it there (e.g. with its training
// accuracy). kept, per objective, is the epoch whose weights were kept and its validation
// values (the step tables hold training values only): the top and bottom-left panels mark
// that epoch's last step (keptMark) and write in their titles its validation value of what
// they draw. The legends are below the top-left panel (the lines) and the bottom-right one
// (the markers).
func Diagnosis(steps []results.DiagnosisStep, fit string, labels map[string]string, kept []results.DiagnosisKept) ([][]*plot.Plot, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("figures: Diagnosis: no steps")
	}
	objectives := distinct(steps, func(s results.DiagnosisStep) string { return s.Objective })
	if len(objectives) > len(series) {
		return nil, fmt.Errorf("figures: Diagnosis: %d objectives, at most %d", len(objectives), len(series))
	}
	of := map[string][]results.DiagnosisStep{} // each objective's steps
	for _, s := range steps {
		of[s.Objective] = append(of[s.Objective], s)
	}
	// same[k]: the earlier objective whose steps objective k repeats, or -1.
	same := make([]int, len(objectives))
	for k, o := range objectives {
		same[k] = slices.IndexFunc(objectives[:k], func(e string) bool { return sameSteps(of[o], of[e]) })
	}
	label := func(k int) string {
		l, ok := labels[objectives[k]]
		if !ok {
			l = objectives[k]
		}
		if j := same[k]; j >= 0 {
			l += fmt.Sprintf(" (dashed: the same at every step as %s)", objectives[j])
		}
		return l
	}
	style := func(k int, width float64) draw.LineStyle {
		s := draw.LineStyle{Color: series[k], Width: vg.Points(width)}
		if same[k] >= 0 {
			s.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		return s
	}
	lo, hi := 0.0, 0.0
	for _, s := range steps {
		for _, v := range s.MMD2 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	marks, err := newKeptMarks(kept, objectives, of)
	if err != nil {
		return nil, err
	}
	symlog := math.Max(-lo, hi) > diagnosisLogFrom
	mmdAxis := func(p *plot.Plot) {
		if !symlog {
			pad := math.Max(0.06*(hi-lo), 1e-3)
			p.Y.Min, p.Y.Max = lo-pad, hi+pad
			p.Y.Tick.Marker = roundTicks{most: 8}
			p.Y.Label.Text = "MMD² estimate"
			return
		}
		SymLog{Linear: diagnosisLinear}.fit(&p.Y, math.Min(lo, -diagnosisLinear), math.Max(hi, diagnosisLinear), 0.04)
		p.Y.Tick.Marker = SymLogTicks{Linear: diagnosisLinear, Sparse: true}
		// No y label on a SymLog axis (see mmdAxis of the results figure; these panels start
		// without one): the titles name the axis and say how it is scaled.
		p.Title.Text += fmt.Sprintf("\ny axis linear within ±%g, logarithmic beyond", diagnosisLinear)
	}
	stratum := func(y int) *plot.Plot {
		p := legiblePlot(fmt.Sprintf("Y = %d: MMD² estimate per step", y), "training step", "")
		p.X.Tick.Marker = roundTicks{}
		mmdAxis(p)
		p.Add(hLine(0, 1.2, ReferenceColor))
		marks.addTo(p)
		marks.title(p, func(k results.DiagnosisKept) string { return signed(k.ValStrata[y]) }, "validation MMD² estimate")
		var l *belowLegend
		if y == 0 {
			l = legendBelow(p)
			l.add(fit + "; objective:")
		}
		for k, o := range objectives {
			line := stepLine(of[o], func(s results.DiagnosisStep) float64 { return s.MMD2[y] }, style(k, 1))
			p.Add(line)
			if l != nil {
				l.add(label(k), line)
			}
		}
		if l != nil && len(marks) > 0 {
			l.add("the last step of the epoch kept (lowest validation objective)", marks[0])
		}
		marks.headroom(&p.Y)
		return p
	}
	nll := legiblePlot("Training NLL per batch; dashed: log 2 (a constant h)", "training step", "mean NLL")
	nll.X.Tick.Marker = roundTicks{}
	nll.Y.Tick.Marker = roundTicks{most: 8}
	nll.Add(hLine(math.Ln2, 1.2, Grey, vg.Points(5), vg.Points(3)))
	for k, o := range objectives {
		nll.Add(stepLine(of[o], func(s results.DiagnosisStep) float64 { return s.NLL }, style(k, 1.4)))
	}
	nll.Y.Min = 0
	marks.headroom(&nll.Y)
	marks.addTo(nll)
	marks.title(nll, func(k results.DiagnosisKept) string {
		return fmt.Sprintf("NLL %.3f, objective %s", k.ValNLL, signed(k.Val))
	}, "validation")
	var normalisers *plot.Plot
	if pz := pzRange(steps); pz[1]-pz[0] > 1e-9 {
		normalisers = pzScatter(pz, objectives, of, label, mmdAxis)
	} else {
		normalisers = pzLines(objectives, of, style)
	}
	return [][]*plot.Plot{{stratum(0), stratum(1)}, {nll, normalisers}}, nil
}

// stepLine is the line of value over steps (one point per step), drawn with ls.
func stepLine(steps []results.DiagnosisStep, value func(results.DiagnosisStep) float64, ls draw.LineStyle) *plotter.Line {
	line := &plotter.Line{XYs: make(plotter.XYs, len(steps)), LineStyle: ls}
	for i, s := range steps {
		line.XYs[i] = plotter.XY{X: float64(s.Step), Y: value(s)}
	}
	return line
}

// Where the diagnosis figure's MMD² axes turn logarithmic: beyond ±diagnosisLogFrom some
// estimate has blown up, and the axis is a SymLog, linear within ±diagnosisLinear (the
// estimates of healthy batches, 0.01–0.5, sit near it; the blown-up ones, 5–20, a decade or
// two above); within it, a linear axis shows the estimates as they are.
const (
	diagnosisLinear  = 0.1
	diagnosisLogFrom = 1.0
)

// sameSteps says whether two objectives' steps hold the same numbers at every step.
func sameSteps(a, b []results.DiagnosisStep) bool {
	return slices.EqualFunc(a, b, func(x, y results.DiagnosisStep) bool {
		x.Objective, y.Objective = "", ""
		return x == y
	})
}

// pzRange is the range of the steps' estimates of P(Z = 1 | Y = 0).
func pzRange(steps []results.DiagnosisStep) [2]float64 {
	r := [2]float64{math.Inf(1), math.Inf(-1)}
	for _, s := range steps {
		r[0], r[1] = math.Min(r[0], s.PZ1[0]), math.Max(r[1], s.PZ1[0])
	}
	return r
}

// pzScatter is the diagnosis figure's bottom-right panel when the normalisers vary: the
// Y = 0 stratum's estimate against its normaliser rows' P(Z = 1 | Y = 0), one marker shape
// per objective, the x axis on the estimates' range r (a probability: within [0, 1]). With
// normalisers from a quarter of the batch, the batches where that estimate falls short are
// those whose penalty jumps.
func pzScatter(r [2]float64, objectives []string, of map[string][]results.DiagnosisStep, label func(int) string, mmdAxis func(*plot.Plot)) *plot.Plot {
	sc := legiblePlot("Y = 0 stratum: MMD² against P(Z = 1 | Y = 0)", "P(Z = 1 | Y = 0) estimated on the batch's normaliser rows", "")
	pad := 0.04 * (r[1] - r[0])
	sc.X.Min, sc.X.Max = math.Max(0, r[0]-pad), math.Min(1, r[1]+pad)
	sc.X.Tick.Marker = roundTicks{}
	mmdAxis(sc)
	sc.Add(hLine(0, 1.2, ReferenceColor))
	l := legendBelow(sc)
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, diamond{}}
	for k, o := range objectives {
		xys := plotter.XYs{}
		for _, s := range of[o] {
			xys = append(xys, plotter.XY{X: s.PZ1[0], Y: s.MMD2[0]})
		}
		pts, err := plotter.NewScatter(xys)
		if err != nil {
			continue
		}
		pts.GlyphStyle = draw.GlyphStyle{Color: withAlpha(series[k], 170), Radius: vg.Points(2.2), Shape: shapes[k%len(shapes)]}
		sc.Add(pts)
		l.add(label(k), pts)
	}
	return sc
}

// pzLines is the diagnosis figure's bottom-right panel when every step's normaliser rows
// give the same P(Z = 1 | Y = 0) (one full batch, or normalisers of the training split),
// where a scatter would be one stripe: each stratum's estimate of P(Z = 1 | y) per step on
// a probability axis, labelled with its value.
func pzLines(objectives []string, of map[string][]results.DiagnosisStep, style func(int, float64) draw.LineStyle) *plot.Plot {
	p := legiblePlot("P(Z = 1 | y) on the normaliser rows: the same at every step", "training step", "P(Z = 1 | y)")
	p.X.Tick.Marker = roundTicks{}
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = roundTicks{most: 6}
	for k, o := range objectives {
		st := of[o]
		for y := range 2 {
			p.Add(stepLine(st, func(s results.DiagnosisStep) float64 { return s.PZ1[y] }, style(k, 1.4)))
			if k == 0 && len(st) > 0 {
				p.Add(&lineLabel{x: float64(st[len(st)-1].Step), y: st[0].PZ1[y], text: fmt.Sprintf("Y = %d: %.3f", y, st[0].PZ1[y])})
			}
		}
	}
	return p
}

// keptMark is a dotted vertical line at the last step of an objective's kept epoch, in the
// objective's colour, with "kept: epoch E" near its top (the marks' labels one below the
// other); kept holds the objectives that kept that step (one line for several).
type keptMark struct {
	step int
	kept []results.DiagnosisKept
	col  color.Color
	row  int // the label's row from the top: one per mark, so that labels do not overlap
}

// keptMarks are the diagnosis figure's kept-epoch marks (newKeptMarks).
type keptMarks []*keptMark

// newKeptMarks returns the kept-epoch marks, one per distinct step, in the order of the
// objectives. An objective kept an epoch its steps do not reach is an error; one without a
// kept epoch gets no mark.
func newKeptMarks(kept []results.DiagnosisKept, objectives []string, of map[string][]results.DiagnosisStep) (keptMarks, error) {
	var out keptMarks
	for k, o := range objectives {
		i := slices.IndexFunc(kept, func(x results.DiagnosisKept) bool { return x.Objective == o })
		if i < 0 {
			continue
		}
		step := 0
		for _, s := range of[o] {
			if s.Epoch == kept[i].Epoch {
				step = s.Step
			}
		}
		if step == 0 {
			return nil, fmt.Errorf("figures: Diagnosis: %s kept epoch %d, which none of its steps belongs to", o, kept[i].Epoch)
		}
		if j := slices.IndexFunc(out, func(m *keptMark) bool { return m.step == step }); j >= 0 {
			out[j].kept = append(out[j].kept, kept[i])
			continue
		}
		out = append(out, &keptMark{step: step, kept: []results.DiagnosisKept{kept[i]}, col: series[k], row: len(out)})
	}
	return out, nil
}

// addTo draws the marks on p.
func (ms keptMarks) addTo(p *plot.Plot) {
	for _, m := range ms {
		p.Add(m)
	}
}

// headroom raises ax's top so that the marks' labels, one row each at the top of the data
// area, sit above the data: by keptRow of the axis's span per label.
func (ms keptMarks) headroom(ax *plot.Axis) {
	if len(ms) == 0 {
		return
	}
	extra := keptRow * float64(len(ms)) / (1 - keptRow*float64(len(ms)))
	if s, ok := ax.Scale.(SymLog); ok {
		lo, hi := s.forward(ax.Min), s.forward(ax.Max)
		ax.Max = s.inverse(hi + extra*(hi-lo))
		return
	}
	ax.Max += extra * (ax.Max - ax.Min)
}

// keptRow is the share of a panel's data area's height a kept-epoch label takes.
const keptRow = 0.11

// title adds to p's title a line that writes, per objective, what (e.g. "validation MMD²
// estimate") value gives at its kept epoch: "kept epoch 25, validation …: −0.604 (paper),
// −0.017 (robust)" when the objectives kept the same epoch, else "kept epoch, validation …:
// 0.063 (paper, epoch 20), 0.027 (train-norms, epoch 28)"; none without marks.
func (ms keptMarks) title(p *plot.Plot, value func(results.DiagnosisKept) string, what string) {
	var all []results.DiagnosisKept
	for _, m := range ms {
		all = append(all, m.kept...)
	}
	if len(all) == 0 {
		return
	}
	same := !slices.ContainsFunc(all, func(k results.DiagnosisKept) bool { return k.Epoch != all[0].Epoch })
	parts := make([]string, len(all))
	for i, k := range all {
		if same {
			parts[i] = fmt.Sprintf("%s (%s)", value(k), k.Objective)
		} else {
			parts[i] = fmt.Sprintf("%s (%s, epoch %d)", value(k), k.Objective, k.Epoch)
		}
	}
	head := "kept epoch, " + what
	if same {
		head = fmt.Sprintf("kept epoch %d, %s", all[0].Epoch, what)
	}
	p.Title.Text += "\n" + head + ": " + strings.Join(parts, ", ")
}

// signed writes v to three decimals with a true minus sign.
func signed(v float64) string {
	return strings.Replace(fmt.Sprintf("%.3f", v), "-", "−", 1)
}

// keptStyle is the dotted line of a kept-epoch mark.
func keptStyle(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.3), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2.5)}}
}

// Plot implements plot.Plotter: the line across the data area and, in its row at the top
// (headroom keeps it above the data), "kept: epoch E" right of the line (left of it where
// the text would leave the data area).
func (m *keptMark) Plot(c draw.Canvas, p *plot.Plot) {
	if float64(m.step) < p.X.Min || float64(m.step) > p.X.Max {
		return
	}
	trX, _ := p.Transforms(&c)
	x := trX(float64(m.step))
	c.StrokeLine2(keptStyle(m.col), x, c.Min.Y, x, c.Max.Y)
	epochs := distinct(m.kept, func(k results.DiagnosisKept) string { return fmt.Sprint(k.Epoch) })
	text := "kept: epoch " + strings.Join(epochs, ", ")
	sty := p.X.Tick.Label
	sty.Color = m.col
	sty.YAlign = draw.YTop
	at := vg.Point{X: x + vg.Points(4), Y: c.Max.Y - vg.Points(2) - vg.Length(m.row)*(sty.Height(text)+vg.Points(3))}
	sty.XAlign = draw.XLeft
	if at.X+sty.Width(text) > c.Max.X {
		at.X, sty.XAlign = x-vg.Points(4), draw.XRight
	}
	c.FillText(sty, at, text)
}

// Thumbnail implements plot.Thumbnailer: a vertical dotted line.
func (m *keptMark) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	c.StrokeLine2(keptStyle(m.col), x, c.Min.Y, x, c.Max.Y)
}

// lineLabel writes text just above (x, y), right-aligned at x.
type lineLabel struct {
	x, y float64
	text string
}

// Plot implements plot.Plotter.
func (l *lineLabel) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := p.X.Tick.Label
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	c.FillText(sty, vg.Point{X: trX(l.x), Y: trY(l.y) + vg.Points(3)}, l.text)
}
