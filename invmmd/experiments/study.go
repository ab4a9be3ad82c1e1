package experiments

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/results"
)

// Study is one entry of the registry: an experiment of the paper swept over methods, λ and
// seeds (a Sweep), or a bespoke study (the variance study of appendix B.3, the invariance
// test's calibration, Proposition 2, the step-by-step diagnosis of a fit). The command
// line gives each study its command, the main job (invmmd all) runs its Main steps in
// Order, and merge and figures ask each study for its tables and figures: none of them
// lists the studies.
//
// How a study runs depends on its kind, and takes that kind's typed settings: a Sweep
// runs an Experiment over a RunConfig (Run), the variance study a VarianceConfig
// (Variance), the calibration a CalibrationConfig (RunCalibration), Proposition 2 a
// prop1.Config, a diagnosis Diagnose's arguments; each takes a context and stops when it
// is done. The command line fills those settings from its flags.
type Study interface {
	// Name names the study: its command (invmmd NAME) and, for a study that stores
	// results, the folder of its own (OUT/fits/NAME) and the prefix of its tables.
	Name() string
	// Summary is one line saying what the study is: its command's description.
	Summary() string
	// Order places the study among the others, ascending (ties keep the order of
	// registration): in the command list and, for its Main steps, in the main job.
	Order() int
	// Main returns the study's steps in the main job, in order (with quick, in the quick
	// main job); none: it is not part of it.
	Main(quick bool) []Step
	// Stores reports whether results stored under name — a folder under OUT/fits, the
	// prefix of tables under OUT/tables — are this study's.
	Stores(name string) bool
	// Merge assembles the tables of the results stored under name (Stores) from the files
	// under a.Out/fits into a.Out/tables, draws their figures with a.Draw and writes what
	// it made to a.Stdout, returning the files it wrote.
	Merge(ctx context.Context, a MergeArgs, name string) ([]string, error)
	// Figures redraws the study's figures, and the comparisons it derives from its
	// tables, from the tables under out/tables, writing the figures to out with d and
	// what it shows to w; it returns the files it wrote (none when it has no tables).
	Figures(out string, d Drawer, w io.Writer) ([]string, error)
}

// MergeArgs are what Study.Merge reads besides the name of the results.
type MergeArgs struct {
	Out    string    // the results folder: fits under Out/fits, tables to Out/tables, figures to Out
	Draw   Drawer    // draws the figures
	Stdout io.Writer // where the tables are shown
	// Check, when set, is called with the stored sweep of a study's results before any of
	// its tables is replaced; its error stops the merge (the command line refuses tables of
	// another configuration, unless -force).
	Check func(sw store.Sweep) error
}

// Drawer draws the figures of the studies into files: base.png and base.svg for each.
// The command line's drawer is package figures' (which this package may not import: it is
// a later layer); a test can record what is drawn instead.
type Drawer interface {
	// Results draws an experiment's results at one λ: the summaries of its fits next to
	// the paper's numbers, with the experiment's figure hints and the majority baseline
	// when ex has one.
	Results(base, title string, sums []results.Summary, paper map[string]results.PaperRow, hints results.FigureHints, ex results.TableExtras) error
	// Examples draws example images of the data, perCell of each (Y, Z) cell of each set.
	Examples(base string, ex ExampleImages, perCell int) error
	// Variance draws the variance study's points (as its table holds them).
	Variance(base string, pts []results.VariancePoint) error
	// Calibration draws the calibration study's rejection rates and null p-values at
	// level alpha.
	Calibration(base string, rows []results.CalibrationRow, null []results.CalibrationP, alpha float64) error
	// ToolCalibration draws the calibration of invmmd test and invmmd estimate as the
	// commands run them (calibration -commands): null rejection rates and standard errors.
	ToolCalibration(base string, rows []results.ToolCalibrationRow, se []results.SECalibrationRow, alpha float64) error
	// Diagnosis draws a diagnosed fit's steps, titled fit, each objective labelled, each
	// objective's kept epoch marked with its validation values.
	Diagnosis(base string, steps []results.DiagnosisStep, fit string, labels map[string]string, kept []results.DiagnosisKept) error
	// Representations draws the comparison of the layer the penalty acts on.
	Representations(base, title string, fits []results.RepresentationFit) error
	// Objectives draws the comparison of the objectives an experiment was trained with
	// at one λ: the rows of each objective's table (as written), in the order given.
	Objectives(base, title string, objectives []string, rows [][]results.Row, hints results.FigureHints) error
}

// Step is one step of the main job: the command line that runs it and the name its
// results are stored under.
type Step struct {
	Name string
	Args []string // the command, then its flags: e.g. sim -paper-split
}

// ExampleImages are images of an experiment's data to show next to its results, one strip
// per (Y, Z) cell: the sets whose first images are drawn (e.g. train and test) and the
// names of Z's two values.
type ExampleImages struct {
	Sets   []*dataset.Set
	ZNames [2]string
	Note   string // a line under the images, e.g. that some labels shown are flipped
}

// builtin has one method per study of the project, each in the study's own file (e.g.
// Sim in sim.go): Studies finds them by reflection, so that adding a study is adding its
// file, with no list to extend and no init function.
type builtin struct{}

// builtins returns the project's studies, one per method of builtin, in the methods'
// order (by name; Studies sorts them by Order).
func builtins() []Study {
	v := reflect.ValueOf(builtin{})
	var out []Study
	for i := 0; i < v.NumMethod(); i++ {
		s, ok := v.Method(i).Interface().(func() Study)
		if !ok {
			panic(fmt.Sprintf("experiments: builtin.%s is not a func() Study", v.Type().Method(i).Name))
		}
		out = append(out, s())
	}
	return out
}

// registry holds the studies added by Register, in order.
var registry struct {
	sync.Mutex
	added []Study
}

// Register adds s to the registry, after checking it (CheckStudy) and that neither its
// name nor any name its results are stored under is another study's. The command line,
// merge, figures and the main job then know it. A program that wants a study for itself
// registers it before it runs; the project's own studies need no registration.
func Register(s Study) error {
	if err := CheckStudy(s); err != nil {
		return err
	}
	registry.Lock()
	defer registry.Unlock()
	for _, o := range all(registry.added) {
		if o.Name() == s.Name() || o.Stores(s.Name()) || s.Stores(o.Name()) {
			return fmt.Errorf("experiments: Register %q: the name is %s's", s.Name(), o.Name())
		}
		if sw, ok := o.(SweepStudy); ok {
			for _, v := range sw.Variants() {
				if n, err := sw.VariantName(v); err == nil && s.Stores(n) {
					return fmt.Errorf("experiments: Register %q: its results would be stored under %s, %s's", s.Name(), n, o.Name())
				}
			}
		}
	}
	registry.added = append(registry.added, s)
	return nil
}

// CheckStudy checks what the registry needs of a study: a name that is a usable file name
// and command, a summary, main steps with names of their own, and for a Sweep what its
// check says (Sweep.check).
func CheckStudy(s Study) error {
	name := s.Name()
	switch {
	case name == "" || strings.ContainsAny(name, "/\\ \t\n.") || strings.Contains(name, "_lambda") || strings.HasPrefix(name, "-"):
		return fmt.Errorf("experiments: study %q: want a non-empty file name without /, spaces, dots, a leading - or _lambda", name)
	case s.Summary() == "":
		return fmt.Errorf("experiments: study %q: no summary", name)
	}
	if c, ok := s.(interface{ check() error }); ok {
		if err := c.check(); err != nil {
			return err
		}
	}
	for _, quick := range []bool{false, true} {
		seen := map[string]bool{}
		for _, st := range s.Main(quick) {
			if st.Name == "" || seen[st.Name] || len(st.Args) == 0 || st.Args[0] != name {
				return fmt.Errorf("experiments: study %q: main steps %v: each needs a name of its own and the study's command", name, s.Main(quick))
			}
			seen[st.Name] = true
		}
	}
	return nil
}

// all returns the built-in studies and added, sorted by Order (stable).
func all(added []Study) []Study {
	ss := append(builtins(), added...)
	slices.SortStableFunc(ss, func(a, b Study) int { return a.Order() - b.Order() })
	return ss
}

// Studies returns every study of the registry, the built-in ones and those added by
// Register, in Order.
func Studies() []Study {
	registry.Lock()
	defer registry.Unlock()
	return all(registry.added)
}

// Lookup returns the study named name (its command's name).
func Lookup(name string) (Study, bool) {
	for _, s := range Studies() {
		if s.Name() == name {
			return s, true
		}
	}
	return nil, false
}

// Owner returns the study whose results are stored under name (e.g. "sim_mf075" gives the
// simulation, "variance" the variance study).
func Owner(name string) (Study, bool) {
	for _, s := range Studies() {
		if s.Stores(name) {
			return s, true
		}
	}
	return nil, false
}

// Describe returns the experiment, of any Sweep, whose results are stored under name, as
// the sweep describes it without reading data (SweepStudy.Describe): for merge, figures
// and the notebooks, which need its title, notes, paper numbers and figure hints.
func Describe(name string) (Experiment, bool) {
	s, ok := Owner(name)
	if !ok {
		return Experiment{}, false
	}
	sw, ok := s.(SweepStudy)
	if !ok {
		return Experiment{}, false
	}
	v, ok := variantNamed(sw, name)
	if !ok {
		return Experiment{}, false
	}
	exp, err := sw.Describe(v)
	return exp, err == nil
}

// VariantOf returns the sweep, and its variant, whose results are stored under name
// (e.g. "sim_mf075_robust" gives the simulation with the paper's split and the robust
// objective), found by naming the sweep's variants, never by parsing name.
func VariantOf(name string) (SweepStudy, Variant, bool) {
	s, ok := Owner(name)
	if !ok {
		return nil, Variant{}, false
	}
	sw, ok := s.(SweepStudy)
	if !ok {
		return nil, Variant{}, false
	}
	v, ok := variantNamed(sw, name)
	return sw, v, ok
}

// MainJob returns the steps of the main job (invmmd all) in order: every study's Main
// steps (with quick, those of the quick main job) in the studies' Order.
func MainJob(quick bool) []Step {
	var steps []Step
	for _, s := range Studies() {
		steps = append(steps, s.Main(quick)...)
	}
	return steps
}
