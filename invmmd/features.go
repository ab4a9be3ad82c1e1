package invmmd

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Nuisances of any kind (the paper's last appendix, "kernel MMD between joint and product of
// marginals"): a kernel on Z written as an inner product of features, k_z(z, z') = ψ(z)ᵀψ(z'),
// turns every term of the joint-vs-product MMD into sums of per-row factor columns, the same
// machinery as the binary estimators (see JointMMD). This file holds the feature maps ψ.

// Features is an n×Dim matrix of per-row features, row-major: the features ψ(Z_i) of each
// row's nuisance, or their conditional means m(W_i) = E[ψ(Z) | X_i, Y_i]. A row of a
// missing Z holds NaN.
type Features struct {
	Dim  int
	Data []float64 // len n·Dim; row i is Data[i*Dim : (i+1)*Dim]
	// Indicator: every row is a one-hot vector of levels (a categorical or binary Z), so
	// the diagnostics count rows and effective sizes per level.
	Indicator bool
	// Levels names the indicator features' levels (len Dim), for reports; may be nil.
	Levels []string
}

// NewFeatures returns n rows of dim zero features.
func NewFeatures(n, dim int) *Features {
	return &Features{Dim: dim, Data: make([]float64, n*dim)}
}

// Len returns the number of rows.
func (f *Features) Len() int {
	if f == nil || f.Dim == 0 {
		return 0
	}
	return len(f.Data) / f.Dim
}

// Row returns row i (a view).
func (f *Features) Row(i int) []float64 { return f.Data[i*f.Dim : (i+1)*f.Dim] }

// Subset returns the rows at idx, in that order.
func (f *Features) Subset(idx []int) *Features {
	if f == nil {
		return nil
	}
	out := &Features{Dim: f.Dim, Data: make([]float64, 0, len(idx)*f.Dim), Indicator: f.Indicator, Levels: f.Levels}
	for _, i := range idx {
		out.Data = append(out.Data, f.Row(i)...)
	}
	return out
}

// slice returns rows [lo, hi) (a view; nil for nil).
func (f *Features) slice(lo, hi int) *Features {
	if f == nil {
		return nil
	}
	g := *f
	g.Data = f.Data[lo*f.Dim : hi*f.Dim]
	return &g
}

// The kinds of nuisance (dataset.ZKind) map to these feature maps: binary and categorical
// to CategoricalMap, continuous to GaussianMap, vector to RandomFeatureMap.

// FeatureMap maps a nuisance value z (ZDim numbers) to its features ψ(z) (Dim numbers), so
// that the kernel on Z is k_z(z, z') = ψ(z)ᵀψ(z'). A map is fixed before any estimate
// (its bandwidth and range come from the training rows), so that every batch, split and
// estimator targets the same estimand.
type FeatureMap interface {
	ZDim() int // numbers per value of Z: 1, or q for a vector
	Dim() int  // features D
	// Map writes ψ(z) into psi (len Dim). z must be valid for the map (see Check).
	Map(z, psi []float64)
	// Check returns an error saying why z is not a value of this nuisance (a level out of
	// range, a non-finite number), or nil.
	Check(z []float64) error
	// Describe says in one line what the map is, with every parameter that fixes the
	// estimand (levels; bandwidth, range and terms; feature count and seed).
	Describe() string
}

// NormalMeans is implemented by the maps of continuous nuisances whose feature means under
// a normal Z have a closed form: MeanUnderNormal writes E[ψ(Z)] for Z ~ N(mu, diag(variance))
// into psi. The auxiliary model of a continuous Z predicts a normal (mean, variance) per row
// and this turns it into m(W) = E[ψ(Z) | X, Y].
type NormalMeans interface {
	MeanUnderNormal(mu, variance, psi []float64)
}

// Apply returns the features of z (row-major, n rows of m.ZDim() values; a row holding a
// NaN is a missing Z and gets a NaN row). The error names the first row whose observed value
// the map does not accept.
func Apply(m FeatureMap, z []float64) (*Features, error) {
	q, d := m.ZDim(), m.Dim()
	if q <= 0 || len(z)%q != 0 {
		return nil, fmt.Errorf("invmmd: %d nuisance values do not make rows of %d", len(z), q)
	}
	n := len(z) / q
	f := NewFeatures(n, d)
	if c, ok := m.(CategoricalMap); ok {
		f.Indicator, f.Levels = true, c.Names
	}
	for i := 0; i < n; i++ {
		zi, psi := z[i*q:(i+1)*q], f.Row(i)
		if hasNaN(zi) {
			for k := range psi {
				psi[k] = math.NaN()
			}
			continue
		}
		if err := m.Check(zi); err != nil {
			return nil, fmt.Errorf("invmmd: row %d: %w", i, err)
		}
		m.Map(zi, psi)
	}
	return f, nil
}

// hasNaN reports whether v holds a NaN (a missing Z).
func hasNaN(v []float64) bool { return slices.ContainsFunc(v, math.IsNaN) }

// CategoricalMap is the delta kernel k_z(z, z') = 1[z = z'] on K levels coded 0, …, K−1:
// ψ(z) is the one-hot vector of z. It is exact. With K = 2 it is the binary Z of the paper,
// and then the joint-vs-product MMD is 2·p₀²p₁² times the paper's MMD² between the two
// groups (p_b = P(Z = b | Y), JointMMD).
type CategoricalMap struct {
	K     int
	Names []string // level names for reports (optional, len K)
}

// ZDim implements FeatureMap.
func (c CategoricalMap) ZDim() int { return 1 }

// Dim implements FeatureMap.
func (c CategoricalMap) Dim() int { return c.K }

// Check implements FeatureMap.
func (c CategoricalMap) Check(z []float64) error {
	v := z[0]
	if v != math.Trunc(v) || v < 0 || v >= float64(c.K) {
		return fmt.Errorf("Z = %v, want a level code 0, …, %d", v, c.K-1)
	}
	return nil
}

// Map implements FeatureMap.
func (c CategoricalMap) Map(z, psi []float64) {
	clear(psi)
	psi[int(z[0])] = 1
}

// Describe implements FeatureMap.
func (c CategoricalMap) Describe() string {
	if len(c.Names) == c.K {
		return fmt.Sprintf("categorical, %d levels (%s), delta kernel", c.K, strings.Join(c.Names, ", "))
	}
	return fmt.Sprintf("categorical, %d levels, delta kernel", c.K)
}

// GaussianMap is the Gaussian kernel k_z(z, z') = exp(−(z − z')²/(2σ²)) on a scalar Z,
// expanded as the Fourier series of PlanFourier on a period L that covers the range
// [Lo, Hi] the map was built for:
//
//	k_z(z, z') ≈ κ₀ + Σ_{m=1..M} 2κ_m [cos ω_m(z−c) cos ω_m(z'−c) + sin ω_m(z−c) sin ω_m(z'−c)],
//
// c the range's centre, ω_m = 2πm/L. ψ(z) holds the 2M sine and cosine features scaled by
// √(2κ_m); the constant κ₀ is left out, since adding a constant to k_z leaves the
// joint-vs-product MMD unchanged (its three terms take it with weights 1, 1 and −2). For
// pairs within the range the kernel is the Gaussian to Plan.Bound (≤ the tolerance asked);
// beyond it the map's kernel is still a positive-definite (periodic) kernel, so estimates
// stay valid, only further from the Gaussian. NewGaussianMap builds it from the observed Z.
type GaussianMap struct {
	Sigma  float64     // bandwidth σ
	Lo, Hi float64     // the range the expansion covers: the observed Z widened by σ
	Plan   FourierPlan // period L and terms M (Plan.Bound: the per-pair kernel error within the range)
}

// DefaultZFourierTol is the per-pair error of the Gaussian kernel on a continuous Z when
// none is given: the expansion's kernel is within 10⁻³ of the Gaussian (whose values lie in
// [0, 1]) for every pair in the covered range. With the median bandwidth and a normal Z
// that takes about 8 terms (16 features); BENCHMARKS.md gives the step time against the
// feature count.
const DefaultZFourierTol = 1e-3

// NewGaussianMap returns the map for a continuous Z with observed values z (NaN entries are
// skipped): bandwidth sigma (0: the median heuristic, the median of |z_i − z_j| over the
// observed pairs, each pair weighted by w_i·w_j when w is given), the range
// [min z − σ, max z + σ], and per-pair tolerance tol (0: DefaultZFourierTol). w holds a
// weight per row (read on the observed rows; nil: 1 each): pass Δ/Ĝ, the inverse of the
// probability that the row's Z is observed, so that the median is that of the full data's
// pairs, which the missingness does not move — with equal weights the bandwidth, and with
// it the estimand, would change with which Z are missing. It fails on fewer than two
// observed values, a non-finite value or weight, zero spread, or a bandwidth that is not
// positive.
func NewGaussianMap(z, w []float64, sigma, tol float64) (GaussianMap, error) {
	if w != nil && len(w) != len(z) {
		return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: %d weights for %d rows", len(w), len(z))
	}
	var obs, ow []float64
	for i, v := range z {
		if math.IsNaN(v) {
			continue
		}
		if math.IsInf(v, 0) {
			return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: row %d is %v, want a finite value", i, v)
		}
		obs = append(obs, v)
		if w != nil {
			if !(w[i] > 0) || math.IsInf(w[i], 0) {
				return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: row %d has weight %v, want a finite value > 0", i, w[i])
			}
			ow = append(ow, w[i])
		}
	}
	if len(obs) < 2 {
		return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: %d observed values, want at least 2", len(obs))
	}
	lo, hi := slices.Min(obs), slices.Max(obs)
	if lo == hi {
		return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: every observed value is %v (zero spread), so Z carries nothing to be independent of", lo)
	}
	if sigma != 0 && checkBandwidth(sigma) != nil {
		return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: bandwidth %v, want a finite value > 0 (or 0 for the median heuristic)", sigma)
	}
	if sigma == 0 {
		var err error
		if ow == nil {
			sigma, err = MedianBandwidth(ScalarRep(obs))
		} else {
			sigma, err = weightedMedianDistance(obs, ow)
		}
		if err != nil {
			return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: %w; give a bandwidth", err)
		}
	}
	tol = cmp.Or(tol, DefaultZFourierTol)
	if !(tol > 0 && tol < 1) {
		return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: tolerance %v, want a value in (0, 1)", tol)
	}
	g := GaussianMap{Sigma: sigma, Lo: lo - sigma, Hi: hi + sigma}
	plan, err := PlanFourier(g.Hi-g.Lo, sigma, tol)
	if err == nil && plan.M > MaxZFourierTerms {
		err = fmt.Errorf("%d terms, more than %d", plan.M, MaxZFourierTerms)
	}
	if err != nil {
		return GaussianMap{}, fmt.Errorf("invmmd: continuous Z: the observed Z span [%.4g, %.4g], %.3g bandwidths of %.4g, too wide for the kernel's features (%v); "+
			"give a larger bandwidth, or transform Z (e.g. its logarithm, or ranks)", lo, hi, (hi-lo)/sigma, sigma, err)
	}
	g.Plan = plan
	return g, nil
}

// MaxZFourierTerms bounds the Fourier terms of a continuous Z's features (2 features each):
// the nuisance model m predicts every feature, so a map of more would make m's output
// layer, and the features of every row, grow with the range of Z. The median bandwidth of
// a normal Z takes about 8; 256 serve a Z spread over about 500 bandwidths.
const MaxZFourierTerms = 256

// ZDim implements FeatureMap.
func (g GaussianMap) ZDim() int { return 1 }

// Dim implements FeatureMap.
func (g GaussianMap) Dim() int { return 2 * g.Plan.M }

// Check implements FeatureMap.
func (g GaussianMap) Check(z []float64) error {
	if math.IsInf(z[0], 0) {
		return fmt.Errorf("Z = %v, want a finite value", z[0])
	}
	return nil
}

// Map implements FeatureMap.
func (g GaussianMap) Map(z, psi []float64) { g.features(z[0], 0, psi) }

// MeanUnderNormal implements NormalMeans: E[cos ω(Z−c)] = cos ω(μ−c)·e^{−ω²s²/2} and
// likewise for the sine, for Z ~ N(μ, s²).
func (g GaussianMap) MeanUnderNormal(mu, variance, psi []float64) {
	g.features(mu[0], variance[0], psi)
}

func (g GaussianMap) features(z, variance float64, psi []float64) {
	c := (g.Lo + g.Hi) / 2
	for m := 1; m <= g.Plan.M; m++ {
		w := 2 * math.Pi * float64(m) / g.Plan.L
		a := math.Sqrt(2*g.Plan.Kappa(m)) * math.Exp(-w*w*variance/2)
		s, co := math.Sincos(w * (z - c))
		psi[2*(m-1)], psi[2*(m-1)+1] = a*co, a*s
	}
}

// Describe implements FeatureMap.
func (g GaussianMap) Describe() string {
	return fmt.Sprintf("continuous, Gaussian kernel σ=%.4g, Fourier expansion on [%.4g, %.4g] with M=%d (%d features, per-pair error ≤ %.1g)",
		g.Sigma, g.Lo, g.Hi, g.Plan.M, g.Dim(), g.Plan.Bound)
}

// KernelAt returns the map's own kernel ψ(a)ᵀψ(b) + κ₀ (the Gaussian to Plan.Bound within
// the range), for tests and readers.
func (g GaussianMap) KernelAt(a, b float64) float64 { return g.Plan.KernelAt(a - b) }

// RandomFeatureMap is the Gaussian kernel on a vector Z ∈ ℝ^q, standardised component by
// component (z̃_k = z_k / Scale_k), approximated by J random Fourier features (Rahimi &
// Recht 2007):
//
//	ψ(z) = √(1/J) (cos ω_jᵀz̃, sin ω_jᵀz̃)_{j=1..J},   ω_j ~ N(0, I/σ²),
//
// so that ψ(z)ᵀψ(z') = (1/J) Σ_j cos ω_jᵀ(z̃ − z̃') → exp(−‖z̃ − z̃'‖²/(2σ²)) as J grows. The
// estimand is the joint-vs-product MMD under the map's own kernel, which every estimator
// targets exactly; J and Seed fix it and are recorded (Describe).
type RandomFeatureMap struct {
	Sigma float64     // bandwidth on the standardised Z
	Scale []float64   // per-component scale (the observed standard deviation)
	Seed  uint64      // draws the frequencies
	Omega [][]float64 // J frequencies of q components
}

// DefaultRandomFeatures is the number of random frequencies J of a vector Z when none is
// given (2J = 32 features). BENCHMARKS.md gives the training step time against the count.
const DefaultRandomFeatures = 16

// MaxRandomFeatures bounds the random frequencies of a vector Z (2 features each), for the
// reason MaxZFourierTerms bounds a continuous Z's: m predicts every feature.
const MaxRandomFeatures = 1024

// NewRandomFeatureMap returns the map for a vector Z given as rows of q values (row-major;
// rows holding a NaN are missing and skipped): each component standardised by its observed
// standard deviation, bandwidth sigma on the standardised values (0: the median of the
// pairwise distances over the first 1000 observed rows), j frequencies (0:
// DefaultRandomFeatures) drawn from seed. w weighs the rows (len(z)/q of them, read on the
// observed rows; nil: equally) in the scales and the median, as in NewGaussianMap. It fails
// on fewer than two observed rows, a component with zero spread, a non-finite value or
// weight, or a bandwidth that is not positive.
func NewRandomFeatureMap(z, w []float64, q int, sigma float64, j int, seed uint64) (RandomFeatureMap, error) {
	if q < 1 || len(z)%q != 0 {
		return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: %d values do not make rows of %d", len(z), q)
	}
	j = cmp.Or(j, DefaultRandomFeatures)
	if j < 1 || j > MaxRandomFeatures {
		return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: %d random frequencies, want 1 to %d", j, MaxRandomFeatures)
	}
	if sigma != 0 && checkBandwidth(sigma) != nil {
		return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: bandwidth %v, want a finite value > 0 (or 0 for the median heuristic)", sigma)
	}
	if w != nil && len(w) != len(z)/q {
		return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: %d weights for %d rows", len(w), len(z)/q)
	}
	var rows [][]float64
	var rw []float64
	for i := 0; i < len(z)/q; i++ {
		r := z[i*q : (i+1)*q]
		if hasNaN(r) {
			continue
		}
		for k, v := range r {
			if math.IsInf(v, 0) {
				return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: row %d, component %d is %v, want a finite value", i, k, v)
			}
		}
		wi := 1.0
		if w != nil {
			if wi = w[i]; !(wi > 0) || math.IsInf(wi, 0) {
				return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: row %d has weight %v, want a finite value > 0", i, wi)
			}
		}
		rows, rw = append(rows, r), append(rw, wi)
	}
	if len(rows) < 2 {
		return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: %d observed rows, want at least 2", len(rows))
	}
	m := RandomFeatureMap{Sigma: sigma, Seed: seed, Scale: make([]float64, q)}
	for k := 0; k < q; k++ {
		var mean, ss, tot float64
		for i, r := range rows { // weighted Welford: stable for large offsets
			tot += rw[i]
			d := r[k] - mean
			mean += rw[i] / tot * d
			ss += rw[i] * d * (r[k] - mean)
		}
		sd := math.Sqrt(ss / (tot - tot/float64(len(rows)))) // ss/(n − 1) unweighted
		if !(sd > 0) {
			return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: component %d has the same value %v in every observed row (zero spread)", k, rows[0][k])
		}
		m.Scale[k] = sd
	}
	if m.Sigma == 0 {
		sub := rows[:min(len(rows), 1000)]
		type pair struct{ d, w float64 }
		var ps []pair
		for a := range sub {
			for b := a + 1; b < len(sub); b++ {
				s := 0.0
				for k := 0; k < q; k++ {
					x := (sub[a][k] - sub[b][k]) / m.Scale[k]
					s += x * x
				}
				ps = append(ps, pair{math.Sqrt(s), rw[a] * rw[b]})
			}
		}
		slices.SortFunc(ps, func(x, y pair) int { return cmp.Compare(x.d, y.d) })
		tot := 0.0
		for _, p := range ps {
			tot += p.w
		}
		acc := 0.0
		for _, p := range ps { // the (lower) weighted median
			if acc += p.w; acc >= tot/2 {
				m.Sigma = p.d
				break
			}
		}
		if !(m.Sigma > 0) {
			return RandomFeatureMap{}, fmt.Errorf("invmmd: vector Z: the median distance between observed rows is 0; give a bandwidth")
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0xfea7))
	m.Omega = make([][]float64, j)
	for i := range m.Omega {
		m.Omega[i] = make([]float64, q)
		for k := range m.Omega[i] {
			m.Omega[i][k] = rng.NormFloat64() / m.Sigma
		}
	}
	return m, nil
}

// ZDim implements FeatureMap.
func (r RandomFeatureMap) ZDim() int { return len(r.Scale) }

// Dim implements FeatureMap.
func (r RandomFeatureMap) Dim() int { return 2 * len(r.Omega) }

// Check implements FeatureMap.
func (r RandomFeatureMap) Check(z []float64) error {
	for k, v := range z {
		if math.IsInf(v, 0) {
			return fmt.Errorf("Z component %d = %v, want a finite value", k, v)
		}
	}
	return nil
}

// Map implements FeatureMap.
func (r RandomFeatureMap) Map(z, psi []float64) { r.features(z, nil, psi) }

// MeanUnderNormal implements NormalMeans: E[cos ωᵀz̃] = cos(ωᵀμ̃)·exp(−½ Σ_k ω_k² s̃_k²) for
// z̃ ~ N(μ̃, diag(s̃²)), and likewise for the sine.
func (r RandomFeatureMap) MeanUnderNormal(mu, variance, psi []float64) { r.features(mu, variance, psi) }

func (r RandomFeatureMap) features(z, variance, psi []float64) {
	a := math.Sqrt(1 / float64(len(r.Omega)))
	for j, w := range r.Omega {
		arg, damp := 0.0, 0.0
		for k, wk := range w {
			arg += wk * z[k] / r.Scale[k]
			if variance != nil {
				damp += wk * wk * variance[k] / (r.Scale[k] * r.Scale[k])
			}
		}
		s, c := math.Sincos(arg)
		e := a * math.Exp(-damp/2)
		psi[2*j], psi[2*j+1] = e*c, e*s
	}
}

// Describe implements FeatureMap.
func (r RandomFeatureMap) Describe() string {
	return fmt.Sprintf("vector of %d, Gaussian kernel σ=%.4g on the standardised Z (scales %.4g), %d random Fourier features (J=%d, seed %d)",
		r.ZDim(), r.Sigma, r.Scale, r.Dim(), len(r.Omega), r.Seed)
}

// MapSpec chooses the feature map of a continuous or vector nuisance (NewMap); the zero
// value gives the defaults.
type MapSpec struct {
	Bandwidth float64 // σ of the Gaussian kernel on Z; 0: the median heuristic on the observed Z
	Tol       float64 // continuous: per-pair kernel error of the Fourier expansion; 0: DefaultZFourierTol
	Features  int     // vector: random frequencies J (2J features); 0: DefaultRandomFeatures
	Seed      uint64  // vector: draws the frequencies
}

// NewMap returns the feature map of a nuisance described by n, fixed from its values z
// (n.Width() numbers per row, NaN where missing) — the training split's, so that every
// split and batch shares one estimand: the one-hot map of a binary or categorical Z, the
// Gaussian map of a continuous one (bandwidth and range from the observed z), random features
// for a vector. w weighs the rows in the data-driven constants (nil: equally; Δ/Ĝ makes
// them the full data's, see NewGaussianMap).
func NewMap(n dataset.Nuisance, z, w []float64, spec MapSpec) (FeatureMap, error) {
	switch n.Kind {
	case dataset.BinaryZ:
		return CategoricalMap{K: 2, Names: n.Levels}, nil
	case dataset.CategoricalZ:
		if len(n.Levels) < 2 {
			return nil, fmt.Errorf("invmmd: a categorical Z needs at least 2 levels, has %d", len(n.Levels))
		}
		return CategoricalMap{K: len(n.Levels), Names: n.Levels}, nil
	case dataset.ContinuousZ:
		return NewGaussianMap(z, w, spec.Bandwidth, spec.Tol)
	case dataset.VectorZ:
		return NewRandomFeatureMap(z, w, n.Width(), spec.Bandwidth, spec.Features, spec.Seed)
	}
	return nil, fmt.Errorf("invmmd: unknown nuisance kind %v", n.Kind)
}
