package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/invmmd/invmmd/invmmd/owndata"
)

// runPredict writes P(Y = 1 | X) of each row of a CSV under a model saved by fit.
func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", "-model DIR -data FILE.csv [-out FILE]", stdout, stderr, nil)
	dir := fs.String("model", "", "a model folder written by fit (OUT/models/METHOD-seedS) (required)")
	data := fs.String("data", "", "CSV file with the model's feature columns (required)")
	out := fs.String("out", "", "output CSV (default: standard output): row, line, probability")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" || *data == "" {
		return fmt.Errorf("flags -model and -data are required")
	}
	if *out != "" {
		if err := refuseSameFile(*out, *data); err != nil {
			return err
		}
	}
	model, err := owndata.LoadModel(*dir)
	if err != nil {
		return err
	}
	tab, err := model.ReadTable(*data)
	if err != nil {
		return err
	}
	p, warn, err := model.Predict(tab)
	if err != nil {
		return err
	}
	for _, w := range warn {
		fmt.Fprintln(stderr, "warning:", w)
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
		if f != nil {
			f.Close()
		}
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %d probabilities of %s = %s to %s (model %s, trained with %s)\n", len(p), model.Info.Y, model.Info.Positive(), *out, *dir, model.Info.Method)
	}
	return nil
}

// refuseSameFile refuses an output path that names the input file: the same path once
// cleaned and made absolute, or, when the output exists, the same file (a link to it, or
// the same inode under another name). Writing there would truncate the input before it is
// read.
func refuseSameFile(out, in string) error {
	ao, err1 := filepath.Abs(out)
	ai, err2 := filepath.Abs(in)
	if err1 == nil && err2 == nil && ao == ai {
		return fmt.Errorf("-out %s is the -data file: it would be overwritten; write the probabilities elsewhere", out)
	}
	so, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("-out %s: %w", out, err)
	}
	if si, err := os.Stat(in); err == nil && os.SameFile(so, si) {
		return fmt.Errorf("-out %s is the same file as -data %s: it would be overwritten; write the probabilities elsewhere", out, in)
	}
	return nil
}
