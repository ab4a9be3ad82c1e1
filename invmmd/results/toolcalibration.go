package results

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ToolCalibrationRow is one cell of the calibration of invmmd test as the command runs it
// (G and m fitted by its MLPs): a nuisance kind, sample size, way of fitting G and m,
// dependence strength δ (0: the null) and method, with how many replicates rejected at the
// study's level and how many the command marked unreliable.
type ToolCalibrationRow struct {
	Kind       string // binary, categorical, continuous
	N          int
	Fitting    string // crossfit5, crossfit2, split
	Delta      float64
	Method     string
	Replicates int
	Rejections int
	// Marked counts the replicates whose p-value the command marked unreliable for a
	// reason of the data (a stratum too small, Ĝ floored on many rows), not the method's
	// standing caveat; Failed those that gave no p-value.
	Marked, Failed int
}

// Rate returns the rejection rate over the replicates that gave a p-value.
func (r ToolCalibrationRow) Rate() float64 {
	return float64(r.Rejections) / float64(max(1, r.Replicates-r.Failed))
}

// SE returns the binomial standard error of Rate.
func (r ToolCalibrationRow) SE() float64 {
	p, n := r.Rate(), float64(max(1, r.Replicates-r.Failed))
	return math.Sqrt(p * (1 - p) / n)
}

var toolCalibrationHeader = []string{"kind", "n", "fitting", "delta", "method", "replicates", "rejections", "rate", "se", "marked", "failed"}

// WriteToolCalibrationCSV writes the rows with a header line.
func WriteToolCalibrationCSV(w io.Writer, rows []ToolCalibrationRow) error {
	return writeRecords(w, toolCalibrationHeader, rows, func(r ToolCalibrationRow) []string {
		return []string{r.Kind, strconv.Itoa(r.N), r.Fitting, strconv.FormatFloat(r.Delta, 'g', -1, 64), r.Method, strconv.Itoa(r.Replicates),
			strconv.Itoa(r.Rejections), fmt.Sprintf("%.4f", r.Rate()), fmt.Sprintf("%.4f", r.SE()), strconv.Itoa(r.Marked), strconv.Itoa(r.Failed)}
	})
}

// ReadToolCalibrationCSV reads what WriteToolCalibrationCSV wrote, naming the line and
// column of a malformed cell.
func ReadToolCalibrationCSV(path string) ([]ToolCalibrationRow, error) {
	recs, err := readCSV(path, strings.Join(toolCalibrationHeader, ","))
	if err != nil {
		return nil, err
	}
	var out []ToolCalibrationRow
	for k, rec := range recs {
		line := k + 2
		r := ToolCalibrationRow{Kind: rec[0], Fitting: rec[2], Method: rec[4]}
		var err error
		for _, f := range []struct {
			col int
			dst *int
		}{{1, &r.N}, {5, &r.Replicates}, {6, &r.Rejections}, {9, &r.Marked}, {10, &r.Failed}} {
			if *f.dst, err = strconv.Atoi(rec[f.col]); err != nil {
				return nil, fmt.Errorf("%s:%d: column %q: value %q: %w", path, line, toolCalibrationHeader[f.col], rec[f.col], err)
			}
		}
		if r.Delta, err = strconv.ParseFloat(rec[3], 64); err != nil {
			return nil, fmt.Errorf("%s:%d: column \"delta\": value %q: %w", path, line, rec[3], err)
		}
		out = append(out, r)
	}
	return out, nil
}

// SECalibrationRow is the calibration of one estimator's standard error in invmmd
// estimate as the command runs it: over Replicates independent tables of a nuisance kind,
// size and dependence strength, the mean and standard deviation of the estimates and the
// root mean square of their standard errors, whose ratio to the standard deviation is 1
// for a calibrated standard error (E[SE²] = Var).
type SECalibrationRow struct {
	Kind       string
	N          int
	Delta      float64
	Method     string
	Replicates int
	Mean, SD   float64
	RMSSE      float64
}

// Ratio returns RMSSE / SD.
func (r SECalibrationRow) Ratio() float64 { return r.RMSSE / r.SD }

// RatioSE returns the Monte Carlo standard error of Ratio from the spread of the estimates
// alone: a standard deviation over R replicates has relative error 1/√(2(R−1)) for normal
// estimates (the RMS of R standard errors varies far less). A ratio is told from a band's
// edge only beyond about two of these.
func (r SECalibrationRow) RatioSE() float64 {
	return r.Ratio() / math.Sqrt(2*float64(max(1, r.Replicates-1)))
}

var seCalibrationHeader = []string{"kind", "n", "delta", "method", "replicates", "mean", "sd", "rms_se", "ratio"}

// WriteSECalibrationCSV writes the rows with a header line.
func WriteSECalibrationCSV(w io.Writer, rows []SECalibrationRow) error {
	return writeRecords(w, seCalibrationHeader, rows, func(r SECalibrationRow) []string {
		return []string{r.Kind, strconv.Itoa(r.N), strconv.FormatFloat(r.Delta, 'g', -1, 64), r.Method, strconv.Itoa(r.Replicates),
			fmt.Sprintf("%.6f", r.Mean), fmt.Sprintf("%.6f", r.SD), fmt.Sprintf("%.6f", r.RMSSE), fmt.Sprintf("%.3f", r.Ratio())}
	})
}

// ReadSECalibrationCSV reads what WriteSECalibrationCSV wrote.
func ReadSECalibrationCSV(path string) ([]SECalibrationRow, error) {
	recs, err := readCSV(path, strings.Join(seCalibrationHeader, ","))
	if err != nil {
		return nil, err
	}
	var out []SECalibrationRow
	for k, rec := range recs {
		line := k + 2
		r := SECalibrationRow{Kind: rec[0], Method: rec[3]}
		var err error
		if r.N, err = strconv.Atoi(rec[1]); err == nil {
			if r.Replicates, err = strconv.Atoi(rec[4]); err == nil {
				for _, f := range []struct {
					col int
					dst *float64
				}{{2, &r.Delta}, {5, &r.Mean}, {6, &r.SD}, {7, &r.RMSSE}} {
					if *f.dst, err = strconv.ParseFloat(rec[f.col], 64); err != nil {
						break
					}
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, r)
	}
	return out, nil
}
