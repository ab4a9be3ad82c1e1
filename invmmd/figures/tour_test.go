package figures

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// renders checks that p renders to a PNG of the requested size.
func renders(t *testing.T, p *plot.Plot) {
	t.Helper()
	b, err := PNG(p, 4*vg.Inch, 3*vg.Inch)
	if err != nil {
		t.Fatalf("PNG: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("rendered bytes are not a PNG: %v", err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w < 100 || math.Abs(float64(3*w-4*h)) > 8 {
		t.Errorf("rendered %dx%d, want a 4:3 image", w, h)
	}
}

func tickLabels(p *plot.Plot) []string {
	var out []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			out = append(out, tk.Label)
		}
	}
	return out
}

func TestSpread(t *testing.T) {
	groups := []Group{
		{Name: "ip", Values: []float64{0.4, 0.5, 0.6, math.NaN()}},
		{Name: "dr", Values: []float64{0.45, 0.5, 0.55}},
	}
	p, err := Spread("E[Z]", "estimate", groups, Reference{Value: 0.9, Label: "truth"})
	if err != nil {
		t.Fatal(err)
	}
	labels := tickLabels(p)
	if len(labels) != 2 || labels[0] != "ip\n(1 undefined)" || labels[1] != "dr" {
		t.Errorf("x tick labels %q, want the group names with the undefined count", labels)
	}
	if !(p.Y.Min <= 0.4 && p.Y.Max >= 0.9) {
		t.Errorf("y axis [%v, %v] does not cover the values (0.4..0.6) and the reference 0.9", p.Y.Min, p.Y.Max)
	}
	renders(t, p)

	// Without a reference the axis follows the data only.
	p, err = Spread("E[Z]", "estimate", groups, Reference{Value: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Max >= 0.9 {
		t.Errorf("y axis max %v reaches a reference that was not given", p.Y.Max)
	}
}

func TestSpreadErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups []Group
		ref    Reference
		want   string
	}{
		{"no groups", nil, Reference{Value: math.NaN()}, "no groups"},
		{"all undefined", []Group{{Name: "obs", Values: []float64{math.NaN(), math.NaN()}}}, Reference{Value: math.NaN()}, `group "obs" has no finite value`},
		{"empty", []Group{{Name: "obs"}}, Reference{Value: math.NaN()}, `group "obs" has no finite value`},
		{"infinite value", []Group{{Name: "ip", Values: []float64{1, math.Inf(1)}}}, Reference{Value: math.NaN()}, `group "ip" value 1 is +Inf`},
		{"infinite reference", []Group{{Name: "ip", Values: []float64{1}}}, Reference{Value: math.Inf(-1)}, "reference -Inf"},
	} {
		_, err := Spread("t", "y", tc.groups, tc.ref)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestHistograms(t *testing.T) {
	s := []Distribution{
		{Name: "Z = 1", Values: []float64{-1, -0.5, 0, 0.2}},
		{Name: "Z = 0, observed", Values: []float64{0.5, 1, 3}, Dashed: true},
	}
	p, err := Histograms("h by Z", "h", s, 8)
	if err != nil {
		t.Fatal(err)
	}
	if !(p.X.Min <= -1 && p.X.Max >= 3) {
		t.Errorf("x axis [%v, %v] does not span the values [-1, 3]", p.X.Min, p.X.Max)
	}
	// Each outline is a density: its area is 1, so its peak is at least 1/(range) = 0.25.
	if p.Y.Min != 0 || p.Y.Max < 0.25 {
		t.Errorf("y axis [%v, %v], want from 0 to at least 0.25 (densities)", p.Y.Min, p.Y.Max)
	}
	renders(t, p)
	// One repeated value still gets a bin of positive width.
	if _, err := Histograms("const", "h", []Distribution{{Name: "c", Values: []float64{2, 2}}}, 3); err != nil {
		t.Errorf("constant series: %v", err)
	}
}

func TestHistogramsErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		series []Distribution
		bins   int
		want   string
	}{
		{"no series", nil, 10, "no series"},
		{"no bins", []Distribution{{Name: "a", Values: []float64{1}}}, 0, "0 bins"},
		{"empty series", []Distribution{{Name: "a"}}, 10, `series "a" has no values`},
		{"NaN", []Distribution{{Name: "a", Values: []float64{1, math.NaN()}}}, 10, `series "a" value 1 is NaN`},
	} {
		_, err := Histograms("t", "x", tc.series, tc.bins)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
