package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/train"
)

// runDiagnose records one fit of an experiment step by step, once per objective, and draws
// what the penalty did (experiments.Diagnose): invmmd diagnose EXPERIMENT [its flags]
// -method M -lambda L -seed S [-objectives paper,train-norms].
func runDiagnose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var e experiments.SweepStudy
	rest := args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		s, ok := experiments.Lookup(args[0])
		if e, _ = s.(experiments.SweepStudy); !ok || e == nil {
			return fmt.Errorf("diagnose: unknown experiment %q (the experiments are the commands listed by invmmd -h; variants are chosen by their flags)", args[0])
		}
		rest = args[1:]
	}
	fs := newFlags("diagnose", "EXPERIMENT [the experiment's flags] -method M -lambda L -seed S [-objectives ...] [-out DIR]", stdout, stderr, func() string {
		return "Trains one fit of the experiment (at paper size unless -quick) once per objective, recording every training step's\n" +
			"per-stratum penalty estimate and what it rested on, and writes OUT/tables/diagnosis_NAME_METHOD_lambdaL_seedS.csv,\n" +
			"its _config.json and the figure OUT/diagnosis_....png (README, Training choices). The experiment's own flags\n" +
			"(e.g. sim -paper-split) choose its variant; invmmd diagnose EXPERIMENT -h lists them."
	})
	var opts any
	if e != nil {
		var err error
		if opts, err = optionFlags(fs, e); err != nil {
			return err
		}
	}
	methodName := fs.String("method", "dr", "the penalised method to diagnose")
	lambda := fs.Float64("lambda", 5, "the penalty weight λ")
	seed := fs.Uint64("seed", 1, "the seed of the data and of the fit")
	objs := fs.String("objectives", "paper,train-norms", "comma-separated objectives to train with, from "+train.ObjectiveNames())
	quick := fs.Bool("quick", false, "the experiment at its quick size (minutes), for tests and notebooks; writes to "+quickOut()+" unless -out is given")
	out := fs.String("out", "", "output folder: tables to OUT/tables, the figure to OUT (default figures/, or "+quickOut()+" with -quick)")
	force := fs.Bool("force", false, "replace a diagnosis of other settings under OUT/tables")
	if err := parse(fs, rest); err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("diagnose: want the experiment first, e.g. invmmd diagnose sim -paper-split -method dr -lambda 5 -seed 1")
	}
	m, err := method.Parse(*methodName)
	if err != nil {
		return fmt.Errorf("-method: %w", err)
	}
	if !m.Penalised() {
		return fmt.Errorf("-method %s: it has no penalty to diagnose", *methodName)
	}
	if !(*lambda > 0) {
		return fmt.Errorf("-lambda %v: want a value > 0", *lambda)
	}
	var objectives []train.Objective
	for _, name := range strings.Split(*objs, ",") {
		o, err := train.ObjectiveByName(strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("-objectives: %w", err)
		}
		objectives = append(objectives, o)
	}
	exp, err := e.Build(*quick, 0, experiments.Variant{Options: opts})
	if err != nil {
		return err
	}
	dir, err := outFor(*out, *quick, *force)
	if err != nil {
		return err
	}
	rec := map[string]any{"Experiment": exp.Name, "Method": m.String(), "Lambda": *lambda, "Seed": *seed}
	name := experiments.DiagnosisName(exp.Name, keyOf(m, *lambda, *seed))
	if err := guardStudy(dir, name, rec, *force); err != nil {
		return err
	}
	if err := prepareOut(dir); err != nil {
		return err
	}
	var ds []*experiments.Diagnosis
	err = runUntilDone(ctx, "diagnose", args, "nothing (the diagnosis writes its files at the end)", func() error {
		ds, err = experiments.Diagnose(ctx, exp, m, *lambda, *seed, objectives, stderr)
		return err
	})
	if err != nil {
		return err
	}
	if _, err := experiments.WriteDiagnoses(exp, ds, dir); err != nil {
		return err
	}
	base, err := experiments.RedrawDiagnosis(dir, name, drawer{})
	if err != nil {
		return err
	}
	for _, d := range ds {
		s := d.Summary()
		fmt.Fprintf(stdout, "%s, objective %s: train acc %.3f, test acc %.3f; best epoch %d of %d (%s); %d of %d steps with a stratum's estimate above 1, %d below 0; %d floored normalisers\n",
			exp.Name, s.Objective, s.TrainAcc, s.TestAcc, s.BestEpoch, s.StopEpoch, s.StopReason, s.StepsAbove1, s.Steps, s.StepsBelow0, s.FlooredNorms)
	}
	fmt.Fprintf(stdout, "diagnose: wrote %s/tables/%s{.csv,_config.json}, %s.png, %s.svg\n", dir, name, base, base)
	return nil
}

// keyOf is the store key of a diagnosed fit.
func keyOf(m method.Method, lambda float64, seed uint64) store.Key {
	return store.Key{Method: m.String(), Lambda: lambda, Seed: seed}
}
