package models

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/invmmd/invmmd/invmmd/matmul"
)

// The convolution and pooling layers of the CNN, written so that they train on the pure-Go
// backend.
//
// GoMLX's own convolution and max-pool run forward on the pure-Go backend but cannot be
// differentiated there: the convolution's gradient needs Reverse, the max-pool's
// SelectAndScatterMax, padding's gradient Slice-and-Pad, none of which that backend has.
// So the convolution is written as im2col: a Gather copies each output pixel's k×k input
// window into a row (taps that fall outside the image read a zero row appended to the
// input: the "same" zero padding), and a matmul.MatMul multiplies the rows by the kernel.
// Gather's gradient is a ScatterSum, Concatenate's a Slice of the adjoint, MatMul's two
// matrix products: all of which the backend has. Max-pooling is a Reshape that puts each
// 2×2 window on its own axes and a ReduceMax. Inside the CNN the activations are kept
// spatial-major (see conv2D), so that the Gather indexes the leading axis with one small
// index table whatever the batch size, and the pooling is a plain reshape.

// conv2D is the convolution of x with kernel [k, k, C, Cout] (k odd), zero "same" padding,
// at the given stride, as GoMLX's Convolve computes it, for activations laid out
// spatial-major: x of shape [H, W, batch, C] gives [Ho, Wo, batch, Cout], with Ho = ⌊(H−1)/stride⌋+1 (output pixel y
// reads input rows stride·y−k/2 … stride·y+k/2, zero outside the image: PyTorch's padding
// k/2). With batchLast, x is [H, W, C, batch] and the result [Ho, Wo, Cout, batch]: the
// Gather of the input's rows (one row per pixel, its C×batch values) gives the patches
// directly as [Ho·Wo, taps·C, batch], and matmul.Stacked multiplies each output pixel's
// patch matrix by the kernel; none of its products or gradients needs a transposed copy of
// the patches, which the spatial-major layout needs three times per layer.
func conv2D(x, kernel *Node, stride int, batchLast bool) *Node {
	layout, bAxis, cAxis := "[H, W, batch, C]", 2, 3
	if batchLast {
		layout, bAxis, cAxis = "[H, W, C, batch]", 3, 2
	}
	if x.Rank() != 4 || kernel.Rank() != 4 || stride < 1 {
		panic(fmt.Sprintf("models: convolution wants x %s, kernel [k, k, C, Cout] and a stride ≥ 1, got %s, %s and %d", layout, x.Shape(), kernel.Shape(), stride))
	}
	d := x.Shape().Dimensions
	h, w, b, c := d[0], d[1], d[bAxis], d[cAxis]
	kd := kernel.Shape().Dimensions
	k, cout := kd[0], kd[3]
	if kd[1] != k || k%2 != 1 || kd[2] != c {
		panic(fmt.Sprintf("models: convolution kernel %s for input %s: want [k, k, %d, Cout] with k odd", kernel.Shape(), x.Shape(), c))
	}
	g := x.Graph()
	taps := k * k
	idx, padded := im2colIndex(h, w, k, stride)
	ho, wo := (h-1)/stride+1, (w-1)/stride+1
	src := Reshape(x, h*w, d[2], d[3])
	if padded {
		// Row h·w is zero: the taps that fall outside the image read it ("same" padding).
		src = Concatenate([]*Node{src, Zeros(g, shapes.Make(x.DType(), 1, d[2], d[3]))}, 0)
	}
	patches := Gather(src, Const(g, idx)) // [Ho·Wo·taps, d[2], d[3]]
	switch {
	case batchLast:
		// [Ho·Wo, taps·C, batch], (tap, channel) pairs in the kernel's order; the product is
		// [Ho·Wo, Cout, batch].
		patches = Reshape(patches, ho*wo, taps*c, b)
		return Reshape(matmul.Stacked(Reshape(kernel, taps*c, cout), patches), ho, wo, cout, b)
	case c == 1:
		// One input channel: [Ho·Wo, taps, batch] → [Ho·Wo, batch, taps].
		patches = TransposeAllAxes(Reshape(patches, ho*wo, taps, b), 0, 2, 1)
	default:
		patches = TransposeAllAxes(Reshape(patches, ho*wo, taps, b, c), 0, 2, 1, 3) // [Ho·Wo, batch, taps, C]
	}
	y := matmul.MatMul(Reshape(patches, ho*wo*b, taps*c), Reshape(kernel, taps*c, cout))
	return Reshape(y, ho, wo, b, cout)
}

// im2colIndex returns, for an h×w image, a k×k kernel and a stride, the flat source pixel
// of each (output pixel, tap) pair in that order, shape [Ho·Wo·k·k, 1]: y·w + x inside the
// image and h·w, the zero row that the caller appends, outside; padded says whether any
// tap falls outside.
func im2colIndex(h, w, k, stride int) ([][]int32, bool) {
	r := k / 2
	ho, wo := (h-1)/stride+1, (w-1)/stride+1
	idx := make([][]int32, 0, ho*wo*k*k)
	padded := false
	for y := 0; y < ho; y++ {
		for x := 0; x < wo; x++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					sy, sx := stride*y+ky-r, stride*x+kx-r
					if sy < 0 || sy >= h || sx < 0 || sx >= w {
						idx = append(idx, []int32{int32(h * w)})
						padded = true
						continue
					}
					idx = append(idx, []int32{int32(sy*w + sx)})
				}
			}
		}
	}
	return idx, padded
}

// maxPool2SpatialMajor is the maximum over 2×2 windows at stride 2 (GoMLX's
// MaxPool(x).Window(2)) for x of shape [H, W, batch, C]. Its gradient routes
// the adjoint of each window's maximum to the window's elements equal to it (all of them
// on a tie, as GoMLX's gradient of ReduceMax does), in one comparison and one selection
// instead of GoMLX's six passes.
func maxPool2SpatialMajor(x *Node) *Node {
	d := x.Shape().Dimensions
	if x.Rank() != 4 || d[0]%2 != 0 || d[1]%2 != 0 {
		panic(fmt.Sprintf("models: 2×2 max-pool wants x [H, W, batch, C] with H and W even, got %s", x.Shape()))
	}
	windows := Reshape(x, d[0]/2, 2, d[1]/2, 2, d[2]*d[3])
	y := withGradient(windows, func(w *Node) *Node { return ReduceMax(w, 1, 3) },
		func(w, y, dy *Node) *Node {
			keep := func(v *Node) *Node { return Reshape(v, d[0]/2, 1, d[1]/2, 1, d[2]*d[3]) }
			return Where(Equal(w, keep(y)), BroadcastToShape(keep(dy), w.Shape()), ScalarZero(w.Graph(), w.DType()))
		})
	return Reshape(y, d[0]/2, d[1]/2, d[2], d[3])
}

// relu returns max(x, 0) with the gradient of GoMLX's activations.Relu (1 where x ≥ 0),
// computed in one comparison and one selection instead of five passes.
func relu(x *Node) *Node {
	return withGradient(x, func(x *Node) *Node { return Max(x, ScalarZero(x.Graph(), x.DType())) },
		func(x, _, dy *Node) *Node {
			zero := ScalarZero(x.Graph(), x.DType())
			return Where(GreaterOrEqual(x, zero), dy, zero)
		})
}

// withGradient returns f(x) with the gradient with respect to x set to grad(x, y, dy), y
// the output and dy its adjoint. As in matmul.MatMul, x passes through a custom-gradient
// identity and an identity on the output records dy; GoMLX's own gradient of f is built
// but, unused, never runs.
func withGradient(x *Node, f func(x *Node) *Node, grad func(x, y, dy *Node) *Node) *Node {
	var dy, y *Node
	xi := IdentityWithCustomGradient(x, func(xi, _ *Node) *Node { return grad(xi, y, dy) })
	y = IdentityWithCustomGradient(f(xi), func(_, v *Node) *Node {
		dy = v
		return v
	})
	return y
}

// NativeConvGradients reports whether backend b can differentiate GoMLX's own convolution
// and max-pool (it has Reverse, Pad, SelectAndScatterMax and ReduceWindow, as XLA does).
func NativeConvGradients(b backends.Backend) bool {
	ops := b.Capabilities().Operations
	for _, op := range []backends.OpType{backends.OpTypeConvGeneral, backends.OpTypeReverse, backends.OpTypePad,
		backends.OpTypeSelectAndScatterMax, backends.OpTypeReduceWindow} {
		if !ops[op] {
			return false
		}
	}
	return true
}
