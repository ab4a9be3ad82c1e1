package penalty

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/method"
)

// penaltyAndGrad runs PenaltyGraph on h with the design's V and C and returns the penalty
// and its gradient with respect to h.
func penaltyAndGrad(t *testing.T, d *invmmd.Design, h []float64, sigma float64, dtype dtypes.DType) (float64, []float64) {
	p, g, _ := penaltyGradStrata(t, d, h, sigma, dtype)
	return p, g
}

// penaltyGradStrata is penaltyAndGrad that also returns the per-stratum penalties.
func penaltyGradStrata(t *testing.T, d *invmmd.Design, h []float64, sigma float64, dtype dtypes.DType) (float64, []float64, []float64) {
	out := runPenaltyGraph(t, d, h, sigma, dtype, func(h, v, c, s *Node) []*Node {
		strata := PenaltyGraph(h, v, c, s)
		p := ReduceAllSum(strata)
		return []*Node{p, Gradient(p, h)[0], strata}
	})
	return out[0][0], out[1], out[2]
}

// runPenaltyGraph executes build(h, V, C, σ) on the shared backend with the design's
// matrices and returns its outputs as float64 slices.
func runPenaltyGraph(t *testing.T, d *invmmd.Design, h []float64, sigma float64, dtype dtypes.DType, build func(h, v, c, s *Node) []*Node) [][]float64 {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	v, c, err := Tensors(d, dtype)
	if err != nil {
		t.Fatal(err)
	}
	exec, err := NewExec(b, build)
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	out, err := exec.Exec(floatTensor(dtype, h, len(h)), v, c, floatTensor(dtype, []float64{sigma}))
	if err != nil {
		t.Fatal(err)
	}
	res := make([][]float64, len(out))
	for i, o := range out {
		res[i] = toFloat64(t, o)
	}
	return res
}

func toFloat64(t *testing.T, x *tensors.Tensor) []float64 {
	t.Helper()
	switch x.DType() {
	case dtypes.Float64:
		return tensors.MustCopyFlatData[float64](x)
	case dtypes.Float32:
		f := tensors.MustCopyFlatData[float32](x)
		out := make([]float64, len(f))
		for i, v := range f {
			out[i] = float64(v)
		}
		return out
	}
	t.Fatalf("unexpected dtype %s", x.DType())
	return nil
}

// TestGraphMatchesReference compares the graph penalty of every method with the float64
// reference (invmmd.Design.Evaluate with exact sums): to relative 1e-5 in float64 and 1e-3 in
// float32, where summing n² terms costs digits.
func TestGraphMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	h, rows := binaryRows(rng, 300)
	for i := range rows.G {
		rows.G[i] = 0.05 + 0.9*rng.Float64()
		rows.M[i] = rng.Float64()
	}
	for _, m := range method.All()[1:] {
		for _, opts := range []invmmd.Options{{}, {Unconditional: true, Bandwidth: 0.6}} {
			d, err := invmmd.NewDesign(rows, opts, m)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := d.Evaluate(invmmd.ScalarRep(h), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := ref[0].Value
			for _, tc := range []struct {
				dtype dtypes.DType
				tol   float64
			}{{dtypes.Float64, 1e-5}, {dtypes.Float32, 1e-3}} {
				got, _, strata := penaltyGradStrata(t, d, h, d.Options().Bandwidth, tc.dtype)
				if math.Abs(got-want) > tc.tol*math.Max(math.Abs(want), 1e-3) {
					t.Errorf("%v %+v %s: graph %.9g, reference %.9g", m, opts, tc.dtype, got, want)
				}
				for s, v := range ref[0].Strata {
					if math.Abs(strata[s]-v) > tc.tol*math.Max(math.Abs(v), 1e-3) {
						t.Errorf("%v %+v %s: stratum %d: graph %.9g, reference %.9g", m, opts, tc.dtype, s, strata[s], v)
					}
				}
			}
		}
	}
}

// TestGraphGradientMatchesFiniteDifferences checks the gradient of the penalty with respect
// to h against central differences of the float64 reference.
func TestGraphGradientMatchesFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	h, rows := binaryRows(rng, 120)
	for _, m := range []method.Method{method.Full, method.DR, method.Reg} {
		d, err := invmmd.NewDesign(rows, invmmd.Options{}, m)
		if err != nil {
			t.Fatal(err)
		}
		_, grad := penaltyAndGrad(t, d, h, 1, dtypes.Float64)
		const eps = 1e-5
		for _, i := range []int{0, 17, 64, 119} {
			hp, hm := append([]float64(nil), h...), append([]float64(nil), h...)
			hp[i] += eps
			hm[i] -= eps
			fp, _ := d.Evaluate(invmmd.ScalarRep(hp), nil)
			fm, _ := d.Evaluate(invmmd.ScalarRep(hm), nil)
			fd := (fp[0].Value - fm[0].Value) / (2 * eps)
			if math.Abs(grad[i]-fd) > 1e-6+1e-5*math.Abs(fd) {
				t.Errorf("%v: d penalty / d h[%d] = %.9g, finite differences %.9g", m, i, grad[i], fd)
			}
		}
	}
}

// fourierPenaltyAndGrad runs FourierPenaltyGraph and returns the penalty, its gradient with
// respect to h and the reported error bound.
func fourierPenaltyAndGrad(t *testing.T, d *invmmd.Design, h []float64, sigma float64, M int, tol float64, dtype dtypes.DType) (float64, []float64, float64) {
	out := runPenaltyGraph(t, d, h, sigma, dtype, func(h, v, c, s *Node) []*Node {
		pen, bound := FourierPenaltyGraph(h, v, c, s, M, tol)
		p := ReduceAllSum(pen)
		return []*Node{p, Gradient(p, h)[0], bound}
	})
	return out[0][0], out[1], out[2][0]
}

// TestFourierGraphMatchesExact checks the expansion's penalty and gradient against the
// exact graph's, in float64 (tight) and float32 (training precision), and that the
// reported bound flags a too-small M.
func TestFourierGraphMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	h, rows := binaryRows(rng, 500)
	for i := range h {
		h[i] *= 2 // a wider range than the defaults, as a trained logit has
	}
	for _, m := range []method.Method{method.Full, method.DR} {
		d, err := invmmd.NewDesign(rows, invmmd.Options{Bandwidth: 0.8}, m)
		if err != nil {
			t.Fatal(err)
		}
		want, wantGrad := penaltyAndGrad(t, d, h, 0.8, dtypes.Float64)
		for _, tc := range []struct {
			dtype    dtypes.DType
			tol, rel float64
		}{{dtypes.Float64, 1e-10, 1e-7}, {dtypes.Float32, 1e-6, 2e-3}} {
			M, err := FourierTermsFor(span(h), 0.8, tc.tol)
			if err != nil {
				t.Fatal(err)
			}
			got, grad, bound := fourierPenaltyAndGrad(t, d, h, 0.8, M, tc.tol, tc.dtype)
			if bound > tc.tol {
				t.Errorf("%v %s: M=%d reports bound %g above tol %g", m, tc.dtype, M, bound, tc.tol)
			}
			if math.Abs(got-want) > tc.rel*math.Abs(want) {
				t.Errorf("%v %s: Fourier penalty %.9g, exact %.9g", m, tc.dtype, got, want)
			}
			scale := 0.0
			for _, g := range wantGrad {
				scale = math.Max(scale, math.Abs(g))
			}
			for i := range grad {
				if math.Abs(grad[i]-wantGrad[i]) > tc.rel*scale {
					t.Fatalf("%v %s: gradient[%d] = %.9g, exact %.9g", m, tc.dtype, i, grad[i], wantGrad[i])
				}
			}
		}
		// Too few terms: the bound must say so.
		if _, _, bound := fourierPenaltyAndGrad(t, d, h, 0.8, 4, 1e-6, dtypes.Float64); bound < 1e-6 {
			t.Errorf("%v: with M=4 the reported bound %g does not flag the truncation", m, bound)
		}
	}
}
