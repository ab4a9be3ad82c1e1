package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink matches a Markdown link or image target: ](target) or ](target#anchor).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksResolve checks every relative link of README.md, CHANGELOG.md and docs/*.md: its
// file or folder exists in the repository, and it does not lead out of the repository.
func TestLinksResolve(t *testing.T) {
	root := repoRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, readme), filepath.Join(root, "CHANGELOG.md"))
	links := 0
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			p := filepath.Join(filepath.Dir(d), filepath.FromSlash(target))
			rel, err := filepath.Rel(root, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s links %s, outside the repository", filepath.Base(d), m[1])
				continue
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links %s, which does not exist", filepath.Base(d), m[1])
			}
		}
	}
	if links < 50 {
		t.Errorf("only %d relative links found: the link parser may be broken", links)
	}
}
