#!/usr/bin/env bash
# Regenerates data/fairness/college_full.csv and data/fairness/hmda_full.csv: the
# CollegeDistance (4,739 US high-school seniors of 1980) and HMDA (2,380 Boston mortgage
# applications) data sets of R package AER (Debian r-cran-aer), every row and every column,
# with the protected attribute COMPLETE (ethnicity, afam): nothing is hidden, unlike
# data/college/college.csv and data/hmda/hmda.csv. They are the complete-attribute tables of
# the fairness audit (see data/fairness/README.md). The CSVs are committed; by default this
# only verifies them. REGENERATE=1 rebuilds them; INSTALL=0 forbids apt-get.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/data/lib/rtable.sh
source "$root/scripts/data/lib/rtable.sh"
rtable_build fairness.sh "$root/data/fairness/college_full.csv" b9bc72843fb9b1659372630bf5a283032731fde945122033e15035363976108f r-cran-aer '
args <- commandArgs(trailingOnly = TRUE)
data("CollegeDistance", package = "AER")
stopifnot(nrow(CollegeDistance) == 4739, !anyNA(CollegeDistance$ethnicity))
write.csv(CollegeDistance, args[1], row.names = FALSE, na = "")
'
rtable_build fairness.sh "$root/data/fairness/hmda_full.csv" 958315173bfa5fed71fed6a17547dbc4b91774b02d082c167371266582eed758 r-cran-aer '
args <- commandArgs(trailingOnly = TRUE)
data("HMDA", package = "AER")
stopifnot(nrow(HMDA) == 2380, !anyNA(HMDA$afam))
write.csv(HMDA, args[1], row.names = FALSE, na = "")
'
