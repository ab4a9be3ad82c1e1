package figures

import (
	"math"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/results"
)

// smallSet is a two-feature set with every (Y, Z) cell, some rows observed.
func smallSet() *dataset.Set {
	s := &dataset.Set{Name: "train", Shape: []int{2}}
	for i := 0; i < 40; i++ {
		y, z := float64(i%2), float64((i/2)%2)
		s.X = append(s.X, float32(y-z)+0.1*float32(i%5), float32(y+z)-0.1*float32(i%3))
		s.Y = append(s.Y, y)
		s.Z = append(s.Z, z)
		s.Delta = append(s.Delta, float64((i/4)%2))
	}
	return s
}

func TestBalance(t *testing.T) {
	tr := smallSet()
	te := smallSet()
	te.Name = "test"
	// Make the test split shifted: drop the rows with Y = Z.
	var idx []int
	for i := range te.Y {
		if te.Y[i] != te.Z[i] {
			idx = append(idx, i)
		}
	}
	te = te.Subset("test", idx)
	grid, err := Balance([]dataset.Summary{tr.Summarize(), te.Summarize()})
	if err != nil {
		t.Fatal(err)
	}
	if len(grid) != 1 || len(grid[0]) != 2 {
		t.Fatalf("got a %d-row grid, want one row of two panels", len(grid))
	}
	for _, p := range grid[0] {
		labels := tickLabels(p)
		if len(labels) != 2 || !strings.HasPrefix(labels[0], "train (40 rows)") || !strings.HasPrefix(labels[1], "test (20 rows)") {
			t.Errorf("x tick labels %q, want the splits with their sizes", labels)
		}
		if p.Y.Min != 0 || p.Y.Max < 1 {
			t.Errorf("y axis [%v, %v], want [0, ≥ 1]", p.Y.Min, p.Y.Max)
		}
		renders(t, p)
	}
	if _, err := GridPNG(grid, 2*Width, Height); err != nil {
		t.Errorf("GridPNG: %v", err)
	}

	if _, err := Balance(nil); err == nil || !strings.Contains(err.Error(), "no summaries") {
		t.Errorf("no summaries: err %v", err)
	}
	if _, err := Balance([]dataset.Summary{{Name: "val"}}); err == nil || !strings.Contains(err.Error(), `"val" has no rows`) {
		t.Errorf("empty split: err %v", err)
	}
}

func TestFeatures2D(t *testing.T) {
	s := smallSet()
	p, err := Features2D("simulation", s, 30)
	if err != nil {
		t.Fatal(err)
	}
	if !(p.X.Min <= -1 && p.X.Max >= 1 && p.Y.Max >= 2) {
		t.Errorf("axes x [%v, %v], y [%v, %v] do not cover the features", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	renders(t, p)

	img := &dataset.Set{Name: "img", Shape: []int{1}, X: []float32{1}, Y: []float64{0}, Z: []float64{0}, Delta: []float64{1}}
	if _, err := Features2D("one feature", img, 0); err == nil || !strings.Contains(err.Error(), "1 feature(s), want at least 2") {
		t.Errorf("one feature: err %v", err)
	}
	empty := &dataset.Set{Name: "empty", Shape: []int{2}}
	if _, err := Features2D("empty", empty, 0); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("no rows: err %v", err)
	}
}

func TestCurves(t *testing.T) {
	hist := func(name string, vals ...float64) results.Curve {
		h := results.Curve{Name: name}
		best := math.Inf(1)
		for i, v := range vals {
			h.Epochs = append(h.Epochs, results.CurvePoint{Epoch: i + 1, TrainLoss: v + 0.1, ValObjective: v})
			if v < best {
				best, h.BestEpoch = v, i+1
			}
		}
		return h
	}
	grid, err := Curves([]results.Curve{hist("h (none)", 0.7, 0.5, 0.45, 0.46), hist("h (dr)", 0.9, 0.6, 0.7)})
	if err != nil {
		t.Fatal(err)
	}
	if len(grid) != 1 || len(grid[0]) != 2 {
		t.Fatalf("got a %d-row grid, want one row of two panels", len(grid))
	}
	loss, val := grid[0][0], grid[0][1]
	if !(loss.X.Min <= 1 && loss.X.Max >= 4) {
		t.Errorf("loss x axis [%v, %v], want epochs 1..4", loss.X.Min, loss.X.Max)
	}
	if !(val.Y.Min <= 0.45 && val.Y.Max >= 0.9) {
		t.Errorf("validation y axis [%v, %v], want 0.45..0.9", val.Y.Min, val.Y.Max)
	}
	for _, p := range grid[0] {
		renders(t, p)
	}

	if _, err := Curves(nil); err == nil || !strings.Contains(err.Error(), "no curves") {
		t.Errorf("no curves: err %v", err)
	}
	if _, err := Curves([]results.Curve{{Name: "h (obs)"}}); err == nil || !strings.Contains(err.Error(), "no epochs") {
		t.Errorf("no epochs: err %v", err)
	}
	if _, err := Curves([]results.Curve{hist("h (ip)", 0.5, math.NaN())}); err == nil || !strings.Contains(err.Error(), "h (ip), epoch 2") {
		t.Errorf("NaN: err %v", err)
	}
}
