package invmmd

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// widen turns scalar outputs h into a representation of d columns: column 0 is h, column k
// is a_k·h plus independent noise of sd 0.5 (a_k = ±1/√(k+1), signs alternating). The noise
// is independent of everything, so a G and m that are right for h's process stay right,
// and the dependence on Z is spread over every column.
func widen(rng *rand.Rand, h []float64, d int) Rep {
	out := make([]float64, len(h)*d)
	for i, x := range h {
		out[i*d] = x
		for k := 1; k < d; k++ {
			a := 1 / math.Sqrt(float64(k+1))
			if k%2 == 1 {
				a = -a
			}
			out[i*d+k] = a*x + 0.5*rng.NormFloat64()
		}
	}
	return Rep{Dim: d, Data: out}
}

// wideBandwidth is a bandwidth of the order of the median distance of widen's rows.
func wideBandwidth(d int) float64 { return 0.5 + 0.5*math.Sqrt(float64(d)) }

// TestRep checks NewRep, Len, Row and the errors for malformed shapes and values.
func TestRep(t *testing.T) {
	r, err := NewRep([]float64{1, 2, 3, 4, 5, 6}, 3)
	if err != nil || r.Len() != 2 || r.Row(1)[0] != 4 || r.Row(1)[2] != 6 {
		t.Fatalf("NewRep: %+v, %v", r, err)
	}
	for _, tc := range []struct {
		data []float64
		dim  int
		want string
	}{
		{[]float64{1, 2, 3}, 2, "do not make rows of 2 columns"},
		{[]float64{1, 2}, 0, "want at least 1"},
	} {
		if _, err := NewRep(tc.data, tc.dim); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewRep(%v, %d): error %v, want one containing %q", tc.data, tc.dim, err, tc.want)
		}
	}
	if a, b := GaussianKernel([]float64{0.3}, []float64{1.1}, 0.7), gaussian1D(0.3, 1.1, 0.7); a != b {
		t.Errorf("GaussianKernel on one-element rows %v, the scalar kernel %v", a, b)
	}
	a, b := []float64{0.3, -1, 2}, []float64{1.1, 0.5, 2}
	if got, want := GaussianKernel(a, b, 0.7), math.Exp(-(0.64+2.25)/(2*0.49)); math.Abs(got-want) > 1e-15 {
		t.Errorf("GaussianKernel(%v, %v, 0.7) = %v, want %v", a, b, got, want)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	h, rows := defaultTestDGP().draw(rng, 40)
	w := widen(rng, h, 3)
	for _, tc := range []struct {
		name string
		h    Rep
		want string
	}{
		{"a NaN", Rep{Dim: 3, Data: withValue(w.Data, 3*7+2, math.NaN())}, "row 7: h column 2 = NaN"},
		{"an infinity", Rep{Dim: 3, Data: withValue(w.Data, 0, math.Inf(-1))}, "row 0: h column 0 = -Inf"},
		{"too few rows", Rep{Dim: 3, Data: w.Data[:3*39]}, "39 model outputs for 40 rows"},
		{"ragged", Rep{Dim: 3, Data: w.Data[:3*39+1]}, "in rows of 3 columns"},
		{"no columns", Rep{Dim: 0, Data: w.Data}, "want d ≥ 1"},
	} {
		_, errE := Estimate(context.Background(), tc.h, rows, Options{}, method.Full)
		d, _ := NewDesign(rows, Options{}, method.Full)
		_, errV := d.Evaluate(tc.h, nil)
		for _, err := range []error{errE, errV} {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
			}
		}
	}
}

func withValue(v []float64, i int, x float64) []float64 {
	out := append([]float64(nil), v...)
	out[i] = x
	return out
}

// TestEstimateWideMatchesPairByPairFormula checks the factorised design of every method, for
// the paper's estimand (binary Z) and the joint one (categorical, continuous and vector Z),
// against the pair-by-pair references naiveMMD and naiveJoint on representations of several
// widths, with the exact kernel sums (one goroutine and several) and, for the conditional
// estimand, the jackknife standard errors against their d = 1 path on a one-column Rep.
func TestEstimateWideMatchesPairByPairFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	h, rows := defaultTestDGP().draw(rng, 120)
	for i := range rows.G {
		rows.G[i] = math.Min(1, 0.03+0.9*rng.Float64())
		rows.M[i] = rng.Float64()
	}
	methods := method.All()[1:]
	for _, d := range []int{1, 2, 8} {
		hw := widen(rng, h, d)
		for _, opts := range []Options{{Bandwidth: wideBandwidth(d)}, {MainFraction: 1, Unconditional: true, Bandwidth: 0.7}} {
			got, err := Estimate(context.Background(), hw, rows, opts, methods...)
			if err != nil {
				t.Fatal(err)
			}
			des, _ := NewDesign(rows, opts, methods...)
			par, err := des.Evaluate(hw, ExactSums{Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			for k, m := range methods {
				want := naiveMMD(m, hw, rows, opts)
				for _, v := range []float64{got[k].Value, par[k].Value} {
					if math.Abs(v-want) > 1e-9*math.Max(1, math.Abs(want)) {
						t.Errorf("d=%d %+v: %v = %.12g, pair-by-pair formula gives %.12g", d, opts, m, v, want)
					}
				}
				if !(got[k].ValueSE > 0) {
					t.Errorf("d=%d %+v: %v has standard error %v, want > 0", d, opts, m, got[k].ValueSE)
				}
			}
		}
	}
	for _, kind := range []dataset.ZKind{dataset.CategoricalZ, dataset.ContinuousZ, dataset.VectorZ} {
		var hs []float64
		var jr Rows
		if kind == dataset.VectorZ {
			hs, jr = vectorRows(rng, 18)
		} else {
			hs, jr, _ = newJointDGP(kind).draw(rng, 18)
		}
		for i := range jr.G {
			jr.G[i] = 0.03 + 0.9*rng.Float64()
			jr.GTrue[i] = 0.1 + 0.9*rng.Float64()
		}
		for _, d := range []int{2, 8} {
			hw := widen(rng, hs, d)
			sigma := wideBandwidth(d)
			for _, m := range methods {
				want := naiveJoint(m, hw, jr, sigma, DefaultGFloor)
				res, err := Estimate(context.Background(), hw, jr, Options{Estimand: JointMMD, Bandwidth: sigma}, m)
				if err != nil {
					t.Fatal(err)
				}
				for s, w := range want {
					if got := res[0].Strata[s]; math.Abs(got-w) > 1e-9*math.Max(1, math.Abs(w)) {
						t.Errorf("%v d=%d %v: stratum %d: %.12g, naive %.12g", kind, d, m, s, got, w)
					}
				}
			}
		}
	}
}

// TestRepInvariances checks properties that any kernel on ‖h − h'‖ must have: zero columns
// added to a logit, a rotation of the representation and a common shift leave every
// estimate and standard error unchanged (to rounding), and a one-column Rep gives the
// scalar functions' bits.
func TestRepInvariances(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	h, rows := defaultTestDGP().draw(rng, 200)
	methods := []method.Method{method.Full, method.Obs, method.IP, method.Reg, method.DR, method.DRPO}
	opts := Options{Bandwidth: 0.9}
	base, err := Estimate(context.Background(), ScalarRep(h), rows, opts, methods...)
	if err != nil {
		t.Fatal(err)
	}
	scalar, err := Estimate(context.Background(), ScalarRep(h), rows, opts, methods...)
	if err != nil {
		t.Fatal(err)
	}
	padded := make([]float64, 3*len(h))
	for i, x := range h {
		padded[3*i+1] = x
	}
	w := widen(rng, h, 3)
	// A rotation by a fixed orthogonal matrix (Householder reflection) and a shift.
	v := []float64{0.3, -0.8, 0.52}
	vv := v[0]*v[0] + v[1]*v[1] + v[2]*v[2]
	rot := make([]float64, len(w.Data))
	for i := 0; i < w.Len(); i++ {
		r := w.Row(i)
		dot := r[0]*v[0] + r[1]*v[1] + r[2]*v[2]
		for k := range 3 {
			rot[3*i+k] = r[k] - 2*dot/vv*v[k] + float64(k+1)*10
		}
	}
	wide, _ := Estimate(context.Background(), w, rows, opts, methods...)
	rotated, err := Estimate(context.Background(), Rep{Dim: 3, Data: rot}, rows, opts, methods...)
	if err != nil {
		t.Fatal(err)
	}
	pad, err := Estimate(context.Background(), Rep{Dim: 3, Data: padded}, rows, opts, methods...)
	if err != nil {
		t.Fatal(err)
	}
	for k, m := range methods {
		if scalar[k].Value != base[k].Value || scalar[k].ValueSE != base[k].ValueSE {
			t.Errorf("%v: one-column Rep %v ± %v, scalar %v ± %v, want the same bits", m, scalar[k].Value, scalar[k].ValueSE, base[k].Value, base[k].ValueSE)
		}
		for _, c := range []struct {
			name      string
			got, want Result
		}{{"zero columns", pad[k], base[k]}, {"rotation and shift", rotated[k], wide[k]}} {
			if math.Abs(c.got.Value-c.want.Value) > 1e-10*math.Max(1, math.Abs(c.want.Value)) ||
				math.Abs(c.got.ValueSE-c.want.ValueSE) > 1e-10*math.Max(1, c.want.ValueSE) {
				t.Errorf("%v, %s: %.12g ± %.6g, want %.12g ± %.6g", m, c.name, c.got.Value, c.got.ValueSE, c.want.Value, c.want.ValueSE)
			}
		}
	}
}

// TestMedianBandwidthWide checks the median heuristic against a brute-force median of the
// pairwise distances, its d = 1 path against MedianBandwidth, the stride subsample above
// MedianRows rows, and its errors.
func TestMedianBandwidthWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	h, _ := defaultTestDGP().draw(rng, 301)
	one, err := MedianBandwidth(ScalarRep(h))
	if want, _ := MedianBandwidth(ScalarRep(h)); err != nil || one != want {
		t.Errorf("d = 1: %v (%v), MedianBandwidth gives %v", one, err, want)
	}
	brute := func(r Rep, rows []int) float64 {
		var d []float64
		for a, i := range rows {
			for _, j := range rows[a+1:] {
				d = append(d, math.Sqrt(sqDist(r.Row(i), r.Row(j))))
			}
		}
		slices.Sort(d)
		return d[(len(d)-1)/2]
	}
	small := widen(rng, h[:60], 5)
	got, err := MedianBandwidth(small)
	if want := brute(small, d0(60)); err != nil || math.Abs(got-want) > 1e-12*want {
		t.Errorf("d = 5, n = 60: %v (%v), brute force %v", got, err, want)
	}
	hl := make([]float64, 2*MedianRows+1)
	for i := range hl {
		hl[i] = rng.NormFloat64()
	}
	large := widen(rng, hl, 4)
	stride := make([]int, MedianRows)
	for k := range stride {
		stride[k] = k * large.Len() / MedianRows
	}
	got, err = MedianBandwidth(large)
	if want := brute(large, stride); err != nil || got != want {
		t.Errorf("n = %d: %v (%v), want the median over rows ⌊k·n/%d⌋, %v", large.Len(), got, err, MedianRows, want)
	}
	for _, tc := range []struct {
		h    Rep
		want string
	}{
		{Rep{Dim: 2, Data: []float64{1, 2}}, "at least 2 outputs"},
		{Rep{Dim: 2, Data: []float64{1, 2, 1, 2, 1, 2, 0, 0}}, "median distance is 0"},
		{Rep{Dim: 2, Data: []float64{1, 2, math.NaN(), 2}}, "row 1: h column 0 = NaN"},
	} {
		if _, err := MedianBandwidth(tc.h); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.h, err, tc.want)
		}
	}
}

// TestSummersForWideOutputs checks which summers serve d > 1: ExactSums with one and several
// goroutines agree, AutoSums takes the exact sum, and FourierSums refuses.
func TestSummersForWideOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	h, rows := defaultTestDGP().draw(rng, 150)
	w := widen(rng, h, 4)
	d, err := NewDesign(rows, Options{Bandwidth: 1.5}, method.Full, method.DR)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := d.Evaluate(w, ExactSums{Workers: 1})
	for _, s := range []Summer{ExactSums{Workers: 3}, AutoSums{}, nil} {
		got, err := d.Evaluate(w, s)
		if err != nil {
			t.Fatal(err)
		}
		for k := range got {
			if math.Abs(got[k].Value-one[k].Value) > 1e-12*math.Max(1, math.Abs(one[k].Value)) {
				t.Errorf("%T: %v = %.15g, one goroutine %.15g", s, got[k].Method, got[k].Value, one[k].Value)
			}
		}
	}
	if _, err := d.Evaluate(w, FourierSums{}); err == nil || !strings.Contains(err.Error(), "one-column outputs, got 4 columns") {
		t.Errorf("FourierSums on 4 columns: error %v", err)
	}
}
func d0(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}
