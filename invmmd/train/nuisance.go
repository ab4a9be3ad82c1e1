package train

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
)

// headsSpec is a multi-output fit: k outputs per row trained on row-major targets (cols per
// row of the set), by the softmax NLL of one-hot targets or, when normal, the NLL of
// independent normals whose means and log-variances are the outputs' two halves.
type headsSpec struct {
	k, cols int
	target  []float64
	normal  bool
}

// loss returns the batch's mean NLL of target under the outputs out. Every row of a batch
// counts: the batches of m hold only rows where Z is observed.
func (h *headsSpec) loss(out, target *Node) *Node {
	w := AddScalar(ReduceSum(ZerosLike(target), 1), 1)
	if h.normal {
		return models.WeightedNormalNLL(out, target, w)
	}
	return models.WeightedSoftmaxNLL(out, target, w)
}

// nuisanceM is the regression m(W) = E[ψ(Z) | X, Y] of a nuisance that is not binary, read
// off a fitted multi-output network: for a categorical Z the softmax of K class logits (ψ
// is the one-hot of the level, so E[ψ(Z) | W] is the class probabilities); for a continuous
// or vector Z the closed-form mean of ψ under the network's normal predictive N(μ(W),
// diag s²(W)) (invmmd.NormalMeans), fitted on Z standardised by the observed training rows'
// mean and spread.
type nuisanceM struct {
	zmap     invmmd.FeatureMap
	normal   bool
	q        int       // numbers per value of Z (normal)
	mean, sd []float64 // standardisation of each of Z's q numbers (normal)
	heads    int       // network outputs per row
}

// newNuisanceM prepares m for the nuisance of train (its kind, and for a continuous or
// vector Z the mean and spread of the observed rows obs) with feature map zmap.
func newNuisanceM(train *dataset.Set, obs []int, zmap invmmd.FeatureMap) (*nuisanceM, error) {
	nu := train.Nuisance
	switch nu.Kind {
	case dataset.CategoricalZ:
		return &nuisanceM{zmap: zmap, heads: zmap.Dim()}, nil
	case dataset.ContinuousZ, dataset.VectorZ:
		if _, ok := zmap.(invmmd.NormalMeans); !ok {
			return nil, fmt.Errorf("train: the feature map %s has no closed-form mean under a normal, so m cannot be fitted as a normal", zmap.Describe())
		}
		q := nu.Width()
		m := &nuisanceM{zmap: zmap, normal: true, q: q, mean: make([]float64, q), sd: make([]float64, q), heads: 2 * q}
		for j := 0; j < q; j++ {
			var s, ss float64
			for _, i := range obs {
				s += train.Z[i*q+j]
			}
			m.mean[j] = s / float64(len(obs))
			for _, i := range obs {
				d := train.Z[i*q+j] - m.mean[j]
				ss += d * d
			}
			m.sd[j] = math.Sqrt(ss / float64(len(obs)))
			if !(m.sd[j] > 0) {
				return nil, fmt.Errorf("train: Z's number %d is the same (%v) on every observed training row: nothing to regress", j+1, m.mean[j])
			}
		}
		return m, nil
	}
	return nil, fmt.Errorf("train: nuisance kind %v has no multi-output m", nu.Kind)
}

// cols is the number of targets per row: K one-hot values, or Z's q standardised numbers.
func (m *nuisanceM) cols() int {
	if m.normal {
		return m.q
	}
	return m.heads
}

// targets returns the network's targets for every row of s (row-major, cols per row): the
// one-hot level, or Z standardised as on the training rows. Rows not in obs (Z missing)
// get zeros and are never trained or validated on.
func (m *nuisanceM) targets(s *dataset.Set, obs []int) ([]float64, error) {
	c := m.cols()
	t := make([]float64, s.Len()*c)
	for _, i := range obs {
		if !m.normal {
			l := int(s.Z[i])
			if l < 0 || l >= c || float64(l) != s.Z[i] {
				return nil, fmt.Errorf("train: row %d of %s: Z = %v is not a level 0..%d", i, s.Name, s.Z[i], c-1)
			}
			t[i*c+l] = 1
			continue
		}
		for j := 0; j < c; j++ {
			t[i*c+j] = (s.Z[i*c+j] - m.mean[j]) / m.sd[j]
		}
	}
	return t, nil
}

// features turns the network's outputs (row-major, heads per row) into m̂ = Ê[ψ(Z) | X, Y].
func (m *nuisanceM) features(out []float64) *invmmd.Features {
	n := len(out) / m.heads
	f := invmmd.NewFeatures(n, m.zmap.Dim())
	if c, ok := m.zmap.(invmmd.CategoricalMap); ok {
		f.Levels = c.Names
	}
	mu, v := make([]float64, m.q), make([]float64, m.q)
	for i := 0; i < n; i++ {
		o, psi := out[i*m.heads:(i+1)*m.heads], f.Row(i)
		if !m.normal {
			copy(psi, softmax(o))
			continue
		}
		for j := 0; j < m.q; j++ {
			mu[j] = m.mean[j] + m.sd[j]*o[j]
			v[j] = m.sd[j] * m.sd[j] * math.Exp(o[m.q+j])
		}
		m.zmap.(invmmd.NormalMeans).MeanUnderNormal(mu, v, psi)
	}
	return f
}

// nll returns the mean NLL of the targets t (row-major, as newNuisanceM made them) of rows
// under the outputs out, and for a categorical Z the accuracy of the most probable level.
func (m *nuisanceM) nll(out, t []float64, rows []int) (nll, acc float64) {
	cols := m.cols()
	for _, i := range rows {
		o, ti := out[i*m.heads:(i+1)*m.heads], t[i*cols:(i+1)*cols]
		if m.normal {
			for j := 0; j < m.q; j++ {
				d := ti[j] - o[j]
				nll += 0.5 * (math.Log(2*math.Pi) + o[m.q+j] + d*d*math.Exp(-o[m.q+j]))
			}
			continue
		}
		p := softmax(o)
		for k := range p {
			if ti[k] == 1 {
				nll -= math.Log(math.Max(p[k], 1e-300))
			}
		}
		if ti[argmax(p)] == 1 {
			acc++
		}
	}
	return nll / float64(len(rows)), acc / float64(len(rows))
}

// baselineNLL is the validation NLL of the marginal model that ignores X and Y: the level
// frequencies of the observed training rows, or the normal with their mean and spread
// (standard normal in standardised units: outputs of mean 0 and log-variance 0). An m whose
// ValNLL is not below it has learned nothing about Z from (X, Y).
func (m *nuisanceM) baselineNLL(trainT []float64, trainObs []int, t []float64, rows []int) float64 {
	if m.normal {
		nll, _ := m.nll(make([]float64, len(t)/m.q*m.heads), t, rows)
		return nll
	}
	var nll float64
	freq := make([]float64, m.heads)
	for _, i := range trainObs {
		for k := range freq {
			freq[k] += trainT[i*m.heads+k]
		}
	}
	for _, i := range rows {
		for k := range freq {
			if t[i*m.heads+k] == 1 {
				nll -= math.Log(math.Max(freq[k]/float64(len(trainObs)), 1e-300))
			}
		}
	}
	return nll / float64(len(rows))
}

func softmax(o []float64) []float64 {
	mx := slices.Max(o)
	p := make([]float64, len(o))
	s := 0.0
	for k, v := range o {
		p[k] = math.Exp(v - mx)
		s += p[k]
	}
	for k := range p {
		p[k] /= s
	}
	return p
}

// fitNuisanceM fits m for a nuisance that is not binary on the observed rows of sp (whose
// features carry the label), keeping its best epoch by validation NLL, and returns the
// model, m̂ on the three splits and the report (with the marginal model's NLL beside).
func fitNuisanceM(ctx context.Context, b backends.Backend, sp dataset.Splits, trainObs, valObs []int, net models.Net, seed uint64, cfg AuxConfig, rt Runtime) (*Model, *nuisanceM, [3]*invmmd.Features, FitReport, error) {
	var preds [3]*invmmd.Features
	nm, err := newNuisanceM(sp.Train, trainObs, rt.ZMap)
	if err != nil {
		return nil, nil, preds, FitReport{}, err
	}
	t, err := nm.targets(sp.Train, trainObs)
	if err != nil {
		return nil, nil, preds, FitReport{}, err
	}
	vt, err := nm.targets(sp.Val, valObs)
	if err != nil {
		return nil, nil, preds, FitReport{}, err
	}
	spec := cfg.spec(RoleM, sp.Train, trainObs, seed, rt)
	spec.heads = &headsSpec{k: nm.heads, cols: nm.cols(), target: t, normal: nm.normal}
	spec.validate = func(m *Model) (float64, error) {
		out, err := m.Outputs(sp.Val)
		if err != nil {
			return 0, err
		}
		nll, _ := nm.nll(out, vt, valObs)
		return nll, nil
	}
	model, hist, err := fit(ctx, b, net, spec)
	if err != nil {
		return nil, nil, preds, FitReport{}, err
	}
	var valOut []float64
	for k, s := range []*dataset.Set{sp.Train, sp.Val, sp.Test} {
		out, err := model.Outputs(s)
		if err != nil {
			return nil, nil, preds, FitReport{}, err
		}
		if k == 1 {
			valOut = out
		}
		preds[k] = nm.features(out)
	}
	rep := newFitReport(RoleM, net, "ψ(Z) where observed: "+rt.ZMap.Describe(), trainObs, valObs, hist)
	rep.Kind, rep.HasBaseline = sp.Train.Nuisance.Kind, true
	rep.ValNLL, rep.ValAcc = nm.nll(valOut, vt, valObs)
	rep.BaselineNLL = nm.baselineNLL(t, trainObs, vt, valObs)
	return model, nm, preds, rep, nil
}
