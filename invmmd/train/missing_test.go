package train

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// tinyCell draws a table with a tiny cell, the case the training guard is for: P(Y = 1) ≈ 0.1, a (Y = 0, Z = 0) cell of about
// 0.5% of the rows, and Z really missing (NaN) for about 40% of the rows, at random given X.
func tinyCell(rng *rand.Rand, name string, n int) *dataset.Set {
	s := &dataset.Set{Name: name, Shape: []int{2}}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	for i := 0; i < n; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := 0.0
		if rng.Float64() < sig(3*x1-4) {
			y = 1
		}
		pz := 0.5
		if y == 0 {
			pz = 0.995
		}
		z := 0.0
		if rng.Float64() < pz {
			z = 1
		}
		d := 0.0
		if rng.Float64() < sig(0.5+x2) {
			d = 1
		} else {
			z = math.NaN()
		}
		s.X = append(s.X, float32(x1), float32(x2))
		s.Y, s.Z, s.Delta = append(s.Y, y), append(s.Z, z), append(s.Delta, d)
	}
	return s
}

// TestTinyCellDoesNotCollapse trains dr on a table with a tiny (Y = 0, Z = 0) cell and
// really missing Z: without Options.DropUnreliable the unreliable stratum is counted and
// kept, with a warning; with it, the guard drops the stratum with a warning that says why,
// test accuracy stays at or above the majority baseline, full refuses the data, and the
// evaluation reports dr and ip with Y = 0 flagged.
func TestTinyCellDoesNotCollapse(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	sp := dataset.Splits{Train: tinyCell(rng, "train", 3000), Val: tinyCell(rng, "val", 1500), Test: tinyCell(rng, "test", 3000)}
	if _, _, err := Fit(context.Background(), sp, nil, mlp(1), Config{Method: method.Full, Lambda: 1, BatchSize: 500, Epochs: 1, LearningRate: 1e-2}, Runtime{}); err == nil ||
		!strings.Contains(err.Error(), "needs Z on every row") {
		t.Fatalf("full on data with missing Z: error %v", err)
	}
	aux := quickAux(t, sp)
	cfg := Config{Method: method.DR, Lambda: 1, BatchSize: 500, Epochs: 10, LearningRate: 1e-2, Seed: 2}
	_, kept, err := Fit(context.Background(), sp, aux, mlp(2), cfg, Runtime{}) // the paper's behaviour: counted and kept
	if err != nil {
		t.Fatal(err)
	}
	if kept.DroppedStrata != 0 || kept.UnreliableStrata == 0 || !strings.Contains(kept.Warning(), "unreliable and kept in the loss") {
		t.Errorf("without DropUnreliable: dropped %d, unreliable %d, warning %q", kept.DroppedStrata, kept.UnreliableStrata, kept.Warning())
	}
	cfg.Estimator.DropUnreliable = true
	model, hist, err := Fit(context.Background(), sp, aux, mlp(2), cfg, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if hist.DroppedStrata == 0 || !strings.Contains(hist.Warning(), "Y=0") || !strings.Contains(hist.Warning(), "ESS") {
		t.Errorf("dropped %d strata, warning %q; want the Y=0 stratum dropped for its ESS", hist.DroppedStrata, hist.Warning())
	}
	if _, err := Evaluate(model, sp, EvalOptions{}); err == nil || !strings.Contains(err.Error(), "Z missing") {
		t.Errorf("Evaluate without aux on missing Z: error %v", err)
	}
	ev, err := Evaluate(model, sp, EvalOptions{Aux: aux})
	met, held := ev.Metrics, ev.HeldOut
	if err != nil {
		t.Fatal(err)
	}
	majority := 0.0
	for _, y := range sp.Test.Y {
		majority += 1 - y
	}
	majority /= float64(sp.Test.Len())
	if met.TestAcc < majority-0.005 {
		t.Errorf("dr test accuracy %.3f below the majority baseline %.3f", met.TestAcc, majority)
	}
	if met.TrainMMDBy != method.DR || math.IsNaN(met.TrainMMD) || len(held) != 2 || held[0].Method != method.DR || held[1].Method != method.IP {
		t.Fatalf("metrics %+v, held-out %v", met, held)
	}
	for _, r := range held {
		if s := r.Report.Strata[0]; !s.Unreliable {
			t.Errorf("%v held-out: stratum Y=0 not flagged: %v", r.Method, s)
		}
	}
	if !(met.TestAUC > 0.8) {
		t.Errorf("test AUC %.3f, want > 0.8 (Y depends strongly on x1)", met.TestAUC)
	}
}

func TestAUC(t *testing.T) {
	for _, tc := range []struct {
		s, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{0, 0, 1, 1}, 1},
		{[]float64{4, 3, 2, 1}, []float64{0, 0, 1, 1}, 0},
		{[]float64{1, 1, 1, 1}, []float64{0, 1, 0, 1}, 0.5},
		{[]float64{1, 2, 2, 3}, []float64{0, 1, 0, 1}, 0.875},
		{[]float64{1, 2}, []float64{1, 1}, 0.5},
	} {
		if got := AUC(tc.s, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("AUC(%v, %v) = %v, want %v", tc.s, tc.y, got, tc.want)
		}
	}
}

// TestSaveLoad checks that a saved model, loaded into a fresh network of the same
// architecture, gives the same outputs.
func TestSaveLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	sp := dataset.Splits{Train: tinyCell(rng, "train", 600), Val: tinyCell(rng, "val", 300), Test: tinyCell(rng, "test", 300)}
	model, _, err := Fit(context.Background(), sp, nil, mlp(5), Config{Method: method.None, BatchSize: 200, Epochs: 2, LearningRate: 1e-2, Seed: 5}, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/h.json"
	if err := model.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := loadModel(nil, mlp(99), path, 128) // another seed: every weight must come from the file
	if err != nil {
		t.Fatal(err)
	}
	a, _ := model.Logits(sp.Test)
	b, err := back.Logits(sp.Test)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("row %d: %v before saving, %v after loading", i, a[i], b[i])
		}
	}
}
