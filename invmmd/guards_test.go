package invmmd

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

func smallRows() ([]float64, Rows) {
	return []float64{0.1, 0.5, -0.3, 1.2, 0.8, -1, 0.2, 0.4},
		Rows{
			Y:     []float64{0, 0, 0, 0, 1, 1, 1, 1},
			Z:     []float64{0, 1, 0, 1, 1, 0, 1, 0},
			Delta: []float64{1, 1, 0, 1, 1, 1, 0, 1},
			G:     []float64{0.5, 0.6, 0.3, 0.9, 0.8, 0.4, 0.2, 0.7},
			GTrue: []float64{0.5, 0.6, 0.3, 0.9, 0.8, 0.4, 0.2, 0.7},
			M:     []float64{0.2, 0.7, 0.4, 0.6, 0.8, 0.3, 0.6, 0.5},
		}
}

// TestBadInputsAreClearErrors checks that malformed inputs give an error that names the
// column, row and value, rather than a panic or a NaN.
func TestBadInputsAreClearErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(h *[]float64, r *Rows, o *Options)
		method method.Method
		want   []string
	}{
		{"mismatched lengths", func(h *[]float64, r *Rows, o *Options) { r.Z = r.Z[:5] }, method.Full, []string{"column Z has 5 rows, Y has 8"}},
		{"short Delta with NaN Z", func(h *[]float64, r *Rows, o *Options) { r.Delta = r.Delta[:5]; r.Z[2] = math.NaN() }, method.DR, []string{"column Delta has 5 rows, Y has 8"}},
		{"h shorter than rows", func(h *[]float64, r *Rows, o *Options) { *h = (*h)[:7] }, method.Full, []string{"7 model outputs for 8 rows"}},
		{"NaN in G", func(h *[]float64, r *Rows, o *Options) { r.G[2] = math.NaN() }, method.DR, []string{"row 2", "G = NaN"}},
		{"Inf in h", func(h *[]float64, r *Rows, o *Options) { (*h)[3] = math.Inf(1) }, method.Reg, []string{"row 3", "h = +Inf"}},
		{"label not binary", func(h *[]float64, r *Rows, o *Options) { r.Y[4] = 2 }, method.Full, []string{"row 4", "Y = 2", "0 or 1"}},
		{"G above 1", func(h *[]float64, r *Rows, o *Options) { r.G[1] = 1.5 }, method.IP, []string{"row 1", "G = 1.5", "[0, 1]"}},
		{"m missing for reg", func(h *[]float64, r *Rows, o *Options) { r.M = nil }, method.Reg, []string{"column M is nil", "method reg"}},
		{"true G missing for dr+", func(h *[]float64, r *Rows, o *Options) { r.GTrue = nil }, method.DRPlus, []string{"GTrue", "dr+"}},
		{"negative bandwidth", func(h *[]float64, r *Rows, o *Options) { o.Bandwidth = -1 }, method.Full, []string{"Bandwidth = -1"}},
		{"main fraction above 1", func(h *[]float64, r *Rows, o *Options) { o.MainFraction = 1.5 }, method.Full, []string{"MainFraction = 1.5"}},
		{"no rows", func(h *[]float64, r *Rows, o *Options) { *h = nil; *r = Rows{} }, method.Full, []string{"no rows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, rows := smallRows()
			var o Options
			tc.edit(&h, &rows, &o)
			_, err := Estimate(context.Background(), ScalarRep(h), rows, o, tc.method)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestGuards checks the defined outcomes of degenerate batches: each is finite, and what
// the guard did is reported.
func TestGuards(t *testing.T) {
	t.Run("G = 0 is floored and counted", func(t *testing.T) {
		h, rows := smallRows()
		rows.G[0], rows.G[3] = 0, 0.01 // both observed rows
		res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1}, method.IP, method.DR)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Report.FlooredG != 2 || math.IsNaN(r.Value) {
				t.Errorf("%v: FlooredG = %d, value %v; want 2 floored rows and a finite value", r.Method, r.Report.FlooredG, r.Value)
			}
		}
		// The floor is the one that Options.GFloor sets: raising it changes the estimate.
		res2, _ := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1, GFloor: 0.3}, method.IP)
		if res2[0].Value == res[0].Value {
			t.Error("GFloor 0.3 gave the same IP estimate as the default floor")
		}
	})
	t.Run("all rows missing", func(t *testing.T) {
		h, rows := smallRows()
		rows.Delta = make([]float64, len(rows.Y))
		res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1}, method.Obs, method.IP, method.DR, method.Full)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res[:2] { // obs and ip carry no information: both strata empty, value 0
			if r.Value != 0 || len(r.Report.EmptyStrata) != 2 {
				t.Errorf("%v with every Z missing: value %v, empty strata %v; want 0 and both strata flagged", r.Method, r.Value, r.Report.EmptyStrata)
			}
		}
		if len(res[2].Report.EmptyStrata) != 0 || math.IsNaN(res[2].Value) {
			t.Errorf("dr with every Z missing falls back on m: want a finite value and no empty stratum, got %v, %v", res[2].Value, res[2].Report.EmptyStrata)
		}
		if _, err := MeanZ(method.Obs, rows, Options{}); err == nil || !strings.Contains(err.Error(), "all Z missing") {
			t.Errorf("MeanZ(obs) with every Z missing: error %v, want one saying all Z are missing", err)
		}
	})
	t.Run("one class only", func(t *testing.T) {
		h, rows := smallRows()
		for i := range rows.Y {
			rows.Y[i] = 1
		}
		res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{}, method.Full, method.DR)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if !slices.Equal(r.Report.EmptyStrata, []float64{0}) || r.Strata[0] != 0 || math.IsNaN(r.Value) || r.Value == 0 {
				t.Errorf("%v with Y = 1 only: strata %v, empty %v; want stratum 0 empty and stratum 1 estimated", r.Method, r.Strata, r.Report.EmptyStrata)
			}
		}
	})
	t.Run("no row of one Z value in a stratum", func(t *testing.T) {
		h, rows := smallRows()
		for i := 4; i < 8; i++ {
			rows.Z[i] = 1
		}
		res, _ := Estimate(context.Background(), ScalarRep(h), rows, Options{}, method.Full)
		if !slices.Equal(res[0].Report.EmptyStrata, []float64{1}) || res[0].Strata[1] != 0 {
			t.Errorf("stratum Y=1 with Z=1 only: strata %v, empty %v; want it flagged and 0", res[0].Strata, res[0].Report.EmptyStrata)
		}
	})
	t.Run("negative normaliser is floored", func(t *testing.T) {
		h, rows := smallRows()
		// Observed Z = 0 with small G and a large m: the DR estimate of P(Z = 1) is negative.
		for i := range rows.M {
			rows.M[i] = 0.95
			if rows.Delta[i] == 1 {
				rows.Z[i], rows.G[i] = 0, 0.1
			}
		}
		rows.Z[2], rows.Z[6] = 1, 1 // missing rows: keep both Z values in the truth
		res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1}, method.DR)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Report.FlooredNorms == 0 || math.IsNaN(res[0].Value) {
			t.Errorf("FlooredNorms = %d, value %v; want a floored normaliser and a finite value", res[0].Report.FlooredNorms, res[0].Value)
		}
		for _, tm := range res[0].Terms {
			if tm.N[1][1] != DefaultNormFloor*DefaultNormFloor {
				t.Errorf("stratum %v: N_11 = %v, want the floor %v", tm.Y, tm.N[1][1], DefaultNormFloor*DefaultNormFloor)
			}
		}
	})
	t.Run("none has no penalty", func(t *testing.T) {
		_, rows := smallRows()
		d, err := NewDesign(rows, Options{}, method.None)
		if err != nil {
			t.Fatal(err)
		}
		if d.NumColumns() != 0 {
			t.Errorf("none has %d columns, want 0", d.NumColumns())
		}
	})
}

// TestDesignShapeIsStable checks that a method's number of factor columns does not depend
// on the batch, so that one compiled training graph serves every batch.
func TestDesignShapeIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, m := range []method.Method{method.Full, method.Obs, method.IP, method.Reg, method.DR, method.DRPlus} {
		var sizes []int
		for k := 0; k < 4; k++ {
			_, rows := defaultTestDGP().draw(rng, 40)
			if k == 1 {
				for i := range rows.Y {
					rows.Y[i] = 0
				}
			}
			if k == 2 {
				rows.Delta = make([]float64, 40)
			}
			d, err := NewDesign(rows, Options{}, m)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, d.NumColumns())
		}
		if slices.Min(sizes) != slices.Max(sizes) {
			t.Errorf("%v: column counts %v vary across batches", m, sizes)
		}
	}
}

func TestMedianBandwidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{2, 3, 10, 101} {
		h := make([]float64, n)
		for i := range h {
			h[i] = rng.NormFloat64() * 2
		}
		var d []float64
		for i := range h {
			for j := i + 1; j < n; j++ {
				d = append(d, math.Abs(h[i]-h[j]))
			}
		}
		slices.Sort(d)
		want := d[(len(d)+1)/2-1]
		got, err := MedianBandwidth(ScalarRep(h))
		if err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("n=%d: MedianBandwidth = %v (%v), want %v", n, got, err, want)
		}
	}
	if _, err := MedianBandwidth(ScalarRep([]float64{1, 1, 1, 2})); err == nil {
		t.Error("tied outputs: want an error, the median distance is 0")
	}
	if _, err := MedianBandwidth(ScalarRep([]float64{1})); err == nil {
		t.Error("one output: want an error")
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range method.Paper() {
		got, err := method.Parse(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m.String(), got, err)
		}
	}
	if got, _ := method.Parse("DRplus"); got != method.DRPlus {
		t.Errorf("ParseMethod(DRplus) = %v", got)
	}
	if _, err := method.Parse("dr++"); err == nil || !strings.Contains(err.Error(), "unknown method") {
		t.Errorf("ParseMethod(dr++) error = %v", err)
	}
	ms, err := method.ParseList("all")
	if err != nil || len(ms) != 8 {
		t.Errorf("ParseMethods(all) = %v, %v", ms, err)
	}
}

// TestMissingZIsNaN checks that missing Z may be written as NaN: Δ is derived from it, every
// missing-data estimator gives what it gives with Δ given and a placeholder Z, and Full
// refuses with an error that says why.
func TestMissingZIsNaN(t *testing.T) {
	h, given := smallRows()
	nan := given
	nan.Z = slices.Clone(given.Z)
	for i, d := range given.Delta {
		if d == 0 {
			nan.Z[i] = math.NaN()
		}
	}
	nan.Delta = nil
	if got := nan.MissingZ(); got != 2 {
		t.Fatalf("MissingZ = %d, want 2", got)
	}
	methods := []method.Method{method.Obs, method.IP, method.Reg, method.DR, method.DRPO}
	want, err := Estimate(context.Background(), ScalarRep(h), given, Options{MainFraction: 1}, methods...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Estimate(context.Background(), ScalarRep(h), nan, Options{MainFraction: 1}, methods...)
	if err != nil {
		t.Fatal(err)
	}
	for k := range methods {
		if got[k].Value != want[k].Value || math.IsNaN(got[k].Value) {
			t.Errorf("%v: NaN Z gives %v, Δ given gives %v", methods[k], got[k].Value, want[k].Value)
		}
	}
	// Δ given and NaN where Δ = 0: the same again.
	nan.Delta = given.Delta
	if got, err = Estimate(context.Background(), ScalarRep(h), nan, Options{MainFraction: 1}, method.DR); err != nil || got[0].Value != want[3].Value {
		t.Errorf("Δ given, NaN Z where missing: %v, %v; want %v", got, err, want[3].Value)
	}
	_, err = Estimate(context.Background(), ScalarRep(h), nan, Options{}, method.Full)
	if err == nil || !strings.Contains(err.Error(), "row 2: Z is missing (NaN) but method full needs Z on every row") {
		t.Errorf("full with NaN Z: error %v", err)
	}
	// NaN where Δ = 1 is refused by every method.
	nan.Z[0] = math.NaN()
	if _, err := Estimate(context.Background(), ScalarRep(h), nan, Options{}, method.DR); err == nil || !strings.Contains(err.Error(), "row 0: Z = NaN, want 0 or 1") {
		t.Errorf("NaN Z where Δ = 1: error %v", err)
	}
}

// TestFeaturesDeltaChecked: rows whose nuisance comes as features (Psi) have their Δ
// checked as the binary Z's is (checkColumns): its length, a finite value, 0 or 1.
func TestFeaturesDeltaChecked(t *testing.T) {
	psi := &Features{Dim: 3, Data: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}}
	for _, tc := range []struct {
		delta []float64
		want  string
	}{
		{[]float64{1, 1}, "column Delta has 2 rows, Y has 3"},
		{[]float64{1, math.NaN(), 1}, "row 1: Delta = NaN, want a finite value"},
		{[]float64{1, 1, 2}, "row 2: Delta = 2, want 0 or 1"},
	} {
		rows := Rows{Y: []float64{0, 1, 0}, Delta: tc.delta, Psi: psi}
		if err := rows.ValidateClasses(2, method.Obs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Δ %v: error %v, want %q", tc.delta, err, tc.want)
		}
	}
}

// TestUnreliableStrata checks the cases that motivated the flag: a stratum with one observed Z = 1 row, a
// negative normaliser and heavy weights are flagged, with the reason, and a healthy batch
// is not.
func TestUnreliableStrata(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	h, healthy := defaultTestDGP().draw(rng, 2000)
	res, err := Estimate(context.Background(), ScalarRep(h), healthy, Options{}, method.Obs, method.IP, method.Reg, method.DR, method.DRPO, method.Full)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if u := r.Report.Unreliable(); len(u) > 0 || len(r.Report.Strata) != 2 {
			t.Errorf("%v on 2000 healthy rows: unreliable strata %v\n%v", r.Method, u, r)
		}
	}

	t.Run("one observed Z=1 row", func(t *testing.T) {
		h, rows := oneObservedZ1(23)
		res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1}, method.Obs, method.IP)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			s := r.Report.Strata[1]
			if s.Observed[1] != 1 || !s.Unreliable || !strings.Contains(strings.Join(s.Reasons, ";"), "for Z=1 is 1.0 < 10") {
				t.Errorf("%v: stratum Y=1 %+v; want 1 observed Z=1 row and the flag with its ESS", r.Method, s)
			}
			if r.Report.Strata[0].Unreliable {
				t.Errorf("%v: stratum Y=0 flagged: %v", r.Method, r.Report.Strata[0])
			}
			if !strings.Contains(r.String(), "UNRELIABLE in Y = 1") {
				t.Errorf("%v: String() does not flag Y=1:\n%v", r.Method, r)
			}
		}
	})
	t.Run("negative normaliser", func(t *testing.T) {
		h, rows := smallRows()
		for i := range rows.M {
			rows.M[i] = 0.95
			if rows.Delta[i] == 1 {
				rows.Z[i], rows.G[i] = 0, 0.1
			}
		}
		res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{MainFraction: 1, MinESS: 1}, method.DR)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res[0].Report.Strata {
			if !s.Unreliable || !strings.Contains(strings.Join(s.Reasons, ";"), "< 0.01 (normalisers floored)") || !(s.Mean[1] < 0) {
				t.Errorf("stratum Y=%v: %v; want it flagged for its negative estimate of P(Z=1)", s.Y, s)
			}
		}
	})
	t.Run("U-statistic normaliser below its floor", func(t *testing.T) {
		// Positive means, but one row carries nearly all the weight: Σ_{i≠j} f_i f_j is tiny.
		var sum [2]float64
		var d2 [2][2]float64
		f := []float64{3, 1e-5, 1e-5, 1e-5}
		for _, x := range f {
			sum[1] += x
			d2[1][1] += x * x
		}
		sum[0], d2[0][0] = 2, 1
		rep := Report{}
		norm, raw := normalisers(sum, d2, 4, 0.01, &rep)
		if !(raw[1][1] < 1e-4) || norm[1][1] != 1e-4 || rep.FlooredNorms == 0 {
			t.Errorf("raw N11 %v, floored %v, count %d", raw[1][1], norm[1][1], rep.FlooredNorms)
		}
		if r := normReasons([2]float64{sum[0] / 4, sum[1] / 4}, raw, 0.01); len(r) == 0 || !strings.Contains(r[0], "N11") {
			t.Errorf("reasons %v, want N11 named", r)
		}
	})
}

// oneObservedZ1 draws 400 rows of the test DGP and hides Z in every (Y = 1, Z = 1) row
// but one: the stratum with a single observed Z = 1 row.
func oneObservedZ1(seed uint64) ([]float64, Rows) {
	h, rows := defaultTestDGP().draw(rand.New(rand.NewPCG(seed, seed+1)), 400)
	kept := false
	for i := range rows.Y {
		if rows.Y[i] == 1 && rows.Z[i] == 1 && rows.Delta[i] == 1 {
			if kept {
				rows.Delta[i] = 0
			}
			kept = true
		}
	}
	return h, rows
}

// TestDropUnreliable checks that a dropped stratum contributes 0 to the value and to the
// training matrices, and that the others are untouched.
func TestDropUnreliable(t *testing.T) {
	h, rows := oneObservedZ1(25)
	d, err := NewDesign(rows, Options{MainFraction: 1}, method.IP)
	if err != nil {
		t.Fatal(err)
	}
	if n := d.TrainingGuard(); n != 0 {
		t.Fatalf("TrainingGuard without Options.DropUnreliable dropped %d strata", n)
	}
	before, _ := d.Evaluate(ScalarRep(h), nil)
	d.opts.DropUnreliable = true
	if n := d.TrainingGuard(); n != 1 {
		t.Fatalf("dropped %d strata, want 1", n)
	}
	after, _ := d.Evaluate(ScalarRep(h), nil)
	if after[0].Strata[1] != 0 || after[0].Strata[0] != before[0].Strata[0] || before[0].Strata[1] == 0 {
		t.Errorf("strata before %v, after %v; want Y=1 dropped to 0 and Y=0 unchanged", before[0].Strata, after[0].Strata)
	}
	if !after[0].Report.Strata[1].Dropped || !strings.Contains(after[0].Report.String(), "dropped from the penalty") {
		t.Errorf("report does not say the stratum was dropped:\n%v", after[0].Report)
	}
	_, c, p, _ := d.Matrices()
	for _, x := range c[p*p:] {
		if x != 0 {
			t.Fatal("stratum Y=1 still has coefficients in the training matrices")
		}
	}
}

// TestUnconditionalReportNamesAllRows checks that the unconditional penalty's one stratum
// is reported as "all rows", not as a Y value.
func TestUnconditionalReportNamesAllRows(t *testing.T) {
	h, rows := defaultTestDGP().draw(rand.New(rand.NewPCG(27, 28)), 400)
	res, err := Estimate(context.Background(), ScalarRep(h), rows, Options{Unconditional: true}, method.IP)
	if err != nil {
		t.Fatal(err)
	}
	if s := res[0].String(); !strings.Contains(s, "[all rows: ") || !strings.Contains(s, "\n  all rows: ") || strings.Contains(s, "Y=0") {
		t.Errorf("unconditional report:\n%s", s)
	}
}

// TestTrainingGuardDropsFlooredNormaliser checks the training guard on the second motivating
// case: strata whose dr normaliser was floored (a negative estimate of P(Z = 1 | Y)) leave
// the training matrices when Options.DropUnreliable is set, and stay without it.
func TestTrainingGuardDropsFlooredNormaliser(t *testing.T) {
	_, rows := smallRows()
	for i := range rows.M {
		rows.M[i] = 0.95
		if rows.Delta[i] == 1 {
			rows.Z[i], rows.G[i] = 0, 0.1
		}
	}
	for _, drop := range []bool{false, true} {
		d, err := NewDesign(rows, Options{MainFraction: 1, MinESS: 1, DropUnreliable: drop}, method.DR)
		if err != nil {
			t.Fatal(err)
		}
		n := d.TrainingGuard()
		_, c, _, _ := d.Matrices()
		nonzero := 0
		for _, x := range c {
			if x != 0 {
				nonzero++
			}
		}
		if drop && (n != 2 || nonzero != 0) || !drop && (n != 0 || nonzero == 0) {
			t.Errorf("DropUnreliable=%v: dropped %d strata, %d nonzero coefficients left", drop, n, nonzero)
		}
	}
}
