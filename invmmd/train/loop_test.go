package train

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestCancelStopsWithinAStep cancels the context of a fit in the middle of its first
// epoch (from a step hook, and from another goroutine) and checks that Fit returns
// promptly with an error wrapping context.Canceled: no step runs after the one during
// which the context was cancelled, and FitAux stops the same way.
func TestCancelStopsWithinAStep(t *testing.T) {
	sp := smallSim(t, 8)
	cfg := Config{Method: method.Full, Lambda: 1, BatchSize: 50, Epochs: 50, LearningRate: 1e-2, Seed: 1} // 24 steps an epoch
	for _, tc := range []struct {
		name string
		fit  func(ctx context.Context, rt Runtime) error
	}{
		{"Fit", func(ctx context.Context, rt Runtime) error {
			_, _, err := Fit(ctx, sp, nil, mlp(1), cfg, rt)
			return err
		}},
		{"FitAux", func(ctx context.Context, rt Runtime) error {
			_, err := FitAux(ctx, sp, auxMLP, AuxConfig{BatchSize: 50, Epochs: 50, LearningRate: 1e-2, Seed: 1}, rt)
			return err
		}},
	} {
		t.Run(tc.name+"/from a hook", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			steps, ended := 0, error(nil)
			rt := Runtime{Hooks: []Hook{{Name: "cancel at step 5",
				OnStep: func(l *Loop, s StepTrace) error {
					steps++
					if s.Epoch == 1 && s.Step == 5 {
						cancel()
					}
					return nil
				},
				OnEnd: func(_ *Loop, err error) error { ended = err; return nil }}}}
			err := tc.fit(ctx, rt)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "epoch 1, before step 6") {
				t.Fatalf("error %v, want one wrapping context.Canceled, before step 6 of epoch 1", err)
			}
			if steps != 5 {
				t.Errorf("%d steps ran, want 5: none after the cancellation", steps)
			}
			if !errors.Is(ended, context.Canceled) {
				t.Errorf("OnEnd saw %v, want the cancellation", ended)
			}
		})
		t.Run(tc.name+"/from another goroutine", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := make(chan struct{})
			var once bool
			rt := Runtime{Hooks: []Hook{{Name: "started", OnStep: func(*Loop, StepTrace) error {
				if !once {
					once = true
					close(started)
				}
				return nil
			}}}}
			done := make(chan error, 1)
			go func() { done <- tc.fit(ctx, rt) }()
			<-started
			t0 := time.Now()
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error %v, want one wrapping context.Canceled", err)
				}
				if d := time.Since(t0); d > 10*time.Second {
					t.Errorf("returned %v after the cancellation, want within a step", d)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the fit did not return within 60 s of its cancellation")
			}
		})
	}
}

// TestHooks checks what a hook can do: see every step and epoch, stop the fit after an
// epoch (the stop reason it gives is recorded), end it with an error that names the hook,
// and replace the selection of the kept epoch.
func TestHooks(t *testing.T) {
	sp := smallSim(t, 9)
	cfg := Config{Method: method.None, BatchSize: 400, Epochs: 6, LearningRate: 1e-2, Seed: 2} // 3 steps an epoch
	t.Run("stop", func(t *testing.T) {
		var steps, epochs int
		stopAt3 := Hook{Name: "stop at 3",
			OnStep: func(*Loop, StepTrace) error { steps++; return nil },
			OnEpoch: func(l *Loop, e Epoch) error {
				epochs++
				if e.Epoch == 3 {
					l.Stop("enough")
				}
				return nil
			}}
		_, hist, err := Fit(context.Background(), sp, nil, mlp(2), cfg, Runtime{Hooks: []Hook{stopAt3}})
		if err != nil {
			t.Fatal(err)
		}
		if hist.StopReason != "enough" || hist.StopEpoch != 3 || epochs != 3 || steps != 9 || hist.Steps != 9 {
			t.Errorf("stopped by %q at epoch %d after %d epochs and %d steps (history %d), want enough at 3 after 9 steps", hist.StopReason, hist.StopEpoch, epochs, steps, hist.Steps)
		}
	})
	t.Run("error", func(t *testing.T) {
		boom := errors.New("boom")
		failing := Hook{Name: "failing", OnEpoch: func(_ *Loop, e Epoch) error {
			if e.Epoch == 2 {
				return boom
			}
			return nil
		}}
		_, _, err := Fit(context.Background(), sp, nil, mlp(2), cfg, Runtime{Hooks: []Hook{failing}})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), `hook "failing" after epoch 2`) {
			t.Errorf("error %v, want boom from the failing hook after epoch 2", err)
		}
	})
	t.Run("keep the last epoch", func(t *testing.T) {
		last := Hook{Name: "keep last", OnEpoch: func(l *Loop, _ Epoch) error { l.Keep(); return nil }}
		_, hist, err := Fit(context.Background(), sp, nil, mlp(2), cfg, Runtime{Hooks: []Hook{last}})
		if err != nil {
			t.Fatal(err)
		}
		if hist.BestEpoch != 6 || hist.BestVal != hist.Epochs[5].ValObjective {
			t.Errorf("kept epoch %d (%v), want the last, 6 (%v)", hist.BestEpoch, hist.BestVal, hist.Epochs[5].ValObjective)
		}
	})
}
