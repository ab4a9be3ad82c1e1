package figures

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/invmmd/invmmd/invmmd/results"
)

// variancePoints is a study with full converging to 0.2, dr far off at small batches (one
// mean above the axis, one below, both from a floored normaliser) while its median stays
// near 0.25, and an extension.
func variancePoints() []results.VariancePoint {
	var pts []results.VariancePoint
	for _, n := range []int{1000, 2000, 3000, 4000} {
		f := 1000 / float64(n)
		pts = append(pts,
			results.VariancePoint{Estimator: "full", BatchSize: n, Mean: 0.2 + 0.1*f, Std: 0.5 * f, N: 100,
				Median: 0.2 + 0.1*f, Q25: 0.2, Q75: 0.2 + 0.2*f},
			results.VariancePoint{Estimator: "dr-po", BatchSize: n, Mean: 0.25, Std: 2 * f, N: 100,
				Median: 0.25, Q25: 0.25 - 0.1*f, Q75: 0.25 + 0.1*f},
			results.VariancePoint{Estimator: "dr", BatchSize: n, Mean: 0.25, Std: 5 * f, N: 100,
				Median: 0.26, Q25: 0.26 - 0.2*f, Q75: 0.26 + 0.2*f})
	}
	pts[2].Mean, pts[2].Floored = 4, 3   // dr at 1000: above
	pts[5].Mean, pts[5].Floored = -10, 1 // dr at 2000: below
	return pts
}

func TestVariance(t *testing.T) {
	g, err := Variance(variancePoints())
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 2 || len(g[0]) != 2 || len(g[1]) != 2 {
		t.Fatalf("grid %d rows, want 2 of 2 panels (the dr family; the dr-po family)", len(g))
	}
	if g[0][0].Title.Text != "dr: median, quartiles; mean" || g[1][1].Title.Text != "dr-po: IQR; sd (log axis)" {
		t.Errorf("titles %q, %q: want a row per family", g[0][0].Title.Text, g[1][1].Title.Text)
	}
	// Every row shares the centre and spread axes.
	if g[0][0].Y.Min != g[1][0].Y.Min || g[0][0].Y.Max != g[1][0].Y.Max || g[0][1].Y.Min != g[1][1].Y.Min || g[0][1].Y.Max != g[1][1].Y.Max {
		t.Error("the rows' axes differ")
	}
	// Every tick of the log axis is labelled.
	for _, tk := range g[0][1].Y.Tick.Marker.Ticks(g[0][1].Y.Min, g[0][1].Y.Max) {
		if tk.Label == "" {
			t.Errorf("log tick at %g unlabelled", tk.Value)
		}
	}
	centre, spread := g[0][0], g[0][1]
	// The centre axis fits the medians and quartiles but their extreme 5% at each end, and
	// full's mean at the largest size: it holds every median (0.2–0.3), while dr's means of 4
	// and -10 leave it, and the dr row's legend counts them.
	if centre.Y.Min > 0.2 || centre.Y.Max < 0.3 || centre.Y.Max > 1 || centre.Y.Min < -0.5 {
		t.Errorf("DR centre axis [%g, %g], want a tight one holding 0.2–0.3", centre.Y.Min, centre.Y.Max)
	}
	if row := svgText(t, g[:1]); !strings.Contains(row, "2 means off the axis (arrows), the farthest -10.00") {
		t.Error("the dr row's legend does not count the 2 means off the axis")
	}
	if _, ok := spread.Y.Scale.(plot.LogScale); !ok {
		t.Errorf("spread scale %T, want log", spread.Y.Scale)
	}
	// The spread axis holds every IQR and sd: dr's sd of 5 at 1,000 and full's IQR of 0.05
	// at 4,000.
	if spread.Y.Min > 0.05 || spread.Y.Max < 5 {
		t.Errorf("spread axis [%g, %g], want one holding 0.05–5", spread.Y.Min, spread.Y.Max)
	}
	// The floored sizes of the dr row (dr at 1,000 and 2,000) are shaded, and the last row's
	// legend names them; the first row does not repeat the marks' key.
	by := map[string][]results.VariancePoint{}
	for _, p := range variancePoints() {
		by[p.Estimator] = append(by[p.Estimator], p)
	}
	if got := flooredSizes([]string{"full", "dr", "dr-po"}, by); !slices.Equal(got, []float64{1000, 2000}) {
		t.Errorf("DR row: floored sizes %v, want [1000 2000]", got)
	}
	if got := flooredSizes([]string{"full"}, by); len(got) != 0 {
		t.Errorf("full: floored sizes %v, want none", got)
	}
	if row := svgText(t, g[1:]); !strings.Contains(row, "hatched: a normaliser raised to its floor") {
		t.Error("the last row's legend does not name the hatched batch sizes")
	}
	if row := svgText(t, g[:1]); strings.Contains(row, "hatched") || strings.Contains(row, "thick:") {
		t.Error("the first row repeats the marks' legend")
	}
	// The dr-po row, whose means stay on the axis, counts none.
	if row := svgText(t, g[1:]); strings.Contains(row, "off the axis") {
		t.Error("the dr-po row counts means off the axis")
	}
	svg := svgText(t, g)
	for _, w := range []string{"in the paper's figure 3:", "this project's, not in the paper:", "full, for reference", "thick: median (left), IQR (right)",
		"thin: mean (left), sd (right)", "band: quartiles (fitted form)", "hatched: a normaliser raised to its floor", "full's mean at n = 4,000 (0.225)", "median, quartiles; mean", "IQR; sd (log axis)"} {
		if !strings.Contains(svg, w) {
			t.Errorf("figure lacks %q", w)
		}
	}
	if strings.Contains(svg, "extensions") {
		t.Error("the legend calls estimators extensions")
	}
	// The paper's estimators come first, this project's after.
	if i, j, k := strings.Index(svg, ">dr<"), strings.Index(svg, "this project's"), strings.Index(svg, ">dr-po<"); !(i >= 0 && i < j && j < k) {
		t.Errorf("legend order: dr at %d, this project's heading at %d, dr-po at %d", i, j, k)
	}
	// Legible x ticks: a label per round step, at most 6.
	var labels []string
	for _, tk := range centre.X.Tick.Marker.Ticks(centre.X.Min, centre.X.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if strings.Join(labels, " ") != "1,000 2,000 3,000 4,000" {
		t.Errorf("x labels %v", labels)
	}
	var paper []string
	for _, tk := range batchTicks(1000, 10000) {
		if tk.Label != "" {
			paper = append(paper, tk.Label)
		}
	}
	if strings.Join(paper, " ") != "2,000 4,000 6,000 8,000 10,000" {
		t.Errorf("x labels over 1,000–10,000: %v", paper)
	}
	// The panels of a row: data areas of the same height, titles level.
	plotCs, _, _ := layoutGrid(g, draw.New(vgimg.New(VarianceWidth, VarianceHeight)))
	for i, r := range g {
		var boxes [2]vg.Rectangle
		for j, p := range r {
			boxes[j] = p.DataCanvas(plotCs[i][j]).Rectangle
			if plotCs[i][j].Max.Y != plotCs[i][0].Max.Y {
				t.Errorf("row %d: panel %d top %v, panel 0 top %v: titles not level", i, j, plotCs[i][j].Max.Y, plotCs[i][0].Max.Y)
			}
		}
		for j := 1; j < len(boxes); j++ {
			if boxes[0].Min.Y != boxes[j].Min.Y || boxes[0].Max.Y != boxes[j].Max.Y {
				t.Errorf("row %d: data areas of panels 0 and %d differ in height: %v and %v", i, j, boxes[0], boxes[j])
			}
		}
	}
}

// TestVarianceStyles: the two forms of a family differ in marker shape and dashes as well as
// colour (the true-G (+) form dashed), and full as a reference is thin and unmarked.
func TestVarianceStyles(t *testing.T) {
	for _, fam := range [][2]string{{"dr", "dr+"}, {"ip", "ip+"}, {"dr-po", "dr-po+"}} {
		al, ag := styleOf(fam[0], 1, false)
		bl, bg := styleOf(fam[1], 2, false)
		if al.Color == bl.Color || ag.Shape == bg.Shape || len(al.Dashes) > 0 || len(bl.Dashes) == 0 {
			t.Errorf("%s %+v %+v and %s %+v %+v not told apart by colour, marker and dashes", fam[0], al, ag, fam[1], bl, bg)
		}
	}
	refL, refG := styleOf("full", 0, true)
	ownL, _ := styleOf("full", 0, false)
	if refL.Width >= ownL.Width || refG.Shape != nil || refG.Radius != 0 {
		t.Errorf("full as a reference %+v %+v, as an estimator %+v", refL, refG, ownL)
	}
	if got := (labelledLogTicks{}).Ticks(0.02, 13); len(got) != 6 || got[0].Label != "0.03" || got[5].Label != "10" {
		t.Errorf("log ticks over 0.02–13: %v", got)
	}
}

func TestVarianceErrors(t *testing.T) {
	pts := variancePoints()
	for _, c := range []struct {
		name string
		pts  []results.VariancePoint
		want string
	}{
		{"none", nil, "no points"},
		{"no full", pts[1:2], "no full"},
		{"one batch", []results.VariancePoint{{Estimator: "full", BatchSize: 1000, Mean: 1, Std: 1, N: 1}}, "want ≥ 2"},
		{"median outside its quartiles", []results.VariancePoint{{Estimator: "full", BatchSize: 1000, Mean: 1, Std: 1, N: 5, Median: 2, Q25: 0, Q75: 1}}, "not between the quartiles"},
	} {
		if _, err := Variance(c.pts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 10000: "10,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
