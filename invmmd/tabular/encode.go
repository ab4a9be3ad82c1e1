package tabular

import (
	"fmt"
	"math"
	"sort"
)

// Feature is how one table column becomes model inputs: a numeric column one standardised
// value (and, when it has missing values, a 0/1 indicator); a categorical column one 0/1
// column per level seen in training (and an indicator when values are missing).
type Feature struct {
	Column  string   `json:"column"`
	Numeric bool     `json:"numeric"`
	Mean    float64  `json:"mean,omitempty"` // training mean (numeric); missing values get it
	Std     float64  `json:"std,omitempty"`  // training standard deviation (1 when constant)
	Levels  []string `json:"levels,omitempty"`
	// Indicator adds a column that is 1 where the value is missing.
	Indicator bool `json:"indicator"`
}

// Encoder turns the feature columns of a table into the rows of a model input, with every
// statistic taken from the training split. It is saved beside a trained model so that new
// data is encoded the same way.
type Encoder struct {
	Features []Feature `json:"features"`
}

// FitEncoder fits the encoding of columns cols of t on rows train. A column gets a missing
// indicator when any of its values in the table is missing, so that every split has the
// same inputs. It returns warnings for what it did (imputed values, constant columns).
func FitEncoder(t *Table, cols []string, train []int) (*Encoder, []string, error) {
	e := &Encoder{}
	var warn []string
	for _, name := range cols {
		c := t.Column(name)
		if c == nil {
			return nil, nil, fmt.Errorf("%s: no column named %q (-x)", t.File, name)
		}
		f := Feature{Column: name, Numeric: c.Numeric, Indicator: c.Missing > 0}
		if c.Numeric {
			var n, s, s2 float64
			for _, i := range train {
				if x := c.Num[i]; !math.IsNaN(x) {
					n++
					s += x
					s2 += x * x
				}
			}
			if n == 0 {
				return nil, nil, fmt.Errorf("%s: column %q (-x) has no value in the training rows", t.File, name)
			}
			f.Mean = s / n
			f.Std = math.Sqrt(math.Max(s2/n-f.Mean*f.Mean, 0))
			if !(f.Std > 1e-12*math.Max(1, math.Abs(f.Mean))) {
				warn = append(warn, fmt.Sprintf("column %q is constant (%v) in the training rows: it carries no information", name, f.Mean))
				f.Std = 1
			}
		} else {
			used := map[string]bool{}
			for _, i := range train {
				if c.Codes[i] >= 0 {
					used[c.Levels[c.Codes[i]]] = true
				}
			}
			for l := range used {
				f.Levels = append(f.Levels, l)
			}
			sort.Strings(f.Levels)
			if len(f.Levels) == 0 {
				return nil, nil, fmt.Errorf("%s: column %q (-x) has no value in the training rows", t.File, name)
			}
		}
		if c.Missing > 0 {
			what := "the training mean"
			if !c.Numeric {
				what = "all-zero level columns"
			}
			warn = append(warn, fmt.Sprintf("column %q: %d missing value(s) replaced by %s, with an indicator column %q", name, c.Missing, what, name+"=missing"))
		}
		e.Features = append(e.Features, f)
	}
	return e, warn, nil
}

// Names returns the names of the encoded input columns, in order.
func (e *Encoder) Names() []string {
	var out []string
	for _, f := range e.Features {
		if f.Numeric {
			out = append(out, f.Column)
		}
		for _, l := range f.Levels {
			out = append(out, f.Column+"="+l)
		}
		if f.Indicator {
			out = append(out, f.Column+"=missing")
		}
	}
	return out
}

// Dim returns the number of encoded input columns.
func (e *Encoder) Dim() int { return len(e.Names()) }

// Encode returns the encoded inputs of rows of t, row-major with Dim columns. Values the
// training rows never showed (a new level, a missing value in a column that had none)
// are encoded as all-zero level columns or the training mean, and counted in warnings.
func (e *Encoder) Encode(t *Table, rows []int) ([]float32, []string, error) {
	d := e.Dim()
	out := make([]float32, 0, len(rows)*d)
	var warn []string
	for _, f := range e.Features {
		if t.Column(f.Column) == nil {
			return nil, nil, fmt.Errorf("%s: no column named %q, which the model was trained on", t.File, f.Column)
		}
	}
	unseen := make([]int, len(e.Features))
	unflagged := make([]int, len(e.Features))
	for _, i := range rows {
		for k, f := range e.Features {
			c := t.Column(f.Column)
			miss := c.IsMissing(i)
			if miss && !f.Indicator {
				unflagged[k]++
			}
			switch {
			case f.Numeric && !c.Numeric:
				return nil, nil, fmt.Errorf("%s:%d: column %q: value %q, want a number (the model was trained on a numeric column)", t.File, t.Lines[i], f.Column, c.Value(i))
			case f.Numeric && miss:
				out = append(out, 0) // the training mean, standardised
			case f.Numeric:
				out = append(out, float32((c.Num[i]-f.Mean)/f.Std))
			default:
				v, hit := c.Value(i), false
				for _, l := range f.Levels {
					on := float32(0)
					if !miss && v == l {
						on, hit = 1, true
					}
					out = append(out, on)
				}
				if !miss && !hit {
					unseen[k]++
				}
			}
			if f.Indicator {
				out = append(out, float32(boolTo01(miss)))
			}
		}
	}
	for k, f := range e.Features {
		if unseen[k] > 0 {
			warn = append(warn, fmt.Sprintf("column %q: %d value(s) not seen in training encoded as all-zero level columns", f.Column, unseen[k]))
		}
		if unflagged[k] > 0 {
			warn = append(warn, fmt.Sprintf("column %q: %d missing value(s), none in training: replaced by the training mean or all-zero levels", f.Column, unflagged[k]))
		}
	}
	return out, warn, nil
}

func boolTo01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
