package main

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	// sectionLink matches a Markdown link to a section of a Markdown file of the repository:
	// ](README.md#anchor), ](../README.md#anchor), ](../docs/results.md#anchor).
	sectionLink = regexp.MustCompile(`\]\(([^)\s#:]+\.md)#([^)\s]+)\)`)
	// heading matches an ATX heading line; its closing #s and spaces are trimmed after.
	heading = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*)$`)
	// inlineLink is a Markdown link inside a heading: GitHub's anchor uses its text.
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	fence      = regexp.MustCompile("^ {0,3}(```|~~~)")
)

// Slug is the anchor GitHub gives a heading's text: lower case, every character that is
// not a letter, digit, mark, space, hyphen or underscore dropped (backticks and other
// punctuation included), each space a hyphen. A link keeps its text.
func Slug(text string) string {
	text = inlineLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors returns the anchors of a Markdown file's headings as GitHub makes them: the slug
// of each heading outside code fences, a repeated slug suffixed -1, -2, ...
func Anchors(md []byte) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(md), "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		m := heading.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(m[1]), "#"))
		s := Slug(text)
		if n := seen[s]; n > 0 {
			anchors[s+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

// CheckLinks returns the links of a notebook's Markdown cells to a section of a Markdown
// file (README.md#anchor, ../README.md#anchor, ../docs/results.md#anchor) whose file does
// not exist or has no heading with that anchor: a section moved out of the README leaves
// such a link pointing at the top of the page, or at nothing. read reads a file by its
// path, the link's target joined to the notebook's folder (slash-separated). The error is
// for a file that is not a notebook.
func CheckLinks(file string, data []byte, read func(name string) ([]byte, error)) ([]Problem, error) {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %s", file, jsonError(data, err))
	}
	var probs []Problem
	cache := map[string]map[string]bool{}
	dir := path.Dir(strings.ReplaceAll(file, "\\", "/"))
	for i, c := range nb.Cells {
		if c.CellType != "markdown" {
			continue
		}
		for _, m := range sectionLink.FindAllStringSubmatch(string(c.Source), -1) {
			target := path.Join(dir, m[1])
			anchors, ok := cache[target]
			if !ok {
				b, err := read(target)
				if err != nil {
					probs = append(probs, Problem{File: file, Cell: i + 1, What: fmt.Sprintf("links %s#%s, but %s cannot be read: %v", m[1], m[2], m[1], err)})
					cache[target] = nil
					continue
				}
				anchors = Anchors(b)
				cache[target] = anchors
			}
			if anchors != nil && !anchors[m[2]] { // nil: a file that cannot be read, said once
				probs = append(probs, Problem{File: file, Cell: i + 1,
					What: fmt.Sprintf("links %s#%s, but %s has no heading with that anchor (did the section move, e.g. into docs/?)", m[1], m[2], m[1])})
			}
		}
	}
	return probs, nil
}
