// Package matmul provides a matrix product whose gradient is two matrix products.
//
// GoMLX v0.26 differentiates DotGeneral by broadcasting both operands to
// [rows, cols, contracted] and reducing, which on the pure-Go backend materialises a tensor
// the size of the three dimensions' product: for a dense layer [batch, in, out], for the
// kernel matrix of the MMD penalty [n, P, n]. MatMul computes the same product and sets the
// gradients to dx = dy·wᵀ and dw = xᵀ·dy, the textbook form, which trained an MLP 5–6×
// faster there (see the project's STACK notes).
package matmul

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// MatMul returns x·w for x of shape [m, k] and w of shape [k, n], with the gradients of a
// matrix product: dx = dy·wᵀ, dw = xᵀ·dy.
//
// GoMLX exposes custom gradients only through IdentityWithCustomGradient, so the function
// routes them that way: the product itself is computed with gradients stopped; x and w each
// pass through a custom-gradient identity that is tied to the output by a term equal to
// zero (s − StopGradient(s), s the sum of the operand), and a custom-gradient identity on
// the output records the output's adjoint dy. Reverse-mode differentiation visits nodes in
// reverse creation order, so dy is recorded before the operands' gradients are built.
func MatMul(x, w *graph.Node) *graph.Node {
	if x.Rank() != 2 || w.Rank() != 2 || x.Shape().Dimensions[1] != w.Shape().Dimensions[0] {
		panic(fmt.Sprintf("matmul.MatMul: want shapes [m,k]·[k,n], got %s · %s", x.Shape(), w.Shape()))
	}
	var dy *graph.Node // adjoint of the output, set when the gradient graph is built
	xi := graph.IdentityWithCustomGradient(x, func(_, _ *graph.Node) *graph.Node {
		return MatMulPlain(dy, graph.Transpose(graph.StopGradient(w), 0, 1))
	})
	wi := graph.IdentityWithCustomGradient(w, func(_, _ *graph.Node) *graph.Node {
		return MatMulPlain(graph.Transpose(graph.StopGradient(x), 0, 1), dy)
	})
	y := MatMulPlain(graph.StopGradient(x), graph.StopGradient(w))
	y = graph.Add(y, graph.Add(zeroTie(xi), zeroTie(wi)))
	return graph.IdentityWithCustomGradient(y, func(_, v *graph.Node) *graph.Node {
		dy = v
		return v
	})
}

// MatMulPlain is GoMLX's own matrix product, for operands that need no gradient.
func MatMulPlain(x, w *graph.Node) *graph.Node { return graph.Dot(x, w) }

// zeroTie returns a scalar equal to 0 that depends on x, so that gradients reach x's
// custom-gradient identity.
func zeroTie(x *graph.Node) *graph.Node {
	s := graph.ReduceAllSum(x)
	return graph.Sub(s, graph.StopGradient(s))
}
