package docscheck

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// figureRef matches a reference to a figure of figures/ in a Markdown document, as an image
// or a link, from the root ("figures/x.png") or from a folder below it ("../figures/x.png").
var figureRef = regexp.MustCompile(`(?:^|[("'\s/])figures/([A-Za-z0-9_.\-]+\.png)`)

// figureImage matches a figure of figures/ shown as a Markdown image, ![alt](figures/x.png)
// or ![alt](../figures/x.png).
var figureImage = regexp.MustCompile(`!\[[^\]]*\]\((?:\.\./)?figures/([A-Za-z0-9_.\-]+\.png)\)`)

// skipped are folders whose Markdown files are no documents: the tables the runs write next
// to the figures, and the version control's.
var skipped = map[string]bool{".git": true, "figures/tables": true, "node_modules": true}

// showing reports whether p is a document that shows the figures: README.md or a Markdown
// file directly under docs/.
func showing(p string) bool {
	return p == "README.md" || (path.Dir(p) == "docs" && strings.EqualFold(path.Ext(p), ".md"))
}

// figureReferences returns the figures of fsys's figures/ folder (PNG files); for each
// figure name some Markdown document of fsys references, the documents that do; and for
// each figure README.md or docs/*.md shows as an image, the documents that do.
func figureReferences(fsys fs.FS) (figures []string, refs, shown map[string][]string, err error) {
	figures, err = fs.Glob(fsys, "figures/*.png")
	if err != nil {
		return nil, nil, nil, err
	}
	for i, f := range figures {
		figures[i] = path.Base(f)
	}
	refs, shown = map[string][]string{}, map[string][]string{}
	add := func(m map[string][]string, fig, doc string) {
		if !slices.Contains(m[fig], doc) {
			m[fig] = append(m[fig], doc)
		}
	}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipped[p] {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(path.Ext(p), ".md") {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		for _, m := range figureRef.FindAllStringSubmatch(string(b), -1) {
			add(refs, m[1], p)
		}
		if showing(p) {
			for _, m := range figureImage.FindAllStringSubmatch(string(b), -1) {
				add(shown, m[1], p)
			}
		}
		return nil
	})
	return figures, refs, shown, err
}

// unreferenced returns the figures of fsys's figures/ that neither README.md nor docs/*.md
// shows as an image, and the references of any Markdown document to figures that are not
// there ("doc → figure").
func unreferenced(fsys fs.FS) (orphans, broken []string, err error) {
	figures, refs, shown, err := figureReferences(fsys)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range figures {
		if len(shown[f]) == 0 {
			orphans = append(orphans, f)
		}
	}
	for f, docs := range refs {
		if !slices.Contains(figures, f) {
			for _, d := range docs {
				broken = append(broken, d+" → figures/"+f)
			}
		}
	}
	slices.Sort(broken)
	return orphans, broken, nil
}

// repoRoot is the repository's root, two folders up from this package.
func repoRoot(t *testing.T) string {
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

// TestEveryFigureReferenced fails for a figure under figures/ that neither README.md nor a
// document of docs/ shows as an image (show it in the document that discusses its
// experiment, or merge it into another figure, or remove it with its generator), and for a
// Markdown document's reference to a figure that is not there.
func TestEveryFigureReferenced(t *testing.T) {
	fsys := os.DirFS(repoRoot(t))
	figures, _, _, err := figureReferences(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(figures) < 10 {
		t.Fatalf("only %d figures under figures/: the check would pass vacuously", len(figures))
	}
	orphans, broken, err := unreferenced(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range orphans {
		t.Errorf("figures/%s is shown by neither README.md nor docs/*.md: show it (![…](../figures/%s)) where its experiment is discussed (docs/results.md), merge it into another figure, or remove it with its generator", f, f)
	}
	for _, b := range broken {
		t.Errorf("%s: the figure does not exist", b)
	}
}

// TestUnreferencedCatches runs the check on a made-up repository: a figure no document
// names, one named only by a generated table, one only linked, one shown only outside
// README.md and docs/, and a link to a missing figure are caught; images in README.md and
// docs/*.md, from the root and from docs/, count.
func TestUnreferencedCatches(t *testing.T) {
	fsys := fstest.MapFS{
		"figures/shown.png":          {},
		"figures/linked.png":         {},
		"figures/from_docs.png":      {},
		"figures/orphan.png":         {},
		"figures/in_table_only.png":  {},
		"figures/in_notebooks.png":   {},
		"figures/shown.svg":          {},
		"figures/tables/x.md":        {Data: []byte("see ![t](../figures/in_table_only.png)")},
		"README.md":                  {Data: []byte("![a](figures/shown.png)\nThe [figure](figures/linked.png) and ![b](figures/gone.png).")},
		"docs/results.md":            {Data: []byte("![c](../figures/from_docs.png)")},
		"docs/notebooks/README.md":   {Data: []byte("![d](../../figures/in_notebooks.png)")},
		"notebooks/README.md":        {Data: []byte("no figures here; myfigures/orphan.png is another folder")},
		"figures/shown_elsewhere.md": {Data: []byte("text")},
	}
	orphans, broken, err := unreferenced(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"in_notebooks.png", "in_table_only.png", "linked.png", "orphan.png"}; !slices.Equal(orphans, want) {
		t.Errorf("figures not shown %v, want %v", orphans, want)
	}
	if want := []string{"README.md → figures/gone.png"}; !slices.Equal(broken, want) {
		t.Errorf("broken references %v, want %v", broken, want)
	}
}
