package mimic

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/invmmd/invmmd/invmmd/clinical"
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
	// DropUnknownEthnicity leaves out stays whose ETHNICITY records none (UNKNOWN/NOT SPECIFIED, UNABLE TO OBTAIN,
	// PATIENT DECLINED TO ANSWER);
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
	Missingness clinical.Missingness // Z observed w.p. 1 (male: the table's Group) / 0.2 (other) by default

	Progress      io.Writer     `json:"-"` // periodic progress lines; default os.Stderr; io.Discard for none
	ProgressEvery time.Duration // default 5 s
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.MinLOSDays, c.LongStayDays = cmp.Or(c.MinLOSDays, DefaultMinLOSDays), cmp.Or(c.LongStayDays, DefaultLongStayDays)
	c.MinAge, c.AgeCap = cmp.Or(c.MinAge, DefaultMinAge), cmp.Or(c.AgeCap, DefaultAgeCap)
	c.FirstDayHours, c.LabLeadHours = cmp.Or(c.FirstDayHours, DefaultFirstDay), cmp.Or(c.LabLeadHours, DefaultLabLead)
	if c.LabLeadHours < 0 {
		c.LabLeadHours = 0
	}
	c.MaxMalformed, c.ProgressEvery = cmp.Or(c.MaxMalformed, DefaultMaxMalformed), cmp.Or(c.ProgressEvery, DefaultProgressTime)
	if c.Progress == nil {
		c.Progress = os.Stderr
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
