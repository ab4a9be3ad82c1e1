package train_test

import (
	"context"
	"fmt"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/sim"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Example_representFeatures trains h with the full-data penalty on its penultimate layer
// (the 8 outputs of the last hidden layer) instead of its logit, as DomainBed's MMD
// penalises a featurizer: Represent features. The kernel's σ is the median heuristic on
// the initial network's training features, fixed for the fit; the training MMD is then
// measured on the same features with the same σ, and shrinks under the penalty.
func Example_representFeatures() {
	sp, err := sim.Generate(sim.Config{NTrain: 1200, NVal: 600, NTest: 600, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fitMMD := func(m method.Method, lambda float64) (float64, *train.History) {
		net := models.MLP{Hidden: []int{16, 8}, Seed: 2}
		model, hist, err := train.Fit(context.Background(), sp, nil, net, train.Config{Method: m, Lambda: lambda, BatchSize: 300, Epochs: 20, LearningRate: 1e-2, Seed: 2,
			Represent: train.RepresentFeatures}, train.Runtime{})
		if err != nil {
			fmt.Println(err)
			return 0, nil
		}
		ev, err := train.Evaluate(model, sp, train.EvalOptions{})
		if err != nil {
			fmt.Println(err)
			return 0, nil
		}
		return ev.TrainMMD, hist
	}
	none, hist := fitMMD(method.None, 0)
	full, penalised := fitMMD(method.Full, 10)
	fmt.Printf("penalty on %s, σ the same for both fits: %v, path %s\n", penalised.Represent, hist.Bandwidth == penalised.Bandwidth, penalised.PenaltyPath)
	fmt.Printf("training MMD of the features: full below none: %v\n", full < none)
	// Output:
	// penalty on features, σ the same for both fits: true, path exact
	// training MMD of the features: full below none: true
}
