package train

import (
	"fmt"
	"math"
	"slices"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
)

// A label of K > 2 classes (dataset.Set.Classes) is fitted by a network with K outputs per
// row, the class logits, trained by the softmax NLL of the one-hot label; the penalty
// treats the K logits as a representation (invmmd.Rep of width K) and sums MMD²_y over the
// K strata. A binary label keeps its single logit and the Bernoulli NLL. The functions here
// serve both, so that validation and evaluation read the same way for every K.

// LogitsRep returns the model's outputs on s as a representation: the single logit of a
// binary label (width 1), or the Heads class logits of a label of K > 2 classes — what
// the model predicts from, and what an invariance test of its prediction
// (invmmd.InvarianceTest) takes, whichever layer its penalty acted on.
func (m *Model) LogitsRep(s *dataset.Set) (invmmd.Rep, error) {
	if m.Heads == 0 {
		h, err := m.Logits(s)
		return invmmd.ScalarRep(h), err
	}
	h, err := m.Outputs(s)
	if err != nil {
		return invmmd.Rep{}, err
	}
	return invmmd.NewRep(h, m.Heads)
}

// ClassProbabilities returns, for each row of s, the probability of each of the model's
// Heads classes (the softmax of its class logits), row-major: what predict writes for a
// label of more than two classes. A model with one logit gives (1 − p, p), p = σ(logit).
func (m *Model) ClassProbabilities(s *dataset.Set) ([]float64, error) {
	h, err := m.LogitsRep(s)
	if err != nil {
		return nil, err
	}
	if h.Dim == 1 {
		out := make([]float64, 0, 2*h.Len())
		for _, v := range h.Data {
			p := 1 / (1 + math.Exp(-v))
			out = append(out, 1-p, p)
		}
		return out, nil
	}
	return softmaxRows(h), nil
}

// softmaxRows returns the softmax of each row of h, row-major.
func softmaxRows(h invmmd.Rep) []float64 {
	out := make([]float64, len(h.Data))
	for i := 0; i < h.Len(); i++ {
		copy(out[i*h.Dim:], softmax(h.Row(i)))
	}
	return out
}

// oneHot returns the row-major one-hot encoding of labels y ∈ {0, …, k−1}.
func oneHot(y []float64, k int) []float64 {
	out := make([]float64, len(y)*k)
	for i, v := range y {
		out[i*k+int(v)] = 1
	}
	return out
}

// labelNLL is the mean NLL of labels y under outputs h: the Bernoulli NLL of one logit
// (meanNLL), or the softmax NLL of K class logits.
func labelNLL(h invmmd.Rep, y []float64) float64 {
	if h.Dim == 1 {
		return meanNLL(h.Data, y, nil)
	}
	s := 0.0
	for i := range y {
		l := h.Row(i)
		mx := slices.Max(l)
		lse := 0.0
		for _, v := range l {
			lse += math.Exp(v - mx)
		}
		s += mx + math.Log(lse) - l[int(y[i])]
	}
	return s / float64(len(y))
}

// labelAccuracy is the share of rows whose predicted class is the label: the logit's sign,
// or the largest of K logits (the first on a tie).
func labelAccuracy(h invmmd.Rep, y []float64) float64 {
	c := 0
	for i := range y {
		if h.Dim == 1 && (h.Data[i] > 0) == (y[i] == 1) || h.Dim > 1 && argmax(h.Row(i)) == int(y[i]) {
			c++
		}
	}
	return float64(c) / float64(len(y))
}

func argmax(l []float64) int {
	best := 0
	for k, v := range l {
		if v > l[best] {
			best = k
		}
	}
	return best
}

// labelAUC is AUC for one logit, and MacroAUC of the class probabilities for K.
func labelAUC(h invmmd.Rep, y []float64) float64 {
	if h.Dim == 1 {
		return AUC(h.Data, y)
	}
	auc, _ := MacroAUC(softmaxRows(h), h.Dim, y)
	return auc
}

// MacroAUC returns the one-vs-rest AUC of each of k classes, scoring class c by its column
// of the row-major probabilities p (len(y) × k) against the rows whose label is c, and their
// mean over the classes present in y with at least one row of another class (the
// macro-average). A class absent from y gets 0.5 in per and is left out of the mean.
func MacroAUC(p []float64, k int, y []float64) (macro float64, per []float64) {
	if len(p) != len(y)*k {
		panic(fmt.Sprintf("train: MacroAUC: %d probabilities for %d rows of %d classes", len(p), len(y), k))
	}
	score, pos := make([]float64, len(y)), make([]float64, len(y))
	per = make([]float64, k)
	used := 0
	for c := 0; c < k; c++ {
		n := 0
		for i := range y {
			score[i], pos[i] = p[i*k+c], 0
			if int(y[i]) == c {
				pos[i] = 1
				n++
			}
		}
		per[c] = AUC(score, pos)
		if n > 0 && n < len(y) {
			macro += per[c]
			used++
		}
	}
	if used == 0 {
		return 0.5, per
	}
	return macro / float64(used), per
}
