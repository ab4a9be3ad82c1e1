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
// matrix products: all of which the backend has.
// Max-pooling is a Reshape that puts each 2×2 window on its own axes and a ReduceMax.
//
// Inside the CNN the activations are kept spatial-major, [H, W, batch, C], so that the
// Gather indexes the leading (spatial) axis with one small index table whatever the batch
// size, and the pooling is a plain reshape.

// Conv2D returns the convolution of x, shape [batch, H, W, C], with kernel, shape
// [k, k, C, Cout] (k odd), at stride 1 with zero "same" padding: shape [batch, H, W, Cout].
// It is GoMLX's Convolve(x, kernel).Strides(1).PadSame() computed by im2col, so that its
// gradient exists on every backend. (GoMLX v0.26's Convolve needs the explicit Strides(1)
// on the pure-Go backend, which rejects the default empty strides.)
func Conv2D(x, kernel *Node) *Node {
	if x.Rank() != 4 {
		panic(fmt.Sprintf("models.Conv2D: want x of shape [batch, H, W, C], got %s", x.Shape()))
	}
	return TransposeAllAxes(conv2DSpatialMajor(TransposeAllAxes(x, 1, 2, 0, 3), kernel), 2, 0, 1, 3)
}

// MaxPool2 returns the maximum over 2×2 windows at stride 2 of x, shape [batch, H, W, C]
// with H and W even: shape [batch, H/2, W/2, C]. It is GoMLX's MaxPool(x).Window(2)
// computed as Reshape and ReduceMax, whose gradient exists on every backend.
func MaxPool2(x *Node) *Node {
	if x.Rank() != 4 {
		panic(fmt.Sprintf("models.MaxPool2: want x of shape [batch, H, W, C], got %s", x.Shape()))
	}
	return TransposeAllAxes(maxPool2SpatialMajor(TransposeAllAxes(x, 1, 2, 0, 3)), 2, 0, 1, 3)
}

// conv2DSpatialMajor is Conv2D for x of shape [H, W, batch, C]; it returns [H, W, batch, Cout].
func conv2DSpatialMajor(x, kernel *Node) *Node {
	if x.Rank() != 4 || kernel.Rank() != 4 {
		panic(fmt.Sprintf("models: convolution wants x [H, W, batch, C] and kernel [k, k, C, Cout], got %s and %s", x.Shape(), kernel.Shape()))
	}
	h, w, b, c := x.Shape().Dimensions[0], x.Shape().Dimensions[1], x.Shape().Dimensions[2], x.Shape().Dimensions[3]
	kd := kernel.Shape().Dimensions
	k, cout := kd[0], kd[3]
	if kd[1] != k || k%2 != 1 || kd[2] != c {
		panic(fmt.Sprintf("models: convolution kernel %s for input %s: want [k, k, %d, Cout] with k odd", kernel.Shape(), x.Shape(), c))
	}
	g := x.Graph()
	taps := k * k
	idx, padded := im2colIndex(h, w, k)
	src := Reshape(x, h*w, b, c)
	if padded {
		// Row h·w is zero: the taps that fall outside the image read it ("same" padding).
		src = Concatenate([]*Node{src, Zeros(g, shapes.Make(x.DType(), 1, b, c))}, 0)
	}
	patches := Gather(src, Const(g, idx))                                     // [H·W·taps, batch, C]
	patches = TransposeAllAxes(Reshape(patches, h*w, taps, b, c), 0, 2, 1, 3) // [H·W, batch, taps, C]
	y := matmul.MatMul(Reshape(patches, h*w*b, taps*c), Reshape(kernel, taps*c, cout))
	return Reshape(y, h, w, b, cout)
}

// im2colIndex returns, for an h×w image and a k×k kernel, the flat source pixel of each
// (output pixel, tap) pair in that order, shape [h·w·k·k, 1]: y·w + x inside the image and
// h·w, the zero row that the caller appends, outside; padded says whether any tap falls
// outside.
func im2colIndex(h, w, k int) ([][]int32, bool) {
	r := k / 2
	idx := make([][]int32, 0, h*w*k*k)
	padded := false
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					sy, sx := y+ky-r, x+kx-r
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

// maxPool2SpatialMajor is MaxPool2 for x of shape [H, W, batch, C].
func maxPool2SpatialMajor(x *Node) *Node {
	d := x.Shape().Dimensions
	if x.Rank() != 4 || d[0]%2 != 0 || d[1]%2 != 0 {
		panic(fmt.Sprintf("models: 2×2 max-pool wants x [H, W, batch, C] with H and W even, got %s", x.Shape()))
	}
	y := ReduceMax(Reshape(x, d[0]/2, 2, d[1]/2, 2, d[2]*d[3]), 1, 3)
	return Reshape(y, d[0]/2, d[1]/2, d[2], d[3])
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
