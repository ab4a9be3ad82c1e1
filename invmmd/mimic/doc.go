// Package mimic builds the clinical experiment of the paper (experiment 3) from the
// official MIMIC-III v1.4 CSV files, for users with credentialed PhysioNet access. Package
// mimictest writes a synthetic folder in the same schema for the tests.
//
// The cohort and the first-day features follow MIT-LCP's mimic-code, the field's shared
// definitions: mimic-iii/concepts/demographics/icustay_detail.sql for the stays and
// mimic-iii/concepts/firstday/vitals_first_day.sql, labs_first_day.sql and
// gcs_first_day.sql for the features. Where the builder differs, it says so below, with the
// reason.
//
// # Cohort
//
// ICU stays from ICUSTAYS joined to PATIENTS (SUBJECT_ID) and ADMISSIONS (HADM_ID), kept
// when (in this order; each exclusion is counted in the Report):
//
//   - the stay has a PATIENTS and an ADMISSIONS row (inner joins, as icustay_detail.sql);
//   - its admission has HAS_CHARTEVENTS_DATA = 1 (as icustay_detail.sql: stays of
//     admissions without chart data would otherwise come through with every vital missing);
//   - it has an INTIME and an OUTTIME;
//   - the patient is at least MinAge (18) years old at INTIME, (INTIME − DOB) in years of
//     365.2425 days. Differs: icustay_detail.sql only reports the age
//     (DATETIME_DIFF(intime, dob, YEAR), calendar-year boundaries crossed) and mimic-code's
//     cookbook cohorts keep ages above 15; 18 is our choice of "adult" (it removes the
//     neonates and the adolescents); MinAge 16 comes close to the cookbook's cohorts;
//   - it is the patient's first such stay, unless AllStays. Differs: icustay_detail.sql
//     flags the first ICU stay of each hospital admission and filters nothing; we keep one
//     stay per patient so that no patient is in two splits;
//   - it lasts at least MinLOSDays (1, the paper).
//
// Y = 1 when OUTTIME − INTIME exceeds LongStayDays (2.5 days, the paper). Z = 1 when
// ADMISSIONS.ETHNICITY is recorded as white ("WHITE" or "WHITE - ...": the five values
// icustay_detail.sql groups as white all have that form); unknown ethnicities (the three
// values icustay_detail.sql groups as unknown) count as not white
// unless DropUnknownEthnicity.
//
// # Features (FeatureNames)
//
// Demographics and admission context: age at INTIME in years (MIMIC shifts ages above 89 to
// about 300; those are set to AgeCap = 91.4, the median MIMIC documents for them; mimic-code
// leaves them shifted), male (PATIENTS.GENDER = "M"), one-hot ADMISSION_TYPE (EMERGENCY,
// ELECTIVE, URGENT, other), FIRST_CAREUNIT (MICU, SICU, CCU, CSRU, TSICU, other) and
// INSURANCE (Medicare, Private, Medicaid, Government, Self Pay, other). Ethnicity is Z and
// is not a feature.
//
// First-day vitals from CHARTEVENTS joined on ICUSTAY_ID, rows with ERROR = 1 left out
// (mimic-code: error IS NULL or error = 0); first-day labs from LABEVENTS joined on
// SUBJECT_ID and HADM_ID, as labs_first_day.sql (Config.LabsBySubject joins on SUBJECT_ID
// alone, which adds the emergency-department and outpatient draws without HADM_ID that fall
// in the window; Report.LabOtherAdmission counts the rows the default leaves out). Rows
// without VALUENUM are skipped and counted (NoValue). Each variable gives its minimum,
// maximum and mean over its window and a missing indicator (vitals_first_day.sql gives min,
// max and mean; labs_first_day.sql min and max: the rest is ours); a stay with no usable
// value gets the indicator 1 and the training split's median for the aggregates
// (clinical.Assemble), then every column is standardised with the training mean and
// standard deviation. The variables, their ITEMIDs (Variables, GCSItems), valid values
// (a value outside is dropped and counted as out of range; °F items are checked in °F, then
// converted to °C), windows (relative to INTIME, Config.FirstDayHours = 24 and LabLeadHours
// = 6) and how each compares with mimic-code (TestDocTable keeps this table equal to the
// code's):
//
//	variable               table        ITEMIDs                                                  valid values                                                        window                       vs mimic-code
//	heart_rate (bpm)       CHARTEVENTS  211, 220045                                              (0, 300)                                                            (INTIME, +24 h]              same as vitals_first_day.sql (+ missing)
//	sys_bp (mmHg)          CHARTEVENTS  51, 442, 455, 6701, 220179, 220050                       (0, 400)                                                            (INTIME, +24 h]              same as vitals_first_day.sql (+ missing)
//	dia_bp (mmHg)          CHARTEVENTS  8368, 8440, 8441, 8555, 220180, 220051                   (0, 300)                                                            (INTIME, +24 h]              same as vitals_first_day.sql (+ missing)
//	mean_bp (mmHg)         CHARTEVENTS  456, 52, 6702, 443, 220052, 220181, 225312               (0, 300)                                                            (INTIME, +24 h]              same as vitals_first_day.sql (+ missing)
//	resp_rate (/min)       CHARTEVENTS  615, 618, 220210, 224690                                 (0, 70)                                                             (INTIME, +24 h]              same as vitals_first_day.sql (+ missing)
//	temp_c (°C)            CHARTEVENTS  223762, 676, 223761, 678                                 223762, 676: (10, 50); 223761, 678: (70, 120) °F                    (INTIME, +24 h]              same as vitals_first_day.sql (+ missing)
//	spo2 (%)               CHARTEVENTS  646, 220277                                              (0, 100]                                                            (INTIME, +24 h]              same as vitals_first_day.sql (+ missing)
//	glucose_chart (mg/dL)  CHARTEVENTS  807, 811, 1529, 3745, 3744, 225664, 220621, 226537       (0, ∞)                                                              (INTIME, +24 h]              same as vitals_first_day.sql (+ missing)
//	albumin (g/dL)         LABEVENTS    50862                                                    (0, 10]                                                             [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	anion_gap (mEq/L)      LABEVENTS    50868                                                    (0, 10000]                                                          [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	bands (%)              LABEVENTS    51144                                                    (0, 100]                                                            [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	bicarbonate (mEq/L)    LABEVENTS    50882                                                    (0, 10000]                                                          [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	bilirubin (mg/dL)      LABEVENTS    50885                                                    (0, 150]                                                            [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	bun (mg/dL)            LABEVENTS    51006                                                    (0, 300]                                                            [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	chloride (mEq/L)       LABEVENTS    50806, 50902                                             (0, 10000]                                                          [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	creatinine (mg/dL)     LABEVENTS    50912                                                    (0, 150]                                                            [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	glucose (mg/dL)        LABEVENTS    50809, 50931                                             (0, 10000]                                                          [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	hematocrit (%)         LABEVENTS    50810, 51221                                             (0, 100]                                                            [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	hemoglobin (g/dL)      LABEVENTS    50811, 51222                                             (0, 50]                                                             [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	inr (ratio)            LABEVENTS    51237                                                    (0, 50]                                                             [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	lactate (mmol/L)       LABEVENTS    50813                                                    (0, 50]                                                             [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	platelets (K/uL)       LABEVENTS    51265                                                    (0, 10000]                                                          [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	potassium (mEq/L)      LABEVENTS    50822, 50971                                             (0, 30]                                                             [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	pt (s)                 LABEVENTS    51274                                                    (0, 150]                                                            [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	ptt (s)                LABEVENTS    51275                                                    (0, 150]                                                            [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	sodium (mEq/L)         LABEVENTS    50824, 50983                                             (0, 200]                                                            [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	wbc (K/uL)             LABEVENTS    51300, 51301                                             (0, 1000]                                                           [−6 h, +24 h], same HADM_ID  same as labs_first_day.sql (+ mean, missing)
//	gcs_* (score)          CHARTEVENTS  motor 454, 223901; verbal 723, 223900; eyes 184, 220739  any; verbal VALUE 723 "1.0 ET/Trach", 223900 "No Response-ETT" → 0  [INTIME, +24 h]              same as gcs_first_day.sql (+ gcs_missing)
//
// # GCS
//
// The six gcs_* columns are gcs_first_day.sql's: gcs_min (mingcs), the motor, verbal and
// eyes components at the chart time of that lowest total, gcs_endotrach (endotrachflag) and
// our gcs_missing. Computed as there: one row per chart time in [INTIME, INTIME + 24 h],
// each component the largest value charted at that time, a verbal row whose VALUE marks an
// intubated patient scored 0; a row's total is 15 when the patient is intubated at it (or was
// at the previous row and has no verbal score now), else the sum of its components, each
// missing one taken from the previous row when that row is less than 6 hours earlier and not
// intubated, else the normal score (motor 6, verbal 5, eyes 4); the lowest total wins, the
// earliest on a tie. The score needs each stay's GCS rows in time order, so those rows (and
// only those) are buffered: memory grows with the cohort's first-day GCS charting.
//
// # Streaming and malformed rows
//
// Files are TABLE.csv or TABLE.csv.gz (gzip read on the fly), columns found by header name
// (case-insensitive, so extra or reordered columns are fine). PATIENTS, ADMISSIONS and
// ICUSTAYS are small and read into maps; LABEVENTS and CHARTEVENTS are streamed row by row
// with encoding/csv, keeping only per-stay running aggregates and the first-day GCS rows, so
// memory is proportional to the cohort (TestStreamingMemory: a 293 MiB CHARTEVENTS of 3.1
// million rows read with a peak heap of 22 MiB in one run, under the test's 64 MiB bound;
// each synthetic stay there has about 270 GCS rows). A row is malformed when the CSV parser
// rejects it (wrong field count, stray quote) or a column the builder uses for it does not
// parse (an ID, a timestamp, VALUENUM, HAS_CHARTEVENTS_DATA); it is skipped, counted and
// listed in the report as FILE:LINE: reason. More than MaxMalformed (1000) malformed rows in
// a file, or any with Strict, is an error. An empty VALUENUM is not malformed: MIMIC records
// text observations that way; those rows are counted as NoValue.
package mimic
