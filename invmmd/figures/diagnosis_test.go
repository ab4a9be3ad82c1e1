package figures

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/invmmd/invmmd/invmmd/results"
)

// diagnosisSteps are 20 steps of each objective: blown-up estimates (up to 5) on batches
// whose normaliser rows vary, the second objective identical to the first when same.
func diagnosisSteps(same bool) []results.DiagnosisStep {
	var steps []results.DiagnosisStep
	for i := 1; i <= 20; i++ {
		for k, o := range []string{"paper", "train-norms"} {
			s := results.DiagnosisStep{Objective: o, Step: i, Epoch: (i-1)/5 + 1, NLL: 0.7 - 0.01*float64(i),
				MMD2: [2]float64{float64(i%7) - 1, 0.01 * float64(i)}, PZ1: [2]float64{0.05 + 0.005*float64(i), 0.9}}
			if k == 1 && !same {
				s.MMD2[0] /= 10
			}
			steps = append(steps, s)
		}
	}
	return steps
}

// TestDiagnosis draws a two-objective diagnosis and checks its panels, its axes (a SymLog
// for blown-up estimates, said in the titles; the normalisers' probability within [0, 1]),
// its legend below the first panel, each objective's kept epoch marked with its validation
// values, and its refusals.
func TestDiagnosis(t *testing.T) {
	plots, err := Diagnosis(diagnosisSteps(false), "sim_mf075, dr, λ = 5, seed 1", map[string]string{"paper": "paper: train acc 0.19"},
		[]results.DiagnosisKept{{Objective: "paper", Epoch: 2, Val: 2.004, ValNLL: 1.316, ValStrata: [2]float64{0.063, 0.075}},
			{Objective: "train-norms", Epoch: 3, Val: 0.537, ValNLL: 0.383, ValStrata: [2]float64{0.027, 0.004}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 2 || len(plots[0]) != 2 || len(plots[1]) != 2 {
		t.Fatalf("panels %v, want 2×2", plots)
	}
	for _, p := range []*plot.Plot{plots[0][0], plots[0][1], plots[1][1]} {
		if _, ok := p.Y.Scale.(SymLog); !ok {
			t.Errorf("%q: scale %T for estimates up to 5, want SymLog", p.Title.Text, p.Y.Scale)
		}
		if !strings.Contains(p.Title.Text, "y axis linear within ±0.1, logarithmic beyond") {
			t.Errorf("%q does not say how its axis is scaled", p.Title.Text)
		}
	}
	if sc := plots[1][1]; sc.X.Min < 0 || sc.X.Max > 1 || sc.X.Min > 0.055 || sc.X.Max < 0.15 {
		t.Errorf("P(Z = 1 | Y = 0) axis [%g, %g], want the estimates' range 0.055–0.15 within [0, 1]", sc.X.Min, sc.X.Max)
	}
	svg := svgText(t, plots)
	for _, w := range []string{"sim_mf075, dr, λ = 5, seed 1; objective:", "paper: train acc 0.19", "train-norms",
		"kept: epoch 2", "kept: epoch 3", "0.063", "0.027", "1.316", "2.004", "0.537"} {
		if !strings.Contains(svg, w) {
			t.Errorf("the figure lacks %q", w)
		}
	}
	for _, w := range []string{"log axes", "dashed: the same"} {
		if strings.Contains(svg, w) {
			t.Errorf("the figure shows %q", w)
		}
	}
	checkLegible(t, "diagnosis", plots, DiagnosisWidth, DiagnosisHeight)
	if _, err := Diagnosis(nil, "", nil, nil); err == nil {
		t.Error("an empty diagnosis was drawn")
	}
	many := []results.DiagnosisStep{}
	for k := 0; k <= len(series); k++ {
		many = append(many, results.DiagnosisStep{Objective: string(rune('a' + k)), Step: 1, Epoch: 1})
	}
	if _, err := Diagnosis(many, "", nil, nil); err == nil {
		t.Error("more objectives than series colours were drawn")
	}
	if _, err := Diagnosis(diagnosisSteps(false), "", nil, []results.DiagnosisKept{{Objective: "paper", Epoch: 9}}); err == nil {
		t.Error("a kept epoch past the steps was drawn")
	}
}

// TestDiagnosisFullBatch: a full-batch fit (the clinical record) whose two objectives take
// the same steps, with small estimates and normalisers the same at every step, is drawn on
// linear MMD² axes, the second objective dashed over the first and said to be the same in
// the legend, the one epoch both kept marked once with each objective's validation values,
// and the normalisers as lines on a probability axis, not as one stripe of a
// scatter on an axis past 1.
func TestDiagnosisFullBatch(t *testing.T) {
	var steps []results.DiagnosisStep
	for _, o := range []string{"paper", "robust"} {
		for i := 1; i <= 30; i++ {
			steps = append(steps, results.DiagnosisStep{Objective: o, Step: i, Epoch: i, NLL: 0.8 - 0.01*float64(i),
				MMD2: [2]float64{0.01 - 0.0005*float64(i), 0.04 / float64(i)}, PZ1: [2]float64{0.852, 0.14}})
		}
	}
	plots, err := Diagnosis(steps, "clinical, dr, λ = 1, seed 1", map[string]string{"paper": "paper: train acc 0.82", "robust": "robust: train acc 0.82"},
		[]results.DiagnosisKept{{Objective: "paper", Epoch: 25, Val: -0.143, ValNLL: 0.433, ValStrata: [2]float64{-0.604, 0.027}},
			{Objective: "robust", Epoch: 25, Val: 0.497, ValNLL: 0.433, ValStrata: [2]float64{-0.017, 0.063}}})
	if err != nil {
		t.Fatal(err)
	}
	top := plots[0][0]
	if _, ok := top.Y.Scale.(SymLog); ok || top.Y.Max > 0.1 || top.Y.Min > -0.005 {
		t.Errorf("MMD² axis %T [%g, %g], want a linear one fitted to −0.005–0.04", top.Y.Scale, top.Y.Min, top.Y.Max)
	}
	if p := plots[1][1]; p.Y.Min != 0 || p.Y.Max != 1 || !strings.Contains(p.Title.Text, "the same at every step") {
		t.Errorf("normaliser panel %q on [%g, %g], want P(Z = 1 | y) per step on [0, 1]", p.Title.Text, p.Y.Min, p.Y.Max)
	}
	svg := svgText(t, plots)
	for _, w := range []string{"robust: train acc 0.82 (dashed: the same at every step as paper)", "Y = 0: 0.852", "Y = 1: 0.140",
		"kept: epoch 25", "kept epoch 25,", "−0.604", "−0.017", "−0.143", "0.497"} {
		if !strings.Contains(svg, w) {
			t.Errorf("the figure lacks %q", w)
		}
	}
	checkLegible(t, "full-batch diagnosis", plots, DiagnosisWidth, DiagnosisHeight)
	if !sameSteps(steps[:30], steps[30:]) || sameSteps(steps[:30], steps[31:]) {
		t.Error("sameSteps: wrong on equal or unequal steps")
	}
}
