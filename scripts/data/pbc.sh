#!/usr/bin/env bash
# Regenerates data/pbc/pbc.csv: the Mayo Clinic primary biliary cholangitis data (418
# patients) of R package survival (Debian r-cran-survival), unchanged but for a 0/1 column
# died (status = 2). Its missing values are real: hepatomegaly (hepato), the nuisance of the
# README's example, was not recorded for the 106 patients who were not in the randomised
# trial. The CSV is committed; by default this only verifies it. REGENERATE=1 rebuilds it;
# INSTALL=0 forbids apt-get.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/data/lib/rtable.sh
source "$root/scripts/data/lib/rtable.sh"
rtable_build pbc.sh "$root/data/pbc/pbc.csv" 2a4da320c1625b32447a64f4eec06ae502cbe628adcce4f1909c5a49313df87b r-cran-survival '
args <- commandArgs(trailingOnly = TRUE)
data("pbc", package = "survival")
stopifnot(nrow(pbc) == 418, sum(is.na(pbc$hepato)) == 106)
d <- pbc
d$died <- as.integer(d$status == 2)
write.csv(d, args[1], row.names = FALSE, na = "")
'
