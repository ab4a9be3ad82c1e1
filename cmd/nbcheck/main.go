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
// Each mode's checks are its functions' (their docs list them): CheckNotebook, CheckHTML,
// CheckSource with CheckLinks, and DuplicateHelpers.
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
		ok := "source conventions" // what the file's "ok" line says of it
		switch {
		case *html:
			sum, probs, err = CheckHTML(file, data)
			ok = fmt.Sprintf("%d embedded images", sum.Images)
		case *source:
			probs, err = CheckSource(file, data)
			if err == nil {
				var links []Problem
				links, err = CheckLinks(file, data, func(name string) ([]byte, error) { return os.ReadFile(filepath.FromSlash(name)) })
				probs = append(probs, links...)
			}
		default:
			sum, probs, err = CheckNotebook(file, data, *minImages)
			ok = fmt.Sprintf("%d cells, %d of %d code cells executed, %d figures", sum.Cells, sum.Executed, sum.CodeCells, sum.Images)
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
		fmt.Fprintf(stdout, "nbcheck: ok %s (%s)\n", file, ok)
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
