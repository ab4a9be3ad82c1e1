package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// The one vocabulary of the own-data commands (fit, predict, estimate, test): each setting
// has one flag, with the same name, meaning and default in every command that takes it,
// and help written for that command. Old names are kept for one release as aliases that
// warn (ownAliases).

// ownFlagNames maps each field of owndata's configurations (owndata.FieldError.Field, and
// the settings messages name) to its flag. The library names the fields; the commands
// pass this table as the configurations' Names and map every FieldError through it, so
// that a user reads the flags they typed.
var ownFlagNames = tabular.Names{
	"Data": "-data", "Y": "-y", "YPositive": "-y-positive", "Z": "-z", "ZPositive": "-z-positive", "X": "-x",
	"ZKind": "-z-kind", "ZMap.Bandwidth": "-z-bandwidth", "ZMap.Features": "-z-features",
	"Hidden": "-hidden", "Epochs": "-epochs", "Patience": "-patience", "AuxEpochs": "-aux-epochs", "AuxPatience": "-aux-patience",
	"Batch": "-batch", "LearningRate": "-lr", "MinESS": "-min-ess", "AuxSeed": "-aux-seed", "Folds": "-folds",
	"Split": "-split", "ValFrac": "-val-frac", "TestFrac": "-test-frac", "Methods": "-methods", "Lambda": "-lambda", "Lambdas": "-lambdas",
	"Seeds": "-seeds", "Seed": "-seeds", "KeepUnreliable": "-keep-unreliable", "Objective": "-objective", "Represent": "-represent",
	"Bandwidth": "-bandwidth", "Median": "-bandwidth", "Out": "-out", "Force": "-force", "Resume": "-resume",
	"H": "-outputs", "G": "-g", "M": "-m", "Unconditional": "-unconditional", "Route": "-route", "Resamples": "-B",
}

// ownAliases are the old flag names of the own-data commands, kept for one release: each
// still works and warns, naming its new name.
var ownAliases = map[string]string{
	"h":    "outputs", // estimate, test: -h named a column, where every other command's -h is help
	"csv":  "out",     // estimate, test: the output file is -out, as in predict
	"seed": "seeds",   // test: the seed is -seeds, as in fit and the experiments
}

// alias registers the old flag name old of an own-data command (ownAliases): setting it
// sets the new flag and writes a warning to warn.
func alias(fs *flag.FlagSet, old string, warn io.Writer) { aliasTo(fs, old, ownAliases[old], warn) }

// aliasTo registers old as an old name of fs's flag new: setting it sets new and writes a
// warning to warn.
func aliasTo(fs *flag.FlagSet, old, new string, warn io.Writer) {
	fs.Var(&aliasValue{fs: fs, old: old, new: new, warn: warn}, old, fmt.Sprintf("the old name of -%s, kept for this release", new))
}

type aliasValue struct {
	fs       *flag.FlagSet
	old, new string
	warn     io.Writer
}

func (a *aliasValue) String() string { return "" }

func (a *aliasValue) Set(s string) error {
	fmt.Fprintf(a.warn, "warning: -%s is now -%s; the old name will be removed in the next release\n", a.old, a.new)
	return a.fs.Set(a.new, s)
}

// intValue, uintValue and floatValue are flag values whose parse errors say what is
// wanted (the flag package's own say "parse error"); the range of each setting is checked
// by owndata and reported by its flag.
type intValue struct{ p *int }

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("a whole number too large to hold")
	}
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	*v.p = n
	return nil
}

type uintValue struct{ p *uint64 }

func (v uintValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatUint(*v.p, 10)
}

func (v uintValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if strings.Contains(s, ",") {
		return fmt.Errorf("want one seed, a whole number ≥ 0 (this command draws once)")
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("a whole number beyond 2⁶⁴ − 1")
	}
	if err != nil {
		return fmt.Errorf("want a whole number ≥ 0")
	}
	*v.p = n
	return nil
}

type floatValue struct{ p *float64 }

func (v floatValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v floatValue) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if errors.Is(err, strconv.ErrRange) && math.IsInf(x, 0) {
		return fmt.Errorf("out of range: a number beyond the largest float64 (about ±1.8e308)")
	}
	if err != nil {
		return fmt.Errorf("want a number")
	}
	*v.p = x
	return nil
}

// ownCommand is what the own-data commands share: their flag set, the settings every
// one of them reads (the table's columns, the networks of G and m) and their output.
type ownCommand struct {
	fs     *flag.FlagSet
	stderr io.Writer
	x      string // -x, parsed into Columns.X
	hidden string // -hidden, parsed into Nets.Hidden
	bw     string // -bandwidth
}

// columns registers -data, -y, -z, -y-positive, -z-positive, -x and the nuisance's kernel
// flags; xHelp says what -x is for and its default in this command.
func (o *ownCommand) columns(c *owndata.Columns, xHelp string) {
	fs := o.fs
	fs.StringVar(&c.Data, "data", c.Data, "CSV file with a header line (required)")
	fs.StringVar(&c.Y, "y", c.Y, "label column (required): binary (0/1, or two values with -y-positive), or K > 2 classes (text or integer codes; classes in byte or numeric order)")
	fs.StringVar(&c.Z, "z", c.Z, "nuisance column (several, comma-separated, for a vector nuisance); empty, NA, N/A, NaN or null cells (in any case) are missing Z (required)")
	fs.StringVar(&c.ZKind, "z-kind", c.ZKind, "the nuisance's kind: binary, categorical, continuous or vector (default: inferred from the column and printed; up to 10 integer codes are categorical); "+
		"a nuisance that is not binary is estimated by the joint MMD² between p(h, Z) and p(h)p(Z) within each Y stratum")
	fs.Var(floatValue{&c.ZMap.Bandwidth}, "z-bandwidth", "bandwidth `σ` of the Gaussian kernel on a continuous or vector Z (0: the median of the distances between observed Z)")
	fs.Var(intValue{&c.ZMap.Features}, "z-features", fmt.Sprintf("`n` random Fourier frequencies of the kernel on a vector Z, 2 features each (0: 16; at most %d)", 1024))
	fs.StringVar(&c.YPositive, "y-positive", c.YPositive, "the label's value read as Y = 1, when the column is binary and not 0/1 (refused for a label of more than two classes)")
	fs.StringVar(&c.ZPositive, "z-positive", c.ZPositive, "the nuisance's value read as Z = 1, when the column is not 0/1")
	fs.StringVar(&o.x, "x", strings.Join(c.X, ","), xHelp)
	c.Names = ownFlagNames
}

// auxNets registers the flags of the MLPs fitted for G and m (estimate and test): their
// widths, epochs, patience, batch, learning rate and seed.
func (o *ownCommand) auxNets(n *owndata.Nets, what string) {
	fs := o.fs
	o.hidden = widths(n.Hidden)
	fs.StringVar(&o.hidden, "hidden", o.hidden, "hidden layer widths of the MLPs fitted for G and m "+what)
	fs.Var(intValue{&n.AuxEpochs}, "aux-epochs", "the cap `n` on training epochs of G and m (the best epoch by validation NLL is kept)")
	fs.Var(intValue{&n.AuxPatience}, "aux-patience", "stop the training of G and m after `n` epochs without a better validation NLL (0: train to -aux-epochs)")
	fs.Var(intValue{&n.Batch}, "batch", "`rows` per training step of G and m (capped at the rows they are fitted on)")
	fs.Var(floatValue{&n.LearningRate}, "lr", "Adam learning `rate` of G and m, in (0, 1]")
	fs.Var(uintValue{&n.AuxSeed}, "aux-seed", "`seed` of G and m")
}

// bandwidth registers -bandwidth with this command's help: the median heuristic on h by
// default, as every own-data command.
func (o *ownCommand) bandwidth(what string) {
	o.bw = "median"
	o.fs.StringVar(&o.bw, "bandwidth", o.bw, what)
}

// parse parses args and the flags that need it (-x, -hidden, -bandwidth) into c, n and
// the bandwidth rule; every error names its flag.
func (o *ownCommand) parse(args []string, c *owndata.Columns, n *owndata.Nets, sigma *float64, median *bool) error {
	if err := parse(o.fs, args); err != nil {
		return err
	}
	c.X = nil
	if strings.TrimSpace(o.x) != "" {
		x, err := tabular.ParseColumns(o.x)
		if err != nil {
			return fmt.Errorf("-x %s: %w", o.x, err)
		}
		c.X = x
	}
	if n != nil {
		n.Hidden = nil
		for _, p := range strings.Split(o.hidden, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || v < 1 {
				return fmt.Errorf("-hidden %q: want comma-separated widths, whole numbers ≥ 1", o.hidden)
			}
			n.Hidden = append(n.Hidden, v)
		}
	}
	if sigma != nil {
		var err error
		if *sigma, *median, err = parseBandwidth(o.bw); err != nil {
			return err
		}
	}
	return nil
}

// refuseZero refuses a 0 that the command line gave one of the named flags: owndata's
// configurations read 0 as "the default", but a flag whose help gives a range without 0
// (-B 100 to 100000, -folds 1 to 20) would then run with another value than the one
// typed. want says, by flag name, what the flag wants and its default.
func refuseZero(fs *flag.FlagSet, want map[string]string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if w, ok := want[f.Name]; ok && err == nil && f.Value.String() == "0" {
			err = fmt.Errorf("-%s 0: %s", f.Name, w)
		}
	})
	return err
}

// foldsWant and resamplesWant are what -folds and -B want (refuseZero), in the words of
// owndata's own refusals of a value out of range.
var (
	foldsWant     = fmt.Sprintf("want 1 (sample splitting) to %d folds (leave -folds out for %d)", owndata.MaxFolds, owndata.DefaultFolds)
	resamplesWant = fmt.Sprintf("want %d to %d resamples (leave -B out for %d)", invmmd.MinResamples, invmmd.MaxResamples, invmmd.DefaultResamples)
)

// widths renders hidden layer widths as -hidden takes them.
func widths(w []int) string {
	s := make([]string, len(w))
	for i, v := range w {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// parseBandwidth reads -bandwidth: median (the median heuristic on h), or a finite σ > 0.
func parseBandwidth(s string) (sigma float64, median bool, err error) {
	if s == "median" {
		return 0, true, nil
	}
	if sigma, err = strconv.ParseFloat(s, 64); err != nil || !(sigma > 0) || math.IsInf(sigma, 0) {
		return 0, false, fmt.Errorf("-bandwidth %q: want median or a finite number > 0 (σ)", s)
	}
	return sigma, false, nil
}

// rerunLine returns the command line "invmmd NAME ARGS", each argument quoted for a POSIX
// shell where it needs to be: what runs a command that keeps nothing again.
func rerunLine(name string, args []string) string {
	parts := []string{"invmmd", name}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// packagePrefix matches a package's name that wrapping put before a message, at its
// start, after another's ": " or after "(".
var packagePrefix = regexp.MustCompile(`(^|: |\()(invmmd|owndata|train|tabular|dataset|models): `)

// ownError returns err as the own-data commands print it: a *owndata.FieldError names the
// flag that sets its field (ownFlagNames) instead of the field, and the package names
// that layers of wrapping put in front of messages ("invmmd: ", "train: ") are dropped.
// A context's error becomes the *interrupted of kept and resume. nil stays nil.
func ownError(err error, kept, resume string) error {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &interrupted{kept: kept, resume: resume}
	}
	msg := err.Error()
	var fe *owndata.FieldError
	if errors.As(err, &fe) {
		if name, ok := ownFlagNames[fe.Field]; ok {
			named := *fe
			named.Field = name
			if fe.Field == "Median" || (fe.Field == "Bandwidth" && fe.Value == nil) {
				named.Value = nil
			}
			msg = strings.Replace(msg, fe.Error(), named.Error(), 1)
		}
	}
	for {
		t := packagePrefix.ReplaceAllString(msg, "$1")
		if t == msg {
			break
		}
		msg = t
	}
	return &commandError{msg: msg, err: err}
}

// commandError is an error as a command prints it, wrapping the error it came from.
type commandError struct {
	msg string
	err error
}

func (e *commandError) Error() string { return e.msg }
func (e *commandError) Unwrap() error { return e.err }

// tableOutput is what estimate and test print and write: a Markdown table and a CSV file.
type tableOutput interface {
	Markdown() string
	WriteCSVFile(path string) error
}

// checkOutFile checks -out (out, "" for none) before any work: never the -data file, nor a
// file already there unless force (which then removes it when the new one is written), in
// a folder that can be written.
func checkOutFile(out, data string, force bool) error {
	if out == "" {
		return nil
	}
	if err := refuseSameFile(out, data); err != nil {
		return err
	}
	err := owndata.CheckNewFile(out, data)
	exists := err != nil && strings.HasSuffix(err.Error(), "exists; remove it or name another file")
	switch {
	case exists && force:
		return checkReplaceable(out, false)
	case exists:
		return fmt.Errorf("-out %v (or -force to replace it)", err)
	case err != nil:
		return fmt.Errorf("-out %w", err)
	}
	return nil
}

// newTemp returns a new path beside out for a file that replaces out once written whole.
func newTemp(out string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	return name, os.Remove(name)
}

// printTable runs work, prints its Markdown and writes its CSV to out ("" for none),
// replacing a file there only when force (checkOutFile checked out before any work).
func printTable[T tableOutput](out string, force bool, stdout io.Writer, work func() (T, error)) error {
	res, err := work()
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, res.Markdown())
	if out == "" {
		return nil
	}
	path := out
	if force {
		if path, err = newTemp(out); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
	}
	if err := res.WriteCSVFile(path); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	if force {
		if err := os.Rename(path, out); err != nil {
			os.Remove(path)
			return fmt.Errorf("-out: %w", err)
		}
	}
	fmt.Fprintf(stdout, "\nwrote %s\n", out)
	return nil
}

// errNotReplaceable: -out cannot be replaced once the work is done, as -force asks: it
// is of another kind than the command writes (a non-empty file where a folder goes, a
// folder where a file goes), or nothing can be created beside it to take its place.
var errNotReplaceable = errors.New("-force cannot replace it")

// checkReplaceable checks, before any work, that out (a folder when folder, else a file)
// can be put in place once the work is done, as -force asks: that it is not of another
// kind (a non-empty file, or other than a folder or a file, where the folder goes; a
// folder where the file goes) and that a new folder or file can be created beside it, in
// its own folder (so on its file system), to take its place. It creates nothing.
func checkReplaceable(out string, folder bool) error {
	st, err := os.Lstat(out)
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("-out %s: %w", out, err)
	case err == nil && folder && !st.IsDir() && !(st.Mode().IsRegular() && st.Size() == 0):
		return fmt.Errorf("-out %s is a file, not a folder: %w (remove it, or name another folder)", out, errNotReplaceable)
	case err == nil && !folder && st.IsDir():
		return fmt.Errorf("-out %s is a folder, not a file: %w (remove it, or name another file)", out, errNotReplaceable)
	}
	parent := filepath.Dir(filepath.Clean(out))
	var tmp string
	if folder {
		tmp, err = os.MkdirTemp(parent, "."+filepath.Base(out)+".tmp*")
	} else {
		var f *os.File
		if f, err = os.CreateTemp(parent, "."+filepath.Base(out)+".tmp*"); err == nil {
			tmp = f.Name()
			f.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("-out %s: %w: nothing can be created beside it in %s (%v)", out, errNotReplaceable, parent, errors.Unwrap(err))
	}
	return os.Remove(tmp)
}

// lockOutFile takes, before any work, the lock of -out (out; "" for none: nothing to
// release) for the command line invmmd cmd args, so that a second run writing the same
// file fails at once naming this one (*owndata.LockedError) rather than after computing
// everything. The returned release is to be called when the file is written.
func lockOutFile(out, cmd string, args []string, stderr io.Writer) (release func(), err error) {
	if out == "" {
		return func() {}, nil
	}
	rel, note, err := owndata.LockOutputFile(out, strings.Join(append([]string{"invmmd", cmd}, args...), " "))
	if err != nil {
		return nil, fmt.Errorf("-out %w", err)
	}
	if note != "" {
		fmt.Fprintln(stderr, "note:", note)
	}
	return func() { _ = rel() }, nil
}
