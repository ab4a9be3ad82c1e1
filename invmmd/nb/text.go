package nb

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Describe says how an experiment trains h, G and m — network, batches, optimiser, epoch
// cap and patience, the penalty's kernel and normalisers, clipping — for a training split
// of nTrain rows: the settings the notebooks' prose refers to.
func Describe(exp experiments.Experiment, nTrain int) string {
	est := Must(exp.H.Estimator.Resolved())
	batch := func(b int) string {
		if b == 0 || b >= nTrain {
			return fmt.Sprintf("full batch (%d rows, one step per epoch)", nTrain)
		}
		return fmt.Sprintf("batches of %d (%d steps per epoch)", b, nTrain/b)
	}
	norm := "the batch's own rows (MainFraction 1)"
	if est.MainFraction < 1 {
		norm = fmt.Sprintf("the first %.0f%% of each batch's rows", 100*(1-est.MainFraction))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "h:    %s\n      %s, Adam with learning rate %g; at most %d epochs, stopping after %d without a better validation objective (the first %d never kept)\n",
		exp.Net(train.RoleH, 0).Describe(), batch(exp.H.BatchSize), exp.H.LearningRate, exp.H.Epochs, exp.H.Patience, exp.H.SelectAfter)
	fmt.Fprintf(&b, "      penalty: Gaussian kernel of bandwidth %g on h_X; normalisers from %s; each stratum clipped at 0: %v\n",
		est.Bandwidth, norm, exp.H.Clip)
	fmt.Fprintf(&b, "G, m: %s\n      G: %s, Adam with learning rate %g; at most %d epochs, stopping after %d without a better validation NLL; m: the same on the observed rows only\n",
		exp.Net(train.RoleG, 0).Describe(), batch(exp.Aux.BatchSize), exp.Aux.LearningRate, exp.Aux.Epochs, exp.Aux.Patience)
	return b.String()
}

// Report says how well an auxiliary model fits, without its network and its time (so that
// the saved notebook stays the same from run to run): the validation NLL, next to the
// Bayes NLL of the true probabilities when known (the floor a converged fit approaches) or
// to the marginal model's for a nuisance that is not binary (an m not below it learned
// nothing), accuracy and calibration, where training stopped and why, the mean |Ĝ − G|
// when the true G is known, and for G how many training rows fell below the floor the
// estimators apply.
func Report(r train.FitReport) string {
	s := fmt.Sprintf("%s (target %s): %d train rows, validation NLL %.4f", r.Model, r.Target, r.TrainRows, r.ValNLL)
	if r.HasBayes {
		s += fmt.Sprintf(" (Bayes %.4f)", r.BayesNLL)
	}
	if r.HasBaseline {
		s += fmt.Sprintf(" (marginal model %.4f)", r.BaselineNLL)
	} else {
		s += fmt.Sprintf(", accuracy %.3f, ECE %.3f", r.ValAcc, r.ValECE)
	}
	s += fmt.Sprintf(", best epoch %d, stopped at %d of %d by %s", r.BestEpoch, r.StopEpoch, r.MaxEpochs, r.StopReason)
	if r.HasTrueG {
		s += fmt.Sprintf(", mean |Ĝ − G| %.3f", r.MAETrueG)
	}
	if r.Model == "G" {
		rows := "rows"
		if r.Floored == 1 {
			rows = "row"
		}
		s += fmt.Sprintf(", %d train %s below the floor", r.Floored, rows)
	}
	return s
}

// MeanSD returns the mean and the sample standard deviation (n − 1) of xs
// (results.CellOf); the standard deviation of one value is NaN.
func MeanSD(xs []float64) (mean, sd float64) {
	c := results.CellOf(xs)
	if len(xs) < 2 {
		return c.Mean, math.NaN()
	}
	return c.Mean, c.Std
}

// SweepSummary says in a few lines what a sweep trained, instead of a line per fit (the
// tables and figures hold the results): how many models, the range of best epochs, how
// many fits stopped by patience before the cap of maxEpochs, how many met an empty stratum
// or a floored normaliser in some batch, and the files written (relative to the notebook).
func SweepSummary(out *experiments.Outcome, rc experiments.RunConfig, maxEpochs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d models trained (methods %v × λ %v × seeds %v; none once per seed)\n", len(out.Fits), rc.Methods, rc.Lambdas, rc.Seeds)
	if len(out.Fits) > 0 {
		first, last, empty, floored, byPatience := out.Fits[0].BestEpoch, out.Fits[0].BestEpoch, 0, 0, 0
		for _, f := range out.Fits {
			first, last = min(first, f.BestEpoch), max(last, f.BestEpoch)
			if f.Epochs < maxEpochs {
				byPatience++
			}
			if f.EmptyStrata > 0 {
				empty++
			}
			if f.FlooredNorm > 0 {
				floored++
			}
		}
		fmt.Fprintf(&b, "best epochs %d to %d; %d of %d fits stopped by patience, %d ran to the cap of %d epochs\n",
			first, last, byPatience, len(out.Fits), len(out.Fits)-byPatience, maxEpochs)
		fmt.Fprintf(&b, "fits with an empty stratum in some batch: %d; with a floored normaliser: %d\n", empty, floored)
	}
	files := make([]string, len(out.Files))
	for i, f := range out.Files {
		files[i] = relTo(os.Getenv("GONB_DIR"), f)
	}
	fmt.Fprintf(&b, "tables: %s\n", strings.Join(files, ", "))
	return b.String()
}

// NotesMarkdown renders notes as a Markdown list under a bold heading, e.g. an experiment's
// Notes under "Where the set-up differs from the paper".
func NotesMarkdown(heading string, notes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n", heading)
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	return b.String()
}

// TableMarkdown renders summaries as the paper's table (results.WriteMarkdownWith), with
// the paper's numbers for λ when exp has them and exp's note on what tr mmd is. An
// experiment whose tables show more (the majority baseline, the paper's numbers as
// differences from none) takes TableMarkdownWith.
func TableMarkdown(title string, exp experiments.Experiment, lambda float64, sums []results.Summary) string {
	return TableMarkdownWith(title, exp, lambda, sums, results.TableExtras{})
}

// TableMarkdownWith is TableMarkdown with the extras of a run's tables (Run.Extras): the
// test split's majority baseline and, for a paper on another dataset, the comparison as
// differences from none.
func TableMarkdownWith(title string, exp experiments.Experiment, lambda float64, sums []results.Summary, ex results.TableExtras) string {
	var b strings.Builder
	if err := results.WriteMarkdownWith(&b, title, sums, exp.Paper[lambda], exp.TrMMDNote(), ex); err != nil {
		panic(err)
	}
	return b.String()
}

// Table is a results table of one λ, summarised over seeds.
type Table struct {
	Lambda float64
	Sums   []results.Summary
}

// ShowCommitted shows the committed paper-size tables of exp (figures/tables/, written by
// go run ./cmd/invmmd all) for each λ, next to the paper's numbers but without the notes
// (the run's own table cell shows those once), and returns the tables it found, in the order
// of lambdas; a table not generated yet is said so and left out.
func (r *Run) ShowCommitted(exp experiments.Experiment, lambdas ...float64) []Table {
	var found []Table
	for _, l := range lambdas {
		sums, ok := r.Committed(exp.Name, l)
		file := exp.Name + "_lambda" + results.LambdaName(l) + ".csv"
		if !ok {
			fmt.Printf("figures/tables/%s: not generated yet (go run ./cmd/invmmd %s writes it)\n", file, exp.Name)
			continue
		}
		found = append(found, Table{Lambda: l, Sums: sums})
		ex := r.CommittedExtras(exp)
		ShowMarkdown(TableMarkdownWith(fmt.Sprintf("%s, λ = %s (paper size, committed: figures/tables/%s)", exp.Title, results.LambdaName(l), file), exp, l, sums, ex))
	}
	return found
}
