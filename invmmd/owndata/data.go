package owndata

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// Data is a table read and made ready for training.
type Data struct {
	*tabular.Data
	Table *tabular.Table
	// ZKindWhy says how the nuisance's kind (Splits.Train.Nuisance) was decided.
	ZKindWhy string
	// ZMap is the feature map of a nuisance that is not binary, fixed from the observed Z
	// of the training split (nil for a binary Z); for a continuous or vector Z whose
	// bandwidth is not given, FitNuisances refixes it with the rows weighted by 1/Ĝ, so
	// that the missingness does not move it.
	ZMap invmmd.FeatureMap
	// JointScale puts the joint MMD² of a nuisance that is not binary on the paper's scale
	// (invmmd.JointScaleFor of the training split under ZMap; 0 for a binary Z), so that
	// the penalty λ weighs it as the paper's λ weighs its MMD² of a binary Z. It scales the
	// training penalty only: every estimate printed is unscaled (MMD2Scale).
	JointScale float64
	// Classes names the label's K > 2 classes, whose indices Y holds (Table.LabelClasses);
	// nil for a binary label.
	Classes []string
}

// readCSV reads the columns cols of the CSV file path (all when cols is nil), stopping
// once ctx is done. A column the file lacks is named with the setting that named it: keys
// maps column names to setting fields (others are "X"), which names says as the caller does.
func readCSV(ctx context.Context, path string, cols []string, names tabular.Names, keys map[string]string) (*tabular.Table, error) {
	tab, err := tabular.ReadFileContext(ctx, path, cols)
	var ce *tabular.ColumnError
	if errors.As(err, &ce) {
		ce.Setting = names.Of(cmp.Or(keys[ce.Name], "X"))
	}
	if err != nil {
		return nil, err
	}
	tab.Names = names
	return tab, nil
}

// columnKeys maps each column that c names to its setting's field, for messages.
func (c Columns) columnKeys(more map[string]string) map[string]string {
	m := map[string]string{c.Y: "Y"}
	for _, z := range tabular.ZColumns(c.Z) {
		m[z] = "Z"
	}
	for k, v := range more {
		if k != "" {
			m[k] = v
		}
	}
	return m
}

// prepareData reads the label, nuisance and features of tab under cfg, splits the rows,
// encodes the features on the training split and fixes the kernel on a nuisance that is
// not binary; then, still before any network is built, it checks what the fit will need:
// a representation of features only for a binary label, method full only without missing
// Z, the kernel on Z able to tell rows apart, and the networks' memory.
func prepareData(tab *tabular.Table, cfg Config) (*Data, error) {
	tab.Names = cfg.Names
	spec := cfg.spec()
	kind, why, err := cfg.nuisanceKind(tab)
	if err != nil {
		return nil, err
	}
	spec.ZKind = kind
	if spec.Classes, err = tab.LabelClasses(cfg.Y, cfg.YPositive, "Y"); err != nil {
		return nil, err
	}
	d, err := tabular.Build(tab, spec)
	if err != nil {
		return nil, err
	}
	out := &Data{Data: d, Table: tab, ZKindWhy: why, Classes: spec.Classes}
	tr := d.Splits.Train
	if tr.Nuisance.Kind != dataset.BinaryZ {
		if out.ZMap, err = zKernelWeighted(cfg.Columns, tab.File, tr.Nuisance, tr.ObservedZ(), nil); err != nil {
			return nil, err
		}
	}
	if k := len(spec.Classes); k > 2 && cfg.Represent == RepresentFeatures {
		return nil, fieldError("Represent", string(cfg.Represent), "a label of %d classes (%s) penalises its %d class logits; h's last hidden layer is for a binary label: drop it, or recode %s to two values",
			k, strings.Join(spec.Classes, ", "), k, cfg.name("Y"))
	}
	for _, m := range cfg.Methods {
		if m.UsesMissingZ() && !tr.ZKnown() {
			return nil, fieldError("Methods", m.String(), "method %v needs Z on every row and %s has %d training rows with Z missing; drop it or use dr, ip or reg", m, tab.File, invmmd.Rows{Z: tr.Z}.MissingZ())
		}
	}
	outputs := max(1, len(spec.Classes))
	if err := checkMemory(cfg.Columns, cfg.Nets, "h", d.Encoder.Dim(), outputs, tr.Len(), true); err != nil {
		return nil, err
	}
	if err := checkMemory(cfg.Columns, cfg.Nets, "G and m", d.Encoder.Dim()+max(1, len(spec.Classes)), auxOutputs(tr.Nuisance, out.ZMap), tr.Len(), false); err != nil {
		return nil, err
	}
	return out, nil
}

// auxOutputs is the outputs of m (the widest of G and m): one logit for a binary Z, one
// per level for a categorical one, a mean and a spread per number of a continuous or
// vector one.
func auxOutputs(nu dataset.Nuisance, zmap invmmd.FeatureMap) int {
	switch {
	case nu.Kind == dataset.CategoricalZ:
		return max(2, len(nu.Levels))
	case zmap != nil:
		return 2 * nu.Width()
	}
	return 1
}

// zKernelWeighted fixes the kernel on a nuisance that is not binary from its observed
// values z (NaN where missing), with the rows weighted by 1/g (g = Ĝ, floored at
// invmmd.DefaultGFloor) in the kernel's data-driven constants (invmmd.NewMap), which makes
// them the full data's; nil g weighs the rows equally. It checks that the kernel can tell
// rows apart: a bandwidth (c.ZMap) so small that every pair of distinct observed Z has
// kernel value 0, or so large that every pair has 1, leaves the joint MMD² nothing to
// measure.
func zKernelWeighted(c Columns, file string, nu dataset.Nuisance, z, g []float64) (invmmd.FeatureMap, error) {
	var w []float64
	for _, x := range g {
		w = append(w, 1/math.Max(x, invmmd.DefaultGFloor))
	}
	zmap, err := invmmd.NewMap(nu, z, w, invmmd.MapSpec(c.ZMap))
	if err != nil {
		if c.ZMap.Bandwidth > 0 || c.ZMap.Features > 0 {
			return nil, &FieldError{Field: "ZMap.Bandwidth", Value: c.ZMap.Bandwidth, Err: fmt.Errorf("%s: the kernel on Z: %w", file, err)}
		}
		return nil, fmt.Errorf("%s: the kernel on Z: %w", file, err)
	}
	if nu.Kind == dataset.CategoricalZ || c.ZMap.Bandwidth == 0 {
		return zmap, nil
	}
	q := nu.Width()
	var d2 []float64 // squared distances between consecutive observed rows
	prev := -1
	for i := 0; i < len(z)/q; i++ {
		if math.IsNaN(z[i*q]) {
			continue
		}
		if prev >= 0 {
			s := 0.0
			for j := 0; j < q; j++ {
				s += (z[i*q+j] - z[prev*q+j]) * (z[i*q+j] - z[prev*q+j])
			}
			if s > 0 {
				d2 = append(d2, s)
			}
		}
		prev = i
	}
	if len(d2) == 0 {
		return zmap, nil
	}
	lo, hi := slices.Min(d2), slices.Max(d2)
	sig2 := 2 * c.ZMap.Bandwidth * c.ZMap.Bandwidth
	switch {
	case math.Exp(-lo/sig2) < 1e-300:
		return nil, fieldError("ZMap.Bandwidth", c.ZMap.Bandwidth, "%s: the kernel on Z is 0 between any two distinct observed Z (the closest pair is %.3g apart): it cannot tell near values from far ones; give a σ near the spread of Z, or 0 for the median heuristic", file, math.Sqrt(lo))
	case 1-math.Exp(-hi/sig2) < 1e-15:
		return nil, fieldError("ZMap.Bandwidth", c.ZMap.Bandwidth, "%s: the kernel on Z is 1 between any two observed Z (the farthest pair is %.3g apart): it cannot tell them apart; give a σ near the spread of Z, or 0 for the median heuristic", file, math.Sqrt(hi))
	}
	return zmap, nil
}
