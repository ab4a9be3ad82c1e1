// Package experiments runs the paper's experiments end to end — data, auxiliary models,
// training of h with every method, evaluation — and writes their tables (package
// results): one CSV per λ with the header `method,seed,tr_mmd,tr_acc,te_acc`, a Markdown
// table of mean ± std next to the paper's numbers, a JSON record of the configuration
// that produced them and a separate JSON file of timings. Each fit's result is first
// written to its own file (package store), which makes runs resumable and shardable;
// Merge assembles the tables from those files.
//
// Every study is in one list (Studies, like DomainBed's ALGORITHMS): the paper's
// experiments and the simulation with a continuous nuisance, each a Sweep (an Experiment
// swept over methods × λ × seeds, with typed options whose tagged fields the command line
// offers as flags, and variants — options, training objective, the layer the penalty acts
// on — whose stored names are derived from their fields, never parsed back), and the
// bespoke studies (variance, calibration, Proposition 2, diagnosis). Each study says its
// command, its steps in the main job with their measured times, and how to merge its
// results and redraw its figures (through a Drawer, since drawing is a later layer), so
// that the command line, merge, figures and the main job need no list of their own.
// Adding an experiment is its file here — its constructor and its Sweep — its line in
// Studies, and its data package. A program that wants a study for itself appends it to
// the list it passes on (StudyList.Check checks the result).
package experiments
