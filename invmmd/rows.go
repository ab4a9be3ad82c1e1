package invmmd

import (
	"fmt"
	"math"
)

// Rows holds, for each row of a batch, what the estimators read besides the model output h.
// All non-nil slices must have the same length.
//
// Z is the true nuisance. Only Full reads Z where Delta is 0; every other method reads
// Z̃ = ΔZ, so for real data with missing Z any value may stand in those rows. G, GTrue and
// M may be nil when no requested method needs them (see Method.NeedsG and friends).
type Rows struct {
	Y     []float64 // label, 0 or 1
	Z     []float64 // nuisance, 0 or 1
	Delta []float64 // 1 when Z is observed, else 0
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

// Validate checks that r can serve the given methods: the columns they need are present,
// all lengths agree, indicators are 0 or 1 and probabilities lie in [0, 1]. The error
// names the column, the row and the value.
func (r Rows) Validate(methods ...Method) error {
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
	for _, c := range cols {
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
