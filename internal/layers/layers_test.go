package layers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the project's module path.
const module = "github.com/invmmd/invmmd"

// layerNames are the layers from the bottom up; a package may import packages of its own
// layer and of the layers before it.
var layerNames = []string{"base", "data", "models", "estimators", "training", "experiments", "figures", "cmd"}

// layerOf returns the layer of every package of the module (path relative to the module
// root), as CONTRIBUTING.md's layer table gives it (layerTable): the one list of the
// layers, so that adding a package is adding its row there.
func layerOf(t *testing.T) map[string]string {
	t.Helper()
	layers, err := layerTable(filepath.Join(moduleRoot(t), "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) < 20 {
		t.Fatalf("CONTRIBUTING.md's layer table names only %d packages", len(layers))
	}
	return layers
}

// leaves are packages that no package of the module may import: the notebooks' display
// and caching glue (invmmd/nb) is for GoNB notebooks only.
var leaves = map[string]bool{"invmmd/nb": true}

// oversizeExempt lists library files allowed over MaxLines for now, each with why.
var oversizeExempt = map[string]string{}

// rank returns the layer's place from the bottom, or -1 for an unknown layer.
func rank(layer string) int { return slices.Index(layerNames, layer) }

// goPackage is what `go list -json` says of a package, as far as these tests read it.
type goPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// listPackages runs `go list -json ./...` at the module root and returns its packages.
func listPackages(t *testing.T) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -json ./...: %v\n%s", err, stderr.String())
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// moduleRoot returns the folder holding the module's go.mod (two levels up from here).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// rel returns an import path of the module relative to the module root ("" is the root).
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// TestNothingImportsUpward checks every package's non-test imports of the module's own
// packages against the layers: an import of a higher layer fails, naming both packages
// and their layers. Every package of the module must have a layer, and every package the
// table names must exist.
func TestNothingImportsUpward(t *testing.T) {
	layers := layerOf(t)
	seen := map[string]bool{}
	for _, p := range listPackages(t) {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		seen[from] = true
		fl, ok := layers[from]
		if !ok {
			t.Errorf("package %s has no layer: add its row to the layer table in CONTRIBUTING.md", from)
			continue
		}
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if !ok {
				continue
			}
			tl, ok := layers[to]
			if !ok {
				continue // reported as a package without a layer
			}
			if rank(tl) > rank(fl) {
				t.Errorf("%s (layer %s) imports %s (layer %s): nothing imports upward", from, fl, to, tl)
			}
			if leaves[to] {
				t.Errorf("%s imports %s, which is for notebooks only: nothing in the module imports it", from, to)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(layers)) {
		if !seen[p] {
			t.Errorf("the layer table names %s, which go list does not find", p)
		}
	}
}

// TestUpwardImportIsCaught runs the check's rule on an import it must refuse, so that a
// table in which every layer were the same could not pass unnoticed.
func TestUpwardImportIsCaught(t *testing.T) {
	layerOf := layerOf(t)
	for _, tc := range []struct{ from, to string }{
		{"invmmd", "invmmd/train"},
		{"invmmd/dataset", "invmmd"},
		{"invmmd/experiments", "invmmd/figures"},
		{"invmmd/results", "invmmd/dataset"},
	} {
		if rank(layerOf[tc.to]) <= rank(layerOf[tc.from]) {
			t.Errorf("%s importing %s would pass the check", tc.from, tc.to)
		}
	}
	for p, l := range layerOf {
		if rank(l) < 0 {
			t.Errorf("%s: unknown layer %q", p, l)
		}
	}
}

// tableRow matches a row of CONTRIBUTING.md's layer table: | N layer | `package` | job |.
var tableRow = regexp.MustCompile("^\\|\\s*(\\d+)\\s+(\\w+)\\s*\\|\\s*`([^`]+)`\\s*\\|")

// layerTable parses the layer table of the Markdown file at path: each row's package and
// its layer, checking that rows are numbered from 0 in layerNames' order, that every layer
// is one of layerNames and that no package is listed twice.
func layerTable(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, layer, pkg := m[1], m[2], strings.TrimSuffix(m[3], "/")
		if rank(layer) < 0 {
			return nil, fmt.Errorf("%s:%d: unknown layer %q (the layers are %v)", path, line, layer, layerNames)
		}
		if want := fmt.Sprint(rank(layer)); n != want {
			return nil, fmt.Errorf("%s:%d: layer %s numbered %s, want %s", path, line, layer, n, want)
		}
		if pkg == "." {
			pkg = "invmmd"
		}
		if _, dup := doc[pkg]; dup {
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, line, pkg)
		}
		doc[pkg] = layer
	}
	return doc, sc.Err()
}

// TestLayerTableIsChecked runs layerTable on tables it must refuse, so that a malformed
// row cannot slip into CONTRIBUTING.md unnoticed.
func TestLayerTableIsChecked(t *testing.T) {
	for _, tc := range []struct{ rows, want string }{
		{"| 1 data | `invmmd/sim` | x |\n| 1 data | `invmmd/sim` | y |\n", "listed twice"},
		{"| 2 data | `invmmd/sim` | x |\n", "numbered 2, want 1"},
		{"| 9 nowhere | `invmmd/sim` | x |\n", "unknown layer"},
	} {
		p := filepath.Join(t.TempDir(), "table.md")
		if err := os.WriteFile(p, []byte(tc.rows), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := layerTable(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.rows, err, tc.want)
		}
	}
}

// TestLibraryFilesAreShort fails for a non-test .go file of a library package under
// invmmd/ longer than MaxLines, except the files of oversizeExempt, and for an exemption
// whose file is no longer over the limit (the exemption is then stale).
func TestLibraryFilesAreShort(t *testing.T) {
	root := moduleRoot(t)
	checked := 0
	for _, p := range listPackages(t) {
		r, ok := rel(p.ImportPath)
		if !ok || !(r == "invmmd" || strings.HasPrefix(r, "invmmd/")) {
			continue
		}
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Count(b, []byte("\n"))
			file, _ := filepath.Rel(root, path)
			file = filepath.ToSlash(file)
			checked++
			why, exempt := oversizeExempt[file]
			switch {
			case lines > MaxLines && !exempt:
				t.Errorf("%s has %d lines, more than %d: split it by job", file, lines, MaxLines)
			case lines <= MaxLines && exempt:
				t.Errorf("%s has %d lines, within %d: remove its exemption (%s)", file, lines, MaxLines, why)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no library file checked")
	}
}

// TestDependencies checks what some packages may not depend on, directly or through
// others: the float64 estimators (package invmmd) and the packages of the base and data
// layers build without GoMLX, so that a user of the estimators does not compile it.
func TestDependencies(t *testing.T) {
	for _, pkg := range []string{"./invmmd", "./invmmd/method", "./invmmd/results", "./invmmd/dataset", "./invmmd/tabular"} {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Dir = moduleRoot(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/gomlx/") {
				t.Errorf("%s depends on %s: it must build without GoMLX", pkg, dep)
				break
			}
		}
	}
}
