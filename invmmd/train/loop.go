package train

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/progress"
)

// StopReason says what ended a fit's training.
type StopReason string

// The reasons a fit stops.
const (
	// StopPatience: the validation objective did not improve for Patience epochs.
	StopPatience StopReason = "patience"
	// StopMaxEpochs: the epoch cap was reached first (the fit may not have converged).
	StopMaxEpochs StopReason = "max-epochs"
)

// Loop is one fit's training loop (of h, G or m) as its hooks see it (Hook says when each
// runs), in the manner of GoMLX's train.Loop. The selection of the epoch whose weights the
// fit returns (Keep) and early stopping (Stop) are hooks too (SelectBest, EarlyStopping),
// so that a caller's hook can replace or complement them. Its exported fields are for
// reading.
type Loop struct {
	// Name is the fit's: "h (METHOD)", "G" or "m" (History.Name).
	Name string
	// MaxEpochs is the cap on epochs (Config.Epochs, AuxConfig.Epochs).
	MaxEpochs int
	// Epoch is the epoch running (1-based), Step the last step run within it (1-based; 0
	// before its first) and Steps the steps of the fit so far.
	Epoch, Step, Steps int
	// History is the record so far: the epochs finished (the current one included once
	// the OnEpoch hooks run).
	History *History

	snapshot  func() map[string]*tensors.Tensor // copies the model's current weights
	kept      map[string]*tensors.Tensor        // the weights the fit returns: the initial ones until Keep
	keptEpoch int                               // 0: none kept yet
	keptVal   float64                           // the kept epoch's validation objective (+Inf: none)
	stop      StopReason                        // "" until Stop
}

// newLoop returns the loop of a fit named name, with nothing kept yet.
func newLoop(name string, maxEpochs int, snapshot func() map[string]*tensors.Tensor, hist *History) *Loop {
	return &Loop{Name: name, MaxEpochs: maxEpochs, History: hist, snapshot: snapshot, keptVal: math.Inf(1)}
}

// Keep keeps the model's current weights as the fit's result, the current epoch's as the
// best: when the fit ends its model is set back to the weights of the last Keep (to its
// initial weights when none). Call it from an OnEpoch hook, after the epoch's validation.
func (l *Loop) Keep() {
	l.kept, l.keptEpoch = l.snapshot(), l.Epoch
	l.keptVal = math.NaN()
	if n := len(l.History.Epochs); n > 0 {
		l.keptVal = l.History.Epochs[n-1].ValObjective
	}
}

// Kept returns the epoch last kept (0: none) and its validation objective (+Inf: none).
func (l *Loop) Kept() (epoch int, val float64) { return l.keptEpoch, l.keptVal }

// Stop ends training once the current epoch is done (its validation and OnEpoch hooks
// included), with reason recorded as History.StopReason. The first reason given stands.
func (l *Loop) Stop(reason StopReason) {
	if l.stop == "" {
		l.stop = reason
	}
}

// Hook is a set of functions the training loop calls, any of them nil, named for the
// errors they return: a hook's error ends the fit with it, in the manner of GoMLX's
// train.Loop hooks. Every epoch shuffles the training rows and runs one step per full
// batch: OnStart runs once before the first step, OnStep after every step with its record
// (StepTrace; for G and m only the epoch, the step and the NLL), OnEpoch after every
// epoch's validation with its record (in History by then), OnEnd once when the loop ends,
// with the error that ended it (nil after the cap or a Stop; one wrapping ctx.Err() when
// the fit's context was cancelled).
type Hook struct {
	Name    string
	OnStart func(l *Loop) error
	OnStep  func(l *Loop, s StepTrace) error
	OnEpoch func(l *Loop, e Epoch) error
	OnEnd   func(l *Loop, err error) error
}

// SelectBest is the selection rule of every fit: it keeps (Loop.Keep) the epoch with the
// lowest validation objective among those after the first after, which are trained but
// never kept (Config.SelectAfter says why). Each method is judged by its own estimator,
// as the paper does.
func SelectBest(after int) Hook {
	return Hook{Name: "select-best", OnEpoch: func(l *Loop, e Epoch) error {
		if _, best := l.Kept(); e.Epoch > after && e.ValObjective < best {
			l.Keep()
		}
		return nil
	}}
}

// EarlyStopping stops training (StopPatience) once patience epochs have passed since the
// kept epoch (Config.Patience, AuxConfig.Patience); patience 0 trains to the cap. It reads
// the kept epoch, so it runs after SelectBest.
func EarlyStopping(patience int) Hook {
	return Hook{Name: "early-stopping", OnEpoch: func(l *Loop, e Epoch) error {
		if best, _ := l.Kept(); patience > 0 && best > 0 && e.Epoch-best >= patience {
			l.Stop(StopPatience)
		}
		return nil
	}}
}

// ProgressBar shows the fit's epochs on w (package progress: a bar on a terminal,
// occasional lines elsewhere) with each epoch's training loss and validation objective
// and the kept one; nil w is quiet.
func ProgressBar(w io.Writer) Hook {
	var bar *progress.Bar
	return Hook{Name: "progress",
		OnStart: func(l *Loop) error {
			bar = progress.New(w, l.MaxEpochs, l.Name)
			return nil
		},
		OnEpoch: func(l *Loop, e Epoch) error {
			best, val := l.Kept()
			bar.Add(1, fmt.Sprintf("loss %.4f val %.4f best %.4f@%d", e.TrainLoss, e.ValObjective, val, best))
			return nil
		},
		OnEnd: func(*Loop, error) error {
			bar.Finish()
			return nil
		}}
}

// Trace calls fn after every training step with the step's record (StepTrace), without
// changing the fit (experiments.Diagnose reads it).
func Trace(fn func(StepTrace)) Hook {
	return Hook{Name: "trace", OnStep: func(_ *Loop, s StepTrace) error {
		fn(s)
		return nil
	}}
}

// hooks are a fit's hooks in the order they run.
type hooks []Hook

// wantsSteps reports whether a hook has OnStep (the step's record is built only then).
func (hs hooks) wantsSteps() bool {
	return slices.ContainsFunc(hs, func(h Hook) bool { return h.OnStep != nil })
}

func (hs hooks) start(l *Loop) error {
	for _, h := range hs {
		if h.OnStart != nil {
			if err := h.OnStart(l); err != nil {
				return fmt.Errorf("hook %q at the start: %w", h.Name, err)
			}
		}
	}
	return nil
}

func (hs hooks) step(l *Loop, s StepTrace) error {
	for _, h := range hs {
		if h.OnStep != nil {
			if err := h.OnStep(l, s); err != nil {
				return fmt.Errorf("hook %q after epoch %d, step %d: %w", h.Name, l.Epoch, l.Step, err)
			}
		}
	}
	return nil
}

func (hs hooks) epoch(l *Loop, e Epoch) error {
	for _, h := range hs {
		if h.OnEpoch != nil {
			if err := h.OnEpoch(l, e); err != nil {
				return fmt.Errorf("hook %q after epoch %d: %w", h.Name, l.Epoch, err)
			}
		}
	}
	return nil
}

// end calls every OnEnd hook with the error that ended the loop and returns that error,
// or else the first hook's error.
func (hs hooks) end(l *Loop, cause error) error {
	err := cause
	for _, h := range hs {
		if h.OnEnd != nil {
			if e := h.OnEnd(l, cause); e != nil && err == nil {
				err = fmt.Errorf("hook %q at the end: %w", h.Name, e)
			}
		}
	}
	return err
}

// StepTrace is the record of one training step, given to the OnStep hooks (Trace): what the
// penalty of that batch was, stratum by stratum, and what its estimate rested on. It is
// how a fit that goes wrong is diagnosed (an estimate driven far below 0, or a floored
// normaliser blowing one batch's penalty up), without changing the fit.
type StepTrace struct {
	Epoch, Step int     // 1-based epoch and step within it
	NLL         float64 // the batch's mean negative log-likelihood
	// Strata holds the method's estimate of MMD²_y for each Y stratum of the batch (the
	// joint MMD² for a nuisance that is not binary), before any clipping (Config.Clip):
	// what an unbiased estimator says of this batch, negative values included.
	Strata []float64
	// Penalty is what the step minimised, λ aside: the sum of Strata, each clipped at 0
	// with Config.Clip.
	Penalty float64
	// Report is the batch design's guard report: per stratum the rows, the observed rows,
	// the estimated P(Z = b | y) of the normaliser rows (Mean) and the normalisers before
	// the floor (RawN), and whether the stratum was flagged unreliable.
	Report invmmd.Report
}
