package figures

import (
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
)

// objectiveRuns are a paper objective whose dr collapses on two of five seeds and a remedy
// run with dr alone, on three seeds.
func objectiveRuns() []ObjectiveRun {
	paper := append(seedRows("none", 0.68, 0.69, 0.68, 0.67, 0.68), seedRows("full", 0.82, 0.81, 0.82, 0.83, 0.82)...)
	paper = append(paper, seedRows("dr", 0.2, 0.18, 0.8, 0.81, 0.82)...)
	for i := range paper {
		paper[i].TrAcc = paper[i].TeAcc
	}
	clip := seedRows("dr", 0.79, 0.2, 0.8)
	for i := range clip {
		clip[i].TrAcc = clip[i].TeAcc
	}
	return []ObjectiveRun{{Objective: "paper", Rows: paper}, {Objective: "clip", Rows: clip}}
}

// TestObjectives: one panel per objective on one shared axis, with the methods a remedy was
// run with (full, only with the paper's, is left out; none is a line), each panel's title
// counting the fits that ended with train accuracy below 0.5; per-seed points; refusals.
func TestObjectives(t *testing.T) {
	g, err := Objectives("Sim, λ = 5", objectiveRuns(), Hints(results.FigureHints{Ceiling: 0.844, CeilingWhat: "invariant h*"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 2 || len(g[0]) != 1 {
		t.Fatalf("grid %d×%d, want one panel per objective", len(g), len(g[0]))
	}
	paper, clip := g[0][0], g[1][0]
	if paper.Y.Min != clip.Y.Min || paper.Y.Max != clip.Y.Max || paper.Y.Min > 0.18 || paper.Y.Max < 0.844 {
		t.Errorf("axes [%g, %g] and [%g, %g], want one shared axis holding 0.18–0.844", paper.Y.Min, paper.Y.Max, clip.Y.Min, clip.Y.Max)
	}
	for p, want := range map[int]string{0: "paper (seeds 1–5): 2 of 5 fits ended with train accuracy below 0.5", 1: "clip (seeds 1–3): 1 of 3 fits ended"} {
		if !strings.Contains(g[p][0].Title.Text, want) {
			t.Errorf("panel %d's title %q lacks %q", p, g[p][0].Title.Text, want)
		}
	}
	if !strings.HasPrefix(paper.Title.Text, "Sim, λ = 5: test accuracy by objective\n") {
		t.Errorf("first title %q", paper.Title.Text)
	}
	if n := len(paper.GlyphBoxes(paper)); n != 5 {
		t.Errorf("%d seed points in the paper's panel, want dr's 5", n)
	}
	svg := svgText(t, g)
	for _, w := range []string{"each seed", "median of the seeds", "none's median (0.680; no penalty)", "ceiling, invariant h* (0.844)"} {
		if !strings.Contains(svg, w) {
			t.Errorf("the figure lacks %q", w)
		}
	}
	if strings.Contains(svg, ">full<") {
		t.Error("full, run with the paper's objective alone, has a column")
	}
	w, h := ObjectivesSize(len(g))
	checkLegible(t, "objectives", g, w, h)

	// A method a remedy was not run with says so.
	runs := objectiveRuns()
	runs = append(runs, ObjectiveRun{Objective: "robust", Rows: seedRows("full", 0.8, 0.81)})
	g, err = Objectives("Sim", runs)
	if err != nil {
		t.Fatal(err)
	}
	if svg := svgText(t, g[1:2]); !strings.Contains(svg, "not run") {
		t.Error("clip, run without full, does not say so")
	}
	w, h = ObjectivesSize(len(g))
	checkLegible(t, "objectives with a method not run", g, w, h)

	if _, err := Objectives("x", nil); err == nil {
		t.Error("no runs: no error")
	}
	if _, err := Objectives("x", []ObjectiveRun{{Objective: "clip"}}); err == nil || !strings.Contains(err.Error(), "clip") {
		t.Errorf("a run without rows: %v", err)
	}
	if got := seedRange([]uint64{1, 2, 3}) + "; " + seedRange([]uint64{1, 3}) + "; " + seedRange(nil); got != "1–3; 1, 3; none" {
		t.Errorf("seedRange: %q", got)
	}
}
