// Package matmul provides a matrix product whose gradient is two matrix products.
//
// GoMLX v0.26 differentiates DotGeneral by broadcasting both operands to
// [rows, cols, contracted] and reducing, which on the pure-Go backend materialises a tensor
// the size of the three dimensions' product: for a dense layer [batch, in, out], for the
// kernel matrix of the MMD penalty [n, P, n]. MatMul computes the same product and sets the
// gradients to dx = dy·wᵀ and dw = xᵀ·dy, the textbook form, which trained an MLP 5–6×
// faster there.
//
// The pure-Go backend's block size for these products is tuned by the programs that make
// the backend (backend.GoDotBlockLog2Dim), not here: importing this package changes nothing.
package matmul

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// chunkRows is the number of rows of x per chunk of the weight gradient xᵀ·dy: the
// pure-Go backend runs a product whose output is small (k·n values) on one core, but the
// chunks of a batched product in parallel, one per core.
const chunkRows = 8192

// maxChunks bounds the chunks of the weight gradient (their partial sums cost one k×n
// tensor each).
const maxChunks = 8

// MatMul returns x·w for x of shape [m, k] and w of shape [k, n], with the gradients of a
// matrix product: dx = dy·wᵀ, dw = xᵀ·dy.
//
// GoMLX exposes custom gradients only through IdentityWithCustomGradient, so the function
// routes them that way: x and w each pass through a custom-gradient identity, the product
// of the two identities is the output, and a custom-gradient identity on the output
// records the output's adjoint dy. Reverse-mode differentiation visits nodes in reverse
// creation order, so dy is recorded before the operands' gradients are built; the
// operands' identities then return dy·wᵀ and xᵀ·dy and discard the adjoint that GoMLX's
// own gradient of the product built for them, which therefore never runs. On the pure-Go
// backend an identity whose input has no other use costs nothing (the buffer is handed
// on), so the forward pass is the product alone. The gradient nodes read the identities
// without a StopGradient (each would be a copy of x): MatMul supports first-order
// gradients only.
//
// The weight gradient xᵀ·dy contracts the m rows; for large m it is computed as a batch
// of chunks of rows, summed, which the pure-Go backend runs in parallel. The result is the
// same sum up to float rounding.
func MatMul(x, w *graph.Node) *graph.Node {
	if x.Rank() != 2 || w.Rank() != 2 || x.Shape().Dimensions[1] != w.Shape().Dimensions[0] {
		panic(fmt.Sprintf("matmul.MatMul: want shapes [m,k]·[k,n], got %s · %s", x.Shape(), w.Shape()))
	}
	var dy *graph.Node // adjoint of the output, set when the gradient graph is built
	var xi, wi *graph.Node
	xi = graph.IdentityWithCustomGradient(x, func(_, _ *graph.Node) *graph.Node {
		// dx = dy·wᵀ: contract dy's and w's second axes, no transposed copy of w.
		return graph.DotGeneral(dy, []int{1}, nil, wi, []int{1}, nil)
	})
	wi = graph.IdentityWithCustomGradient(w, func(_, _ *graph.Node) *graph.Node {
		return weightGradient(xi, dy)
	})
	y := graph.Dot(xi, wi)
	return recordAdjoint(y, &dy)
}

// recordAdjoint returns y through a custom-gradient identity that stores y's adjoint in *dy
// when the gradient graph is built, before the operands' gradients (see MatMul).
func recordAdjoint(y *graph.Node, dy **graph.Node) *graph.Node {
	return graph.IdentityWithCustomGradient(y, func(_, v *graph.Node) *graph.Node {
		*dy = v
		return v
	})
}

// weightGradient returns xᵀ·dy for x [m, k] and dy [m, n], in chunks of rows when m is
// large (see MatMul).
func weightGradient(x, dy *graph.Node) *graph.Node {
	m, k, n := x.Shape().Dimensions[0], x.Shape().Dimensions[1], dy.Shape().Dimensions[1]
	chunks := min(m/chunkRows, maxChunks)
	for chunks > 1 && m%chunks != 0 {
		chunks--
	}
	if chunks <= 1 {
		return graph.DotGeneral(x, []int{0}, nil, dy, []int{0}, nil)
	}
	xc := graph.Reshape(x, chunks, m/chunks, k)
	dc := graph.Reshape(dy, chunks, m/chunks, n)
	return graph.ReduceSum(graph.DotGeneral(xc, []int{1}, []int{0}, dc, []int{1}, []int{0}), 0)
}

// Stacked returns wᵀ·x[p] for each of the P matrices of x, shape [P, K, B], and w of shape
// [K, N]: y of shape [P, N, B], y[p, n, b] = Σ_k w[k, n]·x[p, k, b]. With the gradients
// dx[p] = w·dy[p] and dw = Σ_p x[p]·dy[p]ᵀ it is built, as MatMul, from custom-gradient
// identities, and each of its three products is a DotGeneral batched over p whose
// operands the pure-Go backend reads as they lie, with no transposed copy: w, broadcast
// over p, is small, and the weight gradient contracts the trailing axis B of both x and
// dy. A convolution by im2col with activations laid out [H, W, C, batch] is this product
// with p the output pixel, k a (tap, input channel) pair and b the image.
func Stacked(w, x *graph.Node) *graph.Node {
	if x.Rank() != 3 || w.Rank() != 2 || x.Shape().Dimensions[1] != w.Shape().Dimensions[0] {
		panic(fmt.Sprintf("matmul.Stacked: want shapes w [k,n] and x [p,k,b], got %s and %s", w.Shape(), x.Shape()))
	}
	p := x.Shape().Dimensions[0]
	var dy *graph.Node // adjoint of the output, [P, N, B]
	var xi, wi *graph.Node
	xi = graph.IdentityWithCustomGradient(x, func(_, _ *graph.Node) *graph.Node {
		// dx[p] = w·dy[p]: w broadcast over p, [P, K, N], contracting N with dy's axis 1.
		wb := graph.BroadcastPrefix(wi, p)
		return graph.DotGeneral(wb, []int{2}, []int{0}, dy, []int{1}, []int{0})
	})
	wi = graph.IdentityWithCustomGradient(w, func(_, _ *graph.Node) *graph.Node {
		// dw = Σ_p x[p]·dy[p]ᵀ: [P, K, N] contracting B, then summed over p.
		return graph.ReduceSum(graph.DotGeneral(xi, []int{2}, []int{0}, dy, []int{2}, []int{0}), 0)
	})
	wt := graph.BroadcastPrefix(graph.Transpose(wi, 0, 1), p) // [P, N, K]
	y := graph.DotGeneral(wt, []int{2}, []int{0}, xi, []int{1}, []int{0})
	return recordAdjoint(y, &dy)
}

// Affine returns x·w + b for x of shape [m, k], w of shape [k, n] and b of shape [n]: a
// dense layer. Its gradients are dx = dy·wᵀ and, in one product, [dw; db] = [x, 1]ᵀ·dy:
// a column of ones appended to x makes the bias gradient (the sum of dy over the rows) the
// last row of the weight gradient. On the pure-Go backend that product replaces a
// reduction over the rows, which the backend runs element by element through an index
// iterator, and the bias is broadcast over the rows by copying it (BroadcastPrefix)
// rather than by an implicit broadcast, also run through index iterators. BENCHMARKS.md
// gives the measured effect on the simulation's MLP. As MatMul, it supports first-order
// gradients only.
func Affine(x, w, b *graph.Node) *graph.Node {
	if x.Rank() != 2 || w.Rank() != 2 || b.Rank() != 1 || x.Shape().Dimensions[1] != w.Shape().Dimensions[0] || b.Shape().Dimensions[0] != w.Shape().Dimensions[1] {
		panic(fmt.Sprintf("matmul.Affine: want shapes [m,k]·[k,n] + [n], got %s · %s + %s", x.Shape(), w.Shape(), b.Shape()))
	}
	m, k, n := x.Shape().Dimensions[0], x.Shape().Dimensions[1], w.Shape().Dimensions[1]
	var dy, dwb *graph.Node // the output's adjoint; [dw; db], built once for both
	var xi, wi, bi *graph.Node
	weightAndBias := func() *graph.Node {
		if dwb == nil {
			ones := graph.Ones(x.Graph(), shapes.Make(x.DType(), m, 1))
			dwb = weightGradient(graph.Concatenate([]*graph.Node{xi, ones}, 1), dy) // [k+1, n]
		}
		return dwb
	}
	xi = graph.IdentityWithCustomGradient(x, func(_, _ *graph.Node) *graph.Node {
		return graph.DotGeneral(dy, []int{1}, nil, wi, []int{1}, nil)
	})
	wi = graph.IdentityWithCustomGradient(w, func(_, _ *graph.Node) *graph.Node {
		return graph.Slice(weightAndBias(), graph.AxisRange(0, k))
	})
	bi = graph.IdentityWithCustomGradient(b, func(_, _ *graph.Node) *graph.Node {
		return graph.Reshape(graph.Slice(weightAndBias(), graph.AxisRange(k, k+1)), n)
	})
	y := graph.Add(graph.Dot(xi, wi), graph.BroadcastPrefix(bi, m))
	return recordAdjoint(y, &dy)
}

// Vec returns x·w for x of shape [m, k] and w of shape [k]: shape [m], a dense layer with
// one output. The forward pass is one product contracting k (no broadcast of w over the
// rows and no separate reduction); the gradients are dx = dy wᵀ, an outer product computed
// as the element-wise product of dy broadcast over the columns and w copied over the rows,
// and dw = xᵀ·dy. As MatMul, it supports first-order gradients only.
func Vec(x, w *graph.Node) *graph.Node {
	if x.Rank() != 2 || w.Rank() != 1 || x.Shape().Dimensions[1] != w.Shape().Dimensions[0] {
		panic(fmt.Sprintf("matmul.Vec: want shapes [m,k]·[k], got %s · %s", x.Shape(), w.Shape()))
	}
	m, k := x.Shape().Dimensions[0], x.Shape().Dimensions[1]
	var dy *graph.Node
	var xi, wi *graph.Node
	xi = graph.IdentityWithCustomGradient(x, func(_, _ *graph.Node) *graph.Node {
		return graph.Mul(graph.ExpandAndBroadcast(dy, []int{m, k}, []int{1}), graph.BroadcastPrefix(wi, m))
	})
	wi = graph.IdentityWithCustomGradient(w, func(_, _ *graph.Node) *graph.Node {
		return graph.DotGeneral(xi, []int{0}, nil, dy, []int{0}, nil)
	})
	y := graph.DotGeneral(xi, []int{1}, nil, wi, []int{0}, nil)
	return recordAdjoint(y, &dy)
}
