package figures

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/invmmd/invmmd/invmmd/results"
)

// variancePoints is a study with full converging to 0.2, dr far off at small batches (one
// size above the axis, one below), and an extension.
func variancePoints() []results.VariancePoint {
	var pts []results.VariancePoint
	for _, n := range []int{1000, 2000, 3000, 4000} {
		f := 1000 / float64(n)
		pts = append(pts,
			results.VariancePoint{Estimator: "full", BatchSize: n, Mean: 0.2 + 0.1*f, Std: 0.5 * f, N: 100},
			results.VariancePoint{Estimator: "dr-po", BatchSize: n, Mean: 0.25, Std: 2 * f, N: 100},
			results.VariancePoint{Estimator: "dr", BatchSize: n, Mean: 0.25, Std: 5 * f, N: 100})
	}
	pts[2].Mean = 4   // dr at 1000: above
	pts[5].Mean = -10 // dr at 2000: below
	return pts
}

func TestVariance(t *testing.T) {
	g, err := Variance(variancePoints())
	if err != nil {
		t.Fatal(err)
	}
	mean, sd := g[0][0], g[0][1]
	ref := 0.2 + 0.1*0.25 // full at the largest size
	// Symmetric clipping around full's mean: neither 4 nor -10 squashes the rest.
	if math.Abs((mean.Y.Min+mean.Y.Max)/2-ref) > 1e-12 || math.Abs(mean.Y.Max-mean.Y.Min-2*MeanClip) > 1e-12 {
		t.Errorf("mean axis [%g, %g], want full's mean %g ± %g", mean.Y.Min, mean.Y.Max, ref, MeanClip)
	}
	if !strings.Contains(mean.Title.Text, "2 points beyond") {
		t.Errorf("mean title %q does not count the 2 clipped points", mean.Title.Text)
	}
	if _, ok := sd.Y.Scale.(plot.LogScale); !ok {
		t.Errorf("sd scale %T, want log", sd.Y.Scale)
	}
	svg := svgText(t, g)
	for _, w := range []string{"the paper's estimators:", "extensions (not in the paper):", "± 1 standard error", "full's mean at n = 4,000 (0.225)"} {
		if !strings.Contains(svg, w) {
			t.Errorf("figure lacks %q", w)
		}
	}
	// The paper's estimators come first in the legend, the extensions after their heading.
	if i, j, k := strings.Index(svg, ">  dr<"), strings.Index(svg, "extensions (not"), strings.Index(svg, ">  dr-po<"); !(i >= 0 && i < j && j < k) {
		t.Errorf("legend order: dr at %d, extensions heading at %d, dr-po at %d", i, j, k)
	}
	// Legible x ticks: a label per round step, at most 6.
	var labels []string
	for _, tk := range mean.X.Tick.Marker.Ticks(mean.X.Min, mean.X.Max) {
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
	// Both panels' data areas span the same heights, and their titles sit level.
	cs := alignGrid(g, draw.New(vgimg.New(2*Width, Height)))
	var boxes [2]vg.Rectangle
	for j, p := range g[0] {
		plotC, _ := panelLayout(p, cs[0][j])
		boxes[j] = p.DataCanvas(plotC).Rectangle
		if cs[0][j].Max.Y != cs[0][0].Max.Y {
			t.Errorf("panel %d top %v, panel 0 top %v: titles not level", j, cs[0][j].Max.Y, cs[0][0].Max.Y)
		}
	}
	if boxes[0].Min.Y != boxes[1].Min.Y || boxes[0].Max.Y != boxes[1].Max.Y {
		t.Errorf("data areas differ in height: %v and %v", boxes[0], boxes[1])
	}
}

func TestVarianceStyles(t *testing.T) {
	for _, p := range PaperVarianceEstimators {
		for _, e := range []string{"ip", "ip+", "dr-po", "dr-po+"} {
			sp, se := styleOf(p, 0), styleOf(e, 0)
			if sp.width <= se.width || len(sp.dashes) != 0 || len(se.dashes) == 0 {
				t.Errorf("%s (paper) %+v is not set apart from %s (extension) %+v", p, sp, e, se)
			}
		}
	}
	seen := map[any]string{}
	for _, p := range PaperVarianceEstimators {
		c := styleOf(p, 0).color
		if q, ok := seen[c]; ok {
			t.Errorf("%s and %s share a colour", p, q)
		}
		seen[c] = p
	}
	if a, b := styleOf("dr-po", 0), styleOf("dr-po+", 0); a.dashes[0] == b.dashes[0] {
		t.Error("dr-po and dr-po+ have the same dashes")
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
