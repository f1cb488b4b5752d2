#!/bin/sh
# image-test.sh — the Dockerfile built by a real engine (podman) and its
# image run as deploy/k8s runs it (make image-test; make test when podman
# is here).
#
#   sh tests/deploy/image-test.sh [DIR]        (DIR: build/image-test.d)
#   IMAGE_TESTS=no: build with --build-arg TESTS=no (make only)
#   IMAGE_CA=FILE: the extra CA for the build ("" for none; see below)
#   FAILOVER_SECONDS: the failover run's length (20)
#
# What the host has to offer (podman, the bases made with mmdebstrap, the
# extra CA): tests/deploy/podman-base.sh, shared with make run-check.
#
#   build    podman build (with the suites: CAP_NET_ADMIN, see below); the
#            extra CA the host trusts (a TLS-inspecting proxy's: IMAGE_CA,
#            else /usr/local/share/ca-certificates/*.crt, else
#            NODE_EXTRA_CA_CERTS) is the build secret "ca"; then no file of
#            the image holds any line of it and its environment names none;
#   single   one container, the pod's securityContext (podman-clashd.sh), in
#            a network of its own on the image's own :8080: its process seen
#            from the host is uid/gid 10001 with no capability, no new
#            privileges, seccomp on; writing its root fails; a query's answer
#            is its closed form; /web/ is web/src/index.html byte for byte and
#            /web/demo.js the bundle the image holds, /web/gen/clashd-core.wasm
#            a WebAssembly module; the image's HEALTHCHECK
#            (podman healthcheck run) passes; SIGTERM drains, exit 0;
#   failover build/failover (tests/load/failover.c) with its replicas three
#            such containers and Redis (Debian's, on the same base) a fourth,
#            the replicas sharing it: zero failed requests through a SIGKILL,
#            a drain and a restart.
# Every container is removed and the images built are deleted on every way
# out (the bases stay).  Prints what it checked; exits 1 at the first fault.
set -eu

dir=${1:-build/image-test.d}
tests=${IMAGE_TESTS:-yes}
image=localhost/clashd:image-test
redis_image=localhost/clashd-redis:image-test
wrap=tests/deploy/podman-clashd.sh
say() { echo "image-test: $*"; }
fail() { echo "image-test: FAILED: $*" >&2; exit 1; }
keep=
. tests/deploy/podman-base.sh
command -v podman >/dev/null 2>&1 || fail "no podman (sh deploy/install-deps.sh test)"
[ -x build/failover ] || fail "no build/failover (make build/failover)"
# The images there were before: any other this run made (the two built,
# their build stages and cached layers) is removed at the end.
before=$(podman images -aq --no-trunc | tr "\n" " ")
cleanup() {
	ids=$(podman ps -aq --filter label=clashd-image-test 2>/dev/null || true)
	[ -z "$ids" ] || podman rm -f -t 0 $ids >/dev/null 2>&1 || true
	podman rmi -f "$image" "$redis_image" >/dev/null 2>&1 || true
	for id in $(podman images -aq --no-trunc 2>/dev/null); do
		case " $before $keep " in *" $id "*) ;; *) podman rmi -f "$id" >/dev/null 2>&1 || true;; esac
	done
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$dir"
rm -rf "$dir"/*.log "$dir"/failover.d
t_start=$(date +%s)

# ---- the bases ----
podman_bases

# ---- the build ----
podman_ca
# The suites' drain tests check clashd's SYN filter on its listener
# (server/http_listen.c) where they can attach one, which kernels such as
# 6.18 refuse without CAP_NET_ADMIN (EPERM): given to the build's RUN
# lines when they run the suites, as on a CI host run as root, so that
# they check the filter.  The image runs without it.
caps=""
[ "$tests" = no ] || caps="--cap-add NET_ADMIN"
t=$(date +%s)
# --format docker: the OCI format has no HEALTHCHECK.
if ! $pm build --format docker --network host --pull=never $limits $caps \
	${ca:+--secret id=ca,src=$ca} --build-arg TESTS="$tests" -t "$image" . >"$dir/build.log" 2>&1; then
	tail -40 "$dir/build.log" >&2
	fail "podman build (see $dir/build.log)"
fi
say "built $image (TESTS=$tests${ca:+, build secret ca: $ca}) in $(since "$t") s"

if [ -n "$ca" ]; then
	mnt=$(podman image mount "$image")
	# Each certificate's first base64 line: unique to it.
	awk '/-----BEGIN CERTIFICATE-----/ { getline; print }' "$ca" >"$dir/ca-lines"
	[ -s "$dir/ca-lines" ] || { podman image unmount "$image" >/dev/null; fail "no certificate in $ca"; }
	held=$(grep -rlF -f "$dir/ca-lines" "$mnt" 2>/dev/null | head -3 || true)
	podman image unmount "$image" >/dev/null
	[ -z "$held" ] || fail "the image holds the build's CA: $held"
	env=$(podman image inspect -f '{{.Config.Env}}' "$image")
	case $env in *secrets*|*EXTRA_CA*) fail "the image's environment names the CA: $env";; esac
	say "the image holds none of the $(wc -l <"$dir/ca-lines") certificates of $ca, its environment none"
fi

# ---- one container as a pod runs it ----
CLASH_IMAGE=$image CLASH_REPLICA=single sh $wrap --own-network >"$dir/single.log" 2>&1 &
pid=$!
name=clashd-image-test-single
i=0
until grep -q '"msg":"listening"' "$dir/single.log" 2>/dev/null; do
	kill -0 $pid 2>/dev/null || { cat "$dir/single.log" >&2; fail "the container exited"; }
	i=$((i + 1)); [ $i -le 300 ] || fail "no listening line in 30 s (see $dir/single.log)"
	sleep 0.1
done
addr=$(podman port $name 8080/tcp)
url=http://$addr
cpid=$(podman inspect -f '{{.State.Pid}}' $name)
st=/proc/$cpid/status
for f in Uid Gid; do
	[ "$(awk -v f="$f:" '$1 == f { print $2 $3 $4 $5 }' $st)" = 10001100011000110001 ] ||
		fail "$(grep "^$f:" $st)"
done
for f in CapInh CapPrm CapEff CapBnd CapAmb; do
	[ "$(awk -v f="$f:" '$1 == f { print $2 }' $st)" = 0000000000000000 ] || fail "$(grep "^$f:" $st)"
done
[ "$(awk '$1 == "NoNewPrivs:" { print $2 }' $st)" = 1 ] || fail "$(grep NoNewPrivs $st)"
[ "$(awk '$1 == "Seccomp:" { print $2 }' $st)" = 2 ] || fail "$(grep Seccomp: $st)"
if out=$(podman exec $name touch /usr/local/share/clashd/x 2>&1) ||
	! echo "$out" | grep -q 'Read-only file system'; then
	fail "writing the container's root did not fail with a read-only file system: $out"
fi
say "container: clashd pid $cpid uid/gid 10001, no capability, NoNewPrivs, seccomp filter," \
	"root read-only, :8080 at $addr"

# The unit cube and a ball of radius 0.5 at (3, 0.5, 0.5): 1.5 apart.
q='{"a":{"vertices":[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,0],[1,0,1],[0,1,1],[1,1,1]]},'
q=$q'"b":{"vertices":[[3,0.5,0.5]],"radius":0.5}}'
ans=$(curl -sS -m 30 "$url/v1/query" -H 'Content-Type: application/json' -d "$q")
case $ans in *'"intersecting":false,"distance":1.5,'*) ;; *) fail "query: $ans";; esac
say "query: a unit cube and a ball 1.5 apart: $(echo "$ans" | cut -c1-48)..."

curl -sS -m 30 -o "$dir/index.html" "$url/web/"
cmp -s "$dir/index.html" web/src/index.html || fail "/web/ is not web/src/index.html"
ct=$(curl -sS -m 30 -o "$dir/demo.js" -w '%{content_type}' "$url/web/demo.js")
case $ct in text/javascript*|application/javascript*) ;; *) fail "/web/demo.js: Content-Type $ct";; esac
held=$(podman exec $name sha256sum /usr/local/share/clashd/web/demo.js | cut -d' ' -f1)
[ "$(sha256sum "$dir/demo.js" | cut -d' ' -f1)" = "$held" ] || fail "/web/demo.js is not the image's bundle"
say "demo page: /web/ is web/src/index.html, /web/demo.js ($(wc -c <"$dir/demo.js") bytes, $ct)" \
	"the image's bundle"
ct=$(curl -sS -m 30 -o "$dir/core.wasm" -w '%{content_type}' "$url/web/gen/clashd-core.wasm")
[ "$(od -An -N4 -tx1 "$dir/core.wasm" | tr -d ' ')" = 0061736d ] ||
	fail "/web/gen/clashd-core.wasm is no wasm module ($ct)"
say "demo page: /web/gen/clashd-core.wasm ($(wc -c <"$dir/core.wasm") bytes, $ct), the core it loads"

hc=$(podman inspect -f '{{.Config.Healthcheck.Test}}' $name)
case $hc in *--healthcheck*) ;; *) fail "the image has no clashd --healthcheck HEALTHCHECK: $hc";; esac
podman healthcheck run $name >"$dir/healthcheck.log" 2>&1 ||
	fail "podman healthcheck run: $(cat "$dir/healthcheck.log")"
say "HEALTHCHECK $hc: healthy"

t=$(date +%s)
podman_sigterm $name $pid "$dir/single.log"
# Without CAP_NET_ADMIN some kernels refuse the SYN filter: the listener
# then closes at once (docs/operations.md, Deploy).
filter=$(grep -o '"syn_filter":[a-z]*' "$dir/single.log" | cut -d: -f2)
say "SIGTERM: drained (SYN filter: $filter), exit 0 after $(since "$t") s"

# ---- three replicas and Redis, under the failover test's load ----
t=$(date +%s)
if ! $pm build --network host --pull=never $limits ${ca:+--secret id=ca,src=$ca} \
	-f tests/deploy/redis.Containerfile -t "$redis_image" tests/deploy >"$dir/redis-build.log" 2>&1; then
	tail -20 "$dir/redis-build.log" >&2
	fail "podman build of Redis (see $dir/redis-build.log)"
fi
$pm run -d --rm --name clashd-image-test-redis --label clashd-image-test $limits \
	-p 127.0.0.1::6379 --read-only --cap-drop all "$redis_image" >/dev/null
raddr=$(podman port clashd-image-test-redis 6379/tcp)
say "Redis ($redis_image, built in $(since "$t") s) at $raddr"
CLASH_IMAGE=$image CLASH_REDIS=redis://$raddr CLASH_CLASHD=$wrap CLASH_SIGNAL=$wrap \
	build/failover --seconds "${FAILOVER_SECONDS:-20}" --dir "$dir/failover.d" ||
	fail "the failover run against the containers (logs in $dir/failover.d)"
say "passed in $(since "$t_start") s"
