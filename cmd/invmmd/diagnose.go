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

// runDiagnose records fits of an experiment step by step, each once per objective, and
// draws what the penalty did (experiments.Diagnose): each method, λ and seed listed is
// one diagnosis with its own files.
func runDiagnose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var s experiments.Study
	rest := args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if s, _ = studies.Lookup(args[0]); s.Sweep == nil {
			return fmt.Errorf("diagnose: unknown experiment %q (the experiments are the commands listed by invmmd -h; variants are chosen by their flags)", args[0])
		}
		rest = args[1:]
	}
	fs := newFlags("diagnose", "EXPERIMENT [the experiment's flags] -methods M -lambdas L -seeds S [-objectives ...] [-out DIR]", stdout, stderr, func() string {
		return "Trains one fit of the experiment (at paper size unless -quick) for each method, λ and seed listed, once per\n" +
			"objective, recording every training step's per-stratum penalty estimate and what it rested on, and writes\n" +
			"OUT/tables/diagnosis_NAME_METHOD_lambdaL_seedS.csv, its _config.json and the figure OUT/diagnosis_....png\n" +
			"(docs/training.md). The experiment's own flags (e.g. sim -paper-split) choose its variant;\n" +
			"invmmd diagnose EXPERIMENT -h lists them. -methods, -lambdas and -seeds take comma-separated lists as the\n" +
			"experiment commands do."
	})
	var opts any
	if s.Sweep != nil {
		var err error
		if opts, err = optionFlags(fs, s); err != nil {
			return err
		}
	}
	methods := fs.String("methods", "dr", "comma-separated penalised methods to diagnose")
	lambdas := fs.String("lambdas", "5", "comma-separated penalty weights λ (each > 0)")
	seeds := fs.String("seeds", "1", "comma-separated seeds, each of the data and of the fit")
	objs := fs.String("objectives", "paper,train-norms", "comma-separated objectives to train with, from "+train.ObjectiveNames())
	quick := fs.Bool("quick", false, "the experiment at its quick size (minutes), for tests and notebooks; writes to "+quickOut()+" unless -out is given")
	out := fs.String("out", "", "output folder: tables to OUT/tables, the figure to OUT (default figures/, or "+quickOut()+" with -quick)")
	force := fs.Bool("force", false, "replace a diagnosis of other settings under OUT/tables")
	if err := parse(fs, rest); err != nil {
		return err
	}
	if s.Sweep == nil {
		return fmt.Errorf("diagnose: want the experiment first, e.g. invmmd diagnose sim -paper-split -methods dr -lambdas 5 -seeds 1")
	}
	ms, err := parseMethods(*methods)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if !m.Penalised() {
			return fmt.Errorf("-methods %s: %v has no penalty to diagnose", *methods, m)
		}
	}
	ls, err := parseLambdas(*lambdas)
	if err != nil {
		return err
	}
	for _, l := range ls {
		if !(l > 0) {
			return fmt.Errorf("-lambdas %s: λ = %v, want values > 0 (λ = 0 has no penalty to diagnose)", *lambdas, l)
		}
	}
	ss, err := parseSeeds(*seeds)
	if err != nil {
		return err
	}
	var objectives []train.Objective
	for _, name := range strings.Split(*objs, ",") {
		o, err := train.ObjectiveByName(strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("-objectives: %w", err)
		}
		objectives = append(objectives, o)
	}
	exp, err := s.Sweep.Build(*quick, 0, experiments.Variant{Options: opts})
	if err != nil {
		return err
	}
	dir, err := outFor(*out, *quick, *force)
	if err != nil {
		return err
	}
	var jobs []store.Key // each fit to diagnose, its method parsed above
	for _, m := range ms {
		for _, l := range ls {
			for _, seed := range ss {
				j := store.Key{Method: m.String(), Lambda: l, Seed: seed}
				rec := map[string]any{"Experiment": exp.Name, "Method": j.Method, "Lambda": l, "Seed": seed}
				if err := guardStudy(dir, experiments.DiagnosisName(exp.Name, j), rec, *force); err != nil {
					return err
				}
				jobs = append(jobs, j)
			}
		}
	}
	if err := prepareOut(dir); err != nil {
		return err
	}
	for k, j := range jobs {
		m, _ := method.Parse(j.Method)
		name := experiments.DiagnosisName(exp.Name, j)
		kept := "nothing of this diagnosis (it writes its files at the end)"
		if k > 0 {
			kept = fmt.Sprintf("the %d diagnoses finished before it, under %s", k, dir)
		}
		ds, err := runUntilDone(ctx, "diagnose", args, kept, func() ([]*experiments.Diagnosis, error) {
			return experiments.Diagnose(ctx, exp, m, j.Lambda, j.Seed, objectives, stderr)
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
			fmt.Fprintf(stdout, "%s, %v, λ = %g, seed %d, objective %s: train acc %.3f, test acc %.3f; best epoch %d of %d (%s); %d of %d steps with a stratum's estimate above 1, %d below 0; %d floored normalisers\n",
				exp.Name, m, j.Lambda, j.Seed, s.Objective, s.TrainAcc, s.TestAcc, s.BestEpoch, s.StopEpoch, s.StopReason, s.StepsAbove1, s.Steps, s.StepsBelow0, s.FlooredNorms)
		}
		fmt.Fprintf(stdout, "diagnose: wrote %s/tables/%s{.csv,_config.json}, %s.png, %s.svg\n", dir, name, base, base)
	}
	return nil
}
