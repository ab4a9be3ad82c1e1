#!/usr/bin/env bash
# Sets up a Debian 12 machine (with Go 1.26 already installed) to build the project, run its
# notebooks and fetch its data. It is the one install path: the README, CI and docker/Dockerfile
# all call it, so that they cannot drift apart.
#
# Steps (each prints what it does; any failure stops the script with a message):
#   1. Debian packages: Jupyter, headless (jupyter-nbconvert, jupyter-client) and the classic
#      notebook UI (jupyter-notebook), npm for scripts/data/mnist.sh, and chromium for
#      scripts/pagecheck.sh (the headless browser check of the rendered notebook pages).
#      Packages already installed are skipped, so a second run does not touch apt at all.
#      When another process holds the package manager's lock (unattended-upgrades after
#      boot), it waits for it, saying so, for up to INVMMD_APT_WAIT seconds (default 600),
#      polling every INVMMD_APT_POLL seconds (default 10), then fails naming the holder.
#   2. Go tools from the tools/ module (GoNB v0.11.1 and goimports v0.36.0, pinned in
#      tools/go.mod and tools/go.sum): `go install tool` into GOBIN or $(go env GOPATH)/bin.
#   3. The GoNB Jupyter kernel: `gonb --install --raw_error --force_deps`.
#   4. Data: every executable scripts/data/*.sh, in name order (each verifies what it already
#      has and is safe to run twice). Skipped with --no-data.
#
# Usage: scripts/setup.sh [--no-data] [--no-apt]
#   --no-data  skip step 4 (e.g. a CI job that only executes notebooks)
#   --no-apt   skip step 1 (Jupyter installed some other way)
# Runs as root, or as a user with sudo for the apt step.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
do_data=1
do_apt=1
for arg in "$@"; do
  case "$arg" in
  --no-data) do_data=0 ;;
  --no-apt) do_apt=0 ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "setup: unknown argument $arg (want --no-data, --no-apt or --help)" >&2
    exit 2
    ;;
  esac
done

step() { echo; echo "==> setup: $*"; }
die() { echo "setup: ERROR: $*" >&2; exit 1; }
start=$SECONDS

# ---------------------------------------------------------------------------------------------
step "checking Go"
command -v go >/dev/null || die "go is not on PATH: install Go 1.26 first (https://go.dev/doc/install, or the golang:1.26-bookworm image)"
gov="$(go env GOVERSION)"
echo "setup: found $gov at $(command -v go)"
case "$gov" in
go1.2[6-9]* | go1.[3-9][0-9]*) ;;
*) die "the project needs Go 1.26 or later (go.mod says go 1.26), found $gov" ;;
esac

# ---------------------------------------------------------------------------------------------
packages=(jupyter-nbconvert jupyter-client jupyter-notebook npm chromium)
if [[ $do_apt -eq 1 ]]; then
  step "Debian packages: ${packages[*]}"
  missing=()
  for p in "${packages[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
    if [[ $status == "install ok installed" ]]; then
      echo "setup: $p already installed"
    elif [[ $p == npm ]] && command -v npm >/dev/null; then
      # npm is only needed to fetch MNIST; a machine with npm from elsewhere keeps its own.
      echo "setup: npm found at $(command -v npm), not installing Debian's"
    elif [[ $p == chromium ]] && command -v chromium >/dev/null; then
      echo "setup: chromium found at $(command -v chromium), not installing Debian's"
    else
      missing+=("$p")
    fi
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    if [[ $(id -u) -eq 0 ]]; then
      sudo=()
    elif command -v sudo >/dev/null; then
      sudo=(sudo)
    else
      die "not root and no sudo: install these Debian packages as root, then rerun with --no-apt: ${missing[*]}"
    fi
    # Another process (unattended-upgrades after boot, another apt-get) may hold the package
    # manager's lock: apt_wait waits for it, bounded, saying so (scripts/lib/aptlock.sh).
    # shellcheck source=scripts/lib/aptlock.sh
    source "$root/scripts/lib/aptlock.sh"
    echo "setup: apt-get update"
    apt_wait "${sudo[@]}" apt-get update -qq || die "apt-get update failed"
    echo "setup: apt-get install --no-install-recommends ${missing[*]}"
    apt_wait "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
      die "apt-get install ${missing[*]} failed"
  fi
  for p in jupyter jupyter-nbconvert jupyter-notebook; do
    command -v "$p" >/dev/null || die "$p is not on PATH after installing the Debian packages"
  done
  echo "setup: $(jupyter nbconvert --version 2>/dev/null | sed 's/^/nbconvert /'), $(jupyter notebook --version 2>/dev/null | sed 's/^/notebook /')"
else
  step "skipping Debian packages (--no-apt)"
  command -v jupyter >/dev/null || echo "setup: warning: jupyter is not on PATH; scripts/notebooks.sh needs it"
fi

# ---------------------------------------------------------------------------------------------
bindir="$(go env GOBIN)"
[[ -n "$bindir" ]] || bindir="$(go env GOPATH)/bin"
step "Go tools from tools/go.mod (gonb, goimports) into $bindir"
(cd "$root/tools" && go install tool) || die "go install tool in $root/tools failed"
for t in gonb goimports; do
  [[ -x "$bindir/$t" ]] || die "$bindir/$t was not built"
  echo "setup: built $bindir/$t"
done
case ":$PATH:" in
*":$bindir:"*) ;;
*)
  export PATH="$bindir:$PATH"
  echo "setup: NOTE: $bindir is not on your PATH; add it (Jupyter starts gonb, which calls goimports):"
  echo "    export PATH=\"$bindir:\$PATH\""
  ;;
esac

# ---------------------------------------------------------------------------------------------
step "registering the GoNB kernel with Jupyter"
(cd "$root" && "$bindir/gonb" --install --raw_error --force_deps) || die "gonb --install failed"
kernels="$(jupyter kernelspec list 2>/dev/null)" || die "jupyter kernelspec list failed"
grep -q '^ *gonb ' <<<"$kernels" || die "the gonb kernel is not in 'jupyter kernelspec list'"
while IFS= read -r line; do echo "setup: $line"; done <<<"$kernels"
echo "setup: (gonb's note that gopls is missing is harmless: gopls only adds autocompletion in the browser)"

# ---------------------------------------------------------------------------------------------
if [[ $do_data -eq 1 ]]; then
  step "fetching data: scripts/data/*.sh"
  shopt -s nullglob
  ran=0
  for s in "$root"/scripts/data/*.sh; do
    if [[ ! -x "$s" ]]; then
      echo "setup: skipping $s (not executable)"
      continue
    fi
    echo "setup: running ${s#"$root"/}"
    "$s" || die "${s#"$root"/} failed"
    ran=$((ran + 1))
  done
  echo "setup: ran $ran data script(s)"
else
  step "skipping data (--no-data)"
fi

echo
echo "==> setup: done in $((SECONDS - start)) s. Open the notebooks with: jupyter notebook $root/notebooks/"
