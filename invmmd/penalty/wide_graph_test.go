package penalty

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// execGraph builds build (a function of the input nodes) and runs it on inputs (tensors),
// returning its outputs as float64 slices.
func execGraph(t *testing.T, build func(in []*Node) []*Node, inputs ...any) [][]float64 {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	exec, err := NewExec(b, build)
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	out, err := exec.Exec(inputs...)
	if err != nil {
		t.Fatal(err)
	}
	res := make([][]float64, len(out))
	for i, o := range out {
		res[i] = toFloat64(t, o)
	}
	return res
}

// widePenaltyGrad runs PenaltyGraph on h as an [n, d] tensor (or RFFPenaltyGraph with the
// frequencies of seed when freqs > 0) and returns the per-stratum penalties and the
// gradient of their sum with respect to h, row-major.
func widePenaltyGrad(t *testing.T, d *invmmd.Design, h invmmd.Rep, sigma float64, dtype dtypes.DType, freqs int, seed uint64) (strata, grad []float64) {
	t.Helper()
	v, c, err := Tensors(d, dtype)
	if err != nil {
		t.Fatal(err)
	}
	ht, st := floatTensor(dtype, h.Data, h.Len(), h.Dim), floatTensor(dtype, []float64{sigma})
	if freqs == 0 {
		out := execGraph(t, func(in []*Node) []*Node {
			pen := PenaltyGraph(in[0], in[1], in[2], in[3])
			return []*Node{pen, Gradient(ReduceAllSum(pen), in[0])[0]}
		}, ht, v, c, st)
		return out[0], out[1]
	}
	out := execGraph(t, func(in []*Node) []*Node {
		pen := RFFPenaltyGraph(in[0], in[1], in[2], in[3], in[4])
		return []*Node{pen, Gradient(ReduceAllSum(pen), in[0])[0]}
	}, ht, v, c, st, RFFFrequencyTensor(dtype, h.Dim, freqs, seed))
	return out[0], out[1]
}

// checkGradient compares grad (the gradient of f at h) with central differences of f: along
// two random unit directions and along three coordinates.
func checkGradient(t *testing.T, name string, h invmmd.Rep, grad []float64, f func(invmmd.Rep) float64, rng *rand.Rand) {
	t.Helper()
	const eps = 1e-5
	shifted := func(u []float64, s float64) invmmd.Rep {
		out := append([]float64(nil), h.Data...)
		for k := range out {
			out[k] += s * u[k]
		}
		return invmmd.Rep{Dim: h.Dim, Data: out}
	}
	var dirs [][]float64
	for range 2 {
		u := make([]float64, len(h.Data))
		norm := 0.0
		for k := range u {
			u[k] = rng.NormFloat64()
			norm += u[k] * u[k]
		}
		for k := range u {
			u[k] /= math.Sqrt(norm)
		}
		dirs = append(dirs, u)
	}
	for _, k := range []int{0, len(h.Data) / 2, len(h.Data) - 1} {
		u := make([]float64, len(h.Data))
		u[k] = 1
		dirs = append(dirs, u)
	}
	for _, u := range dirs {
		fd := (f(shifted(u, eps)) - f(shifted(u, -eps))) / (2 * eps)
		got := 0.0
		for k := range u {
			got += grad[k] * u[k]
		}
		if math.Abs(got-fd) > 1e-6+1e-5*math.Abs(fd) {
			t.Errorf("%s: directional derivative %.9g, finite differences of the float64 reference %.9g", name, got, fd)
		}
	}
}

// wideGraphCase is a batch for the graph tests: rows and outputs, with the options of the
// estimand to build designs with and the float64 reference of a method's penalty.
type wideGraphCase struct {
	name string
	h    []float64
	rows invmmd.Rows
	opts invmmd.Options
	ref  func(m method.Method, h invmmd.Rep, rows invmmd.Rows, opts invmmd.Options) float64
}

// exactValue is the float64 reference of package invmmd with exact kernel sums in one
// goroutine (checked there against the pair-by-pair formulas).
func exactValue(m method.Method, h invmmd.Rep, rows invmmd.Rows, opts invmmd.Options) float64 {
	d, err := invmmd.NewDesign(rows, opts, m)
	if err != nil {
		panic(err)
	}
	res, err := d.Evaluate(h, invmmd.ExactSums{Workers: 1})
	if err != nil {
		panic(err)
	}
	return res[0].Value
}

func wideGraphCases(rng *rand.Rand) []wideGraphCase {
	h, rows := binaryRows(rng, 64)
	for i := range rows.G {
		rows.G[i] = 0.05 + 0.9*rng.Float64()
		rows.M[i] = rng.Float64()
	}
	hj, jr := jointRows(rng, dataset.CategoricalZ, 40)
	for i := range jr.G {
		jr.G[i] = 0.05 + 0.9*rng.Float64()
	}
	return []wideGraphCase{
		{"binary Z, conditional MMD", h, rows, invmmd.Options{}, exactValue},
		{"categorical Z, joint MMD", hj, jr, invmmd.Options{Estimand: invmmd.JointMMD}, exactValue},
	}
}

// TestWideGraphMatchesReference checks PenaltyGraph on representations h [n, d], d ∈ {1, 2,
// 8, 64}, for every method and both estimands: its value against the pair-by-pair float64
// reference (to 1e-9 in float64, 2·10⁻³ in float32, where the Gram form's cancellation
// costs digits) and its gradient against central differences of the float64 reference
// (invmmd.Design.Evaluate with exact sums, itself checked against the pair-by-pair formula).
func TestWideGraphMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	for _, tc := range wideGraphCases(rng) {
		for _, dim := range []int{1, 2, 8, 64} {
			h := widen(rng, tc.h, dim)
			opts := tc.opts
			opts.Bandwidth = wideBandwidth(dim)
			for _, m := range method.All()[1:] {
				name := fmt.Sprintf("%s, d=%d, %v", tc.name, dim, m)
				d, err := invmmd.NewDesign(tc.rows, opts, m)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.ref(m, h, tc.rows, opts)
				strata, grad := widePenaltyGrad(t, d, h, opts.Bandwidth, dtypes.Float64, 0, 0)
				if got := strata[0] + strata[1]; math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: graph %.12g, reference %.12g", name, got, want)
				}
				if dim == 64 || dim == 2 {
					s32, _ := widePenaltyGrad(t, d, h, opts.Bandwidth, dtypes.Float32, 0, 0)
					if got := s32[0] + s32[1]; math.Abs(got-want) > 2e-3*math.Max(math.Abs(want), 1e-2) {
						t.Errorf("%s: float32 graph %.7g, reference %.7g", name, got, want)
					}
				}
				checkGradient(t, name, h, grad, func(x invmmd.Rep) float64 {
					res, err := d.Evaluate(x, invmmd.ExactSums{Workers: 1})
					if err != nil {
						t.Fatal(err)
					}
					return res[0].Value
				}, rng)
			}
		}
	}
}

// TestRFFGraphMatchesSums checks RFFPenaltyGraph against invmmd.RFFSums of the same seed and count
// (the same kernel k̂, so the same value to rounding) and its gradient against central
// differences of invmmd.RFFSums, for scalar and wide outputs and both estimands.
func TestRFFGraphMatchesSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(103, 104))
	const freqs, seed = 96, 17
	for _, tc := range wideGraphCases(rng) {
		for _, dim := range []int{1, 8} {
			h := widen(rng, tc.h, dim)
			opts := tc.opts
			opts.Bandwidth = wideBandwidth(dim)
			summer := invmmd.RFFSums{Frequencies: freqs, Seed: seed}
			for _, m := range []method.Method{method.Full, method.IP, method.DR} {
				name := fmt.Sprintf("%s, d=%d, %v", tc.name, dim, m)
				d, err := invmmd.NewDesign(tc.rows, opts, m)
				if err != nil {
					t.Fatal(err)
				}
				f := func(x invmmd.Rep) float64 {
					res, err := d.Evaluate(x, summer)
					if err != nil {
						t.Fatal(err)
					}
					return res[0].Value
				}
				want := f(h)
				strata, grad := widePenaltyGrad(t, d, h, opts.Bandwidth, dtypes.Float64, freqs, seed)
				if got := strata[0] + strata[1]; math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: RFF graph %.12g, invmmd.RFFSums %.12g", name, got, want)
				}
				checkGradient(t, name, h, grad, f, rng)
			}
		}
	}
}

// TestRFFApproachesExact checks that the random-feature estimate converges to the exact
// one as the frequencies grow: over 8 seeds the mean relative error of the DR penalty of an
// 8-column representation falls at least 4-fold from D = 64 to D = 4096 (1/√D predicts 8),
// and stays below 5% at D = 4096.
func TestRFFApproachesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(105, 106))
	h, rows := binaryRows(rng, 400)
	w := widen(rng, h, 8)
	d, err := invmmd.NewDesign(rows, invmmd.Options{Bandwidth: wideBandwidth(8)}, method.DR)
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := d.Evaluate(w, nil)
	meanErr := func(freqs int) float64 {
		e := 0.0
		for seed := range uint64(8) {
			res, err := d.Evaluate(w, invmmd.RFFSums{Frequencies: freqs, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			e += math.Abs(res[0].Value-exact[0].Value) / math.Abs(exact[0].Value) / 8
		}
		return e
	}
	lo, hi := meanErr(64), meanErr(4096)
	t.Logf("mean relative error: D = 64 %.4f, D = 4096 %.4f (exact %.5f)", lo, hi, exact[0].Value)
	if !(hi < lo/4) || !(hi < 0.05) {
		t.Errorf("mean relative error %.4f at D = 64 and %.4f at D = 4096, want a 4-fold fall and < 5%%", lo, hi)
	}
}

// TestKernelMatrixGraphWide checks the Gram form of the kernel matrix entry by entry against
// the float64 kernel, including rows far from the origin (where ‖h‖² ≫ ‖h − h'‖² and the Gram form
// cancels digits) and repeated rows (distance 0, clamped), with the diagonal exactly 1.
func TestKernelMatrixGraphWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(107, 108))
	const n, dim, sigma = 30, 5, 1.3
	data := make([]float64, n*dim)
	for k := range data {
		data[k] = rng.NormFloat64() + 50
	}
	copy(data[3*dim:4*dim], data[7*dim:8*dim]) // rows 3 and 7 tie
	h := invmmd.Rep{Dim: dim, Data: data}
	out := execGraph(t, func(in []*Node) []*Node { return []*Node{KernelMatrixGraph(in[0], in[1])} },
		floatTensor(dtypes.Float64, data, n, dim), floatTensor(dtypes.Float64, []float64{sigma}))
	for i := range n {
		for j := range n {
			got, want := out[0][i*n+j], invmmd.GaussianKernel(h.Row(i), h.Row(j), sigma)
			if i == j && got != 1 || math.Abs(got-want) > 1e-10 {
				t.Fatalf("k[%d][%d] = %.15g, want %.15g", i, j, got, want)
			}
		}
	}
}
