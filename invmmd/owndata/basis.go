package owndata

import (
	"math"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
)

// Basis is what Estimates and Tests rest on: the table, its label's classes, the nuisance
// and its kernel, the kernel's σ rule on h, and where G and m came from (Provenance).
type Basis struct {
	File string
	Rows int // rows of the table
	// Classes names the label's K > 2 classes (Table.LabelClasses), each one stratum; nil
	// for a binary label.
	Classes       []string
	Unconditional bool
	Median        bool // σ by the median heuristic on h
	// Nuisance is Z's kind (and levels), KindWhy how the kind was decided, and ZMap the
	// kernel on a nuisance that is not binary (nil for a binary Z), whose estimand is the
	// joint MMD² between p(h, Z) and p(h)p(Z).
	Nuisance dataset.Nuisance
	KindWhy  string
	ZMap     invmmd.FeatureMap
	Provenance
	// AuxFit is how the fitted G and m fit and how their training ended (zero when
	// neither was fitted).
	AuxFit   AuxReport
	Warnings []string
}

// Provenance is where the estimates' and tests' nuisances came from: whether Z is missing
// on some row, whether G and m were fitted by the tool (not read from columns) and on how
// many folds. Every caveat and withheld standard error is read from it, by the rules the
// method table states (method.Info's TestCaveat, CaveatIfFitted and SEWithheld) and the
// two of the cross-fitting (FewFoldsCaveat, ConservativeSENote).
type Provenance struct {
	MissingZ int  // rows with Z missing
	FittedG  bool // Ĝ came from an MLP fitted on X (cross-fitted, or on half B), not from a column
	FittedM  bool // m̂ likewise
	// Folds is how G and m were fitted (when fitted): cross-fitted on Folds folds, or on
	// half B (Folds = 1).
	Folds int
}

// fitted reports whether method m reads a G or m that the tool fitted.
func (p Provenance) fitted(m method.Method) bool {
	return p.FittedG && m.NeedsG() || p.FittedM && m.NeedsM()
}

// fewFolds reports whether m reads a G or m fitted on fewer than DefaultFolds folds.
func (p Provenance) fewFolds(m method.Method) bool { return p.Folds < DefaultFolds && p.fitted(m) }

// FewFoldsCaveat marks a p-value whose G or m were fitted on fewer than DefaultFolds
// folds (-folds 1 or 2: each model on at most half the rows), and withholds an estimate's
// standard error likewise: the calibration study (figures/tables/calibration_tool.md)
// found dr's test rejecting a true H₀ about twice as often as α then, where 5 folds held
// it, so the nuisances' error is not negligible on half the rows.
const FewFoldsCaveat = "G and m were fitted on fewer than 5 folds, at most half the rows each: the calibration study found dr's test rejecting a true H₀ too often then; fit them on 5 folds or more"

// SEWithheld says why the standard error of method m's estimate is not printed, or "":
// with Z missing, FewFoldsCaveat where m reads a G or m fitted on fewer than DefaultFolds
// folds (the study measured 5 folds), else the method's own reason (method.Info.SEWithheld:
// reg's jackknife leaves out m̂'s error). The estimate itself is printed.
func (p Provenance) SEWithheld(m method.Method) string {
	switch {
	case p.MissingZ == 0:
		return ""
	case p.fewFolds(m):
		return FewFoldsCaveat
	}
	return m.Info().SEWithheld
}

// ConservativeSENote flags a printed standard error that overstates the spread of its
// estimate: that of a method reading a fitted G or m (ip, dr) whose estimate lies within
// two standard errors of 0. There, where h may be independent of Z given Y and the
// estimate is a degenerate U-statistic, the calibration of the commands
// (figures/tables/calibration_tool.md) found the jackknife's standard error larger than the
// spread of the estimates beyond the band it holds under dependence, growing from n = 1000
// to 3000 (with the true G and m the jackknife's second-order correction holds it:
// invmmd's TestJackknifeSE). The standard error is printed,
// flagged, since it errs on the safe side; whether the MMD² is 0 is invmmd test's question.
const ConservativeSENote = "the estimate is within two standard errors of 0, where, with G and m fitted, the jackknife's standard error overstates its spread (the calibration of the commands): read it as an upper bound, and ask invmmd test whether the MMD² is 0"

// SEConservative says whether r's standard error is printed with ConservativeSENote: Z is
// missing, r's method reads a fitted G or m, its standard error is printed, and its
// estimate is within two of them of 0.
func (p Provenance) SEConservative(r invmmd.Result) bool {
	if p.MissingZ == 0 || math.IsNaN(r.ValueSE) || !p.fitted(r.Method) {
		return false
	}
	return math.Abs(r.Value) < 2*r.ValueSE
}

// TestCaveats are why method m's p-value is marked unreliable, where the test is not
// shown valid (none without missing Z): FewFoldsCaveat when m reads a G or m fitted on
// fewer than DefaultFolds folds, and the method's TestCaveat (obs whenever Z is missing,
// reg with m fitted or given: any estimate of m, not the truth; ip only with G fitted, a
// given column being taken for the truth, as ip assumes and TestAssumes says). The caveats
// are in the Markdown table and the CSV's unreliable column, never silent.
func (p Provenance) TestCaveats(m method.Method) []string {
	if p.MissingZ == 0 {
		return nil
	}
	var out []string
	if p.fewFolds(m) {
		out = append(out, FewFoldsCaveat)
	}
	info := m.Info()
	if info.TestCaveat != "" && !(info.CaveatIfFitted && !p.fitted(m)) {
		out = append(out, info.TestCaveat)
	}
	return out
}
