package experiments

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// ExamplesPerCell is how many images of each (Y, Z) cell NAME_examples shows.
const ExamplesPerCell = 8

// mergeSweep assembles exp's tables from the result files under a.Out (Merge), shows them
// on a.Stdout and draws their figures and exp's example images: the end of a whole run
// and what merge does. a.Check sees the stored sweep first; figures of λ that the sweep
// no longer lists are removed with their tables.
func mergeSweep(exp Experiment, a MergeArgs) ([]string, error) {
	st, err := store.Load(a.Out, exp.Name)
	if err != nil {
		return nil, err
	}
	if a.Check != nil {
		if err := a.Check(st.Sweep()); err != nil {
			return nil, err
		}
	}
	m, err := Merge(exp, a.Out, filepath.Join(a.Out, "tables"))
	if err != nil {
		return nil, err
	}
	files := m.Files
	for _, l := range m.Sweep.Lambdas {
		f, err := drawResults(m.Rows[l], exp, l, a.Out, a.Draw, a.Stdout)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	for _, lam := range m.Removed {
		base := filepath.Join(a.Out, exp.Name+"_lambda"+lam)
		os.Remove(base + ".png")
		os.Remove(base + ".svg")
		fmt.Fprintf(a.Stdout, "%s: removed the tables and figures of λ = %s, which this sweep no longer lists\n", exp.Name, lam)
	}
	if exp.Examples != nil {
		ex, err := exp.Examples(m.Sweep.Seeds[0])
		if err != nil {
			return nil, fmt.Errorf("%s: example images: %w", exp.Name, err)
		}
		base := filepath.Join(a.Out, exp.Name+"_examples")
		if err := a.Draw.Examples(base, ex, ExamplesPerCell); err != nil {
			return nil, fmt.Errorf("%s: example images: %w", exp.Name, err)
		}
		files = append(files, base+".png", base+".svg")
	}
	fmt.Fprintf(a.Stdout, "%s: wrote %s\n", exp.Name, strings.Join(files, ", "))
	return files, nil
}

// drawResults writes the table of rows at λ to w, next to the paper's numbers, and draws
// its results figure, with the experiment's figure hints, into dir.
func drawResults(rows []results.Row, exp Experiment, l float64, dir string, d Drawer, w io.Writer) ([]string, error) {
	sums := results.Summarize(results.AsWritten(rows))
	title := fmt.Sprintf("%s, λ = %s", exp.Title, results.LambdaName(l))
	extras, err := exp.TableExtras(filepath.Join(dir, "tables", exp.Name+"_config.json"))
	if err != nil {
		return nil, err
	}
	if err := results.WriteMarkdownWith(w, title, sums, exp.Paper[l], exp.TrMMDNote(), extras); err != nil {
		return nil, err
	}
	fmt.Fprintln(w)
	base := filepath.Join(dir, exp.Name+"_lambda"+results.LambdaName(l))
	if err := d.Results(base, title, sums, exp.Paper[l], exp.Figure, extras); err != nil {
		return nil, fmt.Errorf("%s, λ = %s: %w", exp.Name, results.LambdaName(l), err)
	}
	return []string{base + ".png", base + ".svg"}, nil
}

// table is one results table of a sweep's variant found under a tables folder.
type table struct {
	v      Variant
	name   string // the variant's name
	lam    string // λ as the file name spells it
	lambda float64
	path   string
}

// tables returns the results tables of s's variants under dir (NAME_lambdaΛ.csv), by
// variant in the order of Variants, then by file name.
func tables(s *SweepStudy, dir string) ([]table, error) {
	var out []table
	for _, v := range s.Variants() {
		name, err := s.VariantName(v)
		if err != nil {
			return nil, err
		}
		paths, err := filepath.Glob(filepath.Join(dir, name+"_lambda*.csv"))
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			lam := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), name+"_lambda"), ".csv")
			l, err := strconv.ParseFloat(lam, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: λ %q in the file name is not a number", p, lam)
			}
			out = append(out, table{v: v, name: name, lam: lam, lambda: l, path: p})
		}
	}
	return out, nil
}

// figures redraws the results figure of every table of the sweep's variants under
// out/tables (showing it on w), then the comparisons they allow: of a variant's objectives
// at one λ (objectives_NAME_lambdaΛ) and of the layer its penalty acted on
// (representations_NAME). A table without rows, or whose λ its configuration record does
// not list (left by an earlier sweep), is an error.
func (s *SweepStudy) figures(out string, d Drawer, w io.Writer) ([]string, error) {
	dir := filepath.Join(out, "tables")
	ts, err := tables(s, dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, t := range ts {
		if t.v.Objective.Suffix != "" {
			continue // another objective's table: drawn in its experiment's objectives figure, below
		}
		exp, err := s.Describe(t.v)
		if err != nil {
			return nil, err
		}
		if err := listed(filepath.Join(dir, t.name+"_config.json"), t.lambda); err != nil {
			return nil, fmt.Errorf("%s: %w", t.path, err)
		}
		rows, err := results.ReadCSVFile(t.path)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("%s: no rows after the header, nothing to draw", t.path)
		}
		f, err := drawResults(rows, exp, t.lambda, out, d, w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.path, err)
		}
		files = append(files, f...)
	}
	done := map[string]bool{}
	for _, t := range ts { // the objectives of a variant on its logit, at one λ
		if t.v.Objective.Suffix == "" || t.v.Represent == train.RepresentFeatures {
			continue
		}
		bexp, err := s.Describe(Variant{Options: t.v.Options})
		base := bexp.Name
		if err != nil || done[base+"_lambda"+t.lam] {
			continue
		}
		done[base+"_lambda"+t.lam] = true
		md, err := ObjectiveComparison(dir, base, t.lambda)
		if err != nil {
			return nil, err
		}
		f := filepath.Join(dir, "objectives_"+base+"_lambda"+t.lam+".md")
		if err := os.WriteFile(f, []byte(md), 0o644); err != nil {
			return nil, err
		}
		objs, rows, err := objectiveTables(dir, base, t.lambda)
		fig := filepath.Join(out, "objectives_"+base+"_lambda"+results.LambdaName(t.lambda))
		if err == nil {
			err = d.Objectives(fig, fmt.Sprintf("%s, λ = %s", bexp.Title, results.LambdaName(t.lambda)), objs, rows, bexp.Figure)
		}
		if err != nil {
			return nil, err
		}
		files = append(files, f, fig+".png", fig+".svg")
	}
	for _, t := range ts { // the penalty on the features against the logit
		if t.v.Represent != train.RepresentFeatures {
			continue
		}
		bv := t.v
		bv.Represent = train.RepresentLogits
		bexp, err := s.Describe(bv)
		if err != nil || done["representations_"+bexp.Name] {
			continue
		}
		done["representations_"+bexp.Name] = true
		fits, err := RepresentationFits(dir, bexp.Name)
		if err != nil {
			return nil, err
		}
		f := filepath.Join(dir, "representations_"+bexp.Name+".md")
		if err := os.WriteFile(f, []byte(RepresentationMarkdown(bexp.Name, fits)), 0o644); err != nil {
			return nil, err
		}
		base := filepath.Join(out, "representations_"+bexp.Name)
		if err := d.Representations(base, bexp.Title+": the penalty on the logit or on the penultimate features", fits); err != nil {
			return nil, err
		}
		files = append(files, f, base+".png", base+".svg")
	}
	return files, nil
}

// listed checks that the configuration record at cfgPath, when there is one, lists λ l.
func listed(cfgPath string, l float64) error {
	var rec struct{ Lambdas []float64 }
	if ok, err := store.ReadJSON(cfgPath, &rec); !ok || slices.Contains(rec.Lambdas, l) {
		return err
	}
	return fmt.Errorf("stale table: %s lists λ %v, not %v; delete the table or rerun the experiment with that λ", cfgPath, rec.Lambdas, l)
}
