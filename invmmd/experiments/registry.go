package experiments

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Builder builds an experiment at quick or paper size, with batch rows per training step
// (0: the experiment's own; the experiment's Entry says which networks it applies to).
type Builder func(quick bool, batch int) (Experiment, error)

// Entry is one experiment of the registry: everything the command line, merge, figures
// and the main job (invmmd all) need to know about it, in one place. Its experiment
// carries the rest: title, notes, the paper's numbers and figure hints (Experiment).
type Entry struct {
	// Name names the experiment: its command (invmmd NAME), the folder of its result files
	// (OUT/fits/NAME/), the prefix of its tables and figures (NAME_lambdaΛ.csv) and its
	// key in Paper.
	Name string
	// Summary is one line saying what the experiment is: its command's description.
	Summary string
	// Order places the entry among the others, ascending (ties keep the order of the
	// built-in table, then of registration): in the command list and, for its Main runs,
	// in the main job. The built-in experiments have 10, 20 and 30; the variance study,
	// which is not an Entry, runs at VarianceOrder.
	Order int
	// New builds the experiment at its defaults: what its command runs with no flags of
	// its own.
	New Builder
	// Flags, when set, registers the command's own flags on fs and returns the Builder of
	// the experiment they choose, read once fs is parsed; with the flags at their defaults
	// it builds New's experiment. nil: the command has the shared flags only.
	Flags func(fs *flag.FlagSet) Builder
	// Batch says whether the command offers -batch (the Builder's batch argument).
	Batch bool
	// Named returns the experiment whose results are stored under name — the entry's own
	// (name == Name) or a variant's (e.g. sim_mf075, tmnist_fused) — for its title, notes,
	// paper numbers, figure hints and example images, without reading data; its sizes are
	// the quick ones and mean nothing there. nil: the entry has no variants, and
	// New(true, 0) describes Name.
	Named func(name string) (Experiment, bool)
	// Sweep is the default paper-size sweep: methods (also what "-methods all" runs), λ
	// and seeds.
	Sweep RunConfig
	// Quick is the default sweep of a quick run (-quick); its zero value means
	// QuickSweep().
	Quick RunConfig
	// Main lists the entry's runs in the main job, in order; none: it is not part of it.
	Main []MainRun
}

// MainRun is one run of an Entry in the main job (invmmd all).
type MainRun struct {
	// Name is the name its results are stored under: the entry's own or a variant's.
	Name string
	// Flags are the flags of the entry's command that choose it (none: its defaults).
	Flags []string
	// PaperOnly leaves it out of the quick main job (invmmd all -quick).
	PaperOnly bool
}

// Step is one step of the main job: the command line that runs it and the name its
// results are stored under.
type Step struct {
	Name string
	Args []string // the command, then its flags: e.g. sim -paper-split
}

// VarianceOrder is the variance study's place in the main job (see Entry.Order): after
// the built-in experiments.
const VarianceOrder = 40

// ExampleImages are images of an experiment's data to show next to its results, one strip
// per (Y, Z) cell: the sets whose first images are drawn (e.g. train and test) and the
// names of Z's two values.
type ExampleImages struct {
	Sets   []*dataset.Set
	ZNames [2]string
}

// builtins are the project's experiments: the paper's three.
func builtins() []Entry {
	return []Entry{simulationEntry(), tmnistEntry(), clinicalEntry(), simulationContinuousEntry()}
}

// registry holds the entries added by Register, in order.
var registry struct {
	sync.Mutex
	added []Entry
}

// Register adds e to the registry, after checking it: a name that is a usable file name
// and no other entry's (or variant's), a summary, a builder, a default sweep, and main
// runs with names. The command line, merge, figures and the main job then know it.
func Register(e Entry) error {
	if err := e.check(); err != nil {
		return err
	}
	registry.Lock()
	defer registry.Unlock()
	for _, o := range all(registry.added) {
		if _, ok := o.Experiment(e.Name); ok || o.Name == e.Name {
			return fmt.Errorf("experiments: Register %q: the name is %s's", e.Name, o.Name)
		}
	}
	registry.added = append(registry.added, e)
	return nil
}

// check checks what Register needs of an entry.
func (e Entry) check() error {
	switch {
	case e.Name == "" || strings.ContainsAny(e.Name, "/\\ \t\n.") || strings.Contains(e.Name, "_lambda") || strings.HasPrefix(e.Name, "-"):
		return fmt.Errorf("experiments: Register: name %q: want a non-empty file name without /, spaces, dots, a leading - or _lambda", e.Name)
	case e.Name == "variance":
		return fmt.Errorf("experiments: Register %q: the variance study's name", e.Name)
	case e.Summary == "":
		return fmt.Errorf("experiments: Register %q: no summary", e.Name)
	case e.New == nil:
		return fmt.Errorf("experiments: Register %q: no builder (New)", e.Name)
	case len(e.Sweep.Methods) == 0 || len(e.Sweep.Lambdas) == 0 || len(e.Sweep.Seeds) == 0:
		return fmt.Errorf("experiments: Register %q: the default sweep needs methods, λ and seeds", e.Name)
	}
	seen := map[string]bool{}
	for _, r := range e.Main {
		if r.Name == "" || seen[r.Name] {
			return fmt.Errorf("experiments: Register %q: main runs %v: each needs a name of its own", e.Name, e.Main)
		}
		seen[r.Name] = true
	}
	return nil
}

// all returns the built-in entries and added, sorted by Order (stable).
func all(added []Entry) []Entry {
	es := append(builtins(), added...)
	slices.SortStableFunc(es, func(a, b Entry) int { return a.Order - b.Order })
	return es
}

// All returns every experiment of the registry, the built-in ones and those added by
// Register, in Order.
func All() []Entry {
	registry.Lock()
	defer registry.Unlock()
	return all(registry.added)
}

// ByName returns the entry whose experiment, or one of whose variants, stores its results
// under name (e.g. "sim_mf075" gives the simulation's entry).
func ByName(name string) (Entry, bool) {
	for _, e := range All() {
		if e.Name == name {
			return e, true
		}
	}
	for _, e := range All() {
		if _, ok := e.Experiment(name); ok {
			return e, true
		}
	}
	return Entry{}, false
}

// Describe returns the experiment, of any entry, whose results are stored under name, as
// Entry.Experiment describes it: for merge and figures, which need its title, notes, paper
// numbers and figure hints but not its data.
func Describe(name string) (Experiment, bool) {
	e, ok := ByName(name)
	if !ok {
		return Experiment{}, false
	}
	return e.Experiment(name)
}

// Experiment returns the entry's experiment, or variant, whose results are stored under
// name (see Named), or false when name is none of the entry's.
//
// A name with an objective's suffix (e.g. sim_mf075_ntrain) is the experiment of the name
// without it, trained with that objective (WithObjective); a name ending in FeaturesSuffix
// (sim_feat, sim_ntrain_feat) is the experiment of the name without it with the penalty on
// h's penultimate features (WithRepresentation).
func (e Entry) Experiment(name string) (Experiment, bool) {
	if base, r := SplitRepresentation(name); r == train.RepresentFeatures {
		exp, ok := e.Experiment(base)
		if !ok || exp.H.Represent == train.RepresentFeatures {
			return Experiment{}, false
		}
		return WithRepresentation(exp, r), true
	}
	if exp, ok := e.named(name); ok {
		return exp, true
	}
	base, o := SplitObjective(name)
	if o.Suffix == "" {
		return Experiment{}, false
	}
	exp, ok := e.named(base)
	if !ok {
		return Experiment{}, false
	}
	return WithObjective(exp, o), true
}

// named is Experiment without objectives.
func (e Entry) named(name string) (Experiment, bool) {
	if e.Named != nil {
		return e.Named(name)
	}
	if name != e.Name || e.New == nil {
		return Experiment{}, false
	}
	exp, err := e.New(true, 0)
	return exp, err == nil && exp.Name == name
}

// DefaultSweep returns the entry's default sweep, Sweep, or with quick its Quick sweep
// (QuickSweep() when it has none). The slices are copies; TableDir, StoreDir, Progress and
// Verbose are left to the caller.
func (e Entry) DefaultSweep(quick bool) RunConfig {
	s := e.Sweep
	if quick {
		s = e.Quick
		if len(s.Methods) == 0 && len(s.Lambdas) == 0 && len(s.Seeds) == 0 {
			s = QuickSweep()
		}
	}
	return RunConfig{Methods: slices.Clone(s.Methods), Lambdas: slices.Clone(s.Lambdas), Seeds: slices.Clone(s.Seeds)}
}

// MainJob returns the steps of the main job (invmmd all) in order: every entry's Main runs
// (with quick, those not PaperOnly) in the entries' Order, and the variance study at
// VarianceOrder.
func MainJob(quick bool) []Step {
	var steps []Step
	variance := false
	for _, e := range All() {
		if !variance && e.Order > VarianceOrder {
			steps, variance = append(steps, Step{Name: "variance", Args: []string{"variance"}}), true
		}
		for _, r := range e.Main {
			if quick && r.PaperOnly {
				continue
			}
			steps = append(steps, Step{Name: r.Name, Args: append([]string{e.Name}, r.Flags...)})
		}
	}
	if !variance {
		steps = append(steps, Step{Name: "variance", Args: []string{"variance"}})
	}
	return steps
}
