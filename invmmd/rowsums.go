package invmmd

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// Per-row kernel sums. The jackknife standard errors and the cross route of the invariance
// test need, for each row a of a set of target rows, the kernel sums
//
//	KV[a][p] = Σ_{b ∈ src, b ≠ a} k(h_a, h_b)·cols[p][b],
//
// one number per target row and factor column. Computed pair by pair they cost
// O(|tgt|·|src|); through the expansions that make the point estimates linear they cost
// O((|tgt| + |src|)·M): the Fourier series of the Gaussian on the outputs' range (scalar h;
// one pass over src for the frequency sums S_mp = Σ_b cols[p][b]·e^{iω_m h_b}, one over tgt
// to read KV[a][p] = Σ_m w_m Re(e^{−iω_m h_a} S_mp) back), a window over the sorted outputs
// where the range is too wide for the series (scalar h; each row meets only the rows within
// the kernel's reach), or random Fourier features (h of any width). Each path says what it
// was and its error bound (KernelPath).

// ExactPairs is the number of (target, source) pairs up to which AutoSums takes the exact
// sum whatever the expansions would cost: about 2·10⁷ kernel evaluations, a few tenths of
// a second on one core, so that estimates on tables of a few thousand rows are exact to
// rounding and the expansions serve the tables where the quadratic cost matters.
const ExactPairs = 1 << 24

// MaxFourierTerms bounds the terms of a Fourier plan (PlanFourier refuses more): a range of
// outputs more than about 10⁵ bandwidths wide is summed by the window instead.
const MaxFourierTerms = 1 << 16

// KernelPath says how kernel sums were computed and how far they can be from the exact
// Gaussian kernel's.
type KernelPath struct {
	// Name is "exact", "fourier", "window" or "rff".
	Name string
	// Terms is the Fourier terms M, or the random frequencies D; 0 otherwise.
	Terms int
	// Bound bounds the error of each kernel value k(h_a, h_b) the sums use, so that a sum
	// Σ_b k_ab c_b is within Bound·Σ_b |c_b| of the exact one: the expansion's periodisation
	// and truncation error (fourier), the largest kernel value left out (window), 0 (exact).
	// For rff it is the standard deviation bound 1/√(2D) of a random feature kernel value
	// (random, not a bound; its kernel k̂ is itself positive definite, so a test with it
	// stays valid and an estimate is of the MMD under k̂).
	Bound float64
}

// String renders the path, e.g. "fourier M=23 (kernel error ≤ 1e-10)".
func (p KernelPath) String() string {
	switch p.Name {
	case "", "exact":
		return "exact"
	case "fourier":
		return fmt.Sprintf("fourier M=%d (kernel error ≤ %.2g)", p.Terms, p.Bound)
	case "window":
		return fmt.Sprintf("window (kernel error ≤ %.2g)", p.Bound)
	case "rff":
		return fmt.Sprintf("random features D=%d (kernel sd ≤ %.2g)", p.Terms, p.Bound)
	}
	return p.Name
}

// worse returns the path of the two that is further from exact (for a report over strata).
func (p KernelPath) worse(q KernelPath) KernelPath {
	rank := func(k KernelPath) int {
		return map[string]int{"": 0, "exact": 0, "window": 1, "fourier": 2, "rff": 3}[k.Name]
	}
	if p.Name == "" { // no stratum yet
		return q
	}
	if rank(q) > rank(p) || rank(q) == rank(p) && q.Bound > p.Bound {
		return q
	}
	return p
}

// rowSumsCheck validates the arguments every RowSums takes.
func rowSumsCheck(h Rep, cols [][]float64, sigma float64) error {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return fmt.Errorf("invmmd: kernel bandwidth %v, want a finite value > 0", sigma)
	}
	if h.Dim < 1 {
		return fmt.Errorf("invmmd: outputs of %d columns", h.Dim)
	}
	for p, c := range cols {
		if len(c) < h.Len() {
			return fmt.Errorf("invmmd: factor column %d has %d rows, the outputs %d", p, len(c), h.Len())
		}
	}
	return nil
}

// chunkRows runs f over [0, n) in chunks on one goroutine per CPU (workers ≤ 0) or on
// workers goroutines, checking ctx between chunks; f(lo, hi) handles rows lo..hi−1 and must
// write only their outputs.
func chunkRows(ctx context.Context, n, workers int, f func(lo, hi int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	const chunk = 2048
	workers = max(1, min(workers, (n+chunk-1)/chunk))
	next := make(chan int, (n+chunk-1)/chunk)
	for lo := 0; lo < n; lo += chunk {
		next <- lo
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				if ctx.Err() != nil {
					return
				}
				f(lo, min(n, lo+chunk))
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// srcMask marks the source rows among the n rows of h (true: row i is a source).
func srcMask(n int, src []int) []bool {
	m := make([]bool, n)
	for _, i := range src {
		m[i] = true
	}
	return m
}

// RowSums implements Summer: every (target, source) pair, O(|tgt|·|src|·(d + P)).
func (e ExactSums) RowSums(ctx context.Context, h Rep, tgt, src []int, cols [][]float64, sigma float64) ([]float64, KernelPath, error) {
	if err := rowSumsCheck(h, cols, sigma); err != nil {
		return nil, KernelPath{}, err
	}
	P, dim := len(cols), h.Dim
	vals := make([]float64, len(src)*P) // source rows' column values, row-major
	for q, j := range src {
		for p, c := range cols {
			vals[q*P+p] = c[j]
		}
	}
	kv := make([]float64, len(tgt)*P)
	err := chunkRows(ctx, len(tgt), e.Workers, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			i, acc := tgt[a], kv[a*P:(a+1)*P]
			hi := h.Row(i)
			for q, j := range src {
				if j == i {
					continue
				}
				var k float64
				if dim == 1 {
					k = gaussian1D(hi[0], h.Data[j], sigma)
				} else {
					k = GaussianKernel(hi, h.Row(j), sigma)
				}
				vb := vals[q*P : (q+1)*P]
				for x := range acc {
					acc[x] += k * vb[x]
				}
			}
		}
	})
	return kv, KernelPath{Name: "exact"}, err
}

// RowSums implements Summer through the Fourier expansion of the Gaussian on the range of
// the target and source outputs (scalar h only): O((|tgt| + |src|)·M·P). It returns an
// error for outputs of more than one column, or a range too wide for MaxFourierTerms terms.
func (f FourierSums) RowSums(ctx context.Context, h Rep, tgt, src []int, cols [][]float64, sigma float64) ([]float64, KernelPath, error) {
	if err := rowSumsCheck(h, cols, sigma); err != nil {
		return nil, KernelPath{}, err
	}
	if h.Dim != 1 {
		return nil, KernelPath{}, fmt.Errorf("invmmd: the Fourier expansion serves one-column outputs, got %d columns; use RFFSums or ExactSums", h.Dim)
	}
	lo, hi := rangeOf2(h.Data, tgt, src)
	plan, err := PlanFourier(hi-lo, sigma, f.tol())
	if err != nil {
		return nil, KernelPath{}, err
	}
	kv, err := fourierRowSums(ctx, h.Data, tgt, src, cols, plan, (lo+hi)/2, f.Workers)
	return kv, KernelPath{Name: "fourier", Terms: plan.M, Bound: plan.Bound}, err
}

// rangeOf2 returns the smallest and largest of h over two sets of rows.
func rangeOf2(h []float64, a, b []int) (lo, hi float64) {
	l1, h1 := rangeOf(h, a)
	l2, h2 := rangeOf(h, b)
	return math.Min(l1, l2), math.Max(h1, h2)
}

// fourierRowSums accumulates the frequency sums S_mp over the source rows (per worker,
// then added), and reads KV back at each target row, less the row's own term k_L(0)·c_a
// where the target is also a source.
func fourierRowSums(ctx context.Context, h []float64, tgt, src []int, cols [][]float64, plan FourierPlan, center float64, workers int) ([]float64, error) {
	P, M := len(cols), plan.M
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nw := max(1, min(workers, len(src)/256+1))
	parts := make([]moments, nw)
	var wg sync.WaitGroup
	for w := range nw {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			mo := newMoments(M+1, P)
			v := make([]float64, P)
			for k := w; k < len(src); k += nw {
				if k%4096 == w && ctx.Err() != nil {
					return
				}
				i := src[k]
				nz := false
				for p, c := range cols {
					v[p] = c[i]
					nz = nz || v[p] != 0
				}
				if !nz {
					continue
				}
				theta := 2 * math.Pi * (h[i] - center) / plan.L
				s1, c1 := math.Sincos(theta)
				zr, zi := 1.0, 0.0
				for m := 0; m <= M; m++ {
					if m > 0 {
						if m%64 == 0 {
							zi, zr = math.Sincos(float64(m) * theta)
						} else {
							zr, zi = zr*c1-zi*s1, zr*s1+zi*c1
						}
					}
					re, im := mo.re[m*P:(m+1)*P], mo.im[m*P:(m+1)*P]
					for p, x := range v {
						re[p] += x * zr
						im[p] += x * zi
					}
				}
			}
			parts[w] = mo
		}(w)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	S := sumMoments(parts)
	wts := make([]float64, M+1)
	for m := range wts {
		wts[m] = plan.Kappa(m)
		if m > 0 {
			wts[m] *= 2
		}
	}
	k0 := plan.KernelAt(0)
	isSrc := srcMask(len(h), src)
	kv := make([]float64, len(tgt)*P)
	err := chunkRows(ctx, len(tgt), workers, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			i, acc := tgt[a], kv[a*P:(a+1)*P]
			theta := 2 * math.Pi * (h[i] - center) / plan.L
			s1, c1 := math.Sincos(theta)
			zr, zi := 1.0, 0.0
			for m := 0; m <= M; m++ {
				if m > 0 {
					if m%64 == 0 {
						zi, zr = math.Sincos(float64(m) * theta)
					} else {
						zr, zi = zr*c1-zi*s1, zr*s1+zi*c1
					}
				}
				// Re(e^{−iθm}·S) = cos·Re S + sin·Im S.
				cw, sw := wts[m]*zr, wts[m]*zi
				re, im := S.re[m*P:(m+1)*P], S.im[m*P:(m+1)*P]
				for p := range acc {
					acc[p] += cw*re[p] + sw*im[p]
				}
			}
			if isSrc[i] {
				for p, c := range cols {
					acc[p] -= k0 * c[i]
				}
			}
		}
	})
	return kv, err
}

// WindowSums is the Summer of scalar outputs that sums, for each row, only the rows within
// the kernel's reach: the outputs are sorted, and a row meets the rows whose output lies
// within r = σ·√(2 ln(1/Tol)) of its own, beyond which every kernel value is below Tol.
// Its cost is the number of pairs within r, so it serves outputs spread over a range many
// bandwidths wide (outliers, a diverging model), where the Fourier series needs too many
// terms; on outputs packed within a few bandwidths it is the exact sum.
type WindowSums struct {
	Tol     float64 // the largest kernel value left out; 0 means ReferenceFourierTol
	Workers int     // goroutines; 0 means one per CPU
}

func (w WindowSums) radius(sigma float64) (r, tol float64) {
	tol = w.Tol
	if !(tol > 0) {
		tol = ReferenceFourierTol
	}
	return sigma * math.Sqrt(2*math.Log(1/tol)), tol
}

// sortedByH returns rows sorted by their output (ties by row), and their outputs.
func sortedByH(h []float64, rows []int) ([]int, []float64) {
	s := slices.Clone(rows)
	sort.SliceStable(s, func(a, b int) bool { return h[s[a]] < h[s[b]] })
	v := make([]float64, len(s))
	for k, i := range s {
		v[k] = h[i]
	}
	return s, v
}

// PairSums implements Summer (as Σ_a cols[p][a]·KV[a][q] over the rows).
func (w WindowSums) PairSums(h Rep, rows []int, cols [][]float64, sigma float64) ([][]float64, error) {
	kv, _, err := w.RowSums(context.Background(), h, rows, rows, cols, sigma)
	if err != nil {
		return nil, err
	}
	return pairsFromRows(rows, cols, kv), nil
}

// RowSums implements Summer for scalar outputs.
func (w WindowSums) RowSums(ctx context.Context, h Rep, tgt, src []int, cols [][]float64, sigma float64) ([]float64, KernelPath, error) {
	if err := rowSumsCheck(h, cols, sigma); err != nil {
		return nil, KernelPath{}, err
	}
	if h.Dim != 1 {
		return nil, KernelPath{}, fmt.Errorf("invmmd: the window serves one-column outputs, got %d columns", h.Dim)
	}
	r, tol := w.radius(sigma)
	P := len(cols)
	ss, sv := sortedByH(h.Data, src)
	vals := make([]float64, len(ss)*P)
	for q, j := range ss {
		for p, c := range cols {
			vals[q*P+p] = c[j]
		}
	}
	kv := make([]float64, len(tgt)*P)
	err := chunkRows(ctx, len(tgt), w.Workers, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			i, acc := tgt[a], kv[a*P:(a+1)*P]
			x := h.Data[i]
			for q := sort.SearchFloat64s(sv, x-r); q < len(ss) && sv[q] <= x+r; q++ {
				if ss[q] == i {
					continue
				}
				k := gaussian1D(x, sv[q], sigma)
				vb := vals[q*P : (q+1)*P]
				for p := range acc {
					acc[p] += k * vb[p]
				}
			}
		}
	})
	return kv, KernelPath{Name: "window", Bound: tol}, err
}

// windowPairs counts the (target, source) pairs within r of each other, in
// O((|tgt| + |src|) log) time: the window's cost.
func windowPairs(h []float64, tgt, src []int, r float64) float64 {
	_, sv := sortedByH(h, src)
	_, tv := sortedByH(h, tgt)
	var c float64
	lo, hi := 0, 0
	for _, x := range tv {
		for lo < len(sv) && sv[lo] < x-r {
			lo++
		}
		for hi < len(sv) && sv[hi] <= x+r {
			hi++
		}
		c += float64(hi - lo)
	}
	return c
}

// pairsFromRows returns Q[p][q] = Σ_a cols[p][rows[a]]·kv[a][q].
func pairsFromRows(rows []int, cols [][]float64, kv []float64) [][]float64 {
	P := len(cols)
	q := make([][]float64, P)
	for x := range q {
		q[x] = make([]float64, P)
	}
	for a, i := range rows {
		ka := kv[a*P : (a+1)*P]
		for x, c := range cols {
			v := c[i]
			if v == 0 {
				continue
			}
			for y := range ka {
				q[x][y] += v * ka[y]
			}
		}
	}
	return q
}

// RowSums implements Summer with the random features of the draw (outputs of any width):
// O((|tgt| + |src|)·D·(d + P)).
func (rf RFFSums) RowSums(ctx context.Context, h Rep, tgt, src []int, cols [][]float64, sigma float64) ([]float64, KernelPath, error) {
	if err := rowSumsCheck(h, cols, sigma); err != nil {
		return nil, KernelPath{}, err
	}
	if rf.Frequencies < 0 {
		return nil, KernelPath{}, fmt.Errorf("invmmd: RFFSums.Frequencies = %d, want ≥ 1 (or 0 for %d)", rf.Frequencies, DefaultRFFFrequencies)
	}
	D, dim, P := rf.count(), h.Dim, len(cols)
	w := rf.scaledFrequencies(dim, sigma)
	center := meanRow(h, append(slices.Clone(tgt), src...))
	workers := rf.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nw := max(1, min(workers, len(src)/64+1))
	parts := make([]moments, nw)
	var wg sync.WaitGroup
	for wk := range nw {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			mo := newMoments(D, P)
			v := make([]float64, P)
			args := make([]float64, D)
			for a := wk; a < len(src); a += nw {
				if a%4096 == wk && ctx.Err() != nil {
					return
				}
				i := src[a]
				nz := false
				for p, c := range cols {
					v[p] = c[i]
					nz = nz || v[p] != 0
				}
				if !nz {
					continue
				}
				rffArgs(h.Row(i), center, w, args)
				for j, arg := range args {
					s, c := math.Sincos(arg)
					re, im := mo.re[j*P:(j+1)*P], mo.im[j*P:(j+1)*P]
					for p, x := range v {
						re[p] += x * c
						im[p] += x * s
					}
				}
			}
			parts[wk] = mo
		}(wk)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, KernelPath{}, err
	}
	S := sumMoments(parts)
	isSrc := srcMask(h.Len(), src)
	kv := make([]float64, len(tgt)*P)
	err := chunkRows(ctx, len(tgt), workers, func(lo, hi int) {
		args := make([]float64, D)
		for a := lo; a < hi; a++ {
			i, acc := tgt[a], kv[a*P:(a+1)*P]
			rffArgs(h.Row(i), center, w, args)
			for j, arg := range args {
				s, c := math.Sincos(arg)
				re, im := S.re[j*P:(j+1)*P], S.im[j*P:(j+1)*P]
				for p := range acc {
					acc[p] += c*re[p] + s*im[p]
				}
			}
			for p := range acc {
				acc[p] /= float64(D)
			}
			if isSrc[i] { // k̂(h, h) = 1
				for p, c := range cols {
					acc[p] -= c[i]
				}
			}
		}
	})
	return kv, KernelPath{Name: "rff", Terms: D, Bound: 1 / math.Sqrt(2*float64(D))}, err
}

// meanRow returns the mean of h's rows over rows.
func meanRow(h Rep, rows []int) []float64 {
	c := make([]float64, h.Dim)
	for _, i := range rows {
		for k, x := range h.Row(i) {
			c[k] += x
		}
	}
	for k := range c {
		c[k] /= float64(max(len(rows), 1))
	}
	return c
}

// rffArgs writes ω_jᵀ(h − center) for every frequency j (w holds frequency j's components
// at j·d).
func rffArgs(row, center, w []float64, args []float64) {
	d := len(row)
	for j := range args {
		arg := 0.0
		for k, wjk := range w[j*d : (j+1)*d] {
			arg += wjk * (row[k] - center[k])
		}
		args[j] = arg
	}
}

// RowSums implements Summer: for scalar outputs the cheapest of the exact sum, the Fourier
// expansion and the window by their cost models, the exact sum whenever it has at most
// ExactPairs pairs; for outputs of more than one column the exact sum up to ExactPairs
// pairs and the random features of RFFSums (seed 1, DefaultRFFFrequencies) beyond.
func (a AutoSums) RowSums(ctx context.Context, h Rep, tgt, src []int, cols [][]float64, sigma float64) ([]float64, KernelPath, error) {
	if err := rowSumsCheck(h, cols, sigma); err != nil {
		return nil, KernelPath{}, err
	}
	return a.choose(h, tgt, src, len(cols), sigma).RowSums(ctx, h, tgt, src, cols, sigma)
}

// rowSummer is what AutoSums chooses between.
type rowSummer interface {
	RowSums(ctx context.Context, h Rep, tgt, src []int, cols [][]float64, sigma float64) ([]float64, KernelPath, error)
}

// choose returns the summer AutoSums takes for these rows: see RowSums.
func (a AutoSums) choose(h Rep, tgt, src []int, P int, sigma float64) rowSummer {
	exact := ExactSums{Workers: a.Workers}
	pairs := float64(len(tgt)) * float64(len(src))
	if pairs <= ExactPairs {
		return exact
	}
	if h.Dim != 1 {
		return RFFSums{Seed: 1, Workers: a.Workers}
	}
	f := FourierSums{Tol: a.Tol, Workers: a.Workers}
	w := WindowSums{Tol: a.Tol, Workers: a.Workers}
	perPair := 20 + float64(P) // an exponential costs about 20 multiply-adds
	best, cost := rowSummer(exact), pairs*perPair
	lo, hi := rangeOf2(h.Data, tgt, src)
	if plan, err := PlanFourier(hi-lo, sigma, f.tol()); err == nil {
		if c := float64(len(tgt)+len(src)) * float64(plan.M+1) * (2*float64(P) + 6); c < cost {
			best, cost = f, c
		}
	}
	r, _ := w.radius(sigma)
	n := float64(len(tgt) + len(src))
	if c := windowPairs(h.Data, tgt, src, r)*perPair + n*math.Log2(n+1)*4; c < cost {
		best = w
	}
	return best
}
