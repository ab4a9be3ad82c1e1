// Package mimictest writes synthetic MIMIC-III folders for tests and trials of package
// mimic: the five tables its builder reads, in the v1.4 schema, with scripted patients
// whose cohort values can be worked out by hand and random ones after them. Nothing in
// them is real patient data.
package mimictest

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/mimic"
)

// FixtureOptions sets the size and form of a synthetic MIMIC-III folder. A zero field takes
// its default.
type FixtureOptions struct {
	// Patients is the number of random patients written after the scripted ones; default
	// 400, negative for none (only the scripted patients).
	Patients int
	// ChartRowsPerStay is the CHARTEVENTS rows per random ICU stay (vitals spread over the
	// stay, one in ten an unused text item); default 40. Large values make the big file of
	// the streaming test: about 110 bytes per row.
	ChartRowsPerStay int
	LabRowsPerStay   int // LABEVENTS rows per random ICU stay; default 30
	// Compression is "mixed" (default: ADMISSIONS, LABEVENTS and CHARTEVENTS gzipped,
	// PATIENTS and ICUSTAYS plain), "none" or "gzip" (all gzipped).
	Compression string
	// Clean leaves out the scripted malformed rows (the cohort is the same either way).
	Clean bool
}

// Fixture table headers: the MIMIC-III v1.4 columns, in order.
var fixtureHeaders = map[string][]string{
	"PATIENTS":    {"ROW_ID", "SUBJECT_ID", "GENDER", "DOB", "DOD", "DOD_HOSP", "DOD_SSN", "EXPIRE_FLAG"},
	"ADMISSIONS":  {"ROW_ID", "SUBJECT_ID", "HADM_ID", "ADMITTIME", "DISCHTIME", "DEATHTIME", "ADMISSION_TYPE", "ADMISSION_LOCATION", "DISCHARGE_LOCATION", "INSURANCE", "LANGUAGE", "RELIGION", "MARITAL_STATUS", "ETHNICITY", "EDREGTIME", "EDOUTTIME", "DIAGNOSIS", "HOSPITAL_EXPIRE_FLAG", "HAS_CHARTEVENTS_DATA"},
	"ICUSTAYS":    {"ROW_ID", "SUBJECT_ID", "HADM_ID", "ICUSTAY_ID", "DBSOURCE", "FIRST_CAREUNIT", "LAST_CAREUNIT", "FIRST_WARDID", "LAST_WARDID", "INTIME", "OUTTIME", "LOS"},
	"CHARTEVENTS": {"ROW_ID", "SUBJECT_ID", "HADM_ID", "ICUSTAY_ID", "ITEMID", "CHARTTIME", "STORETIME", "CGID", "VALUE", "VALUENUM", "VALUEUOM", "WARNING", "ERROR", "RESULTSTATUS", "STOPPED"},
	"LABEVENTS":   {"ROW_ID", "SUBJECT_ID", "HADM_ID", "ITEMID", "CHARTTIME", "VALUE", "VALUENUM", "VALUEUOM", "FLAG"},
}

// fixtureTables is the order the generator writes the tables in.
var fixtureTables = []string{"PATIENTS", "ADMISSIONS", "ICUSTAYS", "LABEVENTS", "CHARTEVENTS"}

// tableWriter writes one fixture table, gzipped or not.
type tableWriter struct {
	f  *os.File
	gz *gzip.Writer
	w  *bufio.Writer
}

// fields writes one row of fields joined by commas (one field: a raw line, already joined
// and quoted).
func (t *tableWriter) fields(f ...string) {
	for i, s := range f {
		if i > 0 {
			t.w.WriteByte(',')
		}
		t.w.WriteString(s)
	}
	t.w.WriteByte('\n')
}

func (t *tableWriter) close() error {
	err := t.w.Flush()
	if t.gz != nil {
		if e := t.gz.Close(); err == nil {
			err = e
		}
	}
	if e := t.f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("mimictest: writing fixture %s: %w", t.f.Name(), err)
	}
	return nil
}

// q quotes a text field as PhysioNet's files do.
func q(s string) string { return `"` + s + `"` }

func itoa(n int) string { return strconv.Itoa(n) }

// stamp formats Unix seconds u as MIMIC-III writes timestamps, "YYYY-MM-DD HH:MM:SS".
func stamp(u int64) string { return time.Unix(u, 0).UTC().Format("2006-01-02 15:04:05") }

// WriteFixture writes a small synthetic MIMIC-III folder to dir (created if needed): the
// five tables the builder reads, in the v1.4 schema, some gzipped, with a seed. The first
// rows of each table are scripted patients whose cohort values can be worked out by hand
// (subjects 101–113: a stay of 3.5 days with vitals in and out of the first-day window, an
// out-of-range value, an ERROR row, a Fahrenheit temperature, a patient over 89, a neonate,
// a second stay, stays of exactly 1 and 2.5 days, missing records and malformed rows, labs
// without HADM_ID or of another admission, an admission without chart data, values at and
// beyond every kind of range bound and window edge, and GCS rows for each rule of
// gcs_first_day.sql);
// random patients follow (subjects from 1000), with labs and vitals that depend on a
// severity that also lengthens the stay. Nothing in it is real patient data.
func WriteFixture(dir string, seed uint64, opts FixtureOptions) error {
	opts.Patients, opts.ChartRowsPerStay, opts.LabRowsPerStay = cmp.Or(opts.Patients, 400), cmp.Or(opts.ChartRowsPerStay, 40), cmp.Or(opts.LabRowsPerStay, 30)
	if c := opts.Compression; c != "" && c != "mixed" && c != "none" && c != "gzip" {
		return fmt.Errorf("mimictest: FixtureOptions.Compression %q, want mixed, none or gzip", c)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("mimictest: writing fixture: %w", err)
	}
	w := map[string]*tableWriter{}
	for _, t := range fixtureTables {
		for _, ext := range []string{".csv", ".csv.gz"} { // a stale file of the other form would win or confuse
			if err := os.Remove(filepath.Join(dir, t+ext)); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("mimictest: writing fixture: %w", err)
			}
		}
		name := t + ".csv"
		gz := opts.Compression == "gzip" || opts.Compression != "none" && t != "PATIENTS" && t != "ICUSTAYS" // mixed
		if gz {
			name += ".gz"
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("mimictest: writing fixture: %w", err)
		}
		w[t] = &tableWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}
		if gz {
			w[t].gz = gzip.NewWriter(f)
			w[t].w.Reset(w[t].gz) // the buffer writes through gzip
		}
		w[t].fields(`"` + strings.Join(fixtureHeaders[t], `","`) + `"`) // PhysioNet's files quote the header
	}
	g := &fixtureGen{vars: mimic.Variables(), gcs: mimic.GCSItems(), w: w, rng: rand.New(rand.NewPCG(seed, 0xf1c7)), opts: opts, row: map[string]int{}}
	g.scripted()
	for j := 0; j < opts.Patients; j++ {
		g.randomPatient(1000 + j)
	}
	var firstErr error
	for _, t := range fixtureTables {
		if err := w[t].close(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// fixtureGen writes the rows of a fixture.
type fixtureGen struct {
	vars    []mimic.Variable // the builder's labs and vitals
	gcs     []mimic.GCSItem  // the builder's GCS items
	w       map[string]*tableWriter
	rng     *rand.Rand
	opts    FixtureOptions
	row     map[string]int // ROW_ID counters
	nextAdm int
	nextICU int
}

func (g *fixtureGen) rowID(table string) string {
	g.row[table]++
	return itoa(g.row[table])
}

func (g *fixtureGen) patient(sub int, gender, dob string) {
	g.w["PATIENTS"].fields(g.rowID("PATIENTS"), itoa(sub), q(gender), dob, "", "", "", "0")
}

// admission writes an ADMISSIONS row with HAS_CHARTEVENTS_DATA = hasChart.
func (g *fixtureGen) admission(sub, hadm int, admit, typ, ins, eth, diag, hasChart string) {
	g.w["ADMISSIONS"].fields(g.rowID("ADMISSIONS"), itoa(sub), itoa(hadm), admit, "", "", q(typ), q("EMERGENCY ROOM ADMIT"),
		q("HOME"), q(ins), q("ENGL"), q("NOT SPECIFIED"), q("MARRIED"), q(eth), "", "", q(diag), "0", hasChart)
}

func (g *fixtureGen) icustay(sub, hadm, icu int, unit, in, out, los string) {
	g.w["ICUSTAYS"].fields(g.rowID("ICUSTAYS"), itoa(sub), itoa(hadm), itoa(icu), q("metavision"), q(unit), q(unit), "52", "52", in, out, los)
}

// chart writes a CHARTEVENTS row; value is both VALUE (quoted text) and VALUENUM unless
// text is set, in which case VALUENUM is empty.
func (g *fixtureGen) chart(sub, hadm, icu string, item int, when, valuenum, text, errFlag string) {
	value := valuenum
	if text != "" {
		value, valuenum = text, ""
	}
	g.chartRow(sub, hadm, icu, item, when, when, value, valuenum, errFlag)
}

// chartRow writes a CHARTEVENTS row with CHARTTIME when, STORETIME store, and VALUE and
// VALUENUM as given.
func (g *fixtureGen) chartRow(sub, hadm, icu string, item int, when, store, value, valuenum, errFlag string) {
	g.w["CHARTEVENTS"].fields(g.rowID("CHARTEVENTS"), sub, hadm, icu, itoa(item), when, store, "17000", q(value), valuenum, q(""), "0", errFlag, "", "")
}

func (g *fixtureGen) lab(sub, hadm string, item int, when, valuenum, text string) {
	value := valuenum
	if text != "" {
		value, valuenum = text, ""
	}
	g.w["LABEVENTS"].fields(g.rowID("LABEVENTS"), sub, hadm, itoa(item), when, q(value), valuenum, q(""), "")
}

// scripted writes the hand-checkable patients. Their line numbers are relied on by tests:
// keep the order.
func (g *fixtureGen) scripted() {
	const dob = "2100-01-01 00:00:00"
	g.patient(101, "M", dob)
	g.patient(102, "F", "1850-03-15 00:00:00") // older than 89: shifted ~300 years
	g.patient(103, "F", "2149-12-01 00:00:00") // neonate
	g.patient(104, "M", "2080-01-01 00:00:00")
	g.patient(105, "F", dob)
	g.patient(106, "M", dob)
	g.patient(107, "M", dob)
	// 108 has no PATIENTS row.
	if !g.opts.Clean {
		g.w["PATIENTS"].fields(`9,109,"M"`) // PATIENTS line 9: 3 fields
	}
	g.patient(110, "F", "2110-01-01 00:00:00")
	g.patient(111, "M", "2120-06-15 00:00:00")
	g.patient(112, "F", dob)
	g.patient(113, "F", dob)

	g.admission(101, 1001, "2150-06-01 02:00:00", "EMERGENCY", "Medicare", "WHITE - RUSSIAN", "SEPSIS, PNEUMONIA", "1")
	g.admission(102, 1002, "2151-01-10 08:00:00", "ELECTIVE", "Private", "BLACK/AFRICAN AMERICAN", "CORONARY ARTERY DISEASE\\CABG", "1")
	g.admission(103, 1003, "2149-12-01 09:00:00", "NEWBORN", "Private", "WHITE", "NEWBORN", "1")
	g.admission(104, 1004, "2140-02-29 20:00:00", "URGENT", "Medicaid", "UNKNOWN/NOT SPECIFIED", "GI BLEED", "1")
	g.admission(105, 1005, "2159-12-31 20:00:00", "EMERGENCY", "Medicare", "WHITE", "SYNCOPE", "1")
	g.admission(106, 1006, "2160-12-31 20:00:00", "EMERGENCY", "Medicare", "ASIAN", "FALL", "1")
	g.admission(108, 1008, "2162-01-01 00:00:00", "EMERGENCY", "Medicare", "WHITE", "CHF", "1")
	g.admission(109, 1009, "2163-01-01 00:00:00", "EMERGENCY", "Medicare", "WHITE", "CHF", "1")
	g.admission(110, 1010, "2170-05-05 01:00:00", "EMERGENCY", "Self Pay", "WHITE", "OVERDOSE", "1")
	g.admission(111, 1011, "2171-02-01 22:00:00", "EMERGENCY", "Government", "HISPANIC OR LATINO", "TRAUMA", "1")
	g.admission(112, 1012, "2150-01-01 00:00:00", "EMERGENCY", "Medicare", "WHITE", "CHF", "1")
	if !g.opts.Clean {
		g.w["ADMISSIONS"].fields(`99,199,1099,2150-01-01 00:00:00,,,"EMERGENCY","BAD"QUOTE",,"Medicare",,,,"WHITE",,,"X",0,1`) // ADMISSIONS line 13
	}
	g.admission(113, 1013, "2172-01-01 00:00:00", "EMERGENCY", "Private", "WHITE", "CHF", "0") // no chart data

	g.icustay(101, 1001, 2001, "MICU", "2150-06-01 08:00:00", "2150-06-04 20:00:00", "3.5") // line 2: LOS 3.5, Y=1, Z=1
	g.icustay(102, 1002, 2002, "CSRU", "2151-01-10 12:00:00", "2151-01-11 16:48:00", "1.2") // line 3: Y=0, Z=0, age capped
	g.icustay(103, 1003, 2003, "NICU", "2149-12-01 10:00:00", "2149-12-05 10:00:00", "4")   // line 4: neonate
	g.icustay(104, 1004, 2004, "SICU", "2140-03-01 00:00:00", "2140-03-04 00:00:00", "3")   // line 5: Y=1, Z=0 (unknown)
	g.icustay(104, 1004, 2014, "SICU", "2140-03-05 00:00:00", "2140-03-07 00:00:00", "2")   // line 6: not the first stay
	g.icustay(105, 1005, 2005, "MICU", "2160-01-01 00:00:00", "2160-01-01 19:12:00", "0.8") // line 7: too short
	g.icustay(106, 1006, 2006, "MICU", "2161-01-01 00:00:00", "", "")                       // line 8: no OUTTIME
	g.icustay(107, 9999, 2007, "MICU", "2161-06-01 00:00:00", "2161-06-04 00:00:00", "3")   // line 9: no admission
	g.icustay(108, 1008, 2008, "MICU", "2162-01-01 04:00:00", "2162-01-04 04:00:00", "3")   // line 10: no patient
	g.icustay(109, 1009, 2009, "MICU", "2163-01-01 04:00:00", "2163-01-04 04:00:00", "3")   // line 11: malformed patient
	g.icustay(110, 1010, 2010, "CCU", "2170-05-05 05:05:00", "2170-05-07 17:05:00", "2.5")  // line 12: LOS exactly 2.5, Y=0
	g.icustay(111, 1011, 2011, "TSICU", "2171-02-02 00:00:00", "2171-02-03 00:00:00", "1")  // line 13: LOS exactly 1, kept
	if !g.opts.Clean {
		g.icustay(112, 1012, 2012, "MICU", "2150-13-45 25:00:00", "2150-12-01 00:00:00", "1") // line 14: bad INTIME
	}
	g.icustay(113, 1013, 2013, "MICU", "2172-01-01 02:00:00", "2172-01-03 02:00:00", "2") // admission without chart data

	// CHARTEVENTS for stay 2001 (INTIME 2150-06-01 08:00:00). Line numbers in comments.
	c := func(item int, when, v, text, errFlag string) {
		g.chart("101", "1001", "2001", item, when, v, text, errFlag)
	}
	c(220045, "2150-06-01 08:30:00", "80", "", "0")  // 2
	c(220045, "2150-06-01 12:00:00", "90", "", "0")  // 3
	c(211, "2150-06-01 10:00:00", "110", "", "")     // 4: CareVue heart rate
	c(220045, "2150-06-02 08:00:00", "100", "", "0") // 5: exactly 24 h: in
	c(220045, "2150-06-02 09:00:00", "200", "", "0") // 6: after 24 h: out
	c(220045, "2150-06-01 13:00:00", "150", "", "1") // 7: ERROR = 1
	c(220045, "2150-06-01 14:00:00", "0", "", "0")   // 8: out of range
	c(220045, "2150-06-01 07:00:00", "60", "", "0")  // 9: before INTIME
	if !g.opts.Clean {
		c(220045, "2150-06-01 15:00:00", "8o", "", "0") // 10: malformed VALUENUM
	}
	c(223761, "2150-06-01 09:00:00", "98.6", "", "0") // 11: °F → 37 °C
	c(223762, "2150-06-01 16:00:00", "38.0", "", "0") // 12
	c(220050, "2150-06-01 09:00:00", "120", "", "0")  // 13
	c(220050, "2150-06-01 17:00:00", "130", "", "0")  // 14
	c(220739, "2150-06-01 09:00:00", "4", "", "0")    // 15
	c(223900, "2150-06-01 09:00:00", "5", "", "0")    // 16
	c(223901, "2150-06-01 09:00:00", "6", "", "0")    // 17
	c(227969, "2150-06-01 09:00:00", "", "Turn q2h", "0")
	c(220045, "2150-06-01 18:00:00", "", "Unable", "0") // 19: no VALUENUM
	if !g.opts.Clean {
		g.w["CHARTEVENTS"].fields("99,101,1001,2001,220045") // 20: 5 fields
		c(220045, "2150-06-01 8:30", "85", "", "0")          // 21: malformed CHARTTIME
	}
	g.chart("102", "1002", "2002", 220045, "2151-01-10 13:00:00", "70", "", "0")  // 22
	g.chart("104", "1004", "2014", 220045, "2140-03-05 01:00:00", "100", "", "0") // 23: stay not in the cohort
	g.chart("101", "1001", "", 220045, "2150-06-01 10:30:00", "95", "", "0")      // 24: no ICUSTAY_ID
	g.chart("101", "1001", "2001", 227969, "2150-06-01 11:00:00", "", "Skin intact, dry", "0")
	// Stay 2002 (INTIME 2151-01-10 12:00:00): the windows' edges and values at and beyond
	// each range bound (upper bounds of vitals_first_day.sql exclusive except SpO2's).
	b := func(item int, when, v string) { g.chart("102", "1002", "2002", item, when, v, "", "0") }
	b(220045, "2151-01-10 12:00:00", "65") // at INTIME: outside the vitals window
	b(220739, "2151-01-10 12:00:00", "1")  // GCS at INTIME: inside the GCS window, total 3
	b(223900, "2151-01-10 12:00:00", "1")
	b(223901, "2151-01-10 12:00:00", "1")
	b(220739, "2151-01-10 13:00:00", "4")   // total 1 + 1 + 4 (the others carried forward)
	b(220045, "2151-01-10 14:00:00", "300") // heart rate at its open bound: out
	b(220045, "2151-01-10 14:00:00", "299") // in

	b(220277, "2151-01-10 14:00:00", "100")   // SpO2 at its closed bound: in
	b(220277, "2151-01-10 14:00:00", "100.5") // out
	b(223761, "2151-01-10 14:00:00", "120")   // °F at its open bound: out
	b(223762, "2151-01-10 14:00:00", "10")    // °C at its open lower bound: out
	b(223762, "2151-01-10 15:00:00", "36.5")  // in
	b(225664, "2151-01-10 14:00:00", "0")     // glucose (chart) 0: out
	b(807, "2151-01-10 15:00:00", "2500")     // no upper bound: in
	b(220621, "2151-01-10 16:00:00", "90")    // in
	// GCS of stay 2011 (INTIME 2171-02-02 00:00:00), gcs_first_day.sql's rules; each chart
	// time's total in the comment. The lowest is 7 at 06:00 (the earlier of two).
	e := func(item int, when, value, valuenum, errFlag string) {
		g.chartRow("111", "1011", "2011", item, when, when, value, valuenum, errFlag)
	}
	e(220739, "2171-02-02 00:00:00", "4", "4", "0") // 4 + 5 + 6 defaults: 15
	e(220739, "2171-02-02 01:00:00", "3", "3", "0") // 3 + 4 + 6 = 13
	e(223900, "2171-02-02 01:00:00", "4", "4", "0")
	e(223901, "2171-02-02 01:00:00", "6", "6", "0")
	e(454, "2171-02-02 03:00:00", "5", "5", "0")                  // 5 + 4 + 3 carried: 12
	e(223900, "2171-02-02 04:00:00", "No Response-ETT", "1", "0") // intubated: 15
	e(220739, "2171-02-02 04:00:00", "2", "2", "0")
	e(223901, "2171-02-02 05:00:00", "4", "4", "0") // no verbal, intubated before: 15
	e(220739, "2171-02-02 06:00:00", "1", "1", "0") // 4 carried + 2 + 1 = 7
	e(223900, "2171-02-02 06:00:00", "2", "2", "0")
	e(723, "2171-02-02 06:00:00", "1", "1", "0")                 // same time: the larger verbal (2) counts
	e(220739, "2171-02-02 07:00:00", "1", "1", "1")              // ERROR = 1: left out
	e(223901, "2171-02-02 07:00:00", "1", "1", "1")              // ERROR = 1: left out
	e(223900, "2171-02-02 08:00:00", "Unable to score", "", "0") // no value: 6 + 2 + 1 carried = 9
	e(220739, "2171-02-02 10:00:00", "2", "2", "0")              // 4 + 1 + 2 = 7, later than 06:00
	e(223900, "2171-02-02 10:00:00", "1", "1", "0")
	e(223901, "2171-02-02 10:00:00", "4", "4", "0")
	e(223901, "2171-02-02 20:00:00", "6", "6", "0") // 10 h after the last: 6 + 5 + 4 = 15
	e(184, "2171-02-03 00:00:00", "2", "2", "0")    // exactly 24 h: in; 4 + 2 + 2 = 8
	e(723, "2171-02-03 00:00:00", "2", "2", "0")
	e(454, "2171-02-03 00:00:00", "4", "4", "0")
	e(184, "2171-02-03 00:01:00", "1", "1", "0") // after the window (would be 3)
	e(723, "2171-02-03 00:01:00", "1", "1", "0")
	e(454, "2171-02-03 00:01:00", "1", "1", "0")
	// Stay 2010 (INTIME 2170-05-05 05:05:00): intubated (CareVue) at its only GCS time.
	f := func(item int, value, valuenum string) {
		g.chartRow("110", "1010", "2010", item, "2170-05-05 06:00:00", "2170-05-05 06:00:00", value, valuenum, "0")
	}
	f(723, "1.0 ET/Trach", "1")
	f(454, "5", "5")
	f(184, "3", "3")

	// LABEVENTS for subject 101 (window from 2150-06-01 02:00:00 to 2150-06-02 08:00:00).
	l := func(hadm string, item int, when, v, text string) { g.lab("101", hadm, item, when, v, text) }
	l("1001", 50912, "2150-06-01 05:00:00", "1.2", "") // 2: 3 h before INTIME: in
	l("1001", 50912, "2150-06-01 01:00:00", "5.0", "") // 3: 7 h before: out
	l("1001", 50912, "2150-06-01 18:00:00", "1.6", "") // 4
	l("", 50983, "2150-06-01 10:00:00", "140", "")     // 5: no HADM_ID: joined on SUBJECT_ID
	l("1001", 50971, "2150-06-01 11:00:00", "45", "")  // 6: potassium out of range
	if !g.opts.Clean {
		l("1001", 50931, "2150-06-01 25:61:00", "100", "")                                                                               // 7: malformed CHARTTIME
		g.w["LABEVENTS"].fields(g.rowID("LABEVENTS"), "101", "1001", "50931", "2150-06-01 12:00:00", q("1,2"), q("1,2"), q("mg/dL"), "") // 8: malformed VALUENUM
	}
	l("1001", 50931, "2150-06-01 12:00:00", "", "<10") // 9: no VALUENUM
	g.lab("102", "1002", 50912, "2151-01-10 10:00:00", "0.9", "")
	if !g.opts.Clean {
		g.w["LABEVENTS"].fields("99,102,1002,50912") // 11: 4 fields
	}
	l("", 50882, "2150-06-01 06:00:00", "22", "")      // ED draw before INTIME, no HADM_ID: not the stay's admission
	l("1050", 50806, "2150-06-01 07:00:00", "100", "") // another admission's lab in the window
	// Stay 2002 (INTIME 2151-01-10 12:00:00, HADM_ID 1002): window edges and range bounds
	// (labs_first_day.sql: valid when > 0 and not above the bound).
	m := func(item int, when, v string) { g.lab("102", "1002", item, when, v, "") }
	m(50912, "2151-01-10 06:00:00", "2.0")   // exactly 6 h before INTIME: in
	m(50912, "2151-01-11 12:00:00", "3.0")   // exactly 24 h after: in
	m(50912, "2151-01-11 12:01:00", "4.0")   // after the window
	m(50971, "2151-01-10 14:00:00", "30")    // potassium at its bound: in
	m(50862, "2151-01-10 14:00:00", "3.1")   // albumin
	m(50862, "2151-01-10 14:00:00", "10")    // at the bound: in
	m(50862, "2151-01-10 14:00:00", "10.01") // out
	m(50862, "2151-01-10 14:00:00", "0")     // out
	m(51144, "2151-01-10 14:00:00", "5")     // bands
	m(51144, "2151-01-10 14:00:00", "100")   // in
	m(51144, "2151-01-10 14:00:00", "100.5") // out
	m(51144, "2151-01-10 14:00:00", "0")     // out (mimic-code keeps values > 0 only)
	m(51274, "2151-01-10 14:00:00", "12.5")  // PT
	m(51274, "2151-01-10 14:00:00", "150")   // in
	m(51274, "2151-01-10 14:00:00", "150.1") // out
	m(51275, "2151-01-10 14:00:00", "30")    // PTT
	m(51275, "2151-01-10 14:00:00", "150")   // in
	m(51275, "2151-01-10 14:00:00", "151")   // out
	g.nextAdm, g.nextICU = 100000, 200000
}

// fixtureVital is how the random patients' values are drawn: mean, sd and the shift per
// unit of severity (severity also lengthens the stay).
type fixtureVital struct{ mean, sd, sev float64 }

var fixtureVitals = map[string]fixtureVital{
	"heart_rate": {85, 15, 8}, "sys_bp": {120, 18, -6}, "dia_bp": {62, 10, -3}, "mean_bp": {80, 12, -4},
	"resp_rate": {19, 4, 2}, "temp_c": {37, 0.6, 0.3}, "spo2": {97, 2, -1},
	"gcs_eyes": {3.5, 0.8, -0.4}, "gcs_verbal": {4, 1.2, -0.7}, "gcs_motor": {5.5, 1, -0.5},
	"anion_gap": {14, 3, 1.5}, "bicarbonate": {24, 4, -1.5}, "bilirubin": {1, 0.8, 0.3}, "bun": {25, 12, 6},
	"chloride": {104, 5, 0}, "creatinine": {1.2, 0.6, 0.3}, "glucose": {135, 40, 10}, "hematocrit": {32, 5, -1.5},
	"hemoglobin": {10.5, 1.8, -0.5}, "inr": {1.3, 0.3, 0.15}, "lactate": {2, 0.8, 0.6}, "platelets": {220, 70, -15},
	"potassium": {4.1, 0.5, 0.1}, "sodium": {139, 4, 0}, "wbc": {11, 4, 2.5},
	"glucose_chart": {140, 45, 10}, "albumin": {3, 0.6, -0.3}, "bands": {5, 4, 2}, "pt": {14, 2, 1}, "ptt": {32, 6, 2},
}

func pick(rng *rand.Rand, values []string, weights []float64) string {
	u := rng.Float64()
	for i, w := range weights {
		if u < w {
			return values[i]
		}
		u -= w
	}
	return values[len(values)-1]
}

// randomPatient writes one random patient with one ICU stay (one in ten a second, later one).
func (g *fixtureGen) randomPatient(sub int) {
	rng := g.rng
	male := rng.Float64() < 0.55
	gender := "F"
	if male {
		gender = "M"
	}
	in := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix() + rng.Int64N(95*365*86400)
	age := 20 + 68*rng.Float64()
	if rng.Float64() < 0.05 {
		age = 300 + 2*rng.Float64() // MIMIC's shift for patients older than 89
	}
	dob := in - int64(age*365.2425*86400)
	dob -= dob % 86400
	g.patient(sub, gender, stamp(dob))

	eth := pick(rng, []string{"WHITE", "WHITE - OTHER EUROPEAN", "BLACK/AFRICAN AMERICAN", "HISPANIC OR LATINO", "ASIAN", "UNKNOWN/NOT SPECIFIED", "OTHER"},
		[]float64{0.62, 0.06, 0.1, 0.05, 0.04, 0.08, 0.05})
	insW := []float64{0.55, 0.3, 0.07, 0.04, 0.04}
	if !mimic.IsWhite(eth) {
		insW = []float64{0.4, 0.25, 0.25, 0.05, 0.05}
	}
	ins := pick(rng, mimic.Insurances(), insW)
	typ := pick(rng, mimic.AdmissionTypes(), []float64{0.75, 0.15, 0.1})
	sev := rng.NormFloat64()
	if typ == "EMERGENCY" {
		sev += 0.3
	}
	stays := 1
	if rng.Float64() < 0.1 {
		stays = 2
	}
	for k := 0; k < stays; k++ {
		hadm, icu := g.nextAdm, g.nextICU
		g.nextAdm++
		g.nextICU++
		los := math.Exp(math.Log(2.2) + 0.5*sev + 0.5*rng.NormFloat64())
		out := in + int64(los*86400)
		g.admission(sub, hadm, stamp(in-3*3600), typ, ins, eth, "RANDOM", "1")
		unit := mimic.CareUnits()[rng.IntN(len(mimic.CareUnits()))]
		g.icustay(sub, hadm, icu, unit, stamp(in), stamp(out), strconv.FormatFloat(los, 'f', 4, 64))
		g.events(sub, hadm, icu, in, out, sev)
		in = out + int64(20+rng.IntN(400))*86400
	}
}

// events writes the random chart and lab rows of one stay: every value in range, so the
// out-of-range and error counts of a fixture come from the scripted rows alone.
func (g *fixtureGen) events(sub, hadm, icu int, in, out int64, sev float64) {
	rng := g.rng
	var chart, lab []mimic.Variable
	for _, v := range g.vars {
		if v.Source == mimic.Chart {
			chart = append(chart, v)
		} else {
			lab = append(lab, v)
		}
	}
	for _, comp := range []struct {
		name string
		max  float64
	}{{"motor", 6}, {"verbal", 5}, {"eyes", 4}} { // GCS components, drawn like the vitals
		v := mimic.Variable{Name: "gcs_" + comp.name, Source: mimic.Chart}
		for _, it := range g.gcs {
			if it.Component == comp.name {
				v.Items = append(v.Items, mimic.Item{ID: it.ID, Max: comp.max, MaxIncluded: true})
			}
		}
		chart = append(chart, v)
	}
	draw := func(v mimic.Variable) (mimic.Item, float64) {
		it := v.Items[rng.IntN(len(v.Items))]
		p := fixtureVitals[v.Name]
		x := p.mean + p.sev*sev + p.sd*rng.NormFloat64()
		if strings.HasPrefix(v.Name, "gcs_") {
			x = math.Round(x)
			x = math.Max(1, math.Min(x, v.Items[0].Max))
		}
		if it.Fahrenheit {
			x = x*1.8 + 32
		}
		lo := it.Min + 0.02*math.Abs(p.mean)
		if it.Fahrenheit {
			lo = it.Min + 1
		}
		hi := it.Max
		if !it.MaxIncluded {
			hi-- // open bound: stay below it after rounding
		}
		return it, math.Max(lo, math.Min(x, hi))
	}
	intubated := map[int]string{}
	for _, it := range g.gcs {
		if it.Intubated != "" {
			intubated[it.ID] = it.Intubated
		}
	}
	subS, hadmS, icuS := itoa(sub), itoa(hadm), itoa(icu)
	for r := 0; r < g.opts.ChartRowsPerStay; r++ {
		when := in - 3600 + rng.Int64N(out-in+3600)
		if r%10 == 9 { // an unused text item
			g.chartRow(subS, hadmS, icuS, 227969, stamp(when), stamp(when+600), "Turn q2h", "", "0")
			continue
		}
		it, x := draw(chart[(r-r/10)%len(chart)]) // cycle over the variables, skipping the text rows
		v := strconv.FormatFloat(x, 'f', 1, 64)
		value := v
		if text, ok := intubated[it.ID]; ok && x == 1 && rng.Float64() < 0.5 {
			value = text // an intubated patient (VALUENUM 1 here)
		}
		g.chartRow(subS, hadmS, icuS, it.ID, stamp(when), stamp(when+600), value, v, "0")
	}
	for r := 0; r < g.opts.LabRowsPerStay; r++ {
		when := in - 12*3600 + rng.Int64N(out-in+12*3600)
		ts := stamp(when)
		if r%10 == 9 {
			g.lab(subS, hadmS, 50800, ts, "", "ART") // an unused text item (specimen type)
			continue
		}
		it, x := draw(lab[r%len(lab)])
		g.lab(subS, hadmS, it.ID, ts, strconv.FormatFloat(x, 'f', 2, 64), "")
	}
}
