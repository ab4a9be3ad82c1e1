package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// quoteMark introduces a verbatim excerpt of a committed table: the table lines right after
// <!-- quote: NAME --> must each be a line of figures/tables/NAME.
var quoteMark = regexp.MustCompile(`<!-- quote: ([A-Za-z0-9_.\-/]+) -->`)

// quotedLines returns, for each quote marker of doc, the committed file it names and the
// table lines that follow it (up to the first line that is not a table line).
func quotedLines(doc string) map[string][][]string {
	out := map[string][][]string{}
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		m := quoteMark.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var block []string
		for _, q := range lines[i+1:] {
			if !strings.HasPrefix(strings.TrimSpace(q), "|") {
				break
			}
			block = append(block, q)
		}
		out[m[1]] = append(out[m[1]], block)
	}
	return out
}

// tableLines returns the table lines of a Markdown text, trailing spaces trimmed.
func tableLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "|") {
			out = append(out, l)
		}
	}
	return out
}

// TestQuotedTables checks every table quoted from a committed file in README.md and
// docs/*.md: each of its lines is a line of that file, and a quote holds at least its
// header, separator and one row.
func TestQuotedTables(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(repoRoot(t), readme))
	quotes := 0
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for name, blocks := range quotedLines(string(b)) {
			committed, err := os.ReadFile(filepath.Join(tables, filepath.FromSlash(name)))
			if err != nil {
				t.Errorf("%s quotes %s: %v", filepath.Base(d), name, err)
				continue
			}
			have := tableLines(string(committed))
			for _, block := range blocks {
				quotes++
				if len(block) < 3 {
					t.Errorf("%s: the quote of %s holds %d table lines, want its header, separator and a row", filepath.Base(d), name, len(block))
				}
				for _, l := range block {
					if !slices.Contains(have, strings.TrimSpace(l)) {
						t.Errorf("%s quotes a line that figures/tables/%s does not hold (rerun? then quote it anew):\n%s", filepath.Base(d), name, l)
					}
				}
			}
		}
	}
	if quotes < 6 {
		t.Errorf("%d quoted tables, want at least the six of docs/results.md (simulation, textured MNIST and the continuous nuisance at each λ)", quotes)
	}
}

// TestQuotedLinesCatches runs the quote parser on a made-up document: the lines after a
// marker up to the first non-table line are the quote; a table without a marker is not.
func TestQuotedLinesCatches(t *testing.T) {
	doc := "text\n<!-- quote: a.md -->\n| h |\n|---|\n| r |\n\n| free |\n<!-- quote: b.md -->\n| x |\nend"
	got := quotedLines(doc)
	if len(got) != 2 || !slices.Equal(got["a.md"][0], []string{"| h |", "|---|", "| r |"}) || !slices.Equal(got["b.md"][0], []string{"| x |"}) {
		t.Errorf("quotedLines = %q", got)
	}
	if lines := tableLines("| a | \nno\n  | b |"); !slices.Equal(lines, []string{"| a |", "| b |"}) {
		t.Errorf("tableLines = %q", lines)
	}
}
