package models

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/invmmd/invmmd/invmmd/backend"
)

// TestFeaturesMatchLogit checks FeatureNet for the MLP and the CNNs, in one tower and the
// default two: the features have the penultimate layer's width, the logits Features
// returns equal Logit's bit for bit (same variables, same towers), and for the MLP the
// features are the last hidden layer of the plain float64 forward pass.
func TestFeaturesMatchLogit(t *testing.T) {
	be, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		net   FeatureNet
		shape []int // one row's input shape
		width int
	}{
		{"mlp", MLP{Hidden: []int{5, 4}, Seed: 3, Towers: 1}, []int{3}, 4},
		{"mlp/towers", MLP{Hidden: []int{5, 4}, Seed: 3}, []int{3}, 4},
		{"mlp/no hidden", MLP{Seed: 3}, []int{3}, 3},
		{"strided cnn", StridedCNN(2), []int{8, 8, 1}, 2 * 2 * 16},
		{"cnn/hidden", CNN{Channels: []int{4}, Kernel: 3, Hidden: 6, Seed: 2, Towers: 1}, []int{4, 4, 2}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const b = 6
			size := 1
			for _, d := range tc.shape {
				size *= d
			}
			rng := rand.New(rand.NewPCG(5, 5))
			x := make([]float32, b*size)
			for i := range x {
				x[i] = float32(2*rng.Float64() - 1)
			}
			xt := tensors.FromFlatDataAndDimensions(x, append([]int{b}, tc.shape...)...)
			ctx := context.New()
			e, err := context.NewExec(be, ctx, func(ctx *context.Context, x *graph.Node) []*graph.Node {
				f, l := tc.net.Features(ctx, x)
				return []*graph.Node{f, l, tc.net.Logit(ctx, x)}
			})
			if err != nil {
				t.Fatal(err)
			}
			out, err := e.Exec(xt)
			if err != nil {
				t.Fatal(err)
			}
			if d := out[0].Shape().Dimensions; len(d) != 2 || d[0] != b || d[1] != tc.width {
				t.Fatalf("features of shape %v, want [%d, %d]", d, b, tc.width)
			}
			fl, l := tensors.MustCopyFlatData[float32](out[1]), tensors.MustCopyFlatData[float32](out[2])
			for i := range l {
				if fl[i] != l[i] {
					t.Fatalf("row %d: Features' logit %v, Logit %v", i, fl[i], l[i])
				}
			}
			if m, ok := tc.net.(MLP); ok && len(m.Hidden) > 0 {
				vars := variables(t, ctx)
				xs := make([]float64, len(x))
				for i, v := range x {
					xs[i] = float64(v)
				}
				in := size
				for k, w := range m.Hidden {
					xs, in = refDense(vars, xs, b, in, fmt.Sprintf("/hidden%d", k), w, true), w
				}
				got := tensors.MustCopyFlatData[float32](out[0])
				g := make([]float64, len(got))
				for i, v := range got {
					g[i] = float64(v)
				}
				assertClose(t, "features", g, xs, 1e-5)
			}
		})
	}
}
