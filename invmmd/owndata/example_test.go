package owndata_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/invmmd/invmmd/invmmd"
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
	cfg.Methods = []invmmd.Method{invmmd.DR}
	cfg.Hidden, cfg.Epochs, cfg.AuxEpochs = []int{8}, 3, 3
	cfg.Out = dir // models/dr-seed1/ goes there, with results.csv and the other files
	res, err := owndata.Fit(cfg)
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
	// mlp [8] with 6 inputs, format 1: 160 probabilities of y = 1, all in (0, 1): true
}
