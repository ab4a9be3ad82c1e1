package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// topDecl matches a top-level function, method or type declaration at the start of a line
// of a GoNB cell: "func name(", "func (r *T) name(", "type name ...". Group 1 is a
// method's receiver type, group 2 the function's name, group 3 the type's name.
var topDecl = regexp.MustCompile(`(?m)^(?:func\s+(?:\(\s*(?:\w+\s+)?\*?\s*(\w+)(?:\[[^\]]*\])?\s*\)\s*)?(\w+)|type\s+(\w+))`)

// Declared returns the helpers a notebook's code cells declare at top level — functions,
// methods (as "Type.Method") and types — each with the 1-based cell that declares it
// first. A GoNB cell declares them before its %% line (or in a cell without one); what
// follows %% is the body of main, where a declaration cannot start a line.
func Declared(file string, data []byte) (map[string]int, error) {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %s", file, jsonError(data, err))
	}
	decls := map[string]int{}
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		src, _, _ := strings.Cut(string(c.Source), "\n%%")
		for _, m := range topDecl.FindAllStringSubmatch(src, -1) {
			name := m[3]
			switch {
			case m[1] != "":
				name = m[1] + "." + m[2]
			case m[2] != "":
				name = m[2]
			}
			if _, ok := decls[name]; !ok {
				decls[name] = i + 1
			}
		}
	}
	return decls, nil
}

// DuplicateHelpers returns a problem for each helper (function, method or type) that more
// than one of the notebooks declares: a helper that two notebooks need belongs in the
// shared package invmmd/nb, once, not in copies that drift apart. data holds each file's
// contents, in the order of files.
func DuplicateHelpers(files []string, data [][]byte) ([]Problem, error) {
	where := map[string][]string{} // helper → "FILE (cell N)" of each notebook declaring it
	first := map[string]string{}   // helper → the first file declaring it
	for k, f := range files {
		decls, err := Declared(f, data[k])
		if err != nil {
			return nil, err
		}
		for name, cell := range decls {
			where[name] = append(where[name], fmt.Sprintf("%s (cell %d)", f, cell))
			if _, ok := first[name]; !ok {
				first[name] = f
			}
		}
	}
	var probs []Problem
	for _, name := range slices.Sorted(maps.Keys(where)) {
		if at := where[name]; len(at) > 1 {
			probs = append(probs, Problem{File: first[name], What: fmt.Sprintf(
				"%s is declared by %d notebooks: %s; move it to package invmmd/nb (or give each its own name if they differ)",
				name, len(at), strings.Join(at, ", "))})
		}
	}
	return probs, nil
}
