package train

import (
	"fmt"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Metrics are the numbers of the paper's tables for one trained model.
type Metrics struct {
	// TrainMMD is the full estimator (true Z, no missingness; eq. fullmmd) of the
	// Y-conditional penalty Σ_y MMD²_y on the whole training set, whatever the method
	// optimised, with every row serving both the main terms and the normalisers.
	TrainMMD float64
	TrainAcc float64
	ValAcc   float64
	TestAcc  float64
}

// Evaluate computes the model's Metrics on sp with the kernel bandwidth of opts.
func Evaluate(m *Model, sp dataset.Splits, opts invmmd.Options) (Metrics, error) {
	var out Metrics
	o, err := opts.Resolved()
	if err != nil {
		return out, err
	}
	h := [3][]float64{}
	for k, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		if h[k], err = m.Logits(s); err != nil {
			return out, err
		}
	}
	out.TrainAcc, out.ValAcc, out.TestAcc = accuracy(h[0], sp.Train.Y), accuracy(h[1], sp.Val.Y), accuracy(h[2], sp.Test.Y)
	d, err := invmmd.NewDesign(invmmd.Rows{Y: sp.Train.Y, Z: sp.Train.Z, Delta: sp.Train.Delta},
		invmmd.Options{Bandwidth: o.Bandwidth, MainFraction: 1}, invmmd.Full)
	if err != nil {
		return out, fmt.Errorf("train: evaluating the training MMD: %w", err)
	}
	res, err := d.Evaluate(h[0], invmmd.Auto{})
	if err != nil {
		return out, fmt.Errorf("train: evaluating the training MMD: %w", err)
	}
	out.TrainMMD = res[0].Value
	return out, nil
}

// accuracy is the share of rows where the logit's sign matches the label.
func accuracy(h, y []float64) float64 {
	c := 0
	for i, v := range h {
		if (v > 0) == (y[i] == 1) {
			c++
		}
	}
	return float64(c) / float64(len(h))
}
