// Command mimic builds the clinical experiment's MIMIC-III cohort from a folder of the
// official CSV files and prints its report, or writes the synthetic fixture folder the tests
// use.
//
//	go run ./cmd/mimic build -dir /path/to/mimic-iii-clinical-database-1.4 [-seed 1] [-json report.json]
//	go run ./cmd/mimic fixture -dir /tmp/mimic-fixture [-seed 1] [-patients 400] [-chart-rows 40]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/invmmd/invmmd/invmmd/mimic"
	"github.com/invmmd/invmmd/invmmd/mimic/mimictest"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = build(os.Args[2:])
	case "fixture":
		err = fixture(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: mimic build -dir DIR [flags] | mimic fixture -dir DIR [flags]  (-h for flags)")
	os.Exit(2)
}

func build(args []string) error {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	var cfg mimic.Config
	fs.StringVar(&cfg.Dir, "dir", "", "folder of the MIMIC-III CSV files (.csv or .csv.gz)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "split and missingness seed")
	fs.BoolVar(&cfg.AllStays, "all-stays", false, "keep every ICU stay, not only each patient's first")
	fs.BoolVar(&cfg.DropUnknownEthnicity, "drop-unknown-ethnicity", false, "leave out stays with an unknown ethnicity")
	fs.BoolVar(&cfg.LabsBySubject, "labs-by-subject", false, "join labs on SUBJECT_ID only (adds draws without the stay's HADM_ID); default: SUBJECT_ID and HADM_ID, as mimic-code")
	fs.BoolVar(&cfg.Strict, "strict", false, "fail on the first malformed row")
	fs.IntVar(&cfg.MaxMalformed, "max-malformed", 0, "malformed rows tolerated per file (0: the default, 1000)")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file")
	fs.Parse(args)
	sp, rep, err := mimic.Build(cfg)
	fmt.Print(rep.String())
	if err != nil {
		return err
	}
	fmt.Printf("features %d per row; train %d, val %d, test %d rows\n", sp.Train.Dim(), sp.Train.Len(), sp.Val.Len(), sp.Test.Len())
	if *jsonOut != "" {
		rep.Split.Index = [3][]int{} // row indices make the file large and say nothing to a reader
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return fmt.Errorf("mimic: encoding the report: %w", err)
		}
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return fmt.Errorf("mimic: %w", err)
		}
	}
	return nil
}

func fixture(args []string) error {
	fs := flag.NewFlagSet("fixture", flag.ExitOnError)
	dir := fs.String("dir", "", "folder to write the fixture tables to")
	seed := fs.Uint64("seed", 1, "fixture seed")
	var o mimictest.FixtureOptions
	fs.IntVar(&o.Patients, "patients", 0, "random patients (0: 400)")
	fs.IntVar(&o.ChartRowsPerStay, "chart-rows", 0, "CHARTEVENTS rows per random stay (0: 40)")
	fs.IntVar(&o.LabRowsPerStay, "lab-rows", 0, "LABEVENTS rows per random stay (0: 30)")
	fs.StringVar(&o.Compression, "compression", "mixed", "mixed, none or gzip")
	fs.BoolVar(&o.Clean, "clean", false, "leave out the scripted malformed rows")
	fs.Parse(args)
	if *dir == "" {
		return fmt.Errorf("mimic fixture: -dir is required")
	}
	if err := mimictest.WriteFixture(*dir, *seed, o); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mimic fixture: wrote %s\n", *dir)
	return nil
}
