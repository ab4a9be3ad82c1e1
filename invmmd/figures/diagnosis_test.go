package figures

import (
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestDiagnosis draws a two-objective diagnosis and checks its panels, its legend and its
// refusals.
func TestDiagnosis(t *testing.T) {
	var steps []results.DiagnosisStep
	for i := 1; i <= 20; i++ {
		for _, o := range []string{"paper", "train-norms"} {
			steps = append(steps, results.DiagnosisStep{Objective: o, Step: i, Epoch: (i-1)/5 + 1, NLL: 0.7 - 0.01*float64(i),
				MMD2: [2]float64{float64(i%7) - 1, 0.01 * float64(i)}, PZ1: [2]float64{0.05 + 0.005*float64(i), 0.9}})
		}
	}
	plots, err := Diagnosis(steps, "sim_mf075, dr, λ = 5, seed 1", map[string]string{"paper": "paper: train acc 0.19"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 2 || len(plots[0]) != 2 || len(plots[1]) != 2 {
		t.Fatalf("panels %v, want 2×2", plots)
	}
	if _, err := GridPNG(plots, DiagnosisWidth, DiagnosisHeight); err != nil {
		t.Fatal(err)
	}
	if got := legendLines("sim_mf075, dr, λ = 5, seed 1"); len(got) != 2 || got[0] != "sim_mf075, dr, λ = 5," || got[1] != "seed 1" {
		t.Errorf("legendLines = %q", got)
	}
	if _, err := Diagnosis(nil, "", nil); err == nil {
		t.Error("an empty diagnosis was drawn")
	}
	many := []results.DiagnosisStep{}
	for k := 0; k <= len(series); k++ {
		many = append(many, results.DiagnosisStep{Objective: string(rune('a' + k)), Step: 1, Epoch: 1})
	}
	if _, err := Diagnosis(many, "", nil); err == nil {
		t.Error("more objectives than series colours were drawn")
	}
}
