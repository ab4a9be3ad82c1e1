package owndata

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Columns says which columns of a CSV file are what (the flags -data, -y, -z,
// -y-positive, -z-positive and -x of fit and estimate).
type Columns struct {
	Data string // the CSV file, with a header line (-data)
	Y    string // the label column, binary (-y)
	// Z is the nuisance column, or several comma-separated for a vector nuisance; empty,
	// NA or NaN cells are missing Z (-z).
	Z         string
	YPositive string   // the label's value read as Y = 1 when the column is not 0/1 (-y-positive)
	ZPositive string   // the nuisance's value read as Z = 1 when the column is not 0/1 (-z-positive)
	X         []string // feature columns; nil means every other column (-x)
	// ZKind is the nuisance's kind, "binary", "categorical", "continuous" or "vector";
	// empty infers it from the column(s) as tabular.Table.InferZKind says (-z-kind). A
	// nuisance that is not binary is estimated and penalised by the joint MMD² between
	// p(h, Z) and p(h)p(Z) within each Y stratum (invmmd.JointMMD).
	ZKind string
	// ZMap chooses the kernel on a continuous or vector Z: its bandwidth (0: the median
	// heuristic on the observed Z; -z-bandwidth), the Fourier tolerance, and a vector's
	// random features and their seed (-z-features).
	ZMap invmmd.MapSpec
}

// Nets holds the network and training settings that fit and estimate share.
//
// Every network keeps its best epoch by its validation objective and stops early: once
// Patience (h) or AuxPatience (G and m) epochs have brought no better validation
// objective, or at the cap Epochs (AuxEpochs), whichever comes first; each model's report
// says which rule ended it (train.History.StopReason, train.FitReport.StopReason). The
// rule is the experiments' (train.Config.Patience, train.AuxConfig.Patience).
type Nets struct {
	Hidden []int // hidden layer widths of every MLP: h, G and m (-hidden)
	Epochs int   // the cap on training epochs of h; the best epoch by validation objective is kept (-epochs)
	// Patience stops h's training once this many epochs have brought no better validation
	// objective; 0 trains every model to Epochs (-patience).
	Patience  int
	AuxEpochs int // the cap on training epochs of G and m (-aux-epochs)
	// AuxPatience stops the training of G and m once this many epochs have brought no
	// better validation NLL; 0 trains them to AuxEpochs (-aux-patience).
	AuxPatience  int
	Batch        int     // rows per step, capped at the training rows (-batch)
	LearningRate float64 // Adam's step size (-lr)
	// MinESS is the Kish effective sample size under which a stratum is flagged unreliable
	// (and, in Fit, dropped from the training penalty unless KeepUnreliable) (-min-ess).
	MinESS  float64
	AuxSeed uint64 // seed of G and m (-aux-seed)
}

// DefaultNets returns the network settings of invmmd fit and estimate: MLPs [32, 32]; h, G
// and m each stopped after 20 epochs without a better validation objective, at most 400
// epochs (the experiments' rule); batches of 2,048 rows, Adam at 5·10⁻³, the estimators'
// default minimum ESS, seed 1 for G and m.
func DefaultNets() Nets {
	return Nets{Hidden: []int{32, 32}, Epochs: 400, Patience: 20, AuxEpochs: 400, AuxPatience: 20, Batch: 2048, LearningRate: 5e-3,
		MinESS: invmmd.DefaultMinESS, AuxSeed: 1}
}

// Validate checks the settings.
func (n Nets) Validate() error {
	if len(n.Hidden) == 0 {
		return fmt.Errorf("-hidden: want at least one hidden layer width")
	}
	for _, w := range n.Hidden {
		if w < 1 {
			return fmt.Errorf("-hidden %v: want positive widths", n.Hidden)
		}
	}
	switch {
	case n.Epochs < 1 || n.AuxEpochs < 1:
		return fmt.Errorf("-epochs %d, -aux-epochs %d: want at least 1", n.Epochs, n.AuxEpochs)
	case n.Patience < 0:
		return fmt.Errorf("-patience %d: want a number of epochs ≥ 0 (0: no early stopping, train to -epochs)", n.Patience)
	case n.AuxPatience < 0:
		return fmt.Errorf("-aux-patience %d: want a number of epochs ≥ 0 (0: no early stopping, train to -aux-epochs)", n.AuxPatience)
	case n.Batch < 2:
		return fmt.Errorf("-batch %d: want at least 2", n.Batch)
	case !(n.LearningRate > 0) || math.IsInf(n.LearningRate, 0):
		return fmt.Errorf("-lr %v: want a finite value > 0", n.LearningRate)
	case !(n.MinESS > 0) || math.IsInf(n.MinESS, 0):
		return fmt.Errorf("-min-ess %v: want a finite value > 0", n.MinESS)
	}
	return nil
}

// Config is one run of Fit: the table, the split, the methods, the networks and where the
// results go. DefaultConfig gives the defaults of invmmd fit; set at least Data, Y and Z.
//
// An error about a setting names it by the flag of invmmd fit (or estimate) that sets it,
// which each field's comment gives, so that the command line and the library report the
// same problem in the same words.
type Config struct {
	Columns
	Nets
	// Split names a column whose values (train, val, test) give each row's split (-split);
	// empty: a random split with ValFrac and TestFrac, seeded by the first of Seeds.
	Split             string
	ValFrac, TestFrac float64         // shares of rows for validation and test without Split (-val-frac, -test-frac)
	Methods           []method.Method // the methods h is trained with, each once (-methods)
	Lambda            float64         // penalty weight λ (-lambda)
	Seeds             []uint64        // seeds of h, one model per seed and method (-seeds)
	// KeepUnreliable keeps strata flagged unreliable in the training penalty, as the
	// paper's experiments do; by default they are dropped from that step's penalty, with a
	// warning (-keep-unreliable).
	KeepUnreliable bool
	// Objective names what training minimises and selection compares (train.Objectives,
	// -objective): by default "robust" — the normalisers estimated once on the training
	// split and the epoch selected with each stratum's estimate clipped at 0 — because with
	// normalisers from a quarter of each batch and the raw estimate in selection, fits
	// collapse or keep a nearly untrained h (README, Training choices); "paper" is the
	// paper's objective.
	Objective string
	// Represent is the layer of h the penalty acts on (train.Config.Represent, -represent):
	// "logits" (or empty), the paper's, or "features", h's last hidden layer, with the
	// kernel's σ by the median heuristic on the initial network's training features. The
	// held-out MMD² of h is then on the features too; the invariance tests stay on the
	// logit, the model's prediction.
	Represent string
	// Out is the folder that receives results.csv, results.md, heldout.txt, config.json,
	// runs/METHOD-seedS.json and models/METHOD-seedS/ (-out); empty writes nothing. Fit
	// checks it before reading the data (see Fit).
	Out string
	// Force lets Fit write into an Out that holds results of other settings, or of methods
	// and seeds this run does not list, after removing those earlier results (-force).
	Force bool
	// Resume keeps the methods whose run file and model under Out were made with the same
	// settings instead of training them again (-resume).
	Resume bool
	// Args is the command line recorded in config.json (invmmd fit sets it; nil for a call
	// from Go).
	Args []string
	// Context, when set, is checked before each method is trained: once it is done (e.g.
	// on SIGINT), Fit stops, keeping every finished method's files. nil never stops.
	Context context.Context `json:"-"`
	// Backend runs the networks (G, m and h, their training and evaluation); nil means
	// the shared default (backend.Shared, which GOMLX_BACKEND selects).
	Backend backends.Backend `json:"-"`
	// Log receives the progress reports (the table read, the splits, the auxiliary models)
	// as the run goes; nil discards them.
	Log io.Writer `json:"-"`
	// Warn receives each warning as a line "warning: ..." when it arises; nil discards
	// them. The result holds them all either way.
	Warn io.Writer `json:"-"`
}

// DefaultConfig returns the defaults of invmmd fit: a random 60/20/20 split, the methods
// none, obs, ip, reg, dr and dr-po, λ = 1, seed 1, DefaultNets, unreliable strata dropped
// from the training penalty, the robust objective, results written to invmmd-fit/.
func DefaultConfig() Config {
	return Config{
		Nets:    DefaultNets(),
		ValFrac: 0.2, TestFrac: 0.2,
		Methods:   []method.Method{method.None, method.Obs, method.IP, method.Reg, method.DR, method.DRPO},
		Lambda:    1,
		Seeds:     []uint64{1},
		Objective: "robust",
		Out:       "invmmd-fit",
	}
}

// Spec returns how the table is read and split (the random split is seeded by the first
// seed).
func (c Config) Spec() tabular.Spec {
	var seed uint64
	if len(c.Seeds) > 0 {
		seed = c.Seeds[0]
	}
	return tabular.Spec{Y: c.Y, Z: c.Z, YPositive: c.YPositive, ZPositive: c.ZPositive, X: c.X, Split: c.Split,
		ValFrac: c.ValFrac, TestFrac: c.TestFrac, Seed: seed}
}

// Validate checks the settings that can be checked before the table is read.
func (c Config) Validate() error {
	if err := c.Columns.validate(); err != nil {
		return err
	}
	if err := checkMethods(c.Methods); err != nil {
		return err
	}
	for _, m := range c.Methods {
		if m.NeedsTrueG() {
			return fmt.Errorf("method %v needs the true P(Δ = 1 | X, Y), which only a simulation knows; use %v", m, strings.TrimSuffix(m.String(), "+"))
		}
	}
	if c.Lambda < 0 || math.IsNaN(c.Lambda) || math.IsInf(c.Lambda, 0) {
		return fmt.Errorf("-lambda %v: want a finite value ≥ 0", c.Lambda)
	}
	if _, err := c.objective(); err != nil {
		return err
	}
	if _, err := train.ParseRepresentation(c.Represent); err != nil {
		return fmt.Errorf("-represent: %w", err)
	}
	if len(c.Seeds) == 0 {
		return fmt.Errorf("-seeds: want at least one seed")
	}
	for i, s := range c.Seeds {
		if slices.Contains(c.Seeds[:i], s) {
			return fmt.Errorf("-seeds: seed %d listed twice", s)
		}
	}
	return c.Nets.Validate()
}

func (c Columns) validate() error {
	for _, f := range [][2]string{{"data", c.Data}, {"y", c.Y}, {"z", c.Z}} {
		if f[1] == "" {
			return fmt.Errorf("-%s: required", f[0])
		}
	}
	if c.ZKind != "" {
		if _, err := dataset.ParseZKind(c.ZKind); err != nil {
			return fmt.Errorf("-z-kind: %w", err)
		}
	}
	if c.ZMap.Bandwidth < 0 || c.ZMap.Features < 0 || c.ZMap.Tol < 0 {
		return fmt.Errorf("-z-bandwidth %v, -z-features %d: want values ≥ 0 (0: the default)", c.ZMap.Bandwidth, c.ZMap.Features)
	}
	return nil
}

// nuisanceKind returns the kind of the nuisance of c in tab and how it was decided: named
// by ZKind, or inferred from the column(s).
func (c Columns) nuisanceKind(tab *tabular.Table) (dataset.ZKind, string, error) {
	if c.ZKind != "" {
		k, err := dataset.ParseZKind(c.ZKind)
		return k, "named by -z-kind", err
	}
	k, why, err := tab.InferZKind(tabular.ZColumns(c.Z), c.ZPositive)
	if err != nil {
		return k, "", err
	}
	return k, "inferred from " + why + "; name -z-kind to decide otherwise", nil
}

// zFlags maps each nuisance column to the flag -z, for messages about missing columns.
func (c Columns) zFlags(m map[string]string) map[string]string {
	for _, z := range tabular.ZColumns(c.Z) {
		m[z] = "-z"
	}
	return m
}

// checkMethods refuses an empty list, an unknown method and a method listed twice.
func checkMethods(ms []method.Method) error {
	if len(ms) == 0 {
		return fmt.Errorf("-methods: no method named")
	}
	for i, m := range ms {
		if !m.Valid() {
			return fmt.Errorf("-methods: unknown method %d", int(m))
		}
		if slices.Contains(ms[:i], m) {
			return fmt.Errorf("-methods: %v listed twice", m)
		}
	}
	return nil
}

// objective returns the training objective Objective names (the paper's when empty).
func (c Config) objective() (train.Objective, error) {
	if c.Objective == "" {
		return train.Objectives()[0], nil
	}
	o, err := train.ObjectiveByName(c.Objective)
	if err != nil {
		return o, fmt.Errorf("-objective: %w", err)
	}
	return o, nil
}
