package mimic

import (
	"math"

	"github.com/invmmd/invmmd/invmmd/clinical"
	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Build extracts the cohort from cfg.Dir and splits it with clinical.Assemble: the
// shifted (Y, Z) split, gender-driven missingness of Z, training-median imputation and
// training standardisation.
func Build(cfg Config) (dataset.Splits, Report, error) {
	cfg = cfg.WithDefaults()
	c, rep, err := Extract(cfg)
	if err != nil {
		return dataset.Splits{}, rep, err
	}
	sp, srep, err := clinical.Assemble(c.Table, cfg.Shift, cfg.Missingness, cfg.Seed)
	rep.Split = srep
	return sp, rep, err
}

// Extract reads the MIMIC-III tables in cfg.Dir and returns the cohort with its raw
// features. PATIENTS, ADMISSIONS and ICUSTAYS are read whole (tens of thousands of rows);
// LABEVENTS and CHARTEVENTS are streamed row by row, so memory stays proportional to the
// cohort, not to the files.
func Extract(cfg Config) (*Cohort, Report, error) {
	cfg = cfg.WithDefaults()
	rep := Report{Config: cfg}
	if err := cfg.validate(); err != nil {
		return nil, rep, err
	}
	limit := cfg.MaxMalformed
	if cfg.Strict {
		limit = 0
	}
	prog := &progress{w: cfg.Progress, every: cfg.ProgressEvery}
	open := func(table string, need []string) (*tableFile, error) {
		return openTable(cfg.Dir, table, need, limit, prog)
	}
	x := &extraction{cfg: cfg, rep: &rep, open: open}
	for _, step := range []func() error{x.readPatients, x.readAdmissions, x.readICUStays, x.readLabs, x.readCharts} {
		if err := step(); err != nil {
			return nil, rep, err
		}
	}
	return x.cohort(), rep, nil
}

// patient is what the cohort needs of a PATIENTS row.
type patient struct {
	dob  int64
	male bool
}

// admission is what the cohort needs of an ADMISSIONS row.
type admission struct {
	subject                       int
	admType, insurance, ethnicity string
	chartData                     bool // HAS_CHARTEVENTS_DATA = 1
}

// agg accumulates one variable of one stay.
type agg struct {
	n             int32
	sum, min, max float64
}

func (a *agg) add(v float64) {
	if a.n == 0 || v < a.min {
		a.min = v
	}
	if a.n == 0 || v > a.max {
		a.max = v
	}
	a.n++
	a.sum += v
}

// itemRule is how an ITEMID is read: the variable it measures and its valid range.
type itemRule struct {
	variable int
	Item
}

// extraction is the state of one Extract: the small tables, the cohort's stays and the
// running aggregates of the event tables.
type extraction struct {
	cfg  Config
	rep  *Report
	open func(string, []string) (*tableFile, error)

	patients   map[int]patient
	admissions map[int]admission
	stays      []Stay
	inSec      []int64 // INTIME of each stay, Unix seconds
	byICU      map[int]int
	bySubject  map[int][]int
	aggs       []agg // stay*len(variables) + variable
	varRep     []VariableReport
	gcsEvents  []gcsEvent // first-day GCS rows of the cohort stays
	gcsRep     VariableReport
}

// addFile closes t and adds its report to the cohort's.
func (x *extraction) addFile(t *tableFile) {
	t.Close()
	x.rep.Files = append(x.rep.Files, *t.rep)
}

// atoi parses an optionally signed decimal integer without strconv's error values (it runs
// on the ID fields of every event row); overlong numbers are refused.
func atoi(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
		if s == "" {
			return 0, false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || n > math.MaxInt32 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// cohort turns the stays and their aggregates into the Table.
func (x *extraction) cohort() *Cohort {
	names := FeatureNames()
	t := &clinical.Table{Name: "mimic3", GroupName: "male", Names: names, X: make([]float64, 0, len(x.stays)*len(names))}
	nv := len(variables)
	gcs := scoreGCS(x.gcsEvents, len(x.stays))
	x.gcsEvents = nil
	for i, s := range x.stays {
		row := []float64{s.Age, b2f(s.Male)}
		row = oneHot(row, s.AdmissionType, admissionTypes)
		row = oneHot(row, s.FirstCareUnit, careUnits)
		row = oneHot(row, s.Insurance, insurances)
		for v := 0; v < nv; v++ {
			a := x.aggs[i*nv+v]
			if a.n == 0 {
				row = append(row, math.NaN(), math.NaN(), math.NaN(), 1)
				continue
			}
			x.varRep[v].Stays++
			row = append(row, a.min, a.max, a.sum/float64(a.n), 0)
		}
		row = gcs[i].features(row)
		if gcs[i].ok {
			x.gcsRep.Stays++
		}
		t.X = append(t.X, row...)
		t.Y = append(t.Y, b2f(s.LOSDays > x.cfg.LongStayDays))
		t.Z = append(t.Z, b2f(IsWhite(s.Ethnicity)))
		t.Group = append(t.Group, s.Male)
		x.rep.PLong += t.Y[i]
		x.rep.PWhite += t.Z[i]
		x.rep.PMale += b2f(s.Male)
		if isUnknownEthnicity(s.Ethnicity) {
			x.rep.UnknownEthnicity++
		}
	}
	n := float64(len(x.stays))
	x.rep.Cohort = len(x.stays)
	x.rep.PLong, x.rep.PWhite, x.rep.PMale = x.rep.PLong/n, x.rep.PWhite/n, x.rep.PMale/n
	x.varRep = append(x.varRep, x.gcsRep)
	for v := range x.varRep {
		x.varRep[v].Coverage = float64(x.varRep[v].Stays) / n
	}
	x.rep.Variables = x.varRep
	return &Cohort{Stays: x.stays, Table: t}
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
