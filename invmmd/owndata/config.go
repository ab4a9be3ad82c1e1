package owndata

import (
	"cmp"
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

// Columns says which columns of a table are what. Every command reads its table through
// them; the comments give the field names that errors use (FieldError.Field).
//
// Every setting of the own-data workflow is declared once, as a field here or in Nets,
// Config, EstimateConfig, TestConfig or AuditConfig (or Source, which the last three
// share): the tag flag names its command-line flag, help its help (help.COMMAND where one
// command says it otherwise), cmds the commands that offer it (every command that reads
// the configuration when absent) and parse a reading of its text other than its type's
// (bandwidth: a σ or median, with the Median beside it; lambdas and fit-methods: fit's
// lists; not: a boolean flag setting the field's negation); flag:"-" marks a field only Go
// callers set. The command line derives from them its flags and the flag each FieldError
// names.
type Columns struct {
	// Data is the CSV file, with a header line; Fit, Estimate and Test read it, FitTable,
	// EstimateTable and TestTable take their table instead.
	Data string `flag:"data" help:"CSV file with a header line (required)"`
	// Y is the label column: binary, or of K > 2 classes.
	Y string `flag:"y" help:"label column (required): binary (0/1, or two values with -y-positive), or K > 2 classes (text or integer codes; classes in byte or numeric order)" help.audit:"label column, binary: 0/1, or two values with -y-positive (required)"`
	// Z is the nuisance column, or several comma-separated for a vector nuisance; empty,
	// NA or NaN cells (in any case) are missing Z.
	Z         string `flag:"z" help:"nuisance column (several, comma-separated, for a vector nuisance); empty, NA, N/A, NaN or null cells (in any case) are missing Z (required)" help.audit:"sensitive attribute column, blank (or NA) where unknown; several comma-separated are crossed into intersectional groups; a numeric column of more than 10 values is binned at its observed quantiles (-bins) (required)"`
	YPositive string `flag:"y-positive" help:"the label's value read as Y = 1, when the column is binary and not 0/1 (refused for a label of more than two classes)" help.audit:"the label's value read as Y = 1, when the column is not 0/1"`
	ZPositive string `flag:"z-positive" cmds:"fit,estimate,test" help:"the nuisance's value read as Z = 1, when the column is not 0/1"`
	// X are the feature columns; nil means every other column (Fit, Audit), none
	// (Estimate, Test).
	X []string `flag:"x" help.fit:"comma-separated feature columns (default: every column but -y, -z and -split; a text column with about one value per row, or a numeric column of row numbers, is refused unless named here)" help.estimate:"comma-separated feature columns on which G and m are fitted when -g or -m is not given: cross-fitted on -folds folds, each fit with a fifth of its rows held out to stop its training (-aux-patience, -aux-epochs) (default: none)" help.test:"comma-separated feature columns on which G and m are fitted (cross-fitted, -folds) when -g or -m is not given (default: none)" help.audit:"comma-separated feature columns on which G and m are fitted (default: every column but -y, -z, -decisions and -outputs)"`
	// ZKind is the nuisance's kind, "binary", "categorical", "continuous" or "vector";
	// empty infers it from the column(s) as tabular.Table.InferZKind says. A nuisance that
	// is not binary is estimated and penalised by the joint MMD² between p(h, Z) and
	// p(h)p(Z) within each Y stratum (invmmd.JointMMD).
	ZKind ZKind `flag:"z-kind" cmds:"fit,estimate,test" help:"the nuisance's kind: binary, categorical, continuous or vector (default: inferred from the column and printed; up to 10 integer codes are categorical); a nuisance that is not binary is estimated by the joint MMD² between p(h, Z) and p(h)p(Z) within each Y stratum"`
	// ZMap chooses the kernel on a continuous or vector Z (invmmd.MapSpec, field for field).
	ZMap ZMap
	// Names names the settings in messages and warnings: a field's name above (or of Nets,
	// Config, EstimateConfig, TestConfig) → the caller's name for it; nil names them by
	// their field names. The command line sets its flags ("LearningRate" → "-lr").
	Names tabular.Names `json:"-"`
}

// ZMap is the kernel on a continuous or vector Z: invmmd.MapSpec's fields (a conversion
// apart), with their flags.
type ZMap struct {
	Bandwidth float64 "flag:\"z-bandwidth\" cmds:\"fit,estimate,test\" help:\"bandwidth `σ` of the Gaussian kernel on a continuous or vector Z (0: the median of the distances between observed Z)\""
	// Tol is the per-pair error of the Fourier expansion of the kernel on a continuous Z;
	// 0: invmmd.DefaultZFourierTol.
	Tol float64 "flag:\"z-tol\" cmds:\"fit,estimate,test\" help:\"per-pair `error` of the Fourier expansion of the kernel on a continuous Z, in [0, 1) (0: 1e-3)\""
	// Features are a vector Z's random frequencies (2 features each; 0: 16; at most
	// invmmd.MaxRandomFeatures).
	Features int    "flag:\"z-features\" cmds:\"fit,estimate,test\" help:\"`n` random Fourier frequencies of the kernel on a vector Z, 2 features each (0: 16; at most 1024)\""
	Seed     uint64 // draws a vector's frequencies
}

// Source is what estimate, test and audit read alike, the part of their configurations
// that EstimateConfig, TestConfig and AuditConfig each embed: the table and its columns,
// the column(s) of model outputs, the folds on which G and m are cross-fitted when they
// are fitted, and what the run is carried out with. Each command offers the flags of the
// fields it reads (the tags' cmds and help.COMMAND).
type Source struct {
	Columns
	// H is the column of model outputs h, logits or scores, or several comma-separated
	// columns of one representation h ∈ ℝ^d (estimate and test; the cross route only in
	// Test). In Audit, a score column decided by AuditConfig.Threshold or Rate.
	H string "flag:\"outputs\" help:\"column of model outputs h (a logit, a score), or several comma-separated columns of one representation h ∈ ℝ^d, the kernel on the Euclidean distance between rows; every row needs a number in each (required)\" help.test:\"column of model outputs h (a logit, a score), or comma-separated columns of one representation (cross route only) (required)\" help.audit:\"column of the model's scores, decided by -threshold: Ŷ = 1 where score ≥ T\""
	// Folds is the number of folds on which G and m are cross-fitted when fitted (each
	// row's Ĝ and m̂ from the models fitted on the other folds; see crossfit.go), or, in
	// Estimate and Test, 1 for sample splitting (fitted on a random half, the other half
	// estimated; in Test, fitted on half B, half A tested). 0 means DefaultFolds.
	Folds   int        "flag:\"folds\" help:\"`K` folds on which G and m are cross-fitted, each row's Ĝ and m̂ from the models fitted on the other folds (1 to 20; 1: fitted on a random half, the other half estimated); with fewer than 5 the standard errors of the methods reading G or m are withheld: the calibration study found G and m fitted on half the rows too rough for them\" help.test:\"`K` folds on which G and m are cross-fitted (1 to 20; 1: fitted on half B, half A tested); with fewer than 5 the p-values of the methods reading G or m are marked unreliable: the calibration study found dr's test rejecting a true H₀ too often then\" help.audit:\"`K` folds on which G and m are cross-fitted (2 to 20; default 5)\""
	Runtime `json:"-"` // Args unused; in Audit, Backend serves only the score test's fits of G and m
}

// folds returns the folds of the cross-fitting: Folds, or DefaultFolds when 0.
func (s Source) folds() int { return cmp.Or(s.Folds, DefaultFolds) }

// ZKind names the nuisance's kind (Columns.ZKind) as a configuration and config.json
// write it: one of dataset's kinds by name, or ZInferred to infer it from the column(s).
type ZKind string

// The kinds ZKind names.
const (
	ZInferred    ZKind = ""
	ZBinary      ZKind = "binary"
	ZCategorical ZKind = "categorical"
	ZContinuous  ZKind = "continuous"
	ZVector      ZKind = "vector"
)

// kind returns the kind k names; a name that is not a kind is a *FieldError of ZKind.
func (k ZKind) kind() (dataset.ZKind, error) { return choice("ZKind", string(k), dataset.ParseZKind) }

// choice returns what parse reads of the choice v of field, its refusal a *FieldError.
func choice[T any](field, v string, parse func(string) (T, error)) (T, error) {
	t, err := parse(v)
	if err != nil {
		return t, &FieldError{Field: field, Value: v, Err: err}
	}
	return t, nil
}

// Objective names what fit's training minimises and selection compares (Config.Objective):
// one of train.Objectives by name; empty is the paper's.
type Objective string

// The objectives Objective names (train.Objectives).
const (
	ObjectivePaper      Objective = "paper"
	ObjectiveClip       Objective = "clip"
	ObjectiveSelectClip Objective = "select-clip"
	ObjectiveTrainNorms Objective = "train-norms"
	ObjectiveRobust     Objective = "robust"
)

// objective returns the training objective o names (the paper's when empty); a name that
// is not an objective is a *FieldError of Objective.
func (o Objective) objective() (train.Objective, error) {
	if o == "" {
		return train.Objectives()[0], nil
	}
	return choice("Objective", string(o), train.ObjectiveByName)
}

// Represent names the layer of h that fit's penalty acts on (Config.Represent): the
// logits (empty too) or h's last hidden layer.
type Represent string

// The layers Represent names (train.Representation).
const (
	RepresentLogits   Represent = "logits"
	RepresentFeatures Represent = "features"
)

// representation returns the layer r names; a name that is not a layer is a *FieldError
// of Represent.
func (r Represent) representation() (train.Representation, error) {
	return choice("Represent", string(r), train.ParseRepresentation)
}

// name returns how messages name the setting field.
func (c Columns) name(field string) string { return c.Names.Of(field) }

// Nets holds the network and training settings that fit, estimate and test share.
//
// Every network keeps its best epoch by its validation objective and stops early: once
// Patience (h) or AuxPatience (G and m) epochs have brought no better validation
// objective, or at the cap Epochs (AuxEpochs), whichever comes first; each model's report
// says which rule ended it (train.History.StopReason, train.FitReport.StopReason). The
// rule is the experiments' (train.Config.Patience, train.AuxConfig.Patience).
type Nets struct {
	Hidden      []int "flag:\"hidden\" help.fit:\"hidden layer widths of every MLP (h, G and m), each at most 65536\" help:\"hidden layer widths of the MLPs fitted for G and m (cross-fitted, -folds) when -g or -m is not given\""
	Epochs      int   "flag:\"epochs\" cmds:\"fit\" help:\"the cap `n` on training epochs of h (the best epoch by validation objective is kept)\""
	Patience    int   "flag:\"patience\" cmds:\"fit\" help:\"stop h's training after `n` epochs without a better validation objective (0: train to -epochs)\""
	AuxEpochs   int   "flag:\"aux-epochs\" help:\"the cap `n` on training epochs of G and m (the best epoch by validation NLL is kept)\""
	AuxPatience int   "flag:\"aux-patience\" help:\"stop the training of G and m after `n` epochs without a better validation NLL (0: train to -aux-epochs)\""
	// Batch is the rows per step, capped at the training rows (2 to MaxBatch).
	Batch        int     "flag:\"batch\" help.fit:\"`rows` per training step of h, G and m (capped at the training rows); smaller batches leave fewer effective rows per stratum in the penalty\" help:\"`rows` per training step of G and m (capped at the rows they are fitted on)\""
	LearningRate float64 "flag:\"lr\" help.fit:\"Adam learning `rate` of every network, in (0, 1]\" help:\"Adam learning `rate` of G and m, in (0, 1]\""
	MinESS       float64 "flag:\"min-ess\" cmds:\"fit,estimate\" help.fit:\"Kish effective sample size `ess` under which a stratum is flagged unreliable (and dropped from the training penalty, unless -keep-unreliable)\" help:\"Kish effective sample size `ess` under which a stratum is flagged unreliable\""
	AuxSeed      uint64  "flag:\"aux-seed\" help:\"`seed` of G and m\""
}

// Bounds on the settings, checked before any work (FieldError), and the memory a fit may
// plan for (checkMemory).
const (
	// MaxWidth bounds each hidden layer's width: a layer of 65,536 units after one as wide
	// holds 4·10⁹ weights (16 GB in float32, before Adam's two moments).
	MaxWidth = 1 << 16
	// MaxLayers bounds the hidden layers of an MLP (as a saved model's architecture).
	MaxLayers = 64
	// MaxBatch bounds the rows per step: the penalty's exact kernel sums on a batch hold
	// batch² values.
	MaxBatch = 1 << 20
	// MaxLearningRate bounds Adam's step size: each step moves every weight by about the
	// learning rate, and at 1 or more the weights (initialised at about 1/√width) jump past
	// any fit: h diverges, and G and m saturate at 0 or 1.
	MaxLearningRate = 1.0
	// MaxLambda bounds the penalty weight λ: the loss is float32, and with λ·penalty above
	// 10⁶ (the penalty is at most 2 per stratum) the likelihood's changes fall below its
	// resolution there (0.125 at 2·10⁶): the fit is the penalty alone, and by 10³⁸ the
	// loss overflows.
	MaxLambda = 1e6
)

// DefaultNets returns the network settings of invmmd fit, estimate and test: MLPs
// [32, 32]; h, G and m each stopped after 20 epochs without a better validation
// objective, at most 400 epochs (the experiments' rule); batches of 2,048 rows, Adam at
// 5·10⁻³, the estimators' default minimum ESS, seed 1 for G and m.
func DefaultNets() Nets {
	return Nets{Hidden: []int{32, 32}, Epochs: 400, Patience: 20, AuxEpochs: 400, AuxPatience: 20, Batch: 2048, LearningRate: 5e-3,
		MinESS: invmmd.DefaultMinESS, AuxSeed: 1}
}

// validate checks the settings, each against its bound, and returns a *FieldError for the
// first that is refused; c names the settings in its messages.
func (n Nets) validate(c Columns) error {
	if len(n.Hidden) == 0 || len(n.Hidden) > MaxLayers {
		return fieldError("Hidden", n.Hidden, "want 1 to %d hidden layer widths", MaxLayers)
	}
	for _, w := range n.Hidden {
		if w < 1 || w > MaxWidth {
			return fieldError("Hidden", n.Hidden, "want widths from 1 to %d (a wider layer does not fit in memory)", MaxWidth)
		}
	}
	switch {
	case n.Epochs < 1:
		return fieldError("Epochs", n.Epochs, "want at least 1")
	case n.AuxEpochs < 1:
		return fieldError("AuxEpochs", n.AuxEpochs, "want at least 1")
	case n.Patience < 0:
		return fieldError("Patience", n.Patience, "want a number of epochs ≥ 0 (0: no early stopping, train to %s)", c.name("Epochs"))
	case n.AuxPatience < 0:
		return fieldError("AuxPatience", n.AuxPatience, "want a number of epochs ≥ 0 (0: no early stopping, train to %s)", c.name("AuxEpochs"))
	case n.Batch < 2 || n.Batch > MaxBatch:
		return fieldError("Batch", n.Batch, "want 2 to %d rows", MaxBatch)
	case !(n.LearningRate > 0 && n.LearningRate <= MaxLearningRate):
		return fieldError("LearningRate", n.LearningRate, "want a value in (0, %g]: Adam moves every weight by about this much per step, and from 1 on the networks diverge", MaxLearningRate)
	case !(n.MinESS > 0) || math.IsInf(n.MinESS, 0):
		return fieldError("MinESS", n.MinESS, "want a finite value > 0")
	}
	return nil
}

// Config is one run of Fit: the table, the split, the methods, the networks and where the
// results go, and what the run is carried out with (Runtime). DefaultConfig gives the
// defaults of invmmd fit; set at least Data (Fit), Y and Z. Errors about a setting are
// *FieldError naming its field.
type Config struct {
	Columns
	Nets
	Split    string          "flag:\"split\" help:\"column whose values (train, val, test) give each row's split (default: a random split by -val-frac and -test-frac)\""
	ValFrac  float64         "flag:\"val-frac\" help:\"`share` of rows for validation, without -split\""
	TestFrac float64         "flag:\"test-frac\" help:\"`share` of rows for test, without -split\""
	Methods  []method.Method "flag:\"methods\" parse:\"fit-methods\" help:\"comma-separated methods to train h with (see above)\""
	Lambda   float64         "flag:\"lambda\" help:\"penalty weight `λ`, from 0 to 1e6\""
	// Lambdas, with two or more values, trains every penalised method at each λ (Lambda is
	// not read) and none once, sharing G and m; runs are named METHOD-lambdaL-seedS (lambdas.go).
	Lambdas []float64 "flag:\"lambdas\" parse:\"lambdas\" help:\"comma-separated penalty weights: each penalised method trained at each λ, none once, G and m fitted once; models/METHOD-lambdaL-seedS (one value: as -lambda)\""
	// Seeds are the seeds of h, one model per seed and method.
	Seeds []uint64 "flag:\"seeds\" help:\"comma-separated seeds of h (and of the random split: the first)\""
	// DropUnreliable drops strata flagged unreliable from the training step's penalty, with
	// a warning (DefaultConfig's choice; a zero Config keeps them); false keeps them, as the
	// paper's experiments do. Its flag keeps them when given (parse not: the flag sets the
	// field's negation).
	DropUnreliable bool "flag:\"keep-unreliable\" parse:\"not\" help:\"keep strata flagged unreliable in the training penalty (the paper's behaviour); by default they are dropped, with a warning\""
	// Objective names what training minimises and selection compares (train.Objectives):
	// by default "robust" — the normalisers estimated once on the training split and the
	// epoch selected with each stratum's estimate clipped at 0 — because with normalisers
	// from a quarter of each batch and the raw estimate in selection, fits collapse or
	// keep a nearly untrained h (docs/training.md); "paper" is the paper's.
	Objective Objective "flag:\"objective\" help:\"what training minimises and selection compares, one of paper,clip,select-clip,train-norms,robust: robust (the default here) estimates the normalisers once on the training split and selects the epoch with each stratum's estimate clipped at 0; paper is the paper's objective, the default of the experiment commands (sim, tmnist, ...), which reproduce the paper's protocol (docs/training.md)\""
	// Represent is the layer of h the penalty acts on (train.Config.Represent): "logits"
	// (or empty), the paper's, or "features", h's last hidden layer (a binary label only),
	// with the kernel's σ by the median heuristic on the initial network's training
	// features. The held-out MMD² of h is then on the features too; the invariance tests
	// stay on the logit, the model's prediction.
	Represent Represent "flag:\"represent\" help:\"the layer of h the MMD penalty acts on: logits (the paper's) or features (h's last hidden layer, a binary label only, σ by the median heuristic on the initial network's training features; the held-out MMD² is then on the features)\""
	// Bandwidth and Median are the kernel of the held-out estimates and tests on the test
	// split: σ by the median heuristic on h (Median, the default, as estimate and test), or
	// the fixed σ Bandwidth. The training penalty's σ is 1, the paper's.
	Bandwidth float64 "flag:\"bandwidth\" parse:\"bandwidth\" help:\"Gaussian kernel bandwidth σ of the held-out estimates and tests on the test split, or median (the median heuristic on h, as estimate and test); the training penalty's σ is 1\""
	Median    bool
	// Out is the folder that receives results.csv, results.md, heldout.txt, config.json,
	// runs/METHOD-seedS.json and models/METHOD-seedS/; empty writes nothing. It is locked
	// while a fit writes there, and checked before the data is read (see Fit).
	Out     string "flag:\"out\" help:\"output folder (see above), checked and locked before anything is read or fitted; \\\"\\\" writes nothing\""
	Force   bool   "flag:\"force\" help:\"write into an -out folder holding results of other settings or data, or of methods and seeds this run does not list, after removing those results\""
	Resume  bool   "flag:\"resume\" help:\"keep the methods whose files under -out were made with the same settings and data instead of training them again\""
	Runtime `json:"-"`
}

// Runtime is what a run is carried out with, apart from its settings: never recorded, nor
// compared by Resume.
type Runtime struct {
	// Args is the command line recorded in config.json and in Out's lock (invmmd fit sets
	// it; nil for a call from Go).
	Args []string
	// Backend runs the networks (G, m and h, their training and evaluation); nil means
	// the shared default (backend.Shared, which GOMLX_BACKEND selects).
	Backend backends.Backend
	// Log receives the progress reports (the table read, the splits, the auxiliary models)
	// as the run goes; nil discards them.
	Log io.Writer
	// Warn receives each warning as a line "warning: ..." when it arises; nil discards
	// them. The result holds them all either way.
	Warn io.Writer
}

// DefaultConfig returns the defaults of invmmd fit: a random 60/20/20 split, the methods
// none, obs, ip, reg, dr and dr-po, λ = 1, seed 1, DefaultNets, unreliable strata dropped
// from the training penalty, the robust objective, held-out estimates and tests with σ by
// the median heuristic, results written to invmmd-fit/.
func DefaultConfig() Config {
	return Config{
		Nets:    DefaultNets(),
		ValFrac: 0.2, TestFrac: 0.2,
		Methods:        []method.Method{method.None, method.Obs, method.IP, method.Reg, method.DR, method.DRPO},
		Lambda:         1,
		Seeds:          []uint64{1},
		DropUnreliable: true,
		Objective:      ObjectiveRobust,
		Represent:      RepresentLogits,
		Median:         true,
		Out:            "invmmd-fit",
	}
}

// spec returns how the table is read and split (the random split is seeded by the first
// seed).
func (c Config) spec() tabular.Spec {
	var seed uint64
	if len(c.Seeds) > 0 {
		seed = c.Seeds[0]
	}
	return tabular.Spec{Y: c.Y, Z: c.Z, YPositive: c.YPositive, ZPositive: c.ZPositive, X: c.X, Split: c.Split,
		ValFrac: c.ValFrac, TestFrac: c.TestFrac, Seed: seed}
}

// Validate checks every setting that can be checked before the table is read (Data
// included, which Fit reads); FitTable checks the others alike. It returns a *FieldError.
func (c Config) Validate() error { return c.validate(true) }

func (c Config) validate(needData bool) error {
	if err := c.Columns.validate(needData); err != nil {
		return err
	}
	if err := checkMethods(c.Methods); err != nil {
		return err
	}
	for _, m := range c.Methods {
		if m.NeedsTrueG() {
			return fieldError("Methods", method.List(c.Methods), "method %v needs the true P(Δ = 1 | X, Y), which only a simulation knows; use %v", m, strings.TrimSuffix(m.String(), "+"))
		}
	}
	if !(c.Lambda >= 0 && c.Lambda <= MaxLambda) {
		return fieldError("Lambda", c.Lambda, "want a value from 0 to %g: the training loss is float32, and beyond it the likelihood falls below its resolution next to λ times the penalty (at most 2 per stratum)", MaxLambda)
	}
	if err := c.checkLambdas(); err != nil {
		return err
	}
	if c.Split == "" && !(c.ValFrac > 0 && c.TestFrac > 0 && c.ValFrac+c.TestFrac < 1) {
		f, v := "ValFrac", c.ValFrac
		if c.ValFrac > 0 && c.ValFrac < 1 {
			f, v = "TestFrac", c.TestFrac
		}
		return fieldError(f, v, "want %s and %s each > 0 and their sum < 1 (now %v and %v)", c.name("ValFrac"), c.name("TestFrac"), c.ValFrac, c.TestFrac)
	}
	if _, err := c.Objective.objective(); err != nil {
		return err
	}
	if _, err := c.Represent.representation(); err != nil {
		return err
	}
	if len(c.Seeds) == 0 {
		return fieldError("Seeds", nil, "want at least one seed")
	}
	for i, s := range c.Seeds {
		if slices.Contains(c.Seeds[:i], s) {
			return fieldError("Seeds", c.Seeds, "seed %d listed twice", s)
		}
	}
	if err := checkBandwidth(c.Bandwidth, c.Median); err != nil {
		return err
	}
	return c.Nets.validate(c.Columns)
}

// checkBandwidth checks a bandwidth rule: the median heuristic, or a finite σ > 0.
func checkBandwidth(sigma float64, median bool) error {
	switch {
	case median && sigma != 0:
		return fieldError("Bandwidth", sigma, "with Median: give σ or the median heuristic, not both")
	case !median && !(sigma > 0 && !math.IsInf(sigma, 0)):
		return fieldError("Bandwidth", sigma, "want a finite σ > 0, or Median")
	}
	return nil
}

// validate checks the columns' settings; needData requires Data (a file to read).
func (c Columns) validate(needData bool) error {
	for _, f := range [][2]string{{"Data", c.Data}, {"Y", c.Y}, {"Z", c.Z}} {
		if f[1] == "" && (needData || f[0] != "Data") {
			return fieldError(f[0], nil, "required")
		}
	}
	if _, err := tabular.ParseColumns(c.Z); err != nil {
		return &FieldError{Field: "Z", Value: c.Z, Err: err}
	}
	if slices.Contains(tabular.ZColumns(c.Z), strings.TrimSpace(c.Y)) {
		return fieldError("Z", c.Z, "%s and %s name the same column %q: the nuisance must be another column than the label", c.name("Z"), c.name("Y"), strings.TrimSpace(c.Y))
	}
	for i, x := range c.X {
		if strings.TrimSpace(x) == "" || slices.Contains(c.X[:i], x) {
			return fieldError("X", c.X, "column %q is empty or listed twice", x)
		}
	}
	if _, err := c.ZKind.kind(); err != nil && c.ZKind != ZInferred {
		return err
	}
	switch m := c.ZMap; {
	case !(m.Bandwidth >= 0) || math.IsInf(m.Bandwidth, 0):
		return fieldError("ZMap.Bandwidth", m.Bandwidth, "want a finite σ > 0, or 0 for the median heuristic on the observed Z")
	case m.Features < 0 || m.Features > invmmd.MaxRandomFeatures:
		return fieldError("ZMap.Features", m.Features, "want 0 (the default) to %d random frequencies", invmmd.MaxRandomFeatures)
	case !(m.Tol >= 0 && m.Tol < 1):
		return fieldError("ZMap.Tol", m.Tol, "want a tolerance in [0, 1) (0: the default)")
	}
	return nil
}

// nuisanceKind returns the kind of the nuisance of c in tab and how it was decided: named
// by ZKind, or inferred from the column(s).
func (c Columns) nuisanceKind(tab *tabular.Table) (dataset.ZKind, string, error) {
	if c.ZKind != ZInferred {
		k, err := c.ZKind.kind()
		return k, "named by " + c.name("ZKind"), err
	}
	k, why, err := tab.InferZKind(tabular.ZColumns(c.Z), c.ZPositive)
	if err != nil {
		return k, "", err
	}
	return k, "inferred from " + why + "; name " + c.name("ZKind") + " to decide otherwise", nil
}

// checkMethods refuses an empty list, an unknown method and a method listed twice.
func checkMethods(ms []method.Method) error {
	if len(ms) == 0 {
		return fieldError("Methods", nil, "no method named")
	}
	for i, m := range ms {
		if !m.Valid() {
			return fieldError("Methods", int(m), "unknown method")
		}
		if slices.Contains(ms[:i], m) {
			return fieldError("Methods", method.List(ms), "%v listed twice", m)
		}
	}
	return nil
}

// splitFix is the phrase naming the settings that fix a random split, for messages.
func (c Config) splitFix() string {
	return fmt.Sprintf("place such rows there with %s, or change the random split (%s: the first seed; %s, %s)", c.name("Split"), c.name("Seeds"), c.name("ValFrac"), c.name("TestFrac"))
}
