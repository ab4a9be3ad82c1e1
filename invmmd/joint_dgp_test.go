package invmmd

import (
	"math"
	"math/rand/v2"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// jointDGP is a data-generating process with a categorical (3 levels) or continuous
// nuisance, known missingness G and known m(W) = E[ψ(Z) | X, Y] in the features of the
// map fm, for the tests of the joint estimand. Y ~ B(0.5);
//
//	categorical: Z | Y ~ Cat(pZ[Y]),     X | Y, Z ~ N(Z + 0.5·Y, 1);
//	continuous:  Z | Y ~ N(2Y − 1, 1),   X | Y, Z ~ N(Z + 0.5·Y, 1);
//
// the model output is h = X (it leaks Z), and Z is observed with probability
// G(x, y) = 0.15 + 0.8·σ(s(x − 0.7) + y), s = 3 (categorical) or 8 (continuous), which
// depends on X, so that the observed rows are a biased sample (the situation of the paper's
// Proposition 2; with a continuous Z the selection has to be sharper for the observed rows'
// dependence to differ measurably).
type jointDGP struct {
	kind dataset.ZKind
	fm   FeatureMap
}

var jointPZ = [2][3]float64{{0.5, 0.3, 0.2}, {0.2, 0.3, 0.5}}

func newJointDGP(kind dataset.ZKind) jointDGP {
	if kind == dataset.CategoricalZ {
		return jointDGP{kind: kind, fm: CategoricalMap{K: 3, Names: []string{"a", "b", "c"}}}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	z := make([]float64, 4000)
	for i := range z {
		z[i] = 2*float64(rng.IntN(2)) - 1 + rng.NormFloat64()
	}
	fm, err := NewGaussianMap(z, nil, 0, 0)
	if err != nil {
		panic(err)
	}
	return jointDGP{kind: kind, fm: fm}
}

func (d jointDGP) g(x, y float64) float64 {
	s := 3.0
	if d.kind == dataset.ContinuousZ {
		s = 8
	}
	return 0.15 + 0.8/(1+math.Exp(-(s*(x-0.7)+y)))
}

// m writes the true E[ψ(Z) | X = x, Y = y] into out; wrong writes a wrong one that ignores
// X (the mean within Y).
func (d jointDGP) m(x, y float64, wrong bool, out []float64) {
	if d.kind == dataset.CategoricalZ {
		p := jointPZ[int(y)]
		tot := 0.0
		for b := range out {
			out[b] = p[b]
			if !wrong {
				out[b] *= math.Exp(-0.5 * sq(x-float64(b)-0.5*y))
			}
			tot += out[b]
		}
		for b := range out {
			out[b] /= tot
		}
		return
	}
	mu, v := 2*y-1, 1.0
	if !wrong { // prior N(2y − 1, 1), likelihood x − 0.5y ~ N(z, 1)
		mu, v = (2*y-1+x-0.5*y)/2, 0.5
	}
	d.fm.(NormalMeans).MeanUnderNormal([]float64{mu}, []float64{v}, out)
}

// draw returns n rows: h, the rows with ψ(Z) on every row (the hidden truth where Δ = 0,
// for full), the true G (as G and GTrue) and the true m; and the raw Z.
func (d jointDGP) draw(rng *rand.Rand, n int) ([]float64, Rows, []float64) {
	h, z := make([]float64, n), make([]float64, n)
	r := Rows{Y: make([]float64, n), Delta: make([]float64, n), G: make([]float64, n), GTrue: make([]float64, n),
		MPsi: NewFeatures(n, d.fm.Dim())}
	for i := 0; i < n; i++ {
		y := float64(rng.IntN(2))
		var zi float64
		if d.kind == dataset.CategoricalZ {
			u, p := rng.Float64(), jointPZ[int(y)]
			switch {
			case u < p[0]:
				zi = 0
			case u < p[0]+p[1]:
				zi = 1
			default:
				zi = 2
			}
		} else {
			zi = 2*y - 1 + rng.NormFloat64()
		}
		x := zi + 0.5*y + rng.NormFloat64()
		g := d.g(x, y)
		if rng.Float64() < g {
			r.Delta[i] = 1
		}
		d.m(x, y, false, r.MPsi.Row(i))
		h[i], z[i], r.Y[i], r.G[i], r.GTrue[i] = x, zi, y, g, g
	}
	psi, err := Apply(d.fm, z)
	if err != nil {
		panic(err)
	}
	r.Psi = psi
	return h, r, z
}

// withWrong returns rows whose learned G and/or m are replaced by wrong models: G by the
// constant 0.5, m by the mean within Y (ignoring X). GTrue keeps the truth.
func (d jointDGP) withWrong(rows Rows, h []float64, wrongG, wrongM bool) Rows {
	r := rows
	if wrongG {
		r.G = make([]float64, rows.Len())
		for i := range r.G {
			r.G[i] = 0.5
		}
	}
	if wrongM {
		r.MPsi = NewFeatures(rows.Len(), d.fm.Dim())
		for i := range rows.Y {
			d.m(h[i], rows.Y[i], true, r.MPsi.Row(i))
		}
	}
	return r
}
