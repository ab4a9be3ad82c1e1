// Package penalty is the MMD penalty of package invmmd as a differentiable GoMLX graph, for
// training: the exact kernel (PenaltyGraph), the Fourier expansion of the Gaussian kernel
// for scalar outputs (FourierPenaltyGraph) and random Fourier features for outputs of any
// width (RFFPenaltyGraph). Each reads a Design's factor columns and coefficients (Tensors),
// so every estimator of package invmmd is a penalty here without more code; the float64
// estimators of package invmmd are the reference these graphs are tested against. It is
// apart from package invmmd so that the float64 estimators build without GoMLX.
package penalty

import (
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/matmul"
)

// PenaltyGraph returns the penalty of a invmmd.Design per stratum as a differentiable graph of the
// model outputs h:
//
//	pen[s] = Σ_pq C[s]_pq Σ_{i≠j} V_ip V_jq k(h_i, h_j),   k(a, b) = exp(−‖a−b‖²/(2σ²)),
//
// shape [S]: MMD²_y for each stratum y (sum them for eq. (4)). h has shape [n] or [n, 1]
// (a logit) or [n, d] (a representation of d columns; see KernelMatrixGraph); v is [n, P]
// and c is [S, P, P] (invmmd.Design.Tensors); sigma is a scalar. All share h's dtype. With
// A_s = V C[s] the sum is Σ_iq A_s,iq (K V)_iq − Σ_iq A_s,iq V_iq (the second term removes
// the diagonal, k_ii = 1): one n×n kernel matrix and one n×n by n×P product per batch,
// whatever the method.
func PenaltyGraph(h, v, c, sigma *Node) *Node {
	if h.Rank() < 1 || h.Rank() > 2 {
		panic(fmt.Sprintf("invmmd.PenaltyGraph: h must be [n], [n,1] or [n,d], got %s", h.Shape()))
	}
	kv := matmul.MatMul(KernelMatrixGraph(h, sigma), v)
	return Sub(stratumForms(v, c, kv), stratumForms(v, c, v))
}

// stratumForms returns, for each stratum s, Σ_iq (x C[s])_iq y_iq, shape [S]; x and y are
// [r, P] and c is [S, P, P].
func stratumForms(x, c, y *Node) *Node {
	r, p := x.Shape().Dimensions[0], x.Shape().Dimensions[1]
	s := c.Shape().Dimensions[0]
	cp := Reshape(TransposeAllAxes(c, 1, 0, 2), p, s*p) // [P, S·P]: cp[a, s·P+b] = C[s]_ab
	xc := Reshape(matmul.MatMul(x, cp), r, s, p)
	return ReduceSum(Mul(xc, Reshape(y, r, 1, p)), 0, 2)
}

// KernelMatrixGraph returns the n×n Gaussian kernel matrix exp(−‖h_i − h_j‖²/(2σ²)) of h,
// shape [n] (scalar outputs: the squared differences directly) or [n, d] (rows of a
// representation). For d > 1 the squared distances come from the Gram matrix,
// ‖h_i − h_j‖² = ‖h_i‖² + ‖h_j‖² − 2 h_iᵀh_j (one n×d by d×n product instead of an n×n×d
// tensor), computed on h/σ so that the exponent −‖h̃_i − h̃_j‖²/2 takes three n×n passes,
// clamped at 0 against rounding, with the diagonal set to 0 exactly (so k_ii = 1, which
// PenaltyGraph relies on, and no gradient flows through it). A shape [n, 1] takes the
// scalar path.
func KernelMatrixGraph(h, sigma *Node) *Node {
	n := h.Shape().Dimensions[0]
	if h.Rank() == 2 && h.Shape().Dimensions[1] != 1 {
		// −‖h_i − h_j‖²/(2σ²) = h̃_iᵀh̃_j − ‖h̃_i‖²/2 − ‖h̃_j‖²/2 on h̃ = h/σ.
		hs := Div(h, sigma)
		half := MulScalar(ReduceSum(Square(hs), 1), 0.5) // ‖h̃_i‖²/2, [n]
		gram := matmul.MatMul(hs, Transpose(hs, 0, 1))
		arg := Sub(Sub(gram, Reshape(half, n, 1)), Reshape(half, 1, n))
		zero := ZerosLike(arg)
		arg = Min(arg, zero)
		eye := Equal(Iota(h.Graph(), shapes.Make(dtypes.Int32, n, 1), 0), Iota(h.Graph(), shapes.Make(dtypes.Int32, 1, n), 1))
		return Exp(Where(eye, zero, arg))
	}
	scale := Neg(Inverse(MulScalar(Square(sigma), 2))) // −1/(2σ²)
	d := Sub(Reshape(h, n, 1), Reshape(h, 1, n))
	return Exp(Mul(Square(d), scale))
}

// Tensors returns V ([n, P]) and C ([S, P, P]) of the design (see Matrices) as tensors of
// the given float dtype, ready to feed a graph that calls PenaltyGraph.
func Tensors(d *invmmd.Design, dtype dtypes.DType) (v, c *tensors.Tensor, err error) {
	vf, cf, p, s := d.Matrices()
	if p == 0 {
		return nil, nil, fmt.Errorf("invmmd: the design has no factor columns (method none has no penalty)")
	}
	return floatTensor(dtype, vf, d.NumRows(), p), floatTensor(dtype, cf, s, p, p), nil
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

// FourierPenaltyGraph is PenaltyGraph with the kernel sums computed through the Fourier
// expansion of the Gaussian (see invmmd.PlanFourier) with terms m = 0..M: O(n·M·P) instead of
// O(n²). The period is set in the graph from the batch's range of h (with gradients
// stopped: the kernel values do not depend on it) plus the margin that keeps the
// periodisation error below tol/2; M is fixed when the graph is built. It returns the
// per-stratum penalty ([S]) and a bound on the per-pair kernel error for this batch (the
// periodisation margin plus the truncated tail, summed over the next 16 terms): when the
// outputs spread out so that the bound exceeds tol, rebuild with a larger M
// (FourierTermsFor) or use PenaltyGraph.
//
// The expansion serves scalar outputs only (h [n] or [n, 1]); RFFPenaltyGraph is the
// expansion for representations of any width.
func FourierPenaltyGraph(h, v, c, sigma *Node, M int, tol float64) (penalty, bound *Node) {
	if h.Rank() == 2 && h.Shape().Dimensions[1] != 1 || h.Rank() > 2 {
		panic(fmt.Sprintf("invmmd.FourierPenaltyGraph: h must be [n] or [n,1], got %s; use RFFPenaltyGraph or PenaltyGraph", h.Shape()))
	}
	g := h.Graph()
	n := h.Shape().Dimensions[0]
	dt := h.DType()
	hv := Reshape(h, n)
	hs := StopGradient(hv)
	lo, hi := ReduceAllMin(hs), ReduceAllMax(hs)
	center := MulScalar(Add(lo, hi), 0.5)
	L := Add(Sub(hi, lo), MulScalar(sigma, math.Sqrt(2*math.Log(4/tol))))
	L = StopGradient(L)
	kappa := func(m *Node) *Node { // κ_m = σ√(2π)/L · exp(−σ²ω²/2), ω = 2πm/L
		w := Div(MulScalar(m, 2*math.Pi), L)
		return Mul(Div(MulScalar(sigma, math.Sqrt(2*math.Pi)), L), Exp(MulScalar(Mul(Square(sigma), Square(w)), -0.5)))
	}
	terms := Iota(g, shapes.Make(dt, M+1), 0) // 0..M
	weights := Mul(kappa(terms), Where(GreaterThan(terms, ScalarZero(g, dt)), Scalar(g, dt, 2), Scalar(g, dt, 1)))
	omega := Div(MulScalar(terms, 2*math.Pi), L)
	args := Mul(Reshape(Sub(hv, center), n, 1), Reshape(omega, 1, M+1)) // [n, M+1]
	// Σ_f w_f (S_f C[s] S_fᵀ) with S = Φᵀ V, for Φ the cosine and the sine features: the
	// rows of S scaled by √w_f.
	total := featureForms(args, v, c, Reshape(Sqrt(weights), M+1, 1))
	k0 := ReduceAllSum(weights) // the expansion's k(0), so the diagonal cancels exactly
	penalty = Sub(total, Mul(k0, stratumForms(v, c, v)))

	tail := Iota(g, shapes.Make(dt, 16), 0)
	tail = AddScalar(tail, float64(M+1))
	bound = Add(MulScalar(ReduceAllSum(kappa(tail)), 2), Scalar(g, dt, tol/2))
	return penalty, StopGradient(bound)
}

// featureForms returns Σ_f stratumForms(S_f, c, S_f) over the cosine and the sine features
// of args [n, F], S = Φᵀ V ([F, P]) with its rows scaled by scale ([F, 1]) when given.
func featureForms(args, v, c, scale *Node) *Node {
	sums := func(phi *Node) *Node {
		s := matmul.MatMul(Transpose(phi, 0, 1), v)
		if scale != nil {
			s = Mul(scale, s)
		}
		return stratumForms(s, c, s)
	}
	return Add(sums(Cos(args)), sums(Sin(args)))
}

// FourierTermsFor returns the number of terms M that FourierPenaltyGraph needs for outputs
// spanning span with bandwidth sigma and per-pair tolerance tol, rounded up to a multiple
// of 8 so that a slowly widening range recompiles the graph rarely, or the error of
// invmmd.PlanFourier for outputs too spread out (or not finite) for the expansion.
func FourierTermsFor(span, sigma, tol float64) (int, error) {
	p, err := invmmd.PlanFourier(span, sigma, tol)
	if err != nil {
		return 0, err
	}
	return (p.M + 7) / 8 * 8, nil
}
