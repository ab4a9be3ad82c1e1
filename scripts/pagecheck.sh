#!/usr/bin/env bash
# Loads rendered notebook pages in headless Chromium and fails on what a reader would see
# broken: an image that did not decode, or an error in the page's console.
#
# How (Debian's chromium, no DevTools client needed): each page is copied into a scratch
# folder with a small script injected at the top of its <head>. The script records every
# uncaught error, unhandled promise rejection and console.error call, every element that
# failed to load (the 'error' event in the capture phase), and, once the page has loaded,
# each <img>'s decode state (complete and naturalWidth > 0). It writes that record as JSON
# into the page. `chromium --headless --dump-dom` loads the copy, runs its scripts and prints
# the resulting DOM, from which this script reads the record; a second run with --screenshot
# writes a picture of the page (its first 16,000 pixels, OUT/NAME.png) to look at.
#
# What is not an error: the pages load require.js, jQuery and MathJax from a CDN
# (cdnjs.cloudflare.com). Offline, or on a machine that cannot reach it, those scripts fail
# to load and the equations show as LaTeX source; a failed load of a script or stylesheet
# from an http(s) URL, and the console messages that follow from it, are reported as a note
# and do not fail the check. A page whose own content is broken fails: an undecodable or
# missing image, or an error that does not come from a missing CDN script.
#
# Usage: scripts/pagecheck.sh [--out DIR] [--self-test] [page.html ...]
#   (no pages)   every docs/notebooks/*.html
#   --out DIR    where the screenshots go (default build/pagecheck, ignored by git)
#   --self-test  first check that a page with a broken image fails and a good page passes
#                (two pages written to a temporary folder), then the pages given
# Exit status: 0 when every page passes, 1 when one fails, 2 for bad usage or no browser.
# Needs chromium (scripts/setup.sh installs Debian's) and python3.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/build/pagecheck"
selftest=0
pages=()
while [[ $# -gt 0 ]]; do
  case "$1" in
  --out)
    [[ $# -ge 2 ]] || { echo "pagecheck: --out needs a folder" >&2; exit 2; }
    out="$2"
    shift 2
    ;;
  --self-test) selftest=1; shift ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
    ;;
  -*) echo "pagecheck: unknown option $1" >&2; exit 2 ;;
  *) pages+=("$1"); shift ;;
  esac
done
if [[ ${#pages[@]} -eq 0 && $selftest -eq 0 ]]; then
  shopt -s nullglob
  pages=("$root"/docs/notebooks/*.html)
  shopt -u nullglob
  [[ ${#pages[@]} -gt 0 ]] || { echo "pagecheck: no docs/notebooks/*.html found" >&2; exit 2; }
fi

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null; then browser="$b"; break; fi
done
[[ -n "$browser" ]] || { echo "pagecheck: no chromium on PATH: run scripts/setup.sh (it installs Debian's chromium)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "pagecheck: python3 is needed" >&2; exit 2; }

mkdir -p "$out"
out="$(cd "$out" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# The probe injected into each page (see the header). It must come first in <head>, so that
# it sees the errors of every later script.
probe='<script id="pagecheck-probe">(function(){
var rec={errors:[],failedLoads:[],images:0,broken:[]};
function s(x){try{return String(x&&x.stack||x)}catch(e){return "?"}}
window.addEventListener("error",function(e){var t=e.target;
 if(t&&t!==window&&(t.src||t.href)){rec.failedLoads.push({tag:t.tagName.toLowerCase(),url:String(t.src||t.href).slice(0,200)});return;}
 rec.errors.push("uncaught: "+(e.message||"?")+(e.filename?" ("+e.filename.slice(0,120)+":"+e.lineno+")":""));},true);
window.addEventListener("unhandledrejection",function(e){rec.errors.push("unhandled rejection: "+s(e.reason));});
var ce=console.error;console.error=function(){var a=[];for(var i=0;i<arguments.length;i++)a.push(s(arguments[i]));rec.errors.push("console.error: "+a.join(" "));return ce.apply(console,arguments);};
window.addEventListener("load",function(){setTimeout(function(){
 var im=document.images;rec.images=im.length;
 for(var i=0;i<im.length;i++){if(!im[i].complete||im[i].naturalWidth===0){rec.broken.push("image "+(i+1)+": "+String(im[i].getAttribute("src")||"").slice(0,60));}}
 var p=document.createElement("pre");p.id="pagecheck-record";p.textContent=JSON.stringify(rec);document.body.appendChild(p);},300);});
})();</script>'

# check_page PAGE [SHOTS]: 0 when the page passes, 1 when it fails (what is wrong on
# stderr); its screenshot goes to SHOTS (default OUT).
check_page() {
  local page="$1" shots="${2:-$out}" name copy dom
  name="$(basename "$page" .html)"
  copy="$scratch/$name.html"
  PROBE="$probe" python3 - "$page" "$copy" <<'EOF' || return 1
import os, re, sys
src, dst = sys.argv[1], sys.argv[2]
html = open(src, encoding="utf-8").read()
m = re.search(r"<head[^>]*>", html, re.I)
if not m:
    sys.exit(f"pagecheck: {src}: no <head> element")
html = html[: m.end()] + os.environ["PROBE"] + html[m.end():]
open(dst, "w", encoding="utf-8").write(html)
EOF
  dom="$scratch/$name.dom"
  # --virtual-time-budget lets the page's timers run (the probe waits 300 ms after load)
  # without waiting for real time; a CDN that cannot be reached fails fast offline.
  if ! timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --virtual-time-budget=15000 --dump-dom "file://$copy" >"$dom" 2>"$scratch/$name.stderr"; then
    echo "pagecheck: FAIL $page: chromium failed; its messages:" >&2
    tail -n 20 "$scratch/$name.stderr" | sed 's/^/    /' >&2
    return 1
  fi
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --virtual-time-budget=15000 --window-size=1280,16000 --screenshot="$shots/$name.png" "file://$copy" \
    >/dev/null 2>>"$scratch/$name.stderr" || echo "pagecheck: note: $page: no screenshot (chromium failed)" >&2
  python3 - "$page" "$dom" <<'EOF'
import html, json, re, sys
page, dom = sys.argv[1], open(sys.argv[2], encoding="utf-8", errors="replace").read()
m = re.search(r'<pre id="pagecheck-record">(.*?)</pre>', dom, re.S)
if not m:
    sys.exit(f"pagecheck: FAIL {page}: the page never finished loading (no record of the probe)")
rec = json.loads(html.unescape(m.group(1)))
# Scripts and stylesheets from http(s) URLs are the CDN's (require.js, jQuery, MathJax):
# offline they fail to load, which is not the page's fault.
cdn = [f for f in rec["failedLoads"] if f["tag"] in ("script", "link") and re.match(r"https?://", f["url"])]
own = [f for f in rec["failedLoads"] if f not in cdn and f["tag"] != "img"]
errors = rec["errors"]
if cdn:
    # With require.js or jQuery missing, the page's inline scripts that call them throw
    # ReferenceErrors: those follow from the CDN, not from the page.
    missing = r"\b(require|requirejs|define|\$|jQuery|MathJax)\b is not defined"
    errors = [e for e in errors if not re.search(missing, e)]
problems = [f"{b} did not decode (naturalWidth 0)" for b in rec["broken"]]
problems += [f"{f['tag']} failed to load: {f['url']}" for f in own]
problems += errors
if rec["images"] == 0:
    problems.append("no <img> at all: a notebook page shows its figures as images")
for p in problems:
    print(f"pagecheck: FAIL {page}: {p}", file=sys.stderr)
if problems:
    sys.exit(1)
ignored = len(rec["errors"]) - len(errors)
note = f"; {len(cdn)} CDN script(s) not loaded (offline: equations show as LaTeX)" if cdn else ""
if ignored:
    note += f", {ignored} error(s) from their absence ignored"
print(f"pagecheck: ok {page} ({rec['images']} images decoded, no console error{note})")
EOF
}

status=0
if [[ $selftest -eq 1 ]]; then
  st="$scratch/selftest"
  mkdir -p "$st"
  # A 1×1 PNG, and the same bytes cut short: a browser cannot decode the second.
  good='iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
  bad='iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB'
  printf '<!DOCTYPE html><html><head><title>good</title></head><body><img src="data:image/png;base64,%s"></body></html>\n' "$good" >"$st/good.html"
  printf '<!DOCTYPE html><html><head><title>broken</title></head><body><img src="data:image/png;base64,%s"><img src="data:image/png;base64,%s"></body></html>\n' "$good" "$bad" >"$st/broken.html"
  printf '<!DOCTYPE html><html><head><title>throws</title></head><body><img src="data:image/png;base64,%s"><script>undefinedFunction()</script></body></html>\n' "$good" >"$st/throws.html"
  if ! check_page "$st/good.html" "$st" >/dev/null 2>"$st/good.err"; then
    echo "pagecheck: self-test FAILED: a good page did not pass:" >&2
    cat "$st/good.err" >&2
    status=1
  fi
  for p in broken throws; do
    if check_page "$st/$p.html" "$st" >/dev/null 2>"$st/$p.err"; then
      echo "pagecheck: self-test FAILED: the $p page passed" >&2
      status=1
    fi
  done
  grep -q "image 2: .*did not decode" "$st/broken.err" || { echo "pagecheck: self-test FAILED: the broken image was not named" >&2; cat "$st/broken.err" >&2; status=1; }
  grep -q "undefinedFunction" "$st/throws.err" || { echo "pagecheck: self-test FAILED: the script error was not reported" >&2; cat "$st/throws.err" >&2; status=1; }
  [[ $status -eq 0 ]] && echo "pagecheck: self-test ok (a broken image and a script error fail; a good page passes)"
fi
for page in "${pages[@]}"; do
  if [[ ! -f "$page" ]]; then
    echo "pagecheck: FAIL $page: no such file" >&2
    status=1
    continue
  fi
  check_page "$page" || status=1
done
[[ ${#pages[@]} -eq 0 ]] || echo "pagecheck: screenshots in $out"
exit $status
