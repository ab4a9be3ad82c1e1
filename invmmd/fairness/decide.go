package fairness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// The evaluation protocol of a mitigation: a model's scores on complete held-out rows made
// into decisions at a chosen selection rate (ties broken at random, seeded) and at the
// threshold 0.5, each measured by accuracy, balanced accuracy, AUC and each group's rates,
// and its equalized_odds_difference set against the gap a random ranking at the same rate
// shows on the same rows (the test set's own noise). Decisions at a fixed rate compare
// models on equal terms: at 0.5 a model can lower its gap by selecting almost everyone,
// which the flags say.

// Protocol defaults.
const (
	// DefaultNoiseDraws is the number of random rankings whose gaps give the noise.
	DefaultNoiseDraws = 200
	// LowAUC flags a model whose AUC is below it: its ranking is little better than chance,
	// so a small gap says little.
	LowAUC = 0.55
	// CollapseShare flags decisions whose rarer class is below this share of the rows:
	// (about) one decision for everyone, whose rates are equal by construction.
	CollapseShare = 0.01
)

// DecisionOptions are the settings of EvaluateScores.
type DecisionOptions struct {
	// Rate is the share of rows selected (decision 1) by the rate rule, in (0, 1): the
	// training prevalence is the usual choice.
	Rate float64
	// Seed seeds the tie-breaking and the random rankings of the noise.
	Seed uint64
	// Draws is the number of random rankings of the noise; 0 means DefaultNoiseDraws.
	Draws int
}

// GroupDecisions are one group's numbers under a decision rule.
type GroupDecisions struct {
	Group        int
	N, Positives int
	AUC          float64 // NaN when the group has one class only
	Selection    float64
	TPR, FPR     float64
	BalancedAcc  float64
	Accuracy     float64
}

// Decisions are the numbers of one decision rule on the rows: overall, by group, the gap
// with its noise, and the flags.
type Decisions struct {
	Rule        string // "rate 0.250" or "threshold 0.5"
	Selection   float64
	Accuracy    float64
	BalancedAcc float64
	AUC         float64
	Groups      []GroupDecisions
	// Gap is equalized_odds_difference: the larger of the TPR range and the FPR range
	// across groups.
	Gap float64
	// NoiseMean, NoiseSD and Noise95 are the mean, standard deviation and 95th percentile
	// of the gap of a random ranking selecting the same number of rows.
	NoiseMean, NoiseSD, Noise95 float64
	// WithinNoise: Gap ≤ Noise95, a gap a random ranking reaches one time in twenty.
	WithinNoise bool
	// Collapsed: the rarer decision is below CollapseShare of the rows.
	Collapsed bool
	// LowAUC: the AUC is below LowAUC.
	LowAUC bool
}

// Flags renders the flags: "collapsed", "AUC<0.55", "gap within noise", joined by "; ".
func (d Decisions) Flags() string {
	var f []string
	if d.Collapsed {
		f = append(f, "collapsed")
	}
	if d.LowAUC {
		f = append(f, fmt.Sprintf("AUC<%.2f", LowAUC))
	}
	if d.WithinNoise {
		f = append(f, "gap within noise")
	}
	return strings.Join(f, "; ")
}

// EvaluateScores evaluates scores (the probability of the positive decision) of rows with
// labels y (0/1) and complete groups z (0..K−1) by the protocol: decisions at o.Rate and
// at threshold 0.5. It fails for unequal lengths, labels not 0/1, a negative group, a rate
// outside (0, 1), a non-finite score, or a group without a positive or a negative row
// (its rates are undefined).
func EvaluateScores(scores []float64, y, z []int, o DecisionOptions) (atRate, atHalf Decisions, err error) {
	if !(o.Rate > 0 && o.Rate < 1) {
		return atRate, atHalf, fmt.Errorf("fairness: selection rate %v: want a share in (0, 1)", o.Rate)
	}
	k, err := checkRows(scores, y, z)
	if err != nil {
		return atRate, atHalf, err
	}
	n := len(scores)
	draws := o.Draws
	if draws <= 0 {
		draws = DefaultNoiseDraws
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0xdec1de))
	byRate := DecideAtRate(scores, o.Rate, rng)
	half := make([]int, n)
	for i, s := range scores {
		if s >= 0.5 {
			half[i] = 1
		}
	}
	aucs := aucs(scores, y, z, k)
	atRate = measure(fmt.Sprintf("rate %.3f", o.Rate), byRate, y, z, aucs)
	atHalf = measure("threshold 0.5", half, y, z, aucs)
	for _, r := range []struct {
		d   *Decisions
		dec []int
	}{{&atRate, byRate}, {&atHalf, half}} {
		selected := 0
		for _, v := range r.dec {
			selected += v
		}
		r.d.NoiseMean, r.d.NoiseSD, r.d.Noise95 = randomGaps(y, z, k, selected, draws, rng)
		r.d.WithinNoise = r.d.Gap <= r.d.Noise95
	}
	return atRate, atHalf, nil
}

// EvaluateOwn evaluates scores read as a randomised classifier's probabilities of a
// positive decision, Ŷ ~ Bernoulli(score) row by row: the model's own operating point,
// which Fairlearn's ExponentiatedGradient and ThresholdOptimizer constrain (their
// guarantee is for these decisions, at their own selection rate, not for a ranking of
// their probabilities at another rate). The rates are the decisions' expected ones: a
// group's TPR is its mean score over positive rows, its FPR over negative rows, the
// selection the mean score, accuracy and balanced accuracy from the expected confusion
// counts; the AUC is the scores'. The gap's noise is a random ranking selecting the
// expected share, round(selection·n) rows, drawn from o.Seed (o.Rate is not used). It
// fails as EvaluateScores does, and for a score outside [0, 1] by more than a rounding
// error (a mixture's sum of weights may reach 1 + 2e-16; such scores are clipped).
func EvaluateOwn(scores []float64, y, z []int, o DecisionOptions) (Decisions, error) {
	k, err := checkRows(scores, y, z)
	if err != nil {
		return Decisions{}, err
	}
	p := make([]float64, len(scores))
	for i, s := range scores {
		if s < -ownSlack || s > 1+ownSlack {
			return Decisions{}, fmt.Errorf("fairness: score %v of row %d: a randomised decision's probability must lie in [0, 1]", s, i)
		}
		p[i] = min(max(s, 0), 1)
	}
	scores = p
	draws := o.Draws
	if draws <= 0 {
		draws = DefaultNoiseDraws
	}
	d := measure("own: Ŷ ~ Bernoulli(score), expected rates", scores, y, z, aucs(scores, y, z, k))
	rng := rand.New(rand.NewPCG(o.Seed, 0x0e1f)) // its own stream: the other rules' draws stay as they were
	d.NoiseMean, d.NoiseSD, d.Noise95 = randomGaps(y, z, k, int(math.Round(d.Selection*float64(len(y)))), draws, rng)
	d.WithinNoise = d.Gap <= d.Noise95
	return d, nil
}

// ownSlack is the rounding error EvaluateOwn forgives a probability.
const ownSlack = 1e-9

// checkRows checks the rows EvaluateScores and EvaluateOwn read and returns the number of
// groups: equal lengths, labels 0/1, groups ≥ 0, finite scores, both labels in every group.
func checkRows(scores []float64, y, z []int) (int, error) {
	n := len(scores)
	if len(y) != n || len(z) != n {
		return 0, fmt.Errorf("fairness: %d scores, %d labels, %d groups: want one of each per row", n, len(y), len(z))
	}
	k := 0
	for i := range n {
		if y[i] != 0 && y[i] != 1 {
			return 0, fmt.Errorf("fairness: label %d of row %d: want 0 or 1", y[i], i)
		}
		if z[i] < 0 {
			return 0, fmt.Errorf("fairness: group %d of row %d: want a code ≥ 0 (every test row's attribute known)", z[i], i)
		}
		if math.IsNaN(scores[i]) || math.IsInf(scores[i], 0) {
			return 0, fmt.Errorf("fairness: score of row %d is %v", i, scores[i])
		}
		k = max(k, z[i]+1)
	}
	for g := range k {
		var pos, neg int
		for i := range n {
			if z[i] == g {
				pos += y[i]
				neg += 1 - y[i]
			}
		}
		if pos == 0 || neg == 0 {
			return 0, fmt.Errorf("fairness: group %d has %d positive and %d negative rows: its true- and false-positive rates need both", g, pos, neg)
		}
	}
	return k, nil
}

// DecideAtRate selects the round(rate·n) rows of highest score (at least one, at most
// n − 1), ties broken at random by rng: rows of equal score at the cut are selected in a
// random order, so that a constant score selects a random subset.
func DecideAtRate(scores []float64, rate float64, rng *rand.Rand) []int {
	n := len(scores)
	k := min(max(int(math.Round(rate*float64(n))), 1), n-1)
	key := make([]float64, n)
	for i := range key {
		key[i] = rng.Float64()
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if scores[i] != scores[j] {
			return scores[i] > scores[j]
		}
		return key[i] < key[j]
	})
	dec := make([]int, n)
	for _, i := range order[:k] {
		dec[i] = 1
	}
	return dec
}

// AUC is the area under the ROC curve of scores for labels y (0/1): the share of
// (positive, negative) pairs ranked in order, a tie counting one half (the Mann–Whitney
// statistic by mid-ranks). NaN without both classes.
func AUC(scores []float64, y []int) float64 {
	n := len(scores)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return scores[order[a]] < scores[order[b]] })
	var pos, neg, rankSum float64
	for i := 0; i < n; {
		j := i
		for j < n && scores[order[j]] == scores[order[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // mid-rank of ranks i+1..j
		for _, r := range order[i:j] {
			if y[r] == 1 {
				rankSum += mid
			}
		}
		i = j
	}
	for _, v := range y {
		if v == 1 {
			pos++
		} else {
			neg++
		}
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}

// aucs returns the AUC of scores over every row, then over each group's rows (k groups):
// they depend on the scores alone, so every rule of the same scores shares them.
func aucs(scores []float64, y, z []int, k int) []float64 {
	out := []float64{AUC(scores, y)}
	for g := range k {
		var gs []float64
		var gy []int
		for i := range scores {
			if z[i] == g {
				gs, gy = append(gs, scores[i]), append(gy, y[i])
			}
		}
		out = append(out, AUC(gs, gy))
	}
	return out
}

// measure computes a rule's numbers from its decisions dec: 0/1, or each row's
// probability of a positive decision (the expected rates); aucs are the scores' (aucs).
func measure[D int | float64](rule string, dec []D, y, z []int, aucs []float64) Decisions {
	d := Decisions{Rule: rule, AUC: aucs[0]}
	d.Selection, d.Accuracy, d.BalancedAcc, _, _ = decisionRates(dec, y, nil, -1)
	k := len(aucs) - 1
	tprs, fprs := make([]float64, k), make([]float64, k)
	for g := range k {
		gd := GroupDecisions{Group: g, AUC: aucs[g+1]}
		for i := range dec {
			if z[i] == g {
				gd.N++
				gd.Positives += y[i]
			}
		}
		gd.Selection, gd.Accuracy, gd.BalancedAcc, gd.TPR, gd.FPR = decisionRates(dec, y, z, g)
		tprs[g], fprs[g] = gd.TPR, gd.FPR
		d.Groups = append(d.Groups, gd)
	}
	d.Gap = eoDifference(tprs, fprs)
	rare := math.Min(d.Selection, 1-d.Selection)
	d.Collapsed = rare < CollapseShare
	d.LowAUC = d.AUC < LowAUC
	return d
}

// decisionRates returns the selection rate, accuracy, balanced accuracy, TPR and FPR of dec
// (0/1 decisions, or probabilities of a positive one: the expected rates) over the rows of
// group g (every row when z is nil).
func decisionRates[D int | float64](dec []D, y, z []int, g int) (sel, acc, bal, tpr, fpr float64) {
	var n, tp, fp, pos, neg, selected float64
	for i := range dec {
		if z != nil && z[i] != g {
			continue
		}
		n++
		selected += float64(dec[i])
		if y[i] == 1 {
			pos++
			tp += float64(dec[i])
		} else {
			neg++
			fp += float64(dec[i])
		}
	}
	tpr, fpr = tp/pos, fp/neg
	return selected / n, (tp + neg - fp) / n, (tpr + 1 - fpr) / 2, tpr, fpr
}

// eoDifference is equalized_odds_difference: the larger of the ranges of tprs and fprs.
func eoDifference(tprs, fprs []float64) float64 {
	return math.Max(slices.Max(tprs)-slices.Min(tprs), slices.Max(fprs)-slices.Min(fprs))
}

// randomGaps returns the mean, standard deviation and 95th percentile of the
// equalized_odds_difference of draws random selections of selected rows.
func randomGaps(y, z []int, k, selected, draws int, rng *rand.Rand) (mean, sd, q95 float64) {
	n := len(y)
	gaps := make([]float64, draws)
	dec := make([]int, n)
	tprs, fprs := make([]float64, k), make([]float64, k)
	for r := range draws {
		clear(dec)
		for _, i := range rng.Perm(n)[:selected] {
			dec[i] = 1
		}
		for g := range k {
			_, _, _, tprs[g], fprs[g] = decisionRates(dec, y, z, g)
		}
		gaps[r] = eoDifference(tprs, fprs)
		mean += gaps[r]
	}
	mean /= float64(draws)
	for _, g := range gaps {
		sd += (g - mean) * (g - mean)
	}
	if draws > 1 {
		sd = math.Sqrt(sd / float64(draws-1))
	}
	slices.Sort(gaps)
	q95 = gaps[min(int(math.Ceil(0.95*float64(draws)))-1, draws-1)]
	return mean, sd, q95
}
