package train

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/tensors"
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

// stopRule is early stopping on the validation objective: epochs 1..selectAfter are trained
// but never kept (an early, nearly flat model has a penalty near 0 and could win the
// selection at large λ), and training ends once patience epochs have passed since the
// best kept epoch. patience 0 trains to the cap.
type stopRule struct {
	patience    int
	selectAfter int
}

// eligible reports whether epoch may be kept as the best one.
func (r stopRule) eligible(epoch int) bool { return epoch > r.selectAfter }

// done reports whether training stops after epoch, the best kept epoch being best (0: none yet).
func (r stopRule) done(epoch, best int) bool {
	if r.patience <= 0 || best == 0 {
		return false
	}
	return epoch-best >= r.patience
}

// selection applies a stopRule to a fit's epochs: it keeps the weights of the eligible
// epoch with the lowest validation objective and says when training stops.
type selection struct {
	rule      stopRule
	best      float64 // the kept epoch's validation objective (+Inf: none yet)
	bestEpoch int     // 1-based; 0: none yet
	weights   map[string]*tensors.Tensor
}

// newSelection starts a selection whose weights, until an epoch is kept, are initial.
func newSelection(rule stopRule, initial map[string]*tensors.Tensor) *selection {
	return &selection{rule: rule, best: math.Inf(1), weights: initial}
}

// observe records an epoch's validation objective val, keeping the weights that snapshot
// returns when the epoch is eligible and better than the best so far, and reports whether
// training stops after it.
func (s *selection) observe(epoch int, val float64, snapshot func() map[string]*tensors.Tensor) bool {
	if s.rule.eligible(epoch) && val < s.best {
		s.best, s.bestEpoch = val, epoch
		s.weights = snapshot()
	}
	return s.rule.done(epoch, s.bestEpoch)
}
