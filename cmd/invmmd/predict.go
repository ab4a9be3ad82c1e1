package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// runPredict writes P(Y = 1 | X) of each row of a CSV under a model saved by fit.
func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", "-model DIR -data FILE.csv [-out FILE]", stderr, nil)
	dir := fs.String("model", "", "a model folder written by fit (OUT/models/METHOD-seedS) (required)")
	data := fs.String("data", "", "CSV file with the model's feature columns (required)")
	out := fs.String("out", "", "output CSV (default: standard output): row, line, probability")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" || *data == "" {
		return fmt.Errorf("flags -model and -data are required")
	}
	b, err := os.ReadFile(filepath.Join(*dir, "model.json"))
	if err != nil {
		return fmt.Errorf("reading the model: %w", err)
	}
	var mf modelFile
	if err := json.Unmarshal(b, &mf); err != nil || mf.Encoder == nil || len(mf.Hidden) == 0 {
		return fmt.Errorf("%s/model.json: not a model written by invmmd fit (%v)", *dir, err)
	}
	var cols []string
	for _, f := range mf.Encoder.Features {
		cols = append(cols, f.Column)
	}
	tab, err := readTable(*data, cols, nil)
	var ce *tabular.ColumnError
	if errors.As(err, &ce) {
		ce.Flag = "a feature the model was trained on"
	}
	if err != nil {
		return err
	}
	rows := make([]int, tab.Len())
	for i := range rows {
		rows[i] = i
	}
	x, warn, err := mf.Encoder.Encode(tab, rows)
	if err != nil {
		return err
	}
	warnAll(stderr, warn)
	model, err := train.LoadModel(nil, models.MLP{Hidden: mf.Hidden, Seed: mf.Seed}, filepath.Join(*dir, "weights.json"), min(1024, tab.Len()))
	if err != nil {
		return err
	}
	set := &dataset.Set{Name: filepath.Base(*data), X: x, Shape: []int{mf.Encoder.Dim()}, Y: make([]float64, tab.Len())}
	p, err := model.Probabilities(set)
	if err != nil {
		return err
	}
	w := stdout
	var f *os.File
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "row,line,probability\n")
	for i, v := range p {
		fmt.Fprintf(bw, "%d,%d,%s\n", i+1, tab.Lines[i], strconv.FormatFloat(v, 'g', 7, 64))
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %d probabilities of %s = %s to %s (model %s, trained with %s)\n", len(p), mf.Y, positiveName(mf), *out, *dir, mf.Method)
	}
	return nil
}

func positiveName(mf modelFile) string {
	if mf.YPositive != "" {
		return mf.YPositive
	}
	return "1"
}
