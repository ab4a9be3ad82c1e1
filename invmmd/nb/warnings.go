package nb

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Warning is one warning of a run, with where it came from (e.g. "obs, seed 1").
type Warning struct {
	From, Text string
}

var (
	// numbers matches the numbers of a warning, which differ between warnings of one kind.
	numbers = regexp.MustCompile(`-?\d+(\.\d+)?(e[-+]?\d+)?`)
	// innermost matches a parenthesised part without parentheses inside it.
	innermost = regexp.MustCompile(`\([^()]*\)`)
)

// kindOf is what warnings of one kind share: the text without its numbers and its
// parenthesised details ("h (obs): 5 stratum penalties over 50 steps were dropped as
// unreliable (first: …)" and the same of ip with other counts are one kind).
func kindOf(text string) string {
	k := numbers.ReplaceAllString(text, "#")
	for {
		next := innermost.ReplaceAllString(k, "")
		if next == k {
			return strings.Join(strings.Fields(k), " ")
		}
		k = next
	}
}

// WarningSummary says a run's warnings in a few lines instead of one per fit: one line per
// kind of warning (warnings that differ only in their numbers and parenthesised details),
// with how many there are, the first of them in full and where they all came from. A
// warning of a kind of its own is given in full. It returns "" for no warnings.
func WarningSummary(ws []Warning) string {
	if len(ws) == 0 {
		return ""
	}
	type group struct {
		first Warning
		from  []string
		n     int // warnings of the kind
	}
	var order []string
	groups := map[string]*group{}
	for _, w := range ws {
		k := kindOf(w.Text)
		g, ok := groups[k]
		if !ok {
			g = &group{first: w}
			groups[k] = g
			order = append(order, k)
		}
		g.n++
		if w.From != "" && !slices.Contains(g.from, w.From) {
			g.from = append(g.from, w.From)
		}
	}
	var b strings.Builder
	numbered := func(n int, noun string) string {
		if n == 1 {
			return "1 " + noun
		}
		return fmt.Sprintf("%d %ss", n, noun)
	}
	fmt.Fprintf(&b, "%s, of %s:\n", numbered(len(ws), "warning"), numbered(len(order), "kind"))
	for _, k := range order {
		g := groups[k]
		from := ""
		if len(g.from) > 0 {
			from = " (from " + strings.Join(g.from, "; ") + ")"
		}
		if g.n == 1 {
			fmt.Fprintf(&b, "  - %s%s\n", g.first.Text, from)
			continue
		}
		fmt.Fprintf(&b, "  - %d like this one%s: %s\n", g.n, from, g.first.Text)
	}
	return b.String()
}
