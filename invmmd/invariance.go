package invmmd

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
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
	// FlooredGShare is the share of the rows with Z observed whose Ĝ may be raised to the
	// floor (Options.GFloor) before a p-value that reads Ĝ is flagged unreliable: a floor
	// on a few rows caps a few weights, which the calibration study found harmless (dr's
	// size held on the data sets where it happened), while a floor on a visible share of
	// the rows says that positivity fails where those rows are.
	FlooredGShare = 0.02
	// MaxResamples bounds the draws: 10⁵ resolve a p-value to 10⁻⁵, and each costs a pass
	// over the rows.
	MaxResamples = 100000
	// MaxResampledTerms bounds the Fourier terms of the kernel on h in the wild and
	// permutation routes (each draw costs rows × terms): h spread over more than about
	// 4000 bandwidths takes the cross route.
	MaxResampledTerms = 4096
	// MinTestRows is the fewest rows with a pseudo-outcome (observed Z for obs) that a
	// stratum must have in each half (cross) or in all (wild, permutation) for its result
	// not to be flagged unreliable: the normal approximation of a sum of a few terms, or a
	// resampling distribution over a few rows, is not to be trusted.
	MinTestRows = 20
)

// TestOptions are the settings of InvarianceTest: the estimators' Options (read here: the
// bandwidth rule Bandwidth or Median, GFloor, Unconditional, Classes, and Sums for the
// cross route's kernel sums; with Median, σ is
// the median heuristic on the outputs of half B for the cross route, of all rows
// otherwise), and how the null distribution is obtained. The zero value is the cross route
// with σ = 1 (Options' default) and a random half seeded by 0.
type TestOptions struct {
	Options
	// Route chooses the null distribution; the zero value is CrossRoute.
	Route TestRoute
	// InA marks the rows of half A for the cross route (true) and B (false); nil draws a
	// random half of each (Y, Δ) cell, seeded by Seed. G and m must not have been fitted
	// on rows of A.
	InA []bool
	// Resamples is the number of bootstrap or permutation draws; 0 means DefaultResamples;
	// fewer than MinResamples or more than MaxResamples are refused.
	Resamples int
	// Seed seeds the random half and the draws: the same seed gives the same p-values.
	Seed uint64
}

// TestResult is one method's invariance test.
type TestResult struct {
	Method method.Method
	Route  TestRoute
	// Statistic is T, standard normal under H₀, for the cross route, and W (the doubly
	// centred V-statistic over n) for the wild and permutation routes.
	Statistic float64
	PValue    float64
	Sigma     float64 // the kernel bandwidth used
	FlooredG  int     // rows with Z observed whose Ĝ was raised to Options.GFloor
	// Path is how the kernel sums of the cross route were computed and their error bound
	// (zero for the other routes, which expand the kernel with a fixed tolerance).
	Path      KernelPath
	Resamples int // draws (0 for the cross route)
	Strata    []TestStratum
	// Unreliable lists why the p-value should not be trusted (a stratum with fewer than
	// MinTestRows rows with a pseudo-outcome in a half, Ĝ floored on more than
	// FlooredGShare of the rows with Z observed); empty when none.
	Unreliable []string
}

// TestStratum is what one stratum contributes to a test.
type TestStratum struct {
	Y    float64 // the label of the stratum; NaN when the test is unconditional
	Rows [2]int  // rows with a pseudo-outcome: in halves A and B (cross), or all and 0
}

// InvarianceTest tests H₀: h ⊥ Z | Y (or h ⊥ Z with Unconditional) for each method's
// pseudo-outcome of ψ(Z), with the route of opts: see the comment at the top of this file
// for what each route assumes and why it is valid. h may have any width d (a Rep: a logit,
// the K logits of a K-class model, or a representation of d columns), with the Gaussian
// kernel on rows, k(h, h') = exp(−‖h − h'‖²/(2σ²)), and σ by default the median heuristic
// on the rows of half B (MedianBandwidth). Nothing in the cross route's argument uses d:
// conditional on B the witness g is a fixed function of a row of h, so the same
// studentised covariance is standard normal under H₀. The wild and permutation routes
// expand the kernel of one column (FourierPlan) and refuse d > 1 by name. Z may be of any
// kind (Rows.Psi) and missing at random; full needs Z on every row, and method none has no
// test. It returns an error naming the problem for a constant h, a stratum without an
// observed Z (or in the cross route, without one in either half), Resamples under
// MinResamples, or rows that Rows.ValidateClasses refuses.
func InvarianceTest(ctx context.Context, h Rep, rows Rows, opts TestOptions, methods ...method.Method) ([]TestResult, error) {
	if len(methods) == 0 {
		return nil, fmt.Errorf("invmmd: invariance test: no method")
	}
	if h.Dim >= 1 && h.Len() != rows.Len() {
		return nil, fmt.Errorf("invmmd: invariance test: h has %d rows, Y has %d", h.Len(), rows.Len())
	}
	if err := h.check(rows.Len()); err != nil {
		return nil, err
	}
	if h.Len() < 2 {
		return nil, fmt.Errorf("invmmd: invariance test: %d rows, want at least 2", h.Len())
	}
	if h.constant() {
		var row any = h.Row(0)
		if h.Dim == 1 {
			row = h.Data[0]
		}
		return nil, fmt.Errorf("invmmd: invariance test: h is constant (every row is %v): it cannot depend on Z, and the test has no statistic", row)
	}
	if h.Dim > 1 && opts.Route != CrossRoute {
		return nil, fmt.Errorf("invmmd: invariance test: the %v route expands the kernel of a one-column h; h has %d columns: use the cross route", opts.Route, h.Dim)
	}
	opts.Resamples = cmp.Or(opts.Resamples, DefaultResamples)
	if opts.Route != CrossRoute && (opts.Resamples < MinResamples || opts.Resamples > MaxResamples) {
		return nil, fmt.Errorf("invmmd: invariance test: %d resamples, want %d to %d", opts.Resamples, MinResamples, MaxResamples)
	}
	if opts.Median && opts.Bandwidth != 0 {
		return nil, fmt.Errorf("invmmd: invariance test: Options.Median with Options.Bandwidth = %v: give one bandwidth rule", opts.Bandwidth)
	}
	opts.GFloor = cmp.Or(opts.GFloor, DefaultGFloor)
	for _, m := range methods {
		if m == method.None || !m.Valid() {
			return nil, fmt.Errorf("invmmd: invariance test: method %v has no pseudo-outcome of Z", m)
		}
		if opts.Route == PermutationRoute && m != method.Full && m != method.Obs {
			return nil, fmt.Errorf("invmmd: invariance test: the permutation route is valid only for full and obs, not %v (permuting a pseudo-outcome breaks its link to G and m)", m)
		}
	}
	if err := rows.ValidateClasses(opts.NumClasses(), methods...); err != nil {
		return nil, err
	}
	rows = rows.withDelta()
	strata := testStrata(rows, opts.Unconditional)
	inA := opts.InA // the cross route's halves: given, checked, or drawn
	switch {
	case opts.Route != CrossRoute:
		inA = nil
	case inA == nil:
		inA = randomHalves(rows, strata, opts.Seed)
	case len(inA) != rows.Len():
		return nil, fmt.Errorf("invmmd: invariance test: InA has %d rows, Y has %d", len(inA), rows.Len())
	}
	sigma := opts.Bandwidth
	switch {
	case opts.Median:
		hs := Rep{Dim: h.Dim}
		for i := range h.Len() {
			if inA == nil || !inA[i] {
				hs.Data = append(hs.Data, h.Row(i)...)
			}
		}
		var err error
		if sigma, err = MedianBandwidth(hs); err != nil {
			return nil, fmt.Errorf("invmmd: invariance test: bandwidth: %w", err)
		}
	case sigma == 0:
		sigma = DefaultBandwidth
	case checkBandwidth(sigma) != nil:
		return nil, fmt.Errorf("invmmd: invariance test: bandwidth %v, want a finite value > 0 (or 0 for %v)", sigma, DefaultBandwidth)
	}
	ms := make([]*crossMethod, len(methods))
	n := rows.Len()
	observed := n - rows.MissingZ()
	for k, m := range methods {
		// Each row's pseudo-outcome φ and include, from the method's factors built a chunk of
		// rows at a time (they are row by row), so that only φ is held for every row.
		c := &crossMethod{include: make([]float64, n), res: TestResult{Method: m, Route: opts.Route, Sigma: sigma}}
		for lo := 0; lo < n; lo += sumChunk {
			hi := min(n, lo+sumChunk)
			w, err := factorsFor(m, rows.slice(lo, hi), opts.GFloor, nil)
			if err != nil {
				return nil, err
			}
			if c.phi == nil {
				c.phi = make([][]float64, len(w.terms[0].col))
				for d := range c.phi {
					c.phi[d] = make([]float64, n)
				}
			}
			for d, col := range c.phi {
				for i := lo; i < hi; i++ {
					col[i] = rowMean(w.terms, d, i-lo)
				}
			}
			copy(c.include[lo:hi], w.include)
			c.res.FlooredG += w.flooredG
		}
		if float64(c.res.FlooredG) > FlooredGShare*float64(observed) {
			c.res.Unreliable = append(c.res.Unreliable, fmt.Sprintf("Ĝ raised to the floor %v on %d of the %d rows with Z observed (more than %.0f%%)", opts.GFloor, c.res.FlooredG, observed, 100*FlooredGShare))
		}
		ms[k] = c
	}
	switch opts.Route {
	case CrossRoute:
		if err := crossTests(ctx, opts.Sums, h, ms, strata, inA, sigma); err != nil { // one kernel pass between the halves for every method
			return nil, err
		}
	case WildRoute, PermutationRoute:
		for k, c := range ms {
			seed := opts.Seed + 0x9e3779b97f4a7c15*uint64(k+1)
			c.err = resampledTest(ctx, h.Data, c.phi, c.include, strata, sigma, opts.Resamples, seed, &c.res)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
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
	for _, y := range slices.Sorted(maps.Keys(by)) {
		out = append(out, testStratum{y, by[y]})
	}
	return out
}

// Halves returns the random half A (true) that InvarianceTest draws when TestOptions.InA
// is nil: half of the rows of each (Y, Δ) cell (of each Δ value with unconditional),
// shuffled by a generator seeded by seed, so that the halves share the share of each label
// and of missing Z. Rows needs Y, and Delta or the Z (or Psi) it is derived from. A caller
// that fits G and m on half B before testing (owndata.Test) draws the halves with it.
func Halves(rows Rows, unconditional bool, seed uint64) []bool {
	r := rows.withDelta()
	return randomHalves(r, testStrata(r, unconditional), seed)
}

// randomHalves is Halves of rows whose Delta is set, grouped into strata.
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
