#!/usr/bin/env bash
# Regenerates data/chile/chile.csv, the public table of invmmd fit's multi-class example: the
# 1988 Chilean plebiscite survey of R package carData (Debian r-cran-cardata), 2,700
# respondents, of whom the 2,532 with a stated vote intention are kept. Y = vote (4 classes:
# A abstain, N no, U undecided, Y yes); Z = sex, made missing by a documented rule (the survey
# recorded it for everyone): kept for every respondent aged 40 or over, and below 40 (or of
# unknown age) kept with probability 0.2, drawn by runif after set.seed(1), so that whether Z
# is observed depends on a feature (age) and not on Z. Other missing cells stay empty. The
# CSV is committed; by default this only verifies it. REGENERATE=1 rebuilds it; INSTALL=0
# forbids apt-get.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/data/lib/rtable.sh
source "$root/scripts/data/lib/rtable.sh"
rtable_build chile.sh "$root/data/chile/chile.csv" 828309536093bc9dbd59bba6555a3700dd7c5ade72d19576bae3498eb1f148f9 r-cran-cardata '
args <- commandArgs(trailingOnly = TRUE)
data("Chile", package = "carData")
stopifnot(nrow(Chile) == 2700, sum(is.na(Chile$vote)) == 168, sum(is.na(Chile$sex)) == 0)
d <- Chile[!is.na(Chile$vote), ]
set.seed(1)
u <- runif(nrow(d))
keep <- (!is.na(d$age) & d$age >= 40) | u < 0.2
d$sex <- as.character(d$sex)
d$sex[!keep] <- NA
d <- d[, c("region", "population", "age", "education", "income", "statusquo", "sex", "vote")]
write.csv(d, args[1], row.names = FALSE, na = "")
'
