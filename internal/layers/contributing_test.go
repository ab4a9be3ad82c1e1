package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/experiments"
)

// section returns the text of the Markdown section of CONTRIBUTING.md titled title (a
// "## " heading), up to the next one.
func section(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("CONTRIBUTING.md has no section %q", title)
	}
	s = s[i+len(title)+5:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

// codeSpan matches a Markdown code span.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// studyFunc is a function of package experiments that returns a study of the project
// list (Studies): its file and its name.
type studyFunc struct{ file, name string }

// studyFuncs parses package experiments' non-test files for the functions that
// Studies' list calls, each with the file that declares it.
func studyFuncs(t *testing.T) ([]studyFunc, map[string]*ast.File) {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "invmmd", "experiments")
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	declared := map[string]string{} // function → its file
	var listed []string
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = f
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil {
				continue
			}
			declared[fd.Name.Name] = filepath.Base(p)
			if fd.Name.Name != "Studies" {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok {
						listed = append(listed, id.Name)
					}
				}
				return true
			})
		}
	}
	var out []studyFunc
	for _, n := range listed {
		if declared[n] == "" {
			t.Errorf("Studies calls %s, which package experiments does not declare", n)
		}
		out = append(out, studyFunc{declared[n], n})
	}
	return out, files
}

// TestContributingMatchesTheRegistry checks CONTRIBUTING.md's steps for adding an
// experiment against the code they describe: every path they name exists; every study of
// the list (Studies) is made by a function in a file of its own (what step 2 says); each
// experiment's file imports its data from packages of the data layer of the layer table
// (step 1); and no file outside package experiments lists the studies (what "nothing else
// lists the experiments" promises): no composite literal holding two of their names and
// no comparison with one.
func TestContributingMatchesTheRegistry(t *testing.T) {
	root := moduleRoot(t)
	text := section(t, "Adding an experiment")
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		p := m[1]
		if !strings.HasPrefix(p, "invmmd/") && !strings.HasPrefix(p, "cmd/") && !strings.HasPrefix(p, "internal/") {
			continue
		}
		if i := strings.Index(p, "NAME"); i >= 0 { // a pattern: its folder exists
			p = filepath.Dir(p[:i] + "x")
		}
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("CONTRIBUTING.md, Adding an experiment, names %s: %v", m[1], err)
		}
	}
	for _, w := range []string{"`Studies`", "`NewSweep`", "`SweepSpec`", "`StudyList.Check`", "layer table"} {
		if !strings.Contains(text, w) {
			t.Errorf("CONTRIBUTING.md, Adding an experiment, does not mention %s", w)
		}
	}

	studies := experiments.Studies()
	methods, files := studyFuncs(t)
	if len(methods) != len(studies) {
		t.Errorf("Studies calls %d functions %v, and holds %d studies", len(methods), methods, len(studies))
	}
	perFile := map[string]int{}
	for _, m := range methods {
		perFile[m.file]++
	}
	layers := layerOf(t)
	sweeps := 0
	for _, s := range studies {
		if s.Sweep != nil {
			sweeps++
		}
	}
	withData := 0
	for file, n := range perFile {
		f := files[file]
		data := 0
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if r, ok := rel(p); ok && layers[r] == "data" && r != "invmmd/dataset" {
				data++
			}
		}
		if data > 0 {
			withData++
		}
		if n > 1 && file != "bespoke.go" {
			t.Errorf("%s declares %d studies: an experiment is a file of its own", file, n)
		}
	}
	if withData < sweeps {
		t.Errorf("%d of the files declaring studies import a data package of the layer table, want at least one per experiment (%d)", withData, sweeps)
	}

	names := map[string]bool{}
	for _, s := range studies {
		names[s.Name] = true
	}
	for _, p := range listPackages(t) {
		r, _ := rel(p.ImportPath)
		if r == "invmmd/experiments" {
			continue
		}
		for _, name := range p.GoFiles {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range listsStudies(fset, f, names) {
				t.Errorf("%s/%s:%d: %s: only experiments.Studies lists the studies", r, name, v.pos.Line, v.what)
			}
		}
	}
}

// listsStudies returns the places of f that list or single out studies by name: a
// composite literal with two or more of names, a comparison or a case with one.
func listsStudies(fset *token.FileSet, f *ast.File, names map[string]bool) []violation {
	study := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil && names[s]
	}
	var out []violation
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			var found []string
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					e = kv.Value
				}
				if s, ok := study(e); ok {
					found = append(found, s)
				}
			}
			if len(found) > 1 {
				out = append(out, violation{fset.Position(n.Pos()), "a list of studies " + strings.Join(found, ", ")})
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				for _, e := range []ast.Expr{n.X, n.Y} {
					if s, ok := study(e); ok {
						out = append(out, violation{fset.Position(n.Pos()), "a comparison with the study " + s})
					}
				}
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if s, ok := study(e); ok {
					out = append(out, violation{fset.Position(n.Pos()), "a case of the study " + s})
				}
			}
		}
		return true
	})
	return out
}

// TestListsStudiesIsCaught runs the check on source it must refuse and on source it must
// accept.
func TestListsStudiesIsCaught(t *testing.T) {
	names := map[string]bool{"sim": true, "variance": true}
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; var a = []string{"sim", "variance"}`, 1},
		{`package p; func f(n string) bool { return n == "variance" }`, 1},
		{`package p; func f(n string) { switch n { case "sim": } }`, 1},
		{`package p; var a = []string{"sim"}; func f(n string) bool { return n == "other" }`, 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", tc.src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if got := listsStudies(fset, f, names); len(got) != tc.want {
			t.Errorf("%s: found %v, want %d", tc.src, got, tc.want)
		}
	}
}
