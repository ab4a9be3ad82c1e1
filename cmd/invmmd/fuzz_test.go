package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fuzzModel is a model folder that FuzzOwnCommands' predict command lines name as @model,
// trained once per process.
var fuzzModel = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "invmmd-fuzz-model")
	if err != nil {
		return "", err
	}
	data := filepath.Join(dir, "train.csv")
	var b strings.Builder
	b.WriteString("x1,x2,y,z\n")
	for i := range 80 {
		z := fmt.Sprint((i / 3) % 2)
		if i%4 == 0 {
			z = ""
		}
		fmt.Fprintf(&b, "%v,%v,%d,%s\n", float64(i%11)/3, float64(i%7)/2, (i/2)%2, z)
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "fit")
	err = dispatch([]string{"fit", "-data", data, "-y", "y", "-z", "z", "-methods", "none", "-epochs", "1", "-aux-epochs", "1", "-hidden", "2", "-out", out}, io.Discard, io.Discard)
	return filepath.Join(out, "models", "none-seed1"), err
})

// fuzzArgs turns a fuzzed command line into one that is safe and quick to run: the first
// word picks an own-data command; @data, @out and @model name the fuzzed CSV, a fresh
// output path and a trained model; paths outside the working folder are replaced; epochs,
// widths and draws are capped so that a run takes moments (their parsing and bounds are
// still fuzzed: the caps apply to values that parse and pass).
func fuzzArgs(line, data, out, model string) []string {
	words := strings.Fields(line)
	cmds := []string{"fit", "predict", "estimate", "test"}
	if len(words) == 0 {
		return []string{cmds[0]}
	}
	if !strings.Contains(" fit predict estimate test ", " "+words[0]+" ") {
		words[0] = cmds[len(words[0])%len(cmds)]
	}
	caps := map[string]int{"-epochs": 2, "-aux-epochs": 2, "-patience": 2, "-aux-patience": 2, "-B": 300}
	for i := 1; i < len(words); i++ {
		w := strings.NewReplacer("@data", data, "@out", out, "@model", model).Replace(words[i])
		if w == words[i] && (strings.HasPrefix(w, "/") || strings.Contains(w, "..") || strings.HasPrefix(w, "~")) {
			w = "x" // no path outside the working folder
		}
		words[i] = w
		name, _, hasVal := strings.Cut(strings.TrimLeft(words[i-1], "-"), "=")
		if limit, ok := caps["-"+name]; ok && !hasVal {
			if n, err := strconv.Atoi(w); err == nil && n > limit {
				words[i] = strconv.Itoa(limit)
			}
		}
		if name == "hidden" && !hasVal {
			parts := strings.Split(w, ",")
			for k, p := range parts {
				if n, err := strconv.Atoi(strings.TrimSpace(p)); err == nil && n > 8 {
					parts[k] = "8"
				}
			}
			words[i] = strings.Join(parts[:min(len(parts), 3)], ",")
		}
	}
	return words
}

// FuzzOwnCommands runs fit, predict, estimate and test on fuzzed command lines and CSV
// contents together (through dispatch, in a scratch folder): no input may panic — a runtime
// stack dump is a bug — and every failure must be an error. The seed corpus holds the bad
// command lines the workflow tests name (workflow_test.go) and runs under plain go test.
func FuzzOwnCommands(f *testing.F) {
	good := "x1,x2,y,z,h,g,m\n"
	for i := range 40 {
		z := fmt.Sprint((i / 2) % 2)
		if i%5 == 0 {
			z = ""
		}
		good += fmt.Sprintf("%v,%v,%d,%s,%v,0.6,0.5\n", float64(i%9)/4, float64(i%7)/3, i%2, z, float64(i%13)/5)
	}
	for _, seed := range []struct{ args, csv string }{
		{"fit -data @data -y y -z z -lr 1e6 -out @out", good},
		{"fit -data @data -y y -z z -hidden 100000000 -out @out", good},
		{"estimate -data @data -y y -z z,x2 -outputs h -x x1 -z-features 100000000", good},
		{"test -data @data -y y -z z -outputs h -g g -m m -route wild -B 99999999", good},
		{"test -data @data -y y -z z -outputs h -g g -m m -seeds -1", good},
		{"estimate -data @data -y y -z z -outputs h -g g -m m -aux-epochs -5", good},
		{"estimate -data @data -y y -z z,z -outputs h -g g -m m", good},
		{"estimate -data @data -y y -z z -outputs h -g g -m m -methods dr", strings.Replace(good, ",0.6,", ",0,", 3)},
		{"estimate -data @data -y y -z z -outputs h -g g -m m", strings.Replace(good, "\n0,0,0,,", "\n0,0,0,na,", 1)},
		{"estimate -data @data -y y -z z -outputs h -g g -m m", strings.Replace(good, ",0.6,0.5\n", ",NaN,0.5\n", 1)},
		{"estimate -data @data -y y -z z -outputs h -x x1 -methods obs", strings.Replace(good, "\n0,", "\n1e400,", 1)},
		{"estimate -data @data -y y -z z -outputs h -g g -m m", strings.ReplaceAll(good, ",", "\t")},
		{"predict -model @out -data @data", good},
		{"predict -model @model -data @data -out @out -keep-all", good},
		{"predict -model @model -data @data -keep y,logit", good},
		{"fit -data @data -y y -z z -lambda 1e308 -out @out", good},
		{"fit -data @data -y y -z z -x x1 -epochs 1 -aux-epochs 1 -hidden 2 -out @out", good},
		{"test -data @data -y y -z z -outputs h -x x1 -aux-epochs 1 -hidden 2 -z-bandwidth 1e-300", good},
		{"estimate -data @data -y y -z x2 -outputs h -x x1 -aux-epochs 1 -z-kind continuous -z-bandwidth 1e-300", good},
		{"test -data @data -y y -z z -outputs h -g g -m m -route permutation -methods obs", good},
		{"estimate -data @data -y y -z z -outputs h -g g -m m -out @out", good},
		{"fit -data @data -y h -z z -epochs 1 -aux-epochs 1 -out @out", good},
		{"estimate -data @data -y y -z z -outputs x1,x2 -g g -m m -unconditional", good},
		{"fit -data @data -y y -z z -split x1 -out @out", good},
		{"estimate -data @data -y y -z z -outputs h -x x1 -z-kind vector -aux-epochs 1", good},
		{"estimate -data @data -y y -z x2 -outputs h -x x1 -z-kind categorical -aux-epochs 1", good},
		{"test -data @data -y y -z x1,x2 -outputs h -g g -route permutation -methods obs", good},
		{"test -data @data -y y -z z -outputs h,x1 -g g -m m -unconditional", good},
		{"estimate -data @data -y x1 -z z -outputs h -g g -m m", good},
		{"fit -data @data -y y -z z -split y -out @out", good},
		{"fit -data @data -y y -z z -x , -out @out", good},
		{"predict -model @model -data @data -keep y,y", good},
		{"predict -model @model -data @data -keep-all -keep y", good},
		{"test -data @data -y y -z z -outputs h -g g -m m -route wild -B 100 -bandwidth 1e-300", good},
		{"estimate -data @data -y y -z z -outputs h -g m -m g -bandwidth 1e308", good},
		{"fit -data @data -y y -z z -val-frac 0.5 -test-frac 0.5 -out @out", good},
		{"fit -data @data -y y -z z -epochs 1 -aux-epochs 1 -hidden 1 -batch 2 -out @out", good},
		{"estimate", ""},
		{"fit -data @data -y y -z z", "y,z\n"},
		{"test -data @data -y y -z z -outputs h", "\xef\xbb\xbfh,y,z\n1,0,\n"},
	} {
		f.Add(seed.args, []byte(seed.csv))
	}
	f.Fuzz(func(t *testing.T, line string, csv []byte) {
		model, err := fuzzModel()
		if err != nil {
			t.Fatalf("training the model of @model: %v", err)
		}
		dir := t.TempDir()
		t.Chdir(dir)
		data := filepath.Join(dir, "data.csv")
		if err := os.WriteFile(data, csv, 0o644); err != nil {
			t.Fatal(err)
		}
		args := fuzzArgs(line, data, filepath.Join(dir, "out"), model)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("invmmd %s panicked: %v", strings.Join(args, " "), r)
			}
		}()
		err = dispatchContext(ctx, args, io.Discard, io.Discard)
		if testing.Verbose() {
			t.Logf("invmmd %s: %v", strings.Join(args, " "), err)
		}
		if err != nil && err.Error() == "" {
			t.Errorf("invmmd %s: an empty error", strings.Join(args, " "))
		}
	})
}
