#!/bin/sh
# install-deps.sh — install the Debian packages clashd needs, only those missing.
#
# One script serves `make run`, `make test`, CI (.ci/run -> make test) and the
# Dockerfile, so a fresh bookworm machine and the container image are set up by
# the same steps.  Usage: install-deps.sh [build|test]   (test adds test-only packages)
set -eu

profile=${1:-build}
pkgs="build-essential pkg-config libmicrohttpd-dev libjansson-dev libuv1-dev"
if [ "$profile" = test ]; then
	# check: unit test framework; libqhull-dev: the independent distance oracle;
	# curl: the server suite and the README examples talk to clashd over HTTP;
	# libyaml-dev: the proto suite reads proto/openapi.yaml to check it against the code;
	# libglpk-dev: the exact n-D LP oracle (tests/oracle_lp.c) of the simplex and contains suites.
	pkgs="$pkgs check libqhull-dev curl libyaml-dev libglpk-dev"
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
# Update the package index only when an install from the current one fails:
# a fresh container has no index at all, a warm machine usually has a good one.
if ! $SUDO apt-get install -y --no-install-recommends $missing; then
	$SUDO apt-get update
	$SUDO apt-get install -y --no-install-recommends $missing
fi
