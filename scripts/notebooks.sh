#!/usr/bin/env bash
# Executes the project's notebooks headless, checks them and renders them to HTML pages.
#
# First nbcheck -duplicates checks that no two of notebooks/*.ipynb declare the same helper
# (shared helpers live once in package invmmd/nb). Then, for each notebook (default: every
# notebooks/*.ipynb, in name order):
#   0. nbcheck -source checks the notebook as committed (GoNB kernel, Go highlighting, the
#      module cell, the INVMMD_PAPER_SIZE switch in the first cells, its figure count);
#   1. jupyter nbconvert --execute --allow-errors runs it with the GoNB kernel into the
#      output folder (the source notebook is not modified), starting from an empty GoNB cache
#      (data/cache/gonb/), so that no value computed by older code is reused;
#   2. the executed copy gets the Go lexer in its metadata (GoNB reports none, and nbconvert
#      then highlights Go as IPython), and nbcheck (cmd/nbcheck) fails it on any error output,
#      stderr with "panic:" or "exit status", a code cell that did not run, no figure, a
#      machine-absolute path or terminal control codes in an output: GoNB does not make
#      nbconvert fail on those by itself;
#   3. if it passed, nbconvert renders it to OUT/html/NAME.html (figures embedded, MathJax
#      from a CDN), nbcheck -html checks the page's images and Go highlighting, and
#      scripts/pagecheck.sh loads it in headless Chromium: every image must decode and the
#      console show no error (a CDN script that cannot load offline is not one); its
#      screenshot goes to OUT/pagecheck/NAME.png. pagecheck's self-test (a page with a
#      broken image must fail) runs once first.
# The script goes on after a failing notebook, prints what failed (notebook, cell and the
# offending output), and exits 1 if any notebook failed. Without --pages it writes nothing
# outside OUT (make test runs it so, and the work tree stays clean).
#
# Usage: scripts/notebooks.sh [--out DIR] [--no-html] [--pages] [notebook.ipynb ...]
#   --out DIR   where the executed notebooks and pages go (default: build/notebooks, ignored by git)
#   --no-html   execute and check only
#   --pages     also replace the committed copies: the executed notebook (with its outputs, so
#               a repository browser shows results and figures) over notebooks/NAME.ipynb and
#               the page over docs/notebooks/NAME.html (make pages)
# Environment:
#   INVMMD_PAPER_SIZE=1   the notebooks run the paper-size experiments instead of the quick
#                         default (hours, not minutes); the per-cell timeout is then off
#   INVMMD_NB_TIMEOUT=S   per-cell timeout in seconds (default 900; -1 for none)
# Needs what scripts/setup.sh installs (Jupyter, GoNB, goimports).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/build/notebooks"
html=1
pages=0
notebooks=()
while [[ $# -gt 0 ]]; do
  case "$1" in
  --out)
    [[ $# -ge 2 ]] || { echo "notebooks: --out needs a folder" >&2; exit 2; }
    out="$2"
    shift 2
    ;;
  --no-html) html=0; shift ;;
  --pages) pages=1; shift ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
    ;;
  -*) echo "notebooks: unknown option $1" >&2; exit 2 ;;
  *) notebooks+=("$1"); shift ;;
  esac
done
if [[ ${#notebooks[@]} -eq 0 ]]; then
  shopt -s nullglob
  notebooks=("$root"/notebooks/*.ipynb)
  shopt -u nullglob
  [[ ${#notebooks[@]} -gt 0 ]] || { echo "notebooks: no notebooks/*.ipynb found" >&2; exit 1; }
fi

die() { echo "notebooks: ERROR: $*" >&2; exit 1; }

# The GoNB kernel runs goimports and go from PATH.
bindir="$(go env GOBIN)"
[[ -n "$bindir" ]] || bindir="$(go env GOPATH)/bin"
export PATH="$bindir:$PATH"
command -v jupyter >/dev/null || die "jupyter is not on PATH: run scripts/setup.sh"
command -v goimports >/dev/null || die "goimports is not in $bindir: run scripts/setup.sh"
kernels="$(jupyter kernelspec list 2>/dev/null)" || die "jupyter kernelspec list failed: run scripts/setup.sh"
grep -q '^ *gonb ' <<<"$kernels" || die "the GoNB kernel is not registered with Jupyter: run scripts/setup.sh"

if [[ "${INVMMD_PAPER_SIZE:-}" == 1 ]]; then
  mode="paper size (INVMMD_PAPER_SIZE=1)"
  timeout="${INVMMD_NB_TIMEOUT:--1}"
else
  mode="quick (set INVMMD_PAPER_SIZE=1 for the paper-size run)"
  timeout="${INVMMD_NB_TIMEOUT:-900}"
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
htmldir="$out/html"
echo "notebooks: mode $mode; per-cell timeout $timeout s; executed notebooks in $out"
if [[ $pages -eq 1 && $html -eq 0 ]]; then
  die "--pages needs the HTML pages: drop --no-html"
fi

echo "notebooks: building cmd/nbcheck"
(cd "$root" && go build -o "$out/nbcheck" ./cmd/nbcheck) || die "building cmd/nbcheck failed"

# Standalone pages: Debian's nbconvert points require.js, jQuery and MathJax at file://
# paths that exist only on a machine with Jupyter; these are nbconvert's upstream defaults.
cdn=(
  --HTMLExporter.require_js_url=https://cdnjs.cloudflare.com/ajax/libs/require.js/2.1.10/require.min.js
  --HTMLExporter.jquery_url=https://cdnjs.cloudflare.com/ajax/libs/jquery/2.0.3/jquery.min.js
  "--HTMLExporter.mathjax_url=https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
)

failed=()
passed=()
if [[ $html -eq 1 ]] && ! "$root/scripts/pagecheck.sh" --self-test --out "$out/pagecheck"; then
  echo "notebooks: FAIL: scripts/pagecheck.sh --self-test (above): the browser check cannot be trusted" >&2
  failed+=("scripts/pagecheck.sh --self-test")
fi
shopt -s nullglob
all_notebooks=("$root"/notebooks/*.ipynb)
shopt -u nullglob
if [[ ${#all_notebooks[@]} -gt 1 ]] && ! "$out/nbcheck" -duplicates "${all_notebooks[@]}"; then
  echo "notebooks: FAIL: two notebooks declare the same helper (above): move it to invmmd/nb" >&2
  failed+=("notebooks/*.ipynb (duplicate helpers)")
fi
for nb in "${notebooks[@]}"; do
  [[ -f "$nb" ]] || { echo "notebooks: FAIL $nb: no such file" >&2; failed+=("$nb"); continue; }
  name="$(basename "$nb" .ipynb)"
  if ! "$out/nbcheck" -source "$nb"; then
    echo "notebooks: FAIL $nb: the notebook source breaks the conventions of notebooks/README.md (above)" >&2
    failed+=("$nb")
    continue
  fi
  log="$out/$name.log"
  echo
  echo "==> notebooks: executing $nb"
  start=$SECONDS
  # Values cached by GoNB's cache package (notebooks/README.md) were computed by the code as
  # it was then: start every run without them.
  rm -rf "$root/data/cache/gonb"
  # No per-cell timings in the metadata: the executed copy stays the same from run to run.
  if ! jupyter nbconvert --to notebook --execute --allow-errors \
    --ExecutePreprocessor.timeout="$timeout" --ExecutePreprocessor.record_timing=False \
    --output-dir "$out" --output "$name" "$nb" >"$log" 2>&1; then
    echo "notebooks: FAIL $nb: jupyter nbconvert failed after $((SECONDS - start)) s; the end of $log:" >&2
    tail -n 40 "$log" | sed 's/^/    /' >&2
    failed+=("$nb")
    continue
  fi
  echo "notebooks: executed in $((SECONDS - start)) s: $out/$name.ipynb"
  # GoNB's kernel reports no Pygments lexer, and nbconvert then highlights Go as IPython.
  sed -i 's/"pygments_lexer": ""/"pygments_lexer": "go"/' "$out/$name.ipynb"
  if ! "$out/nbcheck" "$out/$name.ipynb"; then
    echo "notebooks: FAIL $nb: the executed notebook shows errors (above); kernel log: $log" >&2
    failed+=("$nb")
    continue
  fi
  if [[ $html -eq 1 ]]; then
    mkdir -p "$htmldir"
    if ! jupyter nbconvert --to html "${cdn[@]}" --output-dir "$htmldir" --output "$name" "$out/$name.ipynb" >>"$log" 2>&1; then
      echo "notebooks: FAIL $nb: rendering HTML failed; the end of $log:" >&2
      tail -n 20 "$log" | sed 's/^/    /' >&2
      failed+=("$nb")
      continue
    fi
    if ! "$out/nbcheck" -html "$htmldir/$name.html"; then
      echo "notebooks: FAIL $nb: the rendered page $htmldir/$name.html is not fit to publish (above)" >&2
      failed+=("$nb")
      continue
    fi
    if ! "$root/scripts/pagecheck.sh" --out "$out/pagecheck" "$htmldir/$name.html"; then
      echo "notebooks: FAIL $nb: the rendered page $htmldir/$name.html is broken in a browser (above)" >&2
      failed+=("$nb")
      continue
    fi
    echo "notebooks: rendered $htmldir/$name.html"
  fi
  if [[ $pages -eq 1 ]]; then
    cp "$out/$name.ipynb" "$root/notebooks/$name.ipynb"
    mkdir -p "$root/docs/notebooks"
    cp "$htmldir/$name.html" "$root/docs/notebooks/$name.html"
    echo "notebooks: updated notebooks/$name.ipynb and docs/notebooks/$name.html"
  fi
  passed+=("$nb")
done

echo
echo "notebooks: ${#passed[@]} passed, ${#failed[@]} failed"
if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'notebooks: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
