package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// testCNN is a CNN small enough for finite differences, with every kind of layer.
var testCNN = CNN{Input: []int{8, 4, 2}, Channels: []int{3, 4}, Kernel: 3, Hidden: 5, Seed: 11}

// variables returns the values of ctx's variables by scope and name.
func variables(t testing.TB, ctx *context.Context) map[string][]float64 {
	t.Helper()
	out := map[string][]float64{}
	for v := range ctx.IterVariables() {
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		f32 := tensors.MustCopyFlatData[float32](val)
		f := make([]float64, len(f32))
		for i, x := range f32 {
			f[i] = float64(x)
		}
		out[v.ScopeAndName()] = f
	}
	return out
}

// refCNNLogits is a plain float64 forward pass of m with the given variables on x
// [b, H, W, C] (row-major).
func refCNNLogits(m CNN, vars map[string][]float64, x []float64, b int) []float64 {
	h, w, c := m.Input[0], m.Input[1], m.Input[2]
	for k, co := range m.Channels {
		s := m.stride(k)
		x = refConvStrided(x, b, h, w, c, vars[fmt.Sprintf("/conv%d/weights", k)], m.Kernel, co, s)
		h, w, c = (h-1)/s+1, (w-1)/s+1, co
		bias := vars[fmt.Sprintf("/conv%d/biases", k)]
		for i := range x {
			x[i] += bias[i%co]
		}
		if s == 1 && h%2 == 0 && w%2 == 0 {
			x = refPool(x, b, h, w, co)
			h, w = h/2, w/2
		}
		for i := range x {
			x[i] = math.Max(x[i], 0)
		}
	}
	in := h * w * c
	if m.Hidden > 0 {
		x, in = refDense(vars, x, b, in, "/hidden", m.Hidden, true), m.Hidden
	}
	return refDense(vars, x, b, in, "/output", 1, false)
}

// refDense is a plain float64 dense layer on x [b, in] with the variables scope/weights
// [in, out] and scope/biases [out], followed by a ReLU when relu is set.
func refDense(vars map[string][]float64, x []float64, b, in int, scope string, out int, relu bool) []float64 {
	wt, bias := vars[scope+"/weights"], vars[scope+"/biases"]
	y := make([]float64, b*out)
	for n := 0; n < b; n++ {
		for o := 0; o < out; o++ {
			s := bias[o]
			for i := 0; i < in; i++ {
				s += x[n*in+i] * wt[i*out+o]
			}
			if relu {
				s = math.Max(s, 0)
			}
			y[n*out+o] = s
		}
	}
	return y
}

// refNLL is the mean Bernoulli negative log-likelihood of labels y under the logits.
func refNLL(logits, y []float64) float64 {
	s := 0.0
	for i, l := range logits {
		s += math.Max(l, 0) + math.Log1p(math.Exp(-math.Abs(l))) - y[i]*l
	}
	return s / float64(len(logits))
}

// lossAndGrads runs m on x (flattened [b, H·W·C]) with labels y and returns the logits,
// the loss and, when grads is set, its gradient for every variable (by scope and name).
func lossAndGrads(t *testing.T, m Net, ctx *context.Context, x, y []float64, b int, grads bool) ([]float64, float64, map[string][]float64) {
	t.Helper()
	var names []string
	e, err := context.NewExec(sharedBackend(t), ctx, func(ctx *context.Context, x, y *graph.Node) []*graph.Node {
		logit := m.Logit(ctx, x)
		loss := BernoulliNLL(logit, y)
		var nodes []*graph.Node
		names = names[:0]
		for v := range ctx.IterVariables() {
			if !grads {
				break
			}
			names = append(names, v.ScopeAndName())
			nodes = append(nodes, v.ValueGraph(x.Graph()))
		}
		return append([]*graph.Node{graph.ConvertDType(logit, dtypes.Float64), graph.ConvertDType(loss, dtypes.Float64)},
			graph.Gradient(loss, nodes...)...)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Finalize()
	xs := make([]float32, len(x))
	for i := range x {
		xs[i] = float32(x[i])
	}
	ys := make([]float32, len(y))
	for i := range y {
		ys[i] = float32(y[i])
	}
	out, err := e.Exec(tensors.FromFlatDataAndDimensions(xs, b, len(x)/b), tensors.FromFlatDataAndDimensions(ys, b))
	if err != nil {
		t.Fatal(err)
	}
	gs := map[string][]float64{}
	for k, name := range names {
		g32 := tensors.MustCopyFlatData[float32](out[2+k])
		g := make([]float64, len(g32))
		for i, v := range g32 {
			g[i] = float64(v)
		}
		gs[name] = g
	}
	return tensors.MustCopyFlatData[float64](out[0]), tensors.MustCopyFlatData[float64](out[1])[0], gs
}

// TestCNNMatchesGoReference checks the CNN's logits against a plain Go forward pass and
// the gradient of its loss with respect to every variable against central finite
// differences of that forward pass, for both implementations of the convolution (the
// native one's gradients only where the backend has them: XLA), with the batch in one,
// two and four towers, and with a strided first layer.
func TestCNNMatchesGoReference(t *testing.T) {
	const b = 4
	rng := rand.New(rand.NewPCG(12, 12))
	x := make([]float64, b*8*4*2)
	for i := range x {
		x[i] = float64(float32(rng.Float64()))
	}
	y := []float64{0, 1, 1, 0}
	oneTower, fourTowers, strided := testCNN, testCNN, testCNN
	oneTower.Towers, fourTowers.Towers = 1, 4
	strided.Strides = []int{2} // 8×4 → 4×2, then conv, pool → 2×1
	cases := []struct {
		name string
		net  CNN
		impl ConvImpl
	}{
		{"im2col", testCNN, ConvIm2col}, {"im2col_one_tower", oneTower, ConvIm2col}, {"im2col_four_towers", fourTowers, ConvIm2col}, {"im2col_strided", strided, ConvIm2col},
		{"auto", testCNN, ConvAuto}, {"batch_last", testCNN, ConvBatchLast}, {"batch_last_one_tower", oneTower, ConvBatchLast}, {"batch_last_strided", strided, ConvBatchLast},
		{"native", testCNN, ConvNative}, {"native_strided", strided, ConvNative},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, impl := tc.net, tc.impl
			m.Conv = impl
			ctx := context.New()
			withGrads := impl != ConvNative || NativeConvGradients(sharedBackend(t)) // auto: batch-last here, native (with gradients) on XLA
			logits, loss, grads := lossAndGrads(t, m, ctx, x, y, b, withGrads)
			vars := variables(t, ctx)
			want := refCNNLogits(m, vars, x, b)
			assertClose(t, "logits", logits, want, 1e-5)
			assertClose(t, "loss", []float64{loss}, []float64{refNLL(want, y)}, 1e-5)
			if len(vars) != 8 {
				t.Fatalf("%d variables, want 8 (weights and biases of conv0, conv1, hidden, output)", len(vars))
			}
			if !withGrads {
				t.Logf("forward values checked; backend %q cannot differentiate the native convolution", sharedBackend(t).Name())
				return
			}
			for name, val := range vars {
				fd := finiteDiff(val, func(v []float64) float64 {
					saved := vars[name]
					vars[name] = v
					defer func() { vars[name] = saved }()
					return refNLL(refCNNLogits(m, vars, x, b), y)
				})
				// The graph runs in float32: compare the gradient as a whole, relative to its norm.
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

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

func norm(a []float64) float64 { return dist(a, make([]float64, len(a))) }

// TestCNNSeededInit checks that the seed alone determines the initial variables.
func TestCNNSeededInit(t *testing.T) {
	x := make([]float64, 2*8*4*2)
	y := []float64{0, 1}
	init := func(seed uint64) map[string][]float64 {
		m := testCNN
		m.Seed = seed
		ctx := context.New()
		lossAndGrads(t, m, ctx, x, y, 2, false)
		return variables(t, ctx)
	}
	a, b, c := init(5), init(5), init(6)
	for name := range a {
		if !slices.Equal(a[name], b[name]) {
			t.Fatalf("%s differs between two networks with seed 5", name)
		}
		if strings.HasSuffix(name, "weights") && slices.Equal(a[name], c[name]) {
			t.Fatalf("%s is the same with seeds 5 and 6", name)
		}
	}
}

// TestConstructors checks the parameter counts, output shape and description of the
// networks the experiments use, on 28×28 one-channel images.
func TestConstructors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		net    CNN
		params int
		desc   []string
	}{
		// conv0 3·3·1·16+16, conv1 3·3·16·32+32, output 7·7·32+1.
		{"DefaultCNN", DefaultCNN(1), 160 + 4640 + 1569, []string{"3×3 conv 16, 2×2 max-pool", "3×3 conv 32"}},
		// conv0 3·3·1·8+8, conv1 3·3·8·16+16, output 7·7·16+1.
		{"PooledCNN", PooledCNN(1), 80 + 1168 + 785, []string{"2×2 average pool", "3×3 conv 8"}},
		{"StridedCNN", StridedCNN(1), 80 + 1168 + 785, []string{"3×3 conv 8 stride 2", "3×3 conv 16 stride 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.net
			if m.Input == nil {
				m.Input = []int{28, 28, 1}
			}
			ctx := context.New()
			logits, _, _ := lossAndGrads(t, m, ctx, make([]float64, 3*28*28), []float64{0, 1, 0}, 3, false)
			if len(logits) != 3 {
				t.Fatalf("%d logits for a batch of 3", len(logits))
			}
			n := 0
			for _, v := range variables(t, ctx) {
				n += len(v)
			}
			if n != tc.params {
				t.Fatalf("%d parameters, want %d", n, tc.params)
			}
			for _, want := range tc.desc {
				if d := m.Describe(); !strings.Contains(d, want) {
					t.Fatalf("Describe() = %q, want it to contain %q", d, want)
				}
			}
		})
	}
}

// BenchmarkCNNTrainStep measures one training step (forward, backward and an Adam update,
// as package train runs it) of DefaultCNN, PooledCNN and StridedCNN on 28×28 images, each
// also with the spatial-major im2col (ConvIm2col) to compare with the default path, at batch
// 256 and at the paper's batch 1500, on the backend in force (GOMLX_BACKEND; pure Go by
// default).
func BenchmarkCNNTrainStep(b *testing.B) {
	nets := []struct {
		name string
		net  CNN
	}{{"default", DefaultCNN(1)}, {"pooled", PooledCNN(1)}, {"strided", StridedCNN(1)}}
	for _, nt := range nets[:3] { // each network also with the spatial-major im2col, to compare
		nt.name += "-im2col"
		nt.net.Conv = ConvIm2col
		nets = append(nets, nt)
	}
	for _, nt := range nets {
		for _, batch := range []int{256, 1500} {
			b.Run(fmt.Sprintf("net=%s/batch=%d", nt.name, batch), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				xs := make([]float32, batch*28*28)
				for i := range xs {
					xs[i] = rng.Float32()
				}
				ys := make([]float32, batch)
				for i := range ys {
					ys[i] = float32(rng.IntN(2))
				}
				benchTrainStep(b, nt.net, tensors.FromFlatDataAndDimensions(xs, batch, 28, 28, 1), tensors.FromFlatDataAndDimensions(ys, batch))
			})
		}
	}
}
