#!/bin/sh
# run.sh — `make bench-http`: clashd over HTTP, against a bare server of the
# same design (bench/hello) and against jansson's decode-only rate.
#
#   sh bench/http/run.sh [BUILD-DIR]      (make bench-http builds and calls it)
#
# 1. Small pairs, requests per second: wrk (bench/http/post.lua) POSTs one
#    small pair (~500 bytes) over 1, 8 and 64 keep-alive connections to
#    clashd's /v1/query and to bench/hello (which answers clashd's answer to
#    that pair, so both send as many bytes), in two set-ups:
#      pinned    server on CPU 0 with 1 worker thread, wrk on CPU 1 (taskset)
#      unpinned  both servers with 2 worker threads, nothing pinned
#    clashd and hello alternate at each step, so drift in the machine's load
#    hits both alike.
# 2. Batches: wrk POSTs {"queries": [1000 small pairs]} (~500 KB) over 4
#    connections to clashd --threads 2 (/v1/batch); pairs per second = rps
#    x 1000.  Around it, bench/batch (batch-bench decode) decodes the same
#    body on 2 threads: json_loadb of the whole body, and that plus each
#    query decoded into core types.  Also reported per CPU-second (clashd's
#    CPU time from /proc; the decoders' thread CPU time), which a busy
#    machine disturbs less than wall-clock rates.
# 3. By ref (part "ref"): the small pair's two shapes stored once on
#    clashd --threads 2 (POST /v1/shapes), then wrk POSTs the pair by ref
#    ({"a": {"ref": ...}, "b": {"ref": ..., "pose": ...}}, 222 bytes)
#    over 4 connections to clashd and the same bytes to hello (2 threads,
#    answering clashd's answer to that query), nothing pinned, in the
#    order clashd, hello, hello, clashd (BENCH_REF_ROUNDS times, default
#    1); each side's rate pools its runs, its CPU per request too.
# 4. Drag (bench/drag): a 50 000-vertex part stored once (POST /v1/shapes,
#    timed) and a box moved over 1000 steps on one keep-alive connection,
#    inline (the whole part in each request) against by ref, side by side
#    (median, p99), to clashd --threads 2.  Then the same over a mesh
#    (drag --mesh): three.js's 102 400-triangle torus knot stored once,
#    by ref every step, inline for 20 of them (the 0.2 ms target).
# 5. The shared tier (part "tier"): Debian's redis-server, two
#    clashd --store-redis on it and one without.  For each of 7 parts of
#    BENCH_DRAG_VERTICES points (curl's time_total, medians): its upload
#    on the first (its value written to Redis behind the answer); its
#    first query by ref on the second, which reads it from Redis and
#    decodes it (then prepares it on the tier's thread; the query scans);
#    and on the one without Redis what a client does there: the query
#    answered unknown-shape, the upload, the query again (which prepares
#    the part, as every first query does without Redis).
#
# Settings (environment): BENCH_DURATION seconds per wrk run (default 8),
# BENCH_PORT first of the two ports used (default 18471), BENCH_BATCH pairs
# per batch (default 1000).  clashd runs with --max-queue 1024 so that 64
# connections are all served (the default, 16 per thread, would answer the
# excess 503 at once: backpressure, not throughput) and its log to
# /dev/null.  Output: a Markdown table on stdout, also in
# BUILD-DIR/bench/http/results.md; raw wrk lines in results.jsonl.
# BENCH_PARTS="pairs batch ref drag tier" (default) runs every part; a subset
# leaves the others' rows out.  BENCH_DRAG_STEPS steps (default 1000),
# BENCH_DRAG_VERTICES the part's vertices (default 50000).
set -eu

B=${1:-build}
DUR=${BENCH_DURATION:-8}
PORT=${BENCH_PORT:-18471}
NBATCH=${BENCH_BATCH:-1000}
REF_ROUNDS=${BENCH_REF_ROUNDS:-1}
HPORT=$((PORT + 1))
OUT=$B/bench/http
HERE=$(dirname "$0")
mkdir -p "$OUT"
: > "$OUT/results.jsonl"

PARTS=${BENCH_PARTS:-pairs batch ref drag tier}
wrk_parts=0
case " $PARTS " in *" pairs "* | *" batch "* | *" ref "*) wrk_parts=1 ;; esac
if [ $wrk_parts = 1 ]; then
	command -v wrk >/dev/null || { echo "bench-http: wrk is missing (deploy/install-deps.sh bench)" >&2; exit 1; }
	"$B/bench/batch-bench" bodies "$NBATCH" "$OUT"
fi

pids=""
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	for p in $pids; do
		wait "$p" 2>/dev/null || true
	done
	pids=""
}
trap cleanup EXIT INT TERM

wait_up() { # PORT PATH
	i=0
	until curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
		--data-binary @"$OUT/pair.json" "http://127.0.0.1:$1$2"; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "bench-http: nothing listens on port $1" >&2; exit 1; }
		sleep 0.1
	done
}

wait_live() { # PORT: clashd answers /livez
	i=0
	until curl -s -o /dev/null "http://127.0.0.1:$1/livez"; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "bench-http: nothing listens on port $1" >&2; exit 1; }
		sleep 0.1
	done
}

# start CPUS THREADS: clashd and hello, both on CPUS ("" = any)
start() {
	pin=""
	[ -n "$1" ] && pin="taskset -c $1"
	$pin "$B/clashd" --listen "127.0.0.1:$PORT" --threads "$2" --max-queue 1024 >/dev/null &
	cpid=$!
	$pin "$B/bench/hello" "$HPORT" "$2" "$OUT/pair-answer.json" >/dev/null &
	hpid=$!
	pids="$cpid $hpid"
	wait_up "$PORT" /v1/query
	wait_up "$HPORT" /
}

# cpu_ticks PID: user + system time of a process, in clock ticks
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# measure CPUS CONNS URL BODY LABEL PID: one wrk run, its JSON line tagged,
# with the server's (PID's) CPU time per request in microseconds
measure() {
	pin=""
	[ -n "$1" ] && pin="taskset -c $1"
	c0=$(cpu_ticks "$6")
	line=$($pin wrk -t 1 -c "$2" -d "${DUR}s" -s "$HERE/post.lua" "$3" -- "$4" | tail -n 1)
	c1=$(cpu_ticks "$6")
	case "$line" in
	'{'*) ;;
	*) echo "bench-http: wrk gave no result for $5" >&2; exit 1 ;;
	esac
	reqs=$(echo "$line" | sed 's/.*"requests":\([0-9]*\).*/\1/')
	us=$(awk -v t=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v n="$reqs" \
		'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')
	echo "{\"label\":\"$5\",\"cpu_us_per_req\":$us,${line#\{}" >> "$OUT/results.jsonl"
	echo "  $5: cpu ${us} us/request $line" >&2
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench-http: $(nproc) CPUs, ${DUR}s per run, load average $load" >&2
case " $PARTS " in *" pairs "*) SETUPS="pinned unpinned" ;; *) SETUPS="" ;; esac
for setup in $SETUPS; do
	if [ $setup = pinned ]; then
		scpu=0 wcpu=1 threads=1
	else
		scpu="" wcpu="" threads=2
	fi
	start "$scpu" "$threads"
	for c in 1 8 64; do
		measure "$wcpu" $c "http://127.0.0.1:$PORT/v1/query" "$OUT/pair.json" "$setup clashd $c" $cpid
		measure "$wcpu" $c "http://127.0.0.1:$HPORT/" "$OUT/pair.json" "$setup hello $c" $hpid
	done
	cleanup
done

# By ref: the pair's shapes stored once, the pair named by its ids.
ref=0
case " $PARTS " in *" ref "*) ref=1 ;; esac
if [ $ref = 1 ]; then
"$B/clashd" --listen "127.0.0.1:$PORT" --threads 2 --max-queue 1024 >/dev/null &
cpid=$!
pids=$cpid
wait_up "$PORT" /v1/query
store() { # FILE: the id of the stored shape
	curl -s -H 'Content-Type: application/json' --data-binary @"$1" \
		"http://127.0.0.1:$PORT/v1/shapes" | sed -n 's/.*"id":"\(sha256:[0-9a-f]*\)".*/\1/p'
}
ida=$(store "$OUT/shape-a.json")
idb=$(store "$OUT/shape-b.json")
[ -n "$ida" ] && [ -n "$idb" ] || { echo "bench-http: storing the pair's shapes failed" >&2; exit 1; }
sed "s/@A@/$ida/; s/@B@/$idb/" "$OUT/ref.json.in" > "$OUT/ref.json"
code=$(curl -s -o "$OUT/ref-answer.json" -w '%{http_code}' -H 'Content-Type: application/json' \
	--data-binary @"$OUT/ref.json" "http://127.0.0.1:$PORT/v1/query")
[ "$code" = 200 ] || { echo "bench-http: the by-ref query answered $code" >&2; exit 1; }
"$B/bench/hello" "$HPORT" 2 "$OUT/ref-answer.json" >/dev/null &
hpid=$!
pids="$cpid $hpid"
wait_up "$HPORT" /
k=1
while [ $k -le "$REF_ROUNDS" ]; do
	measure "" 4 "http://127.0.0.1:$PORT/v1/query" "$OUT/ref.json" "ref clashd 4 a$k" $cpid
	measure "" 4 "http://127.0.0.1:$HPORT/" "$OUT/ref.json" "ref hello 4 a$k" $hpid
	measure "" 4 "http://127.0.0.1:$HPORT/" "$OUT/ref.json" "ref hello 4 b$k" $hpid
	measure "" 4 "http://127.0.0.1:$PORT/v1/query" "$OUT/ref.json" "ref clashd 4 b$k" $cpid
	k=$((k + 1))
done
cleanup
fi

# Batches: decode-only, then over HTTP, then decode-only again.
batch=0
case " $PARTS " in *" batch "*) batch=1 ;; esac
half=$(( (DUR + 1) / 2 ))
t0=0 t1=0
if [ $batch = 1 ]; then
"$B/bench/batch-bench" decode "$OUT/batch.json" 2 "$half" > "$OUT/decode1.jsonl"
"$B/clashd" --listen "127.0.0.1:$PORT" --threads 2 --max-queue 1024 >/dev/null &
cpid=$!
pids=$cpid
wait_up "$PORT" /v1/query
t0=$(cpu_ticks $cpid)
measure "" 4 "http://127.0.0.1:$PORT/v1/batch" "$OUT/batch.json" "batch clashd 4" $cpid
t1=$(cpu_ticks $cpid)
cleanup
"$B/bench/batch-bench" decode "$OUT/batch.json" 2 "$half" > "$OUT/decode2.jsonl"
cat "$OUT/decode1.jsonl" "$OUT/decode2.jsonl" >&2
fi

# Drag: the part inline against by ref, on one connection.
: > "$OUT/drag.md"
case " $PARTS " in *" drag "*)
# --store-delete 1: the drag times an upload after a DELETE.
"$B/clashd" --listen "127.0.0.1:$PORT" --threads 2 --store-delete 1 >/dev/null &
cpid=$!
pids=$cpid
wait_live "$PORT"
"$B/bench/drag" "$PORT" "${BENCH_DRAG_STEPS:-1000}" "${BENCH_DRAG_VERTICES:-50000}" > "$OUT/drag.md"
echo >> "$OUT/drag.md"
"$B/bench/drag" --mesh "$PORT" "${BENCH_DRAG_STEPS:-1000}" >> "$OUT/drag.md"
cleanup
;;
esac

# The shared tier: a part read from Redis against the client uploading it.
: > "$OUT/tier.md"
case " $PARTS " in *" tier "*)
RPORT=$((PORT + 2))
PPORT=$((PORT + 3))
redis-server --port "$RPORT" --bind 127.0.0.1 --save "" --appendonly no >/dev/null &
pids=$!
for p in "$PORT" "$HPORT"; do
	"$B/clashd" --listen "127.0.0.1:$p" --threads 2 \
		--store-redis "redis://127.0.0.1:$RPORT" >/dev/null &
	pids="$pids $!"
done
"$B/clashd" --listen "127.0.0.1:$PPORT" --threads 2 >/dev/null &
pids="$pids $!"
for p in "$PORT" "$HPORT" "$PPORT"; do wait_live "$p"; done
V=${BENCH_DRAG_VERTICES:-50000}
# post PORT PATH FILE: "status seconds" of one POST, the body to $OUT/tier.out
post() {
	curl -s -o "$OUT/tier.out" -w '%{http_code} %{time_total}\n' -H 'Content-Type: application/json' \
		--data-binary @"$3" "http://127.0.0.1:$1$2"
}
: > "$OUT/tier.times"
for k in 1 2 3 4 5 6 7; do
	# A Fibonacci sphere, scaled so that each part is new.
	awk -v n="$V" -v s="$k" 'BEGIN { printf "{\"vertices\":["; for (i = 0; i < n; i++) {
		t = 1 - 2 * (i + 0.5) / n; r = sqrt(1 - t * t); f = 2.399963229728653 * i
		printf "%s[%.17g,%.17g,%.17g]", i ? "," : "", (1 + s / 1000) * r * cos(f), r * sin(f), t }
		printf "]}" }' > "$OUT/tier-part.json"
	# Each upload after the same pause (0.2 s), so that neither finds its
	# replica warmer than the other or the other's writer still busy.
	sleep 0.2
	up=$(post "$PORT" /v1/shapes "$OUT/tier-part.json")
	id=$(grep -o '"sha256:[0-9a-f]*"' "$OUT/tier.out" | tr -d '"')
	printf '{"a":{"ref":"%s"},"b":{"vertices":[[3,0,0]],"radius":0.1}}' "$id" > "$OUT/tier-query.json"
	first=$(post "$HPORT" /v1/query "$OUT/tier-query.json")
	miss=$(post "$PPORT" /v1/query "$OUT/tier-query.json")
	sleep 0.2
	plain_up=$(post "$PPORT" /v1/shapes "$OUT/tier-part.json")
	again=$(post "$PPORT" /v1/query "$OUT/tier-query.json")
	echo "$up $first $miss $plain_up $again" >> "$OUT/tier.times"
done
cleanup
awk '{ if ($1 != 201 || $3 != 200 || $5 != 422 || $7 != 201 || $9 != 200) bad++
	up[NR] = $2; first[NR] = $4; plain[NR] = $8; client[NR] = $6 + $8 + $10 }
	function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((n + 1) / 2)] }
	END { n = NR; u = median(up, n); f = median(first, n); p = median(plain, n); c = median(client, n)
		printf "Shared tier (Redis on loopback), %d parts of %d vertices, medians of curl time_total:\n\n", n, v
		print "| upload, with Redis | upload, memory only | first query by ref, read from Redis | unknown-shape, upload, query again | re-upload / Redis | upload with / without Redis |"
		print "|---|---|---|---|---|---|"
		printf "| %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1fx | %.2f |\n", 1000 * u, 1000 * p, 1000 * f, 1000 * c, c / f, u / p
		if (bad) printf "\n%d rounds answered otherwise than 201, 200, 422, 201, 200\n", bad }' \
	v="$V" "$OUT/tier.times" > "$OUT/tier.md"
;;
esac

# ---- the table ----------------------------------------------------------
hz=$(getconf CLK_TCK)
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) x $cpu, ${DUR} s per run;"
	echo "load average before the run: $load (after: $(cut -d' ' -f1-3 /proc/loadavg))."
	echo
	[ -n "$SETUPS" ] && echo "| set-up | conns | clashd rps | p50 ms | p99 ms | CPU us/req | hello rps | p50 ms | p99 ms | CPU us/req | clashd/hello rps |"
	[ -n "$SETUPS" ] && echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for setup in $SETUPS; do
		for c in 1 8 64; do
			awk -v s="$setup" -v c="$c" '
			function val(line, key,   m) {
				if (match(line, "\"" key "\":[-0-9.]+")) {
					m = substr(line, RSTART, RLENGTH); sub(/.*:/, "", m); return m + 0
				}
				return -1
			}
			index($0, "\"label\":\"" s " clashd " c "\"") { cr = val($0, "rps"); c50 = val($0, "p50_ms"); c99 = val($0, "p99_ms"); cu = val($0, "cpu_us_per_req"); cn = val($0, "non_2xx") + val($0, "socket_errors") }
			index($0, "\"label\":\"" s " hello " c "\"") { hr = val($0, "rps"); h50 = val($0, "p50_ms"); h99 = val($0, "p99_ms"); hu = val($0, "cpu_us_per_req") }
			END {
				printf "| %s | %d | %.0f | %.2f | %.2f | %.1f | %.0f | %.2f | %.2f | %.1f | %.0f%%%s |\n", s, c, cr, c50, c99, cu, hr, h50, h99, hu, 100 * cr / hr, (cn > 0 ? " (errors!)" : "")
			}' "$OUT/results.jsonl"
		done
	done
	echo
	[ -n "$SETUPS" ] && echo "CPU us/req: the server process's CPU time (all its threads) per request."
	[ -n "$SETUPS" ] && echo
	[ $batch = 1 ] && awk -v n="$NBATCH" -v ticks=$((t1 - t0)) -v hz="$hz" '
	function val(line, key,   m) {
		if (match(line, "\"" key "\":[-0-9.]+")) {
			m = substr(line, RSTART, RLENGTH); sub(/.*:/, "", m); return m + 0
		}
		return -1
	}
	FILENAME ~ /results/ && index($0, "\"label\":\"batch clashd") {
		rps = val($0, "rps"); reqs = val($0, "requests"); dur = val($0, "duration_s")
		bad = val($0, "non_2xx") + val($0, "socket_errors"); p50 = val($0, "p50_ms"); p99 = val($0, "p99_ms")
	}
	FILENAME ~ /decode/ && /"mode":"json_loadb"/ { lw += val($0, "pairs_per_s"); lc += val($0, "pairs_per_cpu_s"); ln++ }
	FILENAME ~ /decode/ && /"mode":"decode"/ { dw += val($0, "pairs_per_s"); dc += val($0, "pairs_per_cpu_s"); dn++ }
	FILENAME ~ /decode/ && /"mode":"answer"/ { aw += val($0, "pairs_per_s"); ac += val($0, "pairs_per_cpu_s"); an++ }
	END {
		e2e = rps * n; lw /= ln; lc /= ln; dw /= dn; dc /= dn; aw /= an; ac /= an
		cpu_s = ticks / hz; e2ec = cpu_s > 0 ? reqs * n / cpu_s : 0
		printf "Batches of %d small pairs, 2 worker threads, 4 connections (p50 %.1f ms, p99 %.1f ms per batch%s):\n\n", n, p50, p99, (bad > 0 ? "; ERRORS" : "")
		printf "| pairs per second | wall clock | per CPU-second |\n|---|---|---|\n"
		printf "| clashd POST /v1/batch over HTTP | %.0f | %.0f (clashd CPU) |\n", e2e, e2ec
		printf "| decode-only: json_loadb (2 threads) | %.0f | %.0f |\n", lw, lc
		printf "| decode-only: json_loadb + decode into core types | %.0f | %.0f |\n", dw, dc
		printf "| in process: whole batch answered (no HTTP) | %.0f | %.0f |\n", aw, ac
		printf "\nclashd over HTTP / decode-only: %.0f%% of json_loadb, %.0f%% of json_loadb + decode (wall clock); %.0f%% and %.0f%% per CPU-second.\n", 100 * e2e / lw, 100 * e2e / dw, 100 * e2ec / lc, 100 * e2ec / dc
	}' "$OUT/results.jsonl" "$OUT/decode1.jsonl" "$OUT/decode2.jsonl"
	[ $ref = 1 ] && awk -v rounds="$REF_ROUNDS" -v bytes="$(wc -c < "$OUT/ref.json")" -v abytes="$(wc -c < "$OUT/ref-answer.json")" '
	function val(line, key,   m) {
		if (match(line, "\"" key "\":[-0-9.]+")) {
			m = substr(line, RSTART, RLENGTH); sub(/.*:/, "", m); return m + 0
		}
		return -1
	}
	index($0, "\"label\":\"ref clashd 4") { cn += val($0, "requests"); cd += val($0, "duration_s"); cu += val($0, "cpu_us_per_req") * val($0, "requests"); c50 = c50 "/" val($0, "p50_ms"); cr = cr "/" sprintf("%.0f", val($0, "rps")); ce += val($0, "non_2xx") + val($0, "socket_errors") }
	index($0, "\"label\":\"ref hello 4") { hn += val($0, "requests"); hd += val($0, "duration_s"); hu += val($0, "cpu_us_per_req") * val($0, "requests"); h50 = h50 "/" val($0, "p50_ms"); hr = hr "/" sprintf("%.0f", val($0, "rps")) }
	END {
		c = cn / cd; h = hn / hd; cu = cu / cn; hu = hu / hn
		printf "\nSmall queries by ref: the pair'"'"'s two shapes stored once, the query naming them (%d bytes; answer %d bytes), 4 connections, 2 worker threads each, nothing pinned; runs clashd, hello, hello, clashd%s:\n\n", bytes, abytes, (rounds > 1 ? ", " rounds " rounds" : "")
		printf "| server | rps (all runs) | runs | p50 ms | CPU us/req |\n|---|---|---|---|---|\n"
		printf "| clashd POST /v1/query by ref | %.0f | %s | %s | %.1f |\n", c, substr(cr, 2), substr(c50, 2), cu
		printf "| hello, same bytes | %.0f | %s | %s | %.1f |\n", h, substr(hr, 2), substr(h50, 2), hu
		printf "\nBy ref / hello: %.0f%% of the request rate%s; hello'"'"'s CPU per request is %.0f%% of clashd'"'"'s.\n", 100 * c / h, (ce > 0 ? " (ERRORS!)" : ""), 100 * hu / cu
	}' "$OUT/results.jsonl"
	[ -s "$OUT/drag.md" ] && { echo; cat "$OUT/drag.md"; }
	[ -s "$OUT/tier.md" ] && { echo; cat "$OUT/tier.md"; }
} | tee "$OUT/results.md"
