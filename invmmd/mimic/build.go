package mimic

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/clinical"
	"github.com/invmmd/invmmd/invmmd/dataset"
)

// Defaults of Config. The paper fixes the length-of-stay thresholds (at least one day;
// Y = more than 2.5 days); the rest are ours, following MIT-LCP mimic-code's first-day
// concepts.
const (
	DefaultMinLOSDays   = 1.0
	DefaultLongStayDays = 2.5
	DefaultMinAge       = 18.0
	DefaultAgeCap       = 91.4 // MIMIC-III shifts ages above 89 to ~300; 91.4 is their median age (MIMIC-III docs)
	DefaultFirstDay     = 24.0 // hours after INTIME that count as the first day
	DefaultLabLead      = 6.0  // hours before INTIME a lab still counts (pre-ICU draws)
	DefaultMaxMalformed = 1000 // malformed rows tolerated per file
	DefaultProgressTime = 5 * time.Second
)

// Config sets how the cohort is built from the MIMIC-III v1.4 CSV files. A zero field takes
// its default (the Default* constants, clinical's defaults for Shift and Missingness).
type Config struct {
	Dir  string // folder holding ICUSTAYS, ADMISSIONS, PATIENTS, LABEVENTS, CHARTEVENTS (.csv or .csv.gz)
	Seed uint64 // split and missingness seed

	MinLOSDays   float64 // ICU stays shorter than this are left out; default 1 (the paper)
	LongStayDays float64 // Y = 1 when the ICU stay is longer than this; default 2.5 (the paper)
	MinAge       float64 // patients younger than this at INTIME are left out (neonates); default 18
	AgeCap       float64 // ages above 89 (shifted to ~300 by MIMIC) are set to this; default 91.4
	// AllStays keeps every ICU stay; by default only each patient's first (adult, timed)
	// stay is kept, so that no patient is in two splits.
	AllStays bool
	// DropUnknownEthnicity leaves out stays whose ETHNICITY is one of UnknownEthnicities;
	// by default they stay in with Z = 0 ("not recorded as white", the paper's wording).
	DropUnknownEthnicity bool
	// LabsBySubject joins LABEVENTS to a stay on SUBJECT_ID and the window only, so that
	// lab rows of another or of no admission (HADM_ID empty: emergency-department and
	// outpatient draws before the admission) count too. By default a lab row must carry
	// the stay's HADM_ID, as in mimic-code's labs_first_day.sql.
	LabsBySubject bool
	FirstDayHours float64 // the windows end this many hours after INTIME; default 24
	LabLeadHours  float64 // labs window starts this many hours before INTIME; default 6, negative for 0

	// MaxMalformed is how many malformed rows (wrong field count, unparsable number or
	// timestamp in a column the builder uses) each file may have; they are skipped, counted
	// and the first ones listed in the report. More is an error. Default 1000.
	MaxMalformed int
	Strict       bool // fail on the first malformed row (overrides MaxMalformed)

	Shift       clinical.Shift       // the shifted split; clinical's defaults
	Missingness clinical.Missingness // Z observed w.p. 1 (male) / 0.2 (other) by default

	Progress      io.Writer     `json:"-"` // periodic progress lines; default os.Stderr; io.Discard for none
	ProgressEvery time.Duration // default 5 s
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MinLOSDays, DefaultMinLOSDays)
	def(&c.LongStayDays, DefaultLongStayDays)
	def(&c.MinAge, DefaultMinAge)
	def(&c.AgeCap, DefaultAgeCap)
	def(&c.FirstDayHours, DefaultFirstDay)
	def(&c.LabLeadHours, DefaultLabLead)
	if c.LabLeadHours < 0 {
		c.LabLeadHours = 0
	}
	if c.MaxMalformed == 0 {
		c.MaxMalformed = DefaultMaxMalformed
	}
	if c.Progress == nil {
		c.Progress = os.Stderr
	}
	if c.ProgressEvery == 0 {
		c.ProgressEvery = DefaultProgressTime
	}
	c.Shift, c.Missingness = c.Shift.WithDefaults(), c.Missingness.WithDefaults()
	return c
}

func (c Config) validate() error {
	if c.Dir == "" {
		return fmt.Errorf("mimic: Config.Dir is empty; set it to the folder of the MIMIC-III CSV files")
	}
	if st, err := os.Stat(c.Dir); err != nil || !st.IsDir() {
		return fmt.Errorf("mimic: Config.Dir %q is not a readable folder", c.Dir)
	}
	if c.MinLOSDays < 0 || c.LongStayDays <= 0 || c.FirstDayHours <= 0 || c.MaxMalformed < 0 {
		return fmt.Errorf("mimic: invalid config: MinLOSDays %v, LongStayDays %v, FirstDayHours %v, MaxMalformed %v",
			c.MinLOSDays, c.LongStayDays, c.FirstDayHours, c.MaxMalformed)
	}
	if c.FirstDayHours > 24*c.MinLOSDays {
		return fmt.Errorf("mimic: FirstDayHours %v exceeds the shortest stay kept (%v days): the features would see part of the outcome", c.FirstDayHours, c.MinLOSDays)
	}
	return nil
}

// Stay is one ICU stay of the cohort: the identifiers and the raw values behind its
// label, nuisance and demographic features.
type Stay struct {
	SubjectID, HadmID, ICUStayID int
	InTime, OutTime              time.Time
	LOSDays                      float64 // (OUTTIME − INTIME) in days
	Age                          float64 // years at INTIME, capped
	Male                         bool
	Ethnicity                    string
	AdmissionType                string
	FirstCareUnit                string
	Insurance                    string
}

// Cohort is the extracted cohort before splitting: one Stay and one Table row per ICU
// stay, ordered by ICUSTAY_ID.
type Cohort struct {
	Stays []Stay
	Table *clinical.Table // raw features (NaN where a variable was not measured), Y, Z, Male
}

// Feature returns stay row's raw value of the named feature column.
func (c *Cohort) Feature(row int, name string) (float64, error) {
	j := slices.Index(c.Table.Names, name)
	if j < 0 {
		return 0, fmt.Errorf("mimic: no feature column %q", name)
	}
	if row < 0 || row >= c.Table.Len() {
		return 0, fmt.Errorf("mimic: row %d out of range [0, %d)", row, c.Table.Len())
	}
	return c.Table.X[row*c.Table.Dim()+j], nil
}

// Row returns the cohort row of an ICUSTAY_ID, or -1.
func (c *Cohort) Row(icustayID int) int {
	i, ok := slices.BinarySearchFunc(c.Stays, icustayID, func(s Stay, id int) int { return s.ICUStayID - id })
	if !ok {
		return -1
	}
	return i
}

// Exclusion counts the ICU stays left out for one reason.
type Exclusion struct {
	Reason string
	Count  int
}

// VariableReport says how well a variable is covered in the cohort.
type VariableReport struct {
	Name       string
	Source     string
	Values     int     // values aggregated (in window, in range)
	OutOfRange int     // in-window values dropped as implausible
	Stays      int     // cohort stays with at least one value
	Coverage   float64 // Stays / cohort size
}

// Report records how the cohort and its splits were built; it goes into result files.
type Report struct {
	Config           Config // with defaults filled in
	Files            []FileReport
	ICUStays         int // well-formed ICUSTAYS rows
	Exclusions       []Exclusion
	Cohort           int
	PLong            float64 // P(Y = 1) in the cohort
	PWhite           float64 // P(Z = 1) in the cohort
	PMale            float64
	UnknownEthnicity int // cohort stays with an unknown ethnicity (Z = 0)
	ChartNoStay      int // CHARTEVENTS rows of a used ITEMID with an empty ICUSTAY_ID
	ChartErrors      int // CHARTEVENTS rows of a used ITEMID with ERROR = 1
	NoValue          int // event rows of a used ITEMID in a cohort window with an empty VALUENUM
	// LabOtherAdmission counts LABEVENTS rows of a used ITEMID in a stay's window left out
	// because their HADM_ID is empty or another admission's (none with LabsBySubject).
	LabOtherAdmission int
	Variables         []VariableReport
	Split             clinical.SplitReport // filled by Build
}

// String renders the report: files, cohort funnel, coverage, then the split.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MIMIC-III cohort from %s\n", r.Config.Dir)
	for _, f := range r.Files {
		fmt.Fprintf(&b, "  %-12s %s, %d rows, %d malformed, %s\n", f.Table, humanBytes(f.Bytes), f.Rows, f.Malformed, f.Elapsed.Round(time.Millisecond))
		for _, is := range f.Issues {
			fmt.Fprintf(&b, "      %s\n", is)
		}
	}
	fmt.Fprintf(&b, "  ICU stays %d", r.ICUStays)
	for _, e := range r.Exclusions {
		fmt.Fprintf(&b, ", −%d %s", e.Count, e.Reason)
	}
	fmt.Fprintf(&b, " → cohort %d (P(LOS > %g d) = %.3f, P(white) = %.3f, P(male) = %.3f, unknown ethnicity %d)\n",
		r.Cohort, r.Config.LongStayDays, r.PLong, r.PWhite, r.PMale, r.UnknownEthnicity)
	fmt.Fprintf(&b, "  chart rows skipped: %d without ICUSTAY_ID, %d flagged ERROR; lab rows in a window skipped: %d of no or another admission; %d in-window rows without VALUENUM\n",
		r.ChartNoStay, r.ChartErrors, r.LabOtherAdmission, r.NoValue)
	b.WriteString("  coverage:")
	for _, v := range r.Variables {
		fmt.Fprintf(&b, " %s %.2f", v.Name, v.Coverage)
	}
	b.WriteString("\n")
	if r.Split.Source != "" {
		b.WriteString(r.Split.String())
	}
	return b.String()
}

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
	steps := []func() error{x.readPatients, x.readAdmissions, x.readICUStays, x.readLabs, x.readCharts}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, rep, err
		}
	}
	return x.cohort(), rep, nil
}

type patient struct {
	dob  int64
	male bool
}

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

type itemRule struct {
	variable int
	Item
}

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

func (x *extraction) addFile(t *tableFile) {
	t.Close()
	x.rep.Files = append(x.rep.Files, *t.rep)
}

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

func (x *extraction) readPatients() error {
	t, err := x.open("PATIENTS", []string{"SUBJECT_ID", "GENDER", "DOB"})
	if err != nil {
		return err
	}
	defer x.addFile(t)
	cSub, cGen, cDob := t.column("SUBJECT_ID"), t.column("GENDER"), t.column("DOB")
	x.patients = map[int]patient{}
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		sub, ok, err := t.intField(rec, line, cSub, "SUBJECT_ID")
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		dob, err := parseTimestamp(rec[cDob])
		if err != nil {
			if err := t.malformed(line, "column DOB: %v", err); err != nil {
				return err
			}
			continue
		}
		g := strings.TrimSpace(rec[cGen])
		if g != "M" && g != "F" {
			if err := t.malformed(line, "column GENDER: %q, want M or F", rec[cGen]); err != nil {
				return err
			}
			continue
		}
		if _, dup := x.patients[sub]; dup {
			if err := t.malformed(line, "SUBJECT_ID %d appears twice", sub); err != nil {
				return err
			}
			continue
		}
		x.patients[sub] = patient{dob: dob, male: g == "M"}
	}
}

func (x *extraction) readAdmissions() error {
	t, err := x.open("ADMISSIONS", []string{"SUBJECT_ID", "HADM_ID", "ADMISSION_TYPE", "INSURANCE", "ETHNICITY", "HAS_CHARTEVENTS_DATA"})
	if err != nil {
		return err
	}
	defer x.addFile(t)
	cSub, cHadm, cType, cIns, cEth := t.column("SUBJECT_ID"), t.column("HADM_ID"), t.column("ADMISSION_TYPE"), t.column("INSURANCE"), t.column("ETHNICITY")
	cChart := t.column("HAS_CHARTEVENTS_DATA")
	x.admissions = map[int]admission{}
	intern := map[string]string{}
	in := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		s = strings.Clone(s)
		intern[s] = s
		return s
	}
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		sub, ok1 := atoi(rec[cSub])
		hadm, ok2 := atoi(rec[cHadm])
		if !ok1 || !ok2 {
			if err := t.malformed(line, "columns SUBJECT_ID, HADM_ID: %q, %q are not integers", rec[cSub], rec[cHadm]); err != nil {
				return err
			}
			continue
		}
		if _, dup := x.admissions[hadm]; dup {
			if err := t.malformed(line, "HADM_ID %d appears twice", hadm); err != nil {
				return err
			}
			continue
		}
		hasChart := strings.TrimSpace(rec[cChart])
		if hasChart != "0" && hasChart != "1" {
			if err := t.malformed(line, "column HAS_CHARTEVENTS_DATA: %q, want 0 or 1", rec[cChart]); err != nil {
				return err
			}
			continue
		}
		x.admissions[hadm] = admission{subject: sub, admType: in(rec[cType]), insurance: in(rec[cIns]), ethnicity: in(rec[cEth]),
			chartData: hasChart == "1"}
	}
}

func (x *extraction) readICUStays() error {
	t, err := x.open("ICUSTAYS", []string{"SUBJECT_ID", "HADM_ID", "ICUSTAY_ID", "FIRST_CAREUNIT", "INTIME", "OUTTIME"})
	if err != nil {
		return err
	}
	cSub, cHadm, cICU, cUnit, cIn, cOut := t.column("SUBJECT_ID"), t.column("HADM_ID"), t.column("ICUSTAY_ID"), t.column("FIRST_CAREUNIT"), t.column("INTIME"), t.column("OUTTIME")
	type cand struct {
		Stay
		in, out int64
	}
	var cands []cand
	excl := map[string]int{}
	const (
		exNoPatient = "no PATIENTS row"
		exNoAdm     = "no ADMISSIONS row"
		exNoChart   = "admission without chart data (HAS_CHARTEVENTS_DATA = 0)"
		exNoTime    = "no INTIME/OUTTIME"
		exYoung     = "younger than MinAge"
		exNotFirst  = "not the patient's first ICU stay"
		exShort     = "shorter than MinLOSDays"
		exUnknown   = "unknown ethnicity (DropUnknownEthnicity)"
	)
	seen := map[int]bool{}
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			x.addFile(t)
			return err
		}
		sub, ok1 := atoi(rec[cSub])
		hadm, ok2 := atoi(rec[cHadm])
		icu, ok3 := atoi(rec[cICU])
		if !ok1 || !ok2 || !ok3 {
			if err := t.malformed(line, "columns SUBJECT_ID, HADM_ID, ICUSTAY_ID: %q, %q, %q are not integers", rec[cSub], rec[cHadm], rec[cICU]); err != nil {
				x.addFile(t)
				return err
			}
			continue
		}
		var in, out int64
		var tErr error
		if rec[cIn] != "" {
			if in, tErr = parseTimestamp(rec[cIn]); tErr != nil {
				tErr = fmt.Errorf("column INTIME: %v", tErr)
			}
		}
		if tErr == nil && rec[cOut] != "" {
			if out, tErr = parseTimestamp(rec[cOut]); tErr != nil {
				tErr = fmt.Errorf("column OUTTIME: %v", tErr)
			}
		}
		if tErr == nil && seen[icu] {
			tErr = fmt.Errorf("ICUSTAY_ID %d appears twice", icu)
		}
		if tErr != nil {
			if err := t.malformed(line, "%v", tErr); err != nil {
				x.addFile(t)
				return err
			}
			continue
		}
		seen[icu] = true
		x.rep.ICUStays++
		p, okP := x.patients[sub]
		a, okA := x.admissions[hadm]
		switch {
		case !okP:
			excl[exNoPatient]++
			continue
		case !okA:
			excl[exNoAdm]++
			continue
		case !a.chartData:
			excl[exNoChart]++
			continue
		case rec[cIn] == "" || rec[cOut] == "":
			excl[exNoTime]++
			continue
		}
		age := float64(in-p.dob) / (365.2425 * 86400)
		if age < x.cfg.MinAge {
			excl[exYoung]++
			continue
		}
		if age > 89 {
			age = x.cfg.AgeCap
		}
		cands = append(cands, cand{Stay: Stay{SubjectID: sub, HadmID: hadm, ICUStayID: icu, InTime: toTime(in), OutTime: toTime(out),
			LOSDays: float64(out-in) / 86400, Age: age, Male: p.male, Ethnicity: a.ethnicity, AdmissionType: a.admType,
			FirstCareUnit: strings.Clone(rec[cUnit]), Insurance: a.insurance}, in: in, out: out})
	}
	x.addFile(t)
	if !x.cfg.AllStays {
		first := map[int]int{} // subject → index of the earliest candidate
		for i, c := range cands {
			if j, ok := first[c.SubjectID]; !ok || c.in < cands[j].in || (c.in == cands[j].in && c.ICUStayID < cands[j].ICUStayID) {
				first[c.SubjectID] = i
			}
		}
		kept := cands[:0]
		for i, c := range cands {
			if first[c.SubjectID] == i {
				kept = append(kept, c)
			} else {
				excl[exNotFirst]++
			}
		}
		cands = kept
	}
	slices.SortFunc(cands, func(a, b cand) int { return a.ICUStayID - b.ICUStayID })
	for _, c := range cands {
		if c.LOSDays < x.cfg.MinLOSDays {
			excl[exShort]++
			continue
		}
		if x.cfg.DropUnknownEthnicity && isUnknownEthnicity(c.Ethnicity) {
			excl[exUnknown]++
			continue
		}
		x.stays = append(x.stays, c.Stay)
		x.inSec = append(x.inSec, c.in)
	}
	for _, r := range []string{exNoPatient, exNoAdm, exNoChart, exNoTime, exYoung, exNotFirst, exShort, exUnknown} {
		if excl[r] > 0 {
			x.rep.Exclusions = append(x.rep.Exclusions, Exclusion{r, excl[r]})
		}
	}
	if len(x.stays) == 0 {
		return fmt.Errorf("mimic: %s: no ICU stay is left after the exclusions (%v)", x.cfg.Dir, x.rep.Exclusions)
	}
	x.byICU = make(map[int]int, len(x.stays))
	x.bySubject = make(map[int][]int, len(x.stays))
	for i, s := range x.stays {
		x.byICU[s.ICUStayID] = i
		x.bySubject[s.SubjectID] = append(x.bySubject[s.SubjectID], i)
	}
	x.aggs = make([]agg, len(x.stays)*len(variables))
	x.varRep = make([]VariableReport, len(variables))
	for v, vr := range variables {
		x.varRep[v] = VariableReport{Name: vr.Name, Source: vr.Source.String()}
	}
	x.gcsRep = VariableReport{Name: "gcs", Source: Chart.String()}
	return nil
}

// rules maps the ITEMIDs of one source to their variable and range.
func rules(src Source) map[int]itemRule {
	m := map[int]itemRule{}
	for v, vr := range variables {
		if vr.Source != src {
			continue
		}
		for _, it := range vr.Items {
			m[it.ID] = itemRule{variable: v, Item: it}
		}
	}
	return m
}

// record adds value v of rule r to stay s, after the range check and unit conversion.
func (x *extraction) record(s int, r itemRule, v float64) {
	if !r.valid(v) {
		x.varRep[r.variable].OutOfRange++
		return
	}
	if r.Fahrenheit {
		v = (v - 32) / 1.8
	}
	x.varRep[r.variable].Values++
	x.aggs[s*len(variables)+r.variable].add(v)
}

// Outcomes of reading an event row's time and value.
const (
	eventOK        = iota
	eventNoValue   // VALUENUM empty: a text-only observation, skipped and counted
	eventMalformed // recorded as malformed
)

// eventValue parses CHARTTIME and VALUENUM of an event row of a used ITEMID. A malformed
// row is recorded; err is set only when that takes the file past its malformed limit.
func eventValue(t *tableFile, line int, when, val string) (sec int64, v float64, status int, err error) {
	sec, perr := parseTimestamp(when)
	if perr != nil {
		return 0, 0, eventMalformed, t.malformed(line, "column CHARTTIME: %v", perr)
	}
	if val == "" {
		return sec, 0, eventNoValue, nil
	}
	v, ok := parseFloat(val)
	if !ok {
		return 0, 0, eventMalformed, t.malformed(line, "column VALUENUM: %q is not a number", val)
	}
	return sec, v, eventOK, nil
}

// parseFloat parses a finite decimal number.
func parseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func (x *extraction) readLabs() error {
	t, err := x.open("LABEVENTS", []string{"SUBJECT_ID", "HADM_ID", "ITEMID", "CHARTTIME", "VALUENUM"})
	if err != nil {
		return err
	}
	defer x.addFile(t)
	cSub, cHadm, cItem, cTime, cVal := t.column("SUBJECT_ID"), t.column("HADM_ID"), t.column("ITEMID"), t.column("CHARTTIME"), t.column("VALUENUM")
	rs := rules(Lab)
	lead, span := int64(x.cfg.LabLeadHours*3600), int64(x.cfg.FirstDayHours*3600)
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		item, ok, err := t.intField(rec, line, cItem, "ITEMID")
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		r, used := rs[item]
		if !used {
			continue
		}
		sub, ok, err := t.intField(rec, line, cSub, "SUBJECT_ID")
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		stays := x.bySubject[sub]
		if len(stays) == 0 {
			continue
		}
		hadm := 0 // none: an empty HADM_ID matches no stay's admission
		if rec[cHadm] != "" {
			if hadm, ok, err = t.intField(rec, line, cHadm, "HADM_ID"); err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		sec, v, status, err := eventValue(t, line, rec[cTime], rec[cVal])
		if err != nil {
			return err
		}
		if status == eventMalformed {
			continue
		}
		for _, s := range stays {
			if in := x.inSec[s]; LabWindow.contains(sec, in, lead, span) {
				if hadm != x.stays[s].HadmID && !x.cfg.LabsBySubject {
					x.rep.LabOtherAdmission++
					continue
				}
				if status == eventNoValue {
					x.rep.NoValue++
					continue
				}
				x.record(s, r, v)
			}
		}
	}
}

func (x *extraction) readCharts() error {
	t, err := x.open("CHARTEVENTS", []string{"ICUSTAY_ID", "ITEMID", "CHARTTIME", "VALUE", "VALUENUM"})
	if err != nil {
		return err
	}
	defer x.addFile(t)
	cICU, cItem, cTime, cVal, cErr := t.column("ICUSTAY_ID"), t.column("ITEMID"), t.column("CHARTTIME"), t.column("VALUENUM"), t.column("ERROR")
	cText := t.column("VALUE")
	rs, gs := rules(Chart), gcsRules()
	span := int64(x.cfg.FirstDayHours * 3600)
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		item, ok, err := t.intField(rec, line, cItem, "ITEMID")
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		r, used := rs[item]
		g, isGCS := gs[item]
		if !used && !isGCS {
			continue
		}
		if rec[cICU] == "" {
			x.rep.ChartNoStay++
			continue
		}
		icu, ok, err := t.intField(rec, line, cICU, "ICUSTAY_ID")
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		s, in := x.byICU[icu]
		if !in {
			continue
		}
		if cErr >= 0 && strings.TrimSpace(rec[cErr]) == "1" {
			x.rep.ChartErrors++
			continue
		}
		sec, v, status, err := eventValue(t, line, rec[cTime], rec[cVal])
		if err != nil {
			return err
		}
		if isGCS {
			if status != eventMalformed && GCSWindow.contains(sec, x.inSec[s], 0, span) {
				x.addGCS(s, sec, g, rec[cText], v, status)
			}
			continue
		}
		if status == eventMalformed || !variables[r.variable].Window.contains(sec, x.inSec[s], 0, span) {
			continue
		}
		if status == eventNoValue {
			x.rep.NoValue++
			continue
		}
		x.record(s, r, v)
	}
}

// addGCS buffers a GCS row of stay s inside its window: an intubated patient's verbal row
// scores 0; a row without VALUENUM is kept with no value (gcs_first_day.sql keeps it as a
// chart time of the stay).
func (x *extraction) addGCS(s int, sec int64, g gcsRule, text string, v float64, status int) {
	switch {
	case g.intubated != "" && strings.TrimSpace(text) == g.intubated:
		v = 0
	case status == eventNoValue:
		x.rep.NoValue++
		v = math.NaN()
	}
	if !math.IsNaN(v) {
		x.gcsRep.Values++
	}
	x.gcsEvents = append(x.gcsEvents, gcsEvent{sec: int32(sec - x.inSec[s]), stay: int32(s), component: int8(g.component), value: float32(v)})
}

// cohort turns the stays and their aggregates into the Table.
func (x *extraction) cohort() *Cohort {
	names := FeatureNames()
	t := &clinical.Table{Name: "mimic3", Names: names, X: make([]float64, 0, len(x.stays)*len(names))}
	nv := len(variables)
	gcs := scoreGCS(x.gcsEvents, len(x.stays))
	x.gcsEvents = nil
	for i, s := range x.stays {
		row := []float64{s.Age, b2f(s.Male)}
		row = oneHot(row, s.AdmissionType, AdmissionTypes)
		row = oneHot(row, s.FirstCareUnit, CareUnits)
		row = oneHot(row, s.Insurance, Insurances)
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
		z := IsWhite(s.Ethnicity)
		t.Z = append(t.Z, b2f(z))
		t.Male = append(t.Male, s.Male)
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

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
