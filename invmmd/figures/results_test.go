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
	var b bytes.Buffer
	if err := writeSVG(&b, g, 2*Width, Height); err != nil {
		t.Fatal(err)
	}
	return html.UnescapeString(b.String())
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
		{"simulation with ceiling", simSums(3), []ResultOption{Ceiling(0.8438, "invariant h*")},
			[]string{"chance (0.5)", "none, no penalty (0.683)", "ceiling, invariant h* (0.844)", "ours: mean ± sd over 3 seeds", "paper: mean ± sd, where reported"},
			[]string{"1 seed"}, 0.9},
		{"one seed, paper on another dataset", simSums(1), []ResultOption{PaperDataset("MIMIC-III")},
			[]string{"ours (1 seed: no spread)", "paper (MIMIC-III): mean ± sd, where reported"},
			[]string{"ceiling", "over 1 seeds"}, 0.9},
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
	g, err := Results("TMNIST", sums, nil, Ceiling(0.75, "label noise"))
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
	if strings.Contains(svg, "none, no penalty") {
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
	mmd := g[0][1]
	if _, ok := mmd.Y.Scale.(SymLog); !ok {
		t.Fatalf("train MMD scale %T, want SymLog", mmd.Y.Scale)
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
	for _, w := range []string{"0", "0.01", "0.1", "1", "-0.01"} {
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
}

func TestRoundTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0.49, 0.86, "0.50 0.55 0.60 0.65 0.70 0.75 0.80 0.85"},
		{0.497, 0.684, "0.50 0.52 0.54 0.56 0.58 0.60 0.62 0.64 0.66 0.68"},
		{0, 1000, "0 200 400 600 800 1000"},
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

// TestLegendOutsideData: every panel's legend lies right of its data area, and a results
// figure has one legend.
func TestLegendOutsideData(t *testing.T) {
	g, err := Results("x", simSums(3), simPaper, Ceiling(0.84, "h*"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Variance(variancePoints())
	if err != nil {
		t.Fatal(err)
	}
	for _, grid := range [][][]*plot.Plot{g, v} {
		dc := draw.New(vgimg.New(2*Width, Height))
		cs := alignGrid(grid, dc)
		legends := 0
		for j, p := range grid[0] {
			plotC, legendC := panelLayout(p, cs[0][j])
			data := p.DataCanvas(plotC)
			if legendC.Size().X == 0 {
				continue
			}
			legends++
			if legendC.Min.X < data.Max.X {
				t.Errorf("%q: legend starts at x = %v, inside the data area (ends at %v)", p.Title.Text, legendC.Min.X, data.Max.X)
			}
			if legendC.Max.X > cs[0][j].Max.X {
				t.Errorf("%q: legend ends at x = %v, past its panel (%v)", p.Title.Text, legendC.Max.X, cs[0][j].Max.X)
			}
		}
		if legends == 0 {
			t.Error("no legend drawn")
		}
	}
	// The results figure has one legend, right of the figure: the accuracy panel keeps its
	// whole tile for data.
	cs := alignGrid(g, draw.New(vgimg.New(2*Width, Height)))
	if _, legendC := panelLayout(g[0][0], cs[0][0]); legendC.Size().X != 0 {
		t.Errorf("the accuracy panel has a legend column %v wide; the figure's one legend belongs right of the train-MMD panel", legendC.Size().X)
	}
	svg := svgText(t, g)
	for _, w := range []string{"both panels:", "left panel (test accuracy):", "right panel: log axis,", "linear within ±0.01", "ours: mean ± sd over 3 seeds"} {
		if strings.Count(svg, w) != 1 {
			t.Errorf("the figure shows %q %d times, want once", w, strings.Count(svg, w))
		}
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
	if err := SaveGrid(g, base, 2*Width, Height); err != nil {
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
	wantW, wantH := int(math.Round(float64(2*Width/vg.Inch)*FileDPI)), int(math.Round(float64(Height/vg.Inch)*FileDPI))
	if cfg.Width != wantW || cfg.Height != wantH {
		t.Errorf("PNG %d×%d px, want %d×%d (%d dpi)", cfg.Width, cfg.Height, wantW, wantH, FileDPI)
	}
	nb, err := GridPNG(g, 2*Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(nb)); err != nil || cfg.Width != int(float64(2*Width/vg.Inch)*ScreenDPI) {
		t.Errorf("notebook PNG: width %d, err %v; want %d px", cfg.Width, err, int(float64(2*Width/vg.Inch)*ScreenDPI))
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

// TestResultsChance: another chance level moves the axis and its line.
func TestResultsChance(t *testing.T) {
	g, err := Results("ten classes", simSums(3), nil, Chance(0.1))
	if err != nil {
		t.Fatal(err)
	}
	if acc := g[0][0]; acc.Y.Min > 0.1 || acc.Y.Min < 0.05 {
		t.Errorf("accuracy axis starts at %.3f, want just below 0.1", acc.Y.Min)
	}
	if svg := svgText(t, g); !strings.Contains(svg, "chance (0.1)") {
		t.Error("no chance line at 0.1")
	}
}

// TestResultsHints: an experiment's FigureHints draw what the options they stand for draw,
// to the byte, and the zero hints draw neither.
func TestResultsHints(t *testing.T) {
	for _, c := range []struct {
		name  string
		hints results.FigureHints
		opts  []ResultOption
	}{
		{"none", results.FigureHints{}, nil},
		{"ceiling", results.FigureHints{Ceiling: 0.8438, CeilingWhat: "invariant h*"}, []ResultOption{Ceiling(0.8438, "invariant h*")}},
		{"paper dataset", results.FigureHints{PaperDataset: "MIMIC-III"}, []ResultOption{PaperDataset("MIMIC-III")}},
		{"both", results.FigureHints{Ceiling: 0.75, CeilingWhat: "label noise", PaperDataset: "X"}, []ResultOption{Ceiling(0.75, "label noise"), PaperDataset("X")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := Results("Sim", simSums(3), simPaper, Hints(c.hints))
			if err != nil {
				t.Fatal(err)
			}
			b, err := Results("Sim", simSums(3), simPaper, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			sa, sb := svgText(t, a), svgText(t, b)
			if sa != sb {
				t.Errorf("Hints(%+v) draws another figure than %d options", c.hints, len(c.opts))
			}
			if got := strings.Contains(sa, "ceiling,"); got != (c.hints.Ceiling > 0) {
				t.Errorf("ceiling line drawn: %v, want %v", got, c.hints.Ceiling > 0)
			}
		})
	}
}
