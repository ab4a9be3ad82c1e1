package owndata

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/results"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// TestConfig is one run of Test: EstimateConfig's settings (the columns, where G and m
// come from, the methods whose pseudo-outcomes are tested) and the test's route.
// DefaultTestConfig gives the defaults of invmmd test; set at least Data (Test), Y, Z and H.
type TestConfig struct {
	EstimateConfig
	Route invmmd.TestRoute "flag:\"route\" help:\"null distribution: cross, wild or permutation (see above)\"" // how the null distribution is obtained
	// Resamples are the draws of the wild bootstrap or the permutation test; the cross
	// route draws none. 0 means invmmd.DefaultResamples; fewer than invmmd.MinResamples or
	// more than invmmd.MaxResamples are refused, whatever the route.
	Resamples int    "flag:\"B\" help:\"`N` draws of the wild bootstrap or the permutation test (100 to 100000)\""
	Seed      uint64 "flag:\"seeds\" help:\"`seed` of the halves and the draws (one)\""
}

// DefaultTestConfig returns the defaults of invmmd test: the cross route, the median
// heuristic bandwidth, h ⊥ Z | Y, invmmd.DefaultResamples draws (for the other routes),
// seed 1, the methods chosen once the table is read, and DefaultNets for G and m.
func DefaultTestConfig() TestConfig {
	ec := DefaultEstimateConfig()
	ec.Methods = nil
	return TestConfig{EstimateConfig: ec, Route: invmmd.CrossRoute, Resamples: invmmd.DefaultResamples, Seed: 1}
}

// defaultTestMethods returns the methods Test uses when none are named: full when no Z is
// missing (the test on the complete data); otherwise dr, ip and reg — dr's p-value needs G
// or m to be right, ip's G, reg's m, so agreement between them is a check on the fitted
// nuisances — except on the permutation route, valid only for full and obs, where obs.
func defaultTestMethods(zComplete bool, route invmmd.TestRoute) []method.Method {
	switch {
	case zComplete:
		return []method.Method{method.Full}
	case route == invmmd.PermutationRoute:
		return []method.Method{method.Obs}
	}
	return []method.Method{method.DR}
}

// Validate checks every setting that can be checked before the table is read (Data
// included, which Test reads): those of EstimateConfig.Validate, the route (the cross
// route for several h columns), the resamples, and that the permutation route is asked
// only of full and obs. It returns a *FieldError.
func (c TestConfig) Validate() error { return c.validate(true) }

func (c TestConfig) validate(needData bool) error {
	if c.Route < invmmd.CrossRoute || c.Route > invmmd.PermutationRoute {
		return fieldError("Route", c.Route, "want cross, wild or permutation")
	}
	if c.Resamples != 0 && (c.Resamples < invmmd.MinResamples || c.Resamples > invmmd.MaxResamples) {
		return fieldError("Resamples", c.Resamples, "want %d to %d resamples (fewer give p-values too coarse to compare with α = 0.05; each costs a pass over the rows)", invmmd.MinResamples, invmmd.MaxResamples)
	}
	if hc := hColumns(c.H); len(hc) > 1 && c.Route != invmmd.CrossRoute {
		return fieldError("Route", c.Route, "%s %s is a representation of %d columns, which takes the cross route (the %v route expands the kernel of one column)", c.name("H"), c.H, len(hc), c.Route)
	}
	if c.Route == invmmd.PermutationRoute {
		for _, m := range c.Methods {
			if m != method.Full && m != method.Obs {
				return fieldError("Methods", method.List(c.Methods), "the permutation route is valid only for full and obs (permuting the pseudo-outcome of %v breaks its link to G and m); use the cross or wild route", m)
			}
		}
	}
	ec := c.EstimateConfig
	if ec.Methods == nil {
		ec.Methods = []method.Method{method.Obs} // the defaults are chosen once the table is read
	}
	return ec.validate(needData)
}

// Tests are the invariance tests of model outputs (a column, or several: one
// representation), with what they rest on.
type Tests struct {
	Basis
	// Tested are the rows the tests used: every row, or half A when G or m was fitted
	// on half B and the route is wild or permutation.
	Tested int
	Route  invmmd.TestRoute
	// HalfA and HalfB are the rows of the halves when G or m was fitted (the cross route's
	// halves; with Folds = 1 also the rows tested, A, and fitted on, B); 0 otherwise.
	HalfA, HalfB int
	Results      []invmmd.TestResult
	// Failed lists the methods whose test could not be made (a warning says why).
	Failed []method.Method
	inA    []bool // the halves (true: A), when G or m was fitted
}

// Test runs invmmd test on the CSV file cfg.Data: it validates cfg, reads the columns it
// names (stopping once ctx is done) and tests as TestTable does.
func Test(ctx context.Context, cfg TestConfig) (*Tests, error) {
	if err := cfg.validate(true); err != nil {
		return nil, err
	}
	tab, err := cfg.readCSV(ctx)
	if err != nil {
		return nil, err
	}
	return TestTable(ctx, tab, cfg)
}

// TestTable runs invmmd test on the table tab, held in memory (tabular.NewTable) or read
// already (cfg.Data is not read), exactly as the command does on a file: it tests H₀:
// h ⊥ Z | Y (or h ⊥ Z with Unconditional) by each method's pseudo-outcome of Z
// (invmmd.InvarianceTest). h may be one column or several (a representation, with the
// kernel on its rows); several take the cross route only. A study that simulates a table
// many times (a calibration of the test) calls it once per table.
//
// The p-values are valid only if G and m were not fitted on the rows tested. Columns G
// and M are taken to have been fitted on other rows; G and m fitted here are cross-fitted
// (crossfit.go), or with Folds = 1 fitted on half B (a random half of each (Y, Δ) cell,
// seeded by Seed; 80% of B to fit, 20% to stop), and the wild and permutation routes then
// test half A only. The cross route's halves are these (witness on B, statistic over A).
// Every check comes before any fitting; once ctx is done it stops within moments with an
// error wrapping ctx's.
func TestTable(ctx context.Context, tab *tabular.Table, cfg TestConfig) (*Tests, error) {
	if err := cfg.validate(false); err != nil {
		return nil, err
	}
	log := orDiscard(cfg.Log)
	warn := &warner{w: cfg.Warn}
	ec := cfg.EstimateConfig
	l, err := ec.load(tab, log)
	if err != nil {
		return nil, err
	}
	rows, h := l.rows, l.rep
	if _, err := bandwidthOf(h, cfg.Bandwidth, cfg.Median); err != nil && !cfg.Median {
		return nil, err // a σ too small for h, refused before any fitting
	}
	if ec.Methods == nil {
		ec.Methods = defaultTestMethods(rows.MissingZ() == 0, cfg.Route)
		if err := ec.validate(false); err != nil {
			return nil, fmt.Errorf("the default methods (%s): %w", method.List(ec.Methods), err)
		}
	}
	out := &Tests{Basis: l.basis(tab, ec), Tested: tab.Len(), Route: cfg.Route}
	opts := invmmd.TestOptions{Options: invmmd.Options{Median: cfg.Median, Unconditional: cfg.Unconditional, Sums: summerFor(cfg.Exact)}, Route: cfg.Route, Resamples: cfg.Resamples, Seed: cfg.Seed}
	if len(l.classes) > 2 {
		opts.Classes = len(l.classes)
	}
	if !cfg.Median {
		opts.Bandwidth = cfg.Bandwidth
	}
	fitted, fitHere := out.FittedG || out.FittedM, (out.FittedG || out.FittedM) && cfg.Nuisances == nil
	if fitted {
		out.inA = invmmd.Halves(invmmd.Rows{Y: rows.Y, Delta: rows.Delta}, false, cfg.Seed)
		for _, in := range out.inA {
			if in {
				out.HalfA++
			} else {
				out.HalfB++
			}
		}
		if cfg.Route == invmmd.CrossRoute {
			opts.InA = out.inA
		}
	}
	sampleSplit := fitHere && ec.folds() == 1 // G and m fitted on half B, half A tested
	if sampleSplit {
		fmt.Fprintf(log, "halves: A %d rows (tested), B %d rows (G and m fitted on them only)\n", out.HalfA, out.HalfB)
	}
	if err := l.nuisances(ctx, ec, out.inA, &rows, &out.Basis, warn); err != nil {
		if fitHere {
			err = fmt.Errorf("fitting G and m: %w", err)
		}
		return nil, err
	}
	if sampleSplit && cfg.Route != invmmd.CrossRoute {
		rows, h = keepRows(rows, h, out.inA)
		out.Tested = out.HalfA
	}
	if out.Results, err = invmmd.InvarianceTest(ctx, h, rows, opts, ec.Methods...); err != nil {
		if len(ec.Methods) == 1 || ctx.Err() != nil {
			return nil, err
		}
		// One method's test failed (its pseudo-outcome constant, say): test each alone, so
		// that the others' p-values are given and the failure is named.
		out.Results = nil
		for _, m := range ec.Methods {
			res, err := invmmd.InvarianceTest(ctx, h, rows, opts, m)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				warn.add(fmt.Sprintf("%v has no p-value: %v", m, err))
				out.Failed = append(out.Failed, m)
				continue
			}
			out.Results = append(out.Results, res...)
		}
		if len(out.Results) == 0 {
			return nil, fmt.Errorf("no method's test could be made: %w", err)
		}
	}
	for k := range out.Results {
		r := &out.Results[k]
		r.Unreliable = append(r.Unreliable, out.TestCaveats(r.Method)...)
	}
	for _, r := range out.Results {
		if len(r.Unreliable) > 0 {
			warn.add(fmt.Sprintf("%v: the p-value may not be trusted: %s", r.Method, classText(strings.Join(r.Unreliable, "; "), l.classes)))
		}
		if r.Method == method.Obs && out.MissingZ > 0 {
			warn.add("obs: its p-value is valid only when whether Z is missing does not depend on X given Y; where it does, the observed rows carry a dependence between h and Z that the full data lacks, and the test rejects a true H₀ too often (use dr)")
		}
	}
	out.Warnings = warn.all
	return out, nil
}

// splitFit splits the rows of half B into 80% on which G and m are fitted and 20% on
// which their training stops early, at random (seeded by seed), each part sorted.
func splitFit(b []int, seed uint64) (fit, stop []int) {
	perm := slices.Clone(b)
	rand.New(rand.NewPCG(seed, 0xb1a5)).Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	n := int(math.Round(testAuxValFrac * float64(len(perm))))
	stop, fit = slices.Sorted(slices.Values(perm[:n])), slices.Sorted(slices.Values(perm[n:]))
	return fit, stop
}

// testAuxValFrac is the share of half B on which Test stops the training of G and m early.
const testAuxValFrac = 0.2

// meaning says in a few lines what the p-values are and what they assume.
func (t *Tests) meaning() string {
	h0 := "h ⊥ Z | Y (within each Y stratum)"
	if t.Unconditional {
		h0 = "h ⊥ Z (over all rows)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "p-value: the probability under H₀: %s of a statistic at least this large; small values are evidence that h depends on Z.\n", h0)
	fmt.Fprintln(&b, "It assumes Z is missing at random given (X, Y) and positivity (G = P(Δ = 1 | X, Y) > 0), with h a function of X;")
	fmt.Fprintln(&b, "ip's needs Ĝ right, reg's m̂ right, dr's either; obs's is valid only when missingness does not depend on X given Y.")
	switch {
	case t.FittedG || t.FittedM:
		what := "G and m were"
		if !t.FittedG {
			what = "m was"
		} else if !t.FittedM {
			what = "G was"
		}
		if t.Folds > 1 {
			fmt.Fprintf(&b, "%s cross-fitted on %d folds: every row's pseudo-outcome comes from the models fitted on the other folds", what, t.Folds)
			if t.Route == invmmd.CrossRoute {
				fmt.Fprintf(&b, "; the cross statistic sums over half A (%d rows) with the witness built on half B (%d).\n", t.HalfA, t.HalfB)
			} else {
				fmt.Fprintf(&b, "; the %v test ran on every row.\n", t.Route)
			}
		} else {
			fmt.Fprintf(&b, "%s fitted on half B (%d rows) only", what, t.HalfB)
			if t.Route == invmmd.CrossRoute {
				fmt.Fprintf(&b, "; the cross statistic sums over half A (%d rows) with the witness built on B.\n", t.HalfA)
			} else {
				fmt.Fprintf(&b, "; the %v test ran on half A only (%d rows): the rows of B only fit the nuisances.\n", t.Route, t.HalfA)
			}
		}
		if t.FittedG != t.FittedM {
			fmt.Fprintln(&b, "The column given (of G or m) is assumed to have been fitted on rows other than these.")
		}
	case slices.ContainsFunc(t.Results, func(r invmmd.TestResult) bool { return r.Method.NeedsG() || r.Method.NeedsM() }): // a method read Ĝ or m̂
		fmt.Fprintln(&b, "The columns of G and m are assumed to have been fitted on rows other than these: fitted on the same rows, the p-values are not valid.")
	}
	return b.String()
}

// strataText renders a result's rows per stratum: "Y=0: 480/470" (halves A/B, cross) or
// "Y=0: 950"; the strata of a K-class label by their classes' names.
func strataText(r invmmd.TestResult, classes []string) string {
	var parts []string
	for _, s := range r.Strata {
		name := stratumName(s.Y, math.IsNaN(s.Y), classes)
		if r.Route == invmmd.CrossRoute {
			parts = append(parts, fmt.Sprintf("%s: %d/%d", name, s.Rows[0], s.Rows[1]))
		} else {
			parts = append(parts, fmt.Sprintf("%s: %d", name, s.Rows[0]))
		}
	}
	return strings.Join(parts, ", ")
}

// Markdown renders the tests as invmmd test prints them: what was tested, a table of each
// method's statistic and p-value with the rows it rests on, why it may be unreliable and
// what it assumes, then what the p-values mean.
func (t *Tests) Markdown() string {
	var b strings.Builder
	h0 := "H₀: h ⊥ Z | Y"
	if t.Unconditional {
		h0 = "H₀: h ⊥ Z over all rows"
	}
	kernel := "Gaussian kernel on h"
	if len(t.Results) > 0 {
		kernel = fmt.Sprintf("Gaussian kernel on h σ = %.4g", t.Results[0].Sigma)
		if t.Median {
			kernel += " (the median heuristic on h"
			if t.Route == invmmd.CrossRoute {
				kernel += ", on half B"
			}
			kernel += ")"
		}
		if t.Route == invmmd.CrossRoute {
			kernel += fmt.Sprintf(", kernel sums %v", t.Results[0].Path)
		}
	}
	if t.ZMap != nil {
		kernel += "; kernel on Z: " + t.ZMap.Describe()
	}
	route := "cross route: studentised cross statistic T between halves A and B, standard normal under H₀, p = 1 − Φ(T)"
	rowsHead := "rows with a pseudo-outcome, A/B"
	switch t.Route {
	case invmmd.WildRoute:
		route = "wild route: doubly centred V-statistic W against its wild bootstrap"
		rowsHead = "rows with a pseudo-outcome"
	case invmmd.PermutationRoute:
		route = "permutation route: doubly centred V-statistic W against permutations of Z within strata"
		rowsHead = "rows with a pseudo-outcome"
	}
	if len(t.Results) > 0 && t.Results[0].Resamples > 0 {
		route += fmt.Sprintf(", %d draws", t.Results[0].Resamples)
	}
	fmt.Fprintf(&b, "\n%s, %d of %d rows used (%d with Z missing in the table); %s; %s\n\n", h0, t.Tested, t.Rows, t.MissingZ, route, kernel)
	fmt.Fprintf(&b, "| method | statistic | p-value | %s | unreliable | p-value assumes |\n", rowsHead)
	fmt.Fprintln(&b, "|---|---|---|---|---|---|")
	for _, r := range t.Results {
		u := "none"
		if len(r.Unreliable) > 0 {
			u = classText(strings.Join(r.Unreliable, "; "), t.Classes)
		}
		fmt.Fprintf(&b, "| %v | %.4g | %.4g | %s | %s | %s |\n", r.Method, r.Statistic, r.PValue, strataText(r, t.Classes), u, r.Method.Info().TestAssumes)
	}
	fmt.Fprintf(&b, "\n%s", t.meaning())
	return b.String()
}

// CSV writes one row per method, with the header method,statistic,p_value,unreliable: the
// statistic, the p-value, and the reasons the p-value may not be trusted separated by
// "; " (empty when none). Values are written with strconv's shortest round-trip form.
func (t *Tests) CSV(w io.Writer) error {
	return results.WriteRecords(w, []string{"method", "statistic", "p_value", "unreliable"}, t.Results, func(r invmmd.TestResult) []string {
		return []string{r.Method.String(), strconv.FormatFloat(r.Statistic, 'g', -1, 64), strconv.FormatFloat(r.PValue, 'g', -1, 64), classText(strings.Join(r.Unreliable, "; "), t.Classes)}
	})
}
