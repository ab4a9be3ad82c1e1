package main

import (
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/sim"
	"github.com/invmmd/invmmd/invmmd/tmnist"
)

// resultOptions gives an experiment's results figure what its table does not hold: the
// accuracy ceiling of an invariant model where the data's construction fixes it, and where
// the paper's numbers come from when it is not our dataset.
func resultOptions(name string) []figures.ResultOption {
	switch name {
	case "sim", "sim_mf075":
		return []figures.ResultOption{figures.Ceiling(sim.InvariantAccuracy(sim.DefaultSigmaX), "invariant h*")}
	case "tmnist":
		// The digit predicts the label only as well as the labels are not flipped.
		return []figures.ResultOption{figures.Ceiling(1-tmnist.DefaultConfig().FlipProb, "label noise")}
	case "clinical":
		return []figures.ResultOption{figures.PaperDataset("MIMIC-III")}
	}
	return nil
}
