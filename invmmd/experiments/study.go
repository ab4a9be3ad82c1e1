package experiments

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/results"
)

// Studies is the project's list of studies, in the order of the command list and the main
// job: the sweeps (each in its own file) and the bespoke studies (bespoke.go). Nothing else
// lists the studies; a program with a study of its own appends it to this list.
func Studies() StudyList {
	return StudyList{
		simulationStudy(),           // sim.go
		tmnistStudy(),               // tmnist.go
		clinicalStudy(),             // clinical.go
		varianceStudy(),             // bespoke.go
		simulationContinuousStudy(), // simcont.go
		calibrationStudy(),          // bespoke.go
		prop1Study(),                // bespoke.go
		diagnosisStudy(),            // bespoke.go
		auditStudy(),                // bespoke.go
		mitigationStudy(),           // bespoke.go
	}
}

// Study is one entry of the study list: an experiment swept over methods, λ and seeds
// (Sweep set, made by NewSweep), or a bespoke study whose command fills its typed settings.
type Study struct {
	// Name names the study: its command (invmmd NAME) and, for a study that stores
	// results, the folder of its own (OUT/fits/NAME) and the prefix of its tables.
	Name string
	// Summary is one line saying what the study is: its command's description.
	Summary string
	// Steps are the study's steps in the main job, in order; none: it is not part of it.
	Steps []Step
	// Sweep is the sweep of an experiment (nil for a bespoke study).
	Sweep *SweepStudy
	// Merge, when the study keeps per-fit results under OUT/fits, assembles the tables and
	// figures of the results stored under name (Stores), returning the files it wrote.
	Merge func(ctx context.Context, a MergeArgs, name string) ([]string, error)
	// Figures redraws the study's figures (and the comparisons it derives) from the tables
	// under out/tables into out, showing them on w; it returns the files it wrote. Nil: the
	// study draws nothing.
	Figures func(out string, d Drawer, w io.Writer) ([]string, error)
}

// Step is one step of the main job: the name its results are stored under, the command
// line that runs it, and its measured wall times (0: never measured), from which invmmd
// all estimates its total and the time left.
type Step struct {
	Name      string
	Args      []string // the command, then its flags: e.g. sim -paper-split
	PaperOnly bool     // left out of the quick main job
	// Quick and Full are the step's wall times in all -quick and all (StepTimesSource).
	Quick, Full time.Duration
}

// StepTimesSource says where the Steps' recorded times come from, for the plan that
// invmmd all prints.
//
// Quick: one run of `go run ./cmd/invmmd all -quick -out /tmp/q` (its own "done in" lines),
// on a 2-vCPU AMD EPYC (nproc 2, /proc/cpuinfo "AMD EPYC"), -jobs 2 (the default there),
// while another engineer's builds and tests shared the machine: load average 1.7 at the
// start, 3.4–4.8 during the simulation, textured-MNIST and clinical steps, 6.7 at the end;
// 5 min 21 s in all (400 s of user CPU).
//
// Full: the wall times of the paper-size steps in their runs' logs, listed per step with
// the machine in docs/sweeps.md (TestStepTimesMatchTheManual checks the two agree):
// simulation 1,335 s, its companion with the paper's split 1,251 s and variance 98 s on a
// 2-vCPU AMD EPYC; clinical 2,190 s as one process on a 2-vCPU Xeon under a load of 12–15;
// textured MNIST 2,983 s on an earlier 2-core machine (the EPYC ran its checks about 1.4×
// as long, which the pace scaling of eta absorbs after the first step); the
// continuous-nuisance simulation about 3,700 s (its fits summed, on a shared 2-vCPU Xeon).
const StepTimesSource = "times measured on a 2-vCPU AMD EPYC with -jobs 2 under other load, recorded with each study in invmmd/experiments"

// Stores reports whether results stored under name (OUT/fits/NAME, tables NAME_*) are
// this study's: a variant of its sweep, or the name of a bespoke study that merges.
func (s Study) Stores(name string) bool {
	if s.Sweep != nil {
		_, ok := s.Sweep.variantNamed(name)
		return ok
	}
	return s.Merge != nil && name == s.Name
}

// MergeArgs are what Study.Merge reads besides the name of the results.
type MergeArgs struct {
	Out    string    // the results folder: fits under Out/fits, tables to Out/tables, figures to Out
	Draw   Drawer    // draws the figures
	Stdout io.Writer // where the tables are shown
	// Check, when set, sees the stored sweep before any table is replaced; its error stops
	// the merge (the command line refuses tables of another configuration).
	Check func(sw store.Sweep) error
}

// Drawer draws the studies' figures into base.png and base.svg: package figures' drawer
// in the command line (a later layer, which this package may not import).
type Drawer interface {
	// Results draws an experiment's results at one λ next to the paper's numbers.
	Results(base, title string, sums []results.Summary, paper map[string]results.PaperRow, hints results.FigureHints, ex results.TableExtras) error
	// Examples draws example images of the data, perCell of each (Y, Z) cell of each set.
	Examples(base string, ex ExampleImages, perCell int) error
	// Variance draws the variance study's points (as its table holds them).
	Variance(base string, pts []results.VariancePoint) error
	// Calibration draws the test's rejection rates and null p-values at level alpha.
	Calibration(base string, rows []results.CalibrationRow, null []results.CalibrationP, alpha float64) error
	// ToolCalibration draws the commands' calibration (calibration -commands).
	ToolCalibration(base string, rows []results.ToolCalibrationRow, se []results.SECalibrationRow, alpha float64) error
	// Diagnosis draws a diagnosed fit's steps, each objective labelled and its kept epoch.
	Diagnosis(base string, steps []results.DiagnosisStep, fit string, labels map[string]string, kept []results.DiagnosisKept) error
	// Representations draws the comparison of the layer the penalty acts on.
	Representations(base, title string, fits []results.RepresentationFit) error
	// Objectives draws the comparison of an experiment's objectives at one λ.
	Objectives(base, title string, objectives []string, rows [][]results.Row, hints results.FigureHints) error
}

// ExampleImages are images of an experiment's data to show next to its results: the sets
// whose first images are drawn per (Y, Z) cell and the names of Z's two values.
type ExampleImages struct {
	Sets   []*dataset.Set
	ZNames [2]string
	Note   string // a line under the images, e.g. that some labels shown are flipped
}

// StudyList is a list of studies (Studies, with any a program appends), in order.
type StudyList []Study

// Check checks what the command line, merge and the main job need of the list: usable
// names and summaries, main steps with names of their own, each sweep's own check, and no
// name (of a study or of stored results) that is another study's.
func (l StudyList) Check() error {
	owner := map[string]int{} // a command's or stored name → 1 + the index of its study
	for i, s := range l {
		name := s.Name
		switch {
		case name == "" || strings.ContainsAny(name, "/\\ \t\n.") || strings.Contains(name, "_lambda") || strings.HasPrefix(name, "-"):
			return fmt.Errorf("experiments: study %q: want a non-empty file name without /, spaces, dots, a leading - or _lambda", name)
		case s.Summary == "":
			return fmt.Errorf("experiments: study %q: no summary", name)
		}
		if s.Sweep != nil {
			if err := s.Sweep.check(); err != nil {
				return err
			}
		}
		seen := map[string]bool{}
		for _, st := range s.Steps {
			if st.Name == "" || seen[st.Name] || len(st.Args) == 0 || st.Args[0] != name {
				return fmt.Errorf("experiments: study %q: main steps %v: each needs a name of its own and the study's command", name, s.Steps)
			}
			seen[st.Name] = true
		}
		names := []string{name}
		if s.Sweep != nil {
			for _, v := range s.Sweep.Variants() {
				if n, err := s.Sweep.VariantName(v); err == nil && n != name {
					names = append(names, n)
				}
			}
		}
		for k, n := range names {
			o, taken := owner[n]
			switch {
			case taken && k == 0:
				return fmt.Errorf("experiments: study %q: the name is %s's", name, l[o-1].Name)
			case taken:
				return fmt.Errorf("experiments: study %q: its results would be stored under %s, %s's", name, n, l[o-1].Name)
			}
			owner[n] = i + 1
		}
	}
	return nil
}

// Lookup returns the study named name (its command's name).
func (l StudyList) Lookup(name string) (Study, bool) {
	return l.find(func(s Study) bool { return s.Name == name })
}

// Owner returns the study whose results are stored under name ("sim_mf075": sim).
func (l StudyList) Owner(name string) (Study, bool) {
	return l.find(func(s Study) bool { return s.Stores(name) })
}

// find returns the first study of the list for which f is true.
func (l StudyList) find(f func(Study) bool) (Study, bool) {
	if i := slices.IndexFunc(l, f); i >= 0 {
		return l[i], true
	}
	return Study{}, false
}

// VariantOf returns the sweep and variant whose results are stored under name, found by
// naming the sweeps' variants, never by parsing name.
func (l StudyList) VariantOf(name string) (*SweepStudy, Variant, bool) {
	s, ok := l.Owner(name)
	if !ok || s.Sweep == nil {
		return nil, Variant{}, false
	}
	v, ok := s.Sweep.variantNamed(name)
	return s.Sweep, v, ok
}

// Describe returns the experiment whose results are stored under name, without reading
// data (SweepStudy.Describe): its title, notes, paper numbers and figure hints.
func (l StudyList) Describe(name string) (Experiment, bool) {
	sw, v, ok := l.VariantOf(name)
	if !ok {
		return Experiment{}, false
	}
	exp, err := sw.Describe(v)
	return exp, err == nil
}

// MainJob returns the steps of the main job (invmmd all; with quick, all -quick) in order.
func (l StudyList) MainJob(quick bool) []Step {
	var steps []Step
	for _, s := range l {
		for _, st := range s.Steps {
			if !quick || !st.PaperOnly {
				steps = append(steps, st)
			}
		}
	}
	return steps
}
