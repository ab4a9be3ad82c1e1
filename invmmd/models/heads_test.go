package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// refSoftmaxNLL and refNormalNLL are the losses in plain float64.
func refSoftmaxNLL(logits, onehot, w []float64, k int) float64 {
	s, sw := 0.0, 0.0
	for i := range w {
		row := logits[i*k : (i+1)*k]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		lse := 0.0
		for _, v := range row {
			lse += math.Exp(v - mx)
		}
		l := math.Log(lse) + mx
		for c := 0; c < k; c++ {
			l -= onehot[i*k+c] * row[c]
		}
		s += w[i] * l
		sw += w[i]
	}
	return s / sw
}

func refNormalNLL(out, z, w []float64, q int) float64 {
	s, sw := 0.0, 0.0
	for i := range w {
		l := 0.0
		for c := 0; c < q; c++ {
			mu, lv := out[i*2*q+c], out[i*2*q+q+c]
			d := z[i*q+c] - mu
			l += 0.5 * (math.Log(2*math.Pi) + lv + d*d*math.Exp(-lv))
		}
		s += w[i] * l
		sw += w[i]
	}
	return s / sw
}

// TestHeadLosses checks WeightedSoftmaxNLL and WeightedNormalNLL (with SplitNormal) against
// plain float64 formulas, and their gradients against finite differences of them.
func TestHeadLosses(t *testing.T) {
	const b = 5
	rng := rand.New(rand.NewPCG(3, 1))
	w := []float64{1, 0, 1, 1, 0.5}
	for _, c := range []struct {
		name   string
		width  int // columns of out
		tw     int // columns of the target
		target func(i, k int) float64
		loss   func(out, target, w *graph.Node) *graph.Node
		ref    func(out, target []float64) float64
	}{
		{"softmax K=3", 3, 3, func(i, k int) float64 { return float64(btoi(i%3 == k)) }, WeightedSoftmaxNLL,
			func(o, y []float64) float64 { return refSoftmaxNLL(o, y, w, 3) }},
		{"normal q=2", 4, 2, func(i, k int) float64 { return rng.NormFloat64() }, WeightedNormalNLL,
			func(o, y []float64) float64 { return refNormalNLL(o, y, w, 2) }},
	} {
		out := make([]float64, b*c.width)
		for i := range out {
			out[i] = rng.NormFloat64()
		}
		target := make([]float64, b*c.tw)
		for i := 0; i < b; i++ {
			for k := 0; k < c.tw; k++ {
				target[i*c.tw+k] = c.target(i, k)
			}
		}
		e, err := graph.NewExec(sharedBackend(t), func(o, y, w *graph.Node) []*graph.Node {
			l := c.loss(o, y, w)
			return []*graph.Node{l, graph.Gradient(l, o)[0]}
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Exec(tensors.FromFlatDataAndDimensions(out, b, c.width), tensors.FromFlatDataAndDimensions(target, b, c.tw),
			tensors.FromFlatDataAndDimensions(w, b))
		if err != nil {
			t.Fatal(err)
		}
		got := tensors.MustCopyFlatData[float64](res[0])[0]
		grad := tensors.MustCopyFlatData[float64](res[1])
		want := c.ref(out, target)
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: loss %.15g, reference %.15g", c.name, got, want)
		}
		fd := finiteDiff(out, func(v []float64) float64 { return c.ref(v, target) })
		if d := dist(grad, fd); d > 1e-6*norm(fd) {
			t.Errorf("%s: gradient %v, finite differences %v", c.name, grad, fd)
		}
		e.Finalize()
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
