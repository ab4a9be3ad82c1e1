package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/owndata"
)

// predictMore is the text of predict -h between the usage line and the flags: the
// columns written.
func predictMore() string {
	return "Writes one line per row of -data: row (1, 2, ...), line (the file's line), then the probabilities.\n" +
		"A binary label's model writes one column, probability: P(Y = 1 | X), Y = 1 being -y-positive's value at fit\n" +
		"(as before, so scripts that read it keep working). A model of K > 2 classes writes one column per class,\n" +
		"p_CLASS (p_ followed by the class's name, in the order of the model's classes), each row summing to 1;\n" +
		"when -data has the label column, a row whose label is a class absent from training is refused (file, line,\n" +
		"column and value named); an empty label is allowed."
}

// runPredict writes P(Y = 1 | X) of each row of a CSV under a model saved by fit, or
// the probability of each class for a model of K > 2 classes.
func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", "-model DIR -data FILE.csv [-out FILE]", stdout, stderr, predictMore)
	dir := fs.String("model", "", "a model folder written by fit (OUT/models/METHOD-seedS) (required)")
	data := fs.String("data", "", "CSV file with the model's feature columns (required)")
	out := fs.String("out", "", "output CSV (default: standard output): row, line, probability (or p_CLASS per class; see above)")
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
	if err := model.CheckLabels(*data); err != nil {
		return err
	}
	tab, err := model.ReadTable(*data)
	if err != nil {
		return err
	}
	classes := model.ClassNames()
	k := 1 // columns written: P(Y = 1 | X) for a binary label
	header := []string{"row", "line", "probability"}
	var p []float64
	var warn []string
	if len(model.Info.Classes) > 0 {
		k = len(classes)
		header = header[:2]
		for _, c := range classes {
			header = append(header, "p_"+c)
		}
		p, warn, err = model.PredictClasses(tab)
	} else {
		p, warn, err = model.Predict(tab)
	}
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
	cw := csv.NewWriter(bw)
	_ = cw.Write(header)
	cw.Flush() // the header quoted where a class name needs it; the numbers need no quoting
	for i := 0; i < tab.Len(); i++ {
		fmt.Fprintf(bw, "%d,%d", i+1, tab.Lines[i])
		for _, v := range p[i*k : (i+1)*k] {
			fmt.Fprintf(bw, ",%s", strconv.FormatFloat(v, 'g', 7, 64))
		}
		bw.WriteByte('\n')
	}
	if err := cw.Error(); err != nil {
		return err
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
		if k > 1 {
			fmt.Fprintf(stderr, "wrote the probabilities of %s's %d classes (%s) for %d rows to %s (model %s, trained with %s)\n", model.Info.Y, k, strings.Join(classes, ", "), tab.Len(), *out, *dir, model.Info.Method)
		} else {
			fmt.Fprintf(stderr, "wrote %d probabilities of %s = %s to %s (model %s, trained with %s)\n", len(p), model.Info.Y, model.Info.Positive(), *out, *dir, model.Info.Method)
		}
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
