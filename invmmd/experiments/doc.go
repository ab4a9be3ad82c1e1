// Package experiments runs the paper's experiments end to end — data, auxiliary models,
// training of h with every method, evaluation — and writes their tables (package
// results): one CSV per λ with the header `method,seed,tr_mmd,tr_acc,te_acc`, a Markdown
// table of mean ± std next to the paper's numbers, a JSON record of the configuration
// that produced them and a separate JSON file of timings. Each fit's result is first
// written to its own file (package store), which makes runs resumable and shardable;
// Merge assembles the tables from those files.
//
// The experiments are listed in one registry (All, ByName, Register): each Entry says how
// to build its experiment and its variants, its default sweep, its command's own flags and
// its place in the main job, so that the command line, merge, figures and the main job
// need no list of their own. Adding an experiment is one file here with its constructor
// and Entry, plus its data package, and the Entry's line in builtins (a program that only
// wants it for itself calls Register instead; the registry has no init()).
package experiments
