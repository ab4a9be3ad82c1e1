package figures

import (
	"testing"

	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestCalibrationPanels draws a small study: four panels, each test in its method's colour
// with its route's dashes, and an error for no rows.
func TestCalibrationPanels(t *testing.T) {
	var rows []results.CalibrationRow
	var null []results.CalibrationP
	for _, n := range []int{500, 2000} {
		for _, d := range []float64{0, 0.2} {
			rows = append(rows,
				results.CalibrationRow{N: n, Delta: d, Method: "dr", Route: "cross", Replicates: 100, Rejections: 5 + int(100*d)},
				results.CalibrationRow{N: n, Delta: d, Method: "obs", Route: "permutation", Replicates: 100, Rejections: 20 + int(100*d)})
		}
		for r := 0; r < 10; r++ {
			null = append(null, results.CalibrationP{N: n, Method: "dr", Route: "cross", Replicate: r, P: float64(r) / 10})
		}
	}
	g, err := Calibration(rows, null, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 2 || len(g[0]) != 2 || len(g[1]) != 2 {
		t.Fatalf("grid %v, want 2×2", g)
	}
	for _, c := range []struct {
		method, route string
		dashed        bool
	}{{"dr", "cross", false}, {"dr", "wild", true}, {"obs", "permutation", true}, {"reg", "cross", false}} {
		ls, gs := testStyle(c.method, c.route)
		want, _ := MethodColor(c.method)
		if ls.Color != want || gs.Color != want {
			t.Errorf("%s/%s: colours %v and %v, want the method's %v", c.method, c.route, ls.Color, gs.Color, want)
		}
		if (len(ls.Dashes) > 0) != c.dashed {
			t.Errorf("%s/%s: dashes %v, want dashed %v", c.method, c.route, ls.Dashes, c.dashed)
		}
	}
	if belowOf(g[0][1]) == nil {
		t.Error("the QQ plot has no key of its own")
	}
	if _, a := testStyle("dr", "cross"); a.Shape == func() draw.GlyphDrawer { _, b := testStyle("obs", "cross"); return b.Shape }() {
		t.Error("dr and obs share a marker")
	}
	one, err := Calibration(rows[:4], null[:10], 0.05) // one sample size: one power panel
	if err != nil {
		t.Fatal(err)
	}
	if one[1][0] == nil || one[1][1] != nil {
		t.Errorf("one sample size: power panels %v, want one", one[1])
	}
	if !inflated(rows, "obs/permutation", 500) || inflated(rows, "dr/cross", 500) {
		t.Error("obs/permutation (size 0.20) should be inflated and dr/cross (0.05) not")
	}
	if _, err := Calibration(nil, nil, 0.05); err == nil {
		t.Error("no rows: no error")
	}
}
