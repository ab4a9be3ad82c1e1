package invmmd

import (
	"fmt"
	"math"
	"slices"

	"github.com/invmmd/invmmd/invmmd/method"
)

// Rows holds, for each row of a batch, what the estimators read besides the model output h.
// All non-nil slices must have the same length.
//
// Missing Z is first-class: write NaN where Z was not observed. When Delta is nil it is
// derived from Z (Δ = 0 exactly where Z is NaN); when Delta is given, Z is ignored where
// Δ = 0 (any value, NaN included, may stand there) and must be 0 or 1 where Δ = 1. Only
// Full reads Z where Δ is 0 (it is the ground truth of simulations, where the missingness
// is simulated and the hidden Z is known); it refuses rows with a missing (NaN) Z. Every
// other method reads Z̃ = ΔZ. G, GTrue and M may be nil when no requested method needs them
// (see Method.NeedsG and friends).
//
// A nuisance of any kind (categorical, continuous, vector; see ZKind) comes as features
// instead: Psi holds ψ(Z_i) (FeatureMap and Apply; a NaN row where Z is missing) and MPsi
// the fitted m(W_i) = E[ψ(Z) | X_i, Y_i]. Then Z and M are not read, Delta (when nil) is
// derived from Psi's NaN rows, and only the joint estimand (Options.Estimand = JointMMD)
// applies unless Psi is the one-hot of a binary Z.
type Rows struct {
	Y     []float64 // label: 0 or 1, or a class 0, …, K−1 (Options.Classes = K)
	Z     []float64 // nuisance, 0 or 1; NaN (or anything, when Delta is given) where missing
	Delta []float64 // 1 when Z is observed, else 0; nil: derived from Z's (or Psi's) NaNs
	G     []float64 // learned P(Δ = 1 | X, Y), in [0, 1]
	GTrue []float64 // true P(Δ = 1 | X, Y), in [0, 1]; for ip+ and dr+
	M     []float64 // learned P(Z = 1 | X, Y), in [0, 1]

	Psi  *Features // ψ(Z_i) of a nuisance given as features; nil: the one-hot (1 − Z, Z) of the binary Z
	MPsi *Features // m(W_i) = E[ψ(Z) | X_i, Y_i]; nil: (1 − M, M) from the binary M
}

// Len returns the number of rows.
func (r Rows) Len() int { return len(r.Y) }

// Subset returns the rows at the given indices, in that order.
func (r Rows) Subset(idx []int) Rows {
	pick := func(s []float64) []float64 {
		if s == nil {
			return nil
		}
		out := make([]float64, len(idx))
		for k, i := range idx {
			out[k] = s[i]
		}
		return out
	}
	return Rows{Y: pick(r.Y), Z: pick(r.Z), Delta: pick(r.Delta), G: pick(r.G), GTrue: pick(r.GTrue), M: pick(r.M),
		Psi: r.Psi.Subset(idx), MPsi: r.MPsi.Subset(idx)}
}

// slice returns rows [lo, hi): views of r's slices, not copies.
func (r Rows) slice(lo, hi int) Rows {
	cut := func(s []float64) []float64 {
		if s == nil {
			return nil
		}
		return s[lo:hi]
	}
	return Rows{Y: cut(r.Y), Z: cut(r.Z), Delta: cut(r.Delta), G: cut(r.G), GTrue: cut(r.GTrue), M: cut(r.M),
		Psi: r.Psi.slice(lo, hi), MPsi: r.MPsi.slice(lo, hi)}
}

// withDelta returns r with Delta, when nil, derived from Psi's (or Z's) NaNs: 0 where Z is
// missing, else 1.
func (r Rows) withDelta() Rows {
	f := r.Psi
	if r.Delta != nil || f == nil && r.Z == nil {
		return r
	}
	if f == nil {
		f = &Features{Dim: 1, Data: r.Z} // Z as one feature
	}
	r.Delta = make([]float64, f.Len())
	for i := range r.Delta {
		if !hasNaN(f.Row(i)) {
			r.Delta[i] = 1
		}
	}
	return r
}

// psi returns the features ψ(Z) as columns (D of them): Psi's, or the one-hot (1 − Z, Z) of
// the binary Z. Rows with Δ = 0 hold whatever Z or Psi holds there (NaN when really
// missing); only Full reads them.
func (r Rows) psi() [][]float64 { return featureColumns(r.Psi, r.Z) }

// mPsi returns m(W) = E[ψ(Z) | X, Y] as columns: MPsi's, or (1 − M, M) from the binary M.
func (r Rows) mPsi() [][]float64 { return featureColumns(r.MPsi, r.M) }

// featureColumns returns f's columns, or, when f is nil, the pair (1 − p, p) of a binary
// variable's values (or probabilities) p, whose second is p's own slice: the caller must
// not change them.
func featureColumns(f *Features, p []float64) [][]float64 {
	if f != nil {
		cols := make([][]float64, f.Dim)
		for d := range cols {
			cols[d] = make([]float64, f.Len())
			for i := range cols[d] {
				cols[d][i] = f.Data[i*f.Dim+d]
			}
		}
		return cols
	}
	c := [][]float64{make([]float64, len(p)), p} // p itself, not a copy
	for i, v := range p {
		c[0][i] = 1 - v
	}
	return c
}

// indicator reports whether ψ is a one-hot vector of levels (a binary Z, or Psi.Indicator),
// and the number of levels.
func (r Rows) indicator() (bool, int) {
	if r.Psi == nil {
		return true, 2
	}
	return r.Psi.Indicator, r.Psi.Dim
}

// MissingZ returns the number of rows whose Z is missing (Δ = 0, or NaN when Delta is nil).
func (r Rows) MissingZ() int {
	r = r.withDelta()
	k := 0
	for _, d := range r.Delta {
		if d == 0 {
			k++
		}
	}
	return k
}

// ValidateClasses checks that r can serve the given methods for a label of k classes
// (Options.Classes; 2 for a binary label): Y is one of 0, …, k−1, the columns the methods
// need are present, all lengths agree, indicators are 0 or 1 and probabilities lie in
// [0, 1]. Z must be 0 or 1 where Δ = 1; where Δ = 0 it is not read, except by Full, which
// needs it on every row and refuses a NaN there. The error names the column, the row and
// the value.
func (r Rows) ValidateClasses(k int, methods ...method.Method) error {
	r = r.withDelta()
	n := len(r.Y)
	if n == 0 {
		return fmt.Errorf("invmmd: no rows")
	}
	if err := checkLabels(r.Y, k); err != nil {
		return err
	}
	if r.Psi != nil {
		return r.validateFeatures(methods)
	}
	switch {
	case r.Delta != nil && len(r.Delta) != n:
		return fmt.Errorf("invmmd: column Delta has %d rows, Y has %d", len(r.Delta), n)
	case r.Z == nil:
		return fmt.Errorf("invmmd: column Z is nil but %s needs it", whoNeeds("Z", methods))
	case len(r.Z) != n:
		return fmt.Errorf("invmmd: column Z has %d rows, Y has %d", len(r.Z), n)
	}
	if err := r.validateZ(methods); err != nil { // Delta has n rows: given so, or derived from Z
		return err
	}
	return r.checkColumns(n, methods, "Delta", "G", "GTrue", "M")
}

// checkColumns checks the named columns of r (of Delta, G, GTrue and M): each present when
// a method reads it (Delta always), of n rows, every value finite and 0 or 1 (Delta) or in
// [0, 1].
func (r Rows) checkColumns(n int, methods []method.Method, names ...string) error {
	cols := map[string][]float64{"Delta": r.Delta, "G": r.G, "GTrue": r.GTrue, "M": r.M}
	for _, name := range names {
		c := cols[name]
		if c == nil {
			if f := readers[name]; f == nil || slices.ContainsFunc(methods, f) {
				return fmt.Errorf("invmmd: column %s is nil but %s needs it", name, whoNeeds(name, methods))
			}
			continue
		}
		if len(c) != n {
			return fmt.Errorf("invmmd: column %s has %d rows, Y has %d", name, len(c), n)
		}
		binary := name == "Delta"
		for i, x := range c {
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				return fmt.Errorf("invmmd: row %d: %s = %v, want a finite value", i, name, x)
			case binary && x != 0 && x != 1:
				return fmt.Errorf("invmmd: row %d: %s = %v, want 0 or 1", i, name, x)
			case !binary && (x < 0 || x > 1):
				return fmt.Errorf("invmmd: row %d: %s = %v, want a probability in [0, 1]", i, name, x)
			}
		}
	}
	return nil
}

// validateZ checks Z against Δ (both of length n): 0 or 1 where observed; where missing,
// anything unless a method reads the hidden Z (Full), which refuses NaN.
func (r Rows) validateZ(methods []method.Method) error {
	full := fullOf(methods)
	for i, z := range r.Z {
		if r.Delta[i] == 1 || full >= 0 {
			if r.Delta[i] == 0 && math.IsNaN(z) {
				return fmt.Errorf("invmmd: row %d: Z is missing (NaN) but method %v needs Z on every row "+
					"(%d of %d rows have Z missing); use a missing-data estimator such as dr or ip", i, full, r.MissingZ(), len(r.Z))
			}
			if z != 0 && z != 1 {
				return fmt.Errorf("invmmd: row %d: Z = %v, want 0 or 1 (Delta = %v)", i, z, r.Delta[i])
			}
		}
	}
	return nil
}

// checkLabels checks that every label is a class 0, …, k−1, naming the first that is not.
func checkLabels(y []float64, k int) error {
	for i, v := range y {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("invmmd: row %d: Y = %v, want a finite value", i, v)
		case k <= 2 && v != 0 && v != 1:
			return fmt.Errorf("invmmd: row %d: Y = %v, want 0 or 1", i, v)
		case k > 2 && (v != math.Trunc(v) || v < 0 || v >= float64(k)):
			return fmt.Errorf("invmmd: row %d: Y = %v, want a class 0, …, %d (Options.Classes = %d)", i, v, k-1, k)
		}
	}
	return nil
}

// fullOf returns the method that reads Z where it is missing (Full), or −1 for none.
func fullOf(methods []method.Method) method.Method {
	if k := slices.IndexFunc(methods, method.Method.UsesMissingZ); k >= 0 {
		return methods[k]
	}
	return -1
}

// readers says which methods read the columns G, GTrue and M.
var readers = map[string]func(method.Method) bool{"G": method.Method.NeedsG, "GTrue": method.Method.NeedsTrueG, "M": method.Method.NeedsM}

// whoNeeds names the first method that reads column col, for errors ("every method" for
// the columns every method reads).
func whoNeeds(col string, methods []method.Method) string {
	if f := readers[col]; f != nil {
		if k := slices.IndexFunc(methods, f); k >= 0 {
			return "method " + methods[k].String()
		}
	}
	return "every method"
}

// validateFeatures is ValidateClasses for a nuisance given as features (Psi): Y and Δ are 0 or 1,
// ψ is finite where observed (everywhere for Full), m's features have ψ's dimension and are
// finite, and G lies in [0, 1].
func (r Rows) validateFeatures(methods []method.Method) error {
	n := len(r.Y)
	full := fullOf(methods)
	if r.Psi.Dim < 1 {
		return fmt.Errorf("invmmd: Psi has %d features, want at least 1", r.Psi.Dim)
	}
	if r.Psi.Len() != n || len(r.Psi.Data) != n*r.Psi.Dim {
		return fmt.Errorf("invmmd: Psi has %d values for %d rows of %d features", len(r.Psi.Data), n, r.Psi.Dim)
	}
	if err := r.checkColumns(n, methods, "Delta"); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if r.Delta[i] == 0 && full < 0 {
			continue
		}
		for d, v := range r.Psi.Row(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				if r.Delta[i] == 0 {
					return fmt.Errorf("invmmd: row %d: Z is missing but method %v needs Z on every row "+
						"(%d of %d rows have Z missing); use a missing-data estimator such as dr or ip", i, full, r.MissingZ(), n)
				}
				return fmt.Errorf("invmmd: row %d: Psi feature %d = %v, want a finite value where Z is observed", i, d, v)
			}
		}
	}
	if slices.ContainsFunc(methods, method.Method.NeedsM) {
		if r.MPsi == nil {
			return fmt.Errorf("invmmd: MPsi is nil but %s needs m(W) = E[ψ(Z) | X, Y]", whoNeeds("M", methods))
		}
		if r.MPsi.Dim != r.Psi.Dim || len(r.MPsi.Data) != n*r.Psi.Dim {
			return fmt.Errorf("invmmd: MPsi has %d values of %d features, want %d rows of %d (Psi's)", len(r.MPsi.Data), r.MPsi.Dim, n, r.Psi.Dim)
		}
		for k, v := range r.MPsi.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("invmmd: row %d: MPsi feature %d = %v, want a finite value", k/r.Psi.Dim, k%r.Psi.Dim, v)
			}
		}
	}
	return r.checkColumns(n, methods, "G", "GTrue")
}
