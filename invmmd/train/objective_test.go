package train

import (
	"context"
	"math"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/method"
)

// TestTraceRecordsEveryStep checks that the Trace hook sees every step with one raw estimate
// per stratum whose (clipped) sum is the penalty the step minimised, and that each epoch
// records its validation parts: ValObjective = ValNLL + λ·Σ_y ValStrata (clipped with Clip).
func TestTraceRecordsEveryStep(t *testing.T) {
	sp := smallSim(t, 2)
	aux := quickAux(t, sp)
	for _, clip := range []bool{false, true} {
		var steps []StepTrace
		cfg := Config{Method: method.DR, Lambda: 2, BatchSize: 400, Epochs: 3, LearningRate: 3e-3, Seed: 3, Clip: clip,
			Estimator: invmmd.Options{MainFraction: 0.75}}
		_, hist, err := Fit(context.Background(), sp, aux, mlp(3), cfg, Runtime{Hooks: []Hook{Trace(func(s StepTrace) { steps = append(steps, s) })}})
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != hist.Steps || len(steps) != 3*(sp.Train.Len()/400) {
			t.Fatalf("clip %v: %d traced steps, history %d", clip, len(steps), hist.Steps)
		}
		for i, s := range steps {
			if s.Epoch != i/3+1 || s.Step != i%3+1 || len(s.Strata) != 2 || len(s.Report.Strata) != 2 {
				t.Fatalf("clip %v: step %d traced as epoch %d step %d with %d strata", clip, i, s.Epoch, s.Step, len(s.Strata))
			}
			sum := 0.0
			for _, v := range s.Strata {
				if clip {
					v = math.Max(v, 0)
				}
				sum += v
			}
			if math.Abs(sum-s.Penalty) > 1e-5*(1+math.Abs(sum)) {
				t.Errorf("clip %v: step %d: strata %v sum to %v, penalty %v", clip, i, s.Strata, sum, s.Penalty)
			}
		}
		for _, e := range hist.Epochs {
			obj := e.ValNLL
			for _, v := range e.ValStrata {
				if clip {
					v = math.Max(v, 0)
				}
				obj += cfg.Lambda * v
			}
			if len(e.ValStrata) != 2 || math.Abs(obj-e.ValObjective) > 1e-9*(1+math.Abs(obj)) {
				t.Errorf("clip %v: epoch %d: NLL %v + λ·%v = %v, objective %v", clip, e.Epoch, e.ValNLL, e.ValStrata, obj, e.ValObjective)
			}
		}
	}
}

// TestSelectClipped checks that the clipped selection objective differs from the raw one
// exactly by λ times the negative part of the strata, and that it does not change training:
// the same seed trains the same weights at every epoch.
func TestSelectClipped(t *testing.T) {
	sp := smallSim(t, 4)
	aux := quickAux(t, sp)
	run := func(sel bool) *History {
		cfg := Config{Method: method.DR, Lambda: 3, BatchSize: 300, Epochs: 4, LearningRate: 3e-3, Seed: 5, SelectClipped: sel}
		_, hist, err := Fit(context.Background(), sp, aux, mlp(5), cfg, Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		return hist
	}
	raw, sel := run(false), run(true)
	for i, e := range raw.Epochs {
		s := sel.Epochs[i]
		if e.TrainLoss != s.TrainLoss || e.ValNLL != s.ValNLL {
			t.Fatalf("epoch %d: SelectClipped changed training (loss %v vs %v)", e.Epoch, e.TrainLoss, s.TrainLoss)
		}
		neg := 0.0
		for _, v := range e.ValStrata {
			neg += math.Min(v, 0)
		}
		if d := s.ValObjective - e.ValObjective; math.Abs(d+3*neg) > 1e-9 {
			t.Errorf("epoch %d: clipped objective %v, raw %v, negative part %v", e.Epoch, s.ValObjective, e.ValObjective, neg)
		}
	}
}

// TestTrainingNormalisers checks that NormalisersTraining runs with the paper's split,
// that it changes the fit only through the normalisers (with MainFraction 1 on a full
// batch the batch's own normalisers are the training set's, so the fit is identical), and
// that an unknown source is refused.
func TestTrainingNormalisers(t *testing.T) {
	sp := smallSim(t, 6)
	aux := quickAux(t, sp)
	fit := func(src NormaliserSource, mf float64, batch int) *History {
		cfg := Config{Method: method.DR, Lambda: 1, BatchSize: batch, Epochs: 2, LearningRate: 3e-3, Seed: 2, Normalisers: src,
			Estimator: invmmd.Options{MainFraction: mf}}
		_, hist, err := Fit(context.Background(), sp, aux, mlp(2), cfg, Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		return hist
	}
	a, b := fit(NormalisersBatch, 1, 0), fit(NormalisersTraining, 1, 0)
	for i := range a.Epochs {
		if math.Abs(a.Epochs[i].TrainLoss-b.Epochs[i].TrainLoss) > 1e-5 {
			t.Errorf("full batch, MainFraction 1: epoch %d loss %v (batch normalisers) vs %v (training set)", i+1, a.Epochs[i].TrainLoss, b.Epochs[i].TrainLoss)
		}
	}
	c, d := fit(NormalisersBatch, 0.75, 300), fit(NormalisersTraining, 0.75, 300)
	if c.Epochs[0].TrainPenalty == d.Epochs[0].TrainPenalty {
		t.Errorf("paper's split: the training set's normalisers left the penalty unchanged (%v)", c.Epochs[0].TrainPenalty)
	}
	cfg := Config{Method: method.DR, Lambda: 1, Epochs: 1, LearningRate: 1e-3, Normalisers: "everything"}
	if err := cfg.Validate(10); err == nil {
		t.Error("an unknown normaliser source was accepted")
	}
	if NormalisersBatch.String() != "batch" || NormalisersTraining.String() != "training" {
		t.Errorf("normaliser sources named %q and %q, want batch and training", NormalisersBatch, NormalisersTraining)
	}
}
