package train

import (
	"cmp"
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/penalty"
)

// Representation says which layer of h the MMD penalty acts on (Config.Represent).
type Representation string

const (
	// RepresentLogits penalises h's 1-D output, the logit of the binary classifier: the
	// paper's choice (the zero value).
	RepresentLogits Representation = ""
	// RepresentFeatures penalises h's penultimate layer, the [n, d] representation its
	// output layer reads (models.FeatureNet), as DomainBed's MMD penalises its featurizer's
	// output. The kernel is the Gaussian on rows, exp(−‖f − f'‖²/(2σ²)).
	RepresentFeatures Representation = "features"
)

// String names the representation: "logits" or "features".
func (r Representation) String() string { return cmp.Or(string(r), "logits") }

// ParseRepresentation reads "logits" (or "") or "features", the names String gives.
func ParseRepresentation(name string) (Representation, error) {
	switch name {
	case "logits", "":
		return RepresentLogits, nil
	case "features":
		return RepresentFeatures, nil
	}
	return "", fmt.Errorf("train: representation %q, want logits or features", name)
}

// valid says whether r is one of the representations.
func (r Representation) valid() bool { return r == RepresentLogits || r == RepresentFeatures }

// RFFBatchFactor is how many times the number of random frequencies
// (invmmd.DefaultRFFFrequencies) a batch must hold before the training step of a features
// penalty on PathAuto takes random Fourier features (RFFPenaltyGraph) instead of the exact
// kernel (PenaltyGraph on the Gram matrix). Their cost is O(n·D·(d + P)) against the exact
// O(n²·(d + P)); measured on the training graph (penalty and gradient, d = 8 and 64), they
// were about as fast at batch 1500 (≈ 1.5·D) and 5× faster at batch 10,000 (≈ 10·D). Since
// they add an error of a few percent of the penalty, they are taken only where clearly
// faster.
const RFFBatchFactor = 4

// featureNet returns net as a models.FeatureNet, or an error naming the network when it
// exposes no penultimate layer.
func featureNet(net models.Net) (models.FeatureNet, error) {
	fn, ok := net.(models.FeatureNet)
	if !ok {
		return nil, fmt.Errorf("train: Represent %q needs a network exposing its penultimate layer (models.FeatureNet, such as models.MLP or models.CNN); %s does not", RepresentFeatures, net.Describe())
	}
	return fn, nil
}

// Features returns the penultimate layer of the network (models.FeatureNet) for every row
// of s, in order, as a Rep of its width. It is an error for a network without one.
func (m *Model) Features(s *dataset.Set) (invmmd.Rep, error) {
	fn, err := featureNet(m.Net)
	if err != nil {
		return invmmd.Rep{}, err
	}
	if m.features == nil {
		e, err := context.NewExec(m.backend, m.ctx.In(modelScope), func(ctx *context.Context, x *Node) *Node {
			f, _ := fn.Features(ctx, x)
			return f
		})
		if err != nil {
			return invmmd.Rep{}, fmt.Errorf("train: building the features graph: %w", err)
		}
		m.features = e
	}
	out, dim, err := m.rows(m.features, s, 0, true)
	if err != nil {
		return invmmd.Rep{}, err
	}
	return invmmd.NewRep(out, dim)
}

// featureBandwidth returns the kernel bandwidth of a features penalty: the fixed one when
// given (fixed > 0), otherwise the median heuristic (invmmd.MedianBandwidth) on the
// features of the untrained network (its initial weights, which the seed fixes) over the
// training set, computed once before the first step and kept for the whole fit, in
// training, validation and evaluation. The features of a network change scale as it
// trains, unlike a logit whose σ = 1 the paper fixes, so σ is tied to their initial
// spread rather than to a constant.
func featureBandwidth(m *Model, train *dataset.Set, fixed float64) (float64, error) {
	if fixed > 0 {
		return fixed, nil
	}
	f, err := m.Features(train)
	if err != nil {
		return 0, err
	}
	sigma, err := invmmd.MedianBandwidth(f)
	if err != nil {
		return 0, fmt.Errorf("train: the bandwidth of the features penalty (median heuristic on the initial network's training features): %w", err)
	}
	return sigma, nil
}

// rffPenalty returns the number of random frequencies the training step of a features
// penalty uses at this batch size (0: the exact kernel): never on PathExact, always
// (invmmd.DefaultRFFFrequencies) on PathFourier, and on PathAuto once the batch holds
// RFFBatchFactor times as many rows.
func rffPenalty(path PenaltyPath, batch int) int {
	D := invmmd.DefaultRFFFrequencies
	switch {
	case path == PathFourier, path == PathAuto && batch >= RFFBatchFactor*D:
		return D
	}
	return 0
}

// featuresPenaltyGraph returns the per-stratum penalty of a batch's features [n, d]: the
// exact kernel (penalty.PenaltyGraph) when rff is 0, otherwise rff random Fourier features
// drawn from seed (penalty.RFFPenaltyGraph, the frequencies a constant of the graph).
func featuresPenaltyGraph(feats, v, c, sigma *Node, rff int, seed uint64) *Node {
	if rff == 0 {
		return penalty.PenaltyGraph(feats, v, c, sigma)
	}
	d := feats.Shape().Dimensions[1]
	omega := Const(feats.Graph(), penalty.RFFFrequencyTensor(feats.DType(), d, rff, seed))
	return penalty.RFFPenaltyGraph(feats, v, c, sigma, omega)
}
