package train

import "github.com/invmmd/invmmd/invmmd"

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
