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
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// The one vocabulary of the own-data commands (fit, estimate, test, audit): each setting
// is a field of owndata's configurations, declared there once with its flag and help
// (owndata.Columns says the tags); the commands derive from them their flags and the flag
// each FieldError names.

// ownFlags are an own-data command's flags, derived from its configuration's tagged fields.
type ownFlags struct {
	fs    *flag.FlagSet
	cmd   string        // the command, fs's name
	names tabular.Names // field path ("ZMap.Bandwidth") → its flag ("-z-bandwidth")
	// parsers read, after fs.Parse, the flags given as text (lists, the bandwidth rule)
	// into their fields, in the order the fields were registered.
	parsers []func() error
}

// ownFlagsOf registers on fs, for its command (fs's name), a flag for every tagged field
// of the configurations cfgs point to (and of the structs they embed or hold) that the
// command offers.
func ownFlagsOf(fs *flag.FlagSet, cfgs ...any) *ownFlags {
	o := &ownFlags{fs: fs, cmd: fs.Name(), names: tabular.Names{}}
	for _, c := range cfgs {
		o.walk(reflect.ValueOf(c).Elem(), "")
	}
	return o
}

// walk registers the tagged fields of the struct v, whose fields' paths start with path.
func (o *ownFlags) walk(v reflect.Value, path string) {
	for i := 0; i < v.NumField(); i++ {
		f, fv := v.Type().Field(i), v.Field(i)
		name, ok := f.Tag.Lookup("flag")
		if !ok {
			if f.Type.Kind() == reflect.Struct && f.IsExported() {
				sub := path
				if !f.Anonymous {
					sub += f.Name + "."
				}
				o.walk(fv, sub)
			}
			continue
		}
		if name == "-" { // for Go callers only
			continue
		}
		if cmds, ok := f.Tag.Lookup("cmds"); ok && !slices.Contains(strings.Split(cmds, ","), o.cmd) {
			continue
		}
		o.names[path+f.Name] = "-" + name
		p := fv.Addr()
		if fv.Kind() == reflect.String { // a named choice (owndata.ZKind, Objective, Represent), validated by owndata
			p = p.Convert(reflect.TypeFor[*string]())
		}
		help, ok := f.Tag.Lookup("help." + o.cmd) // the command's own help, else the field's
		if !ok {
			help = f.Tag.Get("help")
		}
		o.register(p.Interface(), v, path, name, help, f.Tag.Get("parse"))
	}
}

// register registers the flag name of the field p points to, in the struct parent; as is
// the field's parse tag (owndata.Columns lists them).
func (o *ownFlags) register(p any, parent reflect.Value, path, name, help, as string) {
	if b, ok := p.(*bool); ok && as == "not" { // the flag sets the field's negation (-keep-unreliable: DropUnreliable false)
		o.fs.Var(notValue{b}, name, help)
		return
	}
	mv := parent.FieldByName("Median")
	if f, ok := p.(*float64); ok && as == "bandwidth" && mv.IsValid() && mv.Kind() == reflect.Bool {
		// the kernel's σ on h: median, or a fixed σ (Bandwidth and Median)
		median := mv.Addr().Interface().(*bool)
		o.names[path+"Median"] = "-" + name
		def := "median"
		if !*median {
			def = strconv.FormatFloat(*f, 'g', -1, 64)
		}
		o.text(name, def, help, func(s string) (err error) {
			if *f, *median = 0, s == "median"; *median {
				return nil
			}
			if *f, err = strconv.ParseFloat(s, 64); err != nil || !(*f > 0) || math.IsInf(*f, 0) {
				return fmt.Errorf("-bandwidth %q: want median or a finite number > 0 (σ)", s)
			}
			return nil
		})
		return
	}
	if scalarFlag(o.fs, p, name, help) {
		return
	}
	switch p := p.(type) {
	case *[]int:
		o.text(name, joined(*p, strconv.Itoa), help, func(s string) error {
			*p = nil
			for _, w := range strings.Split(s, ",") {
				v, err := strconv.Atoi(strings.TrimSpace(w))
				if err != nil || v < 1 {
					return fmt.Errorf("-%s %q: want comma-separated widths, whole numbers ≥ 1", name, s)
				}
				*p = append(*p, v)
			}
			return nil
		})
	case *[]string:
		o.text(name, strings.Join(*p, ","), help, func(s string) (err error) {
			*p = nil
			if strings.TrimSpace(s) != "" {
				if *p, err = tabular.ParseColumns(s); err != nil {
					return fmt.Errorf("-%s %s: %w", name, s, err)
				}
			}
			return nil
		})
	case *[]uint64:
		textVar(o, p, name, seedNames(*p), help, parseSeeds)
	case *[]method.Method:
		def, parse := *p, parseMethods
		if as == "fit-methods" {
			parse = fitMethods
		}
		o.text(name, method.List(def), help, func(s string) (err error) {
			if s == "" && def == nil { // chosen once the table is read
				return nil
			}
			*p, err = parse(s)
			return err
		})
	case *invmmd.TestRoute:
		textVar(o, p, name, p.String(), help, invmmd.ParseTestRoute)
	case *[]fairness.Estimator:
		textVar(o, p, name, joined(*p, fairness.Estimator.String), help, fairness.ParseEstimators)
	case *[]float64: // audit's -gammas (factors ≥ 1, inf allowed) or fit's -lambdas
		def := joined(*p, func(g float64) string {
			return strings.TrimPrefix(strings.ToLower(strconv.FormatFloat(g, 'g', -1, 64)), "+")
		})
		if as != "lambdas" {
			textVar(o, p, name, def, help, parseGammas)
			break
		}
		o.text(name, def, help, func(s string) (err error) {
			if s != "" {
				*p, err = parseLambdas(s) // its errors name -lambdas
			}
			return err
		})
	default:
		panic(fmt.Sprintf("own-data flag -%s: a field of type %T has no flag value", name, p))
	}
}

// text registers name as a string flag of default def, which parse reads into its field
// after fs.Parse; an error of parse that does not name its flag ("-name ...") gets
// "-name: " before it.
func (o *ownFlags) text(name, def, help string, parse func(string) error) {
	s := o.fs.String(name, def, help)
	o.parsers = append(o.parsers, func() error {
		err := parse(*s)
		if err != nil && !strings.HasPrefix(err.Error(), "-") {
			return fmt.Errorf("-%s: %w", name, err)
		}
		return err
	})
}

// textVar registers name as a string flag of default def whose value parse reads into *p
// after fs.Parse.
func textVar[T any](o *ownFlags, p *T, name, def, help string, parse func(string) (T, error)) {
	o.text(name, def, help, func(s string) (err error) {
		*p, err = parse(s)
		return err
	})
}

// parse parses args, then the flags given as text; every error names its flag.
func (o *ownFlags) parse(args []string) error {
	if err := parse(o.fs, args); err != nil {
		return err
	}
	for _, p := range o.parsers {
		if err := p(); err != nil {
			return err
		}
	}
	return nil
}

// intValue, uintValue and floatValue are flag values whose parse errors say what is
// wanted (the flag package's own say "parse error"); the range of each setting is checked
// by owndata and reported by its flag.
type intValue struct{ p *int }

// shown renders a number flag's value as strconv's shortest form does, or "0" for the
// zero value (nil p) that the flag package makes to tell a default from zero.
func shown[T int | uint64 | float64](p *T) string {
	if p == nil {
		return "0"
	}
	return fmt.Sprint(*p)
}

func (v intValue) String() string { return shown(v.p) }

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

func (v uintValue) String() string { return shown(v.p) }

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

// notValue is a boolean flag that sets the negation of its field.
type notValue struct{ p *bool }

func (v notValue) IsBoolFlag() bool { return true }

func (v notValue) String() string { return strconv.FormatBool(v.p != nil && !*v.p) }

func (v notValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("parse error") // as the flag package's own boolean flags say
	}
	*v.p = !b
	return nil
}

type floatValue struct{ p *float64 }

func (v floatValue) String() string { return shown(v.p) }

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

// outFile is the CSV file estimate and test also write: -out, and -force to replace it.
type outFile struct {
	Out   string "flag:\"out\" help.estimate:\"also write one row per estimator to this CSV file: method,value,se,unreliable,impossible,mmd2_scale (refused if it exists unless -force, or is the -data file)\" help.test:\"also write one row per method to this CSV file: method,statistic,p_value,unreliable (refused if it exists unless -force, or is the -data file)\""
	Force bool   `flag:"force" help:"replace the -out file if it exists"`
}

// runTable runs an own-data command that prints a table and writes its CSV (estimate,
// test), of flag set fs: it registers the flags of the configuration cfg (whose
// EstimateConfig is ec) and -out, parses args, refuses a 0 given to a flag that zero names (its value
// says what the flag wants),
// validates the configuration (validate, before any work), checks and locks
// -out, then prints what work returns and writes it (printTable); what names the results
// in the message of a run stopped before they were written. validate and work read cfg
// once the flags are parsed.
func runTable[T tableOutput](fs *flag.FlagSet, cfg any, ec *owndata.EstimateConfig, zero map[string]string, args []string, stdout, stderr io.Writer, what string, validate func() error, work func() (T, error)) error {
	var out outFile
	o := ownFlagsOf(fs, cfg, &out)
	if err := o.parse(args); err != nil {
		return err
	}
	// owndata reads 0 as "the default", but a flag whose help gives a range without 0 (-B 100
	// to 100000, -folds 1 to 20) would then run with another value than the one typed: zero
	// says, by flag name, what such a flag wants and its default.
	var err error
	fs.Visit(func(f *flag.Flag) {
		if w, ok := zero[f.Name]; ok && err == nil && f.Value.String() == "0" {
			err = fmt.Errorf("-%s 0: %s", f.Name, w)
		}
	})
	if err != nil {
		return err
	}
	ec.Names = o.names
	ec.Log, ec.Warn = stdout, stderr
	if err := validate(); err != nil {
		return ownError(o.names, err, "", "")
	}
	if err := checkOutFile(out.Out, ec.Data, out.Force); err != nil {
		return err
	}
	release, err := lockOutFile(out.Out, o.cmd, args, stderr)
	if err != nil {
		return err
	}
	defer release()
	err = printTable(out.Out, out.Force, stdout, work)
	return ownError(o.names, err, "nothing was written (the "+what+" are written when they are done)", rerunLine(o.cmd, args))
}

// foldsWant and resamplesWant are what -folds and -B want (runTable's zero), in the words of
// owndata's own refusals of a value out of range.
var (
	foldsWant     = fmt.Sprintf("want 1 (sample splitting) to %d folds (leave -folds out for %d)", owndata.MaxFolds, owndata.DefaultFolds)
	resamplesWant = fmt.Sprintf("want %d to %d resamples (leave -B out for %d)", invmmd.MinResamples, invmmd.MaxResamples, invmmd.DefaultResamples)
)

// joined renders the list xs as its flag takes it: each by f, comma-separated.
func joined[T any](xs []T, f func(T) string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = f(x)
	}
	return strings.Join(s, ",")
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
// flag that sets its field (names, the command's ownFlags.names) instead of the field, and
// the package names that layers of wrapping put in front of messages ("invmmd: ",
// "train: ") are dropped. A context's error becomes the *interrupted of kept and resume.
// nil stays nil.
func ownError(names tabular.Names, err error, kept, resume string) error {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &interrupted{kept: kept, resume: resume}
	}
	msg := err.Error()
	var fe *owndata.FieldError
	if errors.As(err, &fe) {
		if name, ok := names[fe.Field]; ok {
			named := *fe
			named.Field = name
			if fe.Field == "Median" || (fe.Field == "Bandwidth" && fe.Value == nil) {
				named.Value = nil
			}
			msg = strings.Replace(msg, fe.Error(), named.Error(), 1)
		}
	}
	for prev := ""; prev != msg; { // until no prefix is left
		prev, msg = msg, packagePrefix.ReplaceAllString(msg, "$1")
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
	CSV(w io.Writer) error
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
	_, err := os.Lstat(out)
	switch {
	case err == nil && force:
		return checkReplaceable(out, false)
	case err == nil:
		return fmt.Errorf("-out %s exists; remove it or name another file (or -force to replace it)", out)
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("-out %w", err)
	}
	return writable(out, filepath.Dir(out))
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
	if err := writeOutFile(out, force, res.CSV); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	fmt.Fprintf(stdout, "\nwrote %s\n", out)
	return nil
}

// writeOutFile writes the file out (-out) whole or not at all, by write
// (results.WriteFile). A file that appeared at out meanwhile (checkOutFile refused one
// before any work) is replaced only when force.
func writeOutFile(out string, force bool, write func(io.Writer) error) error {
	return results.WriteFile(out, func(w io.Writer) error {
		if err := write(w); err != nil {
			return err
		}
		if _, err := os.Lstat(out); err == nil && !force {
			return fmt.Errorf("%s appeared while this command ran; not replaced (-force replaces it)", out)
		}
		return nil
	})
}

// errNotReplaceable: -out cannot be replaced once the work is done, as -force asks: it
// is of another kind than the command writes (a non-empty file where a folder goes, a
// folder where a file goes), or nothing can be created beside it to take its place.
var errNotReplaceable = errors.New("-force cannot replace it")

// checkReplaceable checks, before any work, that out (a folder when folder, else a file)
// can be replaced once the work is done, as -force asks (errNotReplaceable says when it
// cannot); the new one is created beside it, so on its file system. It leaves nothing.
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
