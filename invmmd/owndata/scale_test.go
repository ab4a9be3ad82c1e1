package owndata

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// splitTable draws n rows of the calibration simulation with dependence 0.5 and a
// nuisance of kind, half of them in the train split and a quarter in each of val and test
// (column split), Z missing where the simulation leaves it missing except on the rows of
// the splits in observed, whose Z is the simulation's full Z.
func splitTable(t *testing.T, n int, kind dataset.ZKind, seed uint64, observed ...string) (*tabular.Table, *calibsim.Sample, []string) {
	t.Helper()
	k, err := calibsim.DrawKind(n, 0.5, kind, rand.New(rand.NewPCG(seed, uint64(kind))))
	if err != nil {
		t.Fatal(err)
	}
	split := make([]string, n)
	for i := range split {
		split[i] = []string{"train", "train", "val", "test"}[i%4]
		if slices.Contains(observed, split[i]) {
			k.Z[i] = k.ZFull[i]
		}
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
		cfg.Y, cfg.Z, cfg.X, cfg.Split, cfg.ZKind = "y", "z", []string{"x1", "x2"}, "split", ZKind(kind.String())
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
		ec.Y, ec.Z, ec.H, ec.G, ec.ZKind, ec.ZMap = "y", "z", "h", "g", ZKind(kind.String()), cfg.ZMap
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

// TestHeldOutFullWhereTestZComplete: where every test row carries Z, fit's held-out dr and
// ip are the full-data estimate on the test rows (estimate's full, same σ), not dr and ip
// with the training split's Ĝ, and every output says so.
func TestHeldOutFullWhereTestZComplete(t *testing.T) {
	tab, k, split := splitTable(t, 1600, dataset.BinaryZ, 5, "test")
	cfg := DefaultConfig()
	cfg.Y, cfg.Z, cfg.X, cfg.Split = "y", "z", []string{"x1", "x2"}, "split"
	cfg.Hidden, cfg.Epochs, cfg.AuxEpochs = []int{8}, 3, 5
	cfg.Methods, cfg.Out = []method.Method{method.None}, t.TempDir()
	res, err := FitTable(ctx, tab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Rows[0]
	m, err := LoadModel(modelDir(cfg.Out, method.None, 1))
	if err != nil {
		t.Fatal(err)
	}
	var x1, x2, y, z []float64
	for i, s := range split {
		if s == "test" {
			x1, x2, y, z = append(x1, k.X1[i]), append(x2, k.X2[i]), append(y, k.Y[i]), append(z, k.Z[i])
		}
	}
	test, err := tabular.NewTable("test", tabular.NumberColumn("x1", x1), tabular.NumberColumn("x2", x2), tabular.NumberColumn("y", y), tabular.NumberColumn("z", z))
	if err != nil {
		t.Fatal(err)
	}
	pred, _, err := m.PredictAll(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	h := pred.Logits
	tab2, err := tabular.NewTable("test", tabular.NumberColumn("y", y), tabular.NumberColumn("z", z), tabular.NumberColumn("h", h))
	if err != nil {
		t.Fatal(err)
	}
	ec := DefaultEstimateConfig()
	ec.Y, ec.Z, ec.H, ec.Methods = "y", "z", "h", []method.Method{method.Full}
	est, err := EstimateTable(ctx, tab2, ec)
	if err != nil {
		t.Fatal(err)
	}
	full := est.Results[0]
	t.Logf("held-out dr %.5g ± %.2g, ip %.5g ± %.2g; estimate's full %.5g ± %.2g", r.DR, r.DRSE, r.IP, r.IPSE, full.Value, full.ValueSE)
	if !r.HeldOutFull || r.DR != r.IP || math.Abs(r.DR-full.Value) > 1e-6+1e-4*math.Abs(full.Value) {
		t.Errorf("held-out dr %v, ip %v (full %v), want both estimate's full %v", r.DR, r.IP, r.HeldOutFull, full.Value)
	}
	if !strings.Contains(res.HeldOut, heldOutFullNote) || !strings.Contains(res.HeldOut, "full: MMD² = ") || !strings.Contains(Markdown(res.Rows), "(full)") {
		t.Errorf("the held-out text and table do not say the estimates are full's:\n%s\n%s", res.HeldOut, Markdown(res.Rows))
	}
	if b, _ := os.ReadFile(filepath.Join(cfg.Out, ResultsCSV)); !strings.Contains(string(b), ",heldout_full\n") || !strings.HasSuffix(strings.TrimSpace(string(b)), ",true") {
		t.Errorf("results.csv:\n%s", b)
	}
}

// TestObservedZFitsNoNuisance: with Z observed on every row, fit and estimate fit neither
// G nor m (no fit of the fake fitter; fit's G and m reports empty), say so, and give dr =
// ip = full.
func TestObservedZFitsNoNuisance(t *testing.T) {
	tab, k, _ := splitTable(t, 800, dataset.BinaryZ, 6, "train", "val", "test")
	cfg := DefaultConfig()
	cfg.Y, cfg.Z, cfg.X, cfg.Split = "y", "z", []string{"x1", "x2"}, "split"
	cfg.Hidden, cfg.Epochs, cfg.AuxEpochs = []int{8}, 2, 400
	cfg.Methods, cfg.Out = []method.Method{method.DR}, ""
	var log strings.Builder
	cfg.Log = &log
	res, err := FitTable(ctx, tab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !res.AuxFit.Observed || res.Aux.G.Model != "" || res.Aux.M.Model != "" || !strings.Contains(log.String(), ObservedNote) {
		t.Errorf("fit on a Z observed everywhere: report %+v, G %q, m %q fitted; log:\n%s", res.AuxFit, res.Aux.G.Model, res.Aux.M.Model, log.String())
	}
	if r := res.Rows[0]; !r.HeldOutFull || r.DR != r.IP {
		t.Errorf("held-out dr %v, ip %v (full %v): want full's", r.DR, r.IP, r.HeldOutFull)
	}
	sin := make([]float64, tab.Len())
	for i := range sin {
		sin[i] = math.Sin(float64(i))
	}
	et, err := tabular.NewTable("observed", tabular.NumberColumn("h", sin), tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2),
		tabular.NumberColumn("y", k.Y), tabular.NumberColumn("z", k.Z))
	if err != nil {
		t.Fatal(err)
	}
	ec := DefaultEstimateConfig()
	ec.Y, ec.Z, ec.H, ec.X = "y", "z", "h", []string{"x1", "x2"}
	ec.Methods = []method.Method{method.Full, method.IP, method.DR}
	log.Reset()
	ec.Log = &log
	f := &fakeFitter{}
	ec.fit = f.fit
	est, err := EstimateTable(ctx, et, ec)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.splits) != 0 || est.FittedG || est.FittedM || !est.AuxFit.Observed || !strings.Contains(log.String(), ObservedNote) {
		t.Errorf("estimate on a Z observed everywhere: %d fits of G or m (want 0), log:\n%s", len(f.splits), log.String())
	}
	full := est.Results[0].Value
	for _, r := range est.Results[1:] {
		if math.Abs(r.Value-full) > 1e-12 || math.Abs(r.ValueSE-est.Results[0].ValueSE) > 1e-12 {
			t.Errorf("estimate %v %v ± %v, full %v ± %v: want equal", r.Method, r.Value, r.ValueSE, full, est.Results[0].ValueSE)
		}
	}
}

// TestCollapsedFitsFlagged: a fit whose test accuracy equals the majority baseline, or
// whose AUC is at most 0.5, is warned of; one better than both is not, and one below the
// baseline by more than 0.005 is left to the baseline's own warnings.
func TestCollapsedFitsFlagged(t *testing.T) {
	for _, tc := range []struct {
		name           string
		acc, auc, base float64
		want           string
	}{
		{"equal to the baseline", 0.712, 0.81, 0.712, "no better than the majority baseline 0.712"},
		{"a hair below", 0.710, 0.81, 0.712, "no better than the majority baseline"},
		{"AUC at chance", 0.80, 0.5, 0.712, "test AUC 0.500 is no better than chance"},
		{"AUC below chance", 0.80, 0.42, 0.712, "test AUC 0.420"},
		{"fine", 0.80, 0.81, 0.712, ""},
		{"far below: the baseline's own warning", 0.60, 0.7, 0.712, ""},
	} {
		got := collapseWarning(method.DR, 1, tc.acc, tc.auc, tc.base)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want one containing %q", tc.name, got, tc.want)
		}
	}
}

// TestBelowFloorSaysWhichRows: the positivity warning says which rows it counts, unlike
// G's line, which counts the training rows with Z observed.
func TestBelowFloorSaysWhichRows(t *testing.T) {
	w := AuxReport{BelowMin: 1, Rows: 4225}.Warning(nil)
	if !strings.Contains(w, "on 1 of 4225 rows, Z observed or not") || !strings.Contains(w, "only the training rows with Z observed") {
		t.Errorf("warning %q", w)
	}
}

// TestNegativeBeyondNoiseNoted: an estimate more than two standard errors below 0 gets
// NegativeNote; one within its noise, or without a printed SE, does not.
func TestNegativeBeyondNoiseNoted(t *testing.T) {
	for _, tc := range []struct {
		v, se float64
		want  bool
	}{{-0.023, 0.01, true}, {-0.019, 0.01, false}, {0.05, 0.01, false}, {-0.5, math.NaN(), false}} {
		got := negativeNotes([]invmmd.Result{{Method: method.DR, Value: tc.v, ValueSE: tc.se}})
		if (len(got) == 1) != tc.want || tc.want && !strings.Contains(got[0], "dr: -0.023 is 2.3 standard errors below 0, "+NegativeNote) {
			t.Errorf("%v ± %v: notes %q, want one: %v", tc.v, tc.se, got, tc.want)
		}
	}
}

// TestTinyBandwidthRefused: a fixed σ below MinBandwidthFraction of h's median distance is
// refused by estimate and test with an error naming Bandwidth, before G or m is fitted.
func TestTinyBandwidthRefused(t *testing.T) {
	tab, k, _ := splitTable(t, 400, dataset.BinaryZ, 8)
	tab, err := tabular.NewTable("tiny", tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
		tabular.NumberColumn("z", k.Z), tabular.NumberColumn("h", k.H))
	if err != nil {
		t.Fatal(err)
	}
	ec := DefaultEstimateConfig()
	ec.Y, ec.Z, ec.H, ec.X, ec.Bandwidth, ec.Median = "y", "z", "h", []string{"x1", "x2"}, 1e-9, false
	f := &fakeFitter{}
	ec.fit = f.fit
	_, err = EstimateTable(ctx, tab, ec)
	var fe *FieldError
	if !errorsAs(err, &fe) || fe.Field != "Bandwidth" || len(f.splits) != 0 {
		t.Errorf("estimate with σ = 1e-9: %v after %d fits; want a Bandwidth error before any", err, len(f.splits))
	}
	tc := DefaultTestConfig()
	tc.Y, tc.Z, tc.H, tc.X, tc.Bandwidth, tc.Median = "y", "z", "h", []string{"x1", "x2"}, 1e-9, false
	f = &fakeFitter{}
	tc.fit = f.fit
	_, err = TestTable(ctx, tab, tc)
	if !errorsAs(err, &fe) || fe.Field != "Bandwidth" || len(f.splits) != 0 {
		t.Errorf("test with σ = 1e-9: %v after %d fits; want a Bandwidth error before any", err, len(f.splits))
	}
	ec.Bandwidth = 0.5 // a sane σ is taken
	ec.fit = (&fakeFitter{}).fit
	if _, err := EstimateTable(ctx, tab, ec); err != nil {
		t.Errorf("σ = 0.5: %v", err)
	}
}

// TestLeakingFeatureWarned: a feature column that alone separates the label on the
// training split — blank exactly when y = 0 (flchain's chapter), or a code whose every
// value has one label — is warned of by name; ordinary features are not.
func TestLeakingFeatureWarned(t *testing.T) {
	_, k, split := splitTable(t, 400, dataset.BinaryZ, 9)
	n := len(k.Y)
	chapter, code := make([]string, n), make([]string, n)
	for i, y := range k.Y {
		if y == 1 {
			chapter[i], code[i] = []string{"Circulatory", "Neoplasms"}[i%2], "c"
		} else {
			code[i] = []string{"a", "b"}[i%2]
		}
	}
	for _, tc := range []struct {
		name string
		col  tabular.Col
		want string
	}{
		{"blank when y = 0", tabular.TextColumn("chapter", chapter), "feature column chapter alone predicts the label y exactly on the training split by whether it is missing (missing → Y=0; present → Y=1"},
		{"codes", tabular.TextColumn("code", code), "feature column code alone predicts the label y exactly on the training split ("},
		{"none", tabular.NumberColumn("x3", k.X2), ""},
	} {
		tab, err := tabular.NewTable("leak", tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
			tabular.NumberColumn("z", k.Z), tabular.TextColumn("split", split), tc.col)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Y, cfg.Z, cfg.Split, cfg.Out = "y", "z", "split", ""
		var warn strings.Builder
		cfg.Warn = &warn
		p, err := PrepareTable(ctx, tab, cfg)
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		got := warn.String()
		if tc.want == "" && strings.Contains(got, "alone predicts the label") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: warnings\n%s\nwant one containing %q", tc.name, got, tc.want)
		}
	}
}
