#!/usr/bin/env bash
# Regenerates data/college/college.csv: the CollegeDistance survey of R package AER (Debian
# r-cran-aer; 4,739 US high-school seniors of 1980) with the student's ethnicity (three
# levels) made missing for some rows by a documented, seeded rule (see
# data/college/README.md): the README's categorical-nuisance example, Y = income (family
# income high), Z = ethnicity. The CSV is committed; by default this only verifies it.
# REGENERATE=1 rebuilds it; INSTALL=0 forbids apt-get.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/data/lib/rtable.sh
source "$root/scripts/data/lib/rtable.sh"
rtable_build college.sh "$root/data/college/college.csv" f04c4c83c44385b7279862a4a845134161da657a60022fc640caf751901410e6 r-cran-aer '
args <- commandArgs(trailingOnly = TRUE)
data("CollegeDistance", package = "AER")
stopifnot(nrow(CollegeDistance) == 4739)
d <- CollegeDistance
# Ethnicity not recorded: more often for urban students, for high family income and for
# lower test scores, at random given those (missing at random given X and Y).
set.seed(22)
z <- (d$score - mean(d$score)) / sd(d$score)
p <- plogis(-1.3 + 0.9 * (d$urban == "yes") + 0.8 * (d$income == "high") - 0.6 * z)
eth <- as.character(d$ethnicity)
eth[runif(nrow(d)) < p] <- NA
d$ethnicity <- eth
write.csv(d, args[1], row.names = FALSE, na = "")
'
