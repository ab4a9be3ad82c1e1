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

// CalibrationRow is one test at one sample size and dependence strength of the invariance
// test's calibration study: how often it rejected at level α over its replicates. At
// Delta = 0 (the null hypothesis) that is the test's size, elsewhere its power.
type CalibrationRow struct {
	N          int     // rows tested
	Delta      float64 // dependence strength of h on Z given Y; 0 is the null
	Method     string  // the estimator family of the pseudo-outcome (dr, reg, ip, full, obs)
	Route      string  // cross, wild or permutation
	Replicates int
	Rejections int // replicates with p ≤ α
}

// Test names the row's test as "method/route".
func (r CalibrationRow) Test() string { return r.Method + "/" + r.Route }

// Rate returns the rejection rate.
func (r CalibrationRow) Rate() float64 { return float64(r.Rejections) / float64(r.Replicates) }

// SE returns the binomial standard error of the rejection rate, √(rate(1 − rate)/R).
func (r CalibrationRow) SE() float64 {
	p := r.Rate()
	return math.Sqrt(p * (1 - p) / float64(r.Replicates))
}

// CalibrationP is one null replicate's p-value (for the QQ plot).
type CalibrationP struct {
	N             int
	Method, Route string
	Replicate     int
	P             float64
}

// CSV headers of calibration.csv and calibration_null.csv.
const (
	CalibrationCSVHeader     = "n,delta,method,route,replicates,rejections,rate,se"
	CalibrationNullCSVHeader = "n,method,route,replicate,p_value"
)

// WriteCalibrationCSV writes rows under CalibrationCSVHeader (rate and SE to 4 decimals).
func WriteCalibrationCSV(w io.Writer, rows []CalibrationRow) error {
	return writeLines(w, CalibrationCSVHeader, rows, func(r CalibrationRow) string {
		return fmt.Sprintf("%d,%g,%s,%s,%d,%d,%.4f,%.4f", r.N, r.Delta, r.Method, r.Route, r.Replicates, r.Rejections, r.Rate(), r.SE())
	})
}

// WriteCalibrationNullCSV writes the null p-values under CalibrationNullCSVHeader, each to
// 6 decimals.
func WriteCalibrationNullCSV(w io.Writer, ps []CalibrationP) error {
	return writeLines(w, CalibrationNullCSVHeader, ps, func(p CalibrationP) string {
		return fmt.Sprintf("%d,%s,%s,%d,%.6f", p.N, p.Method, p.Route, p.Replicate, p.P)
	})
}

// ReadCalibrationCSV reads calibration.csv; errors name the file, line and column.
func ReadCalibrationCSV(path string) ([]CalibrationRow, error) {
	recs, err := readCSV(path, CalibrationCSVHeader)
	if err != nil {
		return nil, err
	}
	var out []CalibrationRow
	for k, rec := range recs {
		var r CalibrationRow
		var perr error
		num := func(col int, dst *int) {
			if perr != nil {
				return
			}
			v, err := strconv.Atoi(rec[col])
			if err != nil || v < 0 {
				perr = fmt.Errorf("%s: line %d, column %d (%s): %q, want a count", path, k+2, col+1, strings.Split(CalibrationCSVHeader, ",")[col], rec[col])
			}
			*dst = v
		}
		num(0, &r.N)
		if d, err := strconv.ParseFloat(rec[1], 64); err != nil || math.IsNaN(d) || d < 0 {
			return nil, fmt.Errorf("%s: line %d, column 2 (delta): %q, want a number ≥ 0", path, k+2, rec[1])
		} else {
			r.Delta = d
		}
		r.Method, r.Route = rec[2], rec[3]
		num(4, &r.Replicates)
		num(5, &r.Rejections)
		if perr != nil {
			return nil, perr
		}
		if r.Replicates == 0 || r.Rejections > r.Replicates {
			return nil, fmt.Errorf("%s: line %d: %d rejections of %d replicates", path, k+2, r.Rejections, r.Replicates)
		}
		out = append(out, r)
	}
	return out, nil
}

// ReadCalibrationNullCSV reads calibration_null.csv; errors name the file, line and column.
func ReadCalibrationNullCSV(path string) ([]CalibrationP, error) {
	recs, err := readCSV(path, CalibrationNullCSVHeader)
	if err != nil {
		return nil, err
	}
	out := make([]CalibrationP, 0, len(recs))
	for k, rec := range recs {
		n, err1 := strconv.Atoi(rec[0])
		rep, err2 := strconv.Atoi(rec[3])
		p, err3 := strconv.ParseFloat(rec[4], 64)
		switch {
		case err1 != nil:
			return nil, fmt.Errorf("%s: line %d, column 1 (n): %q, want a count", path, k+2, rec[0])
		case err2 != nil:
			return nil, fmt.Errorf("%s: line %d, column 4 (replicate): %q, want a count", path, k+2, rec[3])
		case err3 != nil || !(p >= 0 && p <= 1):
			return nil, fmt.Errorf("%s: line %d, column 5 (p_value): %q, want a probability", path, k+2, rec[4])
		}
		out = append(out, CalibrationP{N: n, Method: rec[1], Route: rec[2], Replicate: rep, P: p})
	}
	return out, nil
}

// readCSV reads a CSV file whose first line must be header, and returns the other records,
// each with as many fields as the header.
func readCSV(path, header string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = len(strings.Split(header, ","))
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != header {
		return nil, fmt.Errorf("%s: line 1: want the header %q", path, header)
	}
	return recs[1:], nil
}
