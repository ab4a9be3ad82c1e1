package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// VariancePoint is one estimator at one batch size of the variance study: the mean and
// standard deviation of its estimates over N batches.
type VariancePoint struct {
	Estimator string
	BatchSize int
	Mean, Std float64
	N         int // batches
	// Empty counts strata that contributed 0 over the batches (no row of some Z value);
	// Floored counts normaliser estimates raised to the floor.
	Empty, Floored int
}

// VarianceCSVHeader is the header of variance.csv.
var VarianceCSVHeader = "estimator,batch_size,mean,std,n"

// WriteVarianceCSV writes pts as variance.csv: VarianceCSVHeader, then one line per point
// with Mean and Std to 6 decimals (Empty and Floored go to the configuration record).
func WriteVarianceCSV(w io.Writer, pts []VariancePoint) error {
	if _, err := fmt.Fprintln(w, VarianceCSVHeader); err != nil {
		return err
	}
	for _, pt := range pts {
		if _, err := fmt.Fprintf(w, "%s,%d,%.6f,%.6f,%d\n", pt.Estimator, pt.BatchSize, pt.Mean, pt.Std, pt.N); err != nil {
			return err
		}
	}
	return nil
}

// VarianceAsWritten returns a copy of pts with Mean and Std rounded as variance.csv writes
// them, so that the figure drawn from a run's points is the one redrawn from its table.
func VarianceAsWritten(pts []VariancePoint) []VariancePoint {
	out := make([]VariancePoint, len(pts))
	for i, p := range pts {
		p.Mean, p.Std = asWritten(p.Mean), asWritten(p.Std)
		out[i] = p
	}
	return out
}

// ReadVarianceCSV reads a variance.csv written by WriteVarianceCSV; errors name the file,
// line and column.
func ReadVarianceCSV(path string) ([]VariancePoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readVarianceCSV(f, path)
}

// readVarianceCSV is ReadVarianceCSV on the content of r; path names it in errors.
func readVarianceCSV(r io.Reader, path string) ([]VariancePoint, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 5
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the header: %w", path, err)
	}
	if strings.Join(head, ",") != VarianceCSVHeader {
		return nil, fmt.Errorf("%s: line 1: header %q, want %q", path, strings.Join(head, ","), VarianceCSVHeader)
	}
	var pts []VariancePoint
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return pts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		p := VariancePoint{Estimator: rec[0]}
		if err := CheckMethod(rec[0]); err != nil {
			return nil, fmt.Errorf("%s: line %d, column estimator: %w", path, line, err)
		}
		var perr error
		if p.BatchSize, perr = strconv.Atoi(rec[1]); perr != nil || p.BatchSize < 2 {
			return nil, fmt.Errorf("%s: line %d, column batch_size: %q is not a batch size", path, line, rec[1])
		}
		if p.N, perr = strconv.Atoi(rec[4]); perr != nil || p.N < 1 {
			return nil, fmt.Errorf("%s: line %d, column n: %q is not a count", path, line, rec[4])
		}
		for k, dst := range []*float64{&p.Mean, &p.Std} {
			v, err := strconv.ParseFloat(rec[2+k], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: line %d, column %s: %q is not a finite number", path, line, []string{"mean", "std"}[k], rec[2+k])
			}
			*dst = v
		}
		pts = append(pts, p)
	}
}
