// Package train fits the networks of an experiment: the auxiliary models G (missingness)
// and m (nuisance regression), fit first and then frozen, and the model h, trained with the
// negative log-likelihood plus λ times the MMD penalty of one method of the paper
// (eq. (4)), with Adam. Every fit keeps the epoch with the best validation objective,
// each method judged by its own estimator, as the paper does, and trains to convergence:
// it stops once Patience epochs have brought no better validation objective (the epoch cap
// only bounds a fit that never settles), and History and FitReport record which rule ended
// it and when. h's first SelectAfter epochs are trained but never kept.
package train

import (
	"fmt"
	"math"
	"strings"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
)

// modelScope is the context scope of a network's variables; the optimizer's state lives
// elsewhere, so a snapshot of the model copies only this scope.
const modelScope = "model"

// Model is a trained network with its variables.
type Model struct {
	Net models.Net
	// Heads is the number of outputs per row of a multi-output network (models.MultiNet,
	// read by Outputs); 0 for a network with one logit per row (Logits).
	Heads int
	// Represent is the layer h's penalty acted on (Config.Represent), and Bandwidth the σ of
	// the kernel on it when that is the features (0 otherwise): what evaluation of the
	// trained model's MMD uses by default. Fit sets both.
	Represent Representation
	Bandwidth float64
	ctx       *context.Context
	backend   backends.Backend
	predict   *context.Exec
	features  *context.Exec // the penultimate layer's graph (Features), built on first use
	batch     int           // rows per prediction call (the graph's fixed batch size)
}

func newModel(b backends.Backend, net models.Net, batch int) *Model {
	return &Model{Net: net, ctx: context.New(), backend: b, batch: batch}
}

// Logits returns the network's output for every row of s, in order. Rows are fed in
// batches of a fixed size (the last one padded), so one compiled graph serves any set.
func (m *Model) Logits(s *dataset.Set) ([]float64, error) {
	if m.Heads > 0 {
		return nil, fmt.Errorf("train: this model has %d outputs per row: use Outputs", m.Heads)
	}
	return m.outputs(s, 1)
}

// Outputs returns the network's Heads outputs for every row of s, row-major (len(s) × Heads
// values): the class logits of a categorical nuisance's m, the normal means and
// log-variances of a continuous one's (models.MultiNet).
func (m *Model) Outputs(s *dataset.Set) ([]float64, error) {
	if m.Heads == 0 {
		return nil, fmt.Errorf("train: this model has one output per row: use Logits")
	}
	return m.outputs(s, m.Heads)
}

// outputs runs the prediction graph of k outputs per row (k = 1: Net.Logit) over s.
func (m *Model) outputs(s *dataset.Set, k int) ([]float64, error) {
	if m.predict == nil {
		e, err := context.NewExec(m.backend, m.ctx.In(modelScope), func(ctx *context.Context, x *Node) *Node {
			if m.Heads > 0 {
				return m.Net.(models.MultiNet).Heads(ctx, x, m.Heads)
			}
			return m.Net.Logit(ctx, x)
		})
		if err != nil {
			return nil, fmt.Errorf("train: building the prediction graph: %w", err)
		}
		m.predict = e
	}
	out, _, err := m.rows(m.predict, s, k, false)
	return out, err
}

// rows runs e (a graph of the rows' features) over s in batches of m.batch, the last one
// padded with its last row, and returns its dim values per row, row-major, refusing a value
// that is not finite. For the penultimate layer (features) dim is read from the output,
// [batch, dim]; features also names those values in the errors.
func (m *Model) rows(e *context.Exec, s *dataset.Set, dim int, features bool) ([]float64, int, error) {
	n := s.Len()
	out := make([]float64, 0, n*dim)
	for start := 0; start < n; start += m.batch {
		idx := make([]int, m.batch)
		for j := range idx {
			idx[j] = min(start+j, n-1) // pad with the last row
		}
		res, err := e.Exec(featureTensor(s, idx))
		if err != nil {
			what := "predicting rows"
			if features {
				what = "features of rows"
			}
			return nil, 0, fmt.Errorf("train: %s %d..%d of %s: %w", what, start, min(start+m.batch, n)-1, s.Name, err)
		}
		if features {
			dim = res[0].Shape().Dimensions[1]
		}
		vals := tensors.MustCopyFlatData[float32](res[0])
		for j := 0; j < m.batch && start+j < n; j++ {
			for c := 0; c < dim; c++ {
				v := float64(vals[j*dim+c])
				switch {
				case !math.IsNaN(v) && !math.IsInf(v, 0):
					out = append(out, v)
				case features:
					return nil, 0, fmt.Errorf("train: feature %d of row %d of %s is %v", c, start+j, s.Name, v)
				default:
					return nil, 0, fmt.Errorf("train: model output for row %d of %s is %v", start+j, s.Name, v)
				}
			}
		}
	}
	return out, dim, nil
}

// Probabilities returns sigmoid(Logits(s)).
func (m *Model) Probabilities(s *dataset.Set) ([]float64, error) {
	l, err := m.Logits(s)
	if err != nil {
		return nil, err
	}
	for i, v := range l {
		l[i] = 1 / (1 + math.Exp(-v))
	}
	return l, nil
}

// snapshot copies the values of the model's variables.
func (m *Model) snapshot() map[string]*tensors.Tensor {
	out := map[string]*tensors.Tensor{}
	for v := range m.ctx.IterVariables() {
		if !strings.HasPrefix(v.Scope(), "/"+modelScope) {
			continue
		}
		t, err := v.MustValue().LocalClone()
		if err != nil {
			panic(fmt.Sprintf("train: copying %s: %v", v.ScopeAndName(), err)) // host memory only
		}
		out[v.ScopeAndName()] = t
	}
	return out
}

// restore sets the model's variables back to a snapshot.
func (m *Model) restore(s map[string]*tensors.Tensor) error {
	for v := range m.ctx.IterVariables() {
		if t, ok := s[v.ScopeAndName()]; ok {
			c, err := t.LocalClone()
			if err != nil {
				return fmt.Errorf("train: restoring %s: %w", v.ScopeAndName(), err)
			}
			if err := v.SetValue(c); err != nil {
				return fmt.Errorf("train: restoring %s: %w", v.ScopeAndName(), err)
			}
		}
	}
	return nil
}

// featureTensor gathers the features of rows idx of s into a [len(idx), Shape...] tensor.
func featureTensor(s *dataset.Set, idx []int) *tensors.Tensor {
	d := s.Dim()
	buf := make([]float32, len(idx)*d)
	for k, i := range idx {
		copy(buf[k*d:(k+1)*d], s.Row(i))
	}
	dims := append([]int{len(idx)}, s.Shape...)
	return tensors.FromFlatDataAndDimensions(buf, dims...)
}

// rowsTensor gathers rows idx of v as a float32 tensor: v[idx], [len(idx)], for cols 0;
// else rows of the row-major matrix v (cols values per row), [len(idx), cols].
func rowsTensor(v []float64, cols int, idx []int) *tensors.Tensor {
	w := max(cols, 1)
	buf := make([]float32, len(idx)*w)
	for k, i := range idx {
		for c := range w {
			buf[k*w+c] = float32(v[i*w+c])
		}
	}
	if cols == 0 {
		return tensors.FromFlatDataAndDimensions(buf, len(idx))
	}
	return tensors.FromFlatDataAndDimensions(buf, len(idx), cols)
}
