package invmmd

import (
	"context"
	"math"
)

// AutoSums is the Summer that picks, per call, the path its cost model says is cheapest,
// and the one nil means. For row sums (the standard errors, the cross route of the test):
// the exact sum whenever it has at most ExactPairs pairs; beyond, for scalar outputs the
// cheapest of the exact sum, the Fourier expansion and the window, for outputs of more
// than one column the random features of RFFSums (seed 1, DefaultRFFFrequencies). For the
// pair sums of an estimate alone (Design.Evaluate in training and evaluation; forPairs):
// the Fourier expansion when it is cheaper than the exact sum, the exact sum otherwise,
// and the window for scalar outputs spread too wide for the expansion; for outputs of more
// than one column always the exact sum, since RFFSums has a random error.
type AutoSums struct {
	Tol     float64 // per-pair kernel error of the expansion and the window; 0 means ReferenceFourierTol
	Workers int     // 0 means one per CPU
}

func (a AutoSums) rowSums(ctx context.Context, h Rep, tgt, src []int, cols colSet, sigma float64, emit func(int, []float64)) (KernelPath, error) {
	return a.choose(h, tgt, src, cols.P, sigma).rowSums(ctx, h, tgt, src, cols, sigma, emit)
}

// choose returns the summer AutoSums takes for the row sums of these rows.
func (a AutoSums) choose(h Rep, tgt, src []int, P int, sigma float64) Summer {
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
	best, cost := Summer(exact), pairs*perPair
	if plan, center, err := f.plan(h, tgt, src, sigma); err == nil {
		if c := float64(len(tgt)+len(src)) * float64(plan.M+1) * (2*float64(P) + 6); c < cost {
			f.planned, f.center = &plan, center
			best, cost = f, c
		}
	}
	r, _ := w.radius(sigma)
	n := float64(len(tgt) + len(src))
	sortCost := n * math.Log2(n+1) * 4
	if c := windowPairs(h.Data, tgt, src, r, (cost-sortCost)/perPair)*perPair + sortCost; c < cost {
		best = w
	}
	return best
}

// forPairs returns the summer AutoSums takes for the pair sums of rows (see AutoSums):
// the Fourier expansion's one pass of (M+1)·(2P + 6) multiply-adds per row against the
// exact sum's n/2 pairs of 2P + 20 per row.
func (a AutoSums) forPairs(h Rep, rows []int, P int, sigma float64) Summer {
	w := workersOf(a.Workers)
	exact := ExactSums{Workers: w}
	if h.Dim != 1 {
		return exact
	}
	f := FourierSums{Tol: a.Tol, Workers: a.Workers}
	plan, center, err := f.plan(h, rows, nil, sigma)
	if err != nil { // outputs spread over more bandwidths than the expansion serves
		if len(rows) > 4096 {
			return WindowSums{Tol: a.Tol, Workers: w}
		}
		return exact
	}
	n, p := float64(len(rows)), float64(P)
	if float64(plan.M+1)*(2*p+6) < n/2*(2*p+20) {
		f.planned, f.center = &plan, center
		return f
	}
	return exact
}
