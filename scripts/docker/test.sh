#!/usr/bin/env bash
# Builds docker/Dockerfile, unchanged, and tests the image (make test-docker):
#   1. Engine: docker when its daemon answers, else podman when it can run a container here,
#      else buildah (builds and runs commands with --isolation chroot: no daemon, no user
#      namespaces, no resource limits). It says which, and why the ones before it were passed over.
#   2. Base image (the Dockerfile's FROM line, golang:VERSION-SUITE): reused when the engine's
#      store has it, else pulled; when it cannot be pulled (no registry reachable), built here
#      under the same name from Debian's packages: debootstrap SUITE with the packages of the
#      official golang image (buildpack-deps' curl and scm layers, gcc, make, pkg-config), the
#      Go tree of this machine (`go env GOROOT`, or $INVMMD_DOCKER_GOROOT) at /usr/local/go, the
#      official image's environment (GOPATH=/go, GOTOOLCHAIN=local, PATH, WORKDIR /go), and
#      this machine's CA bundle, so that HTTPS inside the build verifies wherever the host's
#      does. The Go version of that tree must match the FROM line's (1.26 accepts any 1.26.x).
#      The image is labelled invmmd.local-base=1; later runs reuse it.
#   3. Builds docker/Dockerfile into $INVMMD_DOCKER_IMAGE (default invmmd) and times it (podman
#      and buildah with --isolation chroot); the image it replaces is removed (by id), so that
#      re-runs do not pile up untagged images.
#   4. Inside the image: `go test ./invmmd/`, notebook 00 executed headless by
#      scripts/notebooks.sh (nbconvert, then cmd/nbcheck on its outputs), and
#      `invmmd sim -quick -out /tmp/q` (its tables checked to exist and be non-empty).
#   5. Where the engine can run a container: `run -p PORT:8888 IMAGE` (the image's own command,
#      the notebook server), waits for it, fetches /api with a timeout, stops it by id. Where it
#      cannot (podman's runtime refused here), the step is skipped with the reason: not a failure.
#   6. Prints the engine, base, build time, image and base sizes and the time of every step.
# Every container it made is removed by id on exit, failure included; the scratch folder of a
# local base build too. Bounded: every step inside the image and every wait has a deadline.
#
# Usage: scripts/docker/test.sh   (root where the base must be built: debootstrap needs it)
# Environment:
#   INVMMD_DOCKER_IMAGE=NAME     image to build and test (default invmmd)
#   INVMMD_DOCKER_ENGINE=E       docker, podman or buildah instead of the automatic choice
#   INVMMD_DOCKER_GOROOT=DIR     Go tree for a locally built base (default: go env GOROOT)
#   INVMMD_DOCKER_PORT=P         host port for the served-notebook step (default 8888)
#   INVMMD_DEBIAN_MIRROR=URL     Debian mirror for debootstrap (default http://deb.debian.org/debian)
# Install the engines on Debian 12 with:
#   apt-get install -y --no-install-recommends buildah podman debootstrap
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
start=$SECONDS
say() { echo "== docker test ($((SECONDS - start)) s): $*"; }
fail() { echo "FAIL docker test: $*" >&2; exit 1; }

dockerfile=docker/Dockerfile
image=${INVMMD_DOCKER_IMAGE:-invmmd}
port=${INVMMD_DOCKER_PORT:-8888}
mirror=${INVMMD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The folder the Dockerfile copies the project into (its WORKDIR).
appdir=/opt/invmmd
# Deadline of each step run inside the image, in seconds.
step_limit=1800

[ -f "$dockerfile" ] || fail "$dockerfile not found in $repo"

# ---------------------------------------------------------------------------------------------
# Cleanup: containers by id, the scratch folder (after unmounting anything left under it).
containers=()
work=""
cleanup() {
	local rc=$?
	local c
	stop_server
	for c in "${containers[@]}"; do
		case "$engine" in
		buildah) buildah rm "$c" >/dev/null 2>&1 || echo "docker test: could not remove working container $c" >&2 ;;
		*) "$engine" rm -f "$c" >/dev/null 2>&1 || echo "docker test: could not remove container $c" >&2 ;;
		esac
	done
	if [ -n "$work" ] && [ -d "$work" ]; then
		# debootstrap mounts proc and sys in its target; a failed run may leave them mounted.
		local m
		for m in $(awk -v w="$work/" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r); do
			umount -l "$m" 2>/dev/null || true
		done
		rm -rf --one-file-system "$work"
	fi
	exit $rc
}
# The notebook server started through buildah run (by its pid): buildah's chroot runtime passes
# the signal on to the server.
srv_pid=""
stop_server() {
	[ -n "$srv_pid" ] || return 0
	kill -TERM "$srv_pid" 2>/dev/null || true
	local i
	for i in $(seq 20); do
		kill -0 "$srv_pid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$srv_pid" 2>/dev/null && kill -KILL "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null || true
	srv_pid=""
	rm -f "/tmp/invmmd-docker-serve.$$.log"
}
engine=""
trap cleanup EXIT

# ---------------------------------------------------------------------------------------------
# The base image named by the FROM line: golang:VERSION-SUITE.
from=$(awk 'toupper($1) == "FROM" { for (i = 2; i <= NF; i++) if ($i !~ /^--/) { print $i; exit } }' "$dockerfile")
[ -n "$from" ] || fail "no FROM line in $dockerfile"
base_name=${from#docker.io/}
base_name=${base_name#library/}
if [[ $base_name =~ ^golang:([0-9]+\.[0-9]+(\.[0-9]+)?)-([a-z]+)$ ]]; then
	want_go=${BASH_REMATCH[1]}
	suite=${BASH_REMATCH[3]}
else
	want_go=""
	suite=""
fi
base_fq=docker.io/library/$base_name

# ---------------------------------------------------------------------------------------------
# Engine.
docker_why="" podman_why=""
if command -v docker >/dev/null; then
	if docker info >/dev/null 2>&1; then
		engine=docker
	else
		docker_why="docker is installed but its daemon does not answer (docker info failed)"
	fi
else
	docker_why="docker is not installed"
fi
if [ -n "${INVMMD_DOCKER_ENGINE:-}" ]; then
	case "$INVMMD_DOCKER_ENGINE" in
	docker | podman | buildah) ;;
	*) fail "INVMMD_DOCKER_ENGINE=$INVMMD_DOCKER_ENGINE: want docker, podman or buildah" ;;
	esac
	command -v "$INVMMD_DOCKER_ENGINE" >/dev/null || fail "INVMMD_DOCKER_ENGINE=$INVMMD_DOCKER_ENGINE is not installed"
	engine=$INVMMD_DOCKER_ENGINE
fi
# podman and buildah share one image store: store is the tool that manages the base there.
if [ -z "$engine" ]; then
	if command -v podman >/dev/null; then
		store=podman
	elif command -v buildah >/dev/null; then
		store=buildah
	else
		fail "no container engine: $docker_why, and neither podman nor buildah is installed (Debian 12: apt-get install -y --no-install-recommends buildah podman debootstrap)"
	fi
else
	store=$engine
fi

image_exists() { # image_exists TOOL REF
	case "$1" in
	docker) docker image inspect "$2" >/dev/null 2>&1 ;;
	podman) podman image exists "$2" 2>/dev/null ;;
	buildah) buildah inspect --type image "$2" >/dev/null 2>&1 ;;
	esac
}
image_label() { # image_label TOOL REF LABEL
	case "$1" in
	docker | podman) "$1" image inspect --format "{{index .Config.Labels \"$3\"}}" "$2" 2>/dev/null ;;
	buildah) buildah inspect --type image --format "{{index .OCIv1.Config.Labels \"$3\"}}" "$2" 2>/dev/null ;;
	esac
}
image_id() { # image_id TOOL REF
	case "$1" in
	docker | podman) "$1" image inspect --format '{{.Id}}' "$2" 2>/dev/null ;;
	buildah) buildah inspect --type image --format '{{.FromImageID}}' "$2" 2>/dev/null ;;
	esac
}
image_size() { # image_size REF: "2.56 GB (2563104814 bytes)"; buildah alone reports a rounded size
	local tool=$store b
	[ "$tool" = buildah ] && command -v podman >/dev/null && tool=podman
	case "$tool" in
	docker | podman)
		b=$("$tool" image inspect --format '{{.Size}}' "$1" 2>/dev/null) || { echo "?"; return; }
		awk -v b="$b" 'BEGIN { printf "%.2f GB (%.0f bytes)", b / 1e9, b }'
		;;
	buildah) buildah images --json "$1" 2>/dev/null | sed -n 's/^ *"size": "\(.*\)",$/\1/p' | head -n 1 ;;
	esac
}

# ---------------------------------------------------------------------------------------------
# Base image: present, pulled, or built here from Debian's packages.
base_how=""
build_local_base() {
	[ -n "$want_go" ] || fail "the base $from cannot be pulled, and a local stand-in is built only for golang:VERSION-SUITE (e.g. golang:1.26-bookworm)"
	[ "$(id -u)" = 0 ] || fail "the base $from cannot be pulled and building it from Debian's packages needs root (debootstrap); running as $(id -un)"
	command -v debootstrap >/dev/null || fail "the base $from cannot be pulled and debootstrap is not installed (apt-get install -y --no-install-recommends debootstrap)"
	local goroot=${INVMMD_DOCKER_GOROOT:-}
	if [ -z "$goroot" ]; then
		command -v go >/dev/null || fail "no Go on PATH to copy into the base: set INVMMD_DOCKER_GOROOT to a Go $want_go tree"
		goroot=$(go env GOROOT)
	fi
	[ -x "$goroot/bin/go" ] || fail "$goroot/bin/go not found (INVMMD_DOCKER_GOROOT or go env GOROOT must be a Go tree)"
	local gov
	gov=$("$goroot/bin/go" env GOVERSION) || fail "$goroot/bin/go env GOVERSION failed"
	# golang:1.26-SUITE is any Go 1.26.x; golang:1.26.3-SUITE is Go 1.26.3 exactly.
	local ok=0
	case "$want_go" in
	*.*.*) [ "$gov" = "go$want_go" ] && ok=1 ;;
	*) case "$gov" in "go$want_go" | "go$want_go".*) ok=1 ;; esac ;;
	esac
	case $ok in
	1) ;;
	*) fail "$dockerfile's FROM line ($from) asks for Go $want_go, but the Go tree at $goroot is $gov: set INVMMD_DOCKER_GOROOT to a Go $want_go tree" ;;
	esac
	local ca=/etc/ssl/certs/ca-certificates.crt
	[ -s "$ca" ] || fail "$ca not found: the base needs this machine's CA bundle"

	work=$(mktemp -d /var/tmp/invmmd-docker-base.XXXXXX)
	local root=$work/rootfs ctx=$work/context
	mkdir -p "$ctx"
	# The official golang:*-SUITE image is debian:SUITE plus buildpack-deps' curl layer
	# (ca-certificates curl gnupg netbase wget) and scm layer (git mercurial openssh-client
	# subversion procps), plus the C toolchain for cgo (g++ gcc libc6-dev make pkg-config).
	local pkgs=ca-certificates,curl,gnupg,netbase,wget,git,mercurial,openssh-client,subversion,procps,g++,gcc,libc6-dev,make,pkg-config
	say "building the base $base_fq here: debootstrap --variant=minbase $suite from $mirror with $pkgs"
	local t0=$SECONDS
	if ! debootstrap --variant=minbase --include="$pkgs" "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
		tail -n 30 "$work/debootstrap.log" >&2
		fail "debootstrap $suite failed (log above)"
	fi
	say "debootstrap done in $((SECONDS - t0)) s"
	# As the official debian image: the suite, its updates and its security archive; no package
	# lists or downloaded packages kept.
	rm -f "$root/etc/apt/sources.list"
	cat >"$root/etc/apt/sources.list.d/debian.sources" <<-EOF
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: $suite $suite-updates
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

		Types: deb
		URIs: http://deb.debian.org/debian-security
		Suites: $suite-security
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/*
	# This machine's CA bundle, over the generated one and as a local authority file, so that a
	# later update-ca-certificates in the image keeps it.
	cp "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
	mkdir -p "$root/usr/local/share/ca-certificates"
	cp "$ca" "$root/usr/local/share/ca-certificates/invmmd-build-host.crt"
	say "copying the Go tree $goroot ($gov) to /usr/local/go"
	cp -a "$goroot/." "$root/usr/local/go/"
	mkdir -p "$root/go/src" "$root/go/bin"
	chmod -R 1777 "$root/go"
	tar -C "$root" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -cf "$ctx/rootfs.tar" .
	rm -rf --one-file-system "$root"
	cat >"$ctx/Containerfile" <<-EOF
		# A stand-in for $base_fq, built by scripts/docker/test.sh where no registry is reachable.
		FROM scratch
		ADD rootfs.tar /
		ENV GOLANG_VERSION=${gov#go}
		ENV GOTOOLCHAIN=local
		ENV GOPATH=/go
		ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		WORKDIR /go
		LABEL invmmd.local-base=1 invmmd.local-base.go=$gov invmmd.local-base.suite=$suite
		CMD ["bash"]
	EOF
	local tag=$base_fq
	[ "$store" = docker ] && tag=$base_name
	t0=$SECONDS
	case "$store" in
	docker) docker build -q -f "$ctx/Containerfile" -t "$tag" "$ctx" >/dev/null ;;
	podman) podman build -q --layers=false --isolation chroot -f "$ctx/Containerfile" -t "$tag" "$ctx" >/dev/null ;;
	buildah) buildah bud -q --isolation chroot -f "$ctx/Containerfile" -t "$tag" "$ctx" >/dev/null ;;
	esac || fail "importing the Debian $suite root file system as $tag failed"
	rm -rf "$work"
	work=""
	say "built the base $tag from Debian's packages ($((SECONDS - t0)) s to import): Debian $suite, $gov, this machine's CA bundle"
}

if image_exists "$store" "$base_fq" || image_exists "$store" "$base_name"; then
	if [ "$(image_label "$store" "$base_fq" invmmd.local-base || true)" = 1 ] ||
		[ "$(image_label "$store" "$base_name" invmmd.local-base || true)" = 1 ]; then
		base_how="reused, built earlier here from Debian's packages (remove it to rebuild: $store rmi $base_fq)"
	else
		base_how="reused from the image store"
	fi
	say "base $from: $base_how"
else
	say "base $from not in the $store image store: pulling $base_fq"
	if timeout 900 "$store" pull "$base_fq" >"/tmp/invmmd-docker-pull.$$" 2>&1; then
		base_how="pulled"
	else
		say "cannot pull $base_fq: $(tail -n 1 "/tmp/invmmd-docker-pull.$$")"
		build_local_base
		base_how="built here from Debian's packages (no registry reachable)"
	fi
	rm -f "/tmp/invmmd-docker-pull.$$"
fi

# ---------------------------------------------------------------------------------------------
# Can this engine run a container? podman's runtime (crun) fails where setting resource limits
# is forbidden; buildah's chroot isolation needs no runtime.
can_run=0
run_why=""
probe() { # probe TOOL: runs `true` in the base; sets run_why on failure
	local out
	if out=$(timeout 120 "$1" run --rm "$base_fq" true 2>&1); then
		return 0
	fi
	run_why="$1 run fails here: $(tail -n 1 <<<"$out")"
	return 1
}
if [ -z "${INVMMD_DOCKER_ENGINE:-}" ] && [ -z "$engine" ]; then
	if command -v podman >/dev/null && probe podman; then
		engine=podman
		can_run=1
	elif command -v buildah >/dev/null; then
		[ -n "$run_why" ] || podman_why="podman is not installed"
		engine=buildah
	else
		fail "podman cannot run containers here ($run_why) and buildah, which can run commands in an image without a runtime, is not installed"
	fi
elif [ "$engine" = docker ] || [ "$engine" = podman ]; then
	probe "$engine" && can_run=1
	[ "$engine" = podman ] && [ $can_run = 0 ] && fail "INVMMD_DOCKER_ENGINE=podman but $run_why"
	[ "$engine" = docker ] && [ $can_run = 0 ] && fail "docker's daemon answers but $run_why"
fi
case "$engine" in
docker) say "engine: $(docker --version)" ;;
podman) say "engine: $(podman --version) (${docker_why:-docker not wanted})" ;;
buildah)
	say "engine: $(buildah --version | cut -d' ' -f1-3) with --isolation chroot (${docker_why:-docker not wanted}; ${run_why:-${podman_why:-podman not wanted}})"
	[ -n "$run_why" ] || run_why="buildah runs commands in an image but serves no ports"
	;;
esac

# ---------------------------------------------------------------------------------------------
# Build the committed Dockerfile as it is. podman and buildah build with chroot isolation: the
# RUN steps then need no OCI runtime and no container network (where podman run works, its
# network may still lack a backend), and they reach apt and the Go proxy through the host's network.
old_id=$(image_id "$engine" "$image" || true)
say "building $dockerfile into $image"
t0=$SECONDS
case "$engine" in
docker) docker build -f "$dockerfile" -t "$image" . ;;
podman) podman build --isolation chroot -f "$dockerfile" -t "$image" . ;;
buildah) buildah bud --isolation chroot -f "$dockerfile" -t "$image" . ;;
esac || fail "building $dockerfile with $engine failed (output above)"
build_s=$((SECONDS - t0))
new_id=$(image_id "$engine" "$image") || fail "$image is not in the image store after the build"
if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then
	"$engine" rmi "$old_id" >/dev/null 2>&1 && say "removed the previous $image ($old_id)" || true
fi
size=$(image_size "$image")
base_size=$(image_size "$base_fq")
say "built $image in $build_s s: $size (base $base_size)"

# ---------------------------------------------------------------------------------------------
# Commands inside the image, in one working container.
case "$engine" in
docker | podman)
	cid=$("$engine" run -d "$image" sleep infinity) || fail "$engine run $image failed"
	containers+=("$cid")
	in_image() { "$engine" exec "$cid" bash -c "$1"; }
	;;
buildah)
	cid=$(buildah from "$image") || fail "buildah from $image failed"
	containers+=("$cid")
	in_image() { buildah run --isolation chroot "$cid" -- bash -c "$1"; }
	;;
esac
declare -a steps=()
inside() { # inside NAME COMMAND: runs COMMAND in the image's project folder, with a deadline
	say "in the image: $1"
	local t0=$SECONDS
	in_image "cd $appdir && timeout $step_limit bash -c $(printf %q "set -euo pipefail; $2")" ||
		fail "in the image: $1 failed (output above)"
	steps+=("$1: $((SECONDS - t0)) s")
}
inside "go test ./invmmd/" "go version && go test -count=1 ./invmmd/"
inside "notebook 00 (nbconvert + nbcheck)" \
	"scripts/notebooks.sh --no-html --out /tmp/invmmd-nb notebooks/00_tour.ipynb"
inside "invmmd sim -quick -out /tmp/q" \
	"invmmd sim -quick -out /tmp/q >/tmp/q.log 2>&1 || { tail -n 30 /tmp/q.log; exit 1; }
	 tail -n 5 /tmp/q.log
	 n=\$(find /tmp/q/tables -type f -size +0 | wc -l)
	 [ \"\$n\" -gt 0 ] || { echo 'no tables written under /tmp/q/tables'; exit 1; }
	 echo \"sim: \$n non-empty files under /tmp/q/tables: \$(ls /tmp/q/tables | tr '\n' ' ')\""

# ---------------------------------------------------------------------------------------------
# The notebook server, as `docker run -p 8888:8888 invmmd` starts it. Where no container can
# run, the image's own command is still started through buildah run, which shares the host's
# network (no port mapping), bound to 127.0.0.1; that checks the command, not the mapping.
wait_api() { # wait_api ALIVE-CMD LOG-CMD: waits up to 180 s for /api on $port; sets api
	local t0=$SECONDS
	api=""
	while [ $((SECONDS - t0)) -lt 180 ]; do
		if api=$(curl -fsS --max-time 5 "http://127.0.0.1:$port/api" 2>/dev/null) && [[ $api == *'"version"'* ]]; then
			say "GET http://127.0.0.1:$port/api answered $api after $((SECONDS - t0)) s"
			return 0
		fi
		api=""
		$1 || { $2 | tail -n 30 >&2; fail "the notebook server exited (its log above)"; }
		sleep 2
	done
	$2 | tail -n 30 >&2
	fail "the notebook server did not answer http://127.0.0.1:$port/api within 180 s (its log above)"
}
token_url() { grep -o 'http://127\.0\.0\.1:[0-9]*/[^ ]*token=[^ ]*' | tail -n 1 || true; }
port_free() {
	command -v curl >/dev/null || fail "curl is needed to fetch the notebook server's /api"
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		fail "port $port is in use on this machine: set INVMMD_DOCKER_PORT to a free one"
	fi
}
if [ $can_run = 1 ]; then
	port_free
	say "serving: $engine run -d -p 127.0.0.1:$port:8888 $image"
	sid=$("$engine" run -d -p "127.0.0.1:$port:8888" "$image") || fail "$engine run -p $port:8888 $image failed"
	containers+=("$sid")
	alive() { [ "$("$engine" inspect --format '{{.State.Running}}' "$sid" 2>/dev/null)" = true ]; }
	srv_log() { "$engine" logs "$sid" 2>&1; }
	wait_api alive srv_log
	say "the server printed $(srv_log | token_url)"
	"$engine" stop -t 20 "$sid" >/dev/null || fail "$engine stop $sid failed"
	serve="passed: $engine run -p $port:8888 $image answered /api with $api"
else
	say "serving through a port mapping: skipped: $run_why"
	serve="run -p $port:8888: skipped ($run_why)"
	if [ "$engine" = buildah ]; then
		cmd=$(buildah inspect --type image --format '{{.OCIv1.Config.Cmd}}' "$image") || fail "buildah inspect $image failed"
		cmd=${cmd#[}
		cmd=${cmd%]}
		read -r -a cmdv <<<"$cmd"
		[ ${#cmdv[@]} -gt 0 ] || fail "$image has no command (CMD)"
		# The same command, listening on 127.0.0.1:$port (Jupyter takes each option once).
		argv=()
		for a in "${cmdv[@]}"; do
			case "$a" in
			--ip=* | --port=*) ;;
			*) argv+=("$a") ;;
			esac
		done
		argv+=(--ip=127.0.0.1 "--port=$port")
		port_free
		scid=$(buildah from "$image") || fail "buildah from $image failed"
		containers+=("$scid")
		say "instead, the image's command on the host's network: buildah run --isolation chroot $scid -- ${argv[*]}"
		buildah run --isolation chroot "$scid" -- "${argv[@]}" >"/tmp/invmmd-docker-serve.$$.log" 2>&1 &
		srv_pid=$!
		alive() { kill -0 "$srv_pid" 2>/dev/null; }
		srv_log() { cat "/tmp/invmmd-docker-serve.$$.log"; }
		wait_api alive srv_log
		say "the server printed $(srv_log | token_url)"
		stop_server
		serve="$serve; the image's command through buildah run (host network) answered /api with $api"
	fi
fi

echo
echo "docker test: passed in $((SECONDS - start)) s"
echo "  engine:  $engine"
echo "  base:    $from, $base_how"
echo "  build:   $build_s s; image $image $size, base $base_size"
for s in "${steps[@]}"; do echo "  step:    $s"; done
echo "  serving: $serve"
