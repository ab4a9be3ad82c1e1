package train

import (
	"io"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Runtime is what a fit runs with besides its hyperparameters (Config, AuxConfig): the
// backend, where progress goes, the hooks that watch or steer the loop, and what the
// caller knows of the data that the fit needs but no configuration record can hold (the
// feature map of a nuisance that is not binary, the true m of a simulation). None of it
// is stored with results: an experiment records backend.Config() instead of the backend.
// The zero value runs quietly on backend.Shared() with the built-in hooks alone.
type Runtime struct {
	// Backend runs the fit; nil means backend.Shared().
	Backend backends.Backend
	// Progress is where the progress bar goes (ProgressBar); nil is quiet.
	Progress io.Writer
	// Hooks are called by the fit's loop after every step, after every epoch and at its
	// end, in order, after the built-in ones of the configuration (SelectBest,
	// EarlyStopping, then ProgressBar): e.g. Trace, a hook that stops the fit, or one
	// that records what it sees. A hook's error ends the fit with it.
	Hooks []Hook
	// ZMap is the feature map ψ of a nuisance that is not binary (invmmd.NewMap of the
	// training Z). FitAux requires it then: m is fitted as a multi-output network and
	// m̂ = Ê[ψ(Z) | X, Y] comes as Pred.MPsi. Fit takes the auxiliary models' (Aux.ZMap)
	// when it is nil; with such a nuisance the penalty is the joint MMD² between p(h, Z)
	// and p(h)p(Z) (appendix H). Ignored for a binary Z.
	ZMap invmmd.FeatureMap
	// BayesM, read by FitAux alone, returns the true P(Z = 1 | X, Y) of each row of a set
	// (its features without the label column, as the data built them) when the data know
	// it (the simulation: sim.TrueMOf); m's report then shows the Bayes NLL next to m̂'s.
	BayesM func(s *dataset.Set) []float64
}

// backend returns the runtime's backend, or the process's shared one when it has none.
func (rt Runtime) backend() (backends.Backend, error) {
	if rt.Backend != nil {
		return rt.Backend, nil
	}
	return backend.Shared()
}
