package docscheck

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/results"
)

// repSpan is the range and mean over the seeds (and methods) of one quantity of the
// representation comparison's fits.
type repSpan struct{ lo, hi, mean float64 }

// spanOf collects value over the fits of the given layer and λ whose method is in methods.
func spanOf(t *testing.T, fits []results.RepresentationFit, represent string, lambda float64, methods []string, value func(results.RepresentationFit) float64) repSpan {
	t.Helper()
	s := repSpan{lo: math.Inf(1), hi: math.Inf(-1)}
	n := 0
	for _, f := range fits {
		if f.Represent != represent || f.Lambda != lambda || !slices.Contains(methods, f.Method) {
			continue
		}
		v := value(f)
		s.lo, s.hi, s.mean = min(s.lo, v), max(s.hi, v), s.mean+v
		n++
	}
	if n == 0 {
		t.Fatalf("no %s fits of %v at λ = %g", represent, methods, lambda)
	}
	s.mean /= float64(n)
	return s
}

func (s repSpan) rng(format string) string {
	return fmt.Sprintf(format+"–"+format, s.lo, s.hi)
}

// TestRepresentationNumbers checks docs/results.md's section on the penalty on a
// representation against the committed comparison: every table line the section quotes is
// a line of representations_sim.md (which TestCommittedComparisons in invmmd/experiments
// checks against the code), and the numbers its prose gives are the ranges over the seeds
// that the files hold; and the README's glance row. A rerun that moves them fails here until
// the text follows.
func TestRepresentationNumbers(t *testing.T) {
	fits, err := experiments.RepresentationFits(tables, "sim")
	if err != nil {
		t.Fatal(err)
	}
	md := experiments.RepresentationMarkdown("sim", fits)
	sec := section(t, resultsMD, "## The penalty on a representation")
	quoted := 0
	for _, line := range strings.Split(sec, "\n") {
		if strings.HasPrefix(line, "|") {
			quoted++
			if !slices.Contains(strings.Split(md, "\n"), line) {
				t.Errorf("docs/results.md quotes a table line that representations_sim.md does not hold:\n%s", line)
			}
		}
	}
	if quoted < 12 {
		t.Errorf("docs/results.md's section quotes %d table lines of representations_sim.md, want its three tables (at least 12)", quoted)
	}

	teAcc := func(f results.RepresentationFit) float64 { return f.TeAcc }
	logit := func(f results.RepresentationFit) float64 { return f.LogitMMD }
	feat := func(f results.RepresentationFit) float64 { return f.TrMMD }
	penalised := []string{"obs", "full", "dr", "reg"}
	missing := []string{"full", "dr", "reg"}
	none := []string{"none"}
	sp := func(rep string, lambda float64, methods []string, value func(results.RepresentationFit) float64) repSpan {
		return spanOf(t, fits, rep, lambda, methods, value)
	}
	obsAcc := sp("features", 1, []string{"obs"}, teAcc)
	var others []float64
	for _, m := range missing {
		others = append(others, sp("features", 1, []string{m}, teAcc).mean)
	}
	if obsAcc.mean <= slices.Max(others) {
		t.Errorf("obs's mean test accuracy at features, λ = 1 (%.3f) is not the highest of the four (others' means %v)", obsAcc.mean, others)
	}

	// The fits at the epoch cap: their best epochs (from the configuration record) and
	// whether their numbers lie within those of the penalised fits that stopped by patience.
	var rec struct {
		Fits []struct {
			Method  string
			Lambda  float64
			Seed    uint64
			History struct {
				BestEpoch  int
				Bandwidth  float64
				StopReason string
				MaxEpochs  int
			}
		}
	}
	readJSON(t, "sim_feat_config.json", &rec)
	bestLo, bestHi, nCapped, maxEpochs := math.MaxInt, 0, 0, 0
	var cappedWho []string
	for _, f := range rec.Fits {
		if f.History.StopReason == "max-epochs" {
			if f.Lambda != 1 {
				t.Errorf("%s, λ = %g, seed %d reached the cap: the documents say only λ = 1 fits did", f.Method, f.Lambda, f.Seed)
			}
			nCapped++
			bestLo, bestHi, maxEpochs = min(bestLo, f.History.BestEpoch), max(bestHi, f.History.BestEpoch), f.History.MaxEpochs
			cappedWho = append(cappedWho, fmt.Sprintf("%s %d", f.Method, f.Seed))
		}
	}
	var capped, stopped []results.RepresentationFit
	for _, f := range fits {
		if f.Represent == "features" && f.Lambda == 1 && f.Method != "none" {
			if f.Capped {
				capped = append(capped, f)
			} else {
				stopped = append(stopped, f)
			}
		}
	}
	if len(capped) != nCapped || nCapped == 0 {
		t.Fatalf("%d capped fits in the comparison, %d in the record", len(capped), nCapped)
	}
	for _, f := range capped {
		for _, v := range []struct {
			what  string
			value func(results.RepresentationFit) float64
		}{{"test accuracy", teAcc}, {"logit MMD²", logit}} {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, g := range stopped {
				lo, hi = min(lo, v.value(g)), max(hi, v.value(g))
			}
			if x := v.value(f); x < lo || x > hi {
				t.Errorf("capped fit %s seed %d: %s %.3f outside the stopped fits' %.3f–%.3f", f.Method, f.Seed, v.what, x, lo, hi)
			}
		}
	}

	// The order obs < dr < full, reg in mean test accuracy, for the features at λ = 100
	// and for the logit at λ = 5; and the logit MMD² of the features' fits at λ = 100 above
	// the logit penalty's at λ = 5, method by method.
	var logit5Means []float64
	for _, c := range []struct {
		rep    string
		lambda float64
	}{{"features", 100}, {"logit", 5}} {
		mean := func(m string) float64 { return sp(c.rep, c.lambda, []string{m}, teAcc).mean }
		if !(mean("obs") < mean("dr") && mean("dr") < min(mean("full"), mean("reg"))) {
			t.Errorf("%s, λ = %g: test accuracy is not obs < dr < full, reg", c.rep, c.lambda)
		}
	}
	for _, m := range missing {
		logit5Means = append(logit5Means, math.Round(1000*sp("logit", 5, []string{m}, logit).mean)/1000)
		if sp("features", 100, []string{m}, logit).mean <= sp("logit", 5, []string{m}, logit).mean {
			t.Errorf("%s's logit MMD² at features, λ = 100 is below the logit penalty's at λ = 5", m)
		}
	}
	obsFeat := sp("features", 1, []string{"obs"}, feat).mean
	for _, m := range missing {
		if x := sp("features", 1, []string{m}, feat).mean; x >= obsFeat {
			t.Errorf("obs's features MMD² at λ = 1 (%.3f) is not above %s's (%.3f), as docs/results.md says", obsFeat, m, x)
		}
	}
	sigLo, sigHi := math.Inf(1), math.Inf(-1)
	for _, f := range rec.Fits {
		sigLo, sigHi = min(sigLo, f.History.Bandwidth), max(sigHi, f.History.Bandwidth)
	}

	wants := []string{
		fmt.Sprintf("their MMD² falls from none's %s to %s", sp("features", 1, none, feat).rng("%.2f"), sp("features", 1, penalised, feat).rng("%.3f")),
		fmt.Sprintf("the logit's MMD² stays at %s, none's at %s, and test accuracy at %s, none's at %s",
			sp("features", 1, penalised, logit).rng("%.2f"), sp("features", 1, none, logit).rng("%.2f"),
			sp("features", 1, penalised, teAcc).rng("%.2f"), sp("features", 1, none, teAcc).rng("%.2f")),
		fmt.Sprintf("full, dr and reg on the logit at λ = 1 bring its MMD² to %s and test accuracy to %s",
			sp("logit", 1, missing, logit).rng("%.3f"), sp("logit", 1, missing, teAcc).rng("%.2f")),
		fmt.Sprintf("obs is the best of the four here (%.3f against %.3f–%.3f)", obsAcc.mean, slices.Min(others), slices.Max(others)),
		fmt.Sprintf("At λ = 100 the paper's pattern returns:** full, dr and reg reach test accuracy %s and obs, which measures dependence on the biased observed rows, %s",
			sp("features", 100, missing, teAcc).rng("%.2f"), sp("features", 100, []string{"obs"}, teAcc).rng("%.2f")),
		fmt.Sprintf("obs < dr < full, reg, as with the logit penalty at λ = 5 (obs %.3f, full %.3f, dr %.3f, reg %.3f)",
			sp("logit", 5, []string{"obs"}, teAcc).mean, sp("logit", 5, []string{"full"}, teAcc).mean, sp("logit", 5, []string{"dr"}, teAcc).mean, sp("logit", 5, []string{"reg"}, teAcc).mean),
		fmt.Sprintf("under the logit penalty at λ = 5 (means %s to %s): means %.3f (full), %.3f (dr) and %.3f (reg, whose seeds reach %.3f)",
			minus(slices.Min(logit5Means), 3), minus(slices.Max(logit5Means), 3),
			sp("features", 100, []string{"full"}, logit).mean, sp("features", 100, []string{"dr"}, logit).mean, sp("features", 100, []string{"reg"}, logit).mean,
			sp("features", 100, []string{"reg"}, logit).hi),
		fmt.Sprintf("σ by the median heuristic on the initial network's training features (%.1f–%.1f over the five seeds)", sigLo, sigHi),
		fmt.Sprintf("Their test accuracies and logit MMD² lie within those of the %d that stopped by patience", len(stopped)),
		fmt.Sprintf("(none's %.2f against its logit's %.2f)", sp("features", 1, none, feat).mean, sp("features", 1, none, logit).mean),
		fmt.Sprintf("%d of the %d penalised fits at λ = 1 (%s) reached the %d-epoch cap, their best epochs %d–%d",
			nCapped, len(capped)+len(stopped), strings.Join(cappedWho, ", "), maxEpochs, bestLo, bestHi),
	}
	one := strings.Join(strings.Fields(sec), " ")
	for _, w := range wants {
		if !strings.Contains(one, w) {
			t.Errorf("docs/results.md's section does not say, as the committed files give:\n%s", w)
		}
	}
	glance, _, _ := between(t, readme, "glance")
	for _, w := range []string{
		fmt.Sprintf("on the features at λ = 1: %s (on the logit: %s); at λ = 100 full, dr, reg %s",
			sp("features", 1, penalised, teAcc).rng("%.2f"), sp("logit", 1, missing, teAcc).rng("%.2f"), sp("features", 100, missing, teAcc).rng("%.2f")),
	} {
		if !strings.Contains(oneLine(glance), w) {
			t.Errorf("README.md's glance table does not say, as the committed files give:\n%s", w)
		}
	}
}
