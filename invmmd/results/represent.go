package results

import "fmt"

// RepresentationFit is one fit of h in a comparison of the layer an MMD penalty acts on:
// the logit (the paper's) or the network's penultimate features, at one λ. Both the
// logit fits and the features fits have their logit's training MMD², which is what the
// comparison sets side by side: how much what the classifier outputs depends on Z.
type RepresentationFit struct {
	Represent string  // "logit" or "features"
	Lambda    float64 // the penalty's weight
	Method    string
	Seed      uint64
	TeAcc     float64
	// TrMMD is the tr mmd of the fit's table: the logit's training MMD² for a logit fit,
	// the features' (with the fit's σ) for a features fit.
	TrMMD float64
	// LogitMMD is the training MMD² of the logit with σ = 1 (the full estimator).
	LogitMMD float64
	// Capped says that training reached the epoch cap instead of stopping by patience.
	Capped bool
}

// Setting names the fit's layer and λ, e.g. "features, λ = 100".
func (f RepresentationFit) Setting() string {
	return fmt.Sprintf("%s, λ = %s", f.Represent, LambdaName(f.Lambda))
}
