package prop1

import (
	"math"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/method"
)

// Large-sample values of the estimators, by quadrature.
//
// Each estimator of Methods is, per row, a pair of weights a_b (b = 0, 1) and converges to
// the MMD² between the two densities q_b(h) ∝ E[a_b | h] p(h):
//
//	full  a_b = Z_b            obs  a_b = Δ Z_b (normalised over Δ = 1 rows, which cancels)
//	ip+   a_b = Δ Z_b / G      reg  a_b = m_b
//
// and dr+ equals reg here row by row: m = Z in both constructions, so dr's two reweighted
// terms ΔZ̃_bZ̃'_b'/(GG') and Δm_bΔ'm'_b'/(GG') cancel. The population is written as atoms
// (h, probability mass, E[a_b | atom]) and the MMD² as a double sum over atoms, which
// counts pairs of independent draws that land on the same atom (the population has no
// diagonal to leave out). An estimator whose q_b has zero mass for some b is undefined: NaN.

// atom is a point of the population: a value of h*, its probability and, per method of
// Methods, the conditional expectations of the method's weights a_0 and a_1 there.
type atom struct {
	h, mass float64
	a       map[method.Method][2]float64
}

// limits returns each method's large-sample MMD² for one slice.
func limits(c Config, d Direction, v Variant, y float64) map[method.Method]float64 {
	var atoms []atom
	switch d {
	case Direction1:
		atoms = atoms1(c, c.soft(v), y)
	case Direction2:
		atoms = atoms2(c.soft(v), y)
	}
	out := map[method.Method]float64{}
	for _, m := range Methods() {
		out[m] = mmdOfAtoms(atoms, m, c.Bandwidth)
	}
	return out
}

// atoms1 discretises direction 1 at Y = y: h* = 2y + ε with ε ~ N(0, σ_X²), and
// B = 1[Z ≥ 0] ~ B(1/2) independent of ε. The rule observes a row when h* < 0 or B = 0.
// Cells of width σ_X/50 over ±8 σ_X have an edge at h* = 0, where the weights jump; each
// cell's mass is exact and its weight is evaluated at the midpoint.
func atoms1(c Config, soft, y float64) []atom {
	const width, span = 0.02, 8.0 // in units of σ_X
	mu, s := 2*y, c.SigmaX
	t0 := -mu / s // the standardised position of h* = 0
	kLo := int(math.Floor((-span - t0) / width))
	kHi := int(math.Ceil((span - t0) / width))
	phi := func(t float64) float64 { return 0.5 * math.Erfc(-t/math.Sqrt2) }
	var atoms []atom
	for k := kLo; k < kHi; k++ {
		lo, hi := t0+float64(k)*width, t0+float64(k+1)*width
		h := mu + s*(lo+hi)/2
		// P(Δ = 1 | h, B = 1): 1 where h* < 0, else the soft rate; B = 0 is always observed.
		g1 := soft
		if h < 0 {
			g1 = 1
		}
		atoms = append(atoms, newAtom(h, phi(hi)-phi(lo), [2]float64{0.5, 0.5}, [2]float64{1, g1}))
	}
	return atoms
}

// atoms2 is direction 2 at Y = y: Z ~ B(1/2), h* = 1[y − Z ≥ 0], and the rule observes a
// row when h* = 1. Two atoms, one per value of Z.
func atoms2(soft, y float64) []atom {
	var atoms []atom
	for z := 0; z < 2; z++ {
		h := 0.0
		if y-float64(z) >= 0 {
			h = 1
		}
		g := h + soft*(1-h)
		ind := [2]float64{}
		ind[z] = 1
		atoms = append(atoms, newAtom(h, 0.5, ind, [2]float64{g, g}))
	}
	return atoms
}

// newAtom is the atom at h of the given mass where B = b has probability p[b] and, given
// B = b, a row is observed with probability g[b]: full's, reg's and dr+'s weights are p
// (m = Z), obs's p·g and ip+'s p·E[Δ/G] (p where G > 0, else 0).
func newAtom(h, mass float64, p, g [2]float64) atom {
	var obs, ip [2]float64
	for b := range 2 {
		obs[b] = p[b] * g[b]
		if g[b] > 0 {
			ip[b] = p[b]
		}
	}
	return atom{h: h, mass: mass, a: map[method.Method][2]float64{method.Full: p, method.Obs: obs, method.IPPlus: ip, method.Reg: p, method.DRPlus: p}}
}

// mmdOfAtoms returns the MMD² between q_1 and q_0, q_b(atom) ∝ mass · a_b, with the
// Gaussian kernel of bandwidth sigma; NaN when either has zero mass.
func mmdOfAtoms(atoms []atom, m method.Method, sigma float64) float64 {
	var q [2][]float64
	for b := 0; b < 2; b++ {
		q[b] = make([]float64, len(atoms))
		total := 0.0
		for i, at := range atoms {
			q[b][i] = at.mass * at.a[m][b]
			total += q[b][i]
		}
		if total <= 0 {
			return math.NaN()
		}
		for i := range q[b] {
			q[b][i] /= total
		}
	}
	// Σ_ij k_ij (q1_i − q0_i)(q1_j − q0_j): the MMD² as one quadratic form.
	diff := make([]float64, len(atoms))
	for i := range diff {
		diff[i] = q[1][i] - q[0][i]
	}
	sum := 0.0
	for i, ai := range atoms {
		if diff[i] == 0 {
			continue
		}
		row := 0.0
		for j, aj := range atoms {
			row += invmmd.GaussianKernel([]float64{ai.h}, []float64{aj.h}, sigma) * diff[j]
		}
		sum += diff[i] * row
	}
	return math.Max(sum, 0) // rounding can leave −1e−17 where the value is 0
}
