package invmmd

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
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
		method Method
		want   []string
	}{
		{"mismatched lengths", func(h *[]float64, r *Rows, o *Options) { r.Z = r.Z[:5] }, Full, []string{"column Z has 5 rows, Y has 8"}},
		{"h shorter than rows", func(h *[]float64, r *Rows, o *Options) { *h = (*h)[:7] }, Full, []string{"7 model outputs for 8 rows"}},
		{"NaN in G", func(h *[]float64, r *Rows, o *Options) { r.G[2] = math.NaN() }, DR, []string{"row 2", "G = NaN"}},
		{"Inf in h", func(h *[]float64, r *Rows, o *Options) { (*h)[3] = math.Inf(1) }, Reg, []string{"row 3", "h = +Inf"}},
		{"label not binary", func(h *[]float64, r *Rows, o *Options) { r.Y[4] = 2 }, Full, []string{"row 4", "Y = 2", "0 or 1"}},
		{"G above 1", func(h *[]float64, r *Rows, o *Options) { r.G[1] = 1.5 }, IP, []string{"row 1", "G = 1.5", "[0, 1]"}},
		{"m missing for reg", func(h *[]float64, r *Rows, o *Options) { r.M = nil }, Reg, []string{"column M is nil", "method reg"}},
		{"true G missing for dr+", func(h *[]float64, r *Rows, o *Options) { r.GTrue = nil }, DRPlus, []string{"GTrue", "dr+"}},
		{"negative bandwidth", func(h *[]float64, r *Rows, o *Options) { o.Bandwidth = -1 }, Full, []string{"Bandwidth = -1"}},
		{"main fraction above 1", func(h *[]float64, r *Rows, o *Options) { o.MainFraction = 1.5 }, Full, []string{"MainFraction = 1.5"}},
		{"no rows", func(h *[]float64, r *Rows, o *Options) { *h = nil; *r = Rows{} }, Full, []string{"no rows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, rows := smallRows()
			var o Options
			tc.edit(&h, &rows, &o)
			_, err := Estimate(h, rows, o, tc.method)
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
		res, err := Estimate(h, rows, Options{MainFraction: 1}, IP, DR)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Report.FlooredG != 2 || math.IsNaN(r.Value) {
				t.Errorf("%v: FlooredG = %d, value %v; want 2 floored rows and a finite value", r.Method, r.Report.FlooredG, r.Value)
			}
		}
		// The floor is the one that Options.GFloor sets: raising it changes the estimate.
		res2, _ := Estimate(h, rows, Options{MainFraction: 1, GFloor: 0.3}, IP)
		if res2[0].Value == res[0].Value {
			t.Error("GFloor 0.3 gave the same IP estimate as the default floor")
		}
	})
	t.Run("all rows missing", func(t *testing.T) {
		h, rows := smallRows()
		rows.Delta = make([]float64, len(rows.Y))
		res, err := Estimate(h, rows, Options{MainFraction: 1}, Obs, IP, DR, Full)
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
		if _, err := MeanZ(Obs, rows, Options{}); err == nil || !strings.Contains(err.Error(), "all Z missing") {
			t.Errorf("MeanZ(obs) with every Z missing: error %v, want one saying all Z are missing", err)
		}
	})
	t.Run("one class only", func(t *testing.T) {
		h, rows := smallRows()
		for i := range rows.Y {
			rows.Y[i] = 1
		}
		res, err := Estimate(h, rows, Options{}, Full, DR)
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
		res, _ := Estimate(h, rows, Options{}, Full)
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
		res, err := Estimate(h, rows, Options{MainFraction: 1}, DR)
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
		d, err := NewDesign(rows, Options{}, None)
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
	for _, m := range []Method{Full, Obs, IP, Reg, DR, DRPlus} {
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
		got, err := MedianBandwidth(h)
		if err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("n=%d: MedianBandwidth = %v (%v), want %v", n, got, err, want)
		}
	}
	if _, err := MedianBandwidth([]float64{1, 1, 1, 2}); err == nil {
		t.Error("tied outputs: want an error, the median distance is 0")
	}
	if _, err := MedianBandwidth([]float64{1}); err == nil {
		t.Error("one output: want an error")
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range Methods {
		got, err := ParseMethod(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m.String(), got, err)
		}
	}
	if got, _ := ParseMethod("DRplus"); got != DRPlus {
		t.Errorf("ParseMethod(DRplus) = %v", got)
	}
	if _, err := ParseMethod("dr++"); err == nil || !strings.Contains(err.Error(), "unknown method") {
		t.Errorf("ParseMethod(dr++) error = %v", err)
	}
	ms, err := ParseMethods("all")
	if err != nil || len(ms) != 8 {
		t.Errorf("ParseMethods(all) = %v, %v", ms, err)
	}
}
