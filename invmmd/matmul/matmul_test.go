package matmul

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/invmmd/invmmd/invmmd/backend"
)

// TestGradientsMatchGoMLX checks value and gradients of MatMul against GoMLX's own
// differentiated product, through a non-linear loss so that dy is not constant.
func TestGradientsMatchGoMLX(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func(r, c int) *tensors.Tensor {
		d := make([]float64, r*c)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		return tensors.FromFlatDataAndDimensions(d, r, c)
	}
	for _, sz := range []struct{ m, k, n int }{{7, 5, 3}, {3 * chunkRows, 3, 2}} {
		x, w := mk(sz.m, sz.k), mk(sz.k, sz.n)
		checkAgainstGoMLX(t, b, x, w)
	}
}

// checkAgainstGoMLX compares value and gradients of MatMul with GoMLX's differentiated
// product for operands x and w (float64, so the only difference is summation order).
func checkAgainstGoMLX(t *testing.T, b backends.Backend, x, w *tensors.Tensor) {
	t.Helper()
	loss := func(mm func(a, b *graph.Node) *graph.Node) func(x, w *graph.Node) []*graph.Node {
		return func(x, w *graph.Node) []*graph.Node {
			y := mm(graph.Tanh(x), w)
			l := graph.ReduceAllSum(graph.Mul(graph.Sin(y), y))
			g := graph.Gradient(l, x, w)
			return []*graph.Node{l, g[0], g[1]}
		}
	}
	run := func(fn func(x, w *graph.Node) []*graph.Node) []*tensors.Tensor {
		e, err := graph.NewExec(b, fn)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Finalize()
		out, err := e.Exec(x, w)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	ours := run(loss(MatMul))
	theirs := run(loss(func(a, b *graph.Node) *graph.Node { return graph.Dot(a, b) }))
	for k := range ours {
		a, c := tensors.MustCopyFlatData[float64](ours[k]), tensors.MustCopyFlatData[float64](theirs[k])
		for i := range a {
			if math.Abs(a[i]-c[i]) > 1e-10*math.Max(1, math.Abs(c[i])) {
				t.Fatalf("output %d element %d: %v, GoMLX gives %v", k, i, a[i], c[i])
			}
		}
	}
}
