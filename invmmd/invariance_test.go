package invmmd

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/method"
)

// calibRows draws n rows of the calibration simulation with dependence delta and returns h
// and the rows with the true G and m in the learned slots (so that the test's validity
// does not hinge on a fit here).
func calibRows(n int, delta float64, seed uint64) ([]float64, Rows) {
	s := calibsim.Draw(n, delta, rand.New(rand.NewPCG(seed, 11)))
	return s.H, Rows{Y: s.Y, Z: s.ZFull, Delta: s.Delta, G: s.GTrue, GTrue: s.GTrue, M: s.MTrue}
}

// bruteCross computes the cross statistic T by its definition, with plain loops over
// pairs: the witness of half B at each row of A, the per-stratum sample covariance and its
// standard error.
func bruteCross(h Rep, phi [][]float64, include []float64, y []float64, inA []bool, sigma float64) float64 {
	return bruteCrossKernel(h, phi, include, y, inA, func(i, j int) float64 {
		d2 := 0.0
		for c := 0; c < h.Dim; c++ {
			d := h.Data[i*h.Dim+c] - h.Data[j*h.Dim+c]
			d2 += d * d
		}
		return math.Exp(-d2 / (2 * sigma * sigma))
	})
}

// bruteCrossKernel is bruteCross with the kernel of rows i and j given.
func bruteCrossKernel(h Rep, phi [][]float64, include []float64, y []float64, inA []bool, kernel func(i, j int) float64) float64 {
	num, den := 0.0, 0.0
	for _, yv := range []float64{0, 1} {
		var a, b []int
		for i := range y {
			if y[i] != yv || include[i] == 0 {
				continue
			}
			if inA[i] {
				a = append(a, i)
			} else {
				b = append(b, i)
			}
		}
		D := len(phi)
		mean := func(idx []int, d int) float64 {
			s := 0.0
			for _, i := range idx {
				s += phi[d][i]
			}
			return s / float64(len(idx))
		}
		g := make([][]float64, len(a))
		for k, i := range a {
			g[k] = make([]float64, D)
			for d := 0; d < D; d++ {
				mb := mean(b, d)
				for _, j := range b {
					g[k][d] += (phi[d][j] - mb) * kernel(i, j) / float64(len(b))
				}
			}
		}
		t := make([]float64, len(a))
		for d := 0; d < D; d++ {
			ma, gb := mean(a, d), 0.0
			for k := range a {
				gb += g[k][d] / float64(len(a))
			}
			for k, i := range a {
				t[k] += (phi[d][i] - ma) * (g[k][d] - gb)
			}
		}
		tb := 0.0
		for _, v := range t {
			num += v
			tb += v / float64(len(t))
		}
		for _, v := range t {
			den += (v - tb) * (v - tb)
		}
	}
	return num / math.Sqrt(den)
}

// dcW computes the doubly centred statistic W = (1/n) Σ_y Σ_{i≠j} a_i a_j (φ̃_i·φ̃_j) k̃_ij with
// the exact Gaussian kernel, centred within the stratum as H K H, for multipliers a.
func dcW(h []float64, phi [][]float64, strata [][]int, sigma float64, a []float64) float64 {
	n, w := 0, 0.0
	for _, idx := range strata {
		m := len(idx)
		n += m
		kc := centredGram(h, idx, sigma)
		D := len(phi)
		ph := make([][]float64, m)
		for p := range ph {
			ph[p] = make([]float64, D)
		}
		for d := 0; d < D; d++ {
			mu := 0.0
			for _, i := range idx {
				mu += phi[d][i] / float64(m)
			}
			for p, i := range idx {
				ph[p][d] = phi[d][i] - mu
			}
		}
		for p := range idx {
			for q := range idx {
				if p == q {
					continue
				}
				dot := 0.0
				for d := 0; d < D; d++ {
					dot += ph[p][d] * ph[q][d]
				}
				w += a[idx[p]] * a[idx[q]] * dot * kc[p][q]
			}
		}
	}
	return w / float64(n)
}

// centredGram returns the exact Gaussian Gram matrix of h at the rows idx, doubly centred
// (H K H): k_pq − mean_q k_pq − mean_p k_pq + mean k.
func centredGram(h []float64, idx []int, sigma float64) [][]float64 {
	m := len(idx)
	k := make([][]float64, m)
	rowMean := make([]float64, m)
	all := 0.0
	for p, i := range idx {
		k[p] = make([]float64, m)
		for q, j := range idx {
			k[p][q] = gaussian1D(h[i], h[j], sigma)
			rowMean[p] += k[p][q] / float64(m)
		}
		all += rowMean[p] / float64(m)
	}
	for p := range k {
		for q := range k[p] {
			k[p][q] = k[p][q] - rowMean[p] - rowMean[q] + all
		}
	}
	return k
}

// pseudo returns method m's per-row pseudo-outcomes and included rows, as InvarianceTest
// builds them.
func pseudo(t *testing.T, m method.Method, rows Rows) ([][]float64, []float64) {
	t.Helper()
	w, err := factorsFor(m, rows.withDelta(), DefaultGFloor, nil)
	if err != nil {
		t.Fatal(err)
	}
	phi := make([][]float64, len(w.terms[0].col))
	for d := range phi {
		phi[d] = make([]float64, rows.Len())
		for i := range phi[d] {
			phi[d][i] = rowMean(w.terms, d, i)
		}
	}
	return phi, w.include
}

func TestCrossStatisticMatchesDefinition(t *testing.T) {
	h, rows := calibRows(300, 0.4, 1)
	inA := make([]bool, len(h))
	for i := range inA {
		inA[i] = i%3 == 0
	}
	for _, m := range []method.Method{method.Full, method.Obs, method.IP, method.Reg, method.DR, method.DRPlus} {
		res, err := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Bandwidth: 0.7}, InA: inA}, m)
		if err != nil {
			t.Fatal(err)
		}
		phi, inc := pseudo(t, m, rows)
		want := bruteCross(ScalarRep(h), phi, inc, rows.Y, inA, 0.7)
		if d := math.Abs(res[0].Statistic - want); d > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("%v: T = %.15g, by definition %.15g", m, res[0].Statistic, want)
		}
		if p := 0.5 * math.Erfc(want/math.Sqrt2); math.Abs(res[0].PValue-p) > 1e-12 {
			t.Errorf("%v: p = %v, want 1 − Φ(T) = %v", m, res[0].PValue, p)
		}
	}
}

// TestWildStatisticMatchesExactKernel checks the Fourier-feature quadratic form against the
// doubly centred exact Gram matrix.
func TestWildStatisticMatchesExactKernel(t *testing.T) {
	h, rows := calibRows(200, 0.3, 2)
	for _, m := range []method.Method{method.DR, method.Reg, method.Full} {
		res, err := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Bandwidth: 0.8}, Route: WildRoute, Resamples: 100}, m)
		if err != nil {
			t.Fatal(err)
		}
		phi, inc := pseudo(t, m, rows)
		var strata [][]int
		for _, y := range []float64{0, 1} {
			var idx []int
			for i := range h {
				if rows.Y[i] == y && inc[i] != 0 {
					idx = append(idx, i)
				}
			}
			strata = append(strata, idx)
		}
		ones := make([]float64, len(h))
		for i := range ones {
			ones[i] = 1
		}
		want := dcW(h, phi, strata, 0.8, ones)
		if d := math.Abs(res[0].Statistic - want); d > 1e-7*math.Max(1, math.Abs(want)) {
			t.Errorf("%v: W = %.12g, exact kernel %.12g", m, res[0].Statistic, want)
		}
	}
}

// TestWildBootstrapAgainstEnumeration compares the bootstrap p-value on 12 rows with the
// exact multiplier distribution: W(ε) over all 2¹² sign vectors.
func TestWildBootstrapAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 12
	h := make([]float64, n)
	rows := Rows{Y: make([]float64, n), Z: make([]float64, n)}
	for i := range h {
		rows.Z[i] = float64(i % 2)
		h[i] = 0.6*rows.Z[i] + rng.NormFloat64()
	}
	const B = 20000
	res, err := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Bandwidth: 1, Unconditional: true}, Route: WildRoute, Resamples: B, Seed: 3}, method.Full)
	if err != nil {
		t.Fatal(err)
	}
	phi, _ := pseudo(t, method.Full, rows)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	a := make([]float64, n)
	for i := range a {
		a[i] = 1
	}
	w0 := dcW(h, phi, [][]int{all}, 1, a)
	ge := 0
	for mask := 0; mask < int(1)<<n; mask++ {
		for i := range a {
			a[i] = 1
			if mask>>i&1 == 1 {
				a[i] = -1
			}
		}
		if dcW(h, phi, [][]int{all}, 1, a) >= w0-1e-9 {
			ge++
		}
	}
	exact := float64(ge) / float64(int(1)<<n)
	se := math.Sqrt(exact * (1 - exact) / B)
	if math.Abs(res[0].PValue-exact) > 4*se+1.0/float64(B) {
		t.Errorf("bootstrap p = %.4f, exact multiplier p = %.4f (4 SE = %.4f)", res[0].PValue, exact, 4*se)
	}
	if exact < 0.01 || exact > 0.99 {
		t.Fatalf("exact p = %v: the case does not test the middle of the distribution", exact)
	}
}

// ksUniform returns the Kolmogorov–Smirnov distance between p and the uniform on [0, 1].
func ksUniform(p []float64) float64 {
	s := slices.Clone(p)
	slices.Sort(s)
	d := 0.0
	for i, v := range s {
		d = math.Max(d, math.Max(float64(i+1)/float64(len(s))-v, v-float64(i)/float64(len(s))))
	}
	return d
}

// TestNullPValuesUniform draws the calibration simulation under H₀ (δ = 0) with the true
// G and m, where the observed rows are a biased sample, and checks that dr's and full's
// cross p-values are uniform (KS distance under the 1 % critical value 1.63/√R), while the
// test on the observed rows alone rejects far more often than α.
func TestNullPValuesUniform(t *testing.T) {
	if testing.Short() {
		t.Skip("400 null replicates: a few seconds")
	}
	const R, n = 400, 800
	p := map[method.Method][]float64{}
	for r := 0; r < R; r++ {
		h, rows := calibRows(n, 0, uint64(100+r))
		res, err := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Median: true}, Seed: uint64(r)}, method.DR, method.Full)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range res {
			p[x.Method] = append(p[x.Method], x.PValue)
		}
	}
	crit := 1.63 / math.Sqrt(R)
	for _, m := range []method.Method{method.DR, method.Full} {
		if d := ksUniform(p[m]); d > crit {
			t.Errorf("%v: KS distance of null p-values to uniform %.3f > %.3f", m, d, crit)
		}
	}
	// The observed-rows test, at n = 2000 where its bias is plain: 0.185 over 1000
	// replicates in a run of the calibration study's code; 200 replicates give an SE of 0.027.
	rej := 0
	const R2 = 200
	for r := 0; r < R2; r++ {
		h, rows := calibRows(2000, 0, uint64(5000+r))
		res, err := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Median: true}, Seed: uint64(r)}, method.Obs)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].PValue <= 0.05 {
			rej++
		}
	}
	if rate := float64(rej) / R2; rate < 0.10 {
		t.Errorf("obs: null rejection rate %.3f at α = 0.05 and n = 2000, want the observed-rows test to fail (≥ 0.10) in this simulation", rate)
	}
}

func TestInvarianceTestPower(t *testing.T) {
	h, rows := calibRows(2000, 0.5, 7)
	for _, route := range []TestRoute{CrossRoute, WildRoute} {
		res, err := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Median: true}, Route: route, Resamples: 200}, method.DR)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].PValue > 0.01 {
			t.Errorf("%v: p = %v at δ = 0.5, n = 2000, want < 0.01", route, res[0].PValue)
		}
	}
}

func TestInvarianceTestReproducible(t *testing.T) {
	h, rows := calibRows(400, 0.1, 3)
	for _, route := range []TestRoute{CrossRoute, WildRoute} {
		a, err := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Median: true}, Route: route, Resamples: 100, Seed: 9}, method.DR, method.Reg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Median: true}, Route: route, Resamples: 100, Seed: 9}, method.DR, method.Reg)
		for k := range a {
			if a[k].PValue != b[k].PValue || a[k].Statistic != b[k].Statistic {
				t.Errorf("%v %v: two runs with one seed differ: %v vs %v", route, a[k].Method, a[k].PValue, b[k].PValue)
			}
		}
	}
}

// TestInvarianceTestCategorical runs the test on a three-level nuisance given as features.
func TestInvarianceTestCategorical(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n := 900
	z := make([]float64, n)
	y := make([]float64, n)
	hDep, hInd := make([]float64, n), make([]float64, n)
	for i := range z {
		z[i] = float64(rng.IntN(3))
		y[i] = float64(rng.IntN(2))
		hDep[i] = y[i] + 0.5*z[i] + rng.NormFloat64()
		hInd[i] = y[i] + rng.NormFloat64()
		if rng.Float64() < 0.3 {
			z[i] = math.NaN()
		}
	}
	psi, err := Apply(CategoricalMap{K: 3}, z)
	if err != nil {
		t.Fatal(err)
	}
	rows := Rows{Y: y, Psi: psi}
	dep, err := InvarianceTest(context.Background(), ScalarRep(hDep), rows, TestOptions{Options: Options{Median: true}}, method.Obs)
	if err != nil {
		t.Fatal(err)
	}
	ind, _ := InvarianceTest(context.Background(), ScalarRep(hInd), rows, TestOptions{Options: Options{Median: true}}, method.Obs)
	if dep[0].PValue > 1e-3 || ind[0].PValue < 1e-3 {
		t.Errorf("categorical Z: p = %v with dependence, %v without", dep[0].PValue, ind[0].PValue)
	}
}

func TestInvarianceTestErrors(t *testing.T) {
	h, rows := calibRows(200, 0, 1)
	constant := make([]float64, len(h))
	noObs := rows
	noObs.Delta = slices.Clone(rows.Delta)
	for i := range noObs.Delta {
		if rows.Y[i] == 1 {
			noObs.Delta[i] = 0
		}
	}
	missing := rows
	missing.Z = slices.Clone(rows.Z)
	missing.Z[0], missing.Delta = math.NaN(), nil
	for _, c := range []struct {
		name string
		h    []float64
		rows Rows
		opts TestOptions
		m    method.Method
		want string
	}{
		{"few resamples", h, rows, TestOptions{Options: Options{Median: true}, Route: WildRoute, Resamples: 50}, method.DR, "50 resamples, want 100 to 100000"},
		{"constant h", constant, rows, TestOptions{Options: Options{Median: true}}, method.DR, "h is constant"},
		{"no observed Z in a stratum", h, noObs, TestOptions{Options: Options{Median: true}}, method.Obs, "stratum Y=1 has 0 rows"},
		{"no observed Z, wild", h, noObs, TestOptions{Options: Options{Median: true}, Route: WildRoute}, method.Obs, "stratum Y=1 has 0 rows"},
		{"permutation of dr", h, rows, TestOptions{Options: Options{Median: true}, Route: PermutationRoute}, method.DR, "permutation route is valid only for full and obs"},
		{"none", h, rows, TestOptions{Options: Options{Median: true}}, method.None, "no pseudo-outcome"},
		{"halves of another length", h, rows, TestOptions{Options: Options{Median: true}, InA: make([]bool, 3)}, method.DR, "InA has 3 rows"},
		{"full with Z missing", h, missing, TestOptions{Options: Options{Median: true}}, method.Full, "row 0"},
		{"bad bandwidth", h, rows, TestOptions{Options: Options{Bandwidth: -1}}, method.DR, "bandwidth -1"},
		{"short h", h[:10], rows, TestOptions{Options: Options{Median: true}}, method.DR, "h has 10 rows"},
	} {
		_, err := InvarianceTest(context.Background(), ScalarRep(c.h), c.rows, c.opts, c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestHalvesSplitCells checks that the halves split each (Y, Δ) cell in two (A the smaller half
// of an odd cell), and that the seed decides them.
func TestHalvesSplitCells(t *testing.T) {
	y := []float64{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1}
	d := []float64{1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0}
	a := Halves(Rows{Y: y, Delta: d}, false, 1)
	count := map[[2]float64][2]int{}
	for i := range y {
		k := [2]float64{y[i], d[i]}
		c := count[k]
		if a[i] {
			c[0]++
		} else {
			c[1]++
		}
		count[k] = c
	}
	want := map[[2]float64][2]int{{0, 1}: {1, 2}, {0, 0}: {1, 1}, {1, 1}: {1, 1}, {1, 0}: {2, 3}}
	for k, w := range want {
		if count[k] != w {
			t.Errorf("cell Y=%v Δ=%v: A/B %v, want %v", k[0], k[1], count[k], w)
		}
	}
	differ := false
	for s := uint64(2); s < 10 && !differ; s++ {
		b := Halves(Rows{Y: y, Delta: d}, false, s)
		for i := range a {
			differ = differ || a[i] != b[i]
		}
	}
	if !differ {
		t.Error("the seed does not change the halves")
	}
}
