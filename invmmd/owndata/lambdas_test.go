package owndata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestFitLambdasSharesFits fits none, obs and dr over λ 1, 5 and 25: G and m fitted once,
// none once, obs and dr at each λ (7 fits of h, not 9), each in its own model folder and
// run file, the rows labelled by λ and h's penalty weight saved with each model.
func TestFitLambdasSharesFits(t *testing.T) {
	cfg := tinyConfig()
	cfg.Methods = []method.Method{method.None, method.Obs, method.DR}
	cfg.Lambdas = []float64{1, 5, 25}
	cfg.Out = t.TempDir()
	aux0, h0 := fitCount.aux.Load(), fitCount.h.Load()
	res, err := Fit(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if aux, h := fitCount.aux.Load()-aux0, fitCount.h.Load()-h0; aux != 1 || h != 7 {
		t.Fatalf("fitted G and m %d times and h %d times: want 1 and 7", aux, h)
	}
	var labels []string
	for _, r := range res.Rows {
		labels = append(labels, r.Label())
	}
	if got, want := strings.Join(labels, ","), "none,obs λ=1,obs λ=5,obs λ=25,dr λ=1,dr λ=5,dr λ=25"; got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
	for _, name := range []string{"none-seed1", "obs-lambda5-seed1", "dr-lambda1-seed1", "dr-lambda25-seed1"} {
		m, err := LoadModel(filepath.Join(cfg.Out, ModelsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]float64{"none-seed1": cfg.Lambda, "obs-lambda5-seed1": 5, "dr-lambda1-seed1": 1, "dr-lambda25-seed1": 25}[name]; m.Info.Lambda != want {
			t.Errorf("%s saved with λ %v, want %v", name, m.Info.Lambda, want)
		}
		if _, err := os.Stat(filepath.Join(cfg.Out, RunsDir, name+".json")); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(cfg.Out, ResultsMD))
	if !strings.Contains(string(md), "| dr λ=25 | 1 |") || !strings.Contains(string(md), "λ = 1, 5, 25 (") {
		t.Errorf("results.md:\n%s", md)
	}
	// Resumed, every run is kept: nothing fitted again.
	cfg.Resume = true
	aux0, h0 = fitCount.aux.Load(), fitCount.h.Load()
	res, err = Fit(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 7 || fitCount.aux.Load() != aux0 || fitCount.h.Load() != h0 {
		t.Errorf("resumed %d runs, fitted G and m %d and h %d times: want 7, 0, 0", res.Resumed, fitCount.aux.Load()-aux0, fitCount.h.Load()-h0)
	}
	// A λ listed twice, or one λ alone (Lambda's job), is refused before anything is read.
	for _, bad := range [][]float64{{1, 1}, {5}} {
		cfg.Lambdas = bad
		var fe *FieldError
		if _, err := Fit(ctx, cfg); !errorsAs(err, &fe) || fe.Field != "Lambdas" {
			t.Errorf("λ %v: %v", bad, err)
		}
	}
}
