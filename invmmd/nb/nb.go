package nb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/janpfeifer/gonb/cache"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// PaperSizeEnv is the environment variable whose value 1 makes a notebook run its
// paper-size version (notebooks/README.md: the one switch).
const PaperSizeEnv = "INVMMD_PAPER_SIZE"

// Run is one notebook's run: its name, which names its cache folders, and its size. A
// notebook declares one as a package variable, e.g.
//
//	var paperSize = os.Getenv("INVMMD_PAPER_SIZE") == "1"
//	var run = nb.New("nb01", paperSize)
//
// Its paths are under the repository, found from GONB_DIR (the notebook's folder, which
// GoNB sets), so that they are the same on every machine.
type Run struct {
	// Name names the notebook's folders: data/cache/NAME-SIZE/ for its tables and
	// data/cache/gonb/NAME/ for the values kept between cells.
	Name string
	// Paper is true for the paper-size run.
	Paper bool
	// dir is the notebook's folder (GONB_DIR); "" means the current directory.
	dir string
}

// New returns the run of notebook name (e.g. "nb01") at quick or, with paper, paper size.
// Each cell is a program that declares its run first, so New also applies the pure-Go
// backend's tuning that the committed results were made with (the block size of its
// float32 matrix products, backend.GoDotBlockLog2Dim), as cmd/invmmd's main does: a
// process-wide setting of GoMLX's simplego, which the library leaves to the programs.
func New(name string, paper bool) *Run {
	simplego.DotGeneralTargetBlockLog2Dim[dtypes.Float32] = backend.GoDotBlockLog2Dim
	return &Run{Name: name, Paper: paper, dir: os.Getenv("GONB_DIR")}
}

// Size names the run's size in folders and cache keys: "quick" or "paper".
func (r *Run) Size() string { return Sized(r, "quick", "paper") }

// Which says which size is running, for the notebook's first printed line.
func (r *Run) Which() string {
	return Sized(r, "quick run (set "+PaperSizeEnv+"=1 for the paper-size run)", "paper-size run ("+PaperSizeEnv+"=1)")
}

// Sized returns quick in the quick run and paper in the paper-size one: a notebook's
// sizes, epoch caps or sweeps at the run's size, e.g.
//
//	var size = nb.Sized(run, experiments.SimulationQuick, experiments.SimulationPaper)
func Sized[T any](r *Run, quick, paper T) T {
	if r.Paper {
		return paper
	}
	return quick
}

// Root is the repository: the notebook folder's parent.
func (r *Run) Root() string { return filepath.Join(r.dir, "..") }

// CacheDir is where the run writes tables and other files for its later cells:
// data/cache/NAME-SIZE/ (git-ignored), or a folder under it named by parts. The quick and
// paper-size runs keep separate folders.
func (r *Run) CacheDir(parts ...string) string {
	return filepath.Join(append([]string{r.Root(), "data", "cache", r.Name + "-" + r.Size()}, parts...)...)
}

// Key names a cached value of this run: the run's size and the parts, joined by "-"
// ("aux-quick-seed1" for Key("aux", "seed1")), so that the quick and paper-size runs
// never read each other's values.
func (r *Run) Key(what string, parts ...any) string {
	k := []string{what, r.Size()}
	for _, p := range parts {
		k = append(k, strings.ReplaceAll(fmt.Sprint(p), string(filepath.Separator), "_"))
	}
	return strings.Join(k, "-")
}

// Store is where the run keeps values that are expensive to compute between cells (each
// cell is a fresh program), with GoNB's cache package: data/cache/gonb/NAME/ (git-ignored),
// which scripts/notebooks.sh empties before each run. After changing the library, delete
// that folder, or the cells go on showing values computed by the old code.
func (r *Run) Store() *cache.Storage {
	return cache.MustNew(filepath.Join(r.Root(), "data", "cache", "gonb", r.Name))
}

// Rel shows path p relative to the notebook's folder: a reader's machine has other
// folders, and the notebook checker fails on a machine-absolute path in an output.
func (r *Run) Rel(p string) string { return relTo(r.dir, p) }

// relTo returns p relative to dir, or p's base name when it has no relative form (another
// volume, or dir unknown while p is absolute).
func relTo(dir, p string) string {
	if dir == "" && !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(dir, p); dir != "" && err == nil {
		return r
	}
	return filepath.Base(p)
}

// Sweep returns the default sweep of the experiment stored under name
// (experiments.SweepStudy.DefaultSweep of its study in experiments.Studies): its quick
// sweep in the quick run, its paper-size one at paper size, with its tables going to
// CacheDir().
func (r *Run) Sweep(name string) experiments.RunConfig {
	s, _ := experiments.Studies().Owner(name)
	if s.Sweep == nil {
		panic(fmt.Sprintf("nb: no experiment %q in the study list", name))
	}
	rc := s.Sweep.DefaultSweep(!r.Paper)
	rc.TableDir = r.CacheDir()
	return rc
}

// Cached returns the value kept in r's Store under r.Key(what), computing it with fn and
// keeping it the first time: a value that is expensive to compute (a fit's predictions and
// reports; what encoding/gob can write, not a GoMLX network), computed once per run and
// read back by the later cells.
func Cached[T any](r *Run, what string, fn func() T) T {
	return cache.CacheWith(r.Store(), r.Key(what), fn)
}

// FitAux fits G and m for one seed of exp as experiments.Run does (AuxConfig seed
// 1000·seed, exp's networks; zmap is the kernel on a nuisance that is not binary, nil for
// a binary one), so that a walk-through's seed starts from the same auxiliary models as the
// sweep's, and keeps the fit in Store under Key("aux", exp.Name, "seed"+seed): the later
// cells, and the sweep through Reuse, read its predictions and reports instead of fitting
// again. The map is an interface, which the cache's encoding cannot store, so it is set
// again after reading.
func (r *Run) FitAux(exp experiments.Experiment, sp dataset.Splits, seed uint64, zmap invmmd.FeatureMap) *train.Aux {
	aux := cache.CacheWith(r.Store(), r.Key("aux", exp.Name, fmt.Sprintf("seed%d", seed)), func() *train.Aux {
		ac := exp.Aux
		ac.Seed = 1000 * seed
		a := Must(train.FitAux(context.Background(), sp, exp.Net, ac, train.Runtime{ZMap: zmap, BayesM: exp.BayesM}))
		a.ZMap = nil
		return a
	})
	aux.ZMap = zmap
	return aux
}

// Reuse makes a sweep take its auxiliary models from FitAux's cache
// (experiments.RunConfig.FitAux), so that the sweep does not refit what a walk-through
// cell has just fit. zmap, when set, returns the kernel on Z of a seed's splits.
func (r *Run) Reuse(exp experiments.Experiment, rc *experiments.RunConfig, zmap func(dataset.Splits) invmmd.FeatureMap) {
	rc.FitAux = func(seed uint64, sp dataset.Splits, _ func() (*train.Aux, error)) (*train.Aux, error) {
		var m invmmd.FeatureMap
		if zmap != nil {
			m = zmap(sp)
		}
		return r.FitAux(exp, sp, seed, m), nil
	}
}

// Tables reads back the CSV that a sweep wrote for exp at λ into CacheDir() and summarises
// it over seeds (results.Summarize).
func (r *Run) Tables(exp experiments.Experiment, lambda float64) []results.Summary {
	return results.Summarize(Must(results.ReadCSVFile(results.TablePath(r.CacheDir(), exp.Name, lambda))))
}

// Extras returns what exp's tables of this run show beyond the paper's layout
// (Experiment.TableExtras: the majority baseline, the paper's numbers as differences from
// none), from the configuration record its sweep wrote next to them.
func (r *Run) Extras(exp experiments.Experiment) results.TableExtras {
	return Must(exp.TableExtras(filepath.Join(r.CacheDir(), exp.Name+"_config.json")))
}

// CommittedExtras is Extras for the committed paper-size tables of exp (figures/tables/,
// next to the CSVs that Committed reads).
func (r *Run) CommittedExtras(exp experiments.Experiment) results.TableExtras {
	return Must(exp.TableExtras(filepath.Join(r.Root(), "figures", "tables", exp.Name+"_config.json")))
}

// ResultOptions returns the results figure's options for exp's tables with extras ex: its
// figure hints (figures.Hints) and, when ex has one, the majority baseline in place of the
// chance line (figures.Majority).
func ResultOptions(exp experiments.Experiment, ex results.TableExtras) []figures.ResultOption {
	opts := []figures.ResultOption{figures.Hints(exp.Figure)}
	if ex.Majority != nil {
		opts = append(opts, figures.Majority(*ex.Majority))
	}
	return opts
}

// Committed reads the committed paper-size table of the experiment stored under name at λ
// (figures/tables/NAME_lambdaΛ.csv, written by go run ./cmd/invmmd all) and summarises it;
// false when it has not been generated.
func (r *Run) Committed(name string, lambda float64) ([]results.Summary, bool) {
	rows, err := results.ReadCSVFile(results.TablePath(filepath.Join(r.Root(), "figures", "tables"), name, lambda))
	if err != nil {
		return nil, false
	}
	return results.Summarize(rows), true
}

// Must stops the cell on an error: the notebook checker fails on the panic.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
