package main

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/fairstudy"
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"gonum.org/v1/plot/vg/draw"
)

// mitigationNets are the networks of the mitigation study: fit's defaults with batches of
// 256 rows (a few thousand training rows give ten or more steps an epoch) and at most 200
// epochs, each network stopped after 15 without a better validation objective.
func mitigationNets() owndata.Nets {
	n := owndata.DefaultNets()
	n.Epochs, n.AuxEpochs, n.Patience, n.AuxPatience, n.Batch = 200, 200, 15, 15, 256
	return n
}

// runMitigation runs the mitigation study (fairstudy.RunMitigation) and writes its tables
// and one frontier figure per table.
func runMitigation(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("mitigation", "[-seeds 1,...,8] [-lambdas 0.25,1,5,25] [-rows DIR] [-out figures/tables] [-quick]", stdout, stderr, func() string {
		return "The mitigation study: on public tables with the attribute hidden on part of the training rows, fit's none, obs,\n" +
			"ip and dr over λ and the oracle (full, the attribute whole) evaluated on complete held-out rows at the training prevalence\n" +
			"and at 0.5, with the gap's noise. Writes mitigation_seeds.csv, mitigation_summary.csv and mitigation.md into -out and\n" +
			"mitigation_TABLE.png beside it; exports each seed's rows to -rows for scripts/fairness/mitigation_peer.py and evaluates\n" +
			"the scores_NAME.csv files it finds there (also at their own operating point: Ŷ ~ Bernoulli(score))."
	})
	seeds := fs.String("seeds", "1,2,3,4,5,6,7,8", "comma-separated seeds (each: a subsample, split, hiding and fit)")
	lambdas := fs.String("lambdas", "0.25,1,5,25", "comma-separated penalty weights λ of obs, ip, dr and the oracle")
	rows := fs.String("rows", "mitigation-rows", "folder of the exported rows and score files, ROWS/TABLE/seedS/ (\"\": none)")
	out := fs.String("out", "", "folder of the tables, the figures going beside it (default figures/tables, or "+filepath.Join(quickOut(), "tables")+" with -quick)")
	from := fs.Bool("from-tables", false, "fit nothing: read -out/mitigation_seeds.csv, evaluate the score files found under -rows in place of those it holds, and write the tables and figures again")
	quick := fs.Bool("quick", false, "a check in seconds: 600 rows of each table, the first seed and λ, 10 epochs (not the committed study)")
	if err := parse(fs, args); err != nil {
		return err
	}
	// The tables go to OUT/tables as every study's do (outDir): a quick run to a scratch
	// folder, never over the committed study (refuseQuickInFigures).
	if *out == "" {
		*out = filepath.Join(outDir("", *quick), "tables")
	}
	if err := refuseQuickInFigures(filepath.Dir(filepath.Clean(*out)), *quick, false); err != nil {
		return err
	}
	c := fairstudy.MitigationConfig{Root: ".", Dir: *rows, Tables: fairstudy.MitigationTables(), Nets: mitigationNets(), Log: stderr}
	var err error
	if c.Seeds, err = parseSeeds(*seeds); err != nil {
		return err
	}
	if c.Lambdas, err = parseLambdas(*lambdas); err != nil {
		return err
	}
	if *quick {
		c.Seeds, c.Lambdas = c.Seeds[:1], c.Lambdas[:1]
		c.Nets.Epochs, c.Nets.AuxEpochs, c.Draws = 10, 10, 50
		for i := range c.Tables {
			c.Tables[i].Rows = 600
		}
	}
	seedsCSV := filepath.Join(*out, "mitigation_seeds.csv")
	if !*from {
		start := time.Now()
		res, err := fairstudy.RunMitigation(ctx, c)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "mitigation: %d tables × %d seeds in %.0f s\n", len(c.Tables), len(c.Seeds), time.Since(start).Seconds())
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		if err := writeWith(seedsCSV, func(w io.Writer) error { return fairstudy.WriteMitigationCSV(w, res) }); err != nil {
			return err
		}
	}
	// The summaries from the file as written (5 decimals), so that -from-tables makes the
	// same files as the run did.
	res, err := readMitigation(seedsCSV)
	if err != nil {
		return err
	}
	if *from && *rows != "" {
		peers, had, err := fairstudy.PeerRows(*rows, c.Tables, c.Seeds, c.Draws, stderr)
		if err != nil {
			return err
		}
		if len(had) > 0 {
			res = fairstudy.WithPeers(res, peers, had)
			if err := writeWith(seedsCSV, func(w io.Writer) error { return fairstudy.WriteMitigationCSV(w, res) }); err != nil {
				return err
			}
			if res, err = readMitigation(seedsCSV); err != nil { // as written, 5 decimals
				return err
			}
		}
	}
	sums := fairstudy.SummariseMitigation(res)
	if err := writeWith(filepath.Join(*out, "mitigation_summary.csv"), func(w io.Writer) error { return fairstudy.WriteMitigationSummaryCSV(w, sums) }); err != nil {
		return err
	}
	md := fairstudy.MitigationMarkdown(sums, len(c.Seeds), strings.Trim(strings.Join(strings.Fields(fmt.Sprint(c.Lambdas)), ", "), "[]"))
	fmt.Fprint(stdout, md)
	if err := os.WriteFile(filepath.Join(*out, "mitigation.md"), []byte(md), 0o644); err != nil {
		return err
	}
	for _, t := range c.Tables {
		series, noise := frontierSeries(sums, t.Name)
		base := filepath.Join(filepath.Dir(filepath.Clean(*out)), "mitigation_"+t.Name)
		title := fmt.Sprintf("%s: decisions at the training prevalence, %d seeds", t.Name, len(c.Seeds))
		if slices.ContainsFunc(series, func(s figures.FrontierSeries) bool { return strings.HasSuffix(s.Name, ", own point") }) {
			title = fmt.Sprintf("%s, %d seeds: decisions at the training prevalence or at Fairlearn's own point", t.Name, len(c.Seeds))
		}
		if err := figures.Frontier(title, series, noise, base); err != nil {
			return err
		}
	}
	return nil
}

// readMitigation reads the study's per-seed file.
func readMitigation(path string) ([]fairstudy.MitigationRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return fairstudy.ReadMitigationCSV(f)
}

// writeWith creates path and writes it with write.
func writeWith(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// frontierColours are the study's models' colours (the score files' grey).
var frontierColours = map[string]color.Color{
	"none": figures.Black, "obs": figures.Orange, "ip": figures.BluishGreen, "dr": figures.Blue, "oracle": figures.ReddishPurple,
}

// frontierSeries returns a table's series: at the rate rule none's point, obs, ip, dr and
// the oracle over λ, and each family of score files (NAME without a trailing _bB, over its
// bounds) fitted with the default objective; then Fairlearn's ExponentiatedGradient and
// ThresholdOptimizer at their own operating point (rule own), one marker per family,
// both objectives (the balanced one's points labelled bal); and the mean noise's 95th
// percentile (none's, at the rate).
func frontierSeries(sums []fairstudy.MitigationSummary, table string) ([]figures.FrontierSeries, float64) {
	var out []figures.FrontierSeries
	idx := map[string]int{}
	noise := 0.0
	bound := regexp.MustCompile(`_b[0-9.]+`)
	for _, rule := range []string{"rate", "own"} {
		for _, s := range sums {
			bal := strings.HasSuffix(s.Model, "_bal")
			// ThresholdOptimizer ranked at the rate is off the frontier: its guarantee is its own
			// point's (there it is drawn); its rate rows stay in the tables.
			reranked := rule == "rate" && strings.HasPrefix(s.Model, "fairlearn_to_")
			if s.Table != table || s.Rule != rule || rule == "rate" && (bal || reranked) || rule == "own" && !ownFamily.MatchString(s.Model) {
				continue
			}
			name, label := s.Model, ""
			if !math.IsNaN(s.Lambda) {
				label = fmt.Sprintf("λ%g", s.Lambda)
			} else if b := bound.FindString(name); b != "" && rule == "rate" {
				name, label = strings.Replace(name, b, "", 1), b[1:]
			}
			var glyph draw.GlyphDrawer
			col, known := frontierColours[name]
			if rule == "own" {
				name, label = ownFamily.FindString(s.Model)+", own point", map[bool]string{true: "bal"}[bal]
				glyph, col = draw.PyramidGlyph{}, figures.Vermillion // the complete cases
				if strings.Contains(name, "oracle") {
					col = figures.SkyBlue // the attribute whole
				}
				if strings.Contains(name, "_to_") {
					glyph = draw.BoxGlyph{}
				}
				known = true
			}
			if name == "none" {
				noise = s.Noise95
			}
			i, ok := idx[name]
			if !ok {
				if !known {
					g := uint8(90 + 40*(len(out)%4))
					col = color.RGBA{g, g, g, 255}
				}
				i = len(out)
				idx[name] = i
				out = append(out, figures.FrontierSeries{Name: name, Colour: col, Line: rule == "rate", Glyph: glyph})
			}
			out[i].Points = append(out[i].Points, figures.FrontierPoint{X: s.Gap.Mean, Y: s.BalancedAcc.Mean, XSE: s.Gap.SE, YSE: s.BalancedAcc.SE, Label: label})
		}
	}
	return out, noise
}

// ownFamily matches the score files drawn at their own operating point and names their
// family: Fairlearn's randomised ExponentiatedGradient and ThresholdOptimizer.
var ownFamily = regexp.MustCompile(`^fairlearn_(eg|to)_(cc|oracle)`)
