package figures

import (
	"bytes"
	"html"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/invmmd/invmmd/invmmd/results"
)

type C = results.Cell

// simSums is the shape of the simulation's table: none low, the rest 0.77–0.82.
func simSums(n int) []results.Summary {
	return []results.Summary{
		{Method: "none", N: n, TrMMD: C{Mean: 0.24, Std: 0.04}, TeAcc: C{Mean: 0.683, Std: 0.005}},
		{Method: "obs", N: n, TrMMD: C{Mean: 0.062, Std: 0.011}, TeAcc: C{Mean: 0.773, Std: 0.019}},
		{Method: "full", N: n, TrMMD: C{Mean: -0.002, Std: 0.003}, TeAcc: C{Mean: 0.809, Std: 0.005}},
		{Method: "dr-po", N: n, TrMMD: C{Mean: 0.012, Std: 0.006}, TeAcc: C{Mean: 0.816, Std: 0.006}},
	}
}

var simPaper = map[string]results.PaperRow{
	"none": {TrMMD: C{Mean: 0.21, Std: 0.04}, TeAcc: C{Mean: 0.67, Std: 0.02}},
	"obs":  {TrMMD: C{Mean: 0.05, Std: 0.04}, TeAcc: C{Mean: 0.77, Std: 0.02}},
	"full": {TrMMD: C{Mean: 0, Std: 0.01}, TeAcc: C{Mean: 0.80, Std: 0.01}},
}

// svgText renders a grid as SVG and returns its text.
func svgText(t *testing.T, g [][]*plot.Plot) string {
	t.Helper()
	b, err := gridSVG(g, ResultsWidth, ResultsHeight)
	if err != nil {
		t.Fatal(err)
	}
	return html.UnescapeString(string(b))
}

func TestResultsAccuracyAxisAndReferences(t *testing.T) {
	for _, c := range []struct {
		name string
		sums []results.Summary
		opts []ResultOption
		// want: texts the figure must show; maxTop: the axis must end below this.
		want   []string
		absent []string
		maxTop float64
	}{
		{"simulation with ceiling", simSums(3), []ResultOption{Hints(results.FigureHints{Ceiling: 0.8438, CeilingWhat: "invariant h*"})},
			[]string{"chance (0.5)", "none's mean (0.683)", "ceiling, invariant h* (0.844)", "ours, 3 seeds: mean ± sd", "paper, 3 seeds: mean ± sd"},
			[]string{"1 seed", "each seed", "Seeds split"}, 0.9},
		{"one seed, paper on another dataset", simSums(1), []ResultOption{Hints(results.FigureHints{PaperDataset: "MIMIC-III"})},
			[]string{"ours, 1 seed (no spread)", "paper (MIMIC-III, 3 seeds): its mean minus its none's mean", "test accuracy minus none's"},
			[]string{"ceiling", "1 seeds", "paper, 3 seeds: mean ± sd", "drawn from our none"}, 0.9},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Results("Sim", c.sums, simPaper, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			acc := g[0][0]
			// From chance up: the 0.77–0.82 differences get the axis, not 0–0.5.
			if acc.Y.Min < 0.45 || acc.Y.Min > DefaultChance {
				t.Errorf("accuracy axis starts at %.3f, want just below chance %.1f", acc.Y.Min, DefaultChance)
			}
			if acc.Y.Max > c.maxTop {
				t.Errorf("accuracy axis ends at %.3f, want < %.2f (no empty room up to 1)", acc.Y.Max, c.maxTop)
			}
			svg := svgText(t, g)
			for _, w := range c.want {
				if !strings.Contains(svg, w) {
					t.Errorf("figure lacks %q", w)
				}
			}
			for _, w := range c.absent {
				if strings.Contains(svg, w) {
					t.Errorf("figure shows %q", w)
				}
			}
		})
	}
}

// TestResultsOffScale: a test accuracy below chance (textured MNIST's none, 0.096) does
// not stretch the axis; it is drawn on the edge with its value printed.
func TestResultsOffScale(t *testing.T) {
	sums := simSums(3)
	sums[0].TeAcc = C{Mean: 0.096, Std: 0.011}
	g, err := Results("TMNIST", sums, nil, Hints(results.FigureHints{Ceiling: 0.75, CeilingWhat: "label noise"}))
	if err != nil {
		t.Fatal(err)
	}
	if acc := g[0][0]; acc.Y.Min < 0.45 {
		t.Errorf("accuracy axis starts at %.3f: an off-scale value stretched it", acc.Y.Min)
	}
	svg := svgText(t, g)
	if !strings.Contains(svg, ">0.096<") {
		t.Error("the off-scale value 0.096 is not printed")
	}
	if strings.Contains(svg, "none's mean") {
		t.Error("a reference line below the axis is in the legend")
	}
}

// TestResultsMMDAxis: the train MMD is on a symmetric log axis covering none's 2.44 and a
// negative estimate, with 0 and ±MMDLinear labelled.
func TestResultsMMDAxis(t *testing.T) {
	sums := simSums(3)
	sums[0].TrMMD = C{Mean: 2.44, Std: 0.09}
	sums[2].TrMMD = C{Mean: -0.034, Std: 0.012}
	g, err := Results("x", sums, simPaper)
	if err != nil {
		t.Fatal(err)
	}
	mmd := g[1][0]
	if _, ok := mmd.Y.Scale.(SymLog); !ok {
		t.Fatalf("train MMD scale %T, want SymLog", mmd.Y.Scale)
	}
	if !strings.HasSuffix(mmd.Title.Text, "; y axis linear within ±0.01, logarithmic beyond") {
		t.Errorf("the SymLog panel's title %q does not say how its axis is scaled", mmd.Title.Text)
	}
	if mmd.Y.Min > -0.046 || mmd.Y.Max < 2.53 {
		t.Errorf("train MMD axis [%g, %g] does not hold [-0.046, 2.53]", mmd.Y.Min, mmd.Y.Max)
	}
	// A value of 0.006 must sit well off the 0 line: at least 20% of the way to 0.01.
	s := mmd.Y.Scale
	if d := s.Normalize(mmd.Y.Min, mmd.Y.Max, 0.006) - s.Normalize(mmd.Y.Min, mmd.Y.Max, 0); d < 0.02 {
		t.Errorf("0.006 is %.3f of the axis above 0; the small values are squashed", d)
	}
	labels := map[string]bool{}
	for _, tk := range mmd.Y.Tick.Marker.Ticks(mmd.Y.Min, mmd.Y.Max) {
		labels[tk.Label] = true
	}
	for _, w := range []string{"0", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "-0.01"} {
		if !labels[w] {
			t.Errorf("train MMD axis lacks the label %q (has %v)", w, labels)
		}
	}
	sums[1].TrMMD.Mean = math.NaN()
	if _, err := Results("x", sums, nil); err == nil || !strings.Contains(err.Error(), "obs") {
		t.Errorf("NaN train MMD: error %v, want one naming the method", err)
	}
	if _, err := Results("x", nil, nil); err == nil {
		t.Error("no methods: no error")
	}
}

func TestSymLog(t *testing.T) {
	s := SymLog{Linear: 0.01}
	prev := math.Inf(-1)
	for _, v := range []float64{-3, -0.5, -0.01, -0.004, 0, 0.004, 0.01, 0.05, 2.44} {
		if got := s.inverse(s.forward(v)); math.Abs(got-v) > 1e-12*math.Max(1, math.Abs(v)) {
			t.Errorf("inverse(forward(%g)) = %g", v, got)
		}
		n := s.Normalize(-3, 2.44, v)
		if n <= prev {
			t.Errorf("Normalize not increasing at %g", v)
		}
		prev = n
	}
	// One decade per unit beyond the linear part.
	if d := s.forward(1) - s.forward(0.1); math.Abs(d-1) > 1e-12 {
		t.Errorf("decade width %g, want 1", d)
	}
	// A narrower linear part: half a decade on each side, the same decades beyond.
	h := SymLog{Linear: 0.01, LinearDecades: 0.5}
	for _, v := range []float64{-3, -0.01, -0.004, 0, 0.004, 0.01, 2.44} {
		if got := h.inverse(h.forward(v)); math.Abs(got-v) > 1e-12*math.Max(1, math.Abs(v)) {
			t.Errorf("LinearDecades 0.5: inverse(forward(%g)) = %g", v, got)
		}
	}
	if a, b := h.forward(0.01)-h.forward(0), h.forward(0.1)-h.forward(0.01); math.Abs(a-0.5) > 1e-12 || math.Abs(b-1) > 1e-12 {
		t.Errorf("LinearDecades 0.5: linear half %g, decade %g; want 0.5 and 1", a, b)
	}
	// Sparse ticks label 0, ±Linear/2 and the powers of ten only.
	var labels []string
	for _, tk := range (SymLogTicks{Linear: 0.1, Sparse: true}).Ticks(-0.3, 25) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0 -0.05 0.05 -0.1 0.1 1 10" {
		t.Errorf("sparse SymLog labels %q", got)
	}
}

func TestRoundTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0.49, 0.86, "0.50 0.55 0.60 0.65 0.70 0.75 0.80 0.85"},
		{0.497, 0.684, "0.50 0.52 0.54 0.56 0.58 0.60 0.62 0.64 0.66 0.68"},
		{0, 1000, "0 200 400 600 800 1000"},
		{-0.1, 3.6, "0.0 0.5 1.0 1.5 2.0 2.5 3.0 3.5"}, // no "-0.0"
	} {
		var got []string
		for _, tk := range (roundTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("roundTicks(%g, %g) = %v, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// TestLegendsBelow: the results figure has one legend, below its top panel, that covers no
// data area and takes less than a sixth of the figure, and names each mark once; the
// variance figure's legends (its estimators under each row, the marks under the last) cover
// no data either; a title too long for its panel is wrapped, not cut.
func TestLegendsBelow(t *testing.T) {
	g, err := Results("x", simSums(3), simPaper, Hints(results.FigureHints{Ceiling: 0.84, CeilingWhat: "h*"}))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Variance(variancePoints())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		grid    [][]*plot.Plot
		w, h    vg.Length
		legends int
		share   float64
	}{{"results", g, ResultsWidth, ResultsHeight, 1, 1.0 / 6}, {"variance", v, VarianceWidth, VarianceHeight, 3, 0.2}} {
		if share := checkLegible(t, c.name, c.grid, c.w, c.h); share > c.share || share == 0 {
			t.Errorf("%s: legends take %.3f of the figure, want (0, %.3f]", c.name, share, c.share)
		}
		_, right, below := layoutGrid(c.grid, draw.New(vgimg.New(c.w, c.h)))
		n := 0
		for i := range below {
			for j := range below[i] {
				if s := right[i][j].Size(); s.X > 0 && s.Y > 0 {
					t.Errorf("%s: panel %d,%d has a legend column right of it", c.name, i, j)
				}
				if s := below[i][j].Size(); s.X > 0 && s.Y > 0 {
					n++
				}
			}
		}
		if n != c.legends {
			t.Errorf("%s: %d legends below panels, want %d", c.name, n, c.legends)
		}
	}
	svg := svgText(t, g)
	for _, w := range []string{"ours, 3 seeds: mean ± sd", "paper, 3 seeds: mean ± sd", "chance (0.5)"} {
		if n := strings.Count(svg, w); n != 1 {
			t.Errorf("the figure shows %q %d times", w, n)
		}
	}
	long, err := Results(strings.Repeat("A simulation with a title far longer than the figure is wide, ", 3)+"λ = 5", simSums(3), simPaper)
	if err != nil {
		t.Fatal(err)
	}
	checkLegible(t, "long title", long, ResultsWidth, ResultsHeight)
	if !strings.Contains(long[0][0].Title.Text, "\n") {
		t.Errorf("a title wider than the figure was not wrapped: %q", long[0][0].Title.Text)
	}
}

// TestFilesResolutionAndFonts: the saved PNG is FileDPI (sharp when zoomed), the notebook
// PNG ScreenDPI, and the SVG names fallback fonts.
func TestFilesResolutionAndFonts(t *testing.T) {
	g, err := Results("x", simSums(3), simPaper)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "r")
	if err := SaveGrid(g, base, ResultsWidth, ResultsHeight); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	wantW, wantH := int(math.Round(float64(ResultsWidth/vg.Inch)*FileDPI)), int(math.Round(float64(ResultsHeight/vg.Inch)*FileDPI))
	if cfg.Width != wantW || cfg.Height != wantH {
		t.Errorf("PNG %d×%d px, want %d×%d (%d dpi)", cfg.Width, cfg.Height, wantW, wantH, FileDPI)
	}
	nb, err := GridPNG(g, ResultsWidth, ResultsHeight)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(nb)); err != nil || cfg.Width != int(float64(ResultsWidth/vg.Inch)*ScreenDPI) {
		t.Errorf("notebook PNG: width %d, err %v; want %d px", cfg.Width, err, int(float64(ResultsWidth/vg.Inch)*ScreenDPI))
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	fams := regexp.MustCompile(`font-family:[^;"]*`).FindAllString(string(svg), -1)
	if len(fams) == 0 {
		t.Fatal("SVG has no font-family")
	}
	for _, f := range fams {
		if f != SVGFontFallback {
			t.Fatalf("SVG font %q, want %q", f, SVGFontFallback)
		}
	}
	if !strings.HasSuffix(SVGFontFallback, ",serif") {
		t.Errorf("fallback %q does not end in a generic family", SVGFontFallback)
	}
	// Single plots go through the same path.
	if err := Save(g[0][0], base+"1", Width, Height); err != nil {
		t.Fatal(err)
	}
	if svg1, _ := os.ReadFile(base + "1.svg"); !bytes.Contains(svg1, []byte(SVGFontFallback)) {
		t.Error("Save: SVG without the font fallback")
	}
}

// TestResultsMajority: the majority baseline replaces the chance line (the axis starts just
// below it, no "chance (0.5)"); a paper on another dataset is left out of the accuracy and
// train-MMD panels, and drawn in a panel of its own as its differences from its none.
func TestResultsMajority(t *testing.T) {
	maj := results.Majority{Label: 0, N: 3, TeAcc: C{Mean: 0.715}, TrAcc: C{Mean: 0.715}}
	sums := []results.Summary{
		{Method: "none", N: 3, TrMMD: C{Mean: 0.09, Std: 0.01}, TeAcc: C{Mean: 0.74, Std: 0.01}},
		{Method: "obs", N: 3, TrMMD: C{Mean: 0.006, Std: 0.002}, TeAcc: C{Mean: 0.78, Std: 0.01}},
		{Method: "full", N: 3, TrMMD: C{Mean: 0.003, Std: 0.002}, TeAcc: C{Mean: 0.776, Std: 0.01}},
	}
	for _, c := range []struct {
		name   string
		opts   []ResultOption
		want   []string
		absent []string
		lo     float64 // the lowest value drawn: the axis starts just below it
	}{
		{"majority, paper on another dataset", []ResultOption{Majority(maj), Hints(results.FigureHints{PaperDataset: "MIMIC-III"})},
			[]string{"majority (always Y=0): 0.715", "none's mean (0.740)", "its mean minus its none's mean"}, []string{"chance", "paper, 3 seeds"}, 0.715},
		// The paper's none at its level (0.67) is the lowest value here.
		{"majority, same dataset", []ResultOption{Majority(maj)},
			[]string{"majority (always Y=0): 0.715", "paper, 3 seeds: mean ± sd"}, []string{"chance"}, 0.67},
		{"no majority", nil, []string{"chance (0.5)"}, []string{"majority"}, DefaultChance},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Results("Clinical", sums, simPaper, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if acc := g[0][0]; acc.Y.Min > c.lo || acc.Y.Min < c.lo-0.03 {
				t.Errorf("accuracy axis starts at %.3f, want just below %.3f", acc.Y.Min, c.lo)
			}
			svg := svgText(t, g)
			for _, w := range c.want {
				if !strings.Contains(svg, w) {
					t.Errorf("figure lacks %q", w)
				}
			}
			for _, w := range c.absent {
				if strings.Contains(svg, w) {
					t.Errorf("figure shows %q", w)
				}
			}
		})
	}
}

// TestResultsDiffPanel: with the paper's numbers on another dataset the figure has three
// panels, the middle one each method's test accuracy minus none's, ours per seed against
// none on the same seed (a seed none lacks left out) and the paper's mean minus its none's
// mean; its axis holds both, and 0.
func TestResultsDiffPanel(t *testing.T) {
	rows := append(seedRows("none", 0.70, 0.72, 0.74), seedRows("obs", 0.75, 0.80, 0.76)...)
	rows = append(rows, results.Row{Method: "obs", Seed: 9, TeAcc: 0.5})
	sums := results.Summarize(rows)
	d, ok := diffSummaries(sums)
	if !ok || len(d) != 2 || d[1].N != 3 {
		t.Fatalf("diffSummaries: %+v, %v", d, ok)
	}
	for i, want := range []float64{0.05, 0.08, 0.02} {
		if got := d[1].Rows[i].TeAcc; math.Abs(got-want) > 1e-12 {
			t.Errorf("obs seed %d: %g minus none's, want %g", i+1, got, want)
		}
	}
	if _, ok := diffSummaries(sums[1:]); ok {
		t.Error("diffSummaries without none: ok")
	}
	paper := map[string]results.PaperRow{"none": {TeAcc: C{Mean: 0.70}}, "obs": {TeAcc: C{Mean: 0.60}}}
	g, err := Results("Clinical, λ = 1", sums, paper, Hints(results.FigureHints{PaperDataset: "MIMIC-III"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 3 {
		t.Fatalf("%d panels, want accuracy, differences from none and train MMD²", len(g))
	}
	diff := g[1][0]
	if diff.Y.Min > -0.1 || diff.Y.Max < 0.08 || diff.Y.Min > 0 || diff.Y.Max < 0 {
		t.Errorf("difference axis [%g, %g], want one holding the paper's -0.1, ours up to 0.08, and 0", diff.Y.Min, diff.Y.Max)
	}
	if n := len(diff.GlyphBoxes(diff)); n != 3 {
		t.Errorf("%d seed points in the difference panel, want obs's 3 paired seeds", n)
	}
	checkLegible(t, "clinical", g, ResultsWidth, ResultsHeight)
	if g, err := Results("x", sums[1:], paper, Hints(results.FigureHints{PaperDataset: "MIMIC-III"})); err != nil || len(g) != 2 {
		t.Errorf("without none: %d panels (%v), want 2", len(g), err)
	}
}

// TestResultsHints: an experiment's FigureHints draw its ceiling line when it has one and
// the paper's differences from its none in a panel of their own when the paper's dataset is
// not ours; the zero hints draw neither.
func TestResultsHints(t *testing.T) {
	for _, c := range []struct {
		name  string
		hints results.FigureHints
	}{
		{"none", results.FigureHints{}},
		{"ceiling", results.FigureHints{Ceiling: 0.8438, CeilingWhat: "invariant h*"}},
		{"paper dataset", results.FigureHints{PaperDataset: "MIMIC-III"}},
		{"both", results.FigureHints{Ceiling: 0.75, CeilingWhat: "label noise", PaperDataset: "X"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Results("Sim", simSums(3), simPaper, Hints(c.hints))
			if err != nil {
				t.Fatal(err)
			}
			sa := svgText(t, g)
			if got := strings.Contains(sa, "ceiling, "+c.hints.CeilingWhat); got != (c.hints.Ceiling > 0) {
				t.Errorf("ceiling line drawn: %v, want %v", got, c.hints.Ceiling > 0)
			}
			want := 2
			if c.hints.PaperDataset != "" {
				want = 3 // the paper's differences from its none
			}
			if len(g) != want {
				t.Errorf("%d panels, want %d", len(g), want)
			}
		})
	}
	// MMDOf names what the train MMD² panel is of.
	p, err := Results("Sim, λ = 1", simSums(3), nil, Hints(results.FigureHints{MMDOf: "the penultimate features"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := p[1][0].Title.Text; got != "train MMD² of the penultimate features (full-data estimator), λ = 1" {
		t.Errorf("the MMD panel's title with MMDOf: %q", got)
	}
}

// seedRows returns rows of method m with the given test accuracies (seeds 1, 2, …) and a
// train MMD of 0.01 each.
func seedRows(m string, acc ...float64) []results.Row {
	var rows []results.Row
	for i, a := range acc {
		rows = append(rows, results.Row{Method: m, Seed: uint64(i + 1), TrMMD: 0.01, TrAcc: a, TeAcc: a})
	}
	return rows
}

// TestResultsSeeds: each seed is drawn as a point (counted through the glyph boxes the
// panels report), and a method whose seeds split in two gets a caption while one whose
// seeds agree does not.
func TestResultsSeeds(t *testing.T) {
	for _, c := range []struct {
		name   string
		rows   []results.Row
		points int // seeds inside each panel's axis
		want   []string
		absent []string
	}{
		{"unimodal", append(seedRows("full", 0.80, 0.81, 0.82, 0.79, 0.80), seedRows("dr", 0.78, 0.80, 0.81, 0.79, 0.70)...),
			10, []string{"ours: each seed (5 seeds)", "ours: median of the seeds"}, []string{"Seeds split", "below", "mean ± sd", "No median"}},
		{"bimodal", append(seedRows("full", 0.80, 0.81, 0.82, 0.79, 0.80), seedRows("dr", 0.21, 0.17, 0.81, 0.80, 0.82)...),
			10, []string{"Seeds split by more than 0.15", "dr: 2 of 5 seeds below 0.5"}, []string{"full: "}},
		{"split above chance, two alike", append(seedRows("dr", 0.60, 0.62, 0.84, 0.86), seedRows("dr+", 0.61, 0.62, 0.84, 0.87)...),
			8, []string{"dr, dr+: 2 of 4 seeds below 0.73", "No median bar where the two middle seeds lie more than 0.15 apart"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Results("x", results.Summarize(c.rows), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range g {
				p := r[0]
				if n := len(p.GlyphBoxes(p)); n != c.points {
					t.Errorf("%q: %d seed points, want %d", p.Title.Text, n, c.points)
				}
			}
			svg := svgText(t, g)
			for _, w := range c.want {
				if !strings.Contains(svg, w) {
					t.Errorf("figure lacks %q", w)
				}
			}
			for _, w := range c.absent {
				if strings.Contains(svg, w) {
					t.Errorf("figure shows %q", w)
				}
			}
		})
	}
	// Without rows (a summary built by hand) no seed is drawn.
	g, err := Results("x", simSums(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g[0][0].GlyphBoxes(g[0][0])); n != 0 {
		t.Errorf("%d seed points drawn from summaries without rows", n)
	}
}

// TestResultsMedian: a method's bar is its seeds' median, a value some seed has when their
// number is odd, even when the seeds split; with an even number split between the two middle
// seeds there is no bar; without seeds the bar is the mean, with a whisker of ± sd. An
// accuracy axis covers seeds well below chance (an inverted fit) rather than clipping them.
func TestResultsMedian(t *testing.T) {
	sums := results.Summarize(append(seedRows("full", 0.80, 0.81, 0.82), seedRows("dr", 0.15, 0.81, 0.82)...))
	var m seedMarks
	m.add(0, sums[1].TeAcc, seedValues(sums[1], func(r results.Row) float64 { return r.TeAcc }), Black)
	m.add(1, C{Mean: 0.5}, []float64{0.2, 0.21, 0.8, 0.81}, Black)
	m.add(2, C{Mean: 0.5}, []float64{0.2, 0.3, 0.35, 0.81}, Black)
	m.add(3, C{Mean: 0.5, Std: 0.1}, nil, Black)
	for i, want := range []struct {
		mid    float64
		show   bool
		lo, hi float64
	}{{0.81, true, 0, 0}, {0.505, false, 0, 0}, {0.325, true, 0, 0}, {0.5, true, 0.4, 0.6}} {
		e := m.entries[i]
		if math.Abs(e.mid-want.mid) > 1e-12 || e.showMid != want.show || math.Abs(e.lo-want.lo) > 1e-12 || math.Abs(e.hi-want.hi) > 1e-12 {
			t.Errorf("entry %d: bar %v (shown %v), whisker %v–%v; want %v (%v), %v–%v", i, e.mid, e.showMid, e.lo, e.hi, want.mid, want.show, want.lo, want.hi)
		}
	}
	g, err := Results("x", sums, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acc := g[0][0]; acc.Y.Min > 0.15 || acc.Y.Min < 0.1 {
		t.Errorf("accuracy axis starts at %.3f, want just below the lowest seed 0.15", acc.Y.Min)
	}
	if svg := svgText(t, g); strings.Contains(svg, "mean ± sd") {
		t.Error("a figure of seeds draws a mean ± sd")
	}
}

// TestResultsLinearMMD: train MMDs all below MMDLinearMax get a linear axis with round
// labels across the values.
func TestResultsLinearMMD(t *testing.T) {
	g, err := Results("x", simSums(3), simPaper)
	if err != nil {
		t.Fatal(err)
	}
	mmd := g[1][0]
	if _, ok := mmd.Y.Scale.(SymLog); ok {
		t.Fatal("a SymLog axis for values up to 0.28")
	}
	var labels []string
	for _, tk := range mmd.Y.Tick.Marker.Ticks(mmd.Y.Min, mmd.Y.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if len(labels) < 4 || mmd.Y.Min > -0.01 || mmd.Y.Max < 0.28 {
		t.Errorf("train MMD axis [%g, %g] labelled %v", mmd.Y.Min, mmd.Y.Max, labels)
	}
}
