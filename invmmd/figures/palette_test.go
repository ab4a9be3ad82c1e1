package figures

import (
	"image/color"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestMethodColors: every method of the method table has a colour of its own, none of them white or the paper's.
func TestMethodColors(t *testing.T) {
	seen := map[color.RGBA]string{}
	for _, m := range method.Names() {
		c, ok := MethodColor(m)
		if !ok {
			t.Fatalf("method %s has no colour", m)
		}
		rgba := color.RGBAModel.Convert(c).(color.RGBA)
		if q, ok := seen[rgba]; ok {
			t.Errorf("%s and %s share the colour %v", m, q, rgba)
		}
		seen[rgba] = m
		if rgba == color.RGBAModel.Convert(PaperColor).(color.RGBA) || rgba == (color.RGBA{255, 255, 255, 255}) {
			t.Errorf("%s is drawn in %v, the paper's colour or white", m, rgba)
		}
	}
	if _, ok := MethodColor("nope"); ok {
		t.Error("an unknown method has a colour")
	}
}

// TestSeriesColor: a label naming a method or a Z value gets its colour wherever it stands;
// other labels take series in order.
func TestSeriesColor(t *testing.T) {
	dr, _ := MethodColor("dr")
	ipPlus, _ := MethodColor("ip+")
	for _, c := range []struct {
		label string
		k     int
		want  color.Color
	}{
		{"dr", 5, dr},
		{"h (dr)", 0, dr},
		{"ip+\ntrue G", 2, ipPlus},
		{"Z = 1", 0, ZColors[1]},
		{"Z = 0 (grass, dark)", 1, ZColors[0]},
		{"Z ≥ 0, observed rows", 2, ZColors[1]},
		{"true G = 0.2", 1, series[1]},
		{"drift", 0, series[0]},
	} {
		if got := seriesColor(c.label, c.k); got != c.want {
			t.Errorf("seriesColor(%q, %d) = %v, want %v", c.label, c.k, got, c.want)
		}
	}
}
