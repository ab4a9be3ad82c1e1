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
	P      map[string]nanFloat
	Marked map[string]bool
	Est    map[string][2]nanFloat
}

// replicate draws table r of the cell and runs the commands on it.
func (c ToolCalibrationConfig) replicate(ctx context.Context, t toolCell, r int) (toolReplicate, error) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", t.name(), r)
	rng := rand.New(rand.NewPCG(c.Seed, h.Sum64()))
	out := toolReplicate{R: r, P: map[string]nanFloat{}, Marked: map[string]bool{}, Est: map[string][2]nanFloat{}}
	for _, m := range c.Methods {
		out.P[m.String()] = nanFloat(math.NaN()) // until a test gives it
	}
	if t.Fitting.HeldOut {
		return out, c.heldOutReplicate(ctx, t, r, rng, &out)
	}
	k, err := calibsim.DrawKind(t.N, t.Delta, t.Kind, rng)
	if err != nil {
		return out, err
	}
	cols := func(z []float64) []tabular.Col {
		return []tabular.Col{tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
			tabular.NumberColumn("z", z), tabular.NumberColumn("h", k.H)}
	}
	tab, err := tabular.NewTable("sim", cols(k.Z)...)
	if err != nil {
		return out, err
	}
	complete, err := tabular.NewTable("complete", cols(k.ZFull)...)
	if err != nil {
		return out, err
	}
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
	for _, x := range res.Results {
		out.P[x.Method.String()] = nanFloat(x.PValue)
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
	out.P[method.Full.String()] = nanFloat(full.Results[0].PValue)
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
		out.Est[x.Method.String()] = [2]nanFloat{nanFloat(x.Value), nanFloat(se)}
	}
	fe := ec
	fe.Methods, fe.X, fe.Nuisances = []method.Method{method.Full}, nil, nil
	festimate, err := owndata.EstimateTable(ctx, complete, fe)
	if err != nil {
		return out, fmt.Errorf("estimate on the complete table: %w", err)
	}
	out.Est[method.Full.String()] = [2]nanFloat{nanFloat(festimate.Results[0].Value), nanFloat(festimate.Results[0].ValueSE)}
	return out, nil
}

// heldOutReplicate draws table r of a cell of fit's held-out test: 5N rows, the first 3N
// the training split, the next N the validation split and the last N the test split (a
// split column, as fit -split reads), G and m fitted as fit fits them
// (owndata.Plan.FitNuisances), and the test split's outputs h tested as fit tests a
// trained model's (owndata.Plan.TestHeldOut), beside full's test on the test split's
// complete rows, into out.
func (c ToolCalibrationConfig) heldOutReplicate(ctx context.Context, t toolCell, r int, rng *rand.Rand, out *toolReplicate) error {
	n := t.N
	k, err := calibsim.DrawKind(5*n, t.Delta, t.Kind, rng)
	if err != nil {
		return err
	}
	split := make([]string, 5*n)
	for i := range split {
		split[i] = [...]string{"train", "train", "train", "val", "test"}[i/n]
	}
	tab, err := tabular.NewTable("sim", tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
		tabular.NumberColumn("z", k.Z), tabular.TextColumn("split", split))
	if err != nil {
		return err
	}
	fc := owndata.DefaultConfig()
	fc.Y, fc.Z, fc.X, fc.ZKind, fc.Split, fc.Out = "y", "z", []string{"x1", "x2"}, owndata.ZKind(t.Kind.String()), "split", ""
	fc.Methods = []method.Method{method.None}
	plan, err := owndata.PrepareTable(ctx, tab, fc)
	if err != nil {
		return err
	}
	defer plan.Close()
	test := plan.Data.Splits.Test
	if test.Len() != n || !slices.Equal(test.Y, k.Y[4*n:]) {
		return fmt.Errorf("the test split is not the table's last %d rows in order", n)
	}
	aux, _, err := plan.FitNuisances(ctx)
	if err != nil {
		return fmt.Errorf("fitting G and m: %w", err)
	}
	res, _, err := plan.TestHeldOut(ctx, aux, invmmd.ScalarRep(k.H[4*n:]), uint64(r)+1, method.DR, method.IP)
	if err != nil {
		return fmt.Errorf("fit's held-out test: %w", err)
	}
	for _, x := range res {
		out.P[x.Method.String()] = nanFloat(x.PValue)
		if len(x.Unreliable) > 0 {
			out.Marked[x.Method.String()] = true
		}
	}
	complete, err := tabular.NewTable("complete", tabular.NumberColumn("y", k.Y[4*n:]), tabular.NumberColumn("z", k.ZFull[4*n:]), tabular.NumberColumn("h", k.H[4*n:]))
	if err != nil {
		return err
	}
	tc := owndata.DefaultTestConfig()
	tc.Y, tc.Z, tc.H, tc.ZKind, tc.Methods = "y", "z", "h", owndata.ZKind(t.Kind.String()), []method.Method{method.Full}
	full, err := owndata.TestTable(ctx, complete, tc)
	if err != nil {
		return fmt.Errorf("test on the complete test split: %w", err)
	}
	out.P[method.Full.String()] = nanFloat(full.Results[0].PValue)
	return nil
}

// nanFloat is a float64 that JSON writes as null when it is NaN (no p-value, no
// standard error), and reads back from null as NaN.
type nanFloat float64

// MarshalJSON writes NaN as null, any other value as a float64.
func (f nanFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON reads null as NaN.
func (f *nanFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = nanFloat(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(f))
}
