package owndata

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// What a saved model says of a table's rows: its features read and encoded as in
// training, each class's probability, the logits and the most probable class.

// ReadTable reads the model's feature columns from a CSV file (a column the file lacks is
// named as "a feature the model was trained on").
func (m *Model) ReadTable(path string) (*tabular.Table, error) {
	return m.readFeatures(context.Background(), path)
}

// readFeatures reads the model's feature columns from the CSV file at path, stopping once
// ctx is done.
func (m *Model) readFeatures(ctx context.Context, path string) (*tabular.Table, error) {
	cols := make([]string, len(m.Info.Encoder.Features))
	for i, f := range m.Info.Encoder.Features {
		cols[i] = f.Column
	}
	tab, err := tabular.ReadFileContext(ctx, path, cols)
	var ce *tabular.ColumnError
	if errors.As(err, &ce) {
		ce.Setting = "a feature the model was trained on"
	}
	return tab, err
}

// ReadTableContext reads the model's feature columns from the CSV file at path, as
// ReadTable, once it has read its label column, when the file has one, and refused a row
// whose label is a class the model was not trained on (checkLabel; a file without the
// column passes: predict needs only the features). Each read stops once ctx is done.
func (m *Model) ReadTableContext(ctx context.Context, path string) (*tabular.Table, error) {
	if len(m.Info.Classes) > 0 || m.Info.YPositive == "" || m.Info.YNegative != "" {
		tab, err := tabular.ReadFileContext(ctx, path, []string{m.Info.Y})
		var ce *tabular.ColumnError
		switch {
		case errors.As(err, &ce): // no label column: predict needs only the features
		case err != nil:
			return nil, err
		default:
			if err := m.checkLabel(tab); err != nil {
				return nil, err
			}
		}
	}
	return m.readFeatures(ctx, path)
}

// checkLabel refuses a row of tab (read with the model's label column) whose label is a
// class the model was not trained on: for K > 2 classes one not in Classes; for a binary
// label one other than 0 and 1, or than YPositive and YNegative when they were recorded.
// The error names file, line, column and value; a missing label is allowed.
func (m *Model) checkLabel(tab *tabular.Table) error {
	if len(m.Info.Classes) > 0 {
		_, err := tab.ClassIndex(m.Info.Y, "the model's label", m.Info.Classes)
		return err
	}
	c := tab.Column(m.Info.Y)
	if c == nil {
		return nil
	}
	classes := []string{"0", "1"}
	if m.Info.YPositive != "" {
		classes = []string{m.Info.YNegative, m.Info.YPositive}
	}
	for i := 0; i < tab.Len(); i++ {
		if c.IsMissing(i) {
			continue
		}
		v := c.Value(i)
		if m.Info.YPositive == "" {
			if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && (x == 0 || x == 1) {
				continue
			}
		} else if slices.Contains(classes, v) {
			continue
		}
		return fmt.Errorf("%s:%d: column %q (the model's label): class %q was absent from training; the model's classes are %s",
			tab.File, tab.Lines[i], m.Info.Y, v, strings.Join(classes, ", "))
	}
	return nil
}

// predictBatch is the most rows the prediction graph takes at once.
const predictBatch = 1024

// Predict returns P(Y = 1 | X) for every row of t, encoded as in training, with warnings
// for values training never showed (see tabular.Encoder.Encode). A model of a label of
// K > 2 classes has no single probability: use PredictAll.
func (m *Model) Predict(t *tabular.Table) ([]float64, []string, error) {
	if m.heads > 0 {
		return nil, nil, fmt.Errorf("%s predicts %d classes (%s): use PredictAll", m.Dir, m.heads, strings.Join(m.Info.Classes, ", "))
	}
	set, warn, err := m.prepare(t)
	if err != nil {
		return nil, nil, err
	}
	p, err := m.h.Probabilities(set)
	if err != nil {
		return nil, nil, err
	}
	return p, warn, nil
}

// ClassNames returns the names of the classes whose probabilities PredictAll gives, in
// order: the model's classes for K > 2, and for a binary label the value read as 0 ("0",
// or "not " and the positive value) and the positive value.
func (m *Model) ClassNames() []string {
	if len(m.Info.Classes) > 0 {
		return slices.Clone(m.Info.Classes)
	}
	if m.Info.YPositive == "" {
		return []string{"0", "1"}
	}
	return []string{"not " + m.Info.YPositive, m.Info.YPositive}
}

// prepare encodes the rows of t as in training and builds h for them.
func (m *Model) prepare(t *tabular.Table) (*dataset.Set, []string, error) {
	if t.Len() == 0 {
		return nil, nil, fmt.Errorf("%s has no rows to predict", t.File)
	}
	x, warn, err := m.Info.Encoder.Encode(t, allRows(t.Len()))
	if err != nil {
		return nil, nil, err
	}
	if batch := min(predictBatch, t.Len()); m.h == nil || m.hBatch != batch {
		if m.h, err = train.ModelFromWeights(m.Backend, m.net, m.ws, batch); err != nil {
			return nil, nil, err
		}
		m.h.Heads = m.heads
		m.hBatch = batch
	}
	return &dataset.Set{Name: filepath.Base(t.File), X: x, Shape: []int{m.Info.Encoder.Dim()}, Y: make([]float64, t.Len())}, warn, nil
}

// Prediction is what a model says of each row of a table: each class's probability and
// the model's logits, as predict writes them.
type Prediction struct {
	// Classes names the classes of P (ClassNames): the model's K > 2 classes, or a binary
	// label's value read as 0 and its positive value.
	Classes []string
	// P holds each row's class probabilities, row-major (rows × len(Classes); for a binary
	// label 1 − p and p).
	P []float64
	// Logits holds each row's logits, row-major (rows × NumLogits): a binary model's one
	// logit, log(p / (1 − p)), or a K-class model's K class logits (softmax gives P).
	Logits    []float64
	NumLogits int
}

// Rows returns the number of rows predicted.
func (p *Prediction) Rows() int { return len(p.P) / max(1, len(p.Classes)) }

// Class returns the index in Classes of row i's most probable class (the first on a tie).
func (p *Prediction) Class(i int) int {
	k := len(p.Classes)
	return mostProbable(p.P[i*k : (i+1)*k])
}

// mostProbable returns the index of the largest of ps (the first on a tie).
func mostProbable(ps []float64) int {
	best := 0
	for k, v := range ps {
		if v > ps[best] {
			best = k
		}
	}
	return best
}

// PredictAll returns the class probabilities and the logits of every row of t, with the
// warnings of Predict. It returns once ctx is done, with its error.
func (m *Model) PredictAll(ctx context.Context, t *tabular.Table) (*Prediction, []string, error) {
	set, warn, err := m.prepare(t)
	if err != nil {
		return nil, nil, err
	}
	out, err := await(ctx, func() (*Prediction, error) {
		out := &Prediction{Classes: m.ClassNames()}
		var err error
		if out.P, err = m.h.ClassProbabilities(set); err != nil {
			return nil, err
		}
		rep, err := m.h.LogitsRep(set)
		if err != nil {
			return nil, err
		}
		out.Logits, out.NumLogits = rep.Data, rep.Dim
		return out, nil
	})
	return out, warn, err
}
