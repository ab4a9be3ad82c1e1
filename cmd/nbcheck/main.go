// Command nbcheck fails when an executed Jupyter notebook shows an error, or when a rendered
// notebook page lacks its figures. GoNB (the Go kernel) does not make `jupyter nbconvert
// --execute` fail when a cell panics or exits non-zero, so scripts/notebooks.sh runs this
// on every executed notebook and on every page it renders.
//
// Usage:
//
//	nbcheck [-min-images N] executed.ipynb ...
//	nbcheck -html page.html ...
//	nbcheck -source notebook.ipynb ...
//	nbcheck -duplicates notebook.ipynb ...
//
// Notebook mode fails on: an output of type "error"; a stderr stream containing "panic:"
// or "exit status"; a code cell without an execution count (the kernel died or timed
// out); a notebook with fewer than N (default 1) figures, or fewer than its own metadata
// asks for ("metadata": {"invmmd": {"figures": N}}), where a figure is an image/png,
// image/svg+xml, image/jpeg or image/gif output, or text/html holding <img> or <svg>
// (gonbui.DisplayPng gives image/png; gonbui.DisplaySvg gives text/html).
//
// HTML mode fails on a page without an embedded image (<img src="data:image/png;base64,...">,
// another data: image, or inline <svg>), an embedded PNG that does not decode, an <img>
// pointing outside the page, or a src/href loading from file:// (Debian's nbconvert
// default for require.js and MathJax, useless to a reader on another machine).
//
// Notebook mode also fails on a text output (stream, text/plain, text/markdown) holding
// terminal control codes (a progress bar saved as dozens of \r…\x1b[K lines) or a
// machine-absolute path (/home/…, /root/…, /work/…, /tmp/…).
//
// HTML mode also fails on a page whose code was highlighted by a non-Go lexer ("//" marked
// as an operator, as the IPython lexer does).
//
// Source mode checks notebooks as committed in notebooks/, before they run: the GoNB kernel,
// the Go lexer in metadata.language_info, a first code cell that points the notebook's
// module at the repository, the INVMMD_PAPER_SIZE switch named in the first cells, and
// metadata "invmmd": {"figures": N}. Committed notebooks hold the outputs of their quick run.
// It also fails on a Markdown link to a section of a Markdown file (../README.md#anchor,
// ../docs/results.md#anchor) whose file has no heading with that GitHub-style anchor: a
// section moved out of the README leaves such links behind.
//
// Duplicates mode reads several notebook sources together and fails when two of them
// declare the same helper (a top-level function, method or type): shared helpers live once
// in package invmmd/nb.
//
// Each problem is printed as FILE: cell N: WHAT, with an excerpt of the offending output;
// each good file as "ok FILE (...)". The exit status is 0 when every file passes, 1 when
// some file has a problem and 2 for bad usage or a file that cannot be read or parsed.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nbcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	html := fs.Bool("html", false, "check rendered HTML pages instead of executed notebooks")
	source := fs.Bool("source", false, "check notebook sources (as committed) instead of executed notebooks")
	duplicates := fs.Bool("duplicates", false, "check that no two of the notebooks declare the same helper")
	minImages := fs.Int("min-images", 1, "figures each notebook must show")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: nbcheck [-min-images N] executed.ipynb ...\n       nbcheck -html page.html ...\n       nbcheck -source notebook.ipynb ...\n       nbcheck -duplicates notebook.ipynb ...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	if *html && *source || *duplicates && (*html || *source) {
		fmt.Fprintln(stderr, "nbcheck: -html, -source and -duplicates exclude each other")
		return 2
	}
	if *duplicates {
		return runDuplicates(fs.Args(), stdout, stderr)
	}
	if *minImages < 0 {
		fmt.Fprintf(stderr, "nbcheck: -min-images %d, want 0 or more\n", *minImages)
		return 2
	}
	status := 0
	for _, file := range fs.Args() {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "nbcheck: %v\n", err)
			status = 2
			continue
		}
		var sum Summary
		var probs []Problem
		switch {
		case *html:
			sum, probs, err = CheckHTML(file, data)
		case *source:
			probs, err = CheckSource(file, data)
			if err == nil {
				var links []Problem
				links, err = CheckLinks(file, data, func(name string) ([]byte, error) { return os.ReadFile(filepath.FromSlash(name)) })
				probs = append(probs, links...)
			}
		default:
			sum, probs, err = CheckNotebook(file, data, *minImages)
		}
		if err != nil {
			fmt.Fprintf(stderr, "nbcheck: %v\n", err)
			status = 2
			continue
		}
		for _, p := range probs {
			fmt.Fprintf(stderr, "nbcheck: FAIL %v\n", p)
		}
		if len(probs) > 0 {
			status = max(status, 1)
			continue
		}
		switch {
		case *html:
			fmt.Fprintf(stdout, "nbcheck: ok %s (%d embedded images)\n", file, sum.Images)
		case *source:
			fmt.Fprintf(stdout, "nbcheck: ok %s (source conventions)\n", file)
		default:
			fmt.Fprintf(stdout, "nbcheck: ok %s (%d cells, %d of %d code cells executed, %d figures)\n",
				file, sum.Cells, sum.Executed, sum.CodeCells, sum.Images)
		}
	}
	return status
}

// runDuplicates is run's -duplicates mode: DuplicateHelpers over every file at once.
func runDuplicates(files []string, stdout, stderr io.Writer) int {
	data := make([][]byte, len(files))
	for k, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "nbcheck: %v\n", err)
			return 2
		}
		data[k] = b
	}
	probs, err := DuplicateHelpers(files, data)
	if err != nil {
		fmt.Fprintf(stderr, "nbcheck: %v\n", err)
		return 2
	}
	for _, p := range probs {
		fmt.Fprintf(stderr, "nbcheck: FAIL %v\n", p)
	}
	if len(probs) > 0 {
		return 1
	}
	fmt.Fprintf(stdout, "nbcheck: ok: no helper declared by two of the %d notebooks\n", len(files))
	return 0
}
