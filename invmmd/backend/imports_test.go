package backend_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	// Every package of the library, so that their initialisation runs before blockAtInit is
	// read (TestImportsListEveryLibraryPackage keeps the list complete).
	_ "github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	_ "github.com/invmmd/invmmd/invmmd/calibsim"
	_ "github.com/invmmd/invmmd/invmmd/clinical"
	_ "github.com/invmmd/invmmd/invmmd/dataset"
	_ "github.com/invmmd/invmmd/invmmd/experiments"
	_ "github.com/invmmd/invmmd/invmmd/experiments/store"
	_ "github.com/invmmd/invmmd/invmmd/figures"
	_ "github.com/invmmd/invmmd/invmmd/matmul"
	_ "github.com/invmmd/invmmd/invmmd/method"
	_ "github.com/invmmd/invmmd/invmmd/mimic"
	_ "github.com/invmmd/invmmd/invmmd/mimic/mimictest"
	_ "github.com/invmmd/invmmd/invmmd/models"
	_ "github.com/invmmd/invmmd/invmmd/nb"
	_ "github.com/invmmd/invmmd/invmmd/owndata"
	_ "github.com/invmmd/invmmd/invmmd/penalty"
	_ "github.com/invmmd/invmmd/invmmd/progress"
	_ "github.com/invmmd/invmmd/invmmd/prop1"
	_ "github.com/invmmd/invmmd/invmmd/results"
	_ "github.com/invmmd/invmmd/invmmd/sim"
	_ "github.com/invmmd/invmmd/invmmd/simcont"
	_ "github.com/invmmd/invmmd/invmmd/tabular"
	_ "github.com/invmmd/invmmd/invmmd/tmnist"
	_ "github.com/invmmd/invmmd/invmmd/train"
)

// blockAtInit is simplego's block-size table once every imported package has been
// initialised: package-level variables of a test package are set after its imports' init
// functions and before any test runs, so before any test starts a backend.
var blockAtInit = simplego.DotGeneralTargetBlockLog2Dim

// simplegoDefaultLog2Dim is the block size simplego's own initialisation gives a dtype of
// size bytes per element: the largest power-of-2 square block of at most
// DotGeneralTargetBlockSize bytes (bfloat16 blocks count 4 bytes per element, since they
// accumulate in float32).
func simplegoDefaultLog2Dim(size int) int {
	dim, log2 := 2, 1
	for dim*dim*size < simplego.DotGeneralTargetBlockSize {
		dim *= 2
		log2++
	}
	return log2 - 1
}

// TestImportChangesNoGoMLXSetting fails when importing the library sets simplego's
// block size (as an init function of package matmul once did): the setting belongs to
// the start of a backend (backend.NewWithConfig), which then applies it.
func TestImportChangesNoGoMLXSetting(t *testing.T) {
	for _, tc := range []struct {
		dtype dtypes.DType
		size  int
	}{{dtypes.Float32, 4}, {dtypes.Float64, 8}, {dtypes.BFloat16, 4}} {
		if got, want := blockAtInit[tc.dtype], simplegoDefaultLog2Dim(tc.size); got != want {
			t.Errorf("after importing the library, simplego.DotGeneralTargetBlockLog2Dim[%s] = %d, want simplego's default %d", tc.dtype, got, want)
		}
	}
	if simplegoDefaultLog2Dim(4) == backend.GoDotBlockLog2Dim {
		t.Fatalf("simplego's default block size equals GoDotBlockLog2Dim (%d): the test cannot tell them apart", backend.GoDotBlockLog2Dim)
	}
	b, err := backend.NewWithConfig(backend.Default)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	if got := simplego.DotGeneralTargetBlockLog2Dim[dtypes.Float32]; got != backend.GoDotBlockLog2Dim {
		t.Errorf("after starting %q, the float32 block size is 2^%d, want 2^%d (GoDotBlockLog2Dim)", backend.Default, got, backend.GoDotBlockLog2Dim)
	}
}

// TestImportsListEveryLibraryPackage checks that this file imports every non-main package
// under invmmd/, so that TestImportChangesNoGoMLXSetting covers a package added later.
func TestImportsListEveryLibraryPackage(t *testing.T) {
	const module = "github.com/invmmd/invmmd/"
	f, err := parser.ParseFile(token.NewFileSet(), "imports_test.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if strings.HasPrefix(p, module) {
			imported = append(imported, p)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var library []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		name, err := packageName(path)
		if err != nil || name == "" || name == "main" {
			return err
		}
		rel, err := filepath.Rel(filepath.Dir(root), path)
		library = append(library, module+filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(imported)
	slices.Sort(library)
	for _, p := range library {
		if !slices.Contains(imported, p) {
			t.Errorf("imports_test.go does not import library package %s", p)
		}
	}
	if len(library) < 10 {
		t.Fatalf("found only %d library packages under %s: %v", len(library), root, library)
	}
}

// packageName returns the package name of the non-test Go files in dir, "" when it has none.
func packageName(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.PackageClauseOnly)
		if err != nil {
			return "", err
		}
		return f.Name.Name, nil
	}
	return "", nil
}
