package fairness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Nuisances are Ĝ and m̂ for every row, cross-fitted: the rows are dealt into folds within
// each (Y, Δ) cell, and each row's Ĝ and m̂ come from logistic regressions fitted on the
// other folds (DoubleML's DML2, Chernozhukov et al. 2018), so that the doubly robust
// estimates carry no overfitting term and their influence-function intervals need no
// correction for the fit.
type Nuisances struct {
	G     []float64   // Ĝ(W) = P(Δ = 1 | X, Y); 1 for every row when Z is never missing
	M     [][]float64 // m̂_a(W) = P(Z = a | X, Y, Δ = 1)
	Folds int
	// FittedG is false when Z is observed on every row (Ĝ = 1: dr, ip and complete_case
	// are then one estimate, the complete data's).
	FittedG bool
	// LossG and LossM are the out-of-fold mean log losses (G over every row, m over the
	// observed rows), for comparing nuisance models on held-out rows.
	LossG, LossM float64
	// MinG and MaxG are Ĝ's range; BelowFloor counts observed rows whose Ĝ is under the
	// floor that ip and dr divide by (positivity).
	MinG, MaxG float64
	BelowFloor int
	// NotConverged counts the fits (of 2 × Folds) that met no tolerance in their
	// iterations; their last coefficients are used.
	NotConverged int
}

// NuisanceOptions tune FitNuisances.
type NuisanceOptions struct {
	Folds int    // 0 means 5
	Seed  uint64 // deals the rows into folds
	Logit LogitOptions
	Floor float64 // the positivity floor reported (0 means 0.05)
}

// FitNuisances fits Ĝ and m̂ for d's rows from the features x (row-major, dim columns; the
// label is added as a feature, so that both condition on W = (X, Y)).
func FitNuisances(ctx context.Context, d *Data, x []float64, dim int, o NuisanceOptions) (*Nuisances, error) {
	if o.Folds == 0 {
		o.Folds = 5
	}
	if o.Floor == 0 {
		o.Floor = 0.05
	}
	n := d.Len()
	if len(x) != n*dim {
		return nil, fmt.Errorf("features: %d values for %d rows of %d columns", len(x), n, dim)
	}
	if o.Folds < 2 || n < 2*o.Folds {
		return nil, fmt.Errorf("cross-fitting on %d folds needs 2 folds or more and 2 rows a fold (%d rows)", o.Folds, n)
	}
	w, wd := withLabel(x, dim, d.Y)
	delta := make([]int, n)
	for i, g := range d.Group {
		if g >= 0 {
			delta[i] = 1
		}
	}
	folds := CellFolds(d.Y, delta, o.Folds, o.Seed)
	nu := &Nuisances{G: make([]float64, n), M: make([][]float64, n), Folds: o.Folds, MinG: 1, MaxG: 1}
	k := len(d.Levels)
	for i := range nu.M {
		nu.M[i] = make([]float64, k)
	}
	observed := d.Observed()
	nu.FittedG = observed < n
	var lossG, lossM float64
	for f, held := range folds {
		var train []int
		for j, other := range folds {
			if j != f {
				train = append(train, other...)
			}
		}
		slices.Sort(train)
		var trainObs []int
		for _, i := range train {
			if delta[i] == 1 {
				trainObs = append(trainObs, i)
			}
		}
		if nu.FittedG {
			g, err := FitLogit(ctx, w, wd, delta, train, 2, o.Logit)
			if errors.Is(err, ErrNotConverged) {
				nu.NotConverged++
			} else if err != nil {
				return nil, fmt.Errorf("fitting G on the folds other than %d of %d: %w", f+1, o.Folds, err)
			}
			for _, i := range held {
				p := g.Probs(w[i*wd : (i+1)*wd])[1]
				nu.G[i] = p
				if delta[i] == 0 {
					p = 1 - p
				}
				lossG -= math.Log(math.Max(1e-15, p))
			}
		} else {
			for _, i := range held {
				nu.G[i] = 1
			}
		}
		m, err := FitLogit(ctx, w, wd, d.Group, trainObs, k, o.Logit)
		if errors.Is(err, ErrNotConverged) {
			nu.NotConverged++
		} else if err != nil {
			return nil, fmt.Errorf("fitting m on the folds other than %d of %d: %w", f+1, o.Folds, err)
		}
		for _, i := range held {
			m.probs(w[i*wd:(i+1)*wd], nu.M[i])
			if delta[i] == 1 {
				lossM -= math.Log(math.Max(1e-15, nu.M[i][d.Group[i]]))
			}
		}
	}
	nu.LossG, nu.LossM = lossG/float64(n), lossM/float64(max(observed, 1))
	if !nu.FittedG {
		nu.LossG = 0
	}
	nu.MinG, nu.MaxG = slices.Min(nu.G), slices.Max(nu.G)
	for i, g := range nu.G {
		if delta[i] == 1 && g < o.Floor {
			nu.BelowFloor++
		}
	}
	return nu, nil
}

// withLabel returns x with the label appended as a last column.
func withLabel(x []float64, dim int, y []int) ([]float64, int) {
	n := len(y)
	w := make([]float64, n*(dim+1))
	for i := range n {
		copy(w[i*(dim+1):], x[i*dim:(i+1)*dim])
		w[i*(dim+1)+dim] = float64(y[i])
	}
	return w, dim + 1
}

// CellFolds deals the rows of each (Y, Δ) cell, shuffled by seed, into k folds in turn, so
// that every fold holds the same shares of each label and of missing Z; each fold's rows are
// sorted. The cross-fitting of the audit and of invmmd estimate and test share it.
func CellFolds[T int | float64](y, delta []T, k int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 0xf01d5))
	cells := map[[2]T][]int{}
	for i := range y {
		key := [2]T{y[i], delta[i]}
		cells[key] = append(cells[key], i)
	}
	keys := make([][2]T, 0, len(cells))
	for key := range cells {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b [2]T) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	out := make([][]int, k)
	next := 0
	for _, key := range keys {
		cell := cells[key]
		rng.Shuffle(len(cell), func(a, b int) { cell[a], cell[b] = cell[b], cell[a] })
		for _, i := range cell {
			out[next%k] = append(out[next%k], i)
			next++
		}
	}
	for f := range out {
		slices.Sort(out[f])
	}
	return out
}
