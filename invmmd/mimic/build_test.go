package mimic_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/invmmd/invmmd/invmmd/mimic"
	"github.com/invmmd/invmmd/invmmd/mimic/mimictest"
)

// fixture writes a fixture folder in a fresh temporary directory.
func fixture(t *testing.T, seed uint64, o mimictest.FixtureOptions) string {
	t.Helper()
	dir := t.TempDir()
	if err := mimictest.WriteFixture(dir, seed, o); err != nil {
		t.Fatal(err)
	}
	return dir
}

func quiet(dir string) mimic.Config { return mimic.Config{Dir: dir, Progress: io.Discard} }

func years(from, to time.Time) float64 { return to.Sub(from).Hours() / 24 / 365.2425 }

// TestExtractScripted checks the cohort built from the scripted patients alone against
// values worked out by hand from the rows WriteFixture writes (see scripted in mimictest/fixture.go).
func TestExtractScripted(t *testing.T) {
	dir := fixture(t, 1, mimictest.FixtureOptions{Patients: -1})
	c, rep, err := mimic.Extract(quiet(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())

	// Funnel: 14 ICUSTAYS rows, one malformed (2012); of the 13 others 108 and 109 have no
	// patient, 2007 no admission, 2013's admission has HAS_CHARTEVENTS_DATA = 0, 2006 no
	// OUTTIME, 2003 is a neonate, 2014 is 104's second stay and 2005 lasts 0.8 days.
	if rep.ICUStays != 13 {
		t.Errorf("ICUStays = %d, want 13", rep.ICUStays)
	}
	wantEx := []mimic.Exclusion{{"no PATIENTS row", 2}, {"no ADMISSIONS row", 1},
		{"admission without chart data (HAS_CHARTEVENTS_DATA = 0)", 1}, {"no INTIME/OUTTIME", 1},
		{"younger than MinAge", 1}, {"not the patient's first ICU stay", 1}, {"shorter than MinLOSDays", 1}}
	if !slices.Equal(rep.Exclusions, wantEx) {
		t.Errorf("Exclusions = %v, want %v", rep.Exclusions, wantEx)
	}
	var ids []int
	for _, s := range c.Stays {
		ids = append(ids, s.ICUStayID)
	}
	if !slices.Equal(ids, []int{2001, 2002, 2004, 2010, 2011}) {
		t.Fatalf("cohort ICUSTAY_IDs %v, want [2001 2002 2004 2010 2011]", ids)
	}

	// Malformed rows, each with its file and line.
	var issues []string
	for _, f := range rep.Files {
		issues = append(issues, f.Issues...)
	}
	wantIssues := []string{
		"PATIENTS.csv:9: 3 fields, header has 8",
		"ADMISSIONS.csv.gz:13: ",
		`ICUSTAYS.csv:14: column INTIME: timestamp "2150-13-45 25:00:00"`,
		`LABEVENTS.csv.gz:7: column CHARTTIME: timestamp "2150-06-01 25:61:00"`,
		`LABEVENTS.csv.gz:8: column VALUENUM: "1,2" is not a number`,
		"LABEVENTS.csv.gz:11: 4 fields, header has 9",
		`CHARTEVENTS.csv.gz:10: column VALUENUM: "8o" is not a number`,
		"CHARTEVENTS.csv.gz:20: 5 fields, header has 15",
		`CHARTEVENTS.csv.gz:21: column CHARTTIME: timestamp "2150-06-01 8:30"`,
	}
	if len(issues) != len(wantIssues) {
		t.Fatalf("issues %q, want %d", issues, len(wantIssues))
	}
	for i, w := range wantIssues {
		if !strings.HasPrefix(issues[i], w) {
			t.Errorf("issue %d = %q, want it to start with %q", i, issues[i], w)
		}
	}
	// ERROR = 1: 2001's heart rate and two GCS rows of 2011; no VALUENUM: a heart rate, a
	// lab and a GCS verbal row; lab rows in 2001's window of no admission (sodium,
	// bicarbonate) or another one (chloride).
	if rep.ChartErrors != 3 || rep.ChartNoStay != 1 || rep.NoValue != 3 || rep.LabOtherAdmission != 3 {
		t.Errorf("ChartErrors %d, ChartNoStay %d, NoValue %d, LabOtherAdmission %d; want 3, 1, 3, 3",
			rep.ChartErrors, rep.ChartNoStay, rep.NoValue, rep.LabOtherAdmission)
	}
	// Out of range: 2001's heart rate 0 and potassium 45; 2002's rows at and beyond the
	// bounds (see TestRangesAndWindows).
	oor := map[string]int{}
	for _, v := range rep.Variables {
		if v.OutOfRange > 0 {
			oor[v.Name] = v.OutOfRange
		}
	}
	wantOOR := map[string]int{"heart_rate": 2, "potassium": 1, "spo2": 1, "temp_c": 2, "glucose_chart": 1,
		"albumin": 2, "bands": 2, "pt": 1, "ptt": 1}
	if !maps.Equal(oor, wantOOR) {
		t.Errorf("out of range %v, want %v", oor, wantOOR)
	}

	nan := math.NaN()
	in2001 := time.Date(2150, 6, 1, 8, 0, 0, 0, time.UTC)
	in2011 := time.Date(2171, 2, 2, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		icu  int
		y, z float64
		want map[string]float64
	}{
		{2001, 1, 1, map[string]float64{
			"age": years(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), in2001), "male": 1,
			"admission_emergency": 1, "admission_other": 0, "careunit_micu": 1, "insurance_medicare": 1,
			// 80, 90, 110 (CareVue item) and 100 at exactly 24 h; not 200 (after), 150 (ERROR),
			// 0 (out of range), 60 (before INTIME), "8o" (malformed) or "Unable" (no VALUENUM).
			"heart_rate_min": 80, "heart_rate_max": 110, "heart_rate_mean": 95, "heart_rate_missing": 0,
			"temp_c_min": 37, "temp_c_max": 38, "temp_c_mean": 37.5, // 98.6 °F and 38.0 °C
			"sys_bp_min": 120, "sys_bp_max": 130, "sys_bp_mean": 125,
			"gcs_min": 15, "gcs_eyes": 4, "gcs_verbal": 5, "gcs_motor": 6, "gcs_endotrach": 0, "gcs_missing": 0,
			"dia_bp_min": nan, "dia_bp_mean": nan, "dia_bp_missing": 1,
			// 1.2 at −3 h and 1.6 at +10 h; not 5.0 at −7 h.
			"creatinine_min": 1.2, "creatinine_max": 1.6, "creatinine_mean": 1.4, "creatinine_missing": 0,
			// An empty HADM_ID (sodium at +2 h, bicarbonate at −2 h) or another admission's
			// (chloride): not the stay's labs (TestLabJoin).
			"sodium_missing": 1, "bicarbonate_missing": 1, "chloride_missing": 1,
			"potassium_missing": 1, "potassium_max": nan, // 45 is out of range
			"glucose_missing": 1, "lactate_missing": 1,
		}},
		{2002, 0, 0, map[string]float64{
			"age": mimic.DefaultAgeCap, "male": 0, "admission_elective": 1, "careunit_csru": 1, "insurance_private": 1,
			"heart_rate_min": 70, "creatinine_min": 0.9, "sys_bp_missing": 1,
		}},
		{2004, 1, 0, map[string]float64{ // ETHNICITY unknown: not recorded as white
			"male": 1, "admission_urgent": 1, "careunit_sicu": 1, "insurance_medicaid": 1,
			"heart_rate_missing": 1, "creatinine_missing": 1, "gcs_missing": 1, "gcs_min": nan, "gcs_endotrach": nan,
		}},
		{2010, 0, 1, map[string]float64{"careunit_ccu": 1, "insurance_self_pay": 1, "male": 0, // LOS exactly 2.5: not long
			// Intubated at the only GCS time: 15, verbal 0, flagged.
			"gcs_min": 15, "gcs_motor": 5, "gcs_verbal": 0, "gcs_eyes": 3, "gcs_endotrach": 1, "gcs_missing": 0}},
		{2011, 0, 0, map[string]float64{"careunit_tsicu": 1, "insurance_government": 1, "admission_emergency": 1,
			"age": years(time.Date(2120, 6, 15, 0, 0, 0, 0, time.UTC), in2011),
			// The lowest total is at 06:00, motor carried from 05:00 (see the fixture's rows).
			"gcs_min": 7, "gcs_motor": 4, "gcs_verbal": 2, "gcs_eyes": 1, "gcs_endotrach": 0}},
	} {
		r := cohortRow(c, tc.icu)
		if r < 0 {
			t.Fatalf("stay %d not in the cohort", tc.icu)
		}
		if c.Table.Y[r] != tc.y || c.Table.Z[r] != tc.z {
			t.Errorf("stay %d: Y %v Z %v, want %v %v", tc.icu, c.Table.Y[r], c.Table.Z[r], tc.y, tc.z)
		}
		for name, want := range tc.want {
			got, err := cohortFeature(c, r, name)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && math.Abs(got-want) > 1e-9) {
				t.Errorf("stay %d: %s = %v, want %v", tc.icu, name, got, want)
			}
		}
	}
	if s := c.Stays[cohortRow(c, 2001)]; s.LOSDays != 3.5 || s.Ethnicity != "WHITE - RUSSIAN" || !s.InTime.Equal(in2001) {
		t.Errorf("stay 2001 = %+v", s)
	}
}

// featureEquals reports whether got is want, NaN equal to NaN.
func featureEquals(got, want float64) bool {
	return math.IsNaN(want) == math.IsNaN(got) && (math.IsNaN(want) || math.Abs(got-want) < 1e-9)
}

// TestRangesAndWindows pins, on stay 2002 (INTIME 2151-01-10 12:00:00), the rows the
// fixture writes at and beyond each window edge and range bound.
func TestRangesAndWindows(t *testing.T) {
	c, _, err := mimic.Extract(quiet(fixture(t, 1, mimictest.FixtureOptions{Patients: -1})))
	if err != nil {
		t.Fatal(err)
	}
	r := cohortRow(c, 2002)
	for _, tc := range []struct {
		feature string
		want    float64
		why     string
	}{
		{"heart_rate_min", 70, "65 at INTIME is outside (INTIME, +24 h]"},
		{"heart_rate_max", 299, "300 is outside (0, 300)"},
		{"heart_rate_mean", (70 + 299) / 2.0, ""},
		{"gcs_min", 3, "1 + 1 + 1 at INTIME is inside [INTIME, +24 h]"},
		{"gcs_eyes", 1, ""},
		{"spo2_max", 100, "100 is inside (0, 100], 100.5 is not"},
		{"spo2_min", 100, ""},
		{"temp_c_min", 36.5, "120 °F and 10 °C are outside (70, 120) and (10, 50)"},
		{"temp_c_max", 36.5, ""},
		{"glucose_chart_min", 90, "0 is outside (0, ∞)"},
		{"glucose_chart_max", 2500, "no upper bound"},
		{"creatinine_min", 0.9, ""},
		{"creatinine_max", 3, "2.0 at −6 h and 3.0 at +24 h are in; 4.0 at +24 h 1 min is not"},
		{"creatinine_mean", (0.9 + 2 + 3) / 3, ""},
		{"potassium_max", 30, "30 is inside (0, 30]"},
		{"albumin_min", 3.1, "0 is outside (0, 10]"},
		{"albumin_max", 10, "10 is inside (0, 10], 10.01 is not"},
		{"bands_min", 5, "0 is outside (0, 100]"},
		{"bands_max", 100, "100.5 is outside"},
		{"pt_min", 12.5, ""},
		{"pt_max", 150, "150 is inside (0, 150], 150.1 is not"},
		{"ptt_min", 30, ""},
		{"ptt_max", 150, "151 is outside (0, 150]"},
		{"pt_missing", 0, ""},
		{"lactate_missing", 1, "no row"},
	} {
		t.Run(tc.feature, func(t *testing.T) {
			got, err := cohortFeature(c, r, tc.feature)
			if err != nil {
				t.Fatal(err)
			}
			if !featureEquals(got, tc.want) {
				t.Errorf("stay 2002 %s = %v, want %v (%s)", tc.feature, got, tc.want, tc.why)
			}
		})
	}
}

// TestLabJoin checks the lab join: by default on the stay's HADM_ID (mimic-code's
// labs_first_day.sql), with LabsBySubject on SUBJECT_ID and the window only, which admits
// stay 2001's emergency-department rows without HADM_ID and another admission's row.
func TestLabJoin(t *testing.T) {
	dir := fixture(t, 1, mimictest.FixtureOptions{Patients: -1})
	nan := math.NaN()
	for _, tc := range []struct {
		name      string
		bySubject bool
		other     int
		want      map[string]float64
	}{
		{"same admission (default)", false, 3, map[string]float64{"sodium_mean": nan, "bicarbonate_mean": nan, "chloride_mean": nan,
			"creatinine_mean": 1.4}},
		{"by subject", true, 0, map[string]float64{"sodium_mean": 140, "bicarbonate_mean": 22, "chloride_mean": 100,
			"creatinine_mean": 1.4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := quiet(dir)
			cfg.LabsBySubject = tc.bySubject
			c, rep, err := mimic.Extract(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rep.LabOtherAdmission != tc.other {
				t.Errorf("LabOtherAdmission = %d, want %d", rep.LabOtherAdmission, tc.other)
			}
			for name, want := range tc.want {
				if got, _ := cohortFeature(c, cohortRow(c, 2001), name); !featureEquals(got, want) {
					t.Errorf("stay 2001 %s = %v, want %v", name, got, want)
				}
			}
		})
	}
}

func TestExtractOptions(t *testing.T) {
	dir := fixture(t, 1, mimictest.FixtureOptions{Patients: -1})
	for _, tc := range []struct {
		name string
		edit func(c *mimic.Config)
		want []int
	}{
		{"defaults", func(c *mimic.Config) {}, []int{2001, 2002, 2004, 2010, 2011}},
		{"all stays", func(c *mimic.Config) { c.AllStays = true }, []int{2001, 2002, 2004, 2010, 2011, 2014}},
		{"drop unknown ethnicity", func(c *mimic.Config) { c.DropUnknownEthnicity = true }, []int{2001, 2002, 2010, 2011}},
		{"stays of 1.1 days or more", func(c *mimic.Config) { c.MinLOSDays = 1.1 }, []int{2001, 2002, 2004, 2010}},
		{"aged 60.25 or more", func(c *mimic.Config) { c.MinAge = 60.25 }, []int{2002, 2010}}, // 2004 is 60.17, 2010 60.34
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := quiet(dir)
			tc.edit(&cfg)
			c, _, err := mimic.Extract(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int
			for _, s := range c.Stays {
				ids = append(ids, s.ICUStayID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Fatalf("cohort %v, want %v", ids, tc.want)
			}
		})
	}
	// With every stay kept, 2014's heart rate (an hour after its INTIME) is used.
	cfg := quiet(dir)
	cfg.AllStays = true
	c, _, err := mimic.Extract(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := cohortFeature(c, cohortRow(c, 2014), "heart_rate_max"); v != 100 {
		t.Errorf("stay 2014 heart_rate_max = %v, want 100", v)
	}
}

// TestCompressionForms builds the same fixture written plain, gzipped and mixed: the
// cohorts must be identical.
func TestCompressionForms(t *testing.T) {
	var ref *mimic.Cohort
	var refIssues []string
	for _, form := range []string{"none", "gzip", "mixed"} {
		dir := fixture(t, 5, mimictest.FixtureOptions{Patients: 150, Compression: form})
		names, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
		if want := map[string]int{"none": 0, "gzip": 5, "mixed": 3}[form]; len(names) != want {
			t.Fatalf("%s: %d gzipped files, want %d", form, len(names), want)
		}
		c, rep, err := mimic.Extract(quiet(dir))
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		var issues []string
		for _, f := range rep.Files {
			for _, is := range f.Issues {
				issues = append(issues, strings.Replace(is, ".csv.gz:", ".csv:", 1))
			}
		}
		if ref == nil {
			ref, refIssues = c, issues
			continue
		}
		if !slices.Equal(issues, refIssues) {
			t.Errorf("%s: issues %q, plain gave %q", form, issues, refIssues)
		}
		if len(c.Stays) != len(ref.Stays) || !slices.Equal(c.Table.Y, ref.Table.Y) || !slices.Equal(c.Table.Z, ref.Table.Z) {
			t.Fatalf("%s: cohort differs from the plain one (%d vs %d stays)", form, len(c.Stays), len(ref.Stays))
		}
		for k, v := range c.Table.X {
			if w := ref.Table.X[k]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Fatalf("%s: feature %d differs: %v vs %v", form, k, v, w)
			}
		}
	}
}

func TestBuild(t *testing.T) {
	dir := fixture(t, 2, mimictest.FixtureOptions{Patients: 1500})
	sp, rep, err := mimic.Build(mimic.Config{Dir: dir, Seed: 7, Progress: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	if d := sp.Train.Dim(); d != len(mimic.FeatureNames()) {
		t.Errorf("feature dim %d, want %d", d, len(mimic.FeatureNames()))
	}
	tr, te := sp.Train.Summarize(), sp.Test.Summarize()
	if tr.PAgreeYZ > 0.2 || te.PAgreeYZ < 0.8 {
		t.Errorf("P(Y=Z) train %v, test %v: want the shifted split", tr.PAgreeYZ, te.PAgreeYZ)
	}
	if n := sp.Train.Len() + sp.Val.Len() + sp.Test.Len(); n > rep.Cohort {
		t.Errorf("%d split rows from a cohort of %d", n, rep.Cohort)
	}
	male := slices.Index(mimic.FeatureNames(), "male")
	d := sp.Train.Dim()
	for i := 0; i < sp.Train.Len(); i++ {
		if isMale := sp.Train.X[i*d+male] > 0; isMale != (sp.Train.GTrue[i] == 1) || (isMale && sp.Train.Delta[i] != 1) {
			t.Fatalf("train row %d: male %v, G %v, Δ %v", i, isMale, sp.Train.GTrue[i], sp.Train.Delta[i])
		}
	}
	// Reproducible: the same seed gives the same splits; another seed other splits.
	sp2, _, err := mimic.Build(mimic.Config{Dir: dir, Seed: 7, Progress: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sp.Train.X, sp2.Train.X) || !slices.Equal(sp.Test.Delta, sp2.Test.Delta) {
		t.Error("same seed, different splits")
	}
	sp3, _, err := mimic.Build(mimic.Config{Dir: dir, Seed: 8, Progress: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(sp.Train.Y, sp3.Train.Y) && slices.Equal(sp.Train.X, sp3.Train.X) {
		t.Error("seeds 7 and 8 gave the same training split")
	}
}

func TestMalformedPolicy(t *testing.T) {
	dir := fixture(t, 1, mimictest.FixtureOptions{Patients: -1})
	clean := fixture(t, 1, mimictest.FixtureOptions{Patients: -1, Clean: true})
	for _, tc := range []struct {
		name string
		cfg  mimic.Config
		want string // "" for success
	}{
		{"strict fails on the first", mimic.Config{Dir: dir, Strict: true}, "PATIENTS.csv: 1 malformed rows, more than the 0 tolerated"},
		{"limit 2 fails on LABEVENTS", mimic.Config{Dir: dir, MaxMalformed: 2}, "the last: LABEVENTS.csv.gz:11:"},
		{"limit 3 passes", mimic.Config{Dir: dir, MaxMalformed: 3}, ""},
		{"clean strict passes", mimic.Config{Dir: clean, Strict: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Progress = io.Discard
			c, _, err := mimic.Extract(tc.cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(c.Stays) != 5 {
					t.Errorf("%d stays, want 5", len(c.Stays))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestMalformedFiles breaks one table of a fixture at a time.
func TestMalformedFiles(t *testing.T) {
	gz := func(s string) []byte {
		var b strings.Builder
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return []byte(b.String())
	}
	for _, tc := range []struct {
		name  string
		file  string // replaced (or removed when body is nil)
		body  []byte
		edit  func(c *mimic.Config)
		want  string
		other string // a second piece the error must contain
	}{
		{"missing table", "ICUSTAYS.csv", nil, nil, "has no ICUSTAYS.csv.gz or ICUSTAYS.csv", ""},
		{"missing column", "PATIENTS.csv", []byte("ROW_ID,SUBJECT_ID,GENDER\n1,101,M\n"), nil, "header has no column DOB", "PATIENTS.csv"},
		{"empty file", "ICUSTAYS.csv", []byte{}, nil, "empty file", "ICUSTAYS.csv"},
		{"not gzip", "CHARTEVENTS.csv.gz", []byte("ROW_ID,ICUSTAY_ID\n"), nil, "not a gzip file", "CHARTEVENTS.csv.gz"},
		{"truncated gzip", "LABEVENTS.csv.gz", gz("ROW_ID,SUBJECT_ID,HADM_ID,ITEMID,CHARTTIME,VALUE,VALUENUM,VALUEUOM,FLAG\n" + strings.Repeat("1,101,1001,50912,2150-06-01 05:00:00,\"1\",1,\"\",\n", 2000))[:300], nil,
			"unexpected EOF", "LABEVENTS.csv.gz"},
		{"lower-case header and extra column", "PATIENTS.csv",
			[]byte("row_id,subject_id,gender,dob,extra\n1,101,M,2100-01-01 00:00:00,x\n2,102,F,1850-03-15 00:00:00,y\n4,104,M,2080-01-01 00:00:00,\n10,110,F,2110-01-01 00:00:00,\n11,111,M,2120-06-15 00:00:00,\n"),
			nil, "", ""},
		{"bad gender", "PATIENTS.csv", []byte("ROW_ID,SUBJECT_ID,GENDER,DOB\n1,101,X,2100-01-01 00:00:00\n"), func(c *mimic.Config) { c.Strict = true },
			`PATIENTS.csv:2: column GENDER: "X", want M or F`, ""},
		{"bad ITEMID", "CHARTEVENTS.csv.gz", gz("ICUSTAY_ID,ITEMID,CHARTTIME,VALUE,VALUENUM\n2001,2200x45,2150-06-01 08:30:00,80,80\n"), func(c *mimic.Config) { c.Strict = true },
			`CHARTEVENTS.csv.gz:2: column ITEMID: "2200x45" is not an integer`, ""},
		{"unparsable timestamp in a used row", "CHARTEVENTS.csv.gz", gz("ICUSTAY_ID,ITEMID,CHARTTIME,VALUE,VALUENUM\n2001,220045,01/06/2150,80,80\n"), func(c *mimic.Config) { c.Strict = true },
			`CHARTEVENTS.csv.gz:2: column CHARTTIME: timestamp "01/06/2150"`, ""},
		{"no HAS_CHARTEVENTS_DATA column", "ADMISSIONS.csv.gz", gz("SUBJECT_ID,HADM_ID,ADMISSION_TYPE,INSURANCE,ETHNICITY\n101,1001,EMERGENCY,Medicare,WHITE\n"), nil,
			"header has no column HAS_CHARTEVENTS_DATA", "ADMISSIONS.csv.gz"},
		{"bad HAS_CHARTEVENTS_DATA", "ADMISSIONS.csv.gz", gz("SUBJECT_ID,HADM_ID,ADMISSION_TYPE,INSURANCE,ETHNICITY,HAS_CHARTEVENTS_DATA\n101,1001,EMERGENCY,Medicare,WHITE,yes\n"),
			func(c *mimic.Config) { c.Strict = true }, `ADMISSIONS.csv.gz:2: column HAS_CHARTEVENTS_DATA: "yes", want 0 or 1`, ""},
		{"bad lab HADM_ID", "LABEVENTS.csv.gz", gz("SUBJECT_ID,HADM_ID,ITEMID,CHARTTIME,VALUENUM\n101,10o1,50912,2150-06-01 05:00:00,1.2\n"),
			func(c *mimic.Config) { c.Strict = true }, `LABEVENTS.csv.gz:2: column HADM_ID: "10o1" is not an integer`, ""},
		{"no VALUE column", "CHARTEVENTS.csv.gz", gz("ICUSTAY_ID,ITEMID,CHARTTIME,VALUENUM\n2001,220045,2150-06-01 08:30:00,80\n"), nil,
			"header has no column VALUE", "CHARTEVENTS.csv.gz"},
		{"config: no dir", "", nil, func(c *mimic.Config) { c.Dir = "" }, "Config.Dir is empty", ""},
		{"config: window longer than the shortest stay", "", nil, func(c *mimic.Config) { c.FirstDayHours = 36 }, "FirstDayHours 36 exceeds", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t, 1, mimictest.FixtureOptions{Patients: -1, Clean: true})
			if tc.file != "" {
				p := filepath.Join(dir, tc.file)
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				if tc.body != nil {
					if err := os.WriteFile(p, tc.body, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			cfg := quiet(dir)
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			_, _, err := mimic.Extract(cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.other) {
				t.Fatalf("error %v, want one containing %q and %q", err, tc.want, tc.other)
			}
		})
	}
}

// cohortFeature returns stay row's raw value of the named feature column.
func cohortFeature(c *mimic.Cohort, row int, name string) (float64, error) {
	j := slices.Index(c.Table.Names, name)
	if j < 0 {
		return 0, fmt.Errorf("mimic: no feature column %q", name)
	}
	if row < 0 || row >= c.Table.Len() {
		return 0, fmt.Errorf("mimic: row %d out of range [0, %d)", row, c.Table.Len())
	}
	return c.Table.X[row*c.Table.Dim()+j], nil
}

// cohortRow returns the cohort row of an ICUSTAY_ID, or -1.
func cohortRow(c *mimic.Cohort, icustayID int) int {
	i, ok := slices.BinarySearchFunc(c.Stays, icustayID, func(s mimic.Stay, id int) int { return s.ICUStayID - id })
	if !ok {
		return -1
	}
	return i
}
