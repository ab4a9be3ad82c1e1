// Package models holds the networks of the experiments: the model h and the auxiliary
// models G (missingness) and m (nuisance regression). Each network maps a batch of rows to
// one logit per row.
//
// The layers are written for the pure-Go backend: dense layers use matmul.Affine, whose
// gradients are two matrix products, the MLP's one-output layer matmul.Vec (the CNNs' an
// element-wise product and a sum), convolutions are im2col products (conv.go), the CNNs split a batch into
// weight-sharing towers that the backend runs concurrently, and variables are initialised in
// Go from a seed, so the same seed gives the same network on every backend.
package models

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/invmmd/invmmd/invmmd/matmul"
)

// Net is a network with one logit per row.
type Net interface {
	// Logit builds the network's graph for a batch x of shape [batch, features...] and
	// returns the logits, shape [batch]. Its variables live in ctx's current scope.
	Logit(ctx *context.Context, x *Node) *Node
	// Describe names the architecture in one line, for result files.
	Describe() string
}

// FeatureNet is a Net that also exposes its penultimate layer, the representation its
// output layer reads: the layer that an invariance penalty on features acts on (DomainBed's
// MMD penalises its featurizer's output; train.Config.Represent selects it). Its width d is
// the second dimension of the features' shape (the last hidden width of an MLP, the
// flattened convolution output or the dense hidden width of a CNN).
type FeatureNet interface {
	Net
	// Features builds the network's graph for a batch x, as Logit does, and returns its
	// penultimate layer, shape [batch, d], and the logits computed from it, shape [batch],
	// equal to what Logit returns for the same variables.
	Features(ctx *context.Context, x *Node) (features, logit *Node)
}

// Init draws the initial values of a variable with the given fan-in and fan-out.
type Init func(rng *rand.Rand, fanIn, fanOut, size int) []float32

// HeUniform draws from U(−√(6/fanIn), √(6/fanIn)), the initialisation for ReLU layers
// (He et al. 2015, in its uniform form).
func HeUniform(rng *rand.Rand, fanIn, _ int, size int) []float32 {
	return uniform(rng, math.Sqrt(6/float64(fanIn)), size)
}

// GlorotUniform draws from U(−√(6/(fanIn+fanOut)), +), for linear and sigmoid layers
// (Glorot & Bengio 2010).
func GlorotUniform(rng *rand.Rand, fanIn, fanOut, size int) []float32 {
	return uniform(rng, math.Sqrt(6/float64(fanIn+fanOut)), size)
}

// uniform draws size values from U(−a, a).
func uniform(rng *rand.Rand, a float64, size int) []float32 {
	v := make([]float32, size)
	for i := range v {
		v[i] = float32((2*rng.Float64() - 1) * a)
	}
	return v
}

// ZeroInit initialises to 0.
func ZeroInit(_ *rand.Rand, _, _ int, size int) []float32 { return make([]float32, size) }

// Param returns the value, in graph g, of the float32 variable name in ctx's scope with the
// given dimensions. On first use it is created with init, drawing from a generator seeded
// by seed, the scope and the name: the same seed gives the same values whatever the order
// in which variables are created.
func Param(ctx *context.Context, g *Graph, seed uint64, name string, init Init, fanIn, fanOut int, dims ...int) *Node {
	if v := ctx.GetVariableByScopeAndName(ctx.Scope(), name); v != nil {
		return v.ValueGraph(g)
	}
	size := 1
	for _, d := range dims {
		size *= d
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(ctx.Scope() + "/" + name))
	_, _ = h.Write(binary.LittleEndian.AppendUint64(nil, seed))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	t := tensors.FromFlatDataAndDimensions(init(rng, fanIn, fanOut, size), dims...)
	return ctx.VariableWithValue(name, t).ValueGraph(g)
}

// Dense returns x·W + b for x of shape [batch, in], with W [in, out] and b [out] variables
// in the scope name of ctx: matmul.Affine, whose weight and bias gradients are one product.
// A layer with one output (the CNNs' logit) is an element-wise product with W's column and
// a sum, since the pure-Go backend would pad a one-column product to 16; the CNNs keep it
// (their committed results were computed with it) where the MLP uses DenseLogit.
func Dense(ctx *context.Context, seed uint64, name string, x *Node, out int, init Init) *Node {
	if x.Rank() != 2 {
		panic(fmt.Sprintf("models.Dense: want x of shape [batch, in], got %s", x.Shape()))
	}
	in := x.Shape().Dimensions[1]
	w, b := denseParams(ctx.In(name), x.Graph(), seed, init, in, out)
	if out == 1 {
		batch := x.Shape().Dimensions[0]
		return Add(Reshape(ReduceSum(Mul(x, Reshape(w, 1, in)), 1), batch, 1), Reshape(b, 1, 1))
	}
	return matmul.Affine(x, w, b)
}

// DenseLogit is Dense with one output, returned as shape [batch]: the same variables,
// computed as matmul.Vec and b added as a scalar, which avoids the index-iterated
// broadcasts and reductions of Dense's element-wise form on the pure-Go backend
// (BENCHMARKS.md gives the measured effect on the simulation's MLP).
func DenseLogit(ctx *context.Context, seed uint64, name string, x *Node, init Init) *Node {
	if x.Rank() != 2 {
		panic(fmt.Sprintf("models.DenseLogit: want x of shape [batch, in], got %s", x.Shape()))
	}
	in := x.Shape().Dimensions[1]
	w, b := denseParams(ctx.In(name), x.Graph(), seed, init, in, 1)
	return Add(matmul.Vec(x, Reshape(w, in)), Reshape(b))
}

// denseParams returns a dense layer's variables in ctx's scope: weights [in, out] drawn by
// init and biases [out] starting at 0.
func denseParams(ctx *context.Context, g *Graph, seed uint64, init Init, in, out int) (w, b *Node) {
	return Param(ctx, g, seed, "weights", init, in, out, in, out), Param(ctx, g, seed, "biases", ZeroInit, in, out, out)
}

// MLP is a multilayer perceptron with ReLU hidden layers and a linear output: the
// simulation's and the clinical experiment's h, G and m.
type MLP struct {
	Hidden []int  // widths of the hidden layers, e.g. [64, 64]
	Seed   uint64 // seeds the initial weights
	Towers int    // weight-sharing branches of a batch, as CNN.Towers (0 means DefaultTowers)
}

// Logit implements Net: x of shape [batch, d] (or [batch, ...], flattened) to [batch].
func (m MLP) Logit(ctx *context.Context, x *Node) *Node {
	batch := x.Shape().Dimensions[0]
	return inTowers(Reshape(x, batch, -1), m.Towers, func(x *Node) *Node {
		return DenseLogit(ctx, m.Seed, "output", m.hidden(ctx, x), GlorotUniform)
	})
}

// hidden applies the MLP's hidden layers to x [batch, d].
func (m MLP) hidden(ctx *context.Context, x *Node) *Node {
	for k, w := range m.Hidden {
		x = relu(Dense(ctx, m.Seed, fmt.Sprintf("hidden%d", k), x, w, HeUniform))
	}
	return x
}

// Features implements FeatureNet: the last hidden layer's ReLU outputs, [batch,
// Hidden[len(Hidden)−1]] (the input itself, flattened, for an MLP without hidden layers),
// and the logits that Logit computes from them, in one pass with the same towers.
func (m MLP) Features(ctx *context.Context, x *Node) (features, logit *Node) {
	batch := x.Shape().Dimensions[0]
	out := inTowersN(Reshape(x, batch, -1), m.Towers, func(x *Node) []*Node {
		f := m.hidden(ctx, x)
		return []*Node{f, DenseLogit(ctx, m.Seed, "output", f, GlorotUniform)}
	})
	return out[0], out[1]
}

// inTowers returns f applied to x in towers: x's rows (axis 0) split into towers equal
// parts (0 means DefaultTowers; a batch that the number does not divide uses its largest
// divisor below it), f applied to each part with the same variables, and the parts'
// outputs (axis 0 first) concatenated back in order. x must be an input of the network,
// not differentiated (its slices are copies). The pure-Go backend runs most operations on
// one core but independent operations concurrently, so the branches keep every core busy;
// the function computed is the same, only the order of float32 sums in the weight
// gradients changes.
func inTowers(x *Node, towers int, f func(x *Node) *Node) *Node {
	return inTowersN(x, towers, func(x *Node) []*Node { return []*Node{f(x)} })[0]
}

// inTowersN is inTowers for an f with several outputs (each with the rows on axis 0): the
// towers' k-th outputs are concatenated in order into the k-th result.
func inTowersN(x *Node, towers int, f func(x *Node) []*Node) []*Node {
	batch := x.Shape().Dimensions[0]
	if towers <= 0 {
		towers = DefaultTowers
	}
	for batch%towers != 0 {
		towers--
	}
	if towers == 1 {
		return f(x)
	}
	per := batch / towers
	var parts [][]*Node
	for t := 0; t < towers; t++ {
		for k, o := range f(Slice(x, AxisRange(t*per, (t+1)*per))) {
			if t == 0 {
				parts = append(parts, nil)
			}
			parts[k] = append(parts[k], o)
		}
	}
	out := make([]*Node, len(parts))
	for k, p := range parts {
		out[k] = Concatenate(p, 0)
	}
	return out
}

// Describe implements Net.
func (m MLP) Describe() string { return fmt.Sprintf("MLP %v ReLU, linear output", m.Hidden) }

// Heads builds the MLP's hidden layers for x and k linear outputs instead of one logit,
// shape [batch, k]: the auxiliary model of a nuisance that is not binary (k class logits of
// a categorical Z; the mean and log-variance of a normal for a continuous one). Its output
// layer's variables live in the scope "heads", so a network's Logit and Heads never share
// an output layer.
func (m MLP) Heads(ctx *context.Context, x *Node, k int) *Node {
	batch := x.Shape().Dimensions[0]
	return inTowers(Reshape(x, batch, -1), m.Towers, func(x *Node) *Node {
		return Dense(ctx, m.Seed, "heads", m.hidden(ctx, x), k, GlorotUniform)
	})
}

// MultiNet is a network with k outputs per row (MLP.Heads).
type MultiNet interface {
	Heads(ctx *context.Context, x *Node, k int) *Node
	Describe() string
}

// BernoulliNLL returns the mean negative log-likelihood of labels y (0 or 1, shape [batch])
// under Bernoulli(sigmoid(logit)), computed stably as softplus(logit) − y·logit.
func BernoulliNLL(logit, y *Node) *Node {
	return ReduceAllMean(Sub(Softplus(logit), Mul(y, logit)))
}

// WeightedSoftmaxNLL returns the mean negative log-likelihood of one-hot targets onehot
// ([batch, K]) under softmax(logits) ([batch, K]), over the rows with weight w ([batch]; the
// rows where a categorical Z is observed), normalised by Σw: the loss of a categorical
// nuisance's model m. It is computed stably as logsumexp(logits) − Σ_k onehot_k·logits_k.
func WeightedSoftmaxNLL(logits, onehot, w *Node) *Node {
	mx := StopGradient(ReduceAndKeep(logits, ReduceMax, 1))
	lse := Add(Log(ReduceSum(Exp(Sub(logits, mx)), 1)), Reshape(mx, -1))
	return weightedMean(Sub(lse, ReduceSum(Mul(onehot, logits), 1)), w)
}

// WeightedNormalNLL returns the mean negative log-likelihood of targets z ([batch, q]) under
// independent normals whose means and log-variances are out's first and last q columns
// (out [batch, 2q]), over the rows with weight w ([batch]), normalised by Σw:
// Σ_k ½(log 2π + log s_k² + (z_k − μ_k)²/s_k²). It is the loss of a continuous or vector
// nuisance's model, whose normal predictive gives m(W) = E[ψ(Z) | X, Y] in closed form. The
// two halves are taken by products with constant selection matrices (a slice's gradient
// needs an operation the pure-Go backend lacks).
func WeightedNormalNLL(out, z, w *Node) *Node {
	mean, logVar := SplitNormal(out)
	d := Sub(z, mean)
	per := MulScalar(Add(AddScalar(logVar, math.Log(2*math.Pi)), Mul(Square(d), Exp(Neg(logVar)))), 0.5)
	return weightedMean(ReduceSum(per, 1), w)
}

// weightedMean returns Σ w·nll / max(Σ w, 1) of per-row values nll and weights w ([batch]).
func weightedMean(nll, w *Node) *Node {
	return Div(ReduceAllSum(Mul(w, nll)), Max(ReduceAllSum(w), OnesLike(ReduceAllSum(w))))
}

// SplitNormal returns the means (first q columns) and log-variances (last q columns) of a
// normal head's output [batch, 2q], each [batch, q], through products with constant 0/1
// selection matrices.
func SplitNormal(out *Node) (mean, logVar *Node) {
	g := out.Graph()
	k := out.Shape().Dimensions[1]
	q := k / 2
	sel := func(offset int) *Node {
		m := make([]float32, k*q)
		for j := 0; j < q; j++ {
			m[(offset+j)*q+j] = 1
		}
		t := tensors.FromFlatDataAndDimensions(m, k, q)
		return ConvertDType(Const(g, t), out.DType())
	}
	return matmul.MatMul(out, sel(0)), matmul.MatMul(out, sel(q))
}
