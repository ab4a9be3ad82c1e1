package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/train"
)

// ownCommandFlags returns each own-data command's flags as ownFlagsOf derives them from
// its configuration (help on a throwaway flag set).
func ownCommandFlags() map[string]*ownFlags {
	flags := func(cmd string, cfgs ...any) *ownFlags {
		return ownFlagsOf(flag.NewFlagSet(cmd, flag.ContinueOnError), cfgs...)
	}
	fit, est, tst := owndata.DefaultConfig(), owndata.DefaultEstimateConfig(), owndata.DefaultTestConfig()
	return map[string]*ownFlags{"fit": flags("fit", &fit), "estimate": flags("estimate", &est, &outFile{}),
		"test": flags("test", &tst, &outFile{}), "audit": flags("audit", &owndata.AuditConfig{})}
}

// TestEveryFieldErrorNamesAFlag checks that every field owndata's errors name
// (FieldError.Field, read from its sources) is a flag of some own-data command or a field
// tagged flag:"-" (set by Go callers only), so that the command line never prints a Go
// field's name: the map from fields to flags is derived from the fields' tags and cannot
// drift from them.
func TestEveryFieldErrorNamesAFlag(t *testing.T) {
	named := map[string]bool{}
	for _, o := range ownCommandFlags() {
		for f := range o.names {
			named[f] = true
		}
	}
	goOnly := map[string]bool{}
	for _, v := range []any{owndata.EstimateConfig{}, owndata.Config{}, owndata.TestConfig{}, owndata.AuditConfig{}} {
		tagged(reflect.TypeOf(v), "", func(path string, f reflect.StructField) {
			if f.Tag.Get("flag") == "-" {
				goOnly[path] = true
			}
		})
	}
	paths, err := filepath.Glob("../../invmmd/owndata/*.go")
	if err != nil || len(paths) == 0 {
		t.Fatalf("owndata's sources: %v", err)
	}
	field := regexp.MustCompile(`(?:fieldError\(|Field: )"([A-Za-z.]+)"`)
	checked := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range field.FindAllStringSubmatch(string(b), -1) {
			checked++
			if !named[m[1]] && !goOnly[m[1]] {
				t.Errorf("%s: a FieldError names field %q, which no own-data command has a flag for (tag it flag:\"NAME\", or flag:\"-\" if only Go callers set it)", filepath.Base(p), m[1])
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d FieldErrors found in owndata's sources: the pattern may have missed them", checked)
	}
}

// tagged calls visit with the path of every field of the struct type t tagged flag, as
// ownFlags.walk reaches them.
func tagged(t reflect.Type, path string, visit func(string, reflect.StructField)) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("flag"); ok {
			visit(path+f.Name, f)
		} else if f.Type.Kind() == reflect.Struct && f.IsExported() {
			sub := path
			if !f.Anonymous {
				sub += f.Name + "."
			}
			tagged(f.Type, sub, visit)
		}
	}
}

// TestOwnFlagHelpQuotesTheBounds checks the numbers the tags' help texts spell out (a tag
// is a constant string) against the constants they come from.
func TestOwnFlagHelpQuotesTheBounds(t *testing.T) {
	all := ownCommandFlags()
	for _, c := range []struct{ cmd, flag, want string }{
		{"fit", "objective", "one of " + train.ObjectiveNames() + ":"},
		{"estimate", "folds", fmt.Sprintf("(1 to %d;", owndata.MaxFolds)},
		{"estimate", "folds", fmt.Sprintf("with fewer than %d ", owndata.DefaultFolds)},
		{"test", "folds", fmt.Sprintf("(1 to %d;", owndata.MaxFolds)},
		{"test", "folds", fmt.Sprintf("with fewer than %d ", owndata.DefaultFolds)},
		{"audit", "folds", fmt.Sprintf("(2 to %d; default %d)", owndata.MaxFolds, owndata.DefaultFolds)},
		{"test", "B", fmt.Sprintf("(%d to %d)", invmmd.MinResamples, invmmd.MaxResamples)},
		{"estimate", "z-features", fmt.Sprintf("(0: %d; at most %d)", invmmd.DefaultRandomFeatures, invmmd.MaxRandomFeatures)},
		{"estimate", "z-tol", "(0: " + shortExp(invmmd.DefaultZFourierTol) + ")"},
		{"fit", "hidden", fmt.Sprintf("each at most %d", owndata.MaxWidth)},
		{"fit", "lambda", "from 0 to " + shortExp(owndata.MaxLambda)},
	} {
		f := all[c.cmd].fs.Lookup(c.flag)
		if f == nil || !strings.Contains(f.Usage, c.want) {
			t.Errorf("%s -%s: help does not say %q", c.cmd, c.flag, c.want)
		}
	}
}

// shortExp writes a power of ten as the help texts do: 1e-3, 1e6.
func shortExp(x float64) string {
	return strings.NewReplacer("e+0", "e", "e-0", "e-", "e+", "e").Replace(fmt.Sprintf("%.0e", x))
}

// TestWriteOutFile: -out is written whole through a file beside it; a file that appeared
// there while the command ran is left as it was (and nothing else is left beside it)
// unless -force, which replaces it; a failed write leaves nothing.
func TestWriteOutFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "e.csv")
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error {
			_, err := io.WriteString(w, s)
			return err
		}
	}
	if err := writeOutFile(out, false, write("first")); err != nil {
		t.Fatal(err)
	}
	err := writeOutFile(out, false, write("second"))
	if err == nil || !strings.Contains(err.Error(), "appeared while this command ran; not replaced (-force replaces it)") {
		t.Errorf("over a file that exists, without force: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "first" {
		t.Errorf("without force the file holds %q, want it untouched", b)
	}
	if err := writeOutFile(out, true, write("third")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "third" {
		t.Errorf("with force the file holds %q, want it replaced", b)
	}
	if err := writeOutFile(out, true, func(io.Writer) error { return fmt.Errorf("broken") }); err == nil {
		t.Error("a failed write returned no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left beside -out: %v", ents)
	}
}
