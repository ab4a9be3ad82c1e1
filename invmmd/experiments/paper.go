package experiments

import "github.com/invmmd/invmmd/invmmd"

// Cell is a reported mean ± standard deviation.
type Cell struct{ Mean, Std float64 }

// PaperRow is one method's column of a table of the paper: train MMD, train accuracy and
// test accuracy, each mean ± std over three seeds.
type PaperRow struct{ TrMMD, TrAcc, TeAcc Cell }

// Paper holds the paper's tables (appendix C and section 4), by experiment and λ, for
// comparison next to ours. A method missing from a table was not reported.
var Paper = map[string]map[float64]map[string]PaperRow{
	"sim": {
		1: {
			"none": {Cell{0.21, 0.04}, Cell{0.89, 0.00}, Cell{0.67, 0.02}},
			"obs":  {Cell{0.05, 0.04}, Cell{0.87, 0.00}, Cell{0.77, 0.02}},
			"full": {Cell{0.00, 0.01}, Cell{0.86, 0.01}, Cell{0.80, 0.01}},
			"dr":   {Cell{0.00, 0.01}, Cell{0.85, 0.01}, Cell{0.81, 0.02}},
			"dr+":  {Cell{0.00, 0.01}, Cell{0.84, 0.02}, Cell{0.81, 0.01}},
			"reg":  {Cell{0.01, 0.00}, Cell{0.86, 0.00}, Cell{0.79, 0.02}},
			"ip":   {Cell{0.00, 0.00}, Cell{0.84, 0.01}, Cell{0.82, 0.02}},
			"ip+":  {Cell{0.00, 0.01}, Cell{0.84, 0.01}, Cell{0.81, 0.00}},
		},
		5: {
			"none": {Cell{0.21, 0.04}, Cell{0.89, 0.00}, Cell{0.67, 0.02}},
			"obs":  {Cell{0.03, 0.02}, Cell{0.85, 0.02}, Cell{0.78, 0.02}},
			"full": {Cell{0.00, 0.01}, Cell{0.84, 0.01}, Cell{0.83, 0.01}},
			"dr":   {Cell{0.00, 0.00}, Cell{0.82, 0.01}, Cell{0.82, 0.02}},
			"dr+":  {Cell{0.00, 0.00}, Cell{0.78, 0.06}, Cell{0.77, 0.04}},
			"reg":  {Cell{0.00, 0.01}, Cell{0.84, 0.00}, Cell{0.82, 0.01}},
			"ip":   {Cell{0.00, 0.00}, Cell{0.81, 0.02}, Cell{0.81, 0.02}},
			"ip+":  {Cell{0.00, 0.00}, Cell{0.81, 0.03}, Cell{0.80, 0.01}},
		},
	},
	"tmnist": {
		1: {
			"none": {Cell{2.05, 0.18}, Cell{0.90, 0.01}, Cell{0.13, 0.01}},
			"obs":  {Cell{0.02, 0.04}, Cell{0.74, 0.03}, Cell{0.63, 0.17}},
			"full": {Cell{0.00, 0.01}, Cell{0.76, 0.01}, Cell{0.74, 0.01}},
			"dr":   {Cell{0.00, 0.01}, Cell{0.77, 0.00}, Cell{0.72, 0.04}},
			"dr+":  {Cell{0.00, 0.01}, Cell{0.76, 0.01}, Cell{0.73, 0.01}},
			"reg":  {Cell{0.00, 0.01}, Cell{0.76, 0.01}, Cell{0.73, 0.01}},
			"ip":   {Cell{0.07, 0.12}, Cell{0.67, 0.16}, Cell{0.64, 0.14}},
			"ip+":  {Cell{0.03, 0.06}, Cell{0.68, 0.15}, Cell{0.61, 0.11}},
		},
		5: {
			"none": {Cell{2.05, 0.18}, Cell{0.90, 0.01}, Cell{0.13, 0.01}},
			"obs":  {Cell{0.01, 0.02}, Cell{0.66, 0.15}, Cell{0.65, 0.15}},
			"full": {Cell{0.00, 0.00}, Cell{0.75, 0.01}, Cell{0.75, 0.01}},
			"dr":   {Cell{0.00, 0.00}, Cell{0.65, 0.14}, Cell{0.73, 0.02}},
			"dr+":  {Cell{0.00, 0.01}, Cell{0.65, 0.13}, Cell{0.70, 0.09}},
			"reg":  {Cell{0.00, 0.01}, Cell{0.75, 0.01}, Cell{0.75, 0.01}},
			"ip":   {Cell{0.01, 0.01}, Cell{0.71, 0.08}, Cell{0.55, 0.30}},
			"ip+":  {Cell{0.01, 0.02}, Cell{0.60, 0.12}, Cell{0.60, 0.12}},
		},
	},
	// The paper's MIMIC-III table (λ = 1); our clinical experiment runs on a stand-in, so
	// these are a reference for the pattern, not for the values.
	"clinical": {
		1: {
			"none": {Cell{0.017, 0.02}, Cell{0.71, 0.02}, Cell{0.64, 0.00}},
			"obs":  {Cell{0.002, 0.01}, Cell{0.68, 0.01}, Cell{0.64, 0.00}},
			"full": {Cell{0.00, 0.00}, Cell{0.70, 0.01}, Cell{0.66, 0.00}},
			"dr":   {Cell{0.009, 0.01}, Cell{0.70, 0.01}, Cell{0.62, 0.00}},
			"reg":  {Cell{0.00, 0.00}, Cell{0.71, 0.00}, Cell{0.66, 0.01}},
		},
	},
}

// PaperSeeds are the seeds of every paper-size table: five, so that a mean ± sd over
// seeds says more than the paper's three.
var PaperSeeds = []uint64{1, 2, 3, 4, 5}

// QuickMethods are the methods of a quick run: enough to show the paper's ordering
// (dr, full and reg above obs and none) in a few minutes.
var QuickMethods = []invmmd.Method{invmmd.None, invmmd.Obs, invmmd.Full, invmmd.DR, invmmd.Reg}

// PaperSweep returns the default sweep of experiment name ("sim", "sim_mf075", "tmnist",
// "clinical") at paper size: its methods, λ ∈ {1, 5} (clinical: {1}, as the paper's
// MIMIC-III table) and PaperSeeds. TableDir, Progress and Verbose are left to the caller.
func PaperSweep(name string) RunConfig {
	rc := RunConfig{Methods: invmmd.Methods, Lambdas: []float64{1, 5}, Seeds: PaperSeeds}
	switch name {
	case "sim", "sim_mf075":
		rc.Methods = invmmd.AllMethods
	case "clinical", "mimic":
		rc.Methods, rc.Lambdas = ClinicalMethods, []float64{1}
	}
	return rc
}

// QuickSweep returns the default sweep of a quick run: QuickMethods, λ = 1, seed 1, on
// the paper-size data (the experiments' Quick sizes), a few minutes on 2 cores.
func QuickSweep(string) RunConfig {
	return RunConfig{Methods: QuickMethods, Lambdas: []float64{1}, Seeds: []uint64{1}}
}
