package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nb builds a small executed notebook from code-cell bodies: each entry is the JSON of one
// cell's fields after "cell_type": "code" (outputs and execution_count).
func nb(cells ...string) string {
	var parts []string
	parts = append(parts, `{"cell_type": "markdown", "metadata": {}, "source": ["# A title\n", "prose"]}`)
	for _, c := range cells {
		parts = append(parts, `{"cell_type": "code", "metadata": {}, "source": ["%%\n", "fmt.Println(1)"], `+c+`}`)
	}
	return `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [` + strings.Join(parts, ",\n") + `]}`
}

const (
	pngOut    = `{"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo="}}`
	svgHTML   = `{"output_type": "display_data", "metadata": {}, "data": {"text/html": ["<div><svg width='10' height='10'></svg></div>"]}}`
	imgHTML   = `{"output_type": "display_data", "metadata": {}, "data": {"text/html": "<img src=\"data:image/png;base64,AAAA\">"}}`
	plainHTML = `{"output_type": "display_data", "metadata": {}, "data": {"text/html": "<b>a table</b>"}}`
	stdout    = `{"output_type": "stream", "name": "stdout", "text": ["panic: in stdout is fine\n"]}`
	stderrOK  = `{"output_type": "stream", "name": "stderr", "text": ["prop1: 3/12 slices done\n"]}`
	// GoNB's report of a panicking cell, as seen in an executed notebook.
	panicked = `{"output_type": "stream", "name": "stderr", "text": ["panic: boom\n", "\n", "goroutine 1 [running]:\n", "main.main()\n", "exit status 2\n"]}`
	exited   = `{"output_type": "stream", "name": "stderr", "text": "exit status 1\n"}`
	// GoNB's report of a compilation error.
	compileErr = `{"output_type": "error", "ename": "ERROR", "evalue": "./main.go:10:5: declared and not used: x\n", "traceback": ["\u001b[7mCell[4]\u001b[0m: Line 2", "declared and not used: x"]}`
)

func code(n int, outputs ...string) string {
	return fmt.Sprintf(`"execution_count": %d, "outputs": [%s]`, n, strings.Join(outputs, ", "))
}

func TestCheckNotebook(t *testing.T) {
	for _, tc := range []struct {
		name      string
		nb        string
		minImages int
		want      []string // substrings of the problems' text, in order
		problems  int      // number of problems; 0 means the notebook passes
		images    int
	}{
		{"png figure", nb(code(1, stdout, stderrOK), code(2, pngOut)), 1, nil, 0, 1},
		{"svg as html", nb(code(1, svgHTML)), 1, nil, 0, 1},
		{"img as html", nb(code(1, imgHTML), code(2, pngOut)), 2, nil, 0, 2},
		{"no figure", nb(code(1, stdout, plainHTML)), 1, []string{"shows 0 figure(s), want at least 1"}, 1, 0},
		{"too few figures", nb(code(1, pngOut)), 2, []string{"shows 1 figure(s), want at least 2"}, 1, 1},
		{"no figure wanted", nb(code(1, stdout)), 0, nil, 0, 0},
		{"panic", nb(code(1, pngOut), code(2, panicked)), 1, []string{`cell 3 (In [2]): stderr contains "panic:"`, "goroutine 1 [running]"}, 1, 1},
		{"exit status", nb(code(1, pngOut, exited)), 1, []string{`cell 2 (In [1]): stderr contains "exit status"`}, 1, 1},
		{"compile error", nb(code(1, compileErr), code(2, pngOut)), 1, []string{"cell 2 (In [1]): error output ERROR: ./main.go:10:5: declared and not used: x", "Cell[4]: Line 2"}, 1, 1},
		{"not executed", nb(code(1, pngOut), `"execution_count": null, "outputs": []`), 1, []string{"cell 3: was not executed", "fmt.Println(1)"}, 1, 1},
		{"metadata asks for more figures", strings.Replace(nb(code(1, pngOut)), `"metadata": {}, "cells"`, `"metadata": {"invmmd": {"figures": 2}}, "cells"`, 1), 1,
			[]string{`shows 1 figure(s), want at least 2 (its metadata "invmmd": {"figures": N})`}, 1, 1},
		{"metadata satisfied", strings.Replace(nb(code(1, pngOut), code(2, svgHTML)), `"metadata": {}, "cells"`, `"metadata": {"invmmd": {"figures": 2}}, "cells"`, 1), 1, nil, 0, 2},
		{"several problems", nb(code(1, panicked), code(2, compileErr)), 1, []string{"cell 2 (In [1]): stderr", "cell 3 (In [2]): error output", "shows 0 figure(s)"}, 3, 0},
		{"progress bar saved", nb(code(1, pngOut, `{"output_type": "stream", "name": "stdout", "text": ["sim [==   ] 1/9 \u001b[K\n", "\rsim [====] 9/9\n"]}`)), 1,
			[]string{"cell 2 (In [1]): stdout output holds terminal control codes"}, 1, 1},
		{"absolute path printed", nb(code(1, pngOut, `{"output_type": "stream", "name": "stdout", "text": "tables go to /work/main/notebooks/../data/cache/nb01\n"}`)), 1,
			[]string{"stdout output shows the machine-absolute path /work/main/notebooks/../data/cache/nb01"}, 1, 1},
		{"absolute path in markdown", nb(code(1, pngOut, `{"output_type": "display_data", "metadata": {}, "data": {"text/markdown": "wrote (/root/x/t.csv)"}}`)), 1,
			[]string{"text/markdown output shows the machine-absolute path /root/x/t.csv"}, 1, 1},
		{"relative paths and fractions are fine", nb(code(1, pngOut, `{"output_type": "stream", "name": "stdout", "text": "wrote ../data/cache/nb01/t.csv; 3/12 done; a/b\n"}`)), 1, nil, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, probs, err := CheckNotebook("t.ipynb", []byte(tc.nb), tc.minImages)
			if err != nil {
				t.Fatalf("CheckNotebook: %v", err)
			}
			if sum.Images != tc.images {
				t.Errorf("counted %d figures, want %d", sum.Images, tc.images)
			}
			if len(probs) != tc.problems {
				t.Fatalf("%d problems %v, want %d", len(probs), probs, tc.problems)
			}
			all := ""
			for _, p := range probs {
				all += p.String() + "\n"
			}
			last := 0
			for _, w := range tc.want {
				i := strings.Index(all[last:], w)
				if i < 0 {
					t.Fatalf("problems do not mention %q (in order):\n%s", w, all)
				}
				last += i
			}
			if strings.Contains(all, "\x1b[") {
				t.Errorf("problems keep terminal colour codes:\n%q", all)
			}
		})
	}
}

func TestCheckNotebookMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"truncated", `{"nbformat": 4, "cells": [`, "not a notebook"},
		{"syntax error", "{\"nbformat\": 4,\n \"cells\": [}", "line 2, column"},
		{"not a notebook", `{"hello": "world"}`, `no "nbformat" or "cells"`},
		{"bad source type", `{"nbformat": 4, "cells": [{"cell_type": "code", "source": 7}]}`, "want a string or a list of strings"},
		{"bad outputs type", `{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "outputs": "x"}]}`, `field "cells.outputs"`},
	} {
		_, _, err := CheckNotebook("bad.ipynb", []byte(tc.data), 1)
		if err == nil || !strings.Contains(err.Error(), "bad.ipynb") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming the file and containing %q", tc.name, err, tc.want)
		}
	}
}

// tinyPNG returns a base64 PNG of 2×2 pixels.
func tinyPNG(t *testing.T) string {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func page(body string) string {
	return "<!DOCTYPE html>\n<html>\n<head>\n<script src=\"https://example.org/require.min.js\"></script>\n" +
		"<style>.icon { background: url('data:image/svg+xml;utf8,<svg xmlns=\"x\"></svg>'); }</style>\n</head>\n<body>\n" + body + "\n</body>\n</html>\n"
}

func TestCheckHTML(t *testing.T) {
	good := tinyPNG(t)
	for _, tc := range []struct {
		name   string
		page   string
		want   []string
		images int
	}{
		{"embedded png", page(`<div class="jp-OutputArea-output"><img src="data:image/png;base64,` + good + `"></div>`), nil, 1},
		{"inline svg", page(`<div><svg width="10" height="10"></svg></div>`), nil, 1},
		{"two images", page(`<img alt="a" src='data:image/png;base64,` + good + `'><svg>`), nil, 2},
		{"no image (svg only in style and script)", page(`<p>text</p><script>var s = "<svg>";</script>`), []string{"holds no embedded image"}, 0},
		{"broken png", page(`<img src="data:image/png;base64,iVBORw0KGgo=">`), []string{"line 8: embedded PNG does not decode", "holds no embedded image"}, 0},
		{"bad base64", page(`<img src="data:image/png;base64,@@@">`), []string{"base64: illegal base64 data", "holds no embedded image"}, 0},
		{"linked image", page(`<img src="figure.png"><svg></svg>`), []string{"<img> refers to figure.png"}, 1},
		{"local mathjax", strings.Replace(page(`<svg></svg>`), "https://example.org", "file:///usr/share/javascript", 1),
			[]string{"line 4 loads from the local file system"}, 1},
		{"go highlighting", page(`<svg></svg><pre><span class="c1">// a comment</span> <span class="s">` + "`raw`" + `</span></pre>`), nil, 1},
		{"ipython highlighting", page(`<svg></svg>` + "\n" + `<pre><span class="o">//</span> <span class="n">a</span></pre>`),
			[]string{"line 9 highlights // as an operator: the page was rendered with a non-Go lexer"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, probs, err := CheckHTML("p.html", []byte(tc.page))
			if err != nil {
				t.Fatalf("CheckHTML: %v", err)
			}
			if sum.Images != tc.images {
				t.Errorf("counted %d images, want %d", sum.Images, tc.images)
			}
			if len(probs) != len(tc.want) {
				t.Fatalf("problems %v, want %q", probs, tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(probs[i].String(), w) {
					t.Errorf("problem %d is %q, want it to contain %q", i, probs[i], w)
				}
			}
		})
	}
	if _, _, err := CheckHTML("x.html", []byte(`{"nbformat": 4}`)); err == nil || !strings.Contains(err.Error(), "not an HTML page") {
		t.Errorf("a JSON file in HTML mode: error %v, want 'not an HTML page'", err)
	}
}

// run ties it together: exit status and output per mode.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.ipynb", nb(code(1, pngOut)))
	bad := write("bad.ipynb", nb(code(1, panicked)))
	broken := write("broken.ipynb", "{")
	goodPage := write("good.html", page(`<img src="data:image/png;base64,`+tinyPNG(t)+`">`))
	const meta = `{"invmmd": {"figures": 1}, "kernelspec": {"name": "gonb"}, "language_info": {"pygments_lexer": "go"}}`
	if err := os.MkdirAll(filepath.Join(dir, "notebooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("README.md", "# Title\n\n## Results at a glance\n")
	linked := func(name, link string) string {
		return write(filepath.Join("notebooks", name), source(meta,
			cell("markdown", "# 01\nSet INVMMD_PAPER_SIZE=1; see ["+link+"]("+link+")."), cell("code", ModuleEdit)))
	}
	goodLink := linked("good.ipynb", "../README.md#results-at-a-glance")
	movedLink := linked("moved.ipynb", "../README.md#training-choices")
	for _, tc := range []struct {
		name       string
		args       []string
		status     int
		out, error string
	}{
		{"passing notebook", []string{good}, 0, "ok " + good + " (2 cells, 1 of 1 code cells executed, 1 figures)", ""},
		{"failing notebook", []string{good, bad}, 1, "ok " + good, "FAIL " + bad + ": cell 2 (In [1]): stderr contains \"panic:\""},
		{"unparsable notebook", []string{broken, bad}, 2, "", "broken.ipynb: not a notebook"},
		{"missing file", []string{filepath.Join(dir, "none.ipynb")}, 2, "", "no such file"},
		{"html mode", []string{"-html", goodPage}, 0, "ok " + goodPage + " (1 embedded images)", ""},
		{"html mode on a notebook", []string{"-html", good}, 2, "", "not an HTML page"},
		{"min-images", []string{"-min-images", "2", good}, 1, "", "want at least 2"},
		{"source mode", []string{"-source", good}, 1, "", `pygments_lexer is "", want "go"`},
		{"html and source", []string{"-html", "-source", good}, 2, "", "exclude each other"},
		{"source mode, README link", []string{"-source", goodLink}, 0, "ok " + goodLink + " (source conventions)", ""},
		{"source mode, README section moved", []string{"-source", movedLink}, 1, "", "links ../README.md#training-choices, but ../README.md has no heading with that anchor"},
		{"no files", nil, 2, "", "usage: nbcheck"},
		{"bad flag", []string{"-nope"}, 2, "", "flag provided but not defined"},
		{"negative min-images", []string{"-min-images", "-1", good}, 2, "", "want 0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if got := run(tc.args, &out, &errb); got != tc.status {
				t.Errorf("status %d, want %d\nstdout: %s\nstderr: %s", got, tc.status, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout %q, want it to contain %q", out.String(), tc.out)
			}
			if !strings.Contains(errb.String(), tc.error) {
				t.Errorf("stderr %q, want it to contain %q", errb.String(), tc.error)
			}
		})
	}
}

// source builds a notebook source with the given metadata and cells (JSON objects).
func source(metadata string, cells ...string) string {
	return `{"nbformat": 4, "nbformat_minor": 5, "metadata": ` + metadata + `, "cells": [` + strings.Join(cells, ",\n") + `]}`
}

func cell(kind, src string) string {
	b, _ := json.Marshal(src)
	if kind == "code" {
		return `{"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": ` + string(b) + `}`
	}
	return `{"cell_type": "markdown", "metadata": {}, "source": ` + string(b) + `}`
}

func TestCheckSource(t *testing.T) {
	const meta = `{"invmmd": {"figures": 2}, "kernelspec": {"name": "gonb", "display_name": "Go (gonb)"}, "language_info": {"name": "go", "pygments_lexer": "go"}}`
	title := cell("markdown", "# 01\nSet INVMMD_PAPER_SIZE=1 for the paper-size run.")
	edit := cell("code", ModuleEdit+"\n")
	body := cell("code", "%%\nfmt.Println(1)")
	for _, tc := range []struct {
		name string
		nb   string
		want []string
	}{
		{"good", source(meta, title, edit, body), nil},
		{"switch in a code cell", source(meta, cell("markdown", "# 01"), edit, cell("code", `var paperSize = os.Getenv("INVMMD_PAPER_SIZE") == "1"`)), nil},
		{"python kernel", source(strings.Replace(meta, `"gonb"`, `"python3"`, 1), title, edit, body), []string{`kernel "python3", want "gonb"`}},
		{"no figures metadata", source(`{"kernelspec": {"name": "gonb"}, "language_info": {"pygments_lexer": "go"}}`, title, edit, body), []string{`metadata lacks "invmmd": {"figures": N}`}},
		{"no lexer (GoNB's default)", source(strings.Replace(meta, `"pygments_lexer": "go"`, `"pygments_lexer": ""`, 1), title, edit, body), []string{`pygments_lexer is "", want "go"`}},
		{"no module edit", source(meta, title, body), []string{"cell 2: the first code cell must be exactly"}},
		{"module edit with a typo", source(meta, title, cell("code", strings.Replace(ModuleEdit, "GONB_DIR", "GONBDIR", 1)), body), []string{"cell 2: the first code cell"}},
		{"switch too late", source(meta, cell("markdown", "# 01"), edit, body, body, cell("markdown", "INVMMD_PAPER_SIZE")), []string{"none of the first 4 cells mentions INVMMD_PAPER_SIZE"}},
		{"committed outputs are fine", source(meta, title, edit, strings.Replace(body, `"execution_count": null, "outputs": []`, `"execution_count": 3, "outputs": [`+pngOut+`]`, 1)), nil},
		{"no code", source(meta, title), []string{"has no code cell"}},
		{"nbformat 3", strings.Replace(source(meta, title, edit, body), `"nbformat": 4`, `"nbformat": 3`, 1), []string{"nbformat 3, want 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs, err := CheckSource("s.ipynb", []byte(tc.nb))
			if err != nil {
				t.Fatalf("CheckSource: %v", err)
			}
			if len(probs) != len(tc.want) {
				t.Fatalf("problems %v, want %q", probs, tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(probs[i].String(), w) {
					t.Errorf("problem %d is %q, want it to contain %q", i, probs[i], w)
				}
			}
		})
	}
	if _, err := CheckSource("bad.ipynb", []byte("{\n  \"cells\": [,]}")); err == nil || !strings.Contains(err.Error(), "bad.ipynb: not a notebook: line 2") {
		t.Errorf("malformed source: error %v, want one naming the file and line", err)
	}
}

// The repository's own notebooks follow the conventions, hold a clean executed run, and each has its rendered page
// under docs/notebooks/ embedding at least the figures its metadata promises. This runs
// without Jupyter, on the committed files, so CI checks them even where notebooks are not
// executed.
func TestRepositoryNotebooksAndPages(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no notebooks/*.ipynb in this checkout")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcProbs, err := CheckSource(f, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range srcProbs {
			t.Errorf("%v", p)
		}
		linkProbs, err := CheckLinks(filepath.ToSlash(f), data, func(name string) ([]byte, error) { return os.ReadFile(filepath.FromSlash(name)) })
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range linkProbs {
			t.Errorf("%v", p)
		}
		// The committed notebook is its executed quick run (make pages): it must pass the
		// executed check, so that a repository browser shows results and figures, not errors.
		_, runProbs, err := CheckNotebook(f, data, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range runProbs {
			t.Errorf("%v (re-run make pages)", p)
		}
		var nb notebook
		if err := json.Unmarshal(data, &nb); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		page := filepath.Join("..", "..", "docs", "notebooks", strings.TrimSuffix(filepath.Base(f), ".ipynb")+".html")
		html, err := os.ReadFile(page)
		if err != nil {
			t.Errorf("%s has no rendered page: %v (run scripts/notebooks.sh %s)", f, err, f)
			continue
		}
		sum, probs, err := CheckHTML(page, html)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probs {
			t.Errorf("%v", p)
		}
		if want := nb.Metadata.Invmmd.Figures; sum.Images < want {
			t.Errorf("%s embeds %d images, but %s promises %d figures (re-render it with scripts/notebooks.sh %s)", page, sum.Images, f, want, f)
		}
	}
}

// TestModuleEditGoNBVersion checks that the module cell requires the GoNB version that the
// project's module graph selects (through GoMLX): a different one would make GoNB's go get
// change the notebooks' dependencies or ask the module proxy.
func TestModuleEditGoNBVersion(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/janpfeifer/gonb").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/janpfeifer/gonb: %v", err)
	}
	want := "-require=github.com/janpfeifer/gonb@" + strings.TrimSpace(string(out)) + " "
	if !strings.Contains(ModuleEdit, want) {
		t.Errorf("ModuleEdit = %s\nwant it to contain %q (the version go list -m selects)", ModuleEdit, want)
	}
}

// Two notebooks that declare the same helper fail the duplicates check, one problem per
// helper naming both notebooks; helpers of different names, and code after %%, do not.
func TestDuplicateHelpers(t *testing.T) {
	const meta = `{}`
	a := source(meta,
		cell("code", "import \"fmt\"\n\n// must stops the cell.\nfunc must[T any](v T, err error) T { return v }\n\ntype liveProgress struct{}\n\nfunc (p *liveProgress) Write(b []byte) (int, error) { return 0, nil }\n\n%%\nfmt.Println(1)"),
		cell("markdown", "func notCode() {}"))
	b := source(meta,
		cell("code", "func must[T any](v T, err error) T { return v }\nfunc onlyHere() {}\ntype liveProgress struct{ id string }\n\n%%\nf := func() {}\nf()"),
		cell("code", "func (q liveProgress) Write(b []byte) (int, error) { return 1, nil }"))
	c := source(meta, cell("code", "func other() {}\n%%\nfunc() {}()"))
	probs, err := DuplicateHelpers([]string{"a.ipynb", "b.ipynb", "c.ipynb"}, [][]byte{[]byte(a), []byte(b), []byte(c)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	want := []string{
		"a.ipynb: liveProgress is declared by 2 notebooks: a.ipynb (cell 1), b.ipynb (cell 1)",
		"a.ipynb: liveProgress.Write is declared by 2 notebooks: a.ipynb (cell 1), b.ipynb (cell 2)",
		"a.ipynb: must is declared by 2 notebooks: a.ipynb (cell 1), b.ipynb (cell 1)",
	}
	if len(got) != len(want) {
		t.Fatalf("DuplicateHelpers found %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
	if probs, err := DuplicateHelpers([]string{"a.ipynb", "c.ipynb"}, [][]byte{[]byte(a), []byte(c)}); err != nil || len(probs) != 0 {
		t.Errorf("notebooks with distinct helpers: %v, %v; want no problem", probs, err)
	}
	if _, err := DuplicateHelpers([]string{"bad.ipynb"}, [][]byte{[]byte("{")}); err == nil || !strings.Contains(err.Error(), "bad.ipynb: not a notebook") {
		t.Errorf("malformed notebook: error %v, want one naming the file", err)
	}
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	for name, body := range map[string]string{"a.ipynb": a, "b.ipynb": b} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code := run([]string{"-duplicates", filepath.Join(dir, "a.ipynb"), filepath.Join(dir, "b.ipynb")}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "must is declared by 2 notebooks") {
		t.Errorf("nbcheck -duplicates a b: exit %d, stderr %q; want 1 and the duplicate named", code, stderr.String())
	}
}

// The repository's notebooks share their helpers through invmmd/nb: none declares a
// helper that another declares too.
func TestRepositoryNotebooksShareHelpers(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Skip("fewer than two notebooks/*.ipynb in this checkout")
	}
	data := make([][]byte, len(files))
	for k, f := range files {
		if data[k], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	probs, err := DuplicateHelpers(files, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("%v", p)
	}
}

func TestSlugAndAnchors(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Results at a glance", "results-at-a-glance"},
		{"`invmmd fit`'s defaults", "invmmd-fits-defaults"},
		{"Experiment commands: `invmmd sim`, `invmmd tmnist`", "experiment-commands-invmmd-sim-invmmd-tmnist"},
		{"The paper's normaliser split (`sim_mf075`)", "the-papers-normaliser-split-sim_mf075"},
		{"Differences from the paper above 0.03", "differences-from-the-paper-above-003"},
		{"A [linked](x.md) heading", "a-linked-heading"},
		{"Beyond the paper: a continuous nuisance", "beyond-the-paper-a-continuous-nuisance"},
	} {
		if got := Slug(tc.heading); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
	a := Anchors([]byte("# T\n## Notes\n```sh\n# not a heading\n```\n## Notes ##\n"))
	for _, want := range []string{"t", "notes", "notes-1"} {
		if !a[want] {
			t.Errorf("Anchors lack %q: %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Errorf("Anchors took a comment in a code fence for a heading: %v", a)
	}
}

// A link to a section of README.md (or another Markdown file) fails when the file has no
// heading with that anchor, or cannot be read; one to an existing section passes.
func TestCheckLinks(t *testing.T) {
	files := map[string]string{
		"README.md":       "# invmmd\n\n## Results at a glance\n\n## Your own data\n",
		"docs/results.md": "# Results in depth\n\n## Why the paper's split collapses fits\n",
	}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	nbk := source(`{}`, cell("markdown", "See [the glance](../README.md#results-at-a-glance), [own data](../README.md#your-own-data),\n"+
		"[why](../docs/results.md#why-the-papers-split-collapses-fits) and [a file](../README.md)."),
		cell("markdown", "[Training choices](../README.md#training-choices)"),
		cell("code", "// [not prose](../README.md#nope)"),
		cell("markdown", "[gone](../docs/gone.md#x) and [moved](../docs/results.md#the-variance-study)"))
	probs, err := CheckLinks("notebooks/n.ipynb", []byte(nbk), read)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"cell 2: links ../README.md#training-choices, but ../README.md has no heading with that anchor",
		"cell 4: links ../docs/gone.md#x, but ../docs/gone.md cannot be read",
		"cell 4: links ../docs/results.md#the-variance-study, but ../docs/results.md has no heading",
	}
	if len(probs) != len(want) {
		t.Fatalf("problems %v, want %d", probs, len(want))
	}
	for i, w := range want {
		if !strings.Contains(probs[i].String(), w) {
			t.Errorf("problem %d is %q, want it to contain %q", i, probs[i], w)
		}
	}
}
