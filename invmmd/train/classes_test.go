package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
)

// threeClasses draws a table with a label of three classes: X ~ N(0, I₂), Y drawn from the
// softmax of (0, 2x₁, −2x₁), Z | Y ~ B((0.2, 0.8, 0.5)[Y]), a third feature x₃ = Z + N(0, 1)
// that leaks Z, and Z really missing (NaN) with probability 1 − σ(0.5 + x₂).
func threeClasses(rng *rand.Rand, name string, n int) *dataset.Set {
	s := &dataset.Set{Name: name, Shape: []int{3}, Classes: 3}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	pZ := []float64{0.2, 0.8, 0.5}
	for i := 0; i < n; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		p := softmax([]float64{0, 2 * x1, -2 * x1})
		u, y := rng.Float64(), 0
		for u > p[y] && y < 2 {
			u -= p[y]
			y++
		}
		z := 0.0
		if rng.Float64() < pZ[y] {
			z = 1
		}
		x3 := z + rng.NormFloat64()
		d := 0.0
		if rng.Float64() < sig(0.5+x2) {
			d = 1
		} else {
			z = math.NaN()
		}
		s.X = append(s.X, float32(x1), float32(x2), float32(x3))
		s.Y, s.Z, s.Delta = append(s.Y, float64(y)), append(s.Z, z), append(s.Delta, d)
	}
	return s
}

// TestFitThreeClasses trains h with K = 3 class logits: with no penalty and with dr it beats
// the majority class (trained with the robust objective, as invmmd fit does), reports macro-AUC, three strata in validation and in the held-out
// estimates, and class probabilities that sum to 1; dr at λ = 2 gives a smaller training
// MMD² than none does. The Fourier path and a one-output network are refused.
func TestFitThreeClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("two full-batch fits of 60 epochs (about a minute)")
	}
	rng := rand.New(rand.NewPCG(41, 42))
	sp := dataset.Splits{Train: threeClasses(rng, "train", 1500), Val: threeClasses(rng, "val", 600), Test: threeClasses(rng, "test", 1500)}
	aux := quickAux(t, sp)
	majority := 0.0
	for c := 0.0; c < 3; c++ {
		k := 0.0
		for _, y := range sp.Test.Y {
			if y == c {
				k++
			}
		}
		majority = math.Max(majority, k/float64(sp.Test.Len()))
	}
	trainMMD := map[method.Method]float64{}
	for _, tc := range []struct {
		method method.Method
		lambda float64
	}{{method.None, 0}, {method.DR, 2}} {
		cfg := Config{Method: tc.method, Lambda: tc.lambda, Epochs: 60, LearningRate: 2e-2, Seed: 3}
		robust, err := ObjectiveByName("robust") // normalisers from the training set: a batch's strata are small
		if err != nil {
			t.Fatal(err)
		}
		robust.Apply(&cfg)
		model, hist, err := Fit(context.Background(), sp, aux, mlp(4), cfg, Runtime{})
		if err != nil {
			t.Fatalf("%v: %v", tc.method, err)
		}
		if model.Heads != 3 {
			t.Fatalf("%v: model has %d outputs per row, want 3", tc.method, model.Heads)
		}
		if tc.method == method.DR {
			if got := len(hist.Epochs[0].ValStrata); got != 3 {
				t.Errorf("%v: %d validation strata, want 3", tc.method, got)
			}
			if hist.PenaltyPath != "exact" {
				t.Errorf("%v: penalty path %q, want exact", tc.method, hist.PenaltyPath)
			}
		}
		ev, err := Evaluate(model, sp, EvalOptions{Aux: aux})
		met, held := ev.Metrics, ev.HeldOut
		if err != nil {
			t.Fatalf("%v: %v", tc.method, err)
		}
		t.Logf("%v λ=%v: test accuracy %.3f (majority %.3f), macro-AUC %.3f, train MMD² %.4f by %v, held-out dr %.4f",
			tc.method, tc.lambda, met.TestAcc, majority, met.TestAUC, met.TrainMMD, met.TrainMMDBy, held[0].Value)
		if met.TestAcc < majority+0.05 || met.TestAUC < 0.6 || met.TestAUC > 1 {
			t.Errorf("%v: test accuracy %.3f (majority %.3f), macro-AUC %.3f; want accuracy 0.05 above the majority and AUC above 0.6",
				tc.method, met.TestAcc, majority, met.TestAUC)
		}
		if len(held) != 2 || len(held[0].Strata) != 3 || held[0].Method != method.DR {
			t.Fatalf("%v: held-out results %+v, want dr and ip over 3 strata", tc.method, held)
		}
		trainMMD[tc.method] = met.TrainMMD
		p, err := model.ClassProbabilities(sp.Test)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < sp.Test.Len(); i++ {
			if s := p[3*i] + p[3*i+1] + p[3*i+2]; math.Abs(s-1) > 1e-9 {
				t.Fatalf("%v: row %d: class probabilities sum to %v", tc.method, i, s)
			}
		}
	}
	if !(trainMMD[method.DR] < 0.7*trainMMD[method.None]) {
		t.Errorf("train MMD² by dr: %.4f with the penalty (λ = 2), %.4f without; want the penalty to cut it by 30%%", trainMMD[method.DR], trainMMD[method.None])
	}

	for _, tc := range []struct {
		name string
		net  models.Net
		cfg  Config
		want string
	}{
		{"fourier path", mlp(1), Config{Method: method.DR, Lambda: 1, BatchSize: 300, Epochs: 1, LearningRate: 1e-2, Penalty: PathFourier}, "Fourier"},
		{"one output", models.CNN{}, Config{Method: method.None, BatchSize: 300, Epochs: 1, LearningRate: 1e-2}, "3 outputs per row"},
	} {
		if _, _, err := Fit(context.Background(), sp, aux, tc.net, tc.cfg, Runtime{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestMacroAUC checks the one-vs-rest AUCs and their mean on small cases worked by hand.
func TestMacroAUC(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     []float64
		y     []float64
		macro float64
		per   []float64
	}{
		{"perfect", []float64{.8, .1, .1, .1, .8, .1, .1, .1, .8}, []float64{0, 1, 2}, 1, []float64{1, 1, 1}},
		{"reversed for class 0", []float64{.1, 0, 0, .8, .2, 0, .8, 0, .2}, []float64{0, 1, 2}, (0 + 1 + 1) / 3.0, []float64{0, 1, 1}},
		{"a tie counts half", []float64{.5, .5, 0, .5, .5, 0, 0, 0, 1}, []float64{0, 1, 2}, (0.75 + 0.75 + 1) / 3, []float64{0.75, 0.75, 1}},
		{"class 2 absent", []float64{.9, .1, 0, .2, .8, 0}, []float64{0, 1}, 1, []float64{1, 1, 0.5}},
	} {
		macro, per := MacroAUC(tc.p, 3, tc.y)
		if math.Abs(macro-tc.macro) > 1e-12 {
			t.Errorf("%s: macro-AUC %v, want %v", tc.name, macro, tc.macro)
		}
		for c := range per {
			if math.Abs(per[c]-tc.per[c]) > 1e-12 {
				t.Errorf("%s: AUC of class %d %v, want %v", tc.name, c, per[c], tc.per[c])
			}
		}
	}
}

// TestWithLabelOneHot checks the input of G and m: a binary label appended as one value,
// a label of three classes as its one-hot, on tables and images.
func TestWithLabelOneHot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shape   []int
		classes int
		wantDim []int
		wantRow []float32 // row 1 (Y = 2, or Y = 1 for binary)
	}{
		{"binary table", []int{2}, 0, []int{3}, []float32{3, 4, 1}},
		{"three-class table", []int{2}, 3, []int{5}, []float32{3, 4, 0, 0, 1}},
		{"three-class image", []int{1, 2, 1}, 3, []int{1, 2, 4}, []float32{3, 0, 0, 1, 4, 0, 0, 1}},
	} {
		y1 := 2.0
		if tc.classes == 0 {
			y1 = 1
		}
		s := &dataset.Set{Name: "t", Shape: tc.shape, Classes: tc.classes, X: []float32{1, 2, 3, 4},
			Y: []float64{0, y1}, Z: []float64{0, 1}, Delta: []float64{1, 1}}
		w := WithLabel(s)
		if err := w.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if fmt.Sprint(w.Shape) != fmt.Sprint(tc.wantDim) {
			t.Errorf("%s: shape %v, want %v", tc.name, w.Shape, tc.wantDim)
		}
		if got := w.Row(1); fmt.Sprint(got) != fmt.Sprint(tc.wantRow) {
			t.Errorf("%s: row 1 %v, want %v", tc.name, got, tc.wantRow)
		}
	}
}
