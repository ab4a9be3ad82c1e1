// Package docscheck holds tests that check the repository's documents against its files:
// every figure committed under figures/ is shown or linked by a Markdown document (the
// README, docs/, notebooks/README.md, data/README.md …), and every figure a document shows
// exists. It has no code.
package docscheck
