package owndata

import (
	"fmt"

	"github.com/invmmd/invmmd/invmmd/train"
)

// Stop is how one network's training ended: the epoch whose weights were kept, the last
// epoch trained, the cap, the patience it ran with and the rule that ended it. Fit records
// it for h in each Row (results.csv, results.md, the run files) and for G and m in
// config.json; estimate and test print G's and m's in their report.
type Stop struct {
	BestEpoch int              `json:"best_epoch"`
	StopEpoch int              `json:"stop_epoch"`
	MaxEpochs int              `json:"max_epochs"`
	Patience  int              `json:"patience"` // 0: no early stopping
	Reason    train.StopReason `json:"reason"`   // train.StopPatience or train.StopMaxEpochs
}

// stopOf returns how h's fit of hist ended.
func stopOf(hist *train.History) Stop {
	return Stop{BestEpoch: hist.BestEpoch, StopEpoch: hist.StopEpoch, MaxEpochs: hist.MaxEpochs, Patience: hist.Patience, Reason: hist.StopReason}
}

// auxStopOf returns how the fit of an auxiliary model (G or m) ended; patience is the one
// it ran with (a FitReport does not record it).
func auxStopOf(r train.FitReport, patience int) Stop {
	return Stop{BestEpoch: r.BestEpoch, StopEpoch: r.StopEpoch, MaxEpochs: r.MaxEpochs, Patience: patience, Reason: r.StopReason}
}

// String renders the stop as the reports print it: "best epoch 37, stopped at 57 of 400 by
// patience"; "" for a Stop not recorded (a run file written before stops were).
func (s Stop) String() string {
	if s.Reason == "" {
		return ""
	}
	return fmt.Sprintf("best epoch %d, stopped at %d of %d by %s", s.BestEpoch, s.StopEpoch, s.MaxEpochs, s.Reason)
}

// Unconverged reports whether the cap ended training before the stopping rule could:
// with early stopping, any stop by the cap (the best epoch is then within the last
// Patience epochs, so the validation objective was still improving lately); without it,
// a best epoch that is the last one.
func (s Stop) Unconverged() bool {
	if s.Reason != train.StopMaxEpochs {
		return false
	}
	return s.Patience > 0 || s.BestEpoch == s.StopEpoch
}

// stopWarning says that the model named what (e.g. "G", "h (dr, seed 1)") stopped at its
// cap before its validation objective stopped improving, naming the flag that raises the
// cap; empty when the stopping rule ended it (or, without one, when its best epoch came
// before the last).
func stopWarning(what string, s Stop, capFlag string) string {
	if !s.Unconverged() {
		return ""
	}
	why := fmt.Sprintf("its best epoch (%d) the last", s.BestEpoch)
	if s.Patience > 0 {
		why = fmt.Sprintf("its best epoch (%d) within the last %d, so the stopping rule had not ended it", s.BestEpoch, s.Patience)
	}
	return fmt.Sprintf("%s stopped at the cap of %d epochs with %s: it may not have converged; raise %s", what, s.MaxEpochs, why, capFlag)
}
