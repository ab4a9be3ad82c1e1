package owndata_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
)

// ExampleLoadModel trains h with dr on a small table (few epochs, to stay quick), saves
// it as invmmd fit does, loads the saved folder back, checked, and predicts the table's
// rows.
func ExampleLoadModel() {
	dir, err := os.MkdirTemp("", "owndata-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	cfg := owndata.DefaultConfig()
	cfg.Data, cfg.Y, cfg.Z = "testdata/tiny.csv", "y", "z" // z is empty where not recorded
	cfg.Methods = []method.Method{method.DR}
	cfg.Hidden, cfg.Epochs, cfg.AuxEpochs = []int{8}, 3, 3
	cfg.Out = dir // models/dr-seed1/ goes there, with results.csv and the other files
	res, err := owndata.Fit(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("trained %s, seed %d\n", res.Rows[0].Method, res.Rows[0].Seed)

	model, err := owndata.LoadModel(filepath.Join(dir, "models", "dr-seed1"))
	if err != nil {
		log.Fatal(err)
	}
	tab, err := model.ReadTable("testdata/tiny.csv") // reads the features the model was trained on
	if err != nil {
		log.Fatal(err)
	}
	p, _, err := model.Predict(tab)
	if err != nil {
		log.Fatal(err)
	}
	inRange := true
	for _, v := range p {
		inRange = inRange && v > 0 && v < 1 && !math.IsNaN(v)
	}
	fmt.Printf("%v, format %d: %d probabilities of %s = %s, all in (0, 1): %v\n",
		model.Info.Architecture, model.Info.Format, len(p), model.Info.Y, model.Info.Positive(), inRange)
	// Output:
	// trained dr, seed 1
	// mlp [8] with 6 inputs, format 2: 160 probabilities of y = 1, all in (0, 1): true
}

// ExampleTest tests whether a column of model outputs h depends on the nuisance Z given
// the label Y, with Z missing at random given the features and the true G and m given as
// columns: a table of the calibration simulation (invmmd/calibsim) where h depends on Z
// given Y with strength 0.5.
func ExampleTest() {
	dir, err := os.MkdirTemp("", "owndata-test-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s := calibsim.Draw(2000, 0.5, rand.New(rand.NewPCG(1, 2)))
	var b strings.Builder
	b.WriteString("h,y,z,g,m\n")
	for i := range s.Len() {
		z := "" // missing
		if !math.IsNaN(s.Z[i]) {
			z = fmt.Sprint(s.Z[i])
		}
		fmt.Fprintf(&b, "%g,%g,%s,%g,%g\n", s.H[i], s.Y[i], z, s.GTrue[i], s.MTrue[i])
	}
	path := filepath.Join(dir, "scored.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}

	cfg := owndata.DefaultTestConfig() // the cross route, σ by the median heuristic, dr
	cfg.Data, cfg.H, cfg.Y, cfg.Z = path, "h", "y", "z"
	cfg.G, cfg.M = "g", "m" // fitted on other rows (here: the truth)
	cfg.Methods = []method.Method{method.DR, method.IP, method.Reg}
	res, err := owndata.Test(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Results {
		fmt.Printf("%v: p < 0.01: %v (assumes %s; marked unreliable: %v)\n", r.Method, r.PValue < 0.01, r.Method.Info().TestAssumes, len(r.Unreliable) > 0)
	}
	// Output:
	// dr: p < 0.01: true (assumes Ĝ or m̂ right; marked unreliable: false)
	// ip: p < 0.01: true (assumes Ĝ right; marked unreliable: false)
	// reg: p < 0.01: true (assumes m̂ right; marked unreliable: true)
}
