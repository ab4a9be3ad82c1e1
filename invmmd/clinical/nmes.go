package clinical

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// NMESRelPath is where the converted NMES1988 CSV lives, relative to the repository root.
const NMESRelPath = "data/nmes1988/nmes1988.csv"

// NMESScript is the script that regenerates the CSV from Debian's r-cran-aer.
const NMESScript = "scripts/data/nmes.sh"

// DefaultVisitsThreshold defines the NMES1988 label: Y = 1 when a patient made more than
// this many physician office visits. 4 is the median of visits (P(Y = 1) = 0.456).
const DefaultVisitsThreshold = 4

// NMESConfig sets how the NMES1988 stand-in task is built. A zero field takes its default.
type NMESConfig struct {
	Path            string      // the CSV; default: NMESRelPath found from the working directory upwards
	Seed            uint64      // subsample, split and missingness seed
	VisitsThreshold int         // Y = 1 when visits > VisitsThreshold; 0 takes the default 4 (the median)
	Shift           Shift       // shifted split fractions; defaults in Shift's doc
	Missingness     Missingness // gender-driven missingness of Z; default 1 (male) / 0.2 (other)
}

// NMESReport records how the stand-in was built.
type NMESReport struct {
	Config NMESConfig  // with defaults filled in and Path resolved
	Rows   int         // rows in the CSV
	PY1    float64     // P(Y = 1) in the whole CSV
	PZ1    float64     // P(Z = 1) (African American) in the whole CSV
	PMale  float64     // P(male) in the whole CSV
	Split  SplitReport // the shifted split
}

// String renders the report.
func (r NMESReport) String() string {
	return fmt.Sprintf("NMES1988 stand-in from %s: %d rows, Y = visits > %d (P(Y=1) = %.3f), Z = afam (P(Z=1) = %.3f), P(male) = %.3f\n%s",
		r.Config.Path, r.Rows, r.Config.VisitsThreshold, r.PY1, r.PZ1, r.PMale, r.Split)
}

// NMES feature columns, in order. Excluded on purpose: visits (it defines Y); the other
// health-care-use counts nvisits, ovisits, novisits, emergency and hospital (outcomes of the
// same care-seeking, not patient characteristics); afam (it is Z). Gender stays in X as
// "male" so that the missingness G is a function of X.
var nmesFeatures = []string{
	"health_poor", "health_average", "health_excellent", "chronic", "adl_limited",
	"region_northeast", "region_midwest", "region_west", "region_other",
	"age", "male", "married", "school", "income", "employed", "insurance", "medicaid",
}

// NMESFeatures returns the names of the stand-in's feature columns.
func NMESFeatures() []string { return append([]string(nil), nmesFeatures...) }

// FindNMES looks for NMESRelPath in the working directory and its parents (so tests,
// commands and notebooks anywhere in the repository find it). The error says which script
// regenerates the file.
func FindNMES() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("clinical: finding %s: %w", NMESRelPath, err)
	}
	for {
		p := filepath.Join(dir, NMESRelPath)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("clinical: %s not found in the working directory or its parents; regenerate it with %s (needs Rscript and Debian's r-cran-aer)", NMESRelPath, NMESScript)
		}
		dir = parent
	}
}

// LoadNMES reads the NMES1988 CSV and builds the stand-in task: Y = more than
// VisitsThreshold physician office visits, Z = African American, the shifted split and the
// gender-driven missingness of Assemble.
func LoadNMES(cfg NMESConfig) (dataset.Splits, NMESReport, error) {
	if cfg.VisitsThreshold == 0 {
		cfg.VisitsThreshold = DefaultVisitsThreshold
	}
	cfg.Shift, cfg.Missingness = cfg.Shift.WithDefaults(), cfg.Missingness.WithDefaults()
	rep := NMESReport{Config: cfg}
	if cfg.Path == "" {
		p, err := FindNMES()
		if err != nil {
			return dataset.Splits{}, rep, err
		}
		cfg.Path = p
		rep.Config.Path = p
	}
	t, err := ReadNMES(cfg.Path, cfg.VisitsThreshold)
	if err != nil {
		return dataset.Splits{}, rep, err
	}
	rep.Rows = t.Len()
	for i := 0; i < t.Len(); i++ {
		rep.PY1 += t.Y[i]
		rep.PZ1 += t.Z[i]
		if t.Male[i] {
			rep.PMale++
		}
	}
	n := float64(t.Len())
	rep.PY1, rep.PZ1, rep.PMale = rep.PY1/n, rep.PZ1/n, rep.PMale/n
	sp, srep, err := Assemble(t, cfg.Shift, cfg.Missingness, cfg.Seed)
	rep.Split = srep
	return sp, rep, err
}

// ReadNMES reads the CSV written by NMESScript into a Table (before any split): Y =
// visits > visitsThreshold, Z = afam, the features of NMESFeatures. Every row must be
// complete and every factor level known: an error names the file, line, column and value.
func ReadNMES(path string, visitsThreshold int) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("clinical: NMES1988 CSV %s does not exist; regenerate it with %s (needs Rscript and Debian's r-cran-aer)", path, NMESScript)
		}
		return nil, fmt.Errorf("clinical: opening NMES1988 CSV: %w", err)
	}
	defer f.Close()
	return readNMES(f, path, visitsThreshold)
}

// nmesLevels lists each factor column's levels as the CSV writes them.
var nmesLevels = map[string][]string{
	"health":    {"poor", "average", "excellent"},
	"adl":       {"normal", "limited"},
	"region":    {"northeast", "midwest", "west", "other"},
	"afam":      {"no", "yes"},
	"gender":    {"female", "male"},
	"married":   {"no", "yes"},
	"employed":  {"no", "yes"},
	"insurance": {"no", "yes"},
	"medicaid":  {"no", "yes"},
}

var nmesNumeric = []string{"visits", "chronic", "age", "school", "income"}

// maxNumeric bounds a numeric value's magnitude: standardising a column sums the squares
// of its values over every row, which must stay finite in float64.
const maxNumeric = 1e150

func readNMES(r io.Reader, path string, visitsThreshold int) (*Table, error) {
	// A UTF-8 byte-order mark (as spreadsheet programs write) is not part of the data.
	br := bufio.NewReader(r)
	if bom, err := br.Peek(3); err == nil && string(bom) == "\ufeff" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("clinical: %s: reading the header: %w", path, err)
	}
	col := map[string]int{}
	for j, h := range header {
		col[strings.TrimSpace(h)] = j
	}
	for _, name := range append(append([]string(nil), nmesNumeric...), "health", "adl", "region", "afam", "gender", "married", "employed", "insurance", "medicaid") {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("clinical: %s: header has no column %q (columns: %s); regenerate the file with %s", path, name, strings.Join(header, ","), NMESScript)
		}
	}
	t := &Table{Name: "nmes1988", Names: NMESFeatures()}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// Only now ask for the line: after a parse error the record has no fields,
			// and FieldPos would panic.
			return nil, fmt.Errorf("clinical: %s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		num := map[string]float64{}
		for _, name := range nmesNumeric {
			s := rec[col[name]]
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("clinical: %s:%d: column %q: value %q is not a finite number", path, line, name, s)
			}
			if math.Abs(v) > maxNumeric {
				return nil, fmt.Errorf("clinical: %s:%d: column %q: value %q is out of range (|v| > %g; its square overflows the standardisation)", path, line, name, s, maxNumeric)
			}
			num[name] = v
		}
		if num["visits"] < 0 || num["visits"] != math.Trunc(num["visits"]) {
			return nil, fmt.Errorf("clinical: %s:%d: column \"visits\": value %v is not a count", path, line, num["visits"])
		}
		level := map[string]int{}
		for name, levels := range nmesLevels {
			s := rec[col[name]]
			k := -1
			for i, l := range levels {
				if s == l {
					k = i
				}
			}
			if k < 0 {
				return nil, fmt.Errorf("clinical: %s:%d: column %q: value %q is not one of %s", path, line, name, s, strings.Join(levels, ", "))
			}
			level[name] = k
		}
		b := func(c bool) float64 {
			if c {
				return 1
			}
			return 0
		}
		row := []float64{
			b(level["health"] == 0), b(level["health"] == 1), b(level["health"] == 2), num["chronic"], float64(level["adl"]),
			b(level["region"] == 0), b(level["region"] == 1), b(level["region"] == 2), b(level["region"] == 3),
			num["age"], float64(level["gender"]), float64(level["married"]), num["school"], num["income"],
			float64(level["employed"]), float64(level["insurance"]), float64(level["medicaid"]),
		}
		t.X = append(t.X, row...)
		t.Y = append(t.Y, b(num["visits"] > float64(visitsThreshold)))
		t.Z = append(t.Z, float64(level["afam"]))
		t.Male = append(t.Male, level["gender"] == 1)
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("clinical: %s: no data rows", path)
	}
	return t, t.Validate()
}
