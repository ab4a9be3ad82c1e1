package layers

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The library (every package of the module but the programs under cmd/, the notebooks'
// glue invmmd/nb and this test) has no side effects a user did not ask for: it parses no
// command line (no package of it imports flag: flags live in cmd), it exposes no table a
// caller could change under everyone else (no exported package-level variable of slice,
// map, pointer or channel type: such tables are functions returning a fresh copy), and it
// changes no other package's state (no init function, no assignment to another package's
// variable, no call of the standard library's process-wide setters). The tests below check
// the three on the source.

// isLibrary reports whether the module package at rel (relative to the module root) is
// part of the library.
func isLibrary(rel string) bool {
	return !(strings.HasPrefix(rel, "cmd/") || rel == "invmmd/nb" || rel == "internal/layers")
}

// libraryPackages returns the library's packages as go list sees them.
func libraryPackages(t *testing.T) []goPackage {
	t.Helper()
	var lib []goPackage
	for _, p := range listPackages(t) {
		if r, ok := rel(p.ImportPath); ok && isLibrary(r) {
			lib = append(lib, p)
		}
	}
	if len(lib) < 20 {
		t.Fatalf("only %d library packages found", len(lib))
	}
	return lib
}

// TestLibraryParsesNoFlags runs `go list -deps` on every library package and checks that
// no package of the module among their dependencies imports flag: command lines are
// parsed in cmd (and the notebooks' glue), never in the library. (GoMLX itself imports
// flag, through klog; that is GoMLX's, and registers no flag of ours.)
func TestLibraryParsesNoFlags(t *testing.T) {
	var args []string
	for _, p := range libraryPackages(t) {
		args = append(args, p.ImportPath)
	}
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json"}, args...)...)
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := 0
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		r, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		seen++
		if !isLibrary(r) {
			t.Errorf("library packages depend on %s, which is not part of the library", r)
		}
		for _, imp := range p.Imports {
			if imp == "flag" {
				t.Errorf("%s imports flag: flags live in cmd (a library package takes typed options)", r)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list -deps found only %d packages of the module", seen)
	}
}

// violation is one side effect found in a library file.
type violation struct {
	pos  token.Position
	what string
}

// globalSetters are the standard library's calls that change the whole process's state.
var globalSetters = map[string][]string{
	"os":      {"Setenv", "Unsetenv", "Clearenv", "Chdir"},
	"log":     {"SetOutput", "SetFlags", "SetPrefix", "SetDefault"},
	"slog":    {"SetDefault", "SetLogLoggerLevel"},
	"debug":   {"SetGCPercent", "SetMemoryLimit", "SetMaxThreads", "SetMaxStack"},
	"signal":  {"Notify", "Ignore", "Reset"},
	"flag":    {"Set", "Parse"},
	"runtime": {"GOMAXPROCS"}, // allowed with the literal argument 0, which only reads it
}

// sideEffects returns the side effects of one parsed file: init functions, exported
// package-level variables of slice, map, pointer or channel type, assignments to a
// variable of an imported package, and calls of globalSetters.
func sideEffects(fset *token.FileSet, f *ast.File) []violation {
	imported := map[string]bool{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imported[name] = true
	}
	var out []violation
	add := func(n ast.Node, what string) { out = append(out, violation{fset.Position(n.Pos()), what}) }
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				add(d, "an init function: the library changes nothing when it is imported")
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					var v ast.Expr
					if i < len(vs.Values) {
						v = vs.Values[i]
					}
					if kind := mutableKind(vs.Type, v); n.IsExported() && kind != "" {
						add(n, "exported package-level "+kind+" "+n.Name+": return a fresh copy from a function instead")
					}
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				return true
			}
			for _, lhs := range n.Lhs {
				if pkg, name, ok := foreignTarget(lhs, imported); ok {
					add(n, "writes "+pkg+"."+name+", another package's variable")
				}
			}
		case *ast.IncDecStmt:
			if pkg, name, ok := foreignTarget(n.X, imported); ok {
				add(n, "writes "+pkg+"."+name+", another package's variable")
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || !imported[x.Name] {
				return true
			}
			for _, f := range globalSetters[x.Name] {
				if sel.Sel.Name != f {
					continue
				}
				if lit, ok := onlyArg(n).(*ast.BasicLit); f == "GOMAXPROCS" && ok && lit.Value == "0" {
					continue
				}
				add(n, "calls "+x.Name+"."+f+", which changes the whole process")
			}
		}
		return true
	})
	return out
}

// onlyArg returns a call's single argument, or nil.
func onlyArg(c *ast.CallExpr) ast.Expr {
	if len(c.Args) != 1 {
		return nil
	}
	return c.Args[0]
}

// mutableKind says whether a package-level variable of declared type typ (nil: none) and
// value v (nil: none) is a slice, map, pointer or channel, as far as the source shows:
// from its type, or from a composite literal, &T{…}, make or new.
func mutableKind(typ, v ast.Expr) string {
	kindOf := func(e ast.Expr) string {
		switch e := e.(type) {
		case *ast.ArrayType:
			if e.Len == nil {
				return "slice"
			}
		case *ast.MapType:
			return "map"
		case *ast.StarExpr:
			return "pointer"
		case *ast.ChanType:
			return "channel"
		}
		return ""
	}
	if typ != nil {
		return kindOf(typ)
	}
	switch v := v.(type) {
	case *ast.CompositeLit:
		return kindOf(v.Type)
	case *ast.UnaryExpr:
		if v.Op == token.AND {
			return "pointer"
		}
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok && len(v.Args) > 0 {
			switch id.Name {
			case "make":
				return kindOf(v.Args[0])
			case "new":
				return "pointer"
			}
		}
	}
	return ""
}

// foreignTarget reports whether the target of an assignment is (a part of) a variable of
// an imported package: pkg.V, pkg.V[i], pkg.V.f, *pkg.V.
func foreignTarget(e ast.Expr, imported map[string]bool) (pkg, name string, ok bool) {
	for {
		switch x := e.(type) {
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			if id, isID := x.X.(*ast.Ident); isID && imported[id.Name] && id.Obj == nil {
				return id.Name, x.Sel.Name, true
			}
			e = x.X
		default:
			return "", "", false
		}
	}
}

// TestLibraryHasNoSideEffects parses every non-test file of the library and reports each
// init function, exported mutable package-level table, write into another package's
// variable and process-wide setter it finds.
func TestLibraryHasNoSideEffects(t *testing.T) {
	files := 0
	for _, p := range libraryPackages(t) {
		r, _ := rel(p.ImportPath)
		for _, name := range p.GoFiles {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, v := range sideEffects(fset, f) {
				t.Errorf("%s/%s:%d: %s", r, name, v.pos.Line, v.what)
			}
		}
	}
	if files < 50 {
		t.Fatalf("only %d library files parsed", files)
	}
}

// TestSideEffectsAreCaught runs the check on source it must refuse, and on source it must
// accept, so that a check that finds nothing cannot pass unnoticed.
func TestSideEffectsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // one substring per violation, in order
	}{
		{"init", "package p\nfunc init() {}\n", []string{"an init function"}},
		{"exported slice", "package p\nvar Names = []string{\"a\"}\n", []string{"slice Names"}},
		{"exported map", "package p\nvar ByName = map[string]int{}\n", []string{"map ByName"}},
		{"exported typed slice", "package p\nvar Seeds []uint64\n", []string{"slice Seeds"}},
		{"exported pointer", "package p\ntype T struct{}\nvar Default = &T{}\n", []string{"pointer Default"}},
		{"made map", "package p\nvar Cache = make(map[string]int)\n", []string{"map Cache"}},
		{"write into a dependency", "package p\nimport \"github.com/gomlx/gomlx/backends/simplego\"\nfunc f() { simplego.DotGeneralTargetBlockLog2Dim[0] = 4 }\n",
			[]string{"writes simplego.DotGeneralTargetBlockLog2Dim"}},
		{"stdout swap", "package p\nimport \"os\"\nfunc f() { saved := os.Stdout; os.Stdout = nil; os.Stdout = saved }\n",
			[]string{"writes os.Stdout", "writes os.Stdout"}},
		{"renamed import", "package p\nimport sg \"github.com/gomlx/gomlx/backends/simplego\"\nfunc f() { sg.X++ }\n", []string{"writes sg.X"}},
		{"process setter", "package p\nimport \"os\"\nfunc f() { os.Setenv(\"A\", \"1\") }\n", []string{"calls os.Setenv"}},
		{"GOMAXPROCS set", "package p\nimport \"runtime\"\nfunc f() { runtime.GOMAXPROCS(2) }\n", []string{"calls runtime.GOMAXPROCS"}},
		{"allowed", "package p\nimport (\"os\"; \"runtime\"; \"errors\")\nvar ErrX = errors.New(\"x\")\nvar names = []string{}\nvar Size = struct{ N int }{1}\n" +
			"type T struct{ F int }\nfunc f(t *T) { n := runtime.GOMAXPROCS(0); _ = n; t.F = 1; names = nil; var os2 = os.Stdout; _ = os2 }\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", tc.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			got := sideEffects(fset, f)
			if len(got) != len(tc.want) {
				t.Fatalf("found %v, want %d violations %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i].what, w) {
					t.Errorf("violation %d: %q, want one saying %q", i, got[i].what, w)
				}
			}
		})
	}
}
