package models

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// ConvImpl chooses how the CNN computes its convolutions and poolings.
type ConvImpl int

const (
	// ConvAuto uses GoMLX's native convolution and max-pool where the backend can
	// differentiate them (NativeConvGradients: XLA) and ConvBatchLast elsewhere (pure Go).
	ConvAuto ConvImpl = iota
	// ConvIm2col always uses im2col (a custom-gradient matrix product, Reshape and
	// ReduceMax, activations [H, W, batch, C]), which train on every backend.
	ConvIm2col
	// ConvNative always uses GoMLX's Convolve and MaxPool; their gradients need XLA.
	ConvNative
	// ConvBatchLast is im2col with the activations laid out [H, W, C, batch]: each
	// convolution is a product batched over output pixels whose operands and gradients
	// need no transposed copies on the pure-Go backend (see conv2D). The same
	// function as ConvIm2col, up to the order of float32 sums.
	ConvBatchLast
)

// String names the implementation.
func (c ConvImpl) String() string {
	if names := [...]string{"auto", "im2col", "native", "batch-last"}; c >= 0 && int(c) < len(names) {
		return names[c]
	}
	return fmt.Sprintf("ConvImpl(%d)", int(c))
}

// CNN is a small convolutional network, the textured-MNIST experiment's h, G and m: per
// entry of Channels a k×k convolution ("same" padding) at stride Strides[k] (1 when unset),
// then, for a stride-1 layer, a 2×2 max-pool (skipped when a side is odd), and a ReLU; then
// an optional dense ReLU layer of Hidden units and a linear layer to one logit.
//
// Both implementations (ConvImpl) use the same variables, initialised from Seed, and
// compute the same function, so a network trained on one backend runs on another.
type CNN struct {
	Input []int // one image's shape [H, W, C]; nil: x must already be [batch, H, W, C]
	// InputPool, when above 1, first averages the image over InputPool×InputPool blocks
	// (28×28 → 14×14 for 2): a quarter of the convolution work, for the pure-Go backend.
	InputPool int
	Channels  []int    // output channels of each convolution, e.g. [16, 32]
	Strides   []int    // stride of each convolution; missing or 0 entries mean 1
	Kernel    int      // side of the convolution kernels, odd, e.g. 3
	Hidden    int      // width of a dense ReLU layer before the output; 0 for none
	Seed      uint64   // seeds the initial weights
	Conv      ConvImpl // how convolutions are computed; ConvAuto by default
	// Towers splits a batch into this many weight-sharing branches through the im2col
	// layers (0 means DefaultTowers; see inTowers). The native convolution ignores it.
	Towers int
}

// DefaultTowers is the number of towers a CNN uses when CNN.Towers is 0. It is a constant,
// not the number of CPUs, so that results do not depend on the machine.
const DefaultTowers = 2

// DefaultCNN returns a reference network for 28×28 grey images, the CPU-speed benchmark's
// first row (cmd/peerbench): two 3×3 convolutions with 16 and 32 channels, each followed by
// a 2×2 max-pool and a ReLU (28 → 14 → 7), and a linear layer from the 7·7·32 features to
// the logit; 6,369 parameters.
func DefaultCNN(seed uint64) CNN {
	return CNN{Input: []int{28, 28, 1}, Channels: []int{16, 32}, Kernel: 3, Seed: seed}
}

// PooledCNN is the network the textured-MNIST experiment trained before StridedCNN, kept
// as a benchmark row: the image averaged over 2×2 blocks (28 → 14), a 3×3 convolution with
// 8 channels, 2×2 max-pool and ReLU (14 → 7), a 3×3 convolution with 16 channels and ReLU,
// and a linear output; 2,033 parameters for one-channel images. Input is left unset, so
// the network also takes the auxiliary models' images with the label channel (train.WithLabel).
func PooledCNN(seed uint64) CNN {
	return CNN{InputPool: 2, Channels: []int{8, 16}, Kernel: 3, Seed: seed}
}

// StridedCNN is the network the textured-MNIST experiment trains for h, G and m: 3×3
// convolutions with 8 and 16 channels at stride 2 (28 → 14 → 7), each with a ReLU, and a
// linear output; 2,033 parameters for one-channel images. It costs about what PooledCNN
// costs but its first layer reads every pixel through learned weights instead of a fixed
// 2×2 average. Input is left unset, as for PooledCNN.
func StridedCNN(seed uint64) CNN {
	return CNN{Channels: []int{8, 16}, Strides: []int{2, 2}, Kernel: 3, Seed: seed}
}

// WideStridedCNN is StridedCNN with twice the channels (16 and 32), about four times its
// arithmetic: the capacity check of the textured-MNIST experiment (invmmd tmnist -net wide),
// which asks whether a larger h reads the digit better under the penalty.
func WideStridedCNN(seed uint64) CNN {
	return CNN{Channels: []int{16, 32}, Strides: []int{2, 2}, Kernel: 3, Seed: seed}
}

// stride returns the stride of convolution k.
func (m CNN) stride(k int) int {
	if k < len(m.Strides) && m.Strides[k] > 1 {
		return m.Strides[k]
	}
	return 1
}

// Logit implements Net: x of shape [batch, H, W, C], or [batch, H·W·C] with Input set,
// to logits of shape [batch].
func (m CNN) Logit(ctx *context.Context, x *Node) *Node {
	x = m.checkInput(x)
	if m.native(x) {
		return m.logitOf(ctx, m.hidden(ctx, m.features(ctx, x, true)))
	}
	return inTowers(x, m.Towers, func(x *Node) *Node { return m.logitOf(ctx, m.hidden(ctx, m.features(ctx, x, false))) })
}

// checkInput returns x as [batch, H, W, C] images (reshaped when Input is set), panicking
// on a shape or configuration the network cannot take.
func (m CNN) checkInput(x *Node) *Node {
	batch := x.Shape().Dimensions[0]
	if m.Input != nil {
		if len(m.Input) != 3 || x.Shape().Size() != batch*m.Input[0]*m.Input[1]*m.Input[2] {
			panic(fmt.Sprintf("models.CNN: input %s does not hold batch×%v images", x.Shape(), m.Input))
		}
		x = Reshape(x, batch, m.Input[0], m.Input[1], m.Input[2])
	}
	if x.Rank() != 4 {
		panic(fmt.Sprintf("models.CNN: want x of shape [batch, H, W, C] (or set Input), got %s", x.Shape()))
	}
	if m.Kernel < 1 || m.Kernel%2 == 0 || len(m.Channels) == 0 || len(m.Strides) > len(m.Channels) || slices.ContainsFunc(m.Strides, func(s int) bool { return s < 0 }) {
		panic(fmt.Sprintf("models.CNN: want an odd Kernel, at least one conv layer and no more non-negative Strides than layers, got Kernel %d, Channels %v, Strides %v", m.Kernel, m.Channels, m.Strides))
	}
	if p := m.InputPool; p > 1 {
		d := x.Shape().Dimensions
		if d[1]%p != 0 || d[2]%p != 0 {
			panic(fmt.Sprintf("models.CNN: InputPool %d does not divide the image %dx%d", p, d[1], d[2]))
		}
	}
	return x
}

// native says whether the network's convolutions use GoMLX's native operations for x's
// backend (ConvImpl).
func (m CNN) native(x *Node) bool {
	return m.Conv == ConvNative || (m.Conv == ConvAuto && NativeConvGradients(x.Graph().Backend()))
}

// Features implements FeatureNet: the input to the linear output layer, [batch, d] (the
// dense hidden layer's ReLU outputs when Hidden > 0, d = Hidden; otherwise the last
// convolution's flattened outputs, d = H'·W'·C'), and the logits Logit computes from it,
// in one pass with the same towers.
func (m CNN) Features(ctx *context.Context, x *Node) (features, logit *Node) {
	x = m.checkInput(x)
	native, towers := m.native(x), m.Towers
	if native {
		towers = 1 // the native convolution runs whole
	}
	out := inTowersN(x, towers, func(x *Node) []*Node {
		f := m.hidden(ctx, m.features(ctx, x, native))
		return []*Node{f, m.logitOf(ctx, f)}
	})
	return out[0], out[1]
}

// features runs the input pooling and the convolution layers on x [batch, H, W, C] and
// returns the flattened features [batch, H'·W'·C'].
func (m CNN) features(ctx *context.Context, x *Node, native bool) *Node {
	batch := x.Shape().Dimensions[0]
	if p := m.InputPool; p > 1 {
		d := x.Shape().Dimensions
		x = ReduceMean(Reshape(x, batch, d[1]/p, p, d[2]/p, p, d[3]), 2, 4)
	}
	batchLast := !native && (m.Conv == ConvBatchLast || m.Conv == ConvAuto)
	switch {
	case batchLast:
		x = TransposeAllAxes(x, 1, 2, 3, 0) // [H, W, C, batch]
	case !native:
		x = TransposeAllAxes(x, 1, 2, 0, 3) // spatial-major [H, W, batch, C]
	}
	r := m.Kernel / 2
	for k, cout := range m.Channels {
		cAxis := 3
		if batchLast {
			cAxis = 2
		}
		cin := x.Shape().Dimensions[cAxis]
		lctx := ctx.In(fmt.Sprintf("conv%d", k))
		g := x.Graph()
		kernel := Param(lctx, g, m.Seed, "weights", HeUniform, m.Kernel*m.Kernel*cin, cout, m.Kernel, m.Kernel, cin, cout)
		biasDims := []int{1, 1, 1, cout}
		if batchLast {
			biasDims = []int{1, 1, cout, 1}
		}
		bias := Reshape(Param(lctx, g, m.Seed, "biases", ZeroInit, m.Kernel*m.Kernel*cin, cout, cout), biasDims...)
		s := m.stride(k)
		// A stride-1 layer is pooled unless a side has odd length (7×7 stays 7×7).
		hAxis, wAxis := 0, 1
		if native {
			hAxis, wAxis = 1, 2
		}
		pool := s == 1 && x.Shape().Dimensions[hAxis]%2 == 0 && x.Shape().Dimensions[wAxis]%2 == 0
		// The bias is added after the max-pool (max(a+b) = max(a)+b for a per-channel b),
		// on a quarter of the values.
		switch {
		case native && pool:
			x = MaxPool(Convolve(x, kernel).Strides(s).PaddingPerDim([][2]int{{r, r}, {r, r}}).Done()).Window(2).Done()
		case native:
			x = Convolve(x, kernel).Strides(s).PaddingPerDim([][2]int{{r, r}, {r, r}}).Done()
		default:
			x = conv2D(x, kernel, s, batchLast)
		}
		if pool && !native {
			x = maxPool2SpatialMajor(x) // pools the two leading axes, whatever the other two are
		}
		// ReLU after pooling: the two commute, and the ReLU then runs on a quarter of the values.
		x = relu(Add(x, bias))
	}
	switch {
	case batchLast:
		x = TransposeAllAxes(x, 3, 0, 1, 2) // back to [batch, H, W, C]
	case !native:
		x = TransposeAllAxes(x, 2, 0, 1, 3) // back to [batch, H, W, C]
	}
	return Reshape(x, batch, -1)
}

// hidden applies the optional dense ReLU layer to the convolution features x [batch, F].
func (m CNN) hidden(ctx *context.Context, x *Node) *Node {
	if m.Hidden > 0 {
		x = relu(Dense(ctx, m.Seed, "hidden", x, m.Hidden, HeUniform))
	}
	return x
}

// logitOf applies the linear output layer to the penultimate features x [batch, d].
func (m CNN) logitOf(ctx *context.Context, x *Node) *Node {
	batch := x.Shape().Dimensions[0]
	return Reshape(Dense(ctx, m.Seed, "output", x, 1, GlorotUniform), batch)
}

// Describe implements Net.
func (m CNN) Describe() string {
	var b strings.Builder
	if m.InputPool > 1 {
		fmt.Fprintf(&b, "%d×%d average pool, ", m.InputPool, m.InputPool)
	}
	for k, c := range m.Channels {
		if k > 0 {
			b.WriteString(", ")
		}
		if s := m.stride(k); s > 1 {
			fmt.Fprintf(&b, "%d×%d conv %d stride %d, ReLU", m.Kernel, m.Kernel, c, s)
		} else {
			fmt.Fprintf(&b, "%d×%d conv %d, 2×2 max-pool, ReLU", m.Kernel, m.Kernel, c)
		}
	}
	if m.Hidden > 0 {
		fmt.Fprintf(&b, ", dense %d ReLU", m.Hidden)
	}
	return fmt.Sprintf("CNN [%s], linear output (conv: %s)", b.String(), m.Conv)
}
