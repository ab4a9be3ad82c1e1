package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLicence: LICENSE is the Apache License 2.0 with the project's copyright line, and
// the README's last section names it and CITATION.cff.
func TestLicence(t *testing.T) {
	root := repoRoot(t)
	licence, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(string(readme), "\n## ")
	last := sections[len(sections)-1]
	for _, c := range []struct{ what, text, want string }{
		{"LICENSE", string(licence), "Apache License\n                           Version 2.0, January 2004"},
		{"LICENSE", string(licence), "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"},
		{"LICENSE", string(licence), "END OF TERMS AND CONDITIONS"},
		{"LICENSE", string(licence), "Copyright 2026 The invmmd authors"},
		{"README.md's last section", last, "Licence: Apache 2.0 (LICENSE); cite with CITATION.cff."},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s does not hold %q", c.what, c.want)
		}
	}
}

// TestCitation: CITATION.cff parses, holds the keys CFF 1.2.0 requires of the software,
// and cites the paper as its preferred citation.
func TestCitation(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "CITATION.cff"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseYAML(string(b))
	if err != nil {
		t.Fatalf("CITATION.cff: %v", err)
	}
	for _, c := range []struct {
		path string
		want any
	}{
		{"cff-version", "1.2.0"},
		{"type", "software"},
		{"title", "invmmd"},
		{"license", "Apache-2.0"},
		{"authors.0.name", "The invmmd authors"},
		{"preferred-citation.type", "conference-paper"},
		{"preferred-citation.title", "Learning Invariant Representations with Missing Data"},
		{"preferred-citation.collection-title", "Proceedings of the First Conference on Causal Learning and Reasoning"},
		{"preferred-citation.conference.name", "First Conference on Causal Learning and Reasoning (CLeaR 2022)"},
		{"preferred-citation.publisher.name", "PMLR"},
		{"preferred-citation.volume", "177"},
		{"preferred-citation.year", "2022"},
		{"preferred-citation.authors.0.family-names", "Goldstein"},
		{"preferred-citation.authors.6.family-names", "Miller"},
	} {
		got, err := lookup(doc, c.path)
		if err != nil {
			t.Errorf("CITATION.cff: %s: %v", c.path, err)
		} else if got != c.want {
			t.Errorf("CITATION.cff: %s = %q, want %q", c.path, got, c.want)
		}
	}
	if msg, _ := lookup(doc, "message"); msg == "" || msg == nil {
		t.Errorf("CITATION.cff: no message (CFF requires one)")
	}
	var names []string
	authors, _ := lookup(doc, "preferred-citation.authors")
	list, _ := authors.([]any)
	for _, a := range list {
		if m, ok := a.(map[string]any); ok {
			names = append(names, fmt.Sprint(m["family-names"]))
		}
	}
	if want := []string{"Goldstein", "Puli", "Ranganath", "Jacobsen", "Chau", "Saporta", "Miller"}; !reflect.DeepEqual(names, want) {
		t.Errorf("CITATION.cff: the paper's authors are %v, want %v (the paper's order)", names, want)
	}
}

// lookup returns the value at path in doc: keys of maps and indices of lists, joined by dots.
func lookup(doc any, path string) (any, error) {
	v := doc
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, fmt.Errorf("no key %q", k)
			}
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("no item %s of %d", k, len(x))
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("%q: not a map or a list", k)
		}
	}
	return v, nil
}

// yamlLine is a line of block YAML: its indentation and its text.
type yamlLine struct {
	indent int
	text   string
}

// parseYAML parses the block YAML that CITATION.cff is written in: maps, lists ("- "),
// and scalars, plain or double-quoted, each on one line. It is no general YAML parser:
// anything else (flow collections, multi-line scalars, anchors) is an error.
func parseYAML(src string) (any, error) {
	var lines []yamlLine
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimLeft(l, " ")
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "\t") {
			return nil, fmt.Errorf("a tab in the indentation of %q", l)
		}
		lines = append(lines, yamlLine{len(l) - len(t), strings.TrimRight(t, " ")})
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("empty")
	}
	v, next, err := yamlBlock(lines, 0, lines[0].indent)
	if err == nil && next < len(lines) {
		err = fmt.Errorf("line %q: unexpected indentation", lines[next].text)
	}
	return v, err
}

// yamlBlock parses the map or list whose lines start at lines[i] with indentation indent.
func yamlBlock(lines []yamlLine, i, indent int) (any, int, error) {
	if strings.HasPrefix(lines[i].text, "- ") {
		var list []any
		for i < len(lines) && lines[i].indent == indent && strings.HasPrefix(lines[i].text, "- ") {
			item := strings.TrimPrefix(lines[i].text, "- ")
			if _, _, isMap := strings.Cut(item, ":"); !isMap || strings.HasPrefix(item, `"`) {
				s, err := yamlScalar(item)
				if err != nil {
					return nil, i, err
				}
				list = append(list, s)
				i++
				continue
			}
			rest := append([]yamlLine{{indent + 2, item}}, lines[i+1:]...)
			v, next, err := yamlBlock(rest, 0, indent+2)
			if err != nil {
				return nil, i, err
			}
			list = append(list, v)
			i += next
		}
		return list, i, nil
	}
	m := map[string]any{}
	for i < len(lines) && lines[i].indent == indent {
		key, val, ok := strings.Cut(lines[i].text, ":")
		if !ok || key == "" || strings.HasPrefix(key, "- ") {
			return nil, i, fmt.Errorf("line %q: want key: value", lines[i].text)
		}
		if _, dup := m[key]; dup {
			return nil, i, fmt.Errorf("key %q given twice", key)
		}
		val = strings.TrimSpace(val)
		i++
		if val != "" {
			s, err := yamlScalar(val)
			if err != nil {
				return nil, i, err
			}
			m[key] = s
			continue
		}
		if i >= len(lines) || lines[i].indent < indent || (lines[i].indent == indent && !strings.HasPrefix(lines[i].text, "- ")) {
			return nil, i, fmt.Errorf("key %q has no value", key)
		}
		v, next, err := yamlBlock(lines, i, lines[i].indent)
		if err != nil {
			return nil, i, err
		}
		m[key] = v
		i = next
	}
	return m, i, nil
}

// yamlScalar returns a plain or double-quoted scalar's text.
func yamlScalar(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		if len(s) < 2 || !strings.HasSuffix(s, `"`) || strings.Contains(s[1:len(s)-1], `"`) {
			return "", fmt.Errorf("scalar %s: want one double-quoted string without inner quotes", s)
		}
		return s[1 : len(s)-1], nil
	}
	if strings.ContainsAny(s[:1], "[{&*!|>'%@`") || strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return "", fmt.Errorf("scalar %q: not plain YAML this parser reads", s)
	}
	return s, nil
}
