// Package experiments runs the paper's experiments end to end — data, auxiliary models,
// training of h with every method, evaluation — and writes their tables (package
// results) and figures (through a Drawer). Each fit's result is first written to its own
// file (package store), which makes runs resumable and shardable; Merge assembles the
// tables from those files.
//
// Every study is in one list (Studies, like DomainBed's ALGORITHMS): the experiments,
// each a sweep over methods × λ × seeds with typed options and variants whose stored
// names are derived from their fields, and the bespoke studies. Each says its command,
// its steps in the main job with their measured times, and how to merge its results and
// redraw its figures, so that the command line, merge, figures and the main job need no
// list of their own.
package experiments
