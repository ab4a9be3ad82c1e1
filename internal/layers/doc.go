// Package layers holds no code, only tests: they check that the project's packages keep
// the layering CONTRIBUTING.md's table describes — each package sits in one layer, base →
// data → models → estimators → training → experiments → figures → cmd, and imports only
// packages of its own layer or of lower ones — that no library file under invmmd/ (tests
// aside) is longer than MaxLines, that the library has no side effects (it imports no
// flag, exposes no mutable package-level table, has no init function and writes no other
// package's state), and that CONTRIBUTING.md's steps for adding an experiment match the
// study list and the layer table.
package layers

// MaxLines is the most lines a non-test library .go file under invmmd/ may have: beyond
// it a file holds more than one job and is split.
const MaxLines = 600
