package tabular

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
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
			return nil, nil, &ColumnError{File: t.File, Name: name, Setting: t.name("X"), Header: t.Header}
		}
		f := Feature{Column: name, Numeric: c.Numeric, Indicator: c.Missing > 0}
		if c.Numeric {
			var n int
			f.Mean, f.Std, n = meanStd(c.Num, train)
			if n == 0 {
				return nil, nil, fmt.Errorf("%s: column %q (%s) has no value in the training rows", t.File, name, t.name("X"))
			}
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
			if f.Levels = slices.Sorted(maps.Keys(used)); len(f.Levels) == 0 {
				return nil, nil, fmt.Errorf("%s: column %q (%s) has no value in the training rows", t.File, name, t.name("X"))
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

// meanStd returns the mean and the (population) standard deviation of the present values
// of xs at rows, and how many there are. It takes three passes, each safe whatever the
// values' scale: the largest magnitude M; the mean of x/M (no sum can overflow); then the
// mean square of (x − mean)/M. Unlike the mean of squares minus the squared mean, which
// loses every digit of a spread small against the mean (x = 10¹¹ + 1000·N(0,1) came out
// constant), this keeps the spread's digits, and values up to the largest float64 give
// finite statistics.
func meanStd(xs []float64, rows []int) (mean, std float64, n int) {
	var m float64
	for _, i := range rows {
		if x := xs[i]; !math.IsNaN(x) {
			n++
			m = math.Max(m, math.Abs(x))
		}
	}
	if n == 0 || m == 0 {
		return 0, 0, n
	}
	var s float64
	for _, i := range rows {
		if x := xs[i]; !math.IsNaN(x) {
			s += x / m
		}
	}
	mean = m * (s / float64(n))
	var v float64
	for _, i := range rows {
		if x := xs[i]; !math.IsNaN(x) {
			d := x/m - mean/m
			v += d * d
		}
	}
	return mean, m * math.Sqrt(v/float64(n)), n
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
				j := firstText(c, rows)
				return nil, nil, fmt.Errorf("%s:%d: column %q: value %q, want a number (the model was trained on a numeric column)", t.File, t.Lines[j], f.Column, c.Value(j))
			case f.Numeric && miss:
				out = append(out, 0) // the training mean, standardised
			case f.Numeric:
				v := float32((c.Num[i] - f.Mean) / f.Std)
				if math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
					return nil, nil, fmt.Errorf("%s:%d: column %q: value %q is too far from the training values (mean %g, standard deviation %g) to encode as a finite input",
						t.File, t.Lines[i], f.Column, c.Value(i), f.Mean, f.Std)
				}
				out = append(out, v)
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
				on := float32(0)
				if miss {
					on = 1
				}
				out = append(out, on)
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

// firstText returns the first of rows whose value in the categorical column c is present
// and does not parse as a number (rows[0] when there is none), for messages.
func firstText(c *Column, rows []int) int {
	for _, i := range rows {
		if !c.IsMissing(i) {
			if _, err := strconv.ParseFloat(c.Value(i), 64); err != nil {
				return i
			}
		}
	}
	return rows[0]
}
