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
	grad := make([]float64, dim)
	hess := mat.NewSymDense(dim, nil)
	prob := make([]float64, classes)
	w := make([]float64, p)
	for iter := range o.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(grad)
		hd := hess.RawSymmetric().Data
		clear(hd)
		for _, i := range rows {
			row := x[i*d : (i+1)*d]
			w[0] = 1
			copy(w[1:], row)
			m.probs(row, prob)
			for c := range free {
				r := prob[c+1]
				if labels[i] == c+1 {
					r--
				}
				g := grad[c*p : (c+1)*p]
				for j, v := range w {
					g[j] += r * v
				}
				for e := c; e < free; e++ {
					h := -prob[c+1] * prob[e+1]
					if e == c {
						h += prob[c+1]
					}
					if h == 0 {
						continue
					}
					for j := range p {
						hw := h * w[j]
						base := (c*p+j)*dim + e*p
						start := 0
						if e == c {
							start = j
						}
						for l := start; l < p; l++ {
							hd[base+l] += hw * w[l]
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
			return nil, fmt.Errorf("%w: the Hessian is singular at iteration %d", ErrNotConverged, iter+1)
		}
		step := mat.NewVecDense(dim, nil)
		if err := ch.SolveVecTo(step, mat.NewVecDense(dim, grad)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotConverged, err)
		}
		big := 0.0
		for c := range free {
			for j := range p {
				s := step.AtVec(c*p + j)
				m.Beta[c][j] -= s
				big = math.Max(big, math.Abs(s))
			}
		}
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
