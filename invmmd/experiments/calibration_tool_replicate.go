package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// One table of the calibration of the commands: drawn, run through the commands, and stored as
// one record of the study's store.

// toolReplicate is what one table of a cell gave: each method's p-value (NaN: no test),
// whether the command marked it unreliable for a reason of the data, and each method's
// estimate and standard error (the default fitting only; NaN when not given).
type toolReplicate struct {
	R      int
	P      map[string]float64
	Marked map[string]bool
	Est    map[string][2]float64
}

// replicate draws table r of the cell and runs the commands on it.
func (c ToolCalibrationConfig) replicate(ctx context.Context, t toolCell, r int) (toolReplicate, error) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", t.name(), r)
	rng := rand.New(rand.NewPCG(c.Seed, h.Sum64()))
	if t.Fitting.HeldOut {
		return c.heldOutReplicate(ctx, t, r, rng)
	}
	k, err := calibsim.DrawKind(t.N, t.Delta, t.Kind, rng)
	if err != nil {
		return toolReplicate{}, err
	}
	cols := func(z []float64) []tabular.Col {
		return []tabular.Col{tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
			tabular.NumberColumn("z", z), tabular.NumberColumn("h", k.H)}
	}
	tab, err := tabular.NewTable("sim", cols(k.Z)...)
	if err != nil {
		return toolReplicate{}, err
	}
	complete, err := tabular.NewTable("complete", cols(k.ZFull)...)
	if err != nil {
		return toolReplicate{}, err
	}
	out := toolReplicate{R: r, P: map[string]float64{}, Marked: map[string]bool{}, Est: map[string][2]float64{}}
	tc := owndata.DefaultTestConfig()
	tc.Y, tc.Z, tc.H, tc.X, tc.ZKind, tc.Folds = "y", "z", "h", []string{"x1", "x2"}, owndata.ZKind(t.Kind.String()), t.Fitting.Folds
	tc.Methods = c.Methods
	ec := owndata.DefaultEstimateConfig()
	ec.Columns, ec.H, ec.Folds = tc.Columns, "h", t.Fitting.Folds
	ec.Methods = c.Methods
	if t.Fitting.Folds > 1 {
		nu, err := owndata.FitNuisancesTable(ctx, tab, ec)
		if err != nil {
			return out, fmt.Errorf("fitting G and m: %w", err)
		}
		tc.Nuisances, ec.Nuisances = nu, nu
	}
	res, err := owndata.TestTable(ctx, tab, tc)
	if err != nil {
		return out, fmt.Errorf("test: %w", err)
	}
	for _, m := range c.Methods {
		out.P[m.String()] = math.NaN()
	}
	for _, x := range res.Results {
		out.P[x.Method.String()] = x.PValue
		for _, why := range x.Unreliable {
			if why != x.Method.Info().TestCaveat && why != owndata.FewFoldsCaveat {
				out.Marked[x.Method.String()] = true
			}
		}
	}
	fc := tc
	fc.Methods, fc.X, fc.Nuisances = []method.Method{method.Full}, nil, nil
	full, err := owndata.TestTable(ctx, complete, fc)
	if err != nil {
		return out, fmt.Errorf("test on the complete table: %w", err)
	}
	out.P["full"] = full.Results[0].PValue
	if t.Fitting.Name != c.Fittings[0].Name {
		return out, nil
	}
	est, err := owndata.EstimateTable(ctx, tab, ec)
	if err != nil {
		return out, fmt.Errorf("estimate: %w", err)
	}
	for k, x := range est.Results {
		se := x.ValueSE
		if math.IsNaN(se) { // not printed (reg): measured all the same
			se = est.WithheldSE[k]
		}
		out.Est[x.Method.String()] = [2]float64{x.Value, se}
	}
	fe := ec
	fe.Methods, fe.X, fe.Nuisances = []method.Method{method.Full}, nil, nil
	festimate, err := owndata.EstimateTable(ctx, complete, fe)
	if err != nil {
		return out, fmt.Errorf("estimate on the complete table: %w", err)
	}
	out.Est["full"] = [2]float64{festimate.Results[0].Value, festimate.Results[0].ValueSE}
	return out, nil
}

// heldOutReplicate draws table r of a cell of fit's held-out test: 5N rows, the first 3N
// the training split, the next N the validation split and the last N the test split (a
// split column, as fit -split reads), G and m fitted as fit fits them
// (owndata.Plan.FitNuisances), and the test split's outputs h tested as fit tests a
// trained model's (owndata.Plan.TestHeldOut), beside full's test on the test split's
// complete rows.
func (c ToolCalibrationConfig) heldOutReplicate(ctx context.Context, t toolCell, r int, rng *rand.Rand) (toolReplicate, error) {
	out := toolReplicate{R: r, P: map[string]float64{}, Marked: map[string]bool{}, Est: map[string][2]float64{}}
	n := t.N
	k, err := calibsim.DrawKind(5*n, t.Delta, t.Kind, rng)
	if err != nil {
		return out, err
	}
	split := make([]string, 5*n)
	for i := range split {
		split[i] = [...]string{"train", "train", "train", "val", "test"}[i/n]
	}
	tab, err := tabular.NewTable("sim", tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
		tabular.NumberColumn("z", k.Z), tabular.TextColumn("split", split))
	if err != nil {
		return out, err
	}
	fc := owndata.DefaultConfig()
	fc.Y, fc.Z, fc.X, fc.ZKind, fc.Split, fc.Out = "y", "z", []string{"x1", "x2"}, owndata.ZKind(t.Kind.String()), "split", ""
	fc.Methods = []method.Method{method.None}
	plan, err := owndata.PrepareTable(ctx, tab, fc)
	if err != nil {
		return out, err
	}
	defer plan.Close()
	test := plan.Data.Splits.Test
	if test.Len() != n || !slices.Equal(test.Y, k.Y[4*n:]) {
		return out, fmt.Errorf("the test split is not the table's last %d rows in order", n)
	}
	aux, _, err := plan.FitNuisances(ctx)
	if err != nil {
		return out, fmt.Errorf("fitting G and m: %w", err)
	}
	heldOut := []method.Method{method.DR, method.IP}
	for _, m := range c.Methods {
		out.P[m.String()] = math.NaN()
	}
	res, _, err := plan.TestHeldOut(ctx, aux, invmmd.ScalarRep(k.H[4*n:]), uint64(r)+1, heldOut...)
	if err != nil {
		return out, fmt.Errorf("fit's held-out test: %w", err)
	}
	for _, x := range res {
		out.P[x.Method.String()] = x.PValue
		if len(x.Unreliable) > 0 {
			out.Marked[x.Method.String()] = true
		}
	}
	complete, err := tabular.NewTable("complete", tabular.NumberColumn("y", k.Y[4*n:]), tabular.NumberColumn("z", k.ZFull[4*n:]), tabular.NumberColumn("h", k.H[4*n:]))
	if err != nil {
		return out, err
	}
	tc := owndata.DefaultTestConfig()
	tc.Y, tc.Z, tc.H, tc.ZKind, tc.Methods = "y", "z", "h", owndata.ZKind(t.Kind.String()), []method.Method{method.Full}
	full, err := owndata.TestTable(ctx, complete, tc)
	if err != nil {
		return out, fmt.Errorf("test on the complete test split: %w", err)
	}
	out.P["full"] = full.Results[0].PValue
	return out, nil
}

// MarshalJSON writes NaN p-values and standard errors as null.
func (t toolReplicate) MarshalJSON() ([]byte, error) {
	type rec struct {
		R      int
		P      map[string]*float64
		Marked map[string]bool
		Est    map[string][2]*float64
	}
	ptr := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	o := rec{R: t.R, P: map[string]*float64{}, Marked: t.Marked, Est: map[string][2]*float64{}}
	for k, v := range t.P {
		o.P[k] = ptr(v)
	}
	for k, v := range t.Est {
		o.Est[k] = [2]*float64{ptr(v[0]), ptr(v[1])}
	}
	return json.Marshal(o)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (t *toolReplicate) UnmarshalJSON(b []byte) error {
	var o struct {
		R      int
		P      map[string]*float64
		Marked map[string]bool
		Est    map[string][2]*float64
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	val := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	t.R, t.Marked, t.P, t.Est = o.R, o.Marked, map[string]float64{}, map[string][2]float64{}
	for k, v := range o.P {
		t.P[k] = val(v)
	}
	for k, v := range o.Est {
		t.Est[k] = [2]float64{val(v[0]), val(v[1])}
	}
	return nil
}
