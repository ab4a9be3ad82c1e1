// Package nb holds the display and caching glue that the GoNB notebooks under notebooks/
// share, so that each notebook has one import cell and no copies of helpers: where a run
// keeps its tables and cached fits (Run), how a cell shows a figure, a Markdown table or a
// progress line (Show, ShowGrid, ShowMarkdown, LiveProgress), how the auxiliary models'
// reports and an experiment's training settings read (Report, Describe), and how a
// "Reading the …" cell checks the paper's finding on the run's own numbers, each in one
// sentence (Finding, Check, Ordered, Within, Closer), and a run's warnings said in a few lines
// (WarningSummary).
//
// It is for notebooks only: it sits at the top of the module's layers, next to the figures
// and commands, and nothing in the module imports it. It holds no workflow of its own —
// data, training, estimators, tables and figures are the library's; a cell calls them and
// uses this package to show what they return. The display functions talk to the GoNB kernel
// through gonbui; outside a notebook they send nothing.
package nb
