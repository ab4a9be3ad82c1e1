package models

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
)

// refMLPLogits is a plain float64 forward pass of an MLP with the given hidden widths and
// variables on x [b, in].
func refMLPLogits(hidden []int, vars map[string][]float64, x []float64, b, in int) []float64 {
	for k, w := range hidden {
		x, in = refDense(vars, x, b, in, fmt.Sprintf("/hidden%d", k), w, true), w
	}
	return refDense(vars, x, b, in, "/output", 1, false)
}

// TestMLPMatchesGoReference checks the MLP's logits against a plain Go forward pass and
// the gradient of its loss with respect to every variable (the hidden layers' weights and
// biases, through matmul.Affine, and the output's, through DenseLogit) against central
// finite differences of that forward pass, with the batch in one, two (the default) and
// three towers, and with four asked for (which do not divide the batch: three are used).
func TestMLPMatchesGoReference(t *testing.T) {
	const b, in = 6, 3
	rng := rand.New(rand.NewPCG(13, 13))
	x := make([]float64, b*in)
	for i := range x {
		x[i] = float64(float32(2*rng.Float64() - 1))
	}
	y := []float64{0, 1, 1, 0, 1, 0}
	for _, towers := range []int{1, 0, 3, 4} { // 4 does not divide the batch of 6: 3 towers
		t.Run(fmt.Sprintf("towers=%d", towers), func(t *testing.T) {
			m := MLP{Hidden: []int{5, 4}, Seed: 3, Towers: towers}
			ctx := context.New()
			logits, loss, grads := lossAndGrads(t, m, ctx, x, y, b, true)
			vars := variables(t, ctx)
			if len(vars) != 6 {
				t.Fatalf("%d variables, want 6 (weights and biases of hidden0, hidden1, output)", len(vars))
			}
			want := refMLPLogits(m.Hidden, vars, x, b, in)
			assertClose(t, "logits", logits, want, 1e-5)
			assertClose(t, "loss", []float64{loss}, []float64{refNLL(want, y)}, 1e-5)
			for name, val := range vars {
				fd := finiteDiff(val, func(v []float64) float64 {
					saved := vars[name]
					vars[name] = v
					defer func() { vars[name] = saved }()
					return refNLL(refMLPLogits(m.Hidden, vars, x, b, in), y)
				})
				if norm(fd) < 1e-3 {
					t.Fatalf("gradient of %s is %.3g, too small to test; change the test's inputs", name, norm(fd))
				}
				if d, n := dist(grads[name], fd), norm(fd); d > 1e-5*n {
					t.Errorf("gradient of %s: distance %.3g from finite differences (norm %.3g)\ngot  %.6g\nwant %.6g", name, d, n, grads[name], fd)
				}
			}
		})
	}
}

// BenchmarkMLPTrainStep measures one training step (forward, backward and an Adam update,
// as package train runs it) of the simulation's MLP [64, 64] on 2 features at its batch of
// 2000 rows, in one tower and in the default two, on the backend in force (GOMLX_BACKEND;
// pure Go by default).
func BenchmarkMLPTrainStep(b *testing.B) {
	const batch, in = 2000, 2
	for _, towers := range []int{1, 0} {
		b.Run(fmt.Sprintf("towers=%d", towers), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			xs, ys := make([]float32, batch*in), make([]float32, batch)
			for i := range xs {
				xs[i] = float32(rng.NormFloat64())
			}
			for i := range ys {
				ys[i] = float32(rng.IntN(2))
			}
			benchTrainStep(b, MLP{Hidden: []int{64, 64}, Seed: 1, Towers: towers},
				tensors.FromFlatDataAndDimensions(xs, batch, in), tensors.FromFlatDataAndDimensions(ys, batch))
		})
	}
}

// benchTrainStep measures one training step of net on the batch x with labels y (forward,
// backward and an Adam update, as package train runs it) on the backend in force, after
// one step that compiles the graph, whose time it logs.
func benchTrainStep(b *testing.B, net Net, x, y *tensors.Tensor) {
	be := sharedBackend(b)
	ctx := context.New()
	opt := optimizers.Adam().Done()
	e, err := context.NewExec(be, ctx, func(ctx *context.Context, x, y *graph.Node) *graph.Node {
		loss := BernoulliNLL(net.Logit(ctx, x), y)
		opt.UpdateGraph(ctx, x.Graph(), loss)
		return loss
	})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Finalize()
	step := func() {
		if _, err := e.Exec(x, y); err != nil {
			b.Fatal(err)
		}
	}
	t0 := time.Now()
	step() // compiles the graph
	b.Logf("batch %d on %s: first step (with compilation) %v", x.Shape().Dimensions[0], be.Name(), time.Since(t0))
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
