package fairness

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Logit is a multinomial logistic regression with a reference class: class 0's scores are
// 0 and class c > 0 scores Beta[c−1]·(1, x). Two classes give the ordinary logistic
// regression. It is the audit's nuisance model for G and m: a convex fit, solved by
// Newton's method to convergence in a few passes over the rows, so that an audit of 10⁶
// rows fits its nuisances in seconds.
type Logit struct {
	Classes int
	Beta    [][]float64 // (Classes − 1) × (1 + d): intercept first
}

// LogitOptions tune FitLogit.
type LogitOptions struct {
	// Ridge is the L2 penalty on the slopes (not the intercepts), on the scale of the sum of
	// the rows' log losses; 0 means 1. It keeps the fit finite where a feature separates the
	// classes.
	Ridge float64
	// MaxIter bounds Newton's iterations (0 means 50); Tol is the largest change of a
	// coefficient that stops them (0 means 1e-7).
	MaxIter int
	Tol     float64
}

// ErrNotConverged is returned when Newton's method did not meet its tolerance.
var ErrNotConverged = errors.New("the logistic regression did not converge")

// FitLogit fits classes-class logistic regression of labels (0..classes−1) on the rows
// rows of x (row-major, d columns), with weights 1. It checks ctx between iterations.
func FitLogit(ctx context.Context, x []float64, d int, labels []int, rows []int, classes int, o LogitOptions) (*Logit, error) {
	if o.Ridge == 0 {
		o.Ridge = 1
	}
	if o.MaxIter == 0 {
		o.MaxIter = 50
	}
	if o.Tol == 0 {
		o.Tol = 1e-7
	}
	if classes < 2 {
		return nil, fmt.Errorf("a logistic regression needs 2 classes or more, not %d", classes)
	}
	p := d + 1
	free := classes - 1
	dim := free * p
	m := &Logit{Classes: classes, Beta: make([][]float64, free)}
	for c := range m.Beta {
		m.Beta[c] = make([]float64, p)
	}
	// Start from the classes' log odds.
	counts := make([]float64, classes)
	for _, i := range rows {
		counts[labels[i]]++
	}
	for c := 1; c < classes; c++ {
		m.Beta[c-1][0] = math.Log((counts[c] + 0.5) / (counts[0] + 0.5))
	}
	// Each row's nonzero features (one-hot levels are mostly zero): the gradient and the
	// Hessian cost the square of these per row, not of d.
	type sparse struct {
		idx []int32
		val []float64
	}
	rowsNZ := make([]sparse, len(rows))
	for k, i := range rows {
		sp := sparse{idx: []int32{0}, val: []float64{1}}
		for j, v := range x[i*d : (i+1)*d] {
			if v != 0 {
				sp.idx = append(sp.idx, int32(j+1))
				sp.val = append(sp.val, v)
			}
		}
		rowsNZ[k] = sp
	}
	grad := make([]float64, dim)
	hess := mat.NewSymDense(dim, nil)
	prob := make([]float64, classes)
	loss := func(beta [][]float64) float64 {
		trial := &Logit{Classes: classes, Beta: beta}
		total := 0.0
		for _, i := range rows {
			trial.probs(x[i*d:(i+1)*d], prob)
			total -= math.Log(math.Max(prob[labels[i]], 1e-300))
		}
		for _, b := range beta {
			for _, v := range b[1:] {
				total += o.Ridge * v * v / 2
			}
		}
		return total
	}
	current := loss(m.Beta)
	for iter := range o.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(grad)
		hd := hess.RawSymmetric().Data
		clear(hd)
		for k, i := range rows {
			sp := rowsNZ[k]
			m.probs(x[i*d:(i+1)*d], prob)
			for c := range free {
				r := prob[c+1]
				if labels[i] == c+1 {
					r--
				}
				g := grad[c*p : (c+1)*p]
				for t, j := range sp.idx {
					g[j] += r * sp.val[t]
				}
				for e := c; e < free; e++ {
					h := -prob[c+1] * prob[e+1]
					if e == c {
						h += prob[c+1]
					}
					if h == 0 {
						continue
					}
					for t, j := range sp.idx {
						hw := h * sp.val[t]
						for u, l := range sp.idx {
							// The upper triangle: row (c, j) ≤ column (e, l).
							if e == c && l < j {
								continue
							}
							hd[(c*p+int(j))*dim+e*p+int(l)] += hw * sp.val[u]
						}
					}
				}
			}
		}
		for c := range free {
			for j := 1; j < p; j++ {
				k := c*p + j
				grad[k] += o.Ridge * m.Beta[c][j]
				hd[k*dim+k] += o.Ridge
			}
			k := c * p
			hd[k*dim+k] += 1e-9 // the intercepts: numerically positive
		}
		var ch mat.Cholesky
		if ok := ch.Factorize(hess); !ok {
			return m, fmt.Errorf("%w: the Hessian is singular at iteration %d", ErrNotConverged, iter+1)
		}
		step := mat.NewVecDense(dim, nil)
		if err := ch.SolveVecTo(step, mat.NewVecDense(dim, grad)); err != nil {
			return m, fmt.Errorf("%w: %v", ErrNotConverged, err)
		}
		// Newton's step, halved until the penalised loss does not rise (a damped Newton
		// method: the plain step can overshoot where the classes are nearly separated).
		scale, big := 1.0, 0.0
		next := make([][]float64, free)
		for range 30 {
			big = 0
			for c := range free {
				next[c] = make([]float64, p)
				for j := range p {
					s := scale * step.AtVec(c*p+j)
					next[c][j] = m.Beta[c][j] - s
					big = math.Max(big, math.Abs(s))
				}
			}
			if l := loss(next); l <= current+1e-12*math.Abs(current) {
				current = l
				break
			}
			scale /= 2
		}
		m.Beta = next
		if big < o.Tol {
			return m, nil
		}
	}
	return m, fmt.Errorf("%w in %d iterations", ErrNotConverged, o.MaxIter)
}

// probs writes the classes' probabilities for one row of features into out.
func (m *Logit) probs(row []float64, out []float64) {
	out[0] = 0
	top := 0.0
	for c, b := range m.Beta {
		s := b[0]
		for j, v := range row {
			s += b[j+1] * v
		}
		out[c+1] = s
		top = math.Max(top, s)
	}
	total := 0.0
	for c := range out {
		out[c] = math.Exp(out[c] - top)
		total += out[c]
	}
	for c := range out {
		out[c] /= total
	}
}

// Probs returns the classes' probabilities for one row of features.
func (m *Logit) Probs(row []float64) []float64 {
	out := make([]float64, m.Classes)
	m.probs(row, out)
	return out
}
