package results

// Curve is what the training-curves figure draws of one fit of h: its name, the epoch
// whose weights were kept and, per epoch, the training loss and the validation objective.
// It is the part of a training history (train.History) that a figure reads.
type Curve struct {
	Name      string
	BestEpoch int // 1-based; 0: none kept
	Epochs    []CurvePoint
}

// CurvePoint is one epoch of a Curve.
type CurvePoint struct {
	Epoch        int
	TrainLoss    float64 // mean over the epoch's steps of NLL + λ·penalty
	ValObjective float64 // the method's validation objective (lower is better)
}
