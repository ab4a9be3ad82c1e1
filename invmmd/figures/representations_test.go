package figures

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestRepresentations draws a comparison of two settings and three methods: one point per
// fit, none's once per seed; the legend names
// the methods in the tables' order and the settings; the accuracy axis covers every point;
// no fits, or a non-finite value, is an error naming it.
func TestRepresentations(t *testing.T) {
	var fits []results.RepresentationFit
	for s := uint64(1); s <= 3; s++ {
		for _, m := range []string{"full", "none", "dr"} {
			fits = append(fits,
				results.RepresentationFit{Represent: "logit", Lambda: 1, Method: m, Seed: s, TeAcc: 0.8 + 0.01*float64(s), LogitMMD: 0.01 * float64(s)},
				results.RepresentationFit{Represent: "features", Lambda: 100, Method: m, Seed: s, TeAcc: 0.7, LogitMMD: 0.2})
		}
	}
	fits = fits[:len(fits)-1] // dr at features, λ = 100 has two seeds
	p, err := Representations("Simulation", fits)
	if err != nil {
		t.Fatal(err)
	}
	// none is one fit per seed whatever the setting: drawn once (3 seeds of 6 rows).
	if got := len(p.GlyphBoxes(p)); got != len(fits)-3 {
		t.Errorf("%d points drawn, want one per fit with none once, %d", got, len(fits)-3)
	}
	if p.Y.Min > 0.7 || p.Y.Max < 0.83 {
		t.Errorf("accuracy axis [%v, %v] leaves out a point", p.Y.Min, p.Y.Max)
	}
	// Logit MMD² up to 0.2 (beyond 10·MMDLinear): the x axis is a SymLog that holds every
	// point, whose linear part (±0.01) takes well under half of it.
	s, ok := p.X.Scale.(SymLog)
	if !ok || p.X.Min > 0.01 || p.X.Max < 0.2 {
		t.Fatalf("logit MMD² axis: scale %T on [%v, %v], want a SymLog holding 0.01–0.2", p.X.Scale, p.X.Min, p.X.Max)
	}
	if lin := s.Normalize(p.X.Min, p.X.Max, MMDLinear) - s.Normalize(p.X.Min, p.X.Max, p.X.Min); lin > 0.35 {
		t.Errorf("the linear part up to %g takes %.2f of the x axis", MMDLinear, lin)
	}
	g := [][]*plot.Plot{{p}}
	text := svgText(t, g)
	for _, want := range []string{"penalty on the", "logit, λ = 1", "features, λ = 100", "logit MMD² (training)", "linear within ±0.01, logarithmic beyond"} {
		if !strings.Contains(text, want) {
			t.Errorf("the figure lacks %q", want)
		}
	}
	if i, j, k := strings.Index(text, ">none (no penalty: one fit per seed)<"), strings.Index(text, ">full<"), strings.Index(text, ">dr<"); i < 0 || !(i < j && j < k) {
		t.Errorf("the legend does not name none, full, dr in the tables' order (%d, %d, %d)", i, j, k)
	}
	if share := checkLegible(t, "representations", g, RepresentationsWidth, RepresentationsHeight); share > 0.2 {
		t.Errorf("the legend takes %.2f of the figure", share)
	}
	if _, err := Representations("x", nil); err == nil || !strings.Contains(err.Error(), "no fits") {
		t.Errorf("no fits: %v", err)
	}
	bad := append([]results.RepresentationFit(nil), fits...)
	bad[2].LogitMMD = math.NaN()
	if _, err := Representations("x", bad); err == nil || !strings.Contains(err.Error(), "logit, λ = 1, seed 1: logit MMD² NaN") {
		t.Errorf("a NaN: %v", err)
	}
}
