#!/bin/sh
# run-check.sh — `make run` as a new user runs it on a fresh Debian
# bookworm machine (make run-check): the README's promise that it installs
# what is missing, builds and serves the API and the demo page.
#
#   sh tests/deploy/run-check.sh [DIR]         (DIR: build/run-check.d)
#   RUN_CHECK_PORT: clashd's port (a free one picked at random)
#   RUN_CHECK_TIMEOUT: seconds for make run to serve the page (3000)
#   IMAGE_CA: the extra CA (see podman-base.sh)
#
# The machine is a container of debian:bookworm (rootful podman, the bases
# and CA of tests/deploy/podman-base.sh, the host's network so that apt
# and npm reach their mirrors and the port is the host's loopback one).
# What the user brings: the committed tree (git archive HEAD, not the work
# tree: nothing built, no node_modules), make and sudo (installed first;
# a minbase tree has neither), and an account "dev" that may sudo; the
# CA as NODE_EXTRA_CA_CERTS for npm and EXTRA_CA for apt.  As dev, in
# ~/clashd: `make run PORT=N`.  Then, once /web/ answers (bounded by
# RUN_CHECK_TIMEOUT; make run's log on any fault):
#   /web/     200, web/src/index.html of HEAD byte for byte;
#   /livez, /readyz  200;
#   POST /v1/query  two unit balls 3 apart: not intersecting, distance 1;
#   each script the page names (demo.js) 200 as JavaScript, and the core
#   in the page it loads (gen/clashd-core.wasm) a WebAssembly module;
#   SIGTERM (make passes it on to clashd): clashd drains and exits 0.
# The container is removed on every way out (the bases stay).  Prints what
# it checked with the time each step took; exits 1 at the first fault.
set -eu

dir=${1:-build/run-check.d}
say() { echo "run-check: $*"; }
fail() { echo "run-check: FAILED: $*" >&2; [ ! -s "$dir/run.log" ] || tail -30 "$dir/run.log" | cut -c1-300 >&2; exit 1; }
keep=
. tests/deploy/podman-base.sh
command -v podman >/dev/null 2>&1 || fail "no podman (sh deploy/install-deps.sh test)"
name=clashd-run-check
cleanup() { podman rm -f -t 0 $name >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$dir"
rm -f "$dir"/*.log "$dir"/got.*
cleanup
t_start=$(date +%s)

# A port no socket of the host is bound to (/proc/net/tcp*, hex).
port=${RUN_CHECK_PORT:-}
while [ -z "$port" ]; do
	port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
	hex=$(printf ':%04X ' "$port")
	! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '{ print $2 }' | grep -q "$hex" || port=
done
url=http://127.0.0.1:$port

podman_bases
podman_ca

# The machine's side: root installs make and sudo and makes the user, who
# unpacks the tree and runs make run; its SIGTERM goes to make.
cat >"$dir/machine.sh" <<'EOF'
set -eu
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make sudo >/dev/null
useradd -m dev
echo 'dev ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/dev
mkdir /home/dev/clashd && tar -x -C /home/dev/clashd && chown -R dev:dev /home/dev/clashd
echo "machine: make and sudo installed, tree unpacked; make run PORT=$PORT as dev"
cd /home/dev/clashd
HOME=/home/dev USER=dev LOGNAME=dev setpriv --reuid=dev --regid=dev --init-groups make run PORT=$PORT &
pid=$!
trap 'kill -TERM $pid' TERM
rc=0
wait $pid || rc=$?
# A trapped signal ends the first wait; the second is make's status.
if [ $rc -gt 128 ]; then rc=0; wait $pid || rc=$?; fi
echo "machine: make run exited $rc"
EOF
t=$(date +%s)
git archive --format=tar HEAD | $pm run -i --name $name --network host $limits \
	${ca:+-v "$(realpath "$ca"):/run/secrets/ca:ro" -e NODE_EXTRA_CA_CERTS=/run/secrets/ca -e EXTRA_CA=/run/secrets/ca} \
	-e PORT="$port" -v "$(realpath "$dir/machine.sh"):/machine.sh:ro" \
	$base:bookworm sh /machine.sh >"$dir/run.log" 2>&1 &
pid=$!
timeout=${RUN_CHECK_TIMEOUT:-3000}
step=$t
mark() { # the first time PATTERN is in run.log: say it with the seconds since the last mark
	if [ -z "$(eval echo \${seen_$1:-})" ] && grep -q "$2" "$dir/run.log" 2>/dev/null; then
		eval seen_$1=1
		say "$3 after $(since "$step") s"; step=$(date +%s)
	fi
}
until code=$(curl -s -m 10 -o "$dir/got.index.html" -w '%{http_code}' "$url/web/") && [ "$code" = 200 ]; do
	mark a 'machine: make and sudo' "the machine set up (make, sudo, the tree)"
	mark b 'cc .*-c core/' "deploy/install-deps.sh build done, building"
	mark c 'make run: the API on' "built (make all, make web)"
	kill -0 $pid 2>/dev/null || fail "the container exited before /web/ answered 200 (see $dir/run.log)"
	[ "$(since "$t")" -le "$timeout" ] || fail "/web/ not 200 after $timeout s (last: $code; see $dir/run.log)"
	# clashd answers, but without the page.
	[ "$code" = 000 ] || fail "/web/: $code from clashd (see $dir/run.log)"
	sleep 2
done
mark c 'make run: the API on' "built (make all, make web)"
say "make run serves /web/ on $url $(since "$t") s after the container started"

git show HEAD:web/src/index.html >"$dir/index.html"
cmp -s "$dir/got.index.html" "$dir/index.html" || fail "/web/ is not web/src/index.html"
for p in livez readyz; do
	code=$(curl -s -m 30 -o "$dir/got.$p" -w '%{http_code}' "$url/$p")
	[ "$code" = 200 ] || fail "/$p: $code $(cat "$dir/got.$p")"
done
say "/web/ is web/src/index.html; /livez and /readyz 200"

q='{"a":{"vertices":[[0,0,0]],"radius":1},"b":{"vertices":[[3,0,0]],"radius":1}}'
ans=$(curl -sS -m 30 "$url/v1/query" -H 'Content-Type: application/json' -d "$q")
echo "$ans" | grep -Eq '^\{"intersecting":false,"distance":1(\.0*)?[,}]' || fail "query: $ans"
say "query: two unit balls 3 apart: $(echo "$ans" | cut -c1-40)..."

scripts=$(grep -o '<script[^>]*src="[^"]*"' "$dir/index.html" | sed 's/.*src="//; s/"$//')
[ -n "$scripts" ] || fail "web/src/index.html names no script"
for s in $scripts; do
	ct=$(curl -sS -m 30 -o "$dir/got.script" -w '%{content_type} %{http_code}' "$url/web/$s")
	case $ct in text/javascript*200|application/javascript*200) ;; *) fail "/web/$s: $ct";; esac
	say "/web/$s: $(wc -c <"$dir/got.script") bytes, $ct"
done
grep -q 'gen/clashd-core\.wasm' "$dir/got.script" || fail "the bundle names no gen/clashd-core.wasm"
curl -sS -m 30 -o "$dir/got.wasm" "$url/web/gen/clashd-core.wasm"
[ "$(od -An -N4 -tx1 "$dir/got.wasm" | tr -d ' ')" = 0061736d ] || fail "/web/gen/clashd-core.wasm is no wasm module"
say "/web/gen/clashd-core.wasm: $(wc -c <"$dir/got.wasm") bytes, a WebAssembly module"

t=$(date +%s)
podman_sigterm $name $pid "$dir/run.log"
grep -q '"msg":"exit","status":0' "$dir/run.log" || fail "clashd did not exit 0 (see $dir/run.log)"
say "SIGTERM: clashd drained and exited 0 after $(since "$t") s"
say "passed in $(since "$t_start") s"
