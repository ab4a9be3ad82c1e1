package invmmd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// naiveMMD computes a method's penalty pair by pair from the weights as the paper writes
// them (eqs. (6)–(9); normalisers by the matching
// estimator of E[Z], appendix E), without the factorisation that Design uses. It is the
// independent check of that factorisation, for outputs h of any width (refKernel on rows).
func naiveMMD(m method.Method, h Rep, r Rows, opts Options) float64 {
	o, err := opts.Resolved()
	if err != nil {
		panic(err)
	}
	n := h.Len()
	nNorm := n - int(math.Round(o.MainFraction*float64(n)))
	zb := func(i, b int) float64 {
		if b == 1 {
			return r.Z[i]
		}
		return 1 - r.Z[i]
	}
	zt := func(i, b int) float64 { return r.Delta[i] * zb(i, b) } // Δ·Z̃_b
	mb := func(i, b int) float64 {
		if b == 1 {
			return r.M[i]
		}
		return 1 - r.M[i]
	}
	gOf := func(i int) float64 {
		g := r.G[i]
		if m == method.IPPlus || m == method.DRPlus || m == method.DRPOPlus {
			g = r.GTrue[i]
		}
		return math.Max(g, o.GFloor)
	}
	rowMean := func(i, b int) float64 {
		switch m {
		case method.Full, method.Obs:
			return zb(i, b)
		case method.IP, method.IPPlus:
			return zt(i, b) / gOf(i)
		case method.Reg:
			return mb(i, b)
		case method.DR, method.DRPlus, method.DRPO, method.DRPOPlus: // ΔZ̃_b/G − (Δ − G)/G·m_b
			if r.Delta[i] == 0 {
				return mb(i, b) // G cancels for a missing row: −(0 − G)/G = 1
			}
			g := gOf(i)
			return zt(i, b)/g - (r.Delta[i]-g)/g*mb(i, b)
		}
		panic(fmt.Sprintf("naiveMMD: no per-row estimate of Z for method %v: write its formula here", m))
	}
	pairW := func(i, j, b, bb int) float64 {
		switch m {
		case method.DRPO, method.DRPOPlus: // f_b,i f_b',j with f the per-row DR estimate of Z_b
			return rowMean(i, b) * rowMean(j, bb)
		case method.Full, method.Obs:
			return zb(i, b) * zb(j, bb)
		case method.IP, method.IPPlus:
			return zt(i, b) * zt(j, bb) / (gOf(i) * gOf(j))
		case method.Reg:
			return mb(i, b) * mb(j, bb)
		case method.DR, method.DRPlus:
			dd := r.Delta[i] * r.Delta[j]
			if dd == 0 {
				return mb(i, b) * mb(j, bb) // −(0 − G_iG_j)/(G_iG_j) = 1
			}
			gg := gOf(i) * gOf(j)
			return zt(i, b)*zt(j, bb)/gg - (dd-gg)/gg*mb(i, b)*mb(j, bb)
		}
		panic(fmt.Sprintf("naiveMMD: no pair weight for method %v: write its formula here", m))
	}
	var strata []float64 // the classes 0, …, K−1
	for k := 0; k < o.NumClasses(); k++ {
		strata = append(strata, float64(k))
	}
	if o.Unconditional {
		strata = []float64{-1}
	}
	total := 0.0
	for _, s := range strata {
		var main, norm []int
		for i := 0; i < n; i++ {
			if s >= 0 && r.Y[i] != s {
				continue
			}
			if m == method.Obs && r.Delta[i] == 0 {
				continue
			}
			if o.MainFraction == 1 || i >= nNorm {
				main = append(main, i)
			}
			if o.MainFraction == 1 || i < nNorm {
				norm = append(norm, i)
			}
		}
		// N(b, b') as a U-statistic over pairs of normaliser rows, or the product of the
		// floored means when a mean falls below the floor.
		mean := [2]float64{}
		for b := 0; b < 2; b++ {
			for _, i := range norm {
				mean[b] += rowMean(i, b)
			}
			mean[b] /= float64(len(norm))
		}
		nb := func(b, bb int) float64 {
			if mean[0] < o.NormFloor || mean[1] < o.NormFloor {
				return math.Max(mean[b], o.NormFloor) * math.Max(mean[bb], o.NormFloor)
			}
			v := 0.0
			for _, i := range norm {
				for _, j := range norm {
					if i != j {
						v += rowMean(i, b) * rowMean(j, bb)
					}
				}
			}
			return math.Max(v/float64(len(norm)*(len(norm)-1)), o.NormFloor*o.NormFloor)
		}
		t := func(b, bb int) float64 {
			s := 0.0
			for _, i := range main {
				for _, j := range main {
					if i != j {
						s += pairW(i, j, b, bb) * refKernel(h.Row(i), h.Row(j), o.Bandwidth)
					}
				}
			}
			return s / float64(len(main)*(len(main)-1))
		}
		total += t(1, 1)/nb(1, 1) + t(0, 0)/nb(0, 0) - 2*t(1, 0)/nb(1, 0)
	}
	return total
}

// refKernel is the Gaussian kernel exp(−‖a − b‖²/(2σ²)) of the references, written out
// apart from the package's: GaussianKernel for one-element rows (the scalar reference), else
// the squared distance summed component by component.
func refKernel(a, b []float64, sigma float64) float64 {
	if len(a) == 1 {
		return gaussian1D(a[0], b[0], sigma)
	}
	s := 0.0
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Exp(-s / (2 * sigma * sigma))
}

// TestEstimateMatchesPairByPairFormula checks the factorised design of every method against
// the paper's pair weights, on random inputs with several option settings.
func TestEstimateMatchesPairByPairFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h, rows := defaultTestDGP().draw(rng, 240)
	for i := range rows.G { // a learned G and m that differ from the truth
		rows.G[i] = math.Min(1, 0.03+0.9*rng.Float64())
		rows.M[i] = rng.Float64()
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"defaults", Options{}},
		{"same rows, bandwidth 0.5", Options{MainFraction: 1, Bandwidth: 0.5}},
		{"unconditional, half split, floor 0.2", Options{Unconditional: true, MainFraction: 0.5, GFloor: 0.2}},
	} {
		// Every penalised method of the table: a method whose family has no case in
		// factorsFor fails Estimate loudly, and one without a pair weight in naiveMMD
		// fails there.
		var methods []method.Method
		for _, m := range method.All() {
			if m.Penalised() {
				methods = append(methods, m)
			}
		}
		got, err := Estimate(context.Background(), ScalarRep(h), rows, tc.opts, methods...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for k, m := range methods {
			want := naiveMMD(m, ScalarRep(h), rows, tc.opts)
			if diff := math.Abs(got[k].Value - want); diff > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: %v = %.12g, pair-by-pair formula gives %.12g", tc.name, m, got[k].Value, want)
			}
		}
	}
}

// TestExactSummersAgree checks the one-goroutine and the symmetric parallel kernel sums.
func TestExactSummersAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, p := 301, 5
	h := make([]float64, n)
	rows := make([]int, 0, n)
	for i := range h {
		h[i] = 3 * rng.NormFloat64()
		if i%7 != 0 {
			rows = append(rows, i)
		}
	}
	cols := make([][]float64, p)
	for k := range cols {
		cols[k] = make([]float64, n)
		for i := range cols[k] {
			cols[k][i] = rng.NormFloat64()
		}
	}
	a, _ := pairSumsT(ExactSums{Workers: 1}, ScalarRep(h), rows, cols, 0.7)
	b, _ := pairSumsT(ExactSums{Workers: 3}, ScalarRep(h), rows, cols, 0.7)
	for x := range a {
		for y := range a[x] {
			// A direct double loop for one entry, as a third opinion.
			want := 0.0
			for _, i := range rows {
				for _, j := range rows {
					if i != j {
						want += cols[x][i] * cols[y][j] * gaussian1D(h[i], h[j], 0.7)
					}
				}
			}
			for _, got := range []float64{a[x][y], b[x][y]} {
				if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Fatalf("Q[%d][%d] = %v, want %v", x, y, got, want)
				}
			}
		}
	}
}

// pairSumsT is PairSums without a context or path, for the tests' tables.
func pairSumsT(s Summer, h Rep, rows []int, cols [][]float64, sigma float64) ([][]float64, error) {
	q, _, err := PairSums(context.Background(), s, h, rows, cols, sigma)
	return q, err
}
