package experiments

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/progress"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Experiment describes one experiment to Run.
type Experiment struct {
	Name  string // file prefix and key into Paper: "sim", "tmnist", "clinical"
	Title string
	// Data builds the splits for one seed; the seed drives the data's randomness (draws,
	// label flips, missingness) as well as the networks'.
	Data func(seed uint64) (dataset.Splits, error)
	// Net builds a fresh network for role "h", "G" or "m".
	Net func(role string, seed uint64) models.Net
	// H is how h is trained; Method, Lambda and Seed are set per run.
	H train.Config
	// Aux is how G and m are fit; Seed is set per seed.
	Aux train.AuxConfig
	// Paper holds the paper's numbers to print next to ours, by λ (nil: none).
	Paper map[float64]map[string]PaperRow
	// Notes are printed under the tables: what differs from the paper and why.
	Notes []string
}

// RunConfig chooses what Run sweeps.
type RunConfig struct {
	Methods  []invmmd.Method
	Lambdas  []float64
	Seeds    []uint64
	TableDir string    // where the CSV, Markdown and JSON files go; "" writes none
	Progress io.Writer // overall progress bar; nil is quiet
	Verbose  io.Writer // per-fit progress bars and reports; nil is quiet
}

// Fit is the record of one trained h.
type Fit struct {
	Method      string
	Lambda      float64
	Seed        uint64
	BestEpoch   int
	Epochs      int
	Seconds     float64
	PenaltyPath string
	Recompiles  int
	FlooredG    int
	EmptyStrata int
	FlooredNorm int
	Metrics     train.Metrics
}

// Outcome is what Run produced.
type Outcome struct {
	Experiment string
	Rows       map[float64][]Row // by λ
	Fits       []Fit
	Aux        map[string]train.Aux // by seed, reports only (predictions dropped)
	Data       map[string][3]dataset.Summary
	Seconds    float64
	Files      []string
}

// Run runs every method for every λ and seed: per seed, it builds the data and fits G and
// m once, then trains and evaluates h for each (λ, method). It writes the tables when
// cfg.TableDir is set.
func Run(exp Experiment, cfg RunConfig) (*Outcome, error) {
	if len(cfg.Methods) == 0 || len(cfg.Seeds) == 0 || len(cfg.Lambdas) == 0 {
		return nil, fmt.Errorf("experiments: %s: nothing to run (methods %v, λ %v, seeds %v)", exp.Name, cfg.Methods, cfg.Lambdas, cfg.Seeds)
	}
	for _, l := range cfg.Lambdas {
		if l < 0 {
			return nil, fmt.Errorf("experiments: %s: λ = %v, want ≥ 0", exp.Name, l)
		}
	}
	start := time.Now()
	out := &Outcome{Experiment: exp.Name, Rows: map[float64][]Row{}, Aux: map[string]train.Aux{}, Data: map[string][3]dataset.Summary{}}
	needAux := false
	for _, m := range cfg.Methods {
		needAux = needAux || m.NeedsG() || m.NeedsM()
	}
	// "none" does not depend on λ: train it once per seed and report it under every λ.
	runsPerSeed := 0
	for _, m := range cfg.Methods {
		if m == invmmd.None {
			runsPerSeed++
		} else {
			runsPerSeed += len(cfg.Lambdas)
		}
	}
	bar := progress.New(cfg.Progress, runsPerSeed*len(cfg.Seeds), exp.Name)
	defer bar.Finish()
	for _, seed := range cfg.Seeds {
		sp, err := exp.Data(seed)
		if err != nil {
			return nil, fmt.Errorf("experiments: %s, seed %d: %w", exp.Name, seed, err)
		}
		key := strconv.FormatUint(seed, 10)
		out.Data[key] = [3]dataset.Summary{sp.Train.Summarize(), sp.Val.Summarize(), sp.Test.Summarize()}
		var aux *train.Aux
		if needAux {
			ac := exp.Aux
			ac.Seed = seed * 1000
			ac.Progress = cfg.Verbose
			aux, err = train.FitAux(sp, func(s uint64) models.Net { return exp.Net(roleOf(s, ac.Seed), s) }, ac)
			if err != nil {
				return nil, fmt.Errorf("experiments: %s, seed %d: %w", exp.Name, seed, err)
			}
			out.Aux[key] = train.Aux{G: aux.G, M: aux.M}
			if cfg.Verbose != nil {
				fmt.Fprintf(cfg.Verbose, "seed %d: %s\nseed %d: %s\n", seed, aux.G, seed, aux.M)
			}
		}
		for _, m := range cfg.Methods {
			lambdas := cfg.Lambdas
			if m == invmmd.None {
				lambdas = []float64{0}
			}
			for _, lambda := range lambdas {
				hc := exp.H
				hc.Method, hc.Lambda, hc.Seed, hc.Progress = m, lambda, seed, cfg.Verbose
				model, hist, err := train.Fit(sp, aux, exp.Net("h", seed), hc)
				if err != nil {
					return nil, fmt.Errorf("experiments: %s, seed %d, λ %v: %w", exp.Name, seed, lambda, err)
				}
				met, err := train.Evaluate(model, sp, hc.Estimator)
				if err != nil {
					return nil, fmt.Errorf("experiments: %s, seed %d, %v: %w", exp.Name, seed, m, err)
				}
				f := Fit{Method: m.String(), Lambda: lambda, Seed: seed, BestEpoch: hist.BestEpoch, Epochs: len(hist.Epochs),
					Seconds: hist.Seconds, PenaltyPath: hist.PenaltyPath, Recompiles: hist.Recompiles, FlooredG: hist.FlooredG,
					EmptyStrata: hist.EmptyStrata, FlooredNorm: hist.FlooredNorms, Metrics: met}
				out.Fits = append(out.Fits, f)
				row := Row{Method: m.String(), Seed: seed, TrMMD: met.TrainMMD, TrAcc: met.TrainAcc, TeAcc: met.TestAcc}
				targets := []float64{lambda}
				if m == invmmd.None {
					targets = cfg.Lambdas
				}
				for _, l := range targets {
					out.Rows[l] = append(out.Rows[l], row)
				}
				bar.Add(1, fmt.Sprintf("seed %d λ=%g %-4s te acc %.3f tr mmd %.3f", seed, lambda, m, met.TestAcc, met.TrainMMD))
			}
		}
	}
	out.Seconds = time.Since(start).Seconds()
	if cfg.TableDir != "" {
		if err := out.write(exp, cfg); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// roleOf tells G's seed from m's: FitAux seeds G with Seed and m with Seed+1.
func roleOf(seed, base uint64) string {
	if seed == base {
		return "G"
	}
	return "m"
}

// LambdaName formats λ for file names: 1 → "1", 0.5 → "0.5".
func LambdaName(l float64) string { return strconv.FormatFloat(l, 'f', -1, 64) }

// TablePath returns the path of the result CSV for experiment name at λ under dir.
func TablePath(dir, name string, lambda float64) string {
	return filepath.Join(dir, name+"_lambda"+LambdaName(lambda)+".csv")
}

// record is the JSON written beside the tables.
type record struct {
	Experiment string
	Title      string
	Started    string
	Seconds    float64
	Backend    string
	GoVersion  string
	CPUs       int
	Methods    []string
	Lambdas    []float64
	Seeds      []uint64
	H          train.Config
	Aux        train.AuxConfig
	Estimator  invmmd.Options
	Nets       map[string]string
	Data       map[string][3]dataset.Summary
	AuxReports map[string]train.Aux
	Fits       []Fit
	Notes      []string
}

func (o *Outcome) write(exp Experiment, cfg RunConfig) error {
	if err := os.MkdirAll(cfg.TableDir, 0o755); err != nil {
		return err
	}
	est, _ := exp.H.Estimator.Resolved()
	rec := record{Experiment: exp.Name, Title: exp.Title, Started: time.Now().Add(-time.Duration(o.Seconds * float64(time.Second))).UTC().Format(time.RFC3339),
		Seconds: o.Seconds, Backend: backend.Config(), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		Lambdas: cfg.Lambdas, Seeds: cfg.Seeds, H: exp.H, Aux: exp.Aux, Estimator: est, Data: o.Data, AuxReports: o.Aux,
		Fits: o.Fits, Notes: exp.Notes,
		Nets: map[string]string{"h": exp.Net("h", 0).Describe(), "G": exp.Net("G", 0).Describe(), "m": exp.Net("m", 0).Describe()}}
	rec.H.Progress, rec.Aux.Progress = nil, nil
	for _, m := range cfg.Methods {
		rec.Methods = append(rec.Methods, m.String())
	}
	js, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	cfgPath := filepath.Join(cfg.TableDir, exp.Name+"_config.json")
	if err := os.WriteFile(cfgPath, js, 0o644); err != nil {
		return err
	}
	o.Files = append(o.Files, cfgPath)
	for _, l := range sortedLambdas(o.Rows) {
		p := TablePath(cfg.TableDir, exp.Name, l)
		if err := writeFile(p, func(w io.Writer) error { return WriteCSV(w, o.Rows[l]) }); err != nil {
			return err
		}
		md := strings.TrimSuffix(p, ".csv") + ".md"
		err := writeFile(md, func(w io.Writer) error {
			title := fmt.Sprintf("%s, λ = %s", exp.Title, LambdaName(l))
			if err := WriteMarkdown(w, title, Summarize(o.Rows[l]), exp.Paper[l]); err != nil {
				return err
			}
			_, err := fmt.Fprintf(w, "\nConfiguration: %s (backend %s, %.0f s for all λ). Seeds %v.\n", filepath.Base(cfgPath), rec.Backend, o.Seconds, cfg.Seeds)
			for _, n := range exp.Notes {
				fmt.Fprintf(w, "\n- %s", n)
			}
			fmt.Fprintln(w)
			return err
		})
		if err != nil {
			return err
		}
		o.Files = append(o.Files, p, md)
	}
	return nil
}

func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
