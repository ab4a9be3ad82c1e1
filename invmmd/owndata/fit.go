package owndata

import (
	"context"
	"errors"

	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// Result is what a fit returns: the data, the auxiliary models and every trained model's
// row, with the held-out diagnostics and the warnings.
type Result struct {
	Data *Data
	Aux  *train.Aux
	// AuxFit is how G and m fitted and how their training ended (zero when every method
	// was resumed and they were not fitted).
	AuxFit   AuxReport
	Majority float64 // test accuracy of always predicting the most common label
	Rows     []Row
	HeldOut  string // the held-out estimates of every model, as heldout.txt holds them
	Warnings []string
	Resumed  int // models kept from an earlier run's files (Config.Resume)
}

// Fit runs the whole workflow of invmmd fit on the CSV file cfg.Data: Prepare (every
// refusal, of a setting or of the output folder, before anything is read or fitted), then
// Execute (each run's model, run file and the tables written as it finishes, so that an
// interruption loses only the run in progress), then Close. Once ctx is done Fit stops
// within moments and returns the result so far with an error wrapping ctx's
// (errors.Is(err, context.Canceled)); the lock is released and every finished run is on
// disk.
func Fit(ctx context.Context, cfg Config) (*Result, error) { return FitTable(ctx, nil, cfg) }

// FitTable is Fit on the table tab, held in memory (tabular.NewTable) or read already:
// cfg.Data may then be empty, and names the table in the output folder's records when set.
// A nil tab is Fit's: the file cfg.Data, read once the output folder is open.
func FitTable(ctx context.Context, tab *tabular.Table, cfg Config) (*Result, error) {
	p, err := PrepareTable(ctx, tab, cfg)
	if err != nil {
		return nil, err
	}
	res, err := p.Execute(ctx)
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return res, err
}
