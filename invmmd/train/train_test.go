package train

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/sim"
)

func smallSim(t *testing.T, seed uint64) dataset.Splits {
	t.Helper()
	sp, err := sim.Generate(sim.Config{NTrain: 1200, NVal: 600, NTest: 600, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func mlp(seed uint64) models.Net { return models.MLP{Hidden: []int{16}, Seed: seed} }

// auxMLP builds the same network for G and m.
func auxMLP(_ Role, seed uint64) models.Net { return mlp(seed) }

func quickAux(t *testing.T, sp dataset.Splits) *Aux {
	t.Helper()
	aux, err := FitAux(context.Background(), sp, auxMLP, AuxConfig{BatchSize: 100, Epochs: 15, LearningRate: 1e-2, Seed: 5}, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	return aux
}

// TestSameSeedSameNumbers trains twice with the same seed and once with another, on the
// pure-Go backend, and compares the metrics.
func TestSameSeedSameNumbers(t *testing.T) {
	sp := smallSim(t, 1)
	aux := quickAux(t, sp)
	run := func(seed uint64) Metrics {
		cfg := Config{Method: method.DR, Lambda: 1, BatchSize: 300, Epochs: 3, LearningRate: 3e-3, Seed: seed}
		m, _, err := Fit(context.Background(), sp, aux, mlp(seed), cfg, Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Evaluate(m, sp, EvalOptions{})
		met := ev.Metrics
		if err != nil {
			t.Fatal(err)
		}
		return met
	}
	a, b, c := run(7), run(7), run(8)
	if a != b {
		t.Errorf("same seed, different numbers: %+v vs %+v", a, b)
	}
	if a == c {
		t.Errorf("seeds 7 and 8 gave identical numbers %+v", a)
	}
	aux2 := quickAux(t, sp)
	for i := range aux.Train.G {
		if aux.Train.G[i] != aux2.Train.G[i] || aux.Train.M[i] != aux2.Train.M[i] {
			t.Fatalf("auxiliary fits differ at row %d with the same seed", i)
		}
	}
}

// TestTrainingLearns checks that a short run of "none" beats chance and that "full" with
// a large λ lowers the training MMD below none's, on the simulation.
func TestTrainingLearns(t *testing.T) {
	sp := smallSim(t, 2)
	fitEval := func(m method.Method, lambda float64) (Metrics, *History) {
		model, hist, err := Fit(context.Background(), sp, nil, mlp(3), Config{Method: m, Lambda: lambda, BatchSize: 300, Epochs: 15, LearningRate: 1e-2, Seed: 3}, Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Evaluate(model, sp, EvalOptions{})
		met := ev.Metrics
		if err != nil {
			t.Fatal(err)
		}
		return met, hist
	}
	none, h := fitEval(method.None, 0)
	if none.TrainAcc < 0.8 {
		t.Errorf("none: train accuracy %.3f after 15 epochs, want > 0.8 (the Bayes rate is 0.89)", none.TrainAcc)
	}
	if h.BestEpoch < 1 || h.BestEpoch > 15 || len(h.Epochs) != 15 {
		t.Errorf("history: best epoch %d of %d", h.BestEpoch, len(h.Epochs))
	}
	full, _ := fitEval(method.Full, 10)
	if !(full.TrainMMD < none.TrainMMD/2) {
		t.Errorf("full with λ=10: train MMD %.4f, none %.4f; want less than half", full.TrainMMD, none.TrainMMD)
	}
}

// TestPenaltyPathsAgree trains the same model with the exact and the Fourier penalty and
// expects the same trajectory up to float32 noise.
func TestPenaltyPathsAgree(t *testing.T) {
	sp := smallSim(t, 3)
	var res []Metrics
	for _, p := range []PenaltyPath{PathExact, PathFourier} {
		m, h, err := Fit(context.Background(), sp, nil, mlp(4), Config{Method: method.Full, Lambda: 2, BatchSize: 400, Epochs: 4, LearningRate: 3e-3, Seed: 4, Penalty: p}, Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[PenaltyPath]string{PathExact: "exact", PathFourier: "fourier"}[p]
		if !strings.HasPrefix(h.PenaltyPath, want) {
			t.Errorf("penalty path %q, want %s", h.PenaltyPath, want)
		}
		ev, _ := Evaluate(m, sp, EvalOptions{})
		met := ev.Metrics
		res = append(res, met)
	}
	if math.Abs(res[0].TrainMMD-res[1].TrainMMD) > 2e-3 || math.Abs(res[0].TrainAcc-res[1].TrainAcc) > 0.01 {
		t.Errorf("exact %+v and Fourier %+v training disagree", res[0], res[1])
	}
}

func TestBadConfigurationIsAClearError(t *testing.T) {
	sp := smallSim(t, 4)
	good := Config{Method: method.Full, Lambda: 1, BatchSize: 200, Epochs: 1, LearningRate: 1e-3}
	for _, tc := range []struct {
		name string
		edit func(c *Config)
		aux  bool
		want string
	}{
		{"unknown method", func(c *Config) { c.Method = method.Method(42) }, false, "unknown method"},
		{"negative λ", func(c *Config) { c.Lambda = -1 }, false, "λ = -1"},
		{"batch larger than the data", func(c *Config) { c.BatchSize = 5000 }, false, "batch size 5000 is larger than the 1200 training rows"},
		{"no epochs", func(c *Config) { c.Epochs = 0 }, false, "0 epochs"},
		{"zero learning rate", func(c *Config) { c.LearningRate = 0 }, false, "learning rate 0"},
		{"dr without auxiliary models", func(c *Config) { c.Method = method.DR }, false, "needs the fitted auxiliary models"},
		{"bad estimator options", func(c *Config) { c.Estimator.MainFraction = 2 }, false, "MainFraction = 2"},
		{"negative patience", func(c *Config) { c.Patience = -1 }, false, "patience -1"},
		{"selection after the cap", func(c *Config) { c.SelectAfter = 1 }, false, "selection after 1 epochs of 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			_, _, err := Fit(context.Background(), sp, nil, mlp(1), cfg, Runtime{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// ip+ on data without a known G.
	sp.Train.GTrue, sp.Val.GTrue, sp.Test.GTrue = nil, nil, nil
	cfg := good
	cfg.Method = method.IPPlus
	if _, _, err := Fit(context.Background(), sp, nil, mlp(1), cfg, Runtime{}); err == nil || !strings.Contains(err.Error(), "needs the true G") {
		t.Fatalf("ip+ without the true G: error %v", err)
	}
}

func TestAuxReports(t *testing.T) {
	sp := smallSim(t, 5)
	aux := quickAux(t, sp)
	for _, r := range []FitReport{aux.G, aux.M} {
		if !(r.ValNLL > 0 && r.ValNLL < 0.7) || !(r.ValAcc > 0.6) || r.ValECE < 0 || r.ValECE > 1 {
			t.Errorf("%s: implausible fit report %+v", r.Model, r)
		}
	}
	if !aux.G.HasTrueG || aux.G.MAETrueG > 0.3 {
		t.Errorf("G: mean |Ĝ − G| = %v (known %v)", aux.G.MAETrueG, aux.G.HasTrueG)
	}
	if aux.M.TrainRows >= sp.Train.Len() || aux.M.TrainRows == 0 {
		t.Errorf("m was fit on %d rows; want only the observed ones", aux.M.TrainRows)
	}
	for _, p := range [][]float64{aux.Train.G, aux.Val.M, aux.Test.G} {
		for _, v := range p {
			if !(v > 0 && v < 1) {
				t.Fatalf("prediction %v outside (0, 1)", v)
			}
		}
	}
}

func TestClassificationMetrics(t *testing.T) {
	nll, acc, ece := classification([]float64{0.9, 0.2, 0.6, 0.4}, []float64{1, 0, 0, 1}, nil)
	wantNLL := -(math.Log(0.9) + math.Log(0.8) + math.Log(0.4) + math.Log(0.4)) / 4
	if math.Abs(nll-wantNLL) > 1e-12 || acc != 0.5 {
		t.Errorf("nll %v (want %v), acc %v (want 0.5)", nll, wantNLL, acc)
	}
	// Bins: 0.9 → |0.9−1|; 0.2 → |0.2−0|; 0.6 → |0.6−0|; 0.4 → |0.4−1|, each weighted 1/4.
	if want := (0.1 + 0.2 + 0.6 + 0.6) / 4; math.Abs(ece-want) > 1e-12 {
		t.Errorf("ECE %v, want %v", ece, want)
	}
}

func TestWithLabel(t *testing.T) {
	tab := &dataset.Set{Name: "t", Shape: []int{2}, X: []float32{1, 2, 3, 4}, Y: []float64{0, 1}, Z: []float64{0, 0}, Delta: []float64{1, 1}}
	got := WithLabel(tab)
	if fmt.Sprint(got.Shape) != "[3]" || fmt.Sprint(got.X) != "[1 2 0 3 4 1]" || got.Y[1] != 1 {
		t.Errorf("table: shape %v, X %v", got.Shape, got.X)
	}
	img := &dataset.Set{Name: "i", Shape: []int{1, 2, 1}, X: []float32{5, 6, 7, 8}, Y: []float64{1, 0}, Z: []float64{0, 0}, Delta: []float64{1, 1}}
	got = WithLabel(img)
	if fmt.Sprint(got.Shape) != "[1 2 2]" || fmt.Sprint(got.X) != "[5 1 6 1 7 0 8 0]" {
		t.Errorf("image: shape %v, X %v", got.Shape, got.X)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
	if len(img.X) != 4 || fmt.Sprint(img.Shape) != "[1 2 1]" {
		t.Error("WithLabel changed its input")
	}
}

// TestAuxModelsSeeTheLabel checks that m̂ approaches E[Z | X, Y], which in the simulation
// depends strongly on Y (P(Z = 1 | Y) is 0.9 or 0.1): a model of X alone cannot, and
// Predict on new rows gives the same values as the fit's own predictions.
func TestAuxModelsSeeTheLabel(t *testing.T) {
	sp, err := sim.Generate(sim.Config{NTrain: 4000, NVal: 1000, NTest: 500, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	aux, err := FitAux(context.Background(), sp, func(_ Role, s uint64) models.Net { return models.MLP{Hidden: []int{32}, Seed: s} },
		AuxConfig{BatchSize: 200, Epochs: 25, LearningRate: 1e-2, Seed: 9}, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	mae := 0.0
	for i := 0; i < sp.Val.Len(); i++ {
		x := sp.Val.Row(i)
		mae += math.Abs(aux.Val.M[i] - sim.TrueM(float64(x[0]), float64(x[1]), sp.Val.Y[i], sim.TrainAgree, sim.DefaultSigmaX))
	}
	mae /= float64(sp.Val.Len())
	if mae > 0.08 {
		t.Errorf("mean |m̂ − E[Z|X,Y]| = %.3f on validation rows, want < 0.08", mae)
	}
	p, err := aux.Predict(sp.Val)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.M {
		if p.M[i] != aux.Val.M[i] || p.G[i] != aux.Val.G[i] {
			t.Fatalf("row %d: Predict gives (%v, %v), the fit gave (%v, %v)", i, p.G[i], p.M[i], aux.Val.G[i], aux.Val.M[i])
		}
	}
}

// TestSelectionAndStoppingHooks checks the selection and stopping rules (SelectBest,
// EarlyStopping) on a loop of their own: no epoch before selectAfter is kept, the kept
// weights are the best kept epoch's, training stops exactly patience epochs after it, and
// patience 0 never stops.
func TestSelectionAndStoppingHooks(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		patience, selectAfter int
		val                   []float64 // validation objective per epoch
		best, stop            int
	}{
		{"stops 3 after the best", 3, 0, []float64{5, 4, 3, 3.5, 3.2, 3.1, 1}, 3, 6},
		{"improvement resets", 2, 0, []float64{5, 4, 4.5, 3, 3.5, 3.6, 0}, 4, 6},
		{"no patience runs to the cap", 0, 0, []float64{5, 4, 6, 7, 8}, 2, 5},
		// An early flat model (epoch 1, objective 0.1) is not kept when selection starts after 2.
		{"selection start", 2, 2, []float64{0.1, 0.2, 0.5, 0.4, 0.45, 0.46, 0.3}, 4, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			epoch := 0
			l := newLoop("test", len(tc.val), func() map[string]*tensors.Tensor {
				return map[string]*tensors.Tensor{"epoch": tensors.FromScalar(int32(epoch))}
			}, &History{})
			hs := fitHooks(tc.selectAfter, tc.patience, nil, nil)
			if err := hs.start(l); err != nil {
				t.Fatal(err)
			}
			stop := len(tc.val)
			for epoch = 1; epoch <= len(tc.val); epoch++ {
				l.Epoch = epoch
				e := Epoch{Epoch: epoch, ValObjective: tc.val[epoch-1]}
				l.History.Epochs = append(l.History.Epochs, e)
				if err := hs.epoch(l, e); err != nil {
					t.Fatal(err)
				}
				if l.stop != "" {
					stop = epoch
					break
				}
			}
			if err := hs.end(l, nil); err != nil {
				t.Fatal(err)
			}
			best, val := l.Kept()
			if best != tc.best || stop != tc.stop {
				t.Errorf("best epoch %d, stopped after %d; want %d and %d", best, stop, tc.best, tc.stop)
			}
			if kept := tensors.ToScalar[int32](l.kept["epoch"]); int(kept) != tc.best || val != tc.val[tc.best-1] {
				t.Errorf("kept the weights of epoch %d with objective %v, want epoch %d's (%v)", kept, val, tc.best, tc.val[tc.best-1])
			}
		})
	}
}

// TestEarlyStoppingRecorded trains with a patience well below the cap and checks that the
// history says the stopping rule ended it, where, and that the kept epoch is the best
// eligible one with patience epochs after it.
func TestEarlyStoppingRecorded(t *testing.T) {
	sp := smallSim(t, 6)
	cfg := Config{Method: method.None, BatchSize: 300, Epochs: 400, Patience: 3, SelectAfter: 2, LearningRate: 3e-2, Seed: 2}
	_, hist, err := Fit(context.Background(), sp, nil, mlp(2), cfg, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if hist.StopReason != StopPatience || hist.StopEpoch != len(hist.Epochs) || hist.StopEpoch >= 400 {
		t.Fatalf("stop reason %q at epoch %d of %d (%d epochs recorded), want the patience rule before the cap",
			hist.StopReason, hist.StopEpoch, hist.MaxEpochs, len(hist.Epochs))
	}
	if hist.StopEpoch-hist.BestEpoch != 3 || hist.BestEpoch <= 2 {
		t.Errorf("best epoch %d, stopped at %d: want 3 epochs after the best, and the best after epoch 2", hist.BestEpoch, hist.StopEpoch)
	}
	for _, e := range hist.Epochs[2:] {
		if e.ValObjective < hist.BestVal {
			t.Errorf("epoch %d has validation objective %v below the kept %v", e.Epoch, e.ValObjective, hist.BestVal)
		}
	}
	cfg.Patience, cfg.Epochs = 0, 4
	if _, hist, err = Fit(context.Background(), sp, nil, mlp(2), cfg, Runtime{}); err != nil {
		t.Fatal(err)
	}
	if hist.StopReason != StopMaxEpochs || hist.StopEpoch != 4 {
		t.Errorf("without patience: stop reason %q at epoch %d, want max-epochs at 4", hist.StopReason, hist.StopEpoch)
	}
}

// TestAuxBayesNLL checks that the auxiliary reports carry the Bayes NLL when the truth is
// known, that it is the NLL of the true probabilities (recomputed here for G), and that a
// fitted m does not beat its Bayes NLL by more than sampling noise.
func TestAuxBayesNLL(t *testing.T) {
	sp := smallSim(t, 7)
	aux, err := FitAux(context.Background(), sp, auxMLP, AuxConfig{BatchSize: 100, Epochs: 200, Patience: 5, LearningRate: 1e-2, Seed: 5},
		Runtime{BayesM: func(s *dataset.Set) []float64 { return sim.TrueMOf(s, sim.DefaultSigmaX) }})
	if err != nil {
		t.Fatal(err)
	}
	if !aux.G.HasBayes || !aux.M.HasBayes {
		t.Fatalf("Bayes NLL missing: G %v, m %v", aux.G.HasBayes, aux.M.HasBayes)
	}
	want, _, _ := classification(sp.Val.GTrue, sp.Val.Delta, nil)
	if math.Abs(aux.G.BayesNLL-want) > 1e-12 {
		t.Errorf("G's Bayes NLL %v, want %v", aux.G.BayesNLL, want)
	}
	if aux.M.ValNLL < aux.M.BayesNLL-0.05 {
		t.Errorf("m: val NLL %.4f below the Bayes NLL %.4f by more than noise", aux.M.ValNLL, aux.M.BayesNLL)
	}
	for _, r := range []FitReport{aux.G, aux.M} {
		if r.StopReason != StopPatience || r.StopEpoch >= 200 || !strings.Contains(r.String(), "Bayes") {
			t.Errorf("%s: stop %q at %d of %d; report %q", r.Model, r.StopReason, r.StopEpoch, r.MaxEpochs, r)
		}
	}
}
