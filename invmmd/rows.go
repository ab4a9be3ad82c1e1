package invmmd

import (
	"fmt"
	"math"
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
type Rows struct {
	Y     []float64 // label, 0 or 1
	Z     []float64 // nuisance, 0 or 1; NaN (or anything, when Delta is given) where missing
	Delta []float64 // 1 when Z is observed, else 0; nil: derived from Z's NaNs
	G     []float64 // learned P(Δ = 1 | X, Y), in [0, 1]
	GTrue []float64 // true P(Δ = 1 | X, Y), in [0, 1]; for ip+ and dr+
	M     []float64 // learned P(Z = 1 | X, Y), in [0, 1]
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
	return Rows{Y: pick(r.Y), Z: pick(r.Z), Delta: pick(r.Delta), G: pick(r.G), GTrue: pick(r.GTrue), M: pick(r.M)}
}

// DeltaFromZ returns the missingness indicator of z: 0 where z is NaN, else 1.
func DeltaFromZ(z []float64) []float64 {
	d := make([]float64, len(z))
	for i, v := range z {
		if !math.IsNaN(v) {
			d[i] = 1
		}
	}
	return d
}

// withDelta returns r with Delta derived from Z's NaNs when it is nil.
func (r Rows) withDelta() Rows {
	if r.Delta == nil && r.Z != nil {
		r.Delta = DeltaFromZ(r.Z)
	}
	return r
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

// Validate checks that r can serve the given methods: the columns they need are present,
// all lengths agree, indicators are 0 or 1 and probabilities lie in [0, 1]. Z must be 0 or
// 1 where Δ = 1; where Δ = 0 it is not read, except by Full, which needs it on every row and
// refuses a NaN there. The error names the column, the row and the value.
func (r Rows) Validate(methods ...Method) error {
	r = r.withDelta()
	n := len(r.Y)
	if n == 0 {
		return fmt.Errorf("invmmd: no rows")
	}
	type col struct {
		name   string
		v      []float64
		binary bool
		need   bool
	}
	var needG, needGT, needM bool
	for _, m := range methods {
		needG = needG || m.NeedsG()
		needGT = needGT || m.NeedsTrueG()
		needM = needM || m.NeedsM()
	}
	cols := []col{
		{"Y", r.Y, true, true},
		{"Z", r.Z, true, true},
		{"Delta", r.Delta, true, true},
		{"G", r.G, false, needG},
		{"GTrue", r.GTrue, false, needGT},
		{"M", r.M, false, needM},
	}
	if r.Delta != nil && len(r.Delta) != n {
		return fmt.Errorf("invmmd: column Delta has %d rows, Y has %d", len(r.Delta), n)
	}
	for _, c := range cols {
		if c.name == "Z" && c.v != nil && len(c.v) == n && len(r.Delta) == n {
			if err := r.validateZ(methods); err != nil {
				return err
			}
			continue
		}
		if c.v == nil {
			if c.need {
				return fmt.Errorf("invmmd: column %s is nil but %s needs it", c.name, whoNeeds(c.name, methods))
			}
			continue
		}
		if len(c.v) != n {
			return fmt.Errorf("invmmd: column %s has %d rows, Y has %d", c.name, len(c.v), n)
		}
		for i, x := range c.v {
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				return fmt.Errorf("invmmd: row %d: %s = %v, want a finite value", i, c.name, x)
			case c.binary && x != 0 && x != 1:
				return fmt.Errorf("invmmd: row %d: %s = %v, want 0 or 1", i, c.name, x)
			case !c.binary && (x < 0 || x > 1):
				return fmt.Errorf("invmmd: row %d: %s = %v, want a probability in [0, 1]", i, c.name, x)
			}
		}
	}
	return nil
}

// validateZ checks Z against Δ (both of length n): 0 or 1 where observed; where missing,
// anything unless a method reads the hidden Z (Full), which refuses NaN.
func (r Rows) validateZ(methods []Method) error {
	var full Method = -1
	for _, m := range methods {
		if m.UsesMissingZ() {
			full = m
		}
	}
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

func whoNeeds(col string, methods []Method) string {
	for _, m := range methods {
		if (col == "G" && m.NeedsG()) || (col == "GTrue" && m.NeedsTrueG()) || (col == "M" && m.NeedsM()) {
			return "method " + m.String()
		}
	}
	return "every method"
}

// checkFinite returns an error naming the first non-finite value of v.
func checkFinite(name string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("invmmd: row %d: %s = %v, want a finite value", i, name, x)
		}
	}
	return nil
}
