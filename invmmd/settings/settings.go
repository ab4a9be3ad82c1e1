// Package settings compares saved settings: two JSON documents, leaf by leaf. The studies'
// result store (invmmd/experiments/store) and the own-data workflow (invmmd/owndata) both
// refuse a folder holding results of other settings, and name each setting that differs
// the same way; this package is what they share, below both.
package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
)

// Diff compares two JSON documents and lists each leaf that differs as "path: a → b", in
// path order. Equal documents give nil.
func Diff(a, b json.RawMessage) []string {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return []string{"stored configuration unreadable: " + err.Error()}
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return []string{"configuration unreadable: " + err.Error()}
	}
	var out []string
	diff("", va, vb, &out)
	sort.Strings(out)
	return out
}

// DiffValues is Diff of the JSON forms of a (stored) and b (requested).
func DiffValues(a, b any) []string {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return []string{fmt.Sprintf("settings not comparable: %v %v", errA, errB)}
	}
	return Diff(ja, jb)
}

func diff(path string, a, b any, out *[]string) {
	ma, aok := a.(map[string]any)
	mb, bok := b.(map[string]any)
	if aok && bok {
		keys := maps.Clone(ma) // the union of both documents' keys
		maps.Copy(keys, mb)
		for k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			diff(p, ma[k], mb[k], out)
		}
		return
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		if path == "" {
			path = "(whole)"
		}
		*out = append(*out, fmt.Sprintf("%s: %s → %s", path, ja, jb))
	}
}
