// Package layers holds no code, only a test: it checks that the project's packages keep
// the layering CONTRIBUTING.md describes — each package sits in one layer, base → data →
// models → estimators → training → experiments → figures → cmd, and imports only packages
// of its own layer or of lower ones — and that no library file under invmmd/ (tests
// aside) is longer than MaxLines.
package layers

// MaxLines is the most lines a non-test library .go file under invmmd/ may have: beyond
// it a file holds more than one job and is split.
const MaxLines = 600
