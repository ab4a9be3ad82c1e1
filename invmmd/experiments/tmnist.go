package experiments

import (
	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tmnist"
	"github.com/invmmd/invmmd/invmmd/train"
)

// TMNISTSize is the size of a textured-MNIST run.
type TMNISTSize struct {
	MaxTrain, MaxTest int // caps on MNIST images (0 = all)
	Epochs, AuxEpochs int
}

// Paper-size and quick settings of the textured-MNIST experiment.
var (
	TMNISTPaper = TMNISTSize{Epochs: 12, AuxEpochs: 8}
	TMNISTQuick = TMNISTSize{MaxTrain: 3600, MaxTest: 1000, Epochs: 5, AuxEpochs: 15}
)

// TMNIST is Experiment 2: digits 0 and 1 of MNIST over two textures (package tmnist), the
// label flipped with probability 0.25, the texture following the label with probability
// 0.9 in training and 0.1 in test; small CNNs for h, G and m; batches of 1500 for h as in
// the paper.
func TMNIST(size TMNISTSize) Experiment {
	return Experiment{
		Name:  "tmnist",
		Title: "Textured MNIST",
		Data: func(seed uint64) (dataset.Splits, error) {
			cfg := tmnist.DefaultConfig()
			cfg.Seed, cfg.MaxTrain, cfg.MaxTest = seed, size.MaxTrain, size.MaxTest
			sp, _, err := tmnist.Build(cfg)
			return sp, err
		},
		Net: func(_ string, seed uint64) models.Net { return models.ExperimentCNN(seed) },
		H: train.Config{BatchSize: 1500, Epochs: size.Epochs, LearningRate: 3e-3,
			Estimator: invmmd.Options{MainFraction: 1}},
		Aux:   train.AuxConfig{BatchSize: 256, Epochs: size.AuxEpochs, LearningRate: 3e-3},
		Paper: Paper["tmnist"],
		Notes: []string{
			"Textures: grass (rendered dark, Z = 0) and brick (light, Z = 1) from scikit-image (CC0); digits blended as white strokes. See data/README.md and the tmnist package for the rendering and P(μ_X < 0.3 | Z).",
			"CNN (models.ExperimentCNN): 2×2 average pool, 3×3 conv 8 + max-pool, 3×3 conv 16, linear; small enough for the pure-Go backend (0.5–0.8 s per step of 1500 images on 2 cores). The paper's CNNs are not described.",
			"Learning rate 3·10⁻³ and few epochs, to fit the sweep in the hour the 2-core machine allows; the best epoch by the method's validation objective is kept.",
		},
	}
}
