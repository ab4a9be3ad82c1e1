package invmmd

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Kernel sums. Every estimate, standard error and test here rests on sums of the Gaussian
// kernel k(h_a, h_b) = exp(−‖h_a − h_b‖²/(2σ²)) on the rows of a Rep of any width (a
// scalar output is a one-column Rep, ScalarRep): for each row a of a set of target rows,
// the row sums
//
//	KV[a][p] = Σ_{b ∈ src, b ≠ tgt[a]} k(h_tgt[a], h_b)·cols[p][b]   (len(tgt)×P, row-major),
//
// which the jackknife standard errors and the cross route of the test read row by row,
// and, summed over the rows of one stratum, the pair sums of an estimate,
//
//	Q[p][q] = Σ_{i≠j ∈ rows} cols[p][i]·cols[q][j]·k(h_i, h_j) = Σ_a cols[p][rows[a]]·KV[a][q].
//
// A Summer computes the row sums (RowSums); the pair sums are derived from them in one
// place (PairSums), chunk by chunk, so that they never hold more than a chunk of row sums.
// Computed pair by pair the row sums cost O(|tgt|·|src|) (ExactSums); through the
// expansions that make them linear, O((|tgt| + |src|)·F) for F features of the kernel:
// the Fourier series of the Gaussian on the outputs' range (FourierSums, scalar h) or
// random Fourier features (RFFSums, h of any width), both through one accumulator of
// feature moments (featureMap, moments.go); a window over the sorted outputs where the
// range is too wide for the series (WindowSums, scalar h). AutoSums picks by cost,
// and is what nil means everywhere. Each path says what it was and its error bound
// (KernelPath). The columns are indexed by row (len ≥ h.Len()).

// Summer computes per-row kernel sums (see above). Its implementations are ExactSums,
// FourierSums, WindowSums, RFFSums and AutoSums; nil means AutoSums{}.
type Summer interface {
	// rowSums computes the row sums of the targets chunk by chunk, calling emit(lo, kv)
	// with the sums of tgt[lo : lo+len(kv)/P] (row-major), from several goroutines at once
	// for disjoint chunks.
	rowSums(ctx context.Context, h Rep, tgt, src []int, cols colSet, sigma float64, emit func(lo int, kv []float64)) (KernelPath, error)
}

// colSet is a set of P factor columns read a row at a time: fill(i, v) writes row i's P
// values to v. Columns held in memory are sliceCols; columns computed from others as they
// are read (the products of the jackknife's excess) need no memory of their own.
type colSet struct {
	P    int
	fill func(i int, v []float64)
}

// sliceCols returns the colSet of columns held as slices indexed by row.
func sliceCols(cols [][]float64) colSet {
	return colSet{P: len(cols), fill: func(i int, v []float64) {
		for p, c := range cols {
			v[p] = c[i]
		}
	}}
}

// ExactPairs is the number of (target, source) pairs up to which AutoSums takes the exact
// sum whatever the expansions would cost: about 2·10⁷ kernel evaluations, a few tenths of
// a second on one core, so that estimates on tables of a few thousand rows are exact to
// rounding and the expansions serve the tables where the quadratic cost matters.
const ExactPairs = 1 << 24

// RowSums returns the row sums KV of the targets over the sources with summer s (nil:
// AutoSums) and the path they took. It returns an error for a bandwidth that is not finite
// and positive, columns shorter than h, a path that cannot serve h (FourierSums and
// WindowSums serve one column), or ctx's error if ctx is cancelled first.
func RowSums(ctx context.Context, s Summer, h Rep, tgt, src []int, cols [][]float64, sigma float64) ([]float64, KernelPath, error) {
	if s == nil {
		s = AutoSums{}
	}
	if err := checkSums(h, cols, sigma); err != nil {
		return nil, KernelPath{}, err
	}
	P := len(cols)
	kv := make([]float64, len(tgt)*P)
	path, err := s.rowSums(ctx, h, tgt, src, sliceCols(cols), sigma, func(lo int, part []float64) { copy(kv[lo*P:], part) })
	if err != nil {
		return nil, KernelPath{}, err
	}
	return kv, path, nil
}

// PairSums returns the pair sums Q of the rows with summer s (nil: AutoSums), summed from
// the row sums a chunk at a time (pairsOf), and the path they took. AutoSums chooses its
// path for pair sums by the cost of one pass (AutoSums.forPairs); ExactSums visits each
// unordered pair once (symmetricSums).
func PairSums(ctx context.Context, s Summer, h Rep, rows []int, cols [][]float64, sigma float64) ([][]float64, KernelPath, error) {
	if err := checkSums(h, cols, sigma); err != nil {
		return nil, KernelPath{}, err
	}
	return pairSums(ctx, s, h, rows, sliceCols(cols), sigma)
}

// pairSums is PairSums of a colSet, arguments checked.
func pairSums(ctx context.Context, s Summer, h Rep, rows []int, cols colSet, sigma float64) ([][]float64, KernelPath, error) {
	if s == nil {
		s = AutoSums{}
	}
	if a, ok := s.(AutoSums); ok {
		s = a.forPairs(h, rows, cols.P, sigma)
	}
	if e, ok := s.(ExactSums); ok {
		s = symmetricSums{e.Workers}
	}
	var mu sync.Mutex
	parts := map[int][][]float64{} // per chunk, summed in chunk order for the same result on any number of workers
	path, err := s.rowSums(ctx, h, rows, rows, cols, sigma, func(lo int, kv []float64) {
		q := pairsOf(rows[lo:lo+len(kv)/max(cols.P, 1)], cols, kv, nil)
		mu.Lock()
		parts[lo] = q
		mu.Unlock()
	})
	if err != nil {
		return nil, KernelPath{}, err
	}
	q := pairsOf(nil, cols, nil, nil)
	for lo := 0; lo < len(rows); lo += sumChunk {
		for x, row := range parts[lo] {
			for y, v := range row {
				q[x][y] += v
			}
		}
	}
	return q, path, nil
}

// pairsOf adds Σ_a cols[p][rows[a]]·kv[a][q] to q (a new P×P matrix when q is nil) and
// returns it: pair sums from row sums.
func pairsOf(rows []int, cols colSet, kv []float64, q [][]float64) [][]float64 {
	P := cols.P
	if q == nil {
		q = make([][]float64, P)
		for x := range q {
			q[x] = make([]float64, P)
		}
	}
	v := make([]float64, P)
	for a, i := range rows {
		ka := kv[a*P : (a+1)*P]
		cols.fill(i, v)
		for x, vx := range v {
			if vx == 0 {
				continue
			}
			for y := range ka {
				q[x][y] += vx * ka[y]
			}
		}
	}
	return q
}

// checkBandwidth is the one validator of a kernel bandwidth: finite and positive.
func checkBandwidth(sigma float64) error {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return fmt.Errorf("invmmd: kernel bandwidth %v, want a finite value > 0", sigma)
	}
	return nil
}

// checkSums validates the arguments of every kernel sum.
func checkSums(h Rep, cols [][]float64, sigma float64) error {
	if err := checkBandwidth(sigma); err != nil {
		return err
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

// oneColumn returns an error naming path when h has more than one column.
func oneColumn(h Rep, path string) error {
	if h.Dim != 1 {
		return fmt.Errorf("invmmd: the %s serves one-column outputs, got %d columns; use RFFSums or ExactSums", path, h.Dim)
	}
	return nil
}

// sumChunk is the number of target rows a worker takes at a time.
const sumChunk = 2048

// workersOf returns w, or one per CPU when w ≤ 0.
func workersOf(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// chunkRows runs f over the targets [0, n) in chunks of sumChunk on workers goroutines
// (≤ 0: one per CPU), checking ctx between chunks; f(lo, kv) fills kv, the row sums of
// targets lo.., zeroed, and chunkRows hands them to emit.
func chunkRows(ctx context.Context, n, P, workers int, f func(lo int, kv []float64), emit func(lo int, kv []float64)) error {
	workers = max(1, min(workersOf(workers), (n+sumChunk-1)/sumChunk))
	next := make(chan int, (n+sumChunk-1)/sumChunk)
	for lo := 0; lo < n; lo += sumChunk {
		next <- lo
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			buf := make([]float64, sumChunk*P)
			for lo := range next {
				if ctx.Err() != nil {
					return
				}
				kv := buf[:(min(n, lo+sumChunk)-lo)*P]
				clear(kv)
				f(lo, kv)
				emit(lo, kv)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

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
