// Package prop1 simulates the two constructions of Proposition 2 of the paper (appendix D),
// which show that independence on the observed rows and independence on the full
// population do not imply each other:
//
//   - Direction 1: h* ⟂ Z | Y = y holds, but h* ⟂ Z | Y = y, Δ = 1 fails. So the
//     observed-only MMD can reject (penalise) an invariant model.
//   - Direction 2: h* ⟂ Z | Y = y, Δ = 1 holds, but h* ⟂ Z | Y = y fails. So the
//     observed-only MMD can call a model invariant when it is not.
//
// Y is continuous in both constructions, so "given Y = y" is simulated by drawing every
// row at a fixed y (Y is exogenous: setting it is conditioning on it), and the MMD within
// that slice is the unconditional one (invmmd.Options.Unconditional). Construction 1's Z is
// continuous; like the proof, the package tests independence of h* from the binary event
// B = 1[Z ≥ 0]. For each slice the package reports the full-data and observed-only MMD²
// (invmmd's Full and Obs estimators) and, given the true G and m, ip+, reg and dr+, as Monte
// Carlo means ± standard errors over repetitions, next to their large-sample values
// computed independently by quadrature.
//
// Besides the proof's deterministic missingness ("hard": Δ is a function of X and Y, so
// G ∈ {0, 1} and positivity fails), a "soft" variant observes Z with probability SoftRate
// where the proof's rule says missing. Positivity then holds and the estimators that
// reweight with the true G recover the full-data value, while obs still does not in
// direction 1.
//
// The name prop1 is historical: this project first called the result Proposition 1, but
// the printed paper numbers it 2 (its Proposition 1 is "MMD = 0 iff independence"). The
// name stays so that imports and the invmmd prop1 command do not change.
package prop1

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/method"
)

// Direction names one of the proposition's two constructions.
type Direction int

// The two constructions of appendix D.
const (
	// Direction1: Y ~ N(0,1), Z ~ N(0,σ_Z²), ε ~ N(0,σ_X²), X = [Y − Z + ε, Y + Z],
	// h* = X₁ + X₂ = 2Y + ε, Δ = OR(1[X₁ + X₂ < 0], 1[X₂ − Y < 0]). Independence is tested
	// against B = 1[Z ≥ 0].
	Direction1 Direction = 1
	// Direction2: Y ~ N(0,1), Z ~ B(0.5), X = [Y − Z, Y + Z], h* = 1[X₁ ≥ 0],
	// Δ = 1[X₁ ≥ 0].
	Direction2 Direction = 2
)

// String returns "direction 1" or "direction 2".
func (d Direction) String() string { return fmt.Sprintf("direction %d", int(d)) }

// Variant selects the missingness mechanism.
type Variant int

const (
	// Hard is the proof's rule: Δ is a deterministic function of (X, Y).
	Hard Variant = iota
	// Soft observes Z with probability Config.SoftRate where the proof's rule says missing,
	// so that G > 0 everywhere (positivity).
	Soft
)

// String returns "hard" or "soft".
func (v Variant) String() string {
	if v == Soft {
		return "soft"
	}
	return "hard"
}

// Methods returns the estimators the demonstration reports, in its table's order. Full and Obs
// are the proposition's two quantities; IPPlus, Reg and DRPlus are given the true G and m
// (in both constructions X and Y determine Z, so the true m is Z itself).
func Methods() []method.Method {
	return []method.Method{method.Full, method.Obs, method.IPPlus, method.Reg, method.DRPlus}
}

// Config sets the simulation. Zero fields take the defaults listed with each field.
type Config struct {
	Seed uint64 // seed of every random draw; the same seed gives the same numbers
	N    int    // rows drawn per slice and repetition; 0 means 2000
	Reps int    // Monte Carlo repetitions per slice; 0 means 40

	// Ys1 and Ys2 are the slices Y = y of directions 1 and 2. Nil means {−0.5, 0, 0.5} and
	// {0.25, 0.5, 0.75}: direction 2's dependence lives at y ∈ (0, 1), and direction 1's
	// observed B = 1 rows need h* < 0, which grows rare as y grows.
	Ys1, Ys2 []float64

	SigmaX float64 // sd of ε in direction 1; 0 means 1
	SigmaZ float64 // sd of Z in direction 1; 0 means 1 (B's law does not depend on it)

	// SoftRate is P(Δ = 1) where the proof's rule says missing, in the soft variant;
	// 0 means 0.2 (the simulation experiment's rate).
	SoftRate float64

	// Variants to run; nil means both, Hard then Soft.
	Variants []Variant

	// Bandwidth of the Gaussian kernel on h*; 0 means invmmd.DefaultBandwidth (1).
	Bandwidth float64

	// MainFraction is invmmd.Options.MainFraction; 0 means 1 (every row serves both the
	// normalisers and the main terms). This is a demonstration of population quantities,
	// not training, and splitting the rows only adds variance.
	MainFraction float64

	// Progress, when not nil, receives one line per slice (the runs take seconds).
	Progress io.Writer
}

// Resolved returns the configuration with every default filled in (what a Result records),
// or an error naming a bad field.
func (c Config) Resolved() (Config, error) {
	c.N = cmp.Or(c.N, 2000)
	c.Reps = cmp.Or(c.Reps, 40)
	if c.Ys1 == nil {
		c.Ys1 = []float64{-0.5, 0, 0.5}
	}
	if c.Ys2 == nil {
		c.Ys2 = []float64{0.25, 0.5, 0.75}
	}
	if c.Variants == nil {
		c.Variants = []Variant{Hard, Soft}
	}
	c.SigmaX = cmp.Or(c.SigmaX, 1)
	c.SigmaZ = cmp.Or(c.SigmaZ, 1)
	c.SoftRate = cmp.Or(c.SoftRate, 0.2)
	c.Bandwidth = cmp.Or(c.Bandwidth, invmmd.DefaultBandwidth)
	c.MainFraction = cmp.Or(c.MainFraction, 1)
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.N < 4:
		return c, fmt.Errorf("prop1: Config.N = %d, want at least 4 rows per slice", c.N)
	case c.Reps < 2:
		return c, fmt.Errorf("prop1: Config.Reps = %d, want at least 2 (standard errors need two)", c.Reps)
	case !(c.SigmaX > 0) || !finite(c.SigmaX):
		return c, fmt.Errorf("prop1: Config.SigmaX = %v, want a finite value > 0", c.SigmaX)
	case !(c.SigmaZ > 0) || !finite(c.SigmaZ):
		return c, fmt.Errorf("prop1: Config.SigmaZ = %v, want a finite value > 0", c.SigmaZ)
	case !(c.SoftRate > 0 && c.SoftRate <= 1):
		return c, fmt.Errorf("prop1: Config.SoftRate = %v, want a probability in (0, 1]", c.SoftRate)
	case !(c.Bandwidth > 0) || !finite(c.Bandwidth):
		return c, fmt.Errorf("prop1: Config.Bandwidth = %v, want a finite value > 0", c.Bandwidth)
	case !(c.MainFraction > 0 && c.MainFraction <= 1):
		return c, fmt.Errorf("prop1: Config.MainFraction = %v, want a value in (0, 1]", c.MainFraction)
	case len(c.Ys1)+len(c.Ys2) == 0:
		return c, fmt.Errorf("prop1: Config.Ys1 and Ys2 are both empty: no slice to simulate")
	}
	for _, y := range slices.Concat(c.Ys1, c.Ys2) {
		if !finite(y) {
			return c, fmt.Errorf("prop1: slice value y = %v, want a finite value", y)
		}
	}
	for _, v := range c.Variants {
		if v != Hard && v != Soft {
			return c, fmt.Errorf("prop1: Config.Variants holds %d, want Hard or Soft", int(v))
		}
	}
	return c, nil
}

// soft is P(Δ = 1) where the proof's rule says missing under variant v: 0 for Hard.
func (c Config) soft(v Variant) float64 {
	if v == Soft {
		return c.SoftRate
	}
	return 0
}

// Sample draws n rows of direction d's construction at Y = y with missingness variant v,
// using cfg's σ_X, σ_Z and SoftRate. It returns h* and the rows the estimators read: Z is
// the binary nuisance (B = 1[Z ≥ 0] in direction 1), Y is 0 for every row (the slice is
// one stratum; the estimators run unconditionally), G and GTrue hold the true
// P(Δ = 1 | X, Y) and M the true P(Z = 1 | X, Y).
func Sample(rng *rand.Rand, d Direction, v Variant, y float64, n int, cfg Config) ([]float64, invmmd.Rows, error) {
	c, err := cfg.Resolved()
	if err != nil {
		return nil, invmmd.Rows{}, err
	}
	if n < 1 {
		return nil, invmmd.Rows{}, fmt.Errorf("prop1: Sample of %d rows, want at least 1", n)
	}
	soft := c.soft(v)
	h := make([]float64, n)
	r := invmmd.Rows{Y: make([]float64, n), Z: make([]float64, n), Delta: make([]float64, n),
		G: make([]float64, n), GTrue: make([]float64, n), M: make([]float64, n)}
	for i := 0; i < n; i++ {
		var b, rule float64
		switch d {
		case Direction1:
			z := c.SigmaZ * rng.NormFloat64()
			eps := c.SigmaX * rng.NormFloat64()
			x1, x2 := y-z+eps, y+z
			h[i] = x1 + x2
			if z >= 0 {
				b = 1
			}
			if x1+x2 < 0 || x2-y < 0 {
				rule = 1
			}
			// X₂ − Y = Z, so X and Y determine B: m = 1[X₂ − Y ≥ 0] = B.
			r.M[i] = b
		case Direction2:
			if rng.Float64() < 0.5 {
				b = 1
			}
			x1, x2 := y-b, y+b
			if x1 >= 0 {
				h[i], rule = 1, 1
			}
			// (X₂ − X₁)/2 = Z: m = Z.
			r.M[i] = (x2 - x1) / 2
		default:
			return nil, invmmd.Rows{}, fmt.Errorf("prop1: unknown direction %d, want 1 or 2", int(d))
		}
		g := rule + soft*(1-rule)
		r.Z[i], r.G[i], r.GTrue[i] = b, g, g
		if rng.Float64() < g {
			r.Delta[i] = 1
		}
	}
	return h, r, nil
}

// Estimate summarises one method's estimates of MMD² over the repetitions of a slice.
type Estimate struct {
	Method method.Method
	// Values holds each repetition's estimate, NaN where it was undefined (the estimator
	// saw no row carrying weight for Z = 1 or for Z = 0: invmmd reports an empty stratum).
	Values []float64
	// Mean and SE are the mean and its standard error over the defined repetitions
	// (NaN when fewer than two are defined).
	Mean, SE float64
	// Defined counts the repetitions with a defined estimate.
	Defined int
	// Limit is the estimator's large-sample value, computed by quadrature from the
	// construction's densities (independently of invmmd); NaN where the estimator is
	// undefined in the population (it never sees a row with Z = 1, or with Z = 0).
	Limit float64
}

// Slice holds the results of one construction, variant and y.
type Slice struct {
	Direction Direction
	Variant   Variant
	Y         float64
	// Observed is the mean fraction of rows with Δ = 1.
	Observed float64
	// Z1 is the mean number of rows with Z = 1 (B = 1 in direction 1) per repetition, and
	// ObservedZ1 and ObservedZ0 the mean numbers of observed rows with Z = 1 and Z = 0.
	Z1, ObservedZ1, ObservedZ0 float64
	// Estimates holds one entry per method of Methods, in that order.
	Estimates []Estimate
}

// Get returns the slice's estimate for method m.
func (s Slice) Get(m method.Method) (Estimate, bool) {
	if i := slices.IndexFunc(s.Estimates, func(e Estimate) bool { return e.Method == m }); i >= 0 {
		return s.Estimates[i], true
	}
	return Estimate{}, false
}

// Result is the outcome of Run.
type Result struct {
	Config Config // the resolved configuration (defaults filled in)
	Slices []Slice
}

// Find returns the slice of direction d, variant v and value y.
func (r Result) Find(d Direction, v Variant, y float64) (Slice, bool) {
	if i := slices.IndexFunc(r.Slices, func(s Slice) bool { return s.Direction == d && s.Variant == v && s.Y == y }); i >= 0 {
		return r.Slices[i], true
	}
	return Slice{}, false
}

// Run simulates every slice of cfg: for each direction, variant and y, Reps independent
// draws of N rows, and on each draw the MMD² of h* between Z = 1 and Z = 0 by every method
// of Methods (exact kernel sums up to 1e-10 per pair, invmmd.AutoSums). Once ctx is done
// it returns, after the slice in progress, with an error wrapping ctx.Err().
func Run(ctx context.Context, cfg Config) (Result, error) {
	c, err := cfg.Resolved()
	if err != nil {
		return Result{}, err
	}
	opts := invmmd.Options{Unconditional: true, Bandwidth: c.Bandwidth, MainFraction: c.MainFraction}
	res := Result{Config: c}
	type job struct {
		d  Direction
		ys []float64
	}
	total := len(c.Variants) * (len(c.Ys1) + len(c.Ys2))
	done := 0
	for _, j := range []job{{Direction1, c.Ys1}, {Direction2, c.Ys2}} {
		for _, v := range c.Variants {
			for yi, y := range j.ys {
				if err := ctx.Err(); err != nil {
					return Result{}, fmt.Errorf("prop1: stopped after %d of %d slices: %w", done, total, err)
				}
				s, err := runSlice(c, opts, j.d, v, yi, y)
				if err != nil {
					return Result{}, err
				}
				res.Slices = append(res.Slices, s)
				done++
				fmt.Fprintf(cmp.Or(c.Progress, io.Discard), "prop1: %d/%d slices done (%v, %v, y = %g)\n", done, total, j.d, v, y)
			}
		}
	}
	return res, nil
}

// runSlice simulates one slice. Each repetition has its own random stream, derived from
// the seed and the slice's coordinates, so a slice's numbers do not depend on which other
// slices are run.
func runSlice(c Config, opts invmmd.Options, d Direction, v Variant, yi int, y float64) (Slice, error) {
	s := Slice{Direction: d, Variant: v, Y: y}
	ests := make([]Estimate, len(Methods()))
	for k, m := range Methods() {
		ests[k] = Estimate{Method: m, Values: make([]float64, c.Reps)}
	}
	for rep := 0; rep < c.Reps; rep++ {
		stream := uint64(d)<<56 | uint64(v)<<48 | uint64(yi)<<32 | uint64(rep)
		rng := rand.New(rand.NewPCG(c.Seed, stream))
		h, rows, err := Sample(rng, d, v, y, c.N, c)
		if err != nil {
			return s, err
		}
		for i, d := range rows.Delta { // Z and Δ are 0 or 1: the counts are exact
			s.Z1 += rows.Z[i]
			s.Observed += d
			s.ObservedZ1 += d * rows.Z[i]
			s.ObservedZ0 += d * (1 - rows.Z[i])
		}
		design, err := invmmd.NewDesign(rows, opts, Methods()...)
		if err != nil {
			return s, fmt.Errorf("prop1: %v, %v, y = %g, repetition %d: %w", d, v, y, rep, err)
		}
		results, err := design.Evaluate(invmmd.ScalarRep(h), invmmd.AutoSums{})
		if err != nil {
			return s, fmt.Errorf("prop1: %v, %v, y = %g, repetition %d: %w", d, v, y, rep, err)
		}
		for k, r := range results {
			if len(r.Report.EmptyStrata) > 0 {
				ests[k].Values[rep] = math.NaN()
			} else {
				ests[k].Values[rep] = r.Value
			}
		}
	}
	reps := float64(c.Reps)
	s.Observed /= reps * float64(c.N)
	s.Z1 /= reps
	s.ObservedZ1 /= reps
	s.ObservedZ0 /= reps
	limits := limits(c, d, v, y)
	for k := range ests {
		ests[k].Mean, ests[k].SE, ests[k].Defined = meanSE(ests[k].Values)
		ests[k].Limit = limits[ests[k].Method]
	}
	s.Estimates = ests
	return s, nil
}

// BiasAllowance bounds the small-sample bias of the Full and Obs estimates of the slice.
// Their numerators and normalisers are U-statistics, so Full is the unbiased MMD² of the
// two groups, but obs and the estimators whose normalisers are estimated (a ratio of
// estimates) keep a bias of order 1/n_b, n_b the rows of group b; the allowance adds
// 1/n₁ + 1/n₀ for full (all rows) and for obs (observed rows), a generous bound since
// kernel values are at most 1. It is +Inf when obs has no row of some group.
func (s Slice) BiasAllowance(n int) float64 {
	z0 := float64(n) - s.Z1
	if s.ObservedZ1 == 0 || s.ObservedZ0 == 0 || s.Z1 == 0 || z0 == 0 {
		return math.Inf(1)
	}
	return 1/s.Z1 + 1/z0 + 1/s.ObservedZ1 + 1/s.ObservedZ0
}

// meanSE returns the mean and standard error of the non-NaN values, and their number.
func meanSE(xs []float64) (mean, se float64, n int) {
	for _, x := range xs {
		if !math.IsNaN(x) {
			mean += x
			n++
		}
	}
	if n < 2 {
		return math.NaN(), math.NaN(), n
	}
	mean /= float64(n)
	v := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) {
			v += (x - mean) * (x - mean)
		}
	}
	return mean, math.Sqrt(v / float64(n-1) / float64(n)), n
}
