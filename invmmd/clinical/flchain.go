package clinical

import (
	"bufio"
	"cmp"
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

// FLChainRelPath is where the converted flchain CSV lives, relative to the repository root.
const FLChainRelPath = "data/flchain/flchain.csv"

// FLChainScript is the script that regenerates the CSV from Debian's r-cran-survival.
const FLChainScript = "scripts/data/flchain.sh"

// DefaultGroupMinAge is the default age from which a patient's Z (sex) is always observed:
// 65, the age of Medicare eligibility. Younger patients have it observed with
// Missingness.ProbOther.
const DefaultGroupMinAge = 65

// FLChainConfig sets how the flchain stand-in task is built. A zero field takes its
// default.
type FLChainConfig struct {
	Path        string      // the CSV; default: FLChainRelPath found from the working directory upwards
	Seed        uint64      // subsample, split and missingness seed
	GroupMinAge float64     // patients at least this old have Z observed w.p. Missingness.ProbGroup; default 65
	Shift       Shift       // shifted split fractions; defaults in Shift's doc
	Missingness Missingness // age-driven missingness of Z; default 1 (aged GroupMinAge or over) / 0.2 (younger)
}

// WithDefaults returns c with each zero field set to its default (Path is left as given:
// LoadFLChain finds the file).
func (c FLChainConfig) WithDefaults() FLChainConfig {
	c.GroupMinAge = cmp.Or(c.GroupMinAge, DefaultGroupMinAge)
	c.Shift, c.Missingness = c.Shift.WithDefaults(), c.Missingness.WithDefaults()
	return c
}

// FLChainReport records how the stand-in was built.
type FLChainReport struct {
	Config FLChainConfig // with defaults filled in and Path resolved
	Rows   int           // rows in the CSV
	PY1    float64       // P(Y = 1) (died during follow-up) in the whole CSV
	PZ1    float64       // P(Z = 1) (male) in the whole CSV
	PGroup float64       // share of the CSV in the always-observed group (aged GroupMinAge or over)
	Split  SplitReport   // the shifted split
}

// String renders the report.
func (r FLChainReport) String() string {
	return fmt.Sprintf("flchain stand-in from %s: %d rows, Y = died during follow-up (P(Y=1) = %.3f), Z = male (P(Z=1) = %.3f), P(aged %g or over) = %.3f\n%s",
		r.Config.Path, r.Rows, r.PY1, r.PZ1, r.Config.GroupMinAge, r.PGroup, r.Split)
}

// flchainFeatures are the stand-in's feature columns, in order. Left out on purpose: sex
// (it is Z); death (it is Y); futime (days to death or last contact: it encodes Y) and
// chapter (the cause of death, recorded only for those who died). creatinine is missing
// for 1,350 patients: it is imputed (Assemble) and creatinine_missing says where.
var flchainFeatures = []string{
	"age", "sample_yr", "kappa", "lambda", "flc_grp", "creatinine", "creatinine_missing", "mgus",
}

// FLChainFeatures returns the names of the stand-in's feature columns.
func FLChainFeatures() []string { return append([]string(nil), flchainFeatures...) }

// FindFLChain looks for FLChainRelPath in the working directory and its parents (so tests,
// commands and notebooks anywhere in the repository find it). The error says which script
// regenerates the file.
func FindFLChain() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("clinical: finding %s: %w", FLChainRelPath, err)
	}
	for {
		p := filepath.Join(dir, FLChainRelPath)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("clinical: %s not found in the working directory or its parents; regenerate it with %s (needs Rscript and Debian's r-cran-survival)", FLChainRelPath, FLChainScript)
		}
		dir = parent
	}
}

// LoadFLChain reads the flchain CSV and builds the stand-in task: Y = died during
// follow-up, Z = male, Z always observed for patients aged GroupMinAge or over and with
// Missingness.ProbOther below, and the shifted split of Assemble.
func LoadFLChain(cfg FLChainConfig) (dataset.Splits, FLChainReport, error) {
	cfg = cfg.WithDefaults()
	rep := FLChainReport{Config: cfg}
	if cfg.Path == "" {
		p, err := FindFLChain()
		if err != nil {
			return dataset.Splits{}, rep, err
		}
		cfg.Path, rep.Config.Path = p, p
	}
	t, err := ReadFLChain(cfg.Path, cfg.GroupMinAge)
	if err != nil {
		return dataset.Splits{}, rep, err
	}
	rep.Rows = t.Len()
	for i := 0; i < t.Len(); i++ {
		rep.PY1 += t.Y[i]
		rep.PZ1 += t.Z[i]
		if t.Group[i] {
			rep.PGroup++
		}
	}
	n := float64(t.Len())
	rep.PY1, rep.PZ1, rep.PGroup = rep.PY1/n, rep.PZ1/n, rep.PGroup/n
	sp, srep, err := Assemble(t, cfg.Shift, cfg.Missingness, cfg.Seed)
	rep.Split = srep
	return sp, rep, err
}

// ReadFLChain reads the CSV written by FLChainScript into a Table (before any split): Y =
// death, Z = male, the features of FLChainFeatures (creatinine NaN where empty or NA), and
// Group = aged groupMinAge or over. An error names the file, line, column and value.
func ReadFLChain(path string, groupMinAge float64) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("clinical: flchain CSV %s does not exist; regenerate it with %s (needs Rscript and Debian's r-cran-survival)", path, FLChainScript)
		}
		return nil, fmt.Errorf("clinical: opening flchain CSV: %w", err)
	}
	defer f.Close()
	return readFLChain(f, path, groupMinAge)
}

// maxNumeric bounds a numeric value's magnitude: standardising a column sums the squares
// of its values over every row, which must stay finite in float64.
const maxNumeric = 1e150

// flchainColumns are the CSV columns the reader uses.
var flchainColumns = []string{"age", "sex", "sample.yr", "kappa", "lambda", "flc.grp", "creatinine", "mgus", "death"}

func readFLChain(r io.Reader, path string, groupMinAge float64) (*Table, error) {
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
	for _, name := range flchainColumns {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("clinical: %s: line 1: header has no column %q (columns: %s); regenerate the file with %s", path, name, strings.Join(header, ","), FLChainScript)
		}
	}
	t := &Table{Name: "flchain", Names: FLChainFeatures(), GroupName: fmt.Sprintf("aged %g or over", groupMinAge)}
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
		bad := func(name, s, why string) error {
			_, column := cr.FieldPos(col[name])
			return fmt.Errorf("clinical: %s:%d:%d: column %q: value %q %s", path, line, column, name, s, why)
		}
		num := func(name string, missingOK bool) (float64, error) {
			s := strings.TrimSpace(rec[col[name]])
			if missingOK && (s == "" || s == "NA") {
				return math.NaN(), nil
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, bad(name, s, "is not a finite number")
			}
			if math.Abs(v) > maxNumeric {
				return 0, bad(name, s, fmt.Sprintf("is out of range (|v| > %g; its square overflows the standardisation)", maxNumeric))
			}
			return v, nil
		}
		binary := func(name string) (float64, error) {
			v, err := num(name, false)
			if err == nil && v != 0 && v != 1 {
				err = bad(name, rec[col[name]], "is not 0 or 1")
			}
			return v, err
		}
		var v [7]float64 // age, sample.yr, kappa, lambda, flc.grp, creatinine, mgus
		for k, name := range []string{"age", "sample.yr", "kappa", "lambda", "flc.grp", "creatinine"} {
			if v[k], err = num(name, name == "creatinine"); err != nil {
				return nil, err
			}
		}
		if v[0] < 0 {
			return nil, bad("age", rec[col["age"]], "is negative")
		}
		if g := v[4]; g != math.Trunc(g) || g < 1 || g > 10 {
			return nil, bad("flc.grp", rec[col["flc.grp"]], "is not a group 1 to 10")
		}
		if v[6], err = binary("mgus"); err != nil {
			return nil, err
		}
		death, err := binary("death")
		if err != nil {
			return nil, err
		}
		var male float64
		switch s := strings.TrimSpace(rec[col["sex"]]); s {
		case "F":
		case "M":
			male = 1
		default:
			return nil, bad("sex", s, "is not one of F, M")
		}
		crMissing := 0.0
		if math.IsNaN(v[5]) {
			crMissing = 1
		}
		t.X = append(t.X, v[0], v[1], v[2], v[3], v[4], v[5], crMissing, v[6])
		t.Y = append(t.Y, death)
		t.Z = append(t.Z, male)
		t.Group = append(t.Group, v[0] >= groupMinAge)
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("clinical: %s: no data rows", path)
	}
	return t, t.Validate()
}
