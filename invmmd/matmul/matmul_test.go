package matmul

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
		compareLossAndGradients(t, b, fmt.Sprintf("MatMul %v", sz), []*tensors.Tensor{mk(sz.m, sz.k), mk(sz.k, sz.n)},
			func(in []*graph.Node) *graph.Node { return MatMul(graph.Tanh(in[0]), in[1]) },
			func(in []*graph.Node) *graph.Node { return graph.Dot(graph.Tanh(in[0]), in[1]) })
	}
}

// TestAffineAndVecMatchGoMLX checks value and gradients (with respect to x, w and b) of
// Affine and Vec against GoMLX's differentiated Dot, Add and ReduceSum, at a size whose
// weight gradient is one product, the simulation MLP's hidden layer (2000 rows, 64×64) and a
// size that takes the chunked weight gradient.
func TestAffineAndVecMatchGoMLX(t *testing.T) {
	be, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	mk := func(dims ...int) *tensors.Tensor {
		n := 1
		for _, d := range dims {
			n *= d
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return tensors.FromFlatDataAndDimensions(v, dims...)
	}
	for _, sz := range []struct{ m, k, n int }{{7, 5, 3}, {2000, 64, 64}, {3 * chunkRows, 3, 2}} {
		x, w, b := mk(sz.m, sz.k), mk(sz.k, sz.n), mk(sz.n)
		compareLossAndGradients(t, be, fmt.Sprintf("Affine %v", sz), []*tensors.Tensor{x, w, b},
			func(in []*graph.Node) *graph.Node { return Affine(graph.Tanh(in[0]), in[1], in[2]) },
			func(in []*graph.Node) *graph.Node {
				return graph.Add(graph.Dot(graph.Tanh(in[0]), in[1]), graph.Reshape(in[2], 1, sz.n))
			})
		v := mk(sz.k)
		compareLossAndGradients(t, be, fmt.Sprintf("Vec %v", sz), []*tensors.Tensor{x, v},
			func(in []*graph.Node) *graph.Node { return Vec(graph.Tanh(in[0]), in[1]) },
			func(in []*graph.Node) *graph.Node {
				return graph.ReduceSum(graph.Mul(graph.Tanh(in[0]), graph.Reshape(in[1], 1, sz.k)), 1)
			})
	}
}

// compareLossAndGradients evaluates the loss Σ sin(y)·y of y = ours(inputs) and of
// y = theirs(inputs), and the loss's gradients with respect to every input, and fails when
// any differs by more than 1e-10 relative (float64: only the order of sums differs).
func compareLossAndGradients(t *testing.T, be backends.Backend, what string, inputs []*tensors.Tensor, ours, theirs func([]*graph.Node) *graph.Node) {
	t.Helper()
	run := func(f func([]*graph.Node) *graph.Node) []*tensors.Tensor {
		e, err := graph.NewExec(be, func(in []*graph.Node) []*graph.Node {
			y := f(in)
			l := graph.ReduceAllSum(graph.Mul(graph.Sin(y), y))
			return append([]*graph.Node{l}, graph.Gradient(l, in...)...)
		})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Finalize()
		args := make([]any, len(inputs))
		for i, v := range inputs {
			args[i] = v
		}
		out, err := e.Exec(args...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return out
	}
	a, c := run(ours), run(theirs)
	for k := range a {
		av, cv := tensors.MustCopyFlatData[float64](a[k]), tensors.MustCopyFlatData[float64](c[k])
		if len(av) != len(cv) {
			t.Fatalf("%s: output %d has %d values, GoMLX's %d", what, k, len(av), len(cv))
		}
		for i := range av {
			if math.Abs(av[i]-cv[i]) > 1e-10*math.Max(1, math.Abs(cv[i])) {
				t.Fatalf("%s: output %d (0: loss, then the gradients) element %d: %v, GoMLX gives %v", what, k, i, av[i], cv[i])
			}
		}
	}
}
