package invmmd

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// PenaltyGraph returns the penalty of a Design as a differentiable graph of the model
// outputs h:
//
//	Σ_pq C_pq Σ_{i≠j} V_ip V_jq k(h_i, h_j),   k(a, b) = exp(−(a−b)²/(2σ²)).
//
// h has shape [n] or [n, 1]; v is [n, P] and c is [P, P] (Design.Matrices); sigma is a
// scalar. All share h's dtype. With A = V C the sum is Σ_iq A_iq (K V)_iq − Σ_iq A_iq V_iq
// (the second term removes the diagonal, k_ii = 1): one n×n kernel matrix and one
// n×n by n×P product per batch, whatever the method.
func PenaltyGraph(h, v, c, sigma *Node) *Node {
	n := h.Shape().Dimensions[0]
	if h.Rank() == 2 && h.Shape().Dimensions[1] != 1 || h.Rank() > 2 {
		panic(fmt.Sprintf("invmmd.PenaltyGraph: h must be [n] or [n,1], got %s", h.Shape()))
	}
	k := KernelMatrixGraph(Reshape(h, n), sigma)
	kv := MatMul(k, v)
	a := MatMul(v, c)
	return Sub(ReduceAllSum(Mul(a, kv)), ReduceAllSum(Mul(a, v)))
}

// KernelMatrixGraph returns the n×n Gaussian kernel matrix exp(−(h_i − h_j)²/(2σ²)) of
// h, shape [n].
func KernelMatrixGraph(h, sigma *Node) *Node {
	n := h.Shape().Dimensions[0]
	d := Sub(Reshape(h, n, 1), Reshape(h, 1, n))
	scale := Neg(Inverse(MulScalar(Square(sigma), 2))) // −1/(2σ²)
	return Exp(Mul(Square(d), scale))
}

// Tensors returns V ([n, P]) and C ([P, P]) of the design (see Matrices) as tensors of the
// given float dtype, ready to feed a graph that calls PenaltyGraph.
func (d *Design) Tensors(dtype dtypes.DType) (v, c *tensors.Tensor, err error) {
	vf, cf, p := d.Matrices()
	if p == 0 {
		return nil, nil, fmt.Errorf("invmmd: the design has no factor columns (method none has no penalty)")
	}
	return floatTensor(dtype, vf, d.n, p), floatTensor(dtype, cf, p, p), nil
}

func floatTensor(dtype dtypes.DType, data []float64, dims ...int) *tensors.Tensor {
	switch dtype {
	case dtypes.Float64:
		return tensors.FromFlatDataAndDimensions(data, dims...)
	case dtypes.Float32:
		f := make([]float32, len(data))
		for i, x := range data {
			f[i] = float32(x)
		}
		return tensors.FromFlatDataAndDimensions(f, dims...)
	}
	panic(fmt.Sprintf("invmmd: unsupported dtype %s, want Float32 or Float64", dtype))
}
