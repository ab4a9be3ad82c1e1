package penalty

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// TestJointGraphMatchesReference compares the graph penalty and its gradient, for every
// kind and method, with the float64 reference: values to relative 1e-6 in float64 (the
// exact and the Fourier graph), gradients against central differences of the reference.
func TestJointGraphMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for _, kind := range []dataset.ZKind{dataset.CategoricalZ, dataset.ContinuousZ, dataset.VectorZ} {
		var h []float64
		var rows invmmd.Rows
		if kind == dataset.VectorZ {
			h, rows = vectorRows(rng, 160)
		} else {
			h, rows = jointRows(rng, kind, 160)
		}
		for _, m := range method.All()[1:] {
			for _, opts := range []invmmd.Options{{Estimand: invmmd.JointMMD}, {Estimand: invmmd.JointMMD, Unconditional: true, Bandwidth: 0.6}} {
				d, err := invmmd.NewDesign(rows, opts, m)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := d.Evaluate(invmmd.ScalarRep(h), nil)
				if err != nil {
					t.Fatal(err)
				}
				want := ref[0].Value
				sigma := d.Options().Bandwidth
				got, grad, strata := penaltyGradStrata(t, d, h, sigma, dtypes.Float64)
				if math.Abs(got-want) > 1e-6*math.Max(math.Abs(want), 1e-3) {
					t.Errorf("%v %v %+v: graph %.9g, reference %.9g", kind, m, opts, got, want)
				}
				for s, v := range ref[0].Strata {
					if math.Abs(strata[s]-v) > 1e-6*math.Max(math.Abs(v), 1e-3) {
						t.Errorf("%v %v: stratum %d: graph %.9g, reference %.9g", kind, m, s, strata[s], v)
					}
				}
				M, err := FourierTermsFor(span(h), sigma, 1e-10)
				if err != nil {
					t.Fatal(err)
				}
				fg, fgrad, _ := fourierPenaltyAndGrad(t, d, h, sigma, M, 1e-10, dtypes.Float64)
				if math.Abs(fg-want) > 1e-6*math.Max(math.Abs(want), 1e-3) {
					t.Errorf("%v %v: Fourier graph %.9g, reference %.9g", kind, m, fg, want)
				}
				const eps = 1e-5
				for _, i := range []int{0, 41, 159} {
					hp, hm := append([]float64(nil), h...), append([]float64(nil), h...)
					hp[i] += eps
					hm[i] -= eps
					fp, _ := d.Evaluate(invmmd.ScalarRep(hp), nil)
					fm, _ := d.Evaluate(invmmd.ScalarRep(hm), nil)
					fd := (fp[0].Value - fm[0].Value) / (2 * eps)
					if math.Abs(grad[i]-fd) > 1e-7+1e-5*math.Abs(fd) || math.Abs(fgrad[i]-fd) > 1e-7+1e-5*math.Abs(fd) {
						t.Errorf("%v %v: d penalty / d h[%d] = %.9g (exact graph), %.9g (Fourier graph), finite differences %.9g", kind, m, i, grad[i], fgrad[i], fd)
					}
				}
			}
		}
	}
}
