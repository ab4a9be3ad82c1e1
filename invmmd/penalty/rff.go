package penalty

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/matmul"
)

// RFFFrequencyTensor returns invmmd.RFFFrequencies(dim, count, seed) as a [dim, count] tensor of
// the given float dtype, to feed RFFPenaltyGraph's omega.
func RFFFrequencyTensor(dtype dtypes.DType, dim, count int, seed uint64) *tensors.Tensor {
	return floatTensor(dtype, invmmd.RFFFrequencies(dim, count, seed), dim, count)
}

// RFFPenaltyGraph is PenaltyGraph with the kernel replaced by the random Fourier features
// of its draw (see invmmd.RFFFrequencies): O(n·D·(d + P)) instead of O(n²). h is [n] or [n, d]; v
// and c are invmmd.Design.Tensors'; sigma is a scalar; omega is the [d, D] matrix of unit
// frequencies u_j (RFFFrequencyTensor), fed or made a constant by the caller, so that the
// frequencies stay fixed while σ may change from batch to batch. With Φ_c = cos(H̃Ω/σ) and
// Φ_s = sin(H̃Ω/σ) (H̃ the outputs centred on their mean, gradients stopped through the
// centre, which k̂ does not depend on), it returns per stratum
//
//	pen[s] = (1/D)[S_c C[s] : S_c + S_s C[s] : S_s] − V C[s] : V,   S = Φᵀ V,
//
// the same value as invmmd.Design.Evaluate with invmmd.RFFSums of the same seed and count, shape [S].
func RFFPenaltyGraph(h, v, c, sigma, omega *Node) *Node {
	if h.Rank() < 1 || h.Rank() > 2 {
		panic(fmt.Sprintf("invmmd.RFFPenaltyGraph: h must be [n] or [n,d], got %s", h.Shape()))
	}
	n := h.Shape().Dimensions[0]
	if h.Rank() == 1 {
		h = Reshape(h, n, 1)
	}
	d := h.Shape().Dimensions[1]
	if omega.Rank() != 2 || omega.Shape().Dimensions[0] != d {
		panic(fmt.Sprintf("invmmd.RFFPenaltyGraph: omega must be [%d, D] for h %s, got %s", d, h.Shape(), omega.Shape()))
	}
	D := omega.Shape().Dimensions[1]
	center := StopGradient(ReduceAndKeep(h, ReduceMean, 0))  // [1, d]
	args := Div(matmul.MatMul(Sub(h, center), omega), sigma) // [n, D]
	total := DivScalar(featureForms(args, v, c, nil), float64(D))
	return Sub(total, stratumForms(v, c, v))
}
