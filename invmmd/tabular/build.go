package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Spec says which columns of a table are what, and how to split its rows.
type Spec struct {
	Y, Z string // label and nuisance columns (Z: several, comma-separated, for a vector)
	// Classes names the K > 2 classes of the label (Table.LabelClasses), whose class
	// indices Y holds; nil for a binary label, read with YPositive.
	Classes []string
	// ZKind is the nuisance's kind (the zero value: binary, the paper's case); see
	// Table.InferZKind for a kind read off the columns.
	ZKind     dataset.ZKind
	YPositive string   // the label's positive value when it is not 0/1 ("" for 0/1)
	ZPositive string   // the nuisance's value read as Z = 1 when it is not 0/1
	X         []string // feature columns; empty: every column but Y, Z and Split
	// Split names a column whose values say each row's split: train, val (or validation)
	// and test. Empty: a seeded random split with ValFrac and TestFrac.
	Split             string
	ValFrac, TestFrac float64
	Seed              uint64
}

// Data is a table made ready for training: its three splits, the encoder that made the
// features, which file rows went where, and what was done along the way.
type Data struct {
	Splits   dataset.Splits
	Encoder  *Encoder
	Rows     [3][]int // table rows of train, val and test
	Warnings []string
}

// Columns returns the columns Spec reads: Y, Z, Split, then X (nil X means all columns).
func (s Spec) Columns() []string {
	if len(s.X) == 0 {
		return nil
	}
	out := append([]string{s.Y}, ZColumns(s.Z)...)
	if s.Split != "" {
		out = append(out, s.Split)
	}
	return append(out, s.X...)
}

// Features returns the feature columns of t under s: s.X, or every column but Y, Z and Split.
func (s Spec) Features(t *Table) []string {
	if len(s.X) > 0 {
		return s.X
	}
	var out []string
	for _, h := range t.Header {
		if h != s.Y && !slices.Contains(ZColumns(s.Z), h) && h != s.Split {
			out = append(out, h)
		}
	}
	return out
}

// Build reads the label, nuisance and features of t under spec, splits the rows, fits the
// encoder on the training split and returns the three data sets. Z is NaN and Δ 0 where
// the table's Z is missing.
func Build(t *Table, spec Spec) (*Data, error) { return build(t, spec, nil) }

// BuildRows is Build with the rows of train, val and test given (table row indices, each
// split at least 2 rows) instead of spec's split column or random split: for fitting on a
// part of the table chosen by the caller, such as one half of a test's rows.
func BuildRows(t *Table, spec Spec, rows [3][]int) (*Data, error) { return build(t, spec, &rows) }

// build checks the features (and the rows given, if any), reads the labels and splits
// the rows (after the labels, so that their errors come first; by given, else
// splitRows), encodes the features of the rows of each split, with the encoder fitted on
// the training rows, and returns the three data sets.
func build(t *Table, spec Spec, given *[3][]int) (*Data, error) {
	feats := spec.Features(t)
	if len(feats) == 0 {
		return nil, fmt.Errorf("%s: no feature column (the file has only %s)", t.File, strings.Join(t.Header, ", "))
	}
	if err := checkFeatures(t, spec, feats); err != nil {
		return nil, err
	}
	for k := 0; given != nil && k < 3; k++ {
		for _, i := range given[k] {
			if i < 0 || i >= t.Len() {
				return nil, fmt.Errorf("%s: split %d names row %d, the table has %d", t.File, k, i, t.Len())
			}
		}
	}
	var y, z, delta []float64
	var nu dataset.Nuisance
	var err error
	classes := 0
	if len(spec.Classes) > 2 {
		classes = len(spec.Classes)
		if spec.YPositive != "" {
			return nil, fmt.Errorf("%s: %s %q names the positive value of a binary label, and %q has %d classes", t.File, t.name("YPositive"), spec.YPositive, spec.Y, classes)
		}
		y, z, delta, nu, err = t.LabelsAndZClasses(spec.Y, spec.Classes, ZColumns(spec.Z), spec.ZKind, spec.ZPositive)
	} else {
		y, z, delta, nu, err = t.LabelsAndZ(spec.Y, spec.YPositive, ZColumns(spec.Z), spec.ZKind, spec.ZPositive)
	}
	if err != nil {
		return nil, err
	}
	d := &Data{}
	if given != nil {
		d.Rows = *given
	} else if d.Rows, err = splitRows(t, spec); err != nil {
		return nil, err
	}
	names := [3]string{"train", "val", "test"}
	for k, r := range d.Rows {
		if len(r) < 2 {
			return nil, fmt.Errorf("%s: the %s split has %d row(s), want at least 2", t.File, names[k], len(r))
		}
	}
	var warn []string
	if d.Encoder, warn, err = FitEncoder(t, feats, d.Rows[0]); err != nil {
		return nil, err
	}
	d.Warnings = append(d.Warnings, warn...)
	sets := make([]*dataset.Set, 3)
	for k, rows := range d.Rows {
		x, warn, err := d.Encoder.Encode(t, rows)
		if err != nil {
			return nil, err
		}
		d.Warnings = append(d.Warnings, warn...)
		pick := func(v []float64, w int) []float64 {
			o := make([]float64, len(rows)*w)
			for j, i := range rows {
				copy(o[j*w:(j+1)*w], v[i*w:(i+1)*w])
			}
			return o
		}
		sets[k] = &dataset.Set{Name: names[k], X: x, Shape: []int{d.Encoder.Dim()}, Y: pick(y, 1), Z: pick(z, nu.Width()), Delta: pick(delta, 1), Nuisance: nu, Classes: classes}
	}
	d.Splits = dataset.Splits{Train: sets[0], Val: sets[1], Test: sets[2]}
	if err := d.Splits.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", t.File, err)
	}
	return d, nil
}

// checkFeatures refuses a feature list that names a column twice, or names the label, the
// nuisance or the split column, and, when the features are the default ones (spec.X
// empty), a categorical column with about one level per row (Column.Identifier): one-hot
// encoding a record number gives as many inputs as rows and nothing to learn from; and a
// numeric column of row numbers (Column.RowNumbers), which a model would read as a trend
// over the file's order. Named in spec.X, such a column is used as asked.
func checkFeatures(t *Table, spec Spec, feats []string) error {
	seen := map[string]bool{}
	for _, f := range feats {
		x := t.name("X")
		switch {
		case seen[f]:
			return fmt.Errorf("%s: column %q is listed twice in %s", t.File, f, x)
		case f == spec.Y:
			return fmt.Errorf("%s: column %q is both a feature (%s) and the label (%s)", t.File, f, x, t.name("Y"))
		case slices.Contains(ZColumns(spec.Z), f):
			return fmt.Errorf("%s: column %q is both a feature (%s) and the nuisance (%s)", t.File, f, x, t.name("Z"))
		case spec.Split != "" && f == spec.Split:
			return fmt.Errorf("%s: column %q is both a feature (%s) and the split column (%s): it says which split a row is in, not something to learn from", t.File, f, x, t.name("Split"))
		}
		seen[f] = true
		c := t.Column(f)
		if len(spec.X) > 0 || c == nil {
			continue
		}
		if c.Identifier() {
			return fmt.Errorf("%s: column %q has %d distinct values in %d rows, about one per row: an identifier or free text, not a feature; "+
				"name the feature columns with %s (leaving it out), or name it there to one-hot encode it all the same", t.File, f, len(c.Levels), c.Len()-c.Missing, x)
		}
		if why := c.RowNumbers(); why != "" {
			return fmt.Errorf("%s: column %q holds %s: a row number or record identifier, not a feature; "+
				"name the feature columns with %s (leaving it out), or name it there to use it all the same", t.File, f, why, x)
		}
	}
	return nil
}

// splitRows assigns each row to train, val or test: by the split column, or at random
// (seeded) with the fractions of spec.
func splitRows(t *Table, spec Spec) ([3][]int, error) {
	var out [3][]int
	if spec.Split != "" {
		c := t.Column(spec.Split)
		if c == nil {
			return out, &ColumnError{File: t.File, Name: spec.Split, Setting: t.name("Split"), Header: t.Header}
		}
		for i := 0; i < t.Len(); i++ {
			switch v := strings.ToLower(c.Value(i)); v {
			case "train", "training":
				out[0] = append(out[0], i)
			case "val", "valid", "validation":
				out[1] = append(out[1], i)
			case "test":
				out[2] = append(out[2], i)
			case "":
				return out, fmt.Errorf("%s:%d: column %q (%s): value %q is missing, want train, val or test", t.File, t.Lines[i], spec.Split, t.name("Split"), c.Raw(i))
			default:
				return out, fmt.Errorf("%s:%d: column %q (%s): value %q, want train, val or test", t.File, t.Lines[i], spec.Split, t.name("Split"), c.Value(i))
			}
		}
		return out, nil
	}
	v, te := spec.ValFrac, spec.TestFrac
	if !(v > 0 && te > 0 && v+te < 1) || math.IsNaN(v+te) {
		return out, fmt.Errorf("%s %v and %s %v: want each > 0 and their sum < 1", t.name("ValFrac"), v, t.name("TestFrac"), te)
	}
	perm := rand.New(rand.NewPCG(spec.Seed, 0x7ab1e)).Perm(t.Len())
	nVal, nTest := int(math.Round(v*float64(t.Len()))), int(math.Round(te*float64(t.Len())))
	out[2] = slices.Sorted(slices.Values(perm[:nTest]))
	out[1] = slices.Sorted(slices.Values(perm[nTest : nTest+nVal]))
	out[0] = slices.Sorted(slices.Values(perm[nTest+nVal:]))
	return out, nil
}
