#!/bin/sh
# check-image.sh — the Dockerfile, checked without a Docker engine.
#
#   sh tests/deploy/check-image.sh [BINARY]     (make deploy-check; BINARY: build/clashd)
#
# There is no engine here to build the image, so what can go wrong in it is
# checked against what it depends on:
#   - the stages: built on debian:bookworm, run on debian:bookworm-slim;
#   - every RUN line calls deploy/install-deps.sh with a profile the script
#     has, and every make target it names exists in the Makefile; the run
#     stage copies the binary the Makefile builds, and the demo page `make
#     web` builds where CLASHD_WEB points;
#   - the run stage: numeric non-root USER, exec-form ENTRYPOINT of that
#     binary, a HEALTHCHECK through `clashd --healthcheck` on the port of
#     CLASHD_LISTEN and EXPOSE, and no curl or wget;
#   - the runtime packages (install-deps.sh --list runtime) exist in Debian
#     (apt-cache), and they are exactly the libraries build/clashd needs:
#     every library it links directly (ELF NEEDED) belongs (dpkg -S) to one
#     of them or to the base image (Essential packages and apt, with their
#     dependencies: what debian:bookworm-slim holds); every library it loads
#     at all (ldd) comes with them or the base; and each of them provides a
#     library clashd links (nothing installed for nothing).
# Prints what it checked; exits 1 at the first mismatch.
set -eu

bin=${1:-build/clashd}
df=Dockerfile
fail() { echo "check-image: FAILED: $*" >&2; exit 1; }
[ -f "$df" ] || fail "no $df"
[ -x "$bin" ] || fail "no $bin (make first)"

# The Dockerfile's instructions, continuation lines joined, comments dropped.
instr=$(awk '
	/^[[:space:]]*#/ { next }
	{ line = line $0 }
	/\\$/ { sub(/\\$/, " ", line); next }
	{ if (line ~ /[^[:space:]]/) print line; line = "" }' "$df")

froms=$(printf '%s\n' "$instr" | awk 'toupper($1) == "FROM" { print $2 }')
[ "$(printf '%s\n' "$froms" | head -1)" = debian:bookworm ] || fail "the first stage is not debian:bookworm"
[ "$(printf '%s\n' "$froms" | tail -1)" = debian:bookworm-slim ] || fail "the run stage is not debian:bookworm-slim"
nstages=$(printf '%s\n' "$froms" | wc -l)

# The instructions of the last stage.
run_stage=$(printf '%s\n' "$instr" | awk 'toupper($1) == "FROM" { n++; buf = "" } { if (n) buf = buf $0 "\n" } END { printf "%s", buf }')

# Targets the Makefile defines (its database, without running anything).
targets=$(make -pRrq -f Makefile : 2>/dev/null | awk -F: '/^[a-zA-Z0-9_.\/$()-]+:/ { print $1 }' | sort -u)
has_target() { printf '%s\n' "$targets" | grep -qx "$1"; }

nrun=0
printf '%s\n' "$instr" | awk 'toupper($1) == "RUN"' > /tmp/check-image.$$.run
while IFS= read -r line; do
	nrun=$((nrun + 1))
	case $line in
	*install-deps.sh*) ;;
	*) case $line in *make*) ;; *) fail "RUN line without install-deps.sh or make: $line";; esac;;
	esac
	# install-deps.sh PROFILE: a profile the script has.
	for p in $(printf '%s\n' "$line" | grep -o 'install-deps\.sh [a-z]*' | awk '{print $2}'); do
		sh deploy/install-deps.sh --list "$p" >/dev/null 2>&1 || fail "install-deps.sh has no profile \"$p\": $line"
	done
	# make TARGET...: targets the Makefile has.
	for t in $(printf '%s\n' "$line" | grep -o 'make\( [a-z][a-z0-9_-]*\)*' | sed 's/^make//'); do
		has_target "$t" || fail "the Makefile has no target \"$t\": $line"
	done
done < /tmp/check-image.$$.run
rm -f /tmp/check-image.$$.run
printf '%s\n' "$instr" | grep -q 'RUN .*install-deps\.sh test' || fail "the build stage does not install with install-deps.sh test"
printf '%s\n' "$run_stage" | grep -q 'RUN .*install-deps\.sh runtime' || fail "the run stage does not install with install-deps.sh runtime"
printf '%s\n' "$instr" | grep -Eq 'RUN .*make (test|all)' || fail "the build stage runs neither make test nor make all"
# The image builds and runs the unit suites, not make test's fuzz, failover,
# shared-store and soak runs (CI's).
printf '%s\n' "$instr" | grep -q 'RUN .*make test' && fail "the build stage runs make test (fuzz, failover, soak): make check is the image's"


# The binary the run stage copies is one the Makefile builds.
copy=$(printf '%s\n' "$run_stage" | awk 'toupper($1) == "COPY" && $2 ~ /^--from=/ { print $3, $4 }' | head -1)
src=$(echo "$copy" | awk '{print $1}'); dst=$(echo "$copy" | awk '{print $2}')
[ -n "$src" ] || fail "the run stage copies nothing from the build stage"
rel=${src#/src/}
has_target "$rel" || fail "the Makefile does not build $rel (copied as $src)"

# The demo page: CLASHD_WEB names where the run stage copies the directory
# `make web` builds (its index.html beside the bundle the Makefile makes).
web=$(printf '%s\n' "$run_stage" | grep -o 'CLASHD_WEB=[^ ]*' | tail -1 | cut -d= -f2)
if [ -n "$web" ] && [ "$web" != off ]; then
	printf '%s\n' "$run_stage" | awk 'toupper($1) == "COPY" && $2 ~ /^--from=/ { print $3, $4 }' |
		grep -qx "/src/build/web $web" || fail "CLASHD_WEB=$web is not where build/web is copied"
	has_target build/web/demo.js || fail "the Makefile does not build build/web/demo.js"
	printf '%s\n' "$instr" | grep -Eq 'RUN .*make( [a-z]+)* web' || fail "the build stage does not make web"
	[ -f web/src/index.html ] || fail "web/src/index.html is missing"
	echo "check-image: demo page $web"
fi

# USER: numeric, not root.
user=$(printf '%s\n' "$run_stage" | awk 'toupper($1) == "USER" { print $2 }' | tail -1)
echo "$user" | grep -Eq '^[0-9]+(:[0-9]+)?$' || fail "USER \"$user\" is not numeric"
[ "${user%%:*}" != 0 ] || fail "USER is root"

# ENTRYPOINT: exec form, the copied binary.
ep=$(printf '%s\n' "$run_stage" | awk 'toupper($1) == "ENTRYPOINT" { $1 = ""; print }' | sed 's/^ *//')
case $ep in "[\"$dst\""*) ;; *) fail "ENTRYPOINT is not the exec form of $dst: $ep";; esac

# The port: CLASHD_LISTEN, EXPOSE and the HEALTHCHECK's URL agree.
listen=$(printf '%s\n' "$run_stage" | grep -o 'CLASHD_LISTEN=[^ ]*' | tail -1 | cut -d= -f2)
port=${listen##*:}
printf '%s\n' "$run_stage" | awk 'toupper($1) == "EXPOSE" { print $2 }' | grep -qx "$port" || fail "EXPOSE is not $port (CLASHD_LISTEN=$listen)"
hc=$(printf '%s\n' "$run_stage" | awk 'toupper($1) == "HEALTHCHECK"')
case $hc in *"CMD [\"$dst\", \"--healthcheck\", \"http://127.0.0.1:$port/"*) ;;
	*) fail "HEALTHCHECK is not \"$dst --healthcheck http://127.0.0.1:$port/...\" in exec form: $hc";; esac
hpath=$(echo "$hc" | grep -o "http://127.0.0.1:$port/[a-z]*" | sed "s|http://127.0.0.1:$port||")
grep -q "\"$hpath\"" server/http_route.c || fail "the HEALTHCHECK path $hpath is not a clashd route"
if printf '%s\n' "$run_stage" | grep -Eqw 'curl|wget'; then fail "the run stage uses curl or wget"; fi

# The runtime packages exist in Debian (a fresh machine may have no package
# index yet: read one, as install-deps.sh would).
if ! apt-cache show --no-all-versions libc6 >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 || true
fi
runtime=$(sh deploy/install-deps.sh --list runtime)
for p in $runtime; do
	apt-cache show --no-all-versions "$p" >/dev/null 2>&1 || fail "Debian has no package $p"
done

# What debian:bookworm-slim holds: the Essential packages and apt, with
# everything they depend on.
essential=$(dpkg-query -W -f '${Package} ${Essential}\n' | awk '$2 == "yes" { print $1 }')
closure() {
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "$@" 2>/dev/null |
		awk '/^[a-z0-9]/ { print $1 } $1 ~ /Depends:/ { print $2 }' | tr -d '<>' | sed 's/:.*//' | sort -u
}
base=$(closure $essential apt)
with_runtime=$(closure $runtime $essential apt)
in_list() { printf '%s\n' "$2" | grep -qx "$1"; }
pkg_of() { # the package owning a library path (/lib is a link to /usr/lib)
	dpkg -S "$1" 2>/dev/null || dpkg -S "$(readlink -f "$1")" 2>/dev/null || dpkg -S "/usr$1" 2>/dev/null
}

used=""
for lib in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
	path=$(ldd "$bin" | awk -v l="$lib" '$1 == l { print $3 }')
	[ -n "$path" ] || fail "ldd does not find $lib"
	pkg=$(pkg_of "$path" | head -1 | cut -d: -f1)
	[ -n "$pkg" ] || fail "no package owns $path"
	if in_list "$pkg" "$(printf '%s\n' $runtime)"; then
		used="$used $pkg"
	elif ! in_list "$pkg" "$base"; then
		fail "$bin links $lib ($pkg), which is neither a runtime package nor in the base image"
	fi
	echo "check-image: $lib -> $pkg"
done
for path in $(ldd "$bin" | awk '$3 ~ /^\// { print $3 }'); do
	pkg=$(pkg_of "$path" | head -1 | cut -d: -f1)
	in_list "$pkg" "$with_runtime" || fail "$path ($pkg) does not come with the runtime packages"
done
for p in $runtime; do
	case " $used " in *" $p "*) ;; *) fail "runtime package $p provides no library $bin links";; esac
done

echo "check-image: Dockerfile: $nstages stages (debian:bookworm -> debian:bookworm-slim), $nrun RUN lines" \
	"(install-deps.sh profiles and make targets exist), USER $user, ENTRYPOINT $dst," \
	"HEALTHCHECK clashd --healthcheck on :$port$hpath; runtime packages ($runtime) exist" \
	"and are exactly what $bin links ($(ldd "$bin" | grep -c '=> /') libraries, the rest from the base image)"
