#!/bin/sh
# debian-source.sh — Debian's source of a library clashd links, at the
# version installed, unpacked for the WebAssembly build (Makefile, "the
# core in the page"): jansson (proto/ parses with it) and nettle (the
# SHA-256 of shape ids and the store), so the page runs the very code
# clashd runs.  apt-get fetches the source through a deb-src list of this
# build's own (under DIR/apt), leaving the machine's apt configuration as
# it is.
#
# Usage: debian-source.sh jansson|nettle DIR
# Leaves DIR/src: jansson's src/ with the two configuration headers its
# build would generate (as Debian's amd64 build has them), or nettle's
# tree with an empty config.h (the portable C, no assembly); and
# DIR/include/nettle for nettle (its headers as <nettle/...>).
set -eu
pkg=$1 dir=$2
case $pkg in
jansson) dev=libjansson-dev ;;
nettle) dev=nettle-dev ;;
*) echo "debian-source: jansson or nettle, not $pkg" >&2; exit 2 ;;
esac
version=$(dpkg-query -W -f='${Version}' "$dev")
rm -rf "$dir" && mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/apt/parts"
apt=$(cd "$dir/apt" && pwd)
cat >"$apt/parts/debian-src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $(. /etc/os-release && echo "$VERSION_CODENAME")
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt/parts" \
	-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o APT::Sandbox::User=root -qq
apt-get "$@" update
(cd "$dir" && apt-get "$@" source "$pkg=$version" >/dev/null)
tree=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*")
[ -n "$tree" ] || { echo "debian-source: no $pkg source in $dir" >&2; exit 1; }
tree=${tree#"$dir"/}
if [ "$pkg" = jansson ]; then
	src=$dir/$tree/src
	sed -e 's/@json_inline@/inline/' -e 's/@json_have_long_long@/1/' \
		-e 's/@json_have_localeconv@/1/' -e 's/@json_have_atomic_builtins@/1/' \
		-e 's/@json_have_sync_builtins@/1/' "$src/jansson_config.h.in" >"$src/jansson_config.h"
	printf '#define HAVE_STDINT_H 1\n#define HAVE_LOCALECONV 1\n' >"$src/jansson_private_config.h"
	ln -sfn "$tree/src" "$dir/src"
else
	: >"$dir/$tree/config.h"
	mkdir -p "$dir/include" && ln -sfn "../$tree" "$dir/include/nettle"
	ln -sfn "$tree" "$dir/src"
fi
