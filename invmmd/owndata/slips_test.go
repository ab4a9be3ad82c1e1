package owndata

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Direct tests of the code around the estimators, each on hand-made inputs at a boundary
// where a slip would change a number without failing anything else: the majority baseline,
// the most probable class, and which rows fit G and m in a test.

// TestMajorityBaseline: the baseline is the share of the most common label — for a binary
// label max(P(Y = 1), 1 − P(Y = 1)), not P(Y = 1); for K classes the largest class's share,
// the last class included.
func TestMajorityBaseline(t *testing.T) {
	set := func(y ...float64) *dataset.Set {
		k := 0
		if slices.Max(y) > 1 {
			k = int(slices.Max(y)) + 1
		}
		return &dataset.Set{Y: y, Classes: k}
	}
	for _, tc := range []struct {
		name string
		s    *dataset.Set
		want float64
	}{
		{"mostly 0", set(0, 0, 0, 1, 1), 0.6},         // P(Y = 1) = 0.4
		{"mostly 1", set(1, 1, 1, 0), 0.75},           // P(Y = 1) = 0.75
		{"a third 1", set(0, 1, 0, 0, 1, 0), 4.0 / 6}, // P(Y = 1) = 1/3
		{"balanced", set(0, 1, 0, 1), 0.5},            // a tie
		{"K classes, the last largest", set(0, 1, 2, 2, 2), 0.6},
		{"K classes, the first largest", set(0, 0, 0, 1, 2, 3), 0.5},
	} {
		if got := Majority(tc.s); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: majority %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestMostProbableClass: the most probable class can be any class, the last one included;
// a tie goes to the first.
func TestMostProbableClass(t *testing.T) {
	for _, tc := range []struct {
		p    []float64
		want int
	}{
		{[]float64{0.7, 0.2, 0.1}, 0},
		{[]float64{0.2, 0.5, 0.3}, 1},
		{[]float64{0.1, 0.2, 0.7}, 2},
		{[]float64{0.1, 0.1, 0.1, 0.7}, 3},
		{[]float64{0.4, 0.2, 0.4}, 0},
		{[]float64{0.3, 0.7}, 1},
	} {
		if got := mostProbable(tc.p); got != tc.want {
			t.Errorf("mostProbable(%v) = %d, want %d", tc.p, got, tc.want)
		}
	}
}

// headsModel returns a K-class MLP with one hidden unit whose class logits are the
// biases b (the hidden layer's weights are zero), saved in a model folder with its
// encoder of the feature x, and the trained model itself.
func headsModel(t *testing.T, b []float32) (string, *train.Model) {
	t.Helper()
	k := len(b)
	ws := []train.Weight{
		{VarShape: train.VarShape{Name: "/model/hidden0/weights", Dims: []int{1, 1}}, Values: []float32{0}},
		{VarShape: train.VarShape{Name: "/model/hidden0/biases", Dims: []int{1}}, Values: []float32{0}},
		{VarShape: train.VarShape{Name: "/model/heads/weights", Dims: []int{1, k}}, Values: make([]float32, k)},
		{VarShape: train.VarShape{Name: "/model/heads/biases", Dims: []int{k}}, Values: b},
	}
	h, err := train.ModelFromWeights(nil, models.MLP{Hidden: []int{1}}, ws, 4)
	if err != nil {
		t.Fatal(err)
	}
	h.Heads = k
	classes := []string{"alpha", "beta", "gamma", "delta"}[:k]
	dir := filepath.Join(t.TempDir(), "m")
	info := ModelInfo{Data: "t.csv", Y: "y", Method: "none", Seed: 1, Classes: classes,
		Encoder: &tabular.Encoder{Features: []tabular.Feature{{Column: "x", Numeric: true, Std: 1}}}}
	if err := saveModel(dir, h, info); err != nil {
		t.Fatal(err)
	}
	return dir, h
}

// TestKClassPredictionChoosesEveryClass: a model whose logits favour one class predicts
// that class for every row, whichever class it is (the last included), through predict's
// path (PredictAll, Class) and through the accuracy that fit reports (train.Evaluate).
func TestKClassPredictionChoosesEveryClass(t *testing.T) {
	tab, err := tabular.NewTable("t.csv", tabular.NumberColumn("x", []float64{-1, 0, 1, 2, 3}))
	if err != nil {
		t.Fatal(err)
	}
	for want := 0; want < 3; want++ {
		b := []float32{0, 0, 0}
		b[want] = 3
		dir, h := headsModel(t, b)
		m, err := LoadModel(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.Predict(tab); err == nil || !strings.Contains(err.Error(), "predicts 3 classes (alpha, beta, gamma): use PredictAll") {
			t.Errorf("Predict of a 3-class model: %v, want a refusal naming PredictAll", err)
		}
		p, _, err := m.PredictAll(context.Background(), tab)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Rows() {
			if got := p.Class(i); got != want {
				t.Fatalf("favoured class %d: row %d predicted %d (%s), probabilities %v", want, i, got, p.Classes[got], p.P[i*3:(i+1)*3])
			}
		}
		// The accuracy fit reports: every row labelled with the favoured class is right.
		mk := func(name string) *dataset.Set {
			s := &dataset.Set{Name: name, X: []float32{-1, 0, 1, 2}, Shape: []int{1}, Y: []float64{float64(want), float64(want), float64(want), float64(want)},
				Z: []float64{0, 1, 0, 1}, Delta: []float64{1, 1, 1, 1}, Classes: 3}
			return s
		}
		ev, err := train.Evaluate(h, dataset.Splits{Train: mk("train"), Val: mk("val"), Test: mk("test")}, train.EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Metrics.TestAcc != 1 {
			t.Errorf("favoured class %d, every label that class: test accuracy %v, want 1", want, ev.Metrics.TestAcc)
		}
	}
}

// fakeFitter is a nuisanceFitter that records each fit's rows and role and predicts a G
// and an m that vary from row to row.
type fakeFitter struct {
	split  [3][]int   // the last fit's
	splits [][3][]int // every fit's
	roles  [][]train.Role
}

func (f *fakeFitter) fit(_ context.Context, l *loaded, _ EstimateConfig, roles []train.Role, split [3][]int, _ *warner) (train.Pred, AuxReport, error) {
	f.split = split
	f.splits, f.roles = append(f.splits, split), append(f.roles, roles)
	n := l.tab.Len()
	p := train.Pred{G: make([]float64, n), M: make([]float64, n)}
	for i := range p.G {
		p.G[i], p.M[i] = 0.5+0.1*float64(i%3), 0.2+0.1*float64(i%7)
	}
	return p, AuxReport{}, nil
}

// TestTestNeverFitsOnTestedRows: invmmd test fits G and m on half B only — the rows it fits
// on and stops on are exactly the rows outside half A, never a row it tests — and tests
// half A: by the cross route with those halves, by the wild route on the rows of A alone.
func TestTestNeverFitsOnTestedRows(t *testing.T) {
	n := 400
	cols := map[string][]float64{"x": make([]float64, n), "y": make([]float64, n), "z": make([]float64, n), "h": make([]float64, n)}
	for i := range n {
		cols["x"][i] = float64(i%17) / 3
		cols["y"][i] = float64(i % 2)
		cols["z"][i] = float64((i / 2) % 2)
		if i%5 == 0 {
			cols["z"][i] = math.NaN()
		}
		cols["h"][i] = math.Sin(float64(i))
	}
	tab, err := tabular.NewTable("halves", tabular.NumberColumn("x", cols["x"]), tabular.NumberColumn("y", cols["y"]), tabular.NumberColumn("z", cols["z"]), tabular.NumberColumn("h", cols["h"]))
	if err != nil {
		t.Fatal(err)
	}
	for _, route := range []invmmd.TestRoute{invmmd.CrossRoute, invmmd.WildRoute} {
		cfg := DefaultTestConfig()
		cfg.Y, cfg.Z, cfg.H, cfg.X, cfg.Route, cfg.Seed, cfg.Folds = "y", "z", "h", []string{"x"}, route, 7, 1
		f := &fakeFitter{}
		cfg.fit = f.fit
		res, err := TestTable(context.Background(), tab, cfg)
		if err != nil {
			t.Fatalf("%v: %v", route, err)
		}
		var a, b []int
		for i, in := range res.inA {
			if in {
				a = append(a, i)
			} else {
				b = append(b, i)
			}
		}
		fitted := slices.Sorted(slices.Values(append(slices.Clone(f.split[0]), f.split[1]...)))
		if !slices.Equal(fitted, b) {
			t.Errorf("%v: G and m fitted and stopped on %d rows, half B has %d (they must be the same rows)", route, len(fitted), len(b))
		}
		for _, i := range fitted {
			if res.inA[i] {
				t.Fatalf("%v: row %d of half A (tested) fitted G and m", route, i)
			}
		}
		if !slices.Equal(f.split[2], a) || res.HalfA != len(a) || res.HalfB != len(b) || len(a) == 0 || len(b) == 0 {
			t.Errorf("%v: halves A %d / B %d rows, reported %d / %d, the rest given to the fitter %d", route, len(a), len(b), res.HalfA, res.HalfB, len(f.split[2]))
		}
		tested := res.Tested
		if route == invmmd.CrossRoute {
			tested = 0
			for _, r := range res.Results[0].Strata {
				tested += r.Rows[0]
			}
			if tested != len(a) { // dr's pseudo-outcome is on every row
				t.Errorf("cross: the statistic sums over %d rows, half A has %d", tested, len(a))
			}
		} else if tested != len(a) {
			t.Errorf("%v: %d rows tested, half A has %d", route, tested, len(a))
		}
	}
}

// TestCrossFittingNeverPredictsSeenRows: with K folds, estimate and test fit G and then m K
// times each; every fit predicts the rows of one fold and was fitted and stopped on rows of
// the other folds only; every row is predicted exactly once per model; and the folds hold
// each (Y, Δ) cell's share.
func TestCrossFittingNeverPredictsSeenRows(t *testing.T) {
	n := 500
	cols := map[string][]float64{"x": make([]float64, n), "y": make([]float64, n), "z": make([]float64, n), "h": make([]float64, n)}
	for i := range n {
		cols["x"][i] = float64(i%17) / 3
		cols["y"][i] = float64(i % 2)
		cols["z"][i] = float64((i / 2) % 2)
		if i%5 == 0 {
			cols["z"][i] = math.NaN()
		}
		cols["h"][i] = math.Sin(float64(i))
	}
	tab, err := tabular.NewTable("folds", tabular.NumberColumn("x", cols["x"]), tabular.NumberColumn("y", cols["y"]), tabular.NumberColumn("z", cols["z"]), tabular.NumberColumn("h", cols["h"]))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, f *fakeFitter, k int) {
		if len(f.splits) != 2*k {
			t.Fatalf("%s: %d fits, want %d (G and m on each of %d folds)", name, len(f.splits), 2*k, k)
		}
		for _, role := range []train.Role{train.RoleG, train.RoleM} {
			seen := make([]int, n)
			for j, sp := range f.splits {
				if len(f.roles[j]) != 1 || f.roles[j][0] != role {
					continue
				}
				fitted := map[int]bool{}
				for _, i := range append(slices.Clone(sp[0]), sp[1]...) {
					fitted[i] = true
				}
				for _, i := range sp[2] {
					if fitted[i] {
						t.Fatalf("%s: %v's fit %d predicts row %d, which it was fitted or stopped on", name, role, j, i)
					}
					seen[i]++
				}
				if len(fitted)+len(sp[2]) != n {
					t.Errorf("%s: %v's fit %d saw %d rows and predicts %d, of %d", name, role, j, len(fitted), len(sp[2]), n)
				}
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("%s: row %d predicted by %d fits of %v, want 1", name, i, c, role)
				}
			}
		}
	}
	cfg := DefaultTestConfig()
	cfg.Y, cfg.Z, cfg.H, cfg.X, cfg.Seed = "y", "z", "h", []string{"x"}, 7
	f := &fakeFitter{}
	cfg.fit = f.fit
	res, err := TestTable(context.Background(), tab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	check("test", f, DefaultFolds)
	if res.Folds != DefaultFolds || res.Tested != n {
		t.Errorf("test: folds %d, %d rows tested; want %d folds and every row", res.Folds, res.Tested, DefaultFolds)
	}
	ec := DefaultEstimateConfig()
	ec.Y, ec.Z, ec.H, ec.X, ec.Folds = "y", "z", "h", []string{"x"}, 4
	f = &fakeFitter{}
	ec.fit = f.fit
	if _, err := EstimateTable(context.Background(), tab, ec); err != nil {
		t.Fatal(err)
	}
	check("estimate", f, 4)
	// Every row gets its Ĝ and m̂, with K folds and with sample splitting (where the rows of
	// half B, which the cross route's witness reads, get the in-sample predictions).
	for _, folds := range []int{1, 5} {
		l, err := ec.load(tab, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		rows := l.rows
		inA := invmmd.Halves(invmmd.Rows{Y: rows.Y, Delta: rows.Delta}, false, 3)
		if folds > 1 {
			inA = nil
		}
		ec.Folds, ec.fit = folds, (&fakeFitter{}).fit
		if _, err := l.fitNuisances(context.Background(), ec, inA, &rows, &warner{}); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if rows.G[i] == 0 || rows.M[i] == 0 {
				t.Fatalf("folds %d: row %d has Ĝ %v, m̂ %v: not predicted", folds, i, rows.G[i], rows.M[i])
			}
		}
	}
	// The folds share each (Y, Δ) cell's rows to within one.
	y, d := cols["y"], make([]float64, n)
	for i := range d {
		if !math.IsNaN(cols["z"][i]) {
			d[i] = 1
		}
	}
	fs := fairness.CellFolds(y, d, 5, 1)
	for _, cell := range [][2]float64{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
		lo, hi := n, 0
		for _, fold := range fs {
			c := 0
			for _, i := range fold {
				if y[i] == cell[0] && d[i] == cell[1] {
					c++
				}
			}
			lo, hi = min(lo, c), max(hi, c)
		}
		if hi-lo > 1 {
			t.Errorf("cell %v: folds hold %d to %d of its rows", cell, lo, hi)
		}
	}
}

// TestFieldErrorNamesTheField: a refused setting is a *FieldError whose Field is the
// configuration's field and whose message names no flag.
func TestFieldErrorNamesTheField(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Data, cfg.Y, cfg.Z, cfg.LearningRate = "t.csv", "y", "z", 20
	err := cfg.Validate()
	var fe *FieldError
	if !errorsAs(err, &fe) || fe.Field != "LearningRate" || fe.Value != 20.0 || strings.Contains(err.Error(), "-lr") {
		t.Errorf("a learning rate of 20: %v (%+v)", err, fe)
	}
}

// TestSteeringWarnings: a penalised fit below the majority baseline is said to be steered by
// its penalty only when it is also below none's fit of the same seed; one no worse than
// none's is said to share none's weakness; one without none's fit says how to find out;
// fits at or above the baseline, and none itself, get no such warning.
func TestSteeringWarnings(t *testing.T) {
	cfg := DefaultConfig()
	rows := []Row{
		{Method: "none", Seed: 1, TestAcc: 0.60},
		{Method: "dr", Seed: 1, TestAcc: 0.55},   // below none by 0.05: steering
		{Method: "obs", Seed: 1, TestAcc: 0.595}, // within 0.01 of none: not the penalty
		{Method: "dr", Seed: 2, TestAcc: 0.61},   // no none for seed 2
		{Method: "ip", Seed: 1, TestAcc: 0.70},   // above the baseline
	}
	got := SteeringWarnings(rows, 0.65, cfg)
	if len(got) != 3 {
		t.Fatalf("%d warnings, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, want := range []string{"h (dr, seed 1): test accuracy 0.550 is below the majority baseline 0.650 and below none's 0.600 on the same seed: the penalty may be steering h",
		"h (obs, seed 1): test accuracy 0.595 is below the majority baseline 0.650, as none's is (0.600): the features say little of the label here; the penalty is not the cause",
		"h (dr, seed 2): test accuracy 0.610 is below the majority baseline 0.650; train none alongside"} {
		if !strings.HasPrefix(got[i], want) {
			t.Errorf("warning %d: %q, want it to start %q", i, got[i], want)
		}
	}
}

// TestFewFoldsMarked: with G and m fitted on fewer than DefaultFolds folds, every p-value
// of a method reading them is marked with FewFoldsCaveat and its standard error withheld,
// while 5 folds mark nothing of the kind and obs (which reads neither) keeps its standard
// error.
func TestFewFoldsMarked(t *testing.T) {
	n := 500
	x, y, z, h := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i], z[i], h[i] = float64(i%17)/3, float64(i%2), float64((i/2)%2), math.Sin(float64(i))
		if i%5 == 0 {
			z[i] = math.NaN()
		}
	}
	tab, err := tabular.NewTable("folds", tabular.NumberColumn("x", x), tabular.NumberColumn("y", y), tabular.NumberColumn("z", z), tabular.NumberColumn("h", h))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		folds  int
		marked bool
	}{{1, true}, {2, true}, {4, true}, {5, false}, {10, false}} {
		cfg := DefaultTestConfig()
		cfg.Y, cfg.Z, cfg.H, cfg.X, cfg.Folds, cfg.Methods = "y", "z", "h", []string{"x"}, tc.folds, []method.Method{method.DR, method.IP}
		cfg.fit = (&fakeFitter{}).fit
		res, err := TestTable(context.Background(), tab, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Results {
			if got := slices.Contains(r.Unreliable, FewFoldsCaveat); got != tc.marked {
				t.Errorf("test, %d folds, %v: marked %v, want %v (%q)", tc.folds, r.Method, got, tc.marked, r.Unreliable)
			}
		}
		ec := DefaultEstimateConfig()
		ec.Y, ec.Z, ec.H, ec.X, ec.Folds, ec.Methods = "y", "z", "h", []string{"x"}, tc.folds, []method.Method{method.Obs, method.DR, method.IP}
		ec.fit = (&fakeFitter{}).fit
		est, err := EstimateTable(context.Background(), tab, ec)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range est.Results {
			withheld := math.IsNaN(r.ValueSE)
			if want := tc.marked && r.Method != method.Obs; withheld != want {
				t.Errorf("estimate, %d folds, %v: SE %v, want withheld %v", tc.folds, r.Method, r.ValueSE, want)
			}
		}
	}
}

// TestConservativeSEFlagged checks ConservativeSENote: invmmd estimate flags the standard
// error of a method reading a fitted G or m whose estimate is within two of them of 0 (h
// independent of Z), and not when h depends on Z strongly, nor for a method that reads
// neither (obs), nor for one whose G and m are given as columns.
func TestConservativeSEFlagged(t *testing.T) {
	n := 2000
	rng := rand.New(rand.NewPCG(3, 4))
	x, y, z, hNull, hDep, g, m := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = rng.Float64(), float64(rng.IntN(2))
		m[i] = 0.5
		z[i] = float64(rng.IntN(2))
		hNull[i] = y[i] + rng.NormFloat64()
		hDep[i] = y[i] + 3*z[i] + 0.3*rng.NormFloat64()
		g[i] = 0.8
		if rng.Float64() > g[i] {
			z[i] = math.NaN()
		}
	}
	tab, err := tabular.NewTable("se", tabular.NumberColumn("x", x), tabular.NumberColumn("y", y), tabular.NumberColumn("z", z),
		tabular.NumberColumn("h0", hNull), tabular.NumberColumn("h1", hDep), tabular.NumberColumn("g", g), tabular.NumberColumn("m", m))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h      string
		given  bool
		method method.Method
		want   bool
	}{
		{"h0", false, method.DR, true}, {"h0", false, method.IP, true}, {"h0", false, method.Obs, false},
		{"h1", false, method.DR, false}, {"h0", true, method.DR, false},
	} {
		ec := DefaultEstimateConfig()
		ec.Y, ec.Z, ec.H, ec.X, ec.Methods = "y", "z", tc.h, []string{"x"}, []method.Method{tc.method}
		if tc.given {
			ec.G, ec.M = "g", "m"
		}
		ec.fit = (&fakeFitter{}).fit
		est, err := EstimateTable(context.Background(), tab, ec)
		if err != nil {
			t.Fatal(err)
		}
		r := est.Results[0]
		got := slices.ContainsFunc(est.Warnings, func(w string) bool { return strings.Contains(w, ConservativeSENote) })
		if got != tc.want {
			t.Errorf("%s, %v, G and m given %v: estimate %.4g ± %.4g, flagged %v, want %v", tc.h, tc.method, tc.given, r.Value, r.ValueSE, got, tc.want)
		}
	}
}

// TestGivenGFitsNoGAndWarnsNoPositivity: with G given as a column (-g), estimate and test
// fit m alone, never a Ĝ they would not use, and judge positivity on the given G: a fitter
// whose Ĝ would fail positivity everywhere (0.01) raises no warning when the column's G is
// 0.5, and does when G is fitted.
func TestGivenGFitsNoGAndWarnsNoPositivity(t *testing.T) {
	n := 500
	x, y, z, h, g := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i], z[i], h[i], g[i] = float64(i%17)/3, float64(i%2), float64((i/2)%2), math.Sin(float64(i)), 0.5
		if i%5 == 0 {
			z[i] = math.NaN()
		}
	}
	tab, err := tabular.NewTable("given", tabular.NumberColumn("x", x), tabular.NumberColumn("y", y), tabular.NumberColumn("z", z),
		tabular.NumberColumn("h", h), tabular.NumberColumn("g", g))
	if err != nil {
		t.Fatal(err)
	}
	for _, given := range []bool{true, false} {
		f := &fakeFitter{}
		lowG := func(ctx context.Context, l *loaded, c EstimateConfig, roles []train.Role, split [3][]int, wr *warner) (train.Pred, AuxReport, error) {
			p, rep, err := f.fit(ctx, l, c, roles, split, wr)
			for i := range p.G {
				p.G[i] = 0.01
			}
			return p, rep, err
		}
		ec := DefaultEstimateConfig()
		ec.Y, ec.Z, ec.H, ec.X, ec.Methods = "y", "z", "h", []string{"x"}, []method.Method{method.DR}
		if given {
			ec.G = "g"
		}
		ec.fit = lowG
		est, err := EstimateTable(context.Background(), tab, ec)
		if err != nil {
			t.Fatal(err)
		}
		for _, roles := range f.roles {
			if given && slices.Contains(roles, train.RoleG) {
				t.Errorf("G given: a Ĝ was fitted (roles %v)", roles)
			}
		}
		warned := slices.ContainsFunc(est.Warnings, func(w string) bool { return strings.Contains(w, "positivity fails") })
		if warned == given {
			t.Errorf("G given %v: positivity warning %v, want %v (warnings %q)", given, warned, !given, est.Warnings)
		}
	}
}
