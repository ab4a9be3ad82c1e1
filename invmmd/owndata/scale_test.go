package owndata

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// splitTable draws n rows of the calibration simulation with a nuisance of kind, a third
// of them in each of the train, val and test splits (column split), Z missing where the
// simulation leaves it missing, and with allTest also every test row's Z observed (drawn
// again until it is: the simulation's Z given X and Y, so the test rows' own missingness
// is none).
func splitTable(t *testing.T, n int, kind dataset.ZKind, seed uint64) (*tabular.Table, *calibsim.KindSample, []string) {
	t.Helper()
	k, err := calibsim.DrawKind(n, 0.5, kind, rand.New(rand.NewPCG(seed, uint64(kind))))
	if err != nil {
		t.Fatal(err)
	}
	split := make([]string, n)
	for i := range split {
		split[i] = []string{"train", "train", "val", "test"}[i%4]
	}
	tab, err := tabular.NewTable("split", tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
		tabular.NumberColumn("z", k.Z), tabular.TextColumn("split", split))
	if err != nil {
		t.Fatal(err)
	}
	return tab, k, split
}

// TestFitHeldOutOnEstimatesScale: fit's held-out estimate and estimate's, on the same test
// rows with the same σ and Ĝ, agree within their standard errors, for a categorical and a
// continuous Z: both are the unscaled joint MMD² (the 2/v² of JointScaleFor weighs only
// the training penalty), and every output says so.
func TestFitHeldOutOnEstimatesScale(t *testing.T) {
	for _, kind := range []dataset.ZKind{dataset.CategoricalZ, dataset.ContinuousZ} {
		tab, k, split := splitTable(t, 2400, kind, 3)
		cfg := DefaultConfig()
		cfg.Y, cfg.Z, cfg.X, cfg.Split, cfg.ZKind = "y", "z", []string{"x1", "x2"}, "split", kind.String()
		cfg.ZMap.Bandwidth = 0.5
		cfg.Hidden, cfg.Epochs, cfg.AuxEpochs = []int{8}, 5, 10
		cfg.Out = ""
		p, err := PrepareTable(ctx, tab, cfg)
		if err != nil {
			t.Fatal(err)
		}
		aux, _, err := p.FitNuisances(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.Data.JointScale < 2 {
			t.Fatalf("%v: JointScale %v, want a factor that tells the scales apart", kind, p.Data.JointScale)
		}
		tr, err := p.Train(ctx, aux, method.None, 1)
		if err != nil {
			t.Fatal(err)
		}
		h, err := tr.Model.LogitsRep(p.Data.Splits.Test)
		if err != nil {
			t.Fatal(err)
		}
		var x1, x2, y, z []float64
		for i, s := range split {
			if s == "test" {
				x1, x2, y, z = append(x1, k.X1[i]), append(x2, k.X2[i]), append(y, k.Y[i]), append(z, k.Z[i])
			}
		}
		if len(y) != h.Len() {
			t.Fatalf("%v: %d test rows, %d outputs", kind, len(y), h.Len())
		}
		test, err := tabular.NewTable("test", tabular.NumberColumn("x1", x1), tabular.NumberColumn("x2", x2), tabular.NumberColumn("y", y),
			tabular.NumberColumn("z", z), tabular.NumberColumn("h", h.Data), tabular.NumberColumn("g", aux.Test.G))
		if err != nil {
			t.Fatal(err)
		}
		ec := DefaultEstimateConfig()
		ec.Y, ec.Z, ec.H, ec.G, ec.ZKind, ec.ZMap = "y", "z", "h", "g", kind.String(), cfg.ZMap
		ec.Methods, ec.Bandwidth, ec.Median = []method.Method{method.IP}, tr.Sigma, false
		est, err := EstimateTable(ctx, test, ec)
		if err != nil {
			t.Fatal(err)
		}
		fit, e := tr.HeldOut[1], est.Results[0]
		if fit.Method != method.IP {
			t.Fatalf("%v: held-out result %v, want ip", kind, fit.Method)
		}
		se := math.Max(fit.ValueSE, e.ValueSE)
		t.Logf("%v: JointScale %.3g; fit's held-out ip %.5g ± %.2g, estimate's %.5g ± %.2g (σ %.4g)", kind, p.Data.JointScale, fit.Value, fit.ValueSE, e.Value, e.ValueSE, tr.Sigma)
		if math.Abs(fit.Value-e.Value) > se || !(math.Abs(e.Value) > 2*e.ValueSE) {
			t.Errorf("%v: fit's held-out ip %.5g ± %.2g, estimate's %.5g ± %.2g: want them within an SE, and the estimate clear of 0", kind, fit.Value, fit.ValueSE, e.Value, e.ValueSE)
		}
		want := "joint MMD² between p(h,Z) and p(h)p(Z) within Y strata, unscaled"
		if tr.Row.Scale != want || est.Scale() != want || !strings.Contains(tr.HeldOutText(), want) || !strings.Contains(Markdown([]Row{tr.Row}), want) {
			t.Errorf("%v: scales %q (fit) and %q (estimate), want %q in each output", kind, tr.Row.Scale, est.Scale(), want)
		}
	}
}
