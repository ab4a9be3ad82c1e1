package invmmd

import (
	"context"
	"fmt"
	"math"
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
// one-sided p-value (or its err). The kernel between the halves depends on h alone, so one
// pass of per-row kernel sums per stratum (RowSums, from the rows of B to the rows of
// A) serves every method: each method's centred pseudo-outcomes on its rows of B are
// columns of that pass, and the witness at each of its rows of A is the row sum of its
// columns over its rows of B. It returns ctx's error when ctx is cancelled.
func crossTests(ctx context.Context, sums Summer, h Rep, ms []*crossMethod, strata []testStratum, inA []bool, sigma float64) error {
	type part struct {
		a, b   []int     // the method's rows in each half
		pa, pb []float64 // its pseudo-outcomes centred within each half, rows × D
		col    int       // its first column in the pass
	}
	sumsK := make([][2]float64, len(ms)) // Σ t_i and Σ (t_i − t̄)² over the strata
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
		// The pass's columns: each method's centred pseudo-outcomes on its rows of B.
		var cols [][]float64
		for k, pt := range parts {
			if pt == nil {
				continue
			}
			pt.col = len(cols)
			D := len(ms[k].phi)
			for d := 0; d < D; d++ {
				c := make([]float64, h.Len())
				for q, j := range pt.b {
					c[j] = pt.pb[q*D+d]
				}
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			continue
		}
		kv, path, err := RowSums(ctx, sums, h, aAll, bAll, cols, sigma)
		if err != nil {
			return err
		}
		P := len(cols)
		for k, pt := range parts {
			if pt == nil {
				continue
			}
			ms[k].res.Path = ms[k].res.Path.worse(path)
			// The witness at each of the method's rows of A (in aAll's order, as a), rows × D.
			D := len(ms[k].phi)
			g := make([]float64, 0, len(pt.a)*D)
			for r, i := range aAll {
				if ms[k].include[i] != 0 {
					for d := range D {
						g = append(g, kv[r*P+pt.col+d]/float64(len(pt.b)))
					}
				}
			}
			sumsK[k][0] += covarianceTerms(pt.pa, g, len(pt.a), D, &sumsK[k][1])
			ms[k].res.Strata = append(ms[k].res.Strata, TestStratum{Y: s.y, Rows: [2]int{len(pt.a), len(pt.b)}})
		}
	}
	for k, c := range ms {
		if c.err != nil {
			continue
		}
		sum, ss := sumsK[k][0], sumsK[k][1]
		if !(ss > 0) {
			c.err = fmt.Errorf("the statistic has no variance: within every stratum the pseudo-outcome or h does not vary (a single Z value observed, or h constant)")
			continue
		}
		c.res.Statistic = sum / math.Sqrt(ss)
		c.res.PValue = 0.5 * math.Erfc(c.res.Statistic/math.Sqrt2)
	}
	return nil
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
