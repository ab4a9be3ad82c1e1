#!/usr/bin/env bash
# Regenerates the three texture images committed under data/textures/ (brick.png, grass.png,
# gravel.png)
# from Debian's python3-skimage package, for the textured-MNIST experiment.
#
# The files are committed, so this script normally only verifies them. When one is missing
# or differs, it runs `apt-get download python3-skimage` (no install, no root needed beyond
# apt's cache), unpacks the package's file tree with `dpkg-deb --fsys-tarfile`, extracts
# ./usr/lib/python3/dist-packages/skimage/data/ and copies the PNG files. The images are
# CC0 (see data/textures/README.md). Safe to run twice.
#
# Usage: scripts/data/textures.sh [destination folder]   (default: data/textures)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest="${1:-$root/data/textures}"
deb_version="0.19.3-8" # Debian 12 (bookworm); the SHA-256 sums below are of this version's files
inner="./usr/lib/python3/dist-packages/skimage/data"

declare -A sha256=(
  [brick.png]=7966caf324f6ba843118d98f7a07746d22f6a343430add0233eca5f6eaaa8fcf
  [grass.png]=b6b6022426b38936c43a4ac09635cd78af074e90f42ffa8227ac8b7452d39f89
  [gravel.png]=c48615b451bf1e606fbd72c0aa9f8cc0f068ab7111ef7d93bb9b0f2586440c12
)

ok() { [[ -f "$dest/$1" ]] && [[ "$(sha256sum "$dest/$1" | cut -d' ' -f1)" == "${sha256[$1]}" ]]; }

missing=()
for f in "${!sha256[@]}"; do
  ok "$f" || missing+=("$f")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "textures: ${!sha256[*]} present and verified in $dest"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "textures: missing or changed: ${missing[*]}; apt-get download python3-skimage into $tmp"
(cd "$tmp" && apt-get download "python3-skimage=$deb_version" >/dev/null 2>"$tmp/apt.log" ||
  apt-get download python3-skimage >/dev/null 2>>"$tmp/apt.log") || {
  cat "$tmp/apt.log" >&2
  echo "textures: apt-get download failed; on a fresh machine run apt-get update first" >&2
  exit 1
}
deb="$(ls "$tmp"/python3-skimage_*.deb)"
echo "textures: unpacking $inner/ from $(basename "$deb")"
mkdir -p "$tmp/tree"
dpkg-deb --fsys-tarfile "$deb" | tar --no-same-owner -x -C "$tmp/tree" "$inner/"
mkdir -p "$dest"
for f in "${missing[@]}"; do
  src="$tmp/tree/$inner/$f"
  got="$(sha256sum "$src" | cut -d' ' -f1)"
  if [[ "$got" != "${sha256[$f]}" ]]; then
    echo "textures: $f from $(basename "$deb") has SHA-256 $got, want ${sha256[$f]} (from python3-skimage $deb_version)" >&2
    exit 1
  fi
  install -m 0644 "$src" "$dest/$f"
  echo "textures: wrote $dest/$f ($(stat -c %s "$dest/$f") bytes, SHA-256 verified)"
done
