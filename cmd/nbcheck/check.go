package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/png" // registers PNG for image.DecodeConfig
	"regexp"
	"slices"
	"strings"
)

// Problem is one reason a notebook or page fails the check.
type Problem struct {
	File string
	Cell int    // 1-based position of the cell in the notebook; 0 for the whole file
	In   int    // the cell's execution count, as Jupyter shows it ("In [3]"); 0 if none
	What string // what is wrong, with an excerpt of the offending output
}

func (p Problem) String() string {
	switch {
	case p.Cell == 0:
		return fmt.Sprintf("%s: %s", p.File, p.What)
	case p.In == 0:
		return fmt.Sprintf("%s: cell %d: %s", p.File, p.Cell, p.What)
	}
	return fmt.Sprintf("%s: cell %d (In [%d]): %s", p.File, p.Cell, p.In, p.What)
}

// Summary counts what a check saw in one file, for the "ok" line.
type Summary struct {
	Cells, CodeCells, Executed, Images int
}

// StderrMarkers are the texts that fail a notebook when a stderr stream contains them:
// GoNB v0.11.1 reports a cell's panic or non-zero exit only this way, not as an error
// output, and nbconvert does not fail on it.
var StderrMarkers = []string{"panic:", "exit status"}

// notebook is the part of the nbformat 4 JSON schema the check reads.
type notebook struct {
	Cells    []notebookCell `json:"cells"`
	NBFormat *int           `json:"nbformat"`
	Metadata struct {
		KernelSpec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			PygmentsLexer string `json:"pygments_lexer"`
		} `json:"language_info"`
		// Invmmd is the project's own notebook metadata: "figures" is the number of figures
		// the notebook must show, so that a lost figure fails the check.
		Invmmd struct {
			Figures int `json:"figures"`
		} `json:"invmmd"`
	} `json:"metadata"`
}

type notebookCell struct {
	CellType       string           `json:"cell_type"`
	Source         multiline        `json:"source"`
	ExecutionCount *int             `json:"execution_count"`
	Outputs        []notebookOutput `json:"outputs"`
}

type notebookOutput struct {
	OutputType string               `json:"output_type"`
	Name       string               `json:"name"` // stream: stdout or stderr
	Text       multiline            `json:"text"`
	Data       map[string]multiline `json:"data"`
	EName      string               `json:"ename"`
	EValue     string               `json:"evalue"`
	Traceback  []string             `json:"traceback"`
}

// multiline is nbformat's multi-line string: either a string or a list of strings that
// are concatenated.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var parts []string
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("want a string or a list of strings, got %.40s", b)
	}
	*m = multiline(strings.Join(parts, ""))
	return nil
}

// imageMIMEs are the output types that count as a figure.
var imageMIMEs = []string{"image/png", "image/svg+xml", "image/jpeg", "image/gif"}

// htmlImage matches an <img> or <svg> element in HTML output (gonbui.DisplaySvg and
// DisplayHtml emit text/html).
var htmlImage = regexp.MustCompile(`(?i)<(img|svg)[\s>]`)

// CheckNotebook reads an executed notebook and returns what is wrong with it: error
// outputs, stderr streams with a StderrMarker, code cells that were not executed, text
// outputs that checkText refuses, and fewer image outputs than the larger of minImages and
// the notebook's own metadata "invmmd": {"figures": N}. The error is for a file that is not
// a notebook.
func CheckNotebook(file string, data []byte, minImages int) (Summary, []Problem, error) {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return Summary{}, nil, fmt.Errorf("%s: not a notebook: %s", file, jsonError(data, err))
	}
	if nb.NBFormat == nil || nb.Cells == nil {
		return Summary{}, nil, fmt.Errorf("%s: not a notebook: no \"nbformat\" or \"cells\" field", file)
	}
	var sum Summary
	var probs []Problem
	in := 0 // execution count of the cell being read
	add := func(cell int, format string, args ...any) {
		probs = append(probs, Problem{File: file, Cell: cell, In: in, What: fmt.Sprintf(format, args...)})
	}
	for i, c := range nb.Cells {
		cell := i + 1
		in = 0
		if c.ExecutionCount != nil {
			in = *c.ExecutionCount
		}
		sum.Cells++
		if c.CellType != "code" {
			continue
		}
		sum.CodeCells++
		src := strings.TrimSpace(string(c.Source))
		if c.ExecutionCount != nil {
			sum.Executed++
		} else if src != "" {
			add(cell, "was not executed (no execution count): did the kernel die or time out?\n%s", excerpt("source", src))
		}
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "error":
				tb := strings.Join(o.Traceback, "\n")
				add(cell, "error output %s: %s\n%s", o.EName, firstLine(o.EValue), excerpt("traceback", tb))
			case "stream":
				text := string(o.Text)
				checkText(text, o.Name, add, cell)
				if i := slices.IndexFunc(StderrMarkers, func(m string) bool { return strings.Contains(text, m) }); o.Name == "stderr" && i >= 0 {
					add(cell, "stderr contains %q\n%s", StderrMarkers[i], excerpt("stderr", text))
				}
			case "display_data", "execute_result", "update_display_data":
				if hasImage(o.Data) {
					sum.Images++
				}
				for _, mime := range textMIMEs {
					if t, ok := o.Data[mime]; ok {
						checkText(string(t), mime, add, cell)
					}
				}
			}
		}
	}
	in = 0
	want, from := minImages, ""
	if f := nb.Metadata.Invmmd.Figures; f > want {
		want, from = f, ` (its metadata "invmmd": {"figures": N})`
	}
	if sum.Images < want {
		add(0, "shows %d figure(s), want at least %d%s (image/png, image/svg+xml or HTML <img>/<svg> outputs)", sum.Images, want, from)
	}
	return sum, probs, nil
}

// textMIMEs are the output types whose text a reader sees as text.
var textMIMEs = []string{"text/plain", "text/markdown"}

// absPath matches a machine-absolute path: a reader's machine has other folders, and the
// repository's pages and notebooks should not show the author's.
var absPath = regexp.MustCompile(`(^|[\s"'(=:,\[])(/(?:home|root|work|tmp|Users|var|opt|usr|mnt|srv|private)/[^\s"')\],]*)`)

// checkText reports what a saved text output must not hold: terminal control codes
// (a progress bar redrawn with \r or ANSI escapes leaves dozens of lines in the saved
// notebook; show progress in place with gonbui.UpdateHtml instead) and machine-absolute paths.
func checkText(text, what string, add func(int, string, ...any), cell int) {
	if i := strings.IndexAny(text, "\r\x1b"); i >= 0 {
		add(cell, "%s output holds terminal control codes (\\r or escape sequences), e.g. %q: a progress bar belongs in an output updated in place, not in the saved notebook",
			what, clip(text[max(0, i-30):], 80))
	}
	if m := absPath.FindStringSubmatch(text); m != nil {
		add(cell, "%s output shows the machine-absolute path %s: print paths relative to the notebook's folder", what, clip(m[2], 100))
	}
}

// Conventions every notebook source in notebooks/ follows (see notebooks/README.md).
const (
	// ModuleEdit is the start of the first code cell: it points the notebook's Go module at
	// the repository (GONB_DIR is the notebook's folder when Jupyter runs it) and requires
	// the GoNB version that GoMLX requires, so that GoNB's go get finds gonbui in the build
	// list instead of asking the module proxy (TestModuleEditGoNBVersion keeps them equal).
	ModuleEdit = `!*go mod edit -require=github.com/invmmd/invmmd@v0.0.0-00010101000000-000000000000 -require=github.com/janpfeifer/gonb@v0.11.1 -replace=github.com/invmmd/invmmd="${GONB_DIR}/.."`
	// GoLexer is the Pygments lexer of the notebooks' code: GoNB reports none, and nbconvert
	// then highlights Go as IPython (// comments unrecognised, backticks as errors).
	GoLexer = "go"
	// PaperSizeSwitch is the environment variable that selects the paper-size run.
	PaperSizeSwitch = "INVMMD_PAPER_SIZE"
	// switchCells is how many leading cells must mention PaperSizeSwitch.
	switchCells = 4
)

// CheckSource reads a notebook as committed (not executed) and returns how it breaks the
// project's conventions: the GoNB kernel; a first code cell that is ModuleEdit; the
// PaperSizeSwitch named in its first cells, so a reader sees how to get the paper-size run;
// metadata "invmmd": {"figures": N} with N ≥ 1, which the executed check enforces; and the Go
// lexer in metadata.language_info, so that pages and repository browsers highlight Go as Go.
// Outputs are allowed: the committed notebooks hold their quick run's outputs (make pages).
// The error is for a file that is not a notebook.
func CheckSource(file string, data []byte) ([]Problem, error) {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %s", file, jsonError(data, err))
	}
	if nb.NBFormat == nil || nb.Cells == nil {
		return nil, fmt.Errorf("%s: not a notebook: no \"nbformat\" or \"cells\" field", file)
	}
	var probs []Problem
	add := func(cell int, format string, args ...any) {
		probs = append(probs, Problem{File: file, Cell: cell, What: fmt.Sprintf(format, args...)})
	}
	if *nb.NBFormat != 4 {
		add(0, "nbformat %d, want 4", *nb.NBFormat)
	}
	if k := nb.Metadata.KernelSpec.Name; k != "gonb" {
		add(0, "kernel %q, want \"gonb\" (metadata.kernelspec.name)", k)
	}
	if nb.Metadata.Invmmd.Figures < 1 {
		add(0, `metadata lacks "invmmd": {"figures": N} (N ≥ 1, the number of figures the notebook shows)`)
	}
	if l := nb.Metadata.LanguageInfo.PygmentsLexer; l != GoLexer {
		add(0, "metadata.language_info.pygments_lexer is %q, want %q: nbconvert and repository browsers highlight the cells with it (IPython otherwise)", l, GoLexer)
	}
	if i := slices.IndexFunc(nb.Cells, func(c notebookCell) bool { return c.CellType == "code" }); i < 0 {
		add(0, "has no code cell")
	} else if src := string(nb.Cells[i].Source); strings.TrimSpace(src) != ModuleEdit {
		add(i+1, "the first code cell must be exactly\n    %s\n  got\n    %s", ModuleEdit, clip(src, 200))
	}
	if !slices.ContainsFunc(nb.Cells[:min(switchCells, len(nb.Cells))], func(c notebookCell) bool { return strings.Contains(string(c.Source), PaperSizeSwitch) }) {
		add(0, "none of the first %d cells mentions %s, the switch for the paper-size run", switchCells, PaperSizeSwitch)
	}
	return probs, nil
}

// hasImage reports whether an output's data hold a figure: an image MIME type, or HTML
// with an <img> or <svg>.
func hasImage(data map[string]multiline) bool {
	h, html := data["text/html"]
	return slices.ContainsFunc(imageMIMEs, func(m string) bool { _, ok := data[m]; return ok }) || html && htmlImage.MatchString(string(h))
}

// pythonFloorDiv is how Pygments' Python and IPython lexers mark "//" (floor division); the
// Go lexer marks it as the start of a comment.
const pythonFloorDiv = `<span class="o">//</span>`

var (
	// Elements whose content is not page content: their text may mention "<svg" or data
	// URIs (CSS icons) without being a figure.
	scriptOrStyle = regexp.MustCompile(`(?is)<(script|style)\b[^>]*>.*?</(script|style)\s*>`)
	imgTag        = regexp.MustCompile(`(?is)<img\b[^>]*>`)
	imgSrc        = regexp.MustCompile(`(?is)\bsrc\s*=\s*("([^"]*)"|'([^']*)')`)
	svgTag        = regexp.MustCompile(`(?i)<svg[\s>]`)
	localRef      = regexp.MustCompile(`(?i)\b(src|href)\s*=\s*["']file:`)
)

// CheckHTML reads a rendered notebook page and returns what is wrong with it: no embedded
// image (an <img> with a data: PNG, or inline <svg>), an embedded PNG that does not decode,
// an <img> that points outside the page, or a script or link loaded from the local file
// system (Debian's nbconvert defaults to file:// URLs, which a reader elsewhere cannot load),
// and code highlighted by a non-Go lexer ("//" marked as an operator, as IPython's does).
func CheckHTML(file string, data []byte) (Summary, []Problem, error) {
	if !bytes.Contains(bytes.ToLower(data[:min(len(data), 4096)]), []byte("<html")) {
		return Summary{}, nil, fmt.Errorf("%s: not an HTML page (no <html> in its first 4 KiB)", file)
	}
	var sum Summary
	var probs []Problem
	add := func(format string, args ...any) {
		probs = append(probs, Problem{File: file, What: fmt.Sprintf(format, args...)})
	}
	text := string(data)
	for _, m := range localRef.FindAllStringIndex(text, -1) {
		add("line %d loads from the local file system: %s", lineOf(text, m[0]), clip(text[m[0]:min(len(text), m[1]+80)], 120))
	}
	body := scriptOrStyle.ReplaceAllStringFunc(text, func(s string) string {
		return strings.Repeat("\n", strings.Count(s, "\n")) // keep line numbers
	})
	for _, loc := range imgTag.FindAllStringIndex(body, -1) {
		tag := body[loc[0]:loc[1]]
		line := lineOf(body, loc[0])
		m := imgSrc.FindStringSubmatch(tag)
		if m == nil {
			add("line %d: <img> without src: %s", line, clip(tag, 120))
			continue
		}
		src := m[2] + m[3]
		switch {
		case strings.HasPrefix(src, "data:image/png;base64,"):
			if err := checkPNG(src[len("data:image/png;base64,"):]); err != nil {
				add("line %d: embedded PNG does not decode: %v", line, err)
				continue
			}
			sum.Images++
		case strings.HasPrefix(src, "data:image/"):
			sum.Images++
		default:
			add("line %d: <img> refers to %s instead of embedding the image", line, clip(src, 100))
		}
	}
	if i := strings.Index(body, pythonFloorDiv); i >= 0 {
		add("line %d highlights // as an operator: the page was rendered with a non-Go lexer (set metadata.language_info.pygments_lexer to %q)", lineOf(body, i), GoLexer)
	}
	sum.Images += len(svgTag.FindAllStringIndex(body, -1))
	if sum.Images == 0 {
		add("holds no embedded image (<img src=\"data:image/png;base64,...\"> or inline <svg>)")
	}
	return sum, probs, nil
}

func checkPNG(b64 string) error {
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(b64), ""))
	if err != nil {
		return fmt.Errorf("base64: %w", err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if format != "png" || cfg.Width == 0 || cfg.Height == 0 {
		return fmt.Errorf("decoded as %s %dx%d, want a non-empty png", format, cfg.Width, cfg.Height)
	}
	return nil
}

// jsonError describes a JSON decoding error with its line and column.
func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		l, c := lineCol(data, int(se.Offset))
		return fmt.Sprintf("line %d, column %d: %v", l, c, err)
	case errors.As(err, &te):
		l, c := lineCol(data, int(te.Offset))
		return fmt.Sprintf("line %d, column %d: field %q: %v", l, c, te.Field, err)
	}
	return err.Error()
}

func lineCol(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func lineOf(s string, off int) int { return 1 + strings.Count(s[:off], "\n") }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// ansi matches terminal colour codes, which GoNB puts in tracebacks.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// excerpt returns up to 15 lines of s, indented, after a heading.
func excerpt(head, s string) string {
	const maxLines = 15
	lines := strings.Split(strings.TrimRight(ansi.ReplaceAllString(s, ""), "\n"), "\n")
	more := ""
	if len(lines) > maxLines {
		more = fmt.Sprintf("\n    … (%d more lines)", len(lines)-maxLines)
		lines = lines[:maxLines]
	}
	return "  " + head + ":\n    " + strings.Join(lines, "\n    ") + more
}

func clip(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return string(r)
}
