package owndata

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/train"
)

// TrainModel trains h with method m and seed at the penalty weight lambda (the plan's
// Config.Lambda is not read), with the nuisances aux that FitNuisances fitted, and returns
// the model without Train's held-out estimates and tests: the way to fit one table's models
// over several λ sharing one fit of G and m (and one unpenalised fit, which λ does not
// move), as the mitigation study does. It stops once ctx is done, with an error wrapping
// ctx's.
func (p *Plan) TrainModel(ctx context.Context, aux *train.Aux, m method.Method, seed uint64, lambda float64) (*train.Model, error) {
	cfg := p.Config
	cfg.Lambda = lambda
	if err := cfg.validate(false); err != nil {
		return nil, err
	}
	model, _, err := trainH(ctx, cfg, p.Data.Splits, aux, m, seed, p.Data.JointScale)
	return model, err
}

// fitCount counts the networks fitted (G and m together as one; each h), so that a test
// can check that a fit over several λ fits G, m and none once.
var fitCount struct{ aux, h atomic.Int64 }

// multiLambda reports whether cfg trains over several λ (Config.Lambdas with two or more):
// every penalised method is then trained at each, none once, and the runs are named
// METHOD-lambdaL-seedS.
func (c Config) multiLambda() bool { return len(c.Lambdas) > 1 }

// checkLambdas checks Config.Lambdas: none or two or more (one λ is Lambda's), each in
// [0, MaxLambda], none twice.
func (c Config) checkLambdas() error {
	if len(c.Lambdas) == 1 {
		return fieldError("Lambdas", c.Lambdas, "one λ: set %s instead (the list is for a fit over several)", c.name("Lambda"))
	}
	for i, l := range c.Lambdas {
		if !(l >= 0 && l <= MaxLambda) {
			return fieldError("Lambdas", l, "want values from 0 to %g", MaxLambda)
		}
		if slices.Contains(c.Lambdas[:i], l) {
			return fieldError("Lambdas", l, "λ %g listed twice", l)
		}
	}
	return nil
}

// lambdaRunName is the name of a run at λ of several: METHOD-lambdaL-seedS.
func lambdaRunName(m string, lambda float64, seed uint64) string {
	return fmt.Sprintf("%s-lambda%s-seed%d", m, strconv.FormatFloat(lambda, 'g', -1, 64), seed)
}

// rowRunName is the run name of a results row: METHOD-seedS, or METHOD-lambdaL-seedS for a
// row of a fit over several λ.
func rowRunName(r Row) string {
	if r.Lambda != nil {
		return lambdaRunName(r.Method, *r.Lambda, r.Seed)
	}
	return fmt.Sprintf("%s-seed%d", r.Method, r.Seed)
}

// Label is the row's method as the results tables show it: "dr λ=5" in a fit over several
// λ, the method alone otherwise.
func (r Row) Label() string {
	if r.Lambda != nil {
		return fmt.Sprintf("%s λ=%g", r.Method, *r.Lambda)
	}
	return r.Method
}

// expandLambdas returns the runs of method m and seed s under cfg: one at Config.Lambda,
// or over several λ one per λ for a penalised method and one (λ not read) for none.
func expandLambdas(cfg Config, m method.Method, s uint64) []Run {
	if !cfg.multiLambda() || !m.Penalised() {
		return []Run{{Method: m, Seed: s, Lambda: cfg.Lambda}}
	}
	var out []Run
	for _, l := range cfg.Lambdas {
		out = append(out, Run{Method: m, Seed: s, Lambda: l, atLambda: true})
	}
	return out
}

// trainRun trains run's h as Train does, at the run's λ; a run of a fit over several λ
// records its λ in its row.
func (p *Plan) trainRun(ctx context.Context, aux *train.Aux, run Run) (*Trained, error) {
	q := *p
	q.Config.Lambda = run.Lambda
	t, err := q.Train(ctx, aux, run.Method, run.Seed)
	if err == nil && run.atLambda {
		l := run.Lambda
		t.Row.Lambda = &l
	}
	return t, err
}

// lambdasOf returns cfg's λ for its settings record: the list of a fit over several λ,
// nil otherwise (so that a single λ's records are as before).
func lambdasOf(cfg Config) []float64 {
	if cfg.multiLambda() {
		return cfg.Lambdas
	}
	return nil
}

// lambdaText renders cfg's λ for results.md: "5", or "1, 5, 25 (none once)" over several.
func lambdaText(cfg Config) string {
	if !cfg.multiLambda() {
		return strconv.FormatFloat(cfg.Lambda, 'g', -1, 64)
	}
	s := make([]string, len(cfg.Lambdas))
	for i, l := range cfg.Lambdas {
		s[i] = strconv.FormatFloat(l, 'g', -1, 64)
	}
	return strings.Join(s, ", ") + " (each penalised method at each; none once; G and m fitted once)"
}
