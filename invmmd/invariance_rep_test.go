package invmmd

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/method"
)

// calibRep draws n rows of the calibration simulation and returns a representation of
// d ≥ 3 columns with the rows (true G and m in the learned slots, as calibRows): X₁,
// tanh(X₁) + δ·X₂, X₁² / 2, then d − 3 columns of noise independent of everything. Under
// δ = 0 it is a function of (X₁, noise), and X₁ ⊥ Z | Y in this simulation, so H₀ holds;
// the observed rows are a biased sample (Δ depends on X₁ + X₂).
func calibRep(n, d int, delta float64, seed uint64) (Rep, Rows) {
	rng := rand.New(rand.NewPCG(seed, 11))
	s := calibsim.Draw(n, delta, rng)
	data := make([]float64, 0, n*d)
	for i := range n {
		x1, x2 := s.X1[i], s.X2[i]
		data = append(data, x1, math.Tanh(x1)+delta*x2, x1*x1/2)
		for range d - 3 {
			data = append(data, rng.NormFloat64())
		}
	}
	return Rep{Dim: d, Data: data}, Rows{Y: s.Y, Z: s.ZFull, Delta: s.Delta, G: s.GTrue, GTrue: s.GTrue, M: s.MTrue}
}

// TestCrossStatisticRepMatchesDefinition checks the cross route on a representation of 3
// and 8 columns against its definition with plain loops and the kernel on rows written out.
func TestCrossStatisticRepMatchesDefinition(t *testing.T) {
	for _, d := range []int{3, 8} {
		h, rows := calibRep(300, d, 0.4, uint64(d))
		inA := make([]bool, rows.Len())
		for i := range inA {
			inA[i] = i%3 == 0
		}
		for _, m := range []method.Method{method.Full, method.Obs, method.IP, method.Reg, method.DR} {
			res, err := InvarianceTest(context.Background(), h, rows, TestOptions{Options: Options{Bandwidth: 1.3}, InA: inA}, m)
			if err != nil {
				t.Fatal(err)
			}
			phi, inc := pseudo(t, m, rows)
			want := bruteCross(h, phi, inc, rows.Y, inA, 1.3)
			if diff := math.Abs(res[0].Statistic - want); diff > 1e-10*math.Max(1, math.Abs(want)) {
				t.Errorf("d = %d, %v: T = %.15g, by definition %.15g", d, m, res[0].Statistic, want)
			}
		}
	}
}

// TestNullPValuesUniformRep is TestNullPValuesUniform for a representation of 8 columns:
// dr's and full's cross p-values under H₀ are uniform (KS distance under the 1 % critical
// value 1.63/√R), with σ by the median heuristic on half B, while at δ = 0.5 the test
// rejects.
func TestNullPValuesUniformRep(t *testing.T) {
	if testing.Short() {
		t.Skip("300 null replicates of a representation: a few seconds")
	}
	const R, n, d = 300, 800, 8
	p := map[method.Method][]float64{}
	for r := range R {
		h, rows := calibRep(n, d, 0, uint64(100+r))
		res, err := InvarianceTest(context.Background(), h, rows, TestOptions{Options: Options{Median: true}, Seed: uint64(r)}, method.DR, method.Full)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range res {
			if !(x.PValue >= 0 && x.PValue <= 1) {
				t.Fatalf("%v: p = %v", x.Method, x.PValue)
			}
			p[x.Method] = append(p[x.Method], x.PValue)
		}
	}
	crit := 1.63 / math.Sqrt(R)
	for _, m := range []method.Method{method.DR, method.Full} {
		if ks := ksUniform(p[m]); ks > crit {
			t.Errorf("%v, d = %d: KS distance of null p-values to uniform %.3f > %.3f", m, d, ks, crit)
		}
	}
	h, rows := calibRep(2000, d, 0.5, 7)
	res, err := InvarianceTest(context.Background(), h, rows, TestOptions{Options: Options{Median: true}}, method.DR)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].PValue > 0.01 {
		t.Errorf("d = %d: dr p = %v at δ = 0.5, n = 2000, want < 0.01", d, res[0].PValue)
	}
}

// TestInvarianceTestWideErrors names the problems of a representation: a route that needs
// one column, rows that are all the same, a non-finite value, too few rows.
func TestInvarianceTestWideErrors(t *testing.T) {
	h, rows := calibRep(200, 4, 0, 1)
	same := Rep{Dim: 4, Data: make([]float64, len(h.Data))}
	for i := range same.Data {
		same.Data[i] = float64(i % 4)
	}
	nan := Rep{Dim: 4, Data: append([]float64(nil), h.Data...)}
	nan.Data[4*7+2] = math.NaN()
	for _, c := range []struct {
		name string
		h    Rep
		opts TestOptions
		want string
	}{
		{"wild", h, TestOptions{Options: Options{Median: true}, Route: WildRoute}, "the wild route expands the kernel of a one-column h; h has 4 columns"},
		{"permutation", h, TestOptions{Options: Options{Median: true}, Route: PermutationRoute}, "h has 4 columns: use the cross route"},
		{"constant rows", same, TestOptions{Options: Options{Median: true}}, "h is constant (every row is [0 1 2 3])"},
		{"non-finite", nan, TestOptions{Options: Options{Median: true}}, "row 7: h column 2 = NaN"},
		{"short", Rep{Dim: 4, Data: h.Data[:40]}, TestOptions{Options: Options{Median: true}}, "h has 10 rows, Y has 200"},
	} {
		m := method.DR
		if c.opts.Route == PermutationRoute {
			m = method.Full
		}
		_, err := InvarianceTest(context.Background(), c.h, rows, c.opts, m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := InvarianceTest(context.Background(), Rep{Dim: 4}, Rows{}, TestOptions{Options: Options{Median: true}}, method.DR); err == nil || !strings.Contains(err.Error(), "0 rows, want at least 2") {
		t.Errorf("no rows: error %v", err)
	}
}
