#!/usr/bin/env bash
# Regenerates the committed fits on public tables, figures/tables/checks/*_fit*.{csv,json}:
# invmmd fit's results.csv (and config.json, its settings) for each table below, run into
# build/checks/ and copied. The fits are seeded; a rerun on the same backend writes the same
# files. About 15 minutes on 2 cores.
#   chile     a label of four classes (data/chile; Z = sex, binary)
#   hmda      mortgage denials (data/hmda; Z = afam, binary), the robust objective and the paper's
#   college   a categorical nuisance (data/college; Z = ethnicity, three levels)
#   flchain   a continuous nuisance (data/flchain; Z = creatinine, missing for 17% of the rows)
# Usage: scripts/checks.sh [chile|hmda|college|flchain ...]   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o build/invmmd ./cmd/invmmd
out=figures/tables/checks
run() { # run NAME ARGS...: fit into build/checks/NAME, copy its results and settings
  local name=$1
  shift
  echo "== $name: invmmd fit $*"
  rm -rf "build/checks/$name"
  build/invmmd fit "$@" -out "build/checks/$name" > "build/checks-$name.log"
  cp "build/checks/$name/results.csv" "$out/${name//-/_}.csv"
  cp "build/checks/$name/config.json" "$out/${name//-/_}_config.json"
}
mkdir -p build/checks
for what in "${@:-chile hmda college flchain}"; do
  for w in $what; do
    case "$w" in
    chile) run chile-fit -data data/chile/chile.csv -y vote -z sex -z-positive F -methods none,obs,dr,reg -seeds 1,2,3 ;;
    hmda)
      run hmda-fit-robust -data data/hmda/hmda.csv -y deny -y-positive yes -z afam -z-positive yes -seeds 1,2,3
      run hmda-fit-paper -data data/hmda/hmda.csv -y deny -y-positive yes -z afam -z-positive yes -seeds 1,2,3 -objective paper
      ;;
    college) run college-fit -data data/college/college.csv -y income -y-positive high -z ethnicity \
      -x gender,score,fcollege,mcollege,home,urban,unemp,wage,distance,tuition,region -methods none,dr -seeds 1,2,3 ;;
    flchain) run flchain-fit -data data/flchain/flchain.csv -y death -z creatinine \
      -x age,sex,sample.yr,kappa,lambda,flc.grp,mgus -methods none,dr -seeds 1,2,3 ;;
    *)
      echo "usage: scripts/checks.sh [chile|hmda|college|flchain ...]" >&2
      exit 2
      ;;
    esac
  done
done
echo "== wrote $out"
