package invmmd

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// A test of H₀: h ⊥ Z | Y when Z is missing for some rows.
//
// Every estimator family here rests on a per-row pseudo-outcome φ_i of ψ(Z_i) — the per-row
// sum of factorsFor's terms: ψ(Z) for full, Δψ(Z) over the observed rows for obs, Δψ(Z)/G for
// ip, m for reg, and Δψ(Z)/G − (Δ − G)/G·m for dr (eq. (3)) — whose conditional mean is the
// right one: E[φ | X, Y] = E[ψ(Z) | X, Y] when G (ip), m (reg), or either of them (dr) is
// right, Z is missing at random given (X, Y) and G > 0 (ignorability and positivity, the
// assumptions of the paper's Propositions 3–5). Since h is a function of X, also
// E[φ | h, Y] = E[ψ(Z) | h, Y], and under H₀ that is E[ψ(Z) | Y] = π_Y: the centred
// pseudo-outcome φ − π_Y is uncorrelated with every function of h within each Y stratum.
// That is what all three routes test; they differ in the null distribution.
//
// The cross route (the default) follows the cross-MMD of Shekhar, Kim and Ramdas ("A
// permutation-free kernel two-sample test", NeurIPS 2022) and its doubly robust use by
// Martinez-Taboada, Ramdas and Kennedy ("An efficient doubly-robust test for the kernel
// treatment effect", NeurIPS 2023): split the rows into halves A and B; from B alone build
// the witness g(t) = mean_{j∈B_y} (φ_j − φ̄_{B,y})·k(t, h_j), the empirical mean embedding of
// the centred pseudo-outcome; within each stratum of A, the statistic is the sample
// covariance of φ_i and g(h_i), Σ_i t_i with t_i = (φ_i − φ̄_{A,y})·(g(h_i) − ḡ_{A,y}).
// Conditional on B, g is a fixed function and the t_i are independent with mean zero under
// H₀ (up to the O(1/n) centring term), so T = Σ t_i / √Σ(t_i − t̄_y)² is asymptotically standard
// normal by the central limit theorem even where the full U-statistic is degenerate (MMD² = 0).
// Under the alternative the covariance is ⟨E[φ̃ k(h,·)], E[φ̃' k(h',·)]⟩ = ‖witness‖² > 0, so the
// test is one-sided: p = 1 − Φ(T). It costs one kernel pass between the halves, O(n_A·n_B),
// and no resampling. G and m must not have been fitted on rows of A (fit them on B or on
// rows not tested); the test is then valid conditionally on them.
//
// The wild route is the multiplier bootstrap of a degenerate V-statistic (Chwialkowski,
// Sejdinovic and Gretton, "A wild bootstrap for degenerate kernel tests", NeurIPS 2014):
// the statistic W = (1/n) Σ_y Σ_{i≠j∈y} (φ̃_i·φ̃_j) k̃_ij, with φ̃ the pseudo-outcomes and k̃ the
// kernel both centred within the stratum (the HSIC form; centring only φ would leave an
// O(1) term from the estimated π_y), against W* with φ̃_i replaced by ε_i φ̃_i, ε_i = ±1 with
// probability 1/2, over Resamples draws. The kernel goes through the Fourier expansion of
// the Gaussian on the outputs' range (FourierPlan), so a draw costs O(n·M·D), not O(n²).
//
// The permutation route permutes ψ(Z) among the rows of a stratum, the textbook
// independence test. It is valid for full (Z never missing) and for obs only when the
// missingness does not depend on X given Y: where Δ depends on X and Z does too, the
// observed rows carry a dependence between h and Z that the full data does not have
// (Proposition 2), and the test rejects a true H₀ far more often than α.

// TestRoute names how an invariance test obtains its null distribution.
type TestRoute int

const (
	// CrossRoute is the studentised cross U-statistic between two halves: an analytic
	// p-value, no resampling, O(n²/4) kernel evaluations.
	CrossRoute TestRoute = iota
	// WildRoute is the multiplier (wild) bootstrap of the doubly centred V-statistic.
	WildRoute
	// PermutationRoute permutes ψ(Z) within each stratum: valid for full and, under
	// missingness completely at random given Y, for obs; refused for the other methods.
	PermutationRoute
)

var routeNames = [...]string{"cross", "wild", "permutation"}

// String names the route: "cross", "wild" or "permutation".
func (r TestRoute) String() string {
	if r < 0 || int(r) >= len(routeNames) {
		return fmt.Sprintf("TestRoute(%d)", int(r))
	}
	return routeNames[r]
}

// ParseTestRoute parses a route name as String writes it.
func ParseTestRoute(s string) (TestRoute, error) {
	for i, n := range routeNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return TestRoute(i), nil
		}
	}
	return 0, fmt.Errorf("unknown test route %q: want %s", s, strings.Join(routeNames[:], ", "))
}

// Defaults and limits of TestOptions.
const (
	DefaultResamples = 1000 // draws of the wild bootstrap or the permutation test
	MinResamples     = 100  // fewer give p-values too coarse to compare with α = 0.05
	// MinTestRows is the fewest rows with a pseudo-outcome (observed Z for obs) that a
	// stratum must have in each half (cross) or in all (wild, permutation) for its result
	// not to be flagged unreliable: the normal approximation of a sum of a few terms, or a
	// resampling distribution over a few rows, is not to be trusted.
	MinTestRows = 20
)

// TestOptions are the settings of InvarianceTest. The zero value is the cross route with
// the median heuristic bandwidth and a random half seeded by 0.
type TestOptions struct {
	// Bandwidth σ of the Gaussian kernel on h; 0 means the median heuristic
	// (MedianBandwidth) on the outputs of half B for the cross route, of all rows otherwise.
	Bandwidth float64
	// GFloor bounds G from below in the pseudo-outcomes, as Options.GFloor; 0 means 0.05.
	GFloor float64
	// Unconditional tests h ⊥ Z over all rows instead of within each Y stratum.
	Unconditional bool
	// Route chooses the null distribution; the zero value is CrossRoute.
	Route TestRoute
	// InA marks the rows of half A for the cross route (true) and B (false); nil draws a
	// random half of each (Y, Δ) cell, seeded by Seed. G and m must not have been fitted
	// on rows of A.
	InA []bool
	// Resamples is the number of bootstrap or permutation draws; 0 means DefaultResamples,
	// fewer than MinResamples are refused.
	Resamples int
	// Seed seeds the random half and the draws: the same seed gives the same p-values.
	Seed uint64
}

// TestResult is one method's invariance test.
type TestResult struct {
	Method Method
	Route  TestRoute
	// Statistic is T, standard normal under H₀, for the cross route, and W (the doubly
	// centred V-statistic over n) for the wild and permutation routes.
	Statistic float64
	PValue    float64
	Sigma     float64 // the kernel bandwidth used
	Resamples int     // draws (0 for the cross route)
	Strata    []TestStratum
	// Unreliable lists why the p-value should not be trusted (a stratum with fewer than
	// MinTestRows rows with a pseudo-outcome in a half, Ĝ floored on a row); empty when none.
	Unreliable []string
}

// TestStratum is what one stratum contributes to a test.
type TestStratum struct {
	Y    float64 // the label of the stratum; NaN when the test is unconditional
	Rows [2]int  // rows with a pseudo-outcome: in halves A and B (cross), or all and 0
	// Part is the stratum's share of the statistic: Σ t_i (cross) or its term of W.
	Part float64
}

// InvarianceTest tests H₀: h ⊥ Z | Y (or h ⊥ Z with Unconditional) for each method's
// pseudo-outcome of ψ(Z), with the route of opts: see the comment at the top of this file
// for what each route assumes and why it is valid. Z may be of any kind (Rows.Psi) and
// missing at random; full needs Z on every row, and method none has no test. It returns
// an error naming the problem for a constant h, a stratum without an observed Z (or in the
// cross route, without one in either half), Resamples under MinResamples, or rows that
// Rows.Validate refuses.
func InvarianceTest(h []float64, rows Rows, opts TestOptions, methods ...Method) ([]TestResult, error) {
	if len(methods) == 0 {
		return nil, fmt.Errorf("invmmd: invariance test: no method")
	}
	if len(h) != rows.Len() {
		return nil, fmt.Errorf("invmmd: invariance test: h has %d rows, Y has %d", len(h), rows.Len())
	}
	if err := checkFinite("h", h); err != nil {
		return nil, err
	}
	if slices.Min(h) == slices.Max(h) {
		return nil, fmt.Errorf("invmmd: invariance test: h is constant (every row is %v): it cannot depend on Z, and the test has no statistic", h[0])
	}
	if opts.Resamples == 0 {
		opts.Resamples = DefaultResamples
	}
	if opts.Route != CrossRoute && opts.Resamples < MinResamples {
		return nil, fmt.Errorf("invmmd: invariance test: %d resamples, want at least %d", opts.Resamples, MinResamples)
	}
	if opts.GFloor == 0 {
		opts.GFloor = DefaultGFloor
	}
	for _, m := range methods {
		if m == None || !m.Valid() {
			return nil, fmt.Errorf("invmmd: invariance test: method %v has no pseudo-outcome of Z", m)
		}
		if opts.Route == PermutationRoute && m != Full && m != Obs {
			return nil, fmt.Errorf("invmmd: invariance test: the permutation route is valid only for full and obs, not %v (permuting a pseudo-outcome breaks its link to G and m)", m)
		}
	}
	if err := rows.Validate(methods...); err != nil {
		return nil, err
	}
	rows = rows.withDelta()
	strata := testStrata(rows, opts.Unconditional)
	var inA []bool
	if opts.Route == CrossRoute {
		var err error
		if inA, err = halves(rows, strata, opts); err != nil {
			return nil, err
		}
	}
	sigma := opts.Bandwidth
	if sigma == 0 {
		var hs []float64
		for i, v := range h {
			if inA == nil || !inA[i] {
				hs = append(hs, v)
			}
		}
		var err error
		if sigma, err = MedianBandwidth(hs); err != nil {
			return nil, fmt.Errorf("invmmd: invariance test: bandwidth: %w", err)
		}
	} else if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("invmmd: invariance test: bandwidth %v, want a finite value > 0 (or 0 for the median heuristic)", sigma)
	}
	ms := make([]*crossMethod, len(methods))
	for k, m := range methods {
		w, err := factorsFor(m, rows, opts.GFloor)
		if err != nil {
			return nil, err
		}
		phi := make([][]float64, len(w.terms[0].col))
		for d := range phi {
			phi[d] = make([]float64, rows.Len())
			for i := range phi[d] {
				phi[d][i] = w.rowMean(d, i)
			}
		}
		ms[k] = &crossMethod{phi: phi, include: w.include, res: TestResult{Method: m, Route: opts.Route, Sigma: sigma}}
		if w.flooredG > 0 {
			ms[k].res.Unreliable = append(ms[k].res.Unreliable, fmt.Sprintf("Ĝ raised to the floor %v on %d rows", opts.GFloor, w.flooredG))
		}
	}
	switch opts.Route {
	case CrossRoute:
		crossTests(h, ms, strata, inA, sigma) // one kernel pass between the halves for every method
	case WildRoute, PermutationRoute:
		for k, c := range ms {
			seed := opts.Seed + 0x9e3779b97f4a7c15*uint64(k+1)
			c.err = resampledTest(h, c.phi, c.include, strata, sigma, opts.Resamples, seed, &c.res)
		}
	default:
		return nil, fmt.Errorf("invmmd: invariance test: unknown route %v", opts.Route)
	}
	out := make([]TestResult, 0, len(methods))
	for _, c := range ms {
		if c.err != nil {
			return nil, fmt.Errorf("invmmd: invariance test, method %v: %w", c.res.Method, c.err)
		}
		out = append(out, c.res)
	}
	return out, nil
}

// testStratum is a stratum's label and rows.
type testStratum struct {
	y    float64
	rows []int
}

// testStrata groups the rows by Y (ascending), or puts them all in one stratum.
func testStrata(r Rows, unconditional bool) []testStratum {
	if unconditional {
		all := make([]int, r.Len())
		for i := range all {
			all[i] = i
		}
		return []testStratum{{math.NaN(), all}}
	}
	by := map[float64][]int{}
	for i, y := range r.Y {
		by[y] = append(by[y], i)
	}
	var out []testStratum
	for y, idx := range by {
		out = append(out, testStratum{y, idx})
	}
	slices.SortFunc(out, func(a, b testStratum) int { return cmp.Compare(a.y, b.y) })
	return out
}

// halves returns opts.InA, checked, or Halves of the rows.
func halves(r Rows, strata []testStratum, opts TestOptions) ([]bool, error) {
	if opts.InA != nil {
		if len(opts.InA) != r.Len() {
			return nil, fmt.Errorf("invmmd: invariance test: InA has %d rows, Y has %d", len(opts.InA), r.Len())
		}
		return opts.InA, nil
	}
	return randomHalves(r, strata, opts.Seed), nil
}

// Halves returns the random half A (true) that InvarianceTest draws when TestOptions.InA
// is nil: half of the rows of each (Y, Δ) cell (of each Δ value with unconditional),
// shuffled by a generator seeded by seed, so that the halves share the share of each label
// and of missing Z. Rows needs Y, and Delta or the Z (or Psi) it is derived from. A caller
// that fits G and m on half B before testing (owndata.Test) draws the halves with it.
func Halves(rows Rows, unconditional bool, seed uint64) []bool {
	rows = rows.withDelta()
	return randomHalves(rows, testStrata(rows, unconditional), seed)
}

func randomHalves(r Rows, strata []testStratum, seed uint64) []bool {
	rng := rand.New(rand.NewPCG(seed, 0xc4a1f))
	inA := make([]bool, r.Len())
	for _, s := range strata {
		for _, obs := range []float64{0, 1} {
			var cell []int
			for _, i := range s.rows {
				if r.Delta[i] == obs {
					cell = append(cell, i)
				}
			}
			rng.Shuffle(len(cell), func(a, b int) { cell[a], cell[b] = cell[b], cell[a] })
			for _, i := range cell[:len(cell)/2] {
				inA[i] = true
			}
		}
	}
	return inA
}

// stratumName names a stratum in errors and reports.
func stratumName(y float64) string {
	if math.IsNaN(y) {
		return "all rows"
	}
	return fmt.Sprintf("Y=%v", y)
}

// centred returns the columns phi over the rows idx (rows × D, row-major), each centred to
// mean zero over idx.
func centred(phi [][]float64, idx []int) []float64 {
	D := len(phi)
	out := make([]float64, len(idx)*D)
	for d := 0; d < D; d++ {
		mean := 0.0
		for _, i := range idx {
			mean += phi[d][i]
		}
		mean /= float64(len(idx))
		for k, i := range idx {
			out[k*D+d] = phi[d][i] - mean
		}
	}
	return out
}

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
func crossTests(h []float64, ms []*crossMethod, strata []testStratum, inA []bool, sigma float64) {
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
				kv := GaussianKernel(h[i], h[j], sigma)
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

// quadForm holds one stratum's doubly centred kernel features F̃ (rows × R, the Fourier
// expansion of the Gaussian kernel with each column centred) and centred pseudo-outcomes φ̃
// (rows × D), so that Σ_{i≠j} (a_i φ̃_i·a_j φ̃_j) k̃_ij = Σ_{r,d} (Σ_i a_i F̃_ir φ̃_id)² −
// Σ_i a_i² |F̃_i|²|φ̃_i|² costs O(rows·R·D) for any row multipliers a (ε for the wild
// bootstrap; a permutation acts on φ̃ instead).
type quadForm struct {
	f, phi []float64
	r, d   int
}

// kernelFeatures returns the rows × R features of the plan's expansion of the Gaussian
// kernel at h[idx] (R = 2M + 1): √κ₀, then √(2κ_m)·cos ω_m(h − c) and √(2κ_m)·sin ω_m(h − c),
// whose inner products are k_L(h_i − h_j), within plan.Bound of k.
func kernelFeatures(h []float64, idx []int, plan FourierPlan, center float64) []float64 {
	R := 2*plan.M + 1
	f := make([]float64, len(idx)*R)
	w := make([]float64, plan.M+1)
	for m := range w {
		w[m] = math.Sqrt(plan.Kappa(m))
		if m > 0 {
			w[m] *= math.Sqrt2
		}
	}
	for k, i := range idx {
		row := f[k*R : (k+1)*R]
		row[0] = w[0]
		theta := 2 * math.Pi * (h[i] - center) / plan.L
		for m := 1; m <= plan.M; m++ {
			s, c := math.Sincos(float64(m) * theta)
			row[2*m-1], row[2*m] = w[m]*c, w[m]*s
		}
	}
	return f
}

// value returns Σ_{i≠j} a_i a_j (φ̃_{π(i)}·φ̃_{π(j)}) k̃_ij for multipliers a (nil: 1) and a
// permutation perm of the pseudo-outcomes (nil: none).
func (q quadForm) value(a []float64, perm []int, acc []float64) float64 {
	n := len(q.f) / q.r
	clear(acc)
	diag := 0.0
	for i := 0; i < n; i++ {
		ai := 1.0
		if a != nil {
			ai = a[i]
		}
		pi := i
		if perm != nil {
			pi = perm[i]
		}
		fi, ph := q.f[i*q.r:(i+1)*q.r], q.phi[pi*q.d:(pi+1)*q.d]
		ff, pp := 0.0, 0.0
		for d, p := range ph {
			s := ai * p
			pp += p * p
			row := acc[d*q.r : (d+1)*q.r]
			for r, x := range fi {
				row[r] += s * x
			}
		}
		for _, x := range fi {
			ff += x * x
		}
		diag += ai * ai * ff * pp
	}
	tot := 0.0
	for _, v := range acc {
		tot += v * v
	}
	return tot - diag
}

// resampledTest fills res with the doubly centred statistic W and its wild-bootstrap or
// permutation p-value (1 + #{W* ≥ W})/(1 + B).
func resampledTest(h []float64, phi [][]float64, include []float64, strata []testStratum, sigma float64, B int, seed uint64, res *TestResult) error {
	var all []int
	for i := range h {
		if include[i] != 0 {
			all = append(all, i)
		}
	}
	lo, hi := rangeOf(h, all)
	plan := PlanFourier(hi-lo, sigma, ReferenceFourierTol)
	var qs []quadForm
	n := 0
	for _, s := range strata {
		var idx []int
		for _, i := range s.rows {
			if include[i] != 0 {
				idx = append(idx, i)
			}
		}
		if len(idx) < 2 {
			return fmt.Errorf("stratum %s has %d rows with a pseudo-outcome (observed Z for obs), want at least 2", stratumName(s.y), len(idx))
		}
		if len(idx) < MinTestRows {
			res.Unreliable = append(res.Unreliable, fmt.Sprintf("stratum %s: %d rows, fewer than %d", stratumName(s.y), len(idx), MinTestRows))
		}
		f := kernelFeatures(h, idx, plan, (lo+hi)/2)
		R := 2*plan.M + 1
		cols := make([][]float64, R)
		for r := range cols {
			cols[r] = make([]float64, len(idx))
			for k := range idx {
				cols[r][k] = f[k*R+r]
			}
		}
		local := make([]int, len(idx))
		for k := range local {
			local[k] = k
		}
		fc := centred(cols, local)
		qs = append(qs, quadForm{f: fc, phi: centred(phi, idx), r: R, d: len(phi)})
		res.Strata = append(res.Strata, TestStratum{Y: s.y, Rows: [2]int{len(idx), 0}})
		n += len(idx)
	}
	acc := make([]float64, qs[0].r*qs[0].d)
	stat := func(draw func(q quadForm) ([]float64, []int)) (float64, []float64) {
		w, parts := 0.0, make([]float64, len(qs))
		for k, q := range qs {
			a, perm := draw(q)
			parts[k] = q.value(a, perm, acc) / float64(n)
			w += parts[k]
		}
		return w, parts
	}
	w, parts := stat(func(quadForm) ([]float64, []int) { return nil, nil })
	for k := range parts {
		res.Strata[k].Part = parts[k]
	}
	if w == 0 && allZero(qs) {
		return fmt.Errorf("the statistic has no variance: within every stratum the pseudo-outcome or h does not vary (a single Z value observed, or h constant)")
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	exceed := 0
	for b := 0; b < B; b++ {
		wb, _ := stat(func(q quadForm) ([]float64, []int) {
			m := len(q.f) / q.r
			if res.Route == PermutationRoute {
				return nil, rng.Perm(m)
			}
			a := make([]float64, m)
			for i := range a {
				a[i] = float64(2*int(rng.Uint64()&1) - 1)
			}
			return a, nil
		})
		if wb >= w {
			exceed++
		}
	}
	res.Statistic = w
	res.Resamples = B
	res.PValue = float64(1+exceed) / float64(1+B)
	return nil
}

// allZero reports whether every stratum's centred features or pseudo-outcomes vanish.
func allZero(qs []quadForm) bool {
	for _, q := range qs {
		nzf, nzp := false, false
		for _, v := range q.f {
			nzf = nzf || math.Abs(v) > 1e-12
		}
		for _, v := range q.phi {
			nzp = nzp || v != 0
		}
		if nzf && nzp {
			return false
		}
	}
	return true
}
