#!/bin/sh
# install-deps.sh — install the Debian packages clashd needs, only those missing.
#
# One script serves `make run`, `make test`, CI (.ci/run -> make test) and the
# Dockerfile, so a fresh bookworm machine and the container image are set up by
# the same steps.
#
# Usage: install-deps.sh [build|test|runtime|bench]
#        install-deps.sh --list [build|test|runtime|bench]   (print the packages, install nothing)
#   build    what `make` needs
#   test     build + what `make test` needs
#   bench    build + what the benchmarks need (make bench: the core's and
#            the meshes' peers, make bench-http: the load generator)
#   runtime  only the shared libraries build/clashd links (the container's run
#            stage; tests/deploy/check-image.sh checks this list against ldd)
# EXTRA_CA=FILE: apt trusts the CA in FILE for https (a TLS-inspecting
# proxy's; the Dockerfile passes its build secret so), when FILE exists.
set -eu

list=""
if [ "${1:-}" = --list ]; then list=1; shift; fi
profile=${1:-build}
case $profile in build|test|runtime|bench) ;; *)
	echo "install-deps: unknown profile \"$profile\" (build, test, runtime or bench)" >&2; exit 2;;
esac
# libyaml-dev: clashd's build converts proto/openapi.yaml to the JSON it serves;
# libgnutls28-dev: `clashd --healthcheck https://...` (libmicrohttpd-dev pulls it
# in too, but clashd links it itself); zlib1g-dev: gzip request bodies;
# nettle-dev: SHA-256, the ids of stored shapes (GnuTLS brings it, but the
# proto objects link it themselves); libassimp-dev: mesh files (STL, OBJ,
# glTF, PLY) imported by POST /v1/shapes and `clash import`; libhiredis-dev:
# the shared second tier of the shape store (--store-redis, server/store_redis.c).
pkgs="build-essential pkg-config libmicrohttpd-dev libjansson-dev libuv1-dev libyaml-dev libgnutls28-dev zlib1g-dev nettle-dev libassimp-dev libhiredis-dev"
# clang, lld, wasi-libc, libclang-rt-14-dev-wasm32: clang's wasm32-wasi
# target (wasm-ld, the C library, compiler-rt's builtins), which builds the
# core in the page (clients/js/gen/clashd-core.wasm): the demo's bundle
# holds it, so `make run` needs it as much as js-test and web-test, which
# compare its answers with clashd's.  Its jansson and nettle come from
# Debian's source packages (clients/js/wasm/debian-source.sh).
pkgs="$pkgs clang lld wasi-libc libclang-rt-14-dev-wasm32"
# nodejs + npm: the demo page's bundle (make web: three.js and esbuild from
# npm), which `make run` serves at /web/; make test's OpenAPI validator and
# make bench-mesh's three-mesh-bvh too.  Only when there is no npm at all:
# a machine may have Node.js from elsewhere, whose nodejs package ships npm
# and conflicts with Debian's.
if ! command -v npm >/dev/null 2>&1; then
	pkgs="$pkgs nodejs npm"
fi
if [ "$profile" = runtime ]; then
	pkgs="libmicrohttpd12 libjansson4 libuv1 libgnutls30 zlib1g libnettle8 libassimp5 libhiredis0.14"
fi
if [ "$profile" = test ]; then
	# check: unit test framework; libqhull-dev: the independent distance oracle;
	# curl: the suites that run clashd and the README examples talk to it
	# over HTTP (and HTTPS); openssl: the operations suite makes a
	# self-signed certificate; libglpk-dev: the exact n-D LP oracle
	# (tests/oracle_lp.c) of the method_simplex and contains suites.
	# (libyaml-dev, which the wire_contract suite reads proto/openapi.yaml
	# with, is a build dependency now.)
	# libssl-dev: OpenSSL's SHA-256, the store suite's independent check
	# of stored shapes' ids.
	pkgs="$pkgs check libqhull-dev curl openssl libglpk-dev libssl-dev"
	# libgmp-dev: exact rational arithmetic, the oracle the predicates
	# suite checks the core's adaptive orientation tests against.
	pkgs="$pkgs libgmp-dev"
	# clang-format (14, /usr/bin/clang-format): format-check holds the C
	# files to .clang-format.
	pkgs="$pkgs clang-format"
	# clang + libclang-rt-14-dev: the libFuzzer targets (tests/fuzz/);
	# haproxy: the failover test runs deploy/haproxy/haproxy.cfg; yamllint:
	# the deploy files' check (tests/deploy/); redis-server: the shared
	# store's tests (make store-cluster) start one on a loopback port.
	pkgs="$pkgs clang libclang-rt-14-dev haproxy yamllint redis-server"
	# podman + runc: make image-test builds the Dockerfile and runs the
	# image (runc: crun cannot use hybrid cgroups); mmdebstrap makes its
	# debian:bookworm bases where no image registry is reachable.
	pkgs="$pkgs podman runc mmdebstrap"
	# chromium: the browser test of the demo page (make web-test) drives
	# Debian's chromium headless; no browser is downloaded.
	pkgs="$pkgs chromium"
fi
if [ "$profile" = bench ]; then
	# bench/core: its peers (libccd, FCL 0.7, Bullet's btGjkEpa2, GLPK),
	# g++ for their C++ APIs, the qhull oracle of the test suites (the
	# GJK88 set's truth, FCL's meshes) and gnuplot for the plot of time
	# against vertex count.
	pkgs="$pkgs g++ libqhull-dev libglpk-dev libccd-dev libfcl-dev libbullet-dev gnuplot-nox"
	# wrk: the HTTP load generator of make bench-http; redis-server: its
	# shared-tier part.
	pkgs="$pkgs wrk redis-server"
	# make bench-mesh: FCL (above) and three-mesh-bvh under node (npm, in
	# the build profile), installed with npm ci from bench/mesh/package-lock.json.
fi
if [ -n "$list" ]; then
	echo $pkgs
	exit 0
fi

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "install-deps: need root or sudo to install:$missing" >&2; exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
apt_ca=""
if [ -n "${EXTRA_CA:-}" ] && [ -r "$EXTRA_CA" ]; then apt_ca="-o Acquire::https::CAInfo=$EXTRA_CA"; fi
# Update the package index only when an install from the current one fails:
# a fresh container has no index at all, a warm machine usually has a good one.
if ! $SUDO apt-get $apt_ca install -y --no-install-recommends $missing; then
	$SUDO apt-get $apt_ca update
	$SUDO apt-get $apt_ca install -y --no-install-recommends $missing
fi
