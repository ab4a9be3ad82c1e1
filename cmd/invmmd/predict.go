package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// predictMore is the text of predict -h between the usage line and the flags: the
// columns written.
func predictMore() string {
	return "Writes one line per row of -data: row (1, 2, ...), line (the file's line), then what the model says of it.\n" +
		"A binary label's model writes probability, P(Y = 1 | X) (Y = 1 being -y-positive's value at fit), and logit,\n" +
		"log(p / (1 − p)), the model's output h. A model of K > 2 classes writes p_CLASS per class (each row summing to 1),\n" +
		"logit_CLASS per class (its K logits, h) and class, the most probable class; when -data has the label column, a row\n" +
		"whose label is a class absent from training is refused (file, line, column and value named).\n" +
		"With -keep COLS (or -keep-all) the data's columns follow, as the file wrote them, so that the output goes on to\n" +
		"  invmmd estimate -data scored.csv -outputs logit -y COL -z COL ...   and   invmmd test -data scored.csv -outputs logit ..."
}

// runPredict writes what a model saved by fit says of each row of a CSV: its probability
// and logit (or each class's, and the most probable class), and the columns kept.
func runPredict(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := newFlags("predict", "-model DIR -data FILE.csv [-out FILE.csv] [-keep COLS | -keep-all] [-force]", stdout, stderr, predictMore)
	dir := fset.String("model", "", "a model folder written by fit, OUT/models/METHOD-seedS (required)")
	data := fset.String("data", "", "CSV file with the model's feature columns (required)")
	out := fset.String("out", "", "output CSV (default: standard output): row, line, the model's outputs (see above) and the columns kept; refused if it exists unless -force")
	keep := fset.String("keep", "", "comma-separated columns of -data to copy next to the outputs, as written (e.g. the label, Z and the features, for estimate and test)")
	keepAll := fset.Bool("keep-all", false, "copy every column of -data next to the outputs")
	force := fset.Bool("force", false, "replace the -out file if it exists (never the -data file nor a file of the model)")
	if err := parse(fset, args); err != nil {
		return err
	}
	if *dir == "" || *data == "" {
		return fmt.Errorf("-model and -data are required")
	}
	if *keep != "" && *keepAll {
		return fmt.Errorf("-keep %s and -keep-all: give one", *keep)
	}
	ao, err1 := filepath.Abs(*out) // never over the model's own files, even with -force
	ad, err2 := filepath.Abs(*dir)
	if f := filepath.Base(ao); *out != "" && err1 == nil && err2 == nil && filepath.Dir(ao) == ad && slices.Contains([]string{owndata.ModelFile, owndata.WeightsFile}, f) {
		return fmt.Errorf("-out %s is the model's own %s: write elsewhere", *out, f)
	}
	if err := checkOutFile(*out, *data, *force); err != nil {
		return err
	}
	release, err := lockOutFile(*out, "predict", args, stderr)
	if err != nil {
		return err
	}
	defer release()
	model, err := owndata.LoadModel(*dir)
	if err != nil {
		return ownError(nil, err, "", "")
	}
	var kept []string
	switch {
	case *keepAll:
		if kept, err = tabular.Header(*data); err != nil {
			return ownError(nil, err, "", "")
		}
	case *keep != "":
		if kept, err = tabular.ParseColumns(*keep); err != nil {
			return fmt.Errorf("-keep %s: %w", *keep, err)
		}
	}
	header := predictHeader(model)
	for _, k := range kept {
		if slices.Contains(header, k) {
			return fmt.Errorf("-keep: column %q of %s has the name of an output column (%s): rename it, or leave it out of -keep", k, *data, strings.Join(header, ","))
		}
	}
	tab, err := model.ReadTableContext(ctx, *data)
	if err != nil {
		return ownError(nil, err, "nothing was written", rerunLine("predict", args))
	}
	if len(kept) > 0 { // every kept column is there, before anything is computed
		if err := tabular.ReadRecords(*data, kept, func(int, []string) error { return errFirstRecord }); err != nil && !errors.Is(err, errFirstRecord) {
			return fmt.Errorf("-keep: %w", err)
		}
	}
	pred, warn, err := model.PredictAll(ctx, tab)
	if err != nil {
		return ownError(nil, err, "nothing was written", rerunLine("predict", args))
	}
	for _, w := range warn {
		fmt.Fprintln(stderr, "warning:", w)
	}
	write := func(w io.Writer) error { return writePredictions(ctx, w, header, pred, tab, *data, kept) }
	if *out == "" {
		return ownError(nil, write(stdout), "the rows written so far are on standard output", rerunLine("predict", args))
	}
	if err := writeOutFile(*out, *force, write); err != nil {
		if ctx.Err() != nil {
			return ownError(nil, ctx.Err(), "nothing was written (-out is written whole or not at all)", rerunLine("predict", args))
		}
		return fmt.Errorf("-out: %w", err)
	}
	if k := len(pred.Classes); len(model.Info.Classes) > 0 {
		fmt.Fprintf(stderr, "wrote the probabilities and logits of %s's %d classes (%s) for %d rows to %s (model %s, trained with %s)\n", model.Info.Y, k, strings.Join(pred.Classes, ", "), tab.Len(), *out, *dir, model.Info.Method)
	} else {
		fmt.Fprintf(stderr, "wrote %d probabilities and logits of %s = %s to %s (model %s, trained with %s)\n", tab.Len(), model.Info.Y, model.Info.Positive(), *out, *dir, model.Info.Method)
	}
	return nil
}

// errFirstRecord stops a read of records at the first.
var errFirstRecord = errors.New("first record")

// predictHeader returns the output columns of a model: row, line, then probability and
// logit (a binary label), or p_CLASS, logit_CLASS per class and class (K classes).
func predictHeader(m *owndata.Model) []string {
	h := []string{"row", "line"}
	if len(m.Info.Classes) == 0 {
		return append(h, "probability", "logit")
	}
	for _, c := range m.Info.Classes {
		h = append(h, "p_"+c)
	}
	for _, c := range m.Info.Classes {
		h = append(h, "logit_"+c)
	}
	return append(h, "class")
}

// writePredictions writes the header (with the kept columns) and one line per row of tab:
// its row and line, the model's outputs, and the kept columns' cells of the data file as
// written (read again, record by record, their lines checked against tab's).
func writePredictions(ctx context.Context, w io.Writer, header []string, p *owndata.Prediction, tab *tabular.Table, data string, kept []string) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	k := len(p.Classes)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 7, 64) }
	rec := func(i int) []string {
		r := []string{strconv.Itoa(i + 1), strconv.Itoa(int(tab.Lines[i]))}
		if p.NumLogits == 1 {
			return append(r, num(p.P[i*k+1]), num(p.Logits[i]))
		}
		for _, v := range p.P[i*k : (i+1)*k] {
			r = append(r, num(v))
		}
		for _, v := range p.Logits[i*p.NumLogits : (i+1)*p.NumLogits] {
			r = append(r, num(v))
		}
		return append(r, p.Classes[p.Class(i)])
	}
	if err := cw.Write(append(slices.Clone(header), kept...)); err != nil {
		return err
	}
	if len(kept) == 0 {
		for i := 0; i < tab.Len(); i++ {
			if i%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := cw.Write(rec(i)); err != nil {
				return err
			}
		}
	} else {
		i := 0
		err := tabular.ReadRecords(data, kept, func(line int, cells []string) error {
			if i%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if i >= tab.Len() || int(tab.Lines[i]) != line {
				return fmt.Errorf("%s:%d: the file changed while it was read (rows do not match)", data, line)
			}
			err := cw.Write(append(rec(i), cells...))
			i++
			return err
		})
		if err != nil {
			return err
		}
		if i != tab.Len() {
			return fmt.Errorf("%s: the file changed while it was read (%d rows, then %d)", data, tab.Len(), i)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// refuseSameFile refuses an output path that names the input file: the same path once
// cleaned and made absolute, or, when the output exists, the same file (a link to it, or
// the same inode under another name). Writing there would destroy the input.
func refuseSameFile(out, in string) error {
	ao, err1 := filepath.Abs(out)
	ai, err2 := filepath.Abs(in)
	if err1 == nil && err2 == nil && ao == ai {
		return fmt.Errorf("-out %s is the -data file: it would be overwritten; write elsewhere", out)
	}
	so, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("-out %s: %w", out, err)
	}
	if si, err := os.Stat(in); err == nil && os.SameFile(so, si) {
		return fmt.Errorf("-out %s is the same file as -data %s: it would be overwritten; write elsewhere", out, in)
	}
	return nil
}
