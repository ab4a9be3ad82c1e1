package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The documents whose numbers these tests check: the front page and the reference under
// docs/ (docs/notebooks/ holds rendered notebooks, checked by cmd/nbcheck).
const (
	readme    = "README.md"
	resultsMD = "docs/results.md"
	cliMD     = "docs/cli.md"
	estMD     = "docs/estimators.md"
	trainMD   = "docs/training.md"
	sweepsMD  = "docs/sweeps.md"
)

// tables is the committed result tables' folder, from this package.
var tables = filepath.Join("..", "..", "figures", "tables")

// readDoc returns the repository file name (a path from the root) as it is written.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// oneLine joins s's words with single spaces, so that a quoted sentence or table line is
// found whatever the document's line breaks and indentation.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// says reports, for each of wants, whether the document name says it (line breaks and runs
// of spaces count as one space on both sides), and fails the test for each it does not,
// naming what gives the number.
func says(t *testing.T, name, source string, wants ...string) {
	t.Helper()
	doc := oneLine(readDoc(t, name))
	for _, w := range wants {
		if !strings.Contains(doc, oneLine(w)) {
			t.Errorf("%s does not say, as %s gives:\n%s", name, source, w)
		}
	}
}

// section returns the text of name's Markdown section whose heading line contains heading,
// up to the next heading of the same or a higher level; it fails the test when there is none.
func section(t *testing.T, name, heading string) string {
	t.Helper()
	doc := readDoc(t, name)
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		level := len(l) - len(strings.TrimLeft(l, "#"))
		if level == 0 || !strings.HasPrefix(l[level:], " ") || !strings.Contains(l, heading) {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if k := len(lines[j]) - len(strings.TrimLeft(lines[j], "#")); k > 0 && k <= level && strings.HasPrefix(lines[j][k:], " ") {
				end = j
				break
			}
		}
		return strings.Join(lines[i:end], "\n")
	}
	t.Fatalf("%s has no section %q", name, heading)
	return ""
}

// between returns the text of name between the HTML comments <!-- marker --> and
// <!-- /marker -->, and the 1-based line numbers of the two comments.
func between(t *testing.T, name, marker string) (text string, first, last int) {
	t.Helper()
	doc := readDoc(t, name)
	open, shut := "<!-- "+marker+" -->", "<!-- /"+marker+" -->"
	i, j := strings.Index(doc, open), strings.Index(doc, shut)
	if i < 0 || j < i {
		t.Fatalf("%s has no block between %s and %s", name, open, shut)
	}
	return doc[i+len(open) : j], strings.Count(doc[:i], "\n") + 1, strings.Count(doc[:j], "\n") + 1
}

// thousands formats n with a comma between thousands (10,000), as the documents print sizes.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// minus formats x with prec decimals and a typographic minus sign, as the documents do.
func minus(x float64, prec int) string {
	return strings.Replace(fmt.Sprintf("%.*f", prec, x), "-", "−", 1)
}

// signed formats x with prec decimals, its sign always written, the minus typographic.
func signed(x float64, prec int) string {
	return strings.Replace(fmt.Sprintf("%+.*f", prec, x), "-", "−", 1)
}

// TestHelpers checks the helpers the number checks rest on, so that a broken helper cannot
// make a check pass vacuously.
func TestHelpers(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{thousands(10000), "10,000"}, {thousands(999), "999"}, {thousands(1234567), "1,234,567"},
		{minus(-0.2345, 2), "−0.23"}, {minus(0.5, 3), "0.500"},
		{signed(0.0411, 3), "+0.041"}, {signed(-0.04, 3), "−0.040"},
		{oneLine("a\n  b   c\n"), "a b c"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
