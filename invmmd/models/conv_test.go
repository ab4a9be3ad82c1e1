package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/invmmd/invmmd/invmmd/backend"
)

func sharedBackend(t testing.TB) backends.Backend {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// randn returns n standard normal draws.
func randn(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// exec runs fn on the backend and returns its outputs as float64 slices.
func exec(t testing.TB, b backends.Backend, fn any, args ...any) [][]float64 {
	t.Helper()
	e, err := graph.NewExecAny(b, fn)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Finalize()
	out, err := e.Exec(args...)
	if err != nil {
		t.Fatal(err)
	}
	res := make([][]float64, len(out))
	for k, o := range out {
		res[k] = tensors.MustCopyFlatData[float64](o)
	}
	return res
}

// refConv is a plain float64 convolution, stride 1, zero "same" padding: x [b, h, w, c],
// kernel [k, k, c, co], output [b, h, w, co].
func refConv(x []float64, b, h, w, c int, kernel []float64, k, co int) []float64 {
	return refConvStrided(x, b, h, w, c, kernel, k, co, 1)
}

// refConvStrided is refConv at stride s: output pixel (i, j) reads input rows s·i−k/2 …
// s·i+k/2 (zero outside), output [b, (h−1)/s+1, (w−1)/s+1, co].
func refConvStrided(x []float64, b, h, w, c int, kernel []float64, k, co, s int) []float64 {
	ho, wo := (h-1)/s+1, (w-1)/s+1
	y := make([]float64, b*ho*wo*co)
	r := k / 2
	for n := 0; n < b; n++ {
		for i := 0; i < ho; i++ {
			for j := 0; j < wo; j++ {
				for ky := 0; ky < k; ky++ {
					for kx := 0; kx < k; kx++ {
						si, sj := s*i+ky-r, s*j+kx-r
						if si < 0 || si >= h || sj < 0 || sj >= w {
							continue
						}
						for ci := 0; ci < c; ci++ {
							xv := x[((n*h+si)*w+sj)*c+ci]
							for o := 0; o < co; o++ {
								y[((n*ho+i)*wo+j)*co+o] += xv * kernel[((ky*k+kx)*c+ci)*co+o]
							}
						}
					}
				}
			}
		}
	}
	return y
}

// refPool is a plain float64 2×2 max-pool at stride 2 of x [b, h, w, c].
func refPool(x []float64, b, h, w, c int) []float64 {
	y := make([]float64, b*(h/2)*(w/2)*c)
	for n := 0; n < b; n++ {
		for i := 0; i < h/2; i++ {
			for j := 0; j < w/2; j++ {
				for ci := 0; ci < c; ci++ {
					m := math.Inf(-1)
					for di := 0; di < 2; di++ {
						for dj := 0; dj < 2; dj++ {
							m = math.Max(m, x[((n*h+2*i+di)*w+2*j+dj)*c+ci])
						}
					}
					y[((n*(h/2)+i)*(w/2)+j)*c+ci] = m
				}
			}
		}
	}
	return y
}

func assertClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("%s: element %d = %.10g, want %.10g (tolerance %g)", what, i, got[i], want[i], tol)
		}
	}
}

// convCases are the shapes the convolution tests run on: batch, height, width, input
// channels, output channels, kernel side.
var convCases = []struct{ b, h, w, c, co, k int }{
	{2, 5, 4, 1, 3, 3},
	{3, 6, 6, 2, 4, 3},
	{1, 7, 5, 3, 2, 5},
	{2, 4, 4, 2, 2, 1},
	{1, 2, 3, 1, 1, 5}, // kernel larger than the image
}

// TestConv2DMatchesNativeForward compares Conv2D with GoMLX's own convolution, whose
// forward pass runs on every backend, and with the plain Go reference.
func TestConv2DMatchesNativeForward(t *testing.T) {
	be := sharedBackend(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range convCases {
		t.Run(fmt.Sprintf("%dx%dx%dx%d_k%d_out%d", c.b, c.h, c.w, c.c, c.k, c.co), func(t *testing.T) {
			xv, kv := randn(rng, c.b*c.h*c.w*c.c), randn(rng, c.k*c.k*c.c*c.co)
			x := tensors.FromFlatDataAndDimensions(xv, c.b, c.h, c.w, c.c)
			k := tensors.FromFlatDataAndDimensions(kv, c.k, c.k, c.c, c.co)
			out := exec(t, be, func(x, k *graph.Node) []*graph.Node {
				return []*graph.Node{conv2DBatchFirst(x, k), graph.Convolve(x, k).Strides(1).PadSame().Done()}
			}, x, k)
			assertClose(t, "Conv2D vs GoMLX Convolve", out[0], out[1], 1e-12)
			assertClose(t, "Conv2D vs Go reference", out[0], refConv(xv, c.b, c.h, c.w, c.c, kv, c.k, c.co), 1e-12)
		})
	}
}

// TestStridedConvMatchesNativeForward compares the im2col convolution at strides 2 and 3
// with GoMLX's convolution (padding k/2 on each side) and with the plain Go reference.
func TestStridedConvMatchesNativeForward(t *testing.T) {
	be := sharedBackend(t)
	rng := rand.New(rand.NewPCG(17, 17))
	for _, c := range convCases {
		for _, s := range []int{2, 3} {
			t.Run(fmt.Sprintf("%dx%dx%dx%d_k%d_out%d_stride%d", c.b, c.h, c.w, c.c, c.k, c.co, s), func(t *testing.T) {
				xv, kv := randn(rng, c.b*c.h*c.w*c.c), randn(rng, c.k*c.k*c.c*c.co)
				x := tensors.FromFlatDataAndDimensions(xv, c.b, c.h, c.w, c.c)
				k := tensors.FromFlatDataAndDimensions(kv, c.k, c.k, c.c, c.co)
				r := c.k / 2
				out := exec(t, be, func(x, k *graph.Node) []*graph.Node {
					ours := graph.TransposeAllAxes(conv2D(graph.TransposeAllAxes(x, 1, 2, 0, 3), k, s, false), 2, 0, 1, 3)
					return []*graph.Node{ours, graph.Convolve(x, k).Strides(s).PaddingPerDim([][2]int{{r, r}, {r, r}}).Done()}
				}, x, k)
				assertClose(t, "strided conv vs GoMLX Convolve", out[0], out[1], 1e-12)
				assertClose(t, "strided conv vs Go reference", out[0], refConvStrided(xv, c.b, c.h, c.w, c.c, kv, c.k, c.co, s), 1e-12)
			})
		}
	}
}

// TestConv2DGradientsMatchFiniteDifferences checks the gradients of Conv2D, through the
// non-linear loss Σ r·sin(y), against central finite differences of the Go reference.
func TestConv2DGradientsMatchFiniteDifferences(t *testing.T) {
	be := sharedBackend(t)
	rng := rand.New(rand.NewPCG(8, 8))
	for _, c := range convCases {
		t.Run(fmt.Sprintf("%dx%dx%dx%d_k%d_out%d", c.b, c.h, c.w, c.c, c.k, c.co), func(t *testing.T) {
			xv, kv := randn(rng, c.b*c.h*c.w*c.c), randn(rng, c.k*c.k*c.c*c.co)
			rv := randn(rng, c.b*c.h*c.w*c.co)
			loss := func(xv, kv []float64) float64 {
				s := 0.0
				for i, y := range refConv(xv, c.b, c.h, c.w, c.c, kv, c.k, c.co) {
					s += rv[i] * math.Sin(y)
				}
				return s
			}
			out := exec(t, be, func(x, k, r *graph.Node) []*graph.Node {
				l := graph.ReduceAllSum(graph.Mul(r, graph.Sin(conv2DBatchFirst(x, k))))
				return append([]*graph.Node{l}, graph.Gradient(l, x, k)...)
			}, tensors.FromFlatDataAndDimensions(xv, c.b, c.h, c.w, c.c),
				tensors.FromFlatDataAndDimensions(kv, c.k, c.k, c.c, c.co),
				tensors.FromFlatDataAndDimensions(rv, c.b, c.h, c.w, c.co))
			assertClose(t, "loss", out[0], []float64{loss(xv, kv)}, 1e-12)
			assertClose(t, "dL/dx", out[1], finiteDiff(xv, func(v []float64) float64 { return loss(v, kv) }), 1e-7)
			assertClose(t, "dL/dkernel", out[2], finiteDiff(kv, func(v []float64) float64 { return loss(xv, v) }), 1e-7)
		})
	}
}

// finiteDiff returns the central finite-difference gradient of f at v (step 1e-6).
func finiteDiff(v []float64, f func([]float64) float64) []float64 {
	const h = 1e-6
	g := make([]float64, len(v))
	w := append([]float64(nil), v...)
	for i := range v {
		w[i] = v[i] + h
		fp := f(w)
		w[i] = v[i] - h
		fm := f(w)
		w[i] = v[i]
		g[i] = (fp - fm) / (2 * h)
	}
	return g
}

// TestMaxPool2 checks MaxPool2's values against GoMLX's MaxPool and the Go reference, and
// its gradient against finite differences (values are distinct, so the maximum is unique).
func TestMaxPool2(t *testing.T) {
	be := sharedBackend(t)
	rng := rand.New(rand.NewPCG(9, 9))
	const b, h, w, c = 2, 6, 4, 3
	xv := randn(rng, b*h*w*c)
	rv := randn(rng, b*h/2*w/2*c)
	loss := func(v []float64) float64 {
		s := 0.0
		for i, y := range refPool(v, b, h, w, c) {
			s += rv[i] * y * y
		}
		return s
	}
	out := exec(t, be, func(x, r *graph.Node) []*graph.Node {
		p := maxPool2BatchFirst(x)
		l := graph.ReduceAllSum(graph.Mul(r, graph.Mul(p, p)))
		return []*graph.Node{p, graph.MaxPool(x).Window(2).Done(), graph.Gradient(l, x)[0]}
	}, tensors.FromFlatDataAndDimensions(xv, b, h, w, c), tensors.FromFlatDataAndDimensions(rv, b, h/2, w/2, c))
	assertClose(t, "MaxPool2 vs GoMLX MaxPool", out[0], out[1], 0)
	assertClose(t, "MaxPool2 vs Go reference", out[0], refPool(xv, b, h, w, c), 0)
	assertClose(t, "dL/dx", out[2], finiteDiff(xv, loss), 1e-7)
}

// TestConv2DGradientsMatchNative compares the gradients of Conv2D and MaxPool2 with those
// of GoMLX's native convolution and max-pool, on a backend that can differentiate the
// latter (XLA: GOMLX_BACKEND=xla:cpu or xla:cuda). It skips on the pure-Go backend.
func TestConv2DGradientsMatchNative(t *testing.T) {
	be := sharedBackend(t)
	if !NativeConvGradients(be) {
		t.Skipf("backend %q cannot differentiate GoMLX's native convolution; run with GOMLX_BACKEND=xla:cpu (or xla:cuda) to compare", be.Name())
	}
	rng := rand.New(rand.NewPCG(10, 10))
	for _, c := range convCases {
		if c.h%2 != 0 || c.w%2 != 0 {
			continue
		}
		t.Run(fmt.Sprintf("%dx%dx%dx%d_k%d_out%d", c.b, c.h, c.w, c.c, c.k, c.co), func(t *testing.T) {
			x := tensors.FromFlatDataAndDimensions(randn(rng, c.b*c.h*c.w*c.c), c.b, c.h, c.w, c.c)
			k := tensors.FromFlatDataAndDimensions(randn(rng, c.k*c.k*c.c*c.co), c.k, c.k, c.c, c.co)
			r := tensors.FromFlatDataAndDimensions(randn(rng, c.b*c.h/2*c.w/2*c.co), c.b, c.h/2, c.w/2, c.co)
			out := exec(t, be, func(x, k, r *graph.Node) []*graph.Node {
				ours := graph.ReduceAllSum(graph.Mul(r, graph.Sin(maxPool2BatchFirst(conv2DBatchFirst(x, k)))))
				native := graph.ReduceAllSum(graph.Mul(r, graph.Sin(graph.MaxPool(graph.Convolve(x, k).Strides(1).PadSame().Done()).Window(2).Done())))
				return append(graph.Gradient(ours, x, k), graph.Gradient(native, x, k)...)
			}, x, k, r)
			assertClose(t, "dL/dx vs native", out[0], out[2], 1e-9)
			assertClose(t, "dL/dkernel vs native", out[1], out[3], 1e-9)
		})
	}
}

// conv2DBatchFirst returns the convolution of x, shape [batch, H, W, C], with kernel, shape
// [k, k, C, Cout] (k odd), at stride 1 with zero "same" padding: shape [batch, H, W, Cout].
// It is GoMLX's Convolve(x, kernel).Strides(1).PadSame() computed by im2col, so that its
// gradient exists on every backend. (GoMLX v0.26's Convolve needs the explicit Strides(1)
// on the pure-Go backend, which rejects the default empty strides.)
func conv2DBatchFirst(x, kernel *graph.Node) *graph.Node {
	if x.Rank() != 4 {
		panic(fmt.Sprintf("conv2DBatchFirst: want x of shape [batch, H, W, C], got %s", x.Shape()))
	}
	return graph.TransposeAllAxes(conv2D(graph.TransposeAllAxes(x, 1, 2, 0, 3), kernel, 1, false), 2, 0, 1, 3)
}

// maxPool2BatchFirst returns the maximum over 2×2 windows at stride 2 of x, shape [batch, H, W, C]
// with H and W even: shape [batch, H/2, W/2, C]. It is GoMLX's MaxPool(x).Window(2)
// computed as Reshape and ReduceMax, whose gradient exists on every backend.
func maxPool2BatchFirst(x *graph.Node) *graph.Node {
	if x.Rank() != 4 {
		panic(fmt.Sprintf("maxPool2BatchFirst: want x of shape [batch, H, W, C], got %s", x.Shape()))
	}
	return graph.TransposeAllAxes(maxPool2SpatialMajor(graph.TransposeAllAxes(x, 1, 2, 0, 3)), 2, 0, 1, 3)
}
