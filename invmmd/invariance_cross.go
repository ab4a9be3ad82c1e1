package invmmd

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// The cross route of InvarianceTest: the studentised cross statistic between two halves
// (see the comment at the top of invariance.go).

// crossMethod is one method's part of a test: its per-row pseudo-outcomes (D columns),
// the rows they exist on, and its result or error.
type crossMethod struct {
	phi     [][]float64
	include []float64
	res     TestResult
	err     error
}

// crossTests fills each method's result with the studentised cross statistic T and its
// one-sided p-value (or its err). The kernel between the halves depends on h alone, so each
// pair (i in A, j in B) of a stratum is evaluated once and serves every method that has a
// pseudo-outcome on both rows; each method's sums run over its own rows in the same order
// as a test of that method alone.
func crossTests(h Rep, ms []*crossMethod, strata []testStratum, inA []bool, sigma float64) {
	type part struct {
		a, b   []int     // the method's rows in each half
		pa, pb []float64 // its pseudo-outcomes centred within each half, rows × D
		posA   []int     // position in a of each row of aAll (−1: not the method's)
		inB    []int     // position in b of each row of bAll (−1: not the method's)
		g      []float64 // the witness at each row of a, rows × D
	}
	sums := make([][2]float64, len(ms)) // Σ t_i and Σ (t_i − t̄)² over the strata
	for _, s := range strata {
		parts := make([]*part, len(ms))
		var aAll, bAll []int
		for k, c := range ms {
			if c.err != nil {
				continue
			}
			pt := &part{}
			for _, i := range s.rows {
				if c.include[i] == 0 {
					continue
				}
				if inA[i] {
					pt.a = append(pt.a, i)
				} else {
					pt.b = append(pt.b, i)
				}
			}
			if len(pt.a) < 2 || len(pt.b) < 2 {
				c.err = fmt.Errorf("stratum %s has %d rows with a pseudo-outcome (observed Z for obs) in half A and %d in half B, want at least 2 in each", stratumName(s.y), len(pt.a), len(pt.b))
				continue
			}
			if len(pt.a) < MinTestRows || len(pt.b) < MinTestRows {
				c.res.Unreliable = append(c.res.Unreliable, fmt.Sprintf("stratum %s: %d and %d rows in the halves, fewer than %d", stratumName(s.y), len(pt.a), len(pt.b), MinTestRows))
			}
			pt.pa, pt.pb = centred(c.phi, pt.a), centred(c.phi, pt.b)
			pt.g = make([]float64, len(pt.a)*len(c.phi))
			parts[k] = pt
		}
		// The rows of the stratum that some method reads, in each half, in the stratum's order.
		for _, i := range s.rows {
			for k, pt := range parts {
				if pt != nil && ms[k].include[i] != 0 {
					if inA[i] {
						aAll = append(aAll, i)
					} else {
						bAll = append(bAll, i)
					}
					break
				}
			}
		}
		for k, pt := range parts {
			if pt == nil {
				continue
			}
			pt.posA, pt.inB = positions(aAll, ms[k].include), positions(bAll, ms[k].include)
		}
		// g[k] = witness at h_a[k]: mean over B of φ̃_j k(h_a[k], h_j), D values per method.
		parallelRows(len(aAll), func(r int) {
			i := aAll[r]
			for q, j := range bAll {
				kv := GaussianKernel(h.Row(i), h.Row(j), sigma)
				for k, pt := range parts {
					if pt == nil || pt.posA[r] < 0 || pt.inB[q] < 0 {
						continue
					}
					D := len(ms[k].phi)
					gk, pb := pt.g[pt.posA[r]*D:(pt.posA[r]+1)*D], pt.pb[pt.inB[q]*D:(pt.inB[q]+1)*D]
					for d := 0; d < D; d++ {
						gk[d] += pb[d] * kv
					}
				}
			}
			for k, pt := range parts {
				if pt == nil || pt.posA[r] < 0 {
					continue
				}
				D := len(ms[k].phi)
				gk := pt.g[pt.posA[r]*D : (pt.posA[r]+1)*D]
				for d := range gk {
					gk[d] /= float64(len(pt.b))
				}
			}
		})
		for k, pt := range parts {
			if pt == nil {
				continue
			}
			partSum := covarianceTerms(pt.pa, pt.g, len(pt.a), len(ms[k].phi), &sums[k][1])
			sums[k][0] += partSum
			ms[k].res.Strata = append(ms[k].res.Strata, TestStratum{Y: s.y, Rows: [2]int{len(pt.a), len(pt.b)}, Part: partSum})
		}
	}
	for k, c := range ms {
		if c.err != nil {
			continue
		}
		sum, ss := sums[k][0], sums[k][1]
		if !(ss > 0) {
			c.err = fmt.Errorf("the statistic has no variance: within every stratum the pseudo-outcome or h does not vary (a single Z value observed, or h constant)")
			continue
		}
		c.res.Statistic = sum / math.Sqrt(ss)
		c.res.PValue = 0.5 * math.Erfc(c.res.Statistic/math.Sqrt2)
	}
}

// positions returns, for each row of rows, its position among the rows that include
// marks (−1 where include is 0).
func positions(rows []int, include []float64) []int {
	pos, n := make([]int, len(rows)), 0
	for r, i := range rows {
		pos[r] = -1
		if include[i] != 0 {
			pos[r] = n
			n++
		}
	}
	return pos
}

// covarianceTerms returns, for one stratum of half A (n rows of centred pseudo-outcomes pa
// and witness values g, D columns each), Σ t_i with t_i = φ̃_i·(g_i − ḡ), the stratum's share
// of the cross statistic, and adds each (t_i − t̄)² to *ss, its share of the variance.
func covarianceTerms(pa, g []float64, n, D int, ss *float64) (sum float64) {
	gbar := make([]float64, D)
	for k := 0; k < n; k++ {
		for d := 0; d < D; d++ {
			gbar[d] += g[k*D+d] / float64(n)
		}
	}
	t := make([]float64, n)
	tbar := 0.0
	for k := range t {
		for d := 0; d < D; d++ {
			t[k] += pa[k*D+d] * (g[k*D+d] - gbar[d])
		}
		tbar += t[k] / float64(n)
	}
	for _, v := range t {
		sum += v
		*ss += (v - tbar) * (v - tbar)
	}
	return sum
}

// parallelRows runs f(k) for k in [0, n) on one goroutine per CPU; f must write only to
// its own k's outputs.
func parallelRows(n int, f func(k int)) {
	workers := max(1, min(runtime.GOMAXPROCS(0), n/64))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := w; k < n; k += workers {
				f(k)
			}
		}(w)
	}
	wg.Wait()
}
