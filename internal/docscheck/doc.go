// Package docscheck holds the tests of the repository's documents against its files, in one
// place: every number README.md and docs/*.md state is recomputed from the committed file it
// comes from (figures/tables, BENCHMARKS.md, the data's records) or by the computation that
// is its record (invmmd prop1); every figure committed under figures/ is shown by README.md
// or a document of docs/, and every figure a document references exists; the README is a
// front page with its results at a glance near the top; and the command-line manual,
// docs/cli.md, names every command and every flag that invmmd's -help lists. It has no code.
package docscheck
