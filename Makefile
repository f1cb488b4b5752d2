# clashd — build, run and test.
#
#   make          build build/clashd, build/clash and build/libclash.a
#                 (make build: the same)
#   make web      build the demo page into build/web (web/, docs/client.md)
#   make wasm     build the core in the page, clients/js/gen/clashd-core.wasm
#                 (core/ and proto/ for wasm32-wasi: clients/js/local.js)
#   make run      install missing Debian packages, build, serve the API and the
#                 demo on http://127.0.0.1:8080/web/ (PORT=9000 or CLASHD_LISTEN)
#   make test     install missing Debian packages (with test-only ones) and the
#                 OpenAPI validator (npm, under build/), build, run every Check
#                 suite, then again under ASan+UBSan (the suites that run
#                 clashd then against build/clashd-san, failing on any
#                 sanitizer report), and the threaded suites under
#                 ThreadSanitizer (check-tsan: build/clashd-tsan);
#                 the JavaScript client's tests (js-test, clients/js; the
#                 core in the page's answers against clashd's too);
#                 the demo page in headless chromium (web-test, web/);
#                 then a short run of each fuzz target, the deploy files'
#                 checks, the failover test, the shared store's test, a
#                 short soak and, when podman is here and make runs as root,
#                 image-test (root is needed for nothing else but the package
#                 install)
#   make fuzz     run each libFuzzer target for FUZZ_SECONDS (default 60)
#   make failover three clashd behind haproxy under load; one killed, one
#                 drained: no client request may fail
#   make soak     load clashd for DURATION seconds (default 600) and require a
#                 flat resident set size
#   make shared-store  three clashd sharing one Redis behind a random proxy:
#                 refs work on any replica; Redis paused, killed, full or
#                 corrupt, and a rolling restart, fail no request
#   make cli-compare  the clash tool's outputs byte for byte against those
#                 of CLI_BASE (default main)
#   make answers-compare  every answer (queries, motion, contains, scenes,
#                 the core's prepared shapes) byte for byte against those of
#                 ANSWERS_BASE (default main)
#   make image-test  build the Dockerfile with podman and run the image as
#                 deploy/k8s does: one container checked, then three under
#                 the failover test's load with Redis in a fourth
#   make run-check  make run as a new user runs it on a fresh bookworm
#                 container: the page, a query and SIGTERM (root, podman)
#   make attack   the hostile-client scenarios against clashd on
#                 loopback, each figure printed (make test runs the same)
#
# Sources are picked up by wildcard per module: core/*.c is the collision
# library, proto/*/*.c the JSON codec, server/*.c clashd, cli/*.c the clash tool,
# tests/check_*.c (with tests/oracle.c, tests/oracle_lp.c, tests/pairgen.c and
# tests/http_harness.c) the one Check runner.  tests/fuzz/ holds the libFuzzer
# targets (clang), tests/load/ the failover and soak programs, deploy/ the
# container and cluster files with their checks (tests/deploy/).

CC       ?= cc
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
WARN      = -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
# Each module sees only the headers below it: the core its own, proto the
# core's and its own, the server and the CLI those and theirs; the tests
# everything.  The core is plain C11; everything above it uses POSIX and
# GNU interfaces.  -MMD -MP: each object's header dependencies, as the
# compiler saw them (build/**/*.d), so a header change rebuilds exactly
# the objects that include it; a change of their compile command (flags,
# compiler) rebuilds them too, and nothing else does ("compiling", below).
DEPFLAGS    = -MMD -MP
# The core is compiled with hidden visibility, clash.h's declarations
# excepted (its visibility pragma), so that a shared build would export its
# API alone; libclash.a does the same by linking the objects into one and
# localizing every symbol but clash_* (below; export-check holds it).
CORE_CFLAGS = $(WARN) $(CFLAGS) -Icore -fvisibility=hidden
# proto/ keeps its contract (proto.h) at the top and its code in three
# layers, each using only those before it (tests/modules.cjs holds it).
PROTO_DIRS  = proto/json proto/shapes proto/endpoints
PROTO_INC   = -Iproto $(PROTO_DIRS:%=-I%)
PROTO_CFLAGS  = $(WARN) $(CFLAGS) -D_GNU_SOURCE -Icore $(PROTO_INC)
SERVER_CFLAGS = $(PROTO_CFLAGS) -Iserver
CLI_CFLAGS    = $(PROTO_CFLAGS) -Icli
APP_CFLAGS  = $(WARN) $(CFLAGS) -D_GNU_SOURCE -Icore $(PROTO_INC) -Iserver

# gnutls: clashd --healthcheck https://... (libmicrohttpd links it anyway).
# zlib: request bodies sent with Content-Encoding: gzip.  PKGS_PROTO: what
# the proto objects use, so every program linking them links it too: jansson,
# nettle (SHA-256 of stored shapes' ids, proto/shapes/shape_id.c) and
# libassimp (mesh files, proto/shapes/mesh_import.c).
PKGS_PROTO = jansson nettle assimp
# hiredis: the shape store's second tier (--store-redis, server/store_redis.c).
PKGS_APP  = libmicrohttpd libuv gnutls zlib hiredis $(PKGS_PROTO)
# What server/ itself includes: not jansson (proto/ alone touches it; the
# proto objects bring it, nettle and assimp to clashd's link).
PKGS_SERVER = libmicrohttpd libuv gnutls zlib hiredis
PKGS_GEN  = yaml-0.1 jansson
PKGS_TEST = check qhull_r yaml-0.1 zlib
# GLPK (the n-D LP oracle of the tests) ships no pkg-config file; libcrypto
# (OpenSSL) computes stored shapes' ids independently of nettle; GMP's
# rationals are the exact oracle of the predicates suite.
LIBS_TEST = -lglpk -lcrypto -lgmp

# GET /v1/openapi.json serves proto/openapi.yaml, converted to JSON at build
# time by a small libyaml tool and compiled into clashd.
OPENAPI_GEN = $(B)/gen/openapi_json.c
OPENAPI_OBJ = $(B)/gen/openapi_json.o
# The test suite validates that document against the OpenAPI 3.1 schema with
# this npm package (installed under build/, test-only).
VALIDATOR_PKG = @seriousme/openapi-schema-validator@2.11.0
VALIDATOR = $(B)/npm/node_modules/@seriousme/openapi-schema-validator/package.json

B        = build
# Each family of objects' compile command, kept to rebuild them when it
# changes ("compiling", below).
STAMPS_DIR = $(B)/flags
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# ThreadSanitizer: clang's (GCC's needs a libtsan package of its own).
TSAN_CC ?= clang
TSAN     = -fsanitize=thread -fno-omit-frame-pointer

CORE_SRC   = $(wildcard core/*.c)
PROTO_SRC  = $(wildcard $(PROTO_DIRS:%=%/*.c))
SERVER_SRC = $(wildcard server/*.c)
CLI_SRC    = $(wildcard cli/*.c)
CHECK_SRC  = $(wildcard tests/check_*.c) tests/oracle.c tests/gjk88.c tests/oracle_lp.c tests/pairgen.c \
             tests/http_harness.c tests/contract_doc.c tests/spawn.c tests/json_gen.c tests/cells.c

CORE_OBJ   = $(CORE_SRC:%.c=$(B)/obj/%.o)
PROTO_OBJ  = $(PROTO_SRC:%.c=$(B)/obj/%.o)
SERVER_OBJ = $(SERVER_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ    = $(CLI_SRC:%.c=$(B)/obj/%.o)
CHECK_OBJ  = $(CHECK_SRC:%.c=$(B)/obj/%.o)

# The sanitized variants of the same objects, for the second test pass.
CORE_SOBJ  = $(CORE_SRC:%.c=$(B)/san/%.o)
PROTO_SOBJ = $(PROTO_SRC:%.c=$(B)/san/%.o)
CHECK_SOBJ = $(CHECK_SRC:%.c=$(B)/san/%.o)
SERVER_SOBJ = $(SERVER_SRC:%.c=$(B)/san/%.o)
# And the ThreadSanitizer variants, for the threaded suites (check-tsan).
CORE_TOBJ   = $(CORE_SRC:%.c=$(B)/tsan/%.o)
PROTO_TOBJ  = $(PROTO_SRC:%.c=$(B)/tsan/%.o)
CHECK_TOBJ  = $(CHECK_SRC:%.c=$(B)/tsan/%.o)
SERVER_TOBJ = $(SERVER_SRC:%.c=$(B)/tsan/%.o)

.PHONY: all build run test deps deps-test check check-san check-tsan test-beside-san crosscheck clean attack \
        module-check export-check format-check format \
        cli-compare answers-compare \
        fuzz fuzz-smoke failover soak soak-short shared-store deploy-check image-test image-clean run-check \
        bench bench-core deps-bench \
        bench-mesh bench-mesh-sweep bench-mesh-test \
        js-test web web-test wasm bench-wasm
.DEFAULT_GOAL := all

all: $(B)/libclash.a $(B)/clashd $(B)/clash
build: all

deps:
	@sh deploy/install-deps.sh build

deps-test:
	@sh deploy/install-deps.sh test

# The demo page too (clashd serves build/web at /web/): install-deps.sh's
# build profile brings npm; without npm (not Debian), the API alone.
# PORT=9000 moves it; CLASHD_LISTEN (HOST:PORT), when set, is the address.
PORT ?= 8080
RUN_LISTEN = $(or $(CLASHD_LISTEN),127.0.0.1:$(PORT))
run: deps
	@$(MAKE) --no-print-directory all
	@command -v npm >/dev/null 2>&1 && $(MAKE) --no-print-directory web || \
		echo "make run: the demo page needs npm (make web); serving the API only"
	@echo "make run: the API on $(RUN_LISTEN), the demo at http://$(RUN_LISTEN)/web/"
	exec $(B)/clashd --listen $(RUN_LISTEN)

test: deps-test
	@$(MAKE) --no-print-directory all $(B)/check $(B)/check-san $(B)/clashd-san $(B)/check-tsan \
		$(B)/clashd-tsan $(VALIDATOR) \
		$(FUZZ_BIN) $(B)/failover $(B)/soak $(B)/shared-store $(DEPLOY_NPM) $(JS_DEPS) $(WEB_DIST) \
		$(WASM_OUT) $(WASM_CASES)/q_gjk88.jsonl
	@$(MAKE) --no-print-directory module-check export-check format-check
	@$(MAKE) --no-print-directory -j2 -Otarget check-san test-beside-san
	@$(MAKE) --no-print-directory js-test web-test deploy-check failover shared-store soak-short
	@if ! command -v podman >/dev/null 2>&1; then echo "make test: no podman: image-test skipped"; \
	elif [ "$$(id -u)" != 0 ]; then \
		echo "make test: not root: image-test (rootful podman) skipped; run make image-test as root"; \
	else $(MAKE) --no-print-directory image-test IMAGE_TESTS=$(TEST_IMAGE_TESTS); fi

# The sanitizer pass, the longest, runs beside the plain pass, the fuzz
# smoke and the ThreadSanitizer pass (one after the other): each keeps
# about one core busy.  The browser and load runs come after, on a machine
# no busier than make test found it.
test-beside-san:
	@$(MAKE) --no-print-directory -j1 check fuzz-smoke check-tsan

# Both passes run every suite; Check prints its summary line for each.
check: $(B)/check $(B)/clashd $(B)/clash $(VALIDATOR)
	CLASH_BUILD=$(B) $(B)/check
# The suites that run clashd start $(B)/clashd-san here (CLASH_CLASHD, read by
# tests/http_harness.c).  Every sanitized process, each clashd-san included,
# writes its sanitizer reports (LeakSanitizer's at exit too) to a file under
# $(SANLOG) instead of stderr, and any such file fails the pass, whichever test
# started that process and however it ended.
SANLOG = $(B)/san-log
check-san: $(B)/check-san $(B)/clashd $(B)/clashd-san $(B)/clash $(VALIDATOR)
	@rm -rf $(SANLOG) && mkdir -p $(SANLOG)
	@st=0; set -x; CLASH_BUILD=$(B) CLASH_CLASHD=$(B)/clashd-san CLASH_CLASHD_SAN=1 \
		ASAN_OPTIONS=detect_leaks=1:log_path=$(abspath $(SANLOG))/asan \
		UBSAN_OPTIONS=print_stacktrace=1:log_path=$(abspath $(SANLOG))/ubsan \
		$(B)/check-san || st=$$?; set +x; \
	if [ -n "$$(ls $(SANLOG))" ]; then \
		echo "check-san: sanitizer reports:" >&2; cat $(SANLOG)/* >&2; exit 1; \
	fi; \
	[ $$st = 0 ] && echo "check-san: no sanitizer report (clashd-san included)"; exit $$st

# ThreadSanitizer over the suites whose clashd runs its threads hardest
# (TSAN_SUITES; docs/testing.md says what each covers): build/check-tsan
# starts build/clashd-tsan, and the runner's own threads (the clients, the
# log readers, proto's batch and scene pieces) are watched too.  As in
# check-san, every report of every process goes to a file under $(TSANLOG)
# and any such file fails the pass.  tests/tsan.supp: reports to leave out
# (only ones inside system libraries; it says why each).
TSAN_SUITES ?= http_api operations batch scene store import_sandbox slow mesh_threads
TSANLOG = $(B)/tsan-log
TSAN_ENV = CLASH_BUILD=$(B) CLASH_CLASHD=$(B)/clashd-tsan CLASH_CLASHD_SAN=1 \
	TSAN_OPTIONS=log_path=$(abspath $(TSANLOG))/tsan:suppressions=$(abspath tests/tsan.supp)
check-tsan: $(B)/check-tsan $(B)/clashd $(B)/clashd-tsan $(B)/clash $(VALIDATOR)
	@rm -rf $(TSANLOG) && mkdir -p $(TSANLOG)
	@st=0; start=$$(date +%s); for s in $(TSAN_SUITES); do \
		echo "check-tsan: suite $$s"; \
		$(TSAN_ENV) CK_RUN_SUITE=$$s $(B)/check-tsan || st=1; \
	done; \
	if [ -n "$$(ls $(TSANLOG))" ]; then \
		echo "check-tsan: ThreadSanitizer reports:" >&2; cat $(TSANLOG)/* >&2; exit 1; \
	fi; \
	[ $$st = 0 ] && echo "check-tsan: $(TSAN_SUITES): no ThreadSanitizer report" \
		"($$(($$(date +%s) - start)) s)"; exit $$st

# The randomized cross-check of the three methods on 100 000 pairs (minutes);
# make test runs the same suite on 5000.
crosscheck: deps-test
	@$(MAKE) --no-print-directory $(B)/check
	CLASH_CROSSCHECK_PAIRS=$${CLASH_CROSSCHECK_PAIRS:-100000} CK_RUN_SUITE=crosscheck $(B)/check

# make bench: the core against libccd, FCL, Bullet and GLPK on the same cases
# (bench/core, bench/README.md).  bench-core only adds prerequisites to
# `bench`, so other benchmarks can add theirs.
BENCH_CORE_C   = $(wildcard bench/core/*.c)
BENCH_CORE_CXX = $(wildcard bench/core/*.cpp)
BENCH_CORE_OBJ = $(BENCH_CORE_C:%.c=$(B)/obj/%.o) $(BENCH_CORE_CXX:%.cpp=$(B)/obj/%.o) \
                 $(B)/obj/tests/oracle.o $(B)/obj/tests/gjk88.o
PKGS_BENCH     = fcl bullet-float64
BENCH_CORE_FLAGS ?=
# OPENGJK_DIR=<a checkout of github.com/MattiaMontanari/openGJK, outside
# this tree> adds openGJK's distance as a peer: its scalar/openGJK.c is
# compiled from there (GPL-3.0: never copied here) and
# bench/core/peer_opengjk.c gets BENCH_OPENGJK (and takes its printf, which
# would write into the report).  Unset, the peer is absent.
OPENGJK_DIR ?=
ifneq ($(strip $(OPENGJK_DIR)),)
BENCH_CORE_OBJ += $(B)/obj/opengjk/openGJK.o
BENCH_OPENGJK_CFLAGS = -DBENCH_OPENGJK -I$(OPENGJK_DIR)/scalar/include
endif
CMD_cc-opengjk = $(CC) $(CFLAGS) -std=c11 -w -Dprintf=bench_opengjk_printf \
                 -I$(OPENGJK_DIR)/scalar/include $(DEPFLAGS)
CMD_obj-bench-opengjk = $(call compile,$(CC),app,$(BENCH_OPENGJK_CFLAGS))

bench: bench-core
bench-core: deps-bench
	@$(MAKE) --no-print-directory $(B)/bench-core
	$(B)/bench-core --out bench/out $(BENCH_CORE_FLAGS)
	gnuplot bench/core/scale.gp

deps-bench:
	@sh deploy/install-deps.sh bench

# make bench-mesh (part of make bench): triangle meshes against FCL's
# BVHModel<OBBRSS> and three-mesh-bvh (npm, under node), bench/mesh and
# bench/README.md "Meshes".  build/bench-mesh makes the meshes, times FCL
# and clashd and writes the brute-force truth; bench/mesh/bvh.mjs times
# three-mesh-bvh on the same meshes; report.mjs prints the one table (and
# writes bench/out/mesh.md).  The clashd column is bench/mesh/ours.c.
BENCH_MESH_OBJ  = $(B)/obj/bench/mesh/main.o $(B)/obj/bench/mesh/meshes.o \
                  $(B)/obj/bench/mesh/peer_fcl.o $(B)/obj/bench/mesh/ours.o \
                  $(B)/obj/bench/mesh/sweep.o
BENCH_MESH_NPM  = bench/mesh/node_modules/.package-lock.json
BENCH_MESH_OUT  = $(B)/bench-mesh-out
BENCH_MESH_ROUNDS ?= 21
# BENCH_MESH_SWEEP=--big adds the 1 024 000-triangle knots to the sweep.
BENCH_MESH_SWEEP ?=

bench: bench-mesh
bench-mesh: deps-bench
	@$(MAKE) --no-print-directory $(B)/bench-mesh $(BENCH_MESH_NPM)
	$(B)/bench-mesh --out $(BENCH_MESH_OUT) --rounds $(BENCH_MESH_ROUNDS)
	node bench/mesh/bvh.mjs $(BENCH_MESH_OUT) $(BENCH_MESH_ROUNDS) > $(BENCH_MESH_OUT)/bvh.json
	@mkdir -p bench/out
	node bench/mesh/report.mjs $(BENCH_MESH_OUT)/native.json $(BENCH_MESH_OUT)/bvh.json bench/out/mesh.md
	$(MAKE) --no-print-directory bench-mesh-sweep
# The sweep alone (bench/mesh/sweep.c): gaps, sizes, poses, two cubes, a
# drag, FCL beside clashd; the table also in bench/out/mesh-sweep.md.
bench-mesh-sweep: $(B)/bench-mesh
	$(B)/bench-mesh --sweep $(BENCH_MESH_SWEEP) --out $(BENCH_MESH_OUT) --rounds $(BENCH_MESH_ROUNDS)
	@mkdir -p bench/out && cp $(BENCH_MESH_OUT)/sweep.md bench/out/mesh-sweep.md
# The C torus knot against three.js's TorusKnotGeometry (positions within
# 1e-12, the same index), the weld that closes it, and the leaky knot.
bench-mesh-test: $(B)/bench-mesh $(BENCH_MESH_NPM)
	cd bench/mesh && BENCH_MESH=$(abspath $(B)/bench-mesh) node --test test/*.test.js

$(BENCH_MESH_NPM): bench/mesh/package.json bench/mesh/package-lock.json
	cd bench/mesh && npm ci --no-audit --no-fund --loglevel=error
# (Its C files are compiled as the tests are: $(B)/obj/%.o below.)
$(B)/obj/bench/mesh/%.o: bench/mesh/%.cpp $(STAMPS_DIR)/cxx-bench-mesh
	@mkdir -p $(@D)
	$(CMD_cxx-bench-mesh) -c $< -o $@
$(B)/bench-mesh: $(BENCH_MESH_OBJ) $(B)/libclash.a
	$(CXX) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs fcl) -lm

$(B)/obj/bench/core/%.o: bench/core/%.cpp $(STAMPS_DIR)/cxx-bench-core
	@mkdir -p $(@D)
	$(CMD_cxx-bench-core) -c $< -o $@
# With and without BENCH_OPENGJK: the stamp holds OPENGJK_DIR's flags.
$(B)/obj/bench/core/peer_opengjk.o: bench/core/peer_opengjk.c $(STAMPS_DIR)/obj-bench-opengjk
	@mkdir -p $(@D)
	$(CMD_obj-bench-opengjk) -c $< -o $@
$(B)/obj/opengjk/openGJK.o: $(OPENGJK_DIR)/scalar/openGJK.c $(STAMPS_DIR)/cc-opengjk
	@mkdir -p $(@D)
	$(CMD_cc-opengjk) -c $< -o $@
# Its experiments time the core's internals (support scans, the hull
# climb), so it links the objects rather than the library's API.
$(B)/bench-core: $(BENCH_CORE_OBJ) $(CORE_OBJ)
	$(CXX) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs $(PKGS_BENCH) qhull_r ccd) -lglpk -lm

# ---- compiling: one command per family of objects ----
# A family is a flavour (obj: as shipped; san: AddressSanitizer and
# UndefinedBehaviorSanitizer; tsan: ThreadSanitizer; fuzz; wasm) and the
# module its sources belong to.  CMD_<family> is the whole command but for
# the file's own flags and -c $< -o $@; its objects depend on the stamp
# $(STAMPS_DIR)/<family>, which holds that command (and every file's own
# flags) and is rewritten only when that text changes.  So editing this file
# rebuilds only the objects whose command it changed, `make CFLAGS=...`
# rebuilds them all, and a header change (the .d files below) rebuilds
# exactly the objects that include it.
# $(call compile,COMPILER,MODULE,FLAGS): the command of MODULE's objects.
compile = $(strip $1 $(MODULE_CFLAGS_$2) $3 $(DEPFLAGS))
MODULE_CFLAGS_core   = $(CORE_CFLAGS)
MODULE_CFLAGS_proto  = $(PROTO_CFLAGS) $(shell pkg-config --cflags $(PKGS_PROTO))
MODULE_CFLAGS_server = $(SERVER_CFLAGS) $(shell pkg-config --cflags $(PKGS_SERVER))
# No library's flags for the CLI: it reaches jansson only through proto's calls.
MODULE_CFLAGS_cli    = $(CLI_CFLAGS)
# Tests, benchmarks and the load programs: every module's headers.
MODULE_CFLAGS_app    = $(APP_CFLAGS) $(shell pkg-config --cflags $(PKGS_APP))
CMD_obj-core    = $(call compile,$(CC),core)
CMD_obj-proto   = $(call compile,$(CC),proto)
CMD_obj-server  = $(call compile,$(CC),server)
CMD_obj-cli     = $(call compile,$(CC),cli)
CMD_obj-app     = $(call compile,$(CC),app)
CMD_san-core    = $(call compile,$(CC),core,$(SAN))
CMD_san-proto   = $(call compile,$(CC),proto,$(SAN))
CMD_san-server  = $(call compile,$(CC),server,$(SAN))
CMD_san-app     = $(call compile,$(CC),app,$(SAN))
CMD_tsan-core   = $(call compile,$(TSAN_CC),core,$(TSAN))
CMD_tsan-proto  = $(call compile,$(TSAN_CC),proto,$(TSAN))
CMD_tsan-server = $(call compile,$(TSAN_CC),server,$(TSAN))
CMD_tsan-app    = $(call compile,$(TSAN_CC),app,$(TSAN))
CMD_cxx-bench-core = $(CXX) $(CFLAGS) -std=c++17 -Wall -Wextra -Werror -Icore \
                     $(shell pkg-config --cflags $(PKGS_BENCH) | sed 's/-I/-isystem /g') $(DEPFLAGS)
CMD_cxx-bench-mesh = $(CXX) $(CFLAGS) -std=c++17 -Wall -Wextra -Werror \
                     $(shell pkg-config --cflags fcl | sed 's/-I/-isystem /g') $(DEPFLAGS)
CMD_fuzz        = $(FUZZ_CC) $(WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -D_GNU_SOURCE \
                  -Icore $(PROTO_INC) $(shell pkg-config --cflags jansson) $(DEPFLAGS)
CMD_wasm-core   = $(WASM_CC) $(WASM_FLAGS) $(WARN) -ffp-contract=off -Icore $(DEPFLAGS)
CMD_wasm-proto  = $(WASM_CC) $(WASM_FLAGS) $(WARN) -D_GNU_SOURCE -include $(JS)/wasm/include/compat.h \
                  -Icore $(PROTO_INC) -I$(WASM_JANSSON)/src -I$(WASM_NETTLE)/include $(DEPFLAGS)
CMD_wasm-js     = $(WASM_CC) $(WASM_FLAGS) $(WARN) -I$(JS)/wasm/include -Icore $(PROTO_INC) $(DEPFLAGS)

# A file's own flags (FILE_CFLAGS_<path>), in every flavour but wasm's.
# The simplex engine's loops over the rows (m = 5 in 3-D) pay to unroll:
# about a sixth of the LP method's instructions.  lp_simplex.c does not:
# unrolled, it saves 1% of the instructions but doubles its code (33 to
# 70 KB), and the benchmark's batches start with caches other methods
# have just used.
FILE_CFLAGS_core/rsimplex.c = -funroll-loops
# The exact predicates (core/predicates.c) are proven for products and sums
# rounded one at a time (Dekker's split, the error bounds): no multiply and
# add fused into an fma.  GCC does not fuse in -std=c11 mode; clang does
# by default once FMA is enabled (-march=native).
# core/trig.c likewise: its sin, cos and atan2 must round the same way in
# the page (the wasm objects are all built with -ffp-contract=off).
FILE_CFLAGS_core/predicates.c = -ffp-contract=off
FILE_CFLAGS_core/trig.c = -ffp-contract=off

STAMPS = $(patsubst CMD_%,$(STAMPS_DIR)/%,$(filter CMD_%,$(.VARIABLES)))
stamp_text = $(strip $(CMD_$1) $(foreach v,$(sort $(filter FILE_CFLAGS_%,$(.VARIABLES))),$v=$($v)))
# True (non-empty) when the two texts differ.
differ = $(subst x$1,,x$2)$(subst x$2,,x$1)
# $(call stamp_refresh,FAMILY): its stamp written, when its text changed.
# (What $(file <) returns is stripped: make 4.3 leaves the last newline
# on in some expansions.)
stamp_refresh = $(if $(call differ,$(strip $(file <$(STAMPS_DIR)/$1)),$(call stamp_text,$1)),$(shell \
	mkdir -p $(STAMPS_DIR))$(file >$(STAMPS_DIR)/$1,$(call stamp_text,$1)))
# Every stamp there is, refreshed as this file is read (at its end: the
# commands use variables defined anywhere in it), so that make -n and -q
# see the objects a change of flags makes stale, and only those; a stamp
# not made yet is made when an object first needs it.
$(STAMPS): $(STAMPS_DIR)/%:
	$(call stamp_refresh,$*)

$(B)/obj/core/%.o: core/%.c $(STAMPS_DIR)/obj-core
	@mkdir -p $(@D)
	$(CMD_obj-core) $(FILE_CFLAGS_$<) -c $< -o $@
$(B)/obj/proto/%.o: proto/%.c $(STAMPS_DIR)/obj-proto
	@mkdir -p $(@D)
	$(CMD_obj-proto) -c $< -o $@
$(B)/obj/server/%.o: server/%.c $(STAMPS_DIR)/obj-server
	@mkdir -p $(@D)
	$(CMD_obj-server) -c $< -o $@
$(B)/obj/cli/%.o: cli/%.c $(STAMPS_DIR)/obj-cli
	@mkdir -p $(@D)
	$(CMD_obj-cli) -c $< -o $@
$(B)/obj/%.o: %.c $(STAMPS_DIR)/obj-app
	@mkdir -p $(@D)
	$(CMD_obj-app) -c $< -o $@

$(B)/san/core/%.o: core/%.c $(STAMPS_DIR)/san-core
	@mkdir -p $(@D)
	$(CMD_san-core) $(FILE_CFLAGS_$<) -c $< -o $@
$(B)/san/proto/%.o: proto/%.c $(STAMPS_DIR)/san-proto
	@mkdir -p $(@D)
	$(CMD_san-proto) -c $< -o $@
$(B)/san/server/%.o: server/%.c $(STAMPS_DIR)/san-server
	@mkdir -p $(@D)
	$(CMD_san-server) -c $< -o $@
$(B)/san/%.o: %.c $(STAMPS_DIR)/san-app
	@mkdir -p $(@D)
	$(CMD_san-app) -c $< -o $@

$(B)/tsan/core/%.o: core/%.c $(STAMPS_DIR)/tsan-core
	@mkdir -p $(@D)
	$(CMD_tsan-core) $(FILE_CFLAGS_$<) -c $< -o $@
$(B)/tsan/proto/%.o: proto/%.c $(STAMPS_DIR)/tsan-proto
	@mkdir -p $(@D)
	$(CMD_tsan-proto) -c $< -o $@
$(B)/tsan/server/%.o: server/%.c $(STAMPS_DIR)/tsan-server
	@mkdir -p $(@D)
	$(CMD_tsan-server) -c $< -o $@
$(B)/tsan/%.o: %.c $(STAMPS_DIR)/tsan-app
	@mkdir -p $(@D)
	$(CMD_tsan-app) -c $< -o $@

# The compiler's record of the headers each object read (-MMD -MP), for
# every flavour: build/**/*.d.
-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)

# One relocatable object of every core object, its symbols other than
# clash_* made local: a program linking libclash.a can reach clash.h's
# calls and nothing else (mesh_query, tri_overlap, ... stay internal).
# The tests link the objects themselves, internals included.
$(B)/libclash.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(LD) -r -o $(B)/obj/libclash.o $^
	objcopy --wildcard --keep-global-symbol='clash_*' $(B)/obj/libclash.o
	rm -f $@ && ar rcs $@ $(B)/obj/libclash.o

# Every symbol libclash.a defines for others is clash.h's (clash_*).
export-check: $(B)/libclash.a
	@others=$$(nm -g --defined-only $(B)/libclash.a | awk 'NF == 3 { print $$3 }' | \
		grep -v '^clash_' || true); \
	if [ -n "$$others" ]; then \
		echo "export-check: libclash.a exports symbols outside its API:" $$others; exit 1; \
	fi; \
	echo "export-check: libclash.a exports $$(nm -g --defined-only $(B)/libclash.a | \
		awk 'NF == 3' | wc -l) symbols, every one clash_*"

$(B)/clashd: $(SERVER_OBJ) $(OPENAPI_OBJ) $(PROTO_OBJ) $(B)/libclash.a
	$(CC) $(CFLAGS) -o $@ $(SERVER_OBJ) $(OPENAPI_OBJ) $(PROTO_OBJ) $(B)/libclash.a \
		$(shell pkg-config --libs $(PKGS_APP)) -lm -lpthread

$(B)/openapi-embed: server/gen/openapi_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(shell pkg-config --cflags $(PKGS_GEN)) $< -o $@ \
		$(shell pkg-config --libs $(PKGS_GEN))
$(OPENAPI_GEN): proto/openapi.yaml $(B)/openapi-embed
	@mkdir -p $(dir $@)
	$(B)/openapi-embed proto/openapi.yaml $@
$(OPENAPI_OBJ): $(OPENAPI_GEN) $(STAMPS_DIR)/obj-app
	$(CMD_obj-app) -c $< -o $@

$(VALIDATOR):
	npm install --prefix $(B)/npm --no-save --no-audit --no-fund --loglevel=error \
		$(VALIDATOR_PKG)

$(B)/clash: $(CLI_OBJ) $(PROTO_OBJ) $(B)/libclash.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(PROTO_OBJ) $(B)/libclash.a \
		$(shell pkg-config --libs $(PKGS_PROTO)) -lm

$(B)/check: $(CHECK_OBJ) $(PROTO_OBJ) $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs $(PKGS_TEST) $(PKGS_PROTO)) $(LIBS_TEST) -lm -lpthread

$(B)/check-san: $(CHECK_SOBJ) $(PROTO_SOBJ) $(CORE_SOBJ)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(shell pkg-config --libs $(PKGS_TEST) $(PKGS_PROTO)) $(LIBS_TEST) -lm -lpthread

$(B)/clashd-san: $(SERVER_SOBJ) $(OPENAPI_OBJ) $(PROTO_SOBJ) $(CORE_SOBJ)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(shell pkg-config --libs $(PKGS_APP)) -lm -lpthread

$(B)/check-tsan: $(CHECK_TOBJ) $(PROTO_TOBJ) $(CORE_TOBJ)
	$(TSAN_CC) $(CFLAGS) $(TSAN) -o $@ $^ $(shell pkg-config --libs $(PKGS_TEST) $(PKGS_PROTO)) \
		$(LIBS_TEST) -lm -lpthread
$(B)/clashd-tsan: $(SERVER_TOBJ) $(OPENAPI_OBJ) $(PROTO_TOBJ) $(CORE_TOBJ)
	$(TSAN_CC) $(CFLAGS) $(TSAN) -o $@ $^ $(shell pkg-config --libs $(PKGS_APP)) -lm -lpthread

# ---- the JavaScript client (clients/js, docs/client.md) ----
# npm ci from its package-lock.json into clients/js/node_modules (not in
# git).  The types generated from proto/openapi.yaml by openapi-typescript
# are in git (clients/js/types/openapi.d.ts, `npm run gen`), so that the
# package carries them and a fresh clone type-checks; js-test checks that
# they match the contract.
JS = clients/js
JS_DEPS = $(JS)/node_modules/.package-lock.json
$(JS_DEPS): $(JS)/package.json $(JS)/package-lock.json
	cd $(JS) && npm ci --no-audit --no-fund --loglevel=error

# ---- the core in the page (clients/js/wasm, clients/js/local.js) ----
# core/ and proto/ compiled to WebAssembly by Debian's clang 14 for
# wasm32-wasi (wasi-libc, lld's wasm-ld, compiler-rt's wasm32 builtins:
# install-deps.sh's test profile), with jansson and nettle's SHA-256 built
# from Debian's source of the versions clashd links (debian-source.sh):
# the page answers a Query with the very code clashd answers it with.
# The host's headers are kept out (-nostdlibinc): only wasi-libc's and the
# stand-ins of clients/js/wasm/include.  proto/'s mesh file reader
# (libassimp) is left out: only a mesh file's import reaches it, which the
# module does not export (the link fails on any symbol left undefined).
# clashd-core.wasm goes into clients/js/gen/ (not in git), beside the
# generated types, for the package and the demo to carry.
WASM_CC      = clang-14
WASM_FLAGS   = --target=wasm32-wasi -O2 -nostdlibinc -isystem $(JS)/wasm/include \
               -isystem /usr/include/wasm32-wasi
WASM_JANSSON = $(B)/wasm/jansson
WASM_NETTLE  = $(B)/wasm/nettle
WASM_PROTO   = $(filter-out proto/shapes/mesh_import.c proto/shapes/mesh_rounding.c,$(PROTO_SRC))
WASM_OBJ     = $(CORE_SRC:%.c=$(B)/wasm/obj/%.o) $(WASM_PROTO:%.c=$(B)/wasm/obj/%.o) \
               $(B)/wasm/obj/$(JS)/wasm/local.o $(B)/wasm/obj/$(JS)/wasm/compat.o
# jansson's src/*.c and the three files of nettle's SHA-256.
WASM_LIBS    = $(B)/wasm/obj/jansson/.built $(B)/wasm/obj/nettle/.built
WASM_NETTLE_SRC = sha256.c sha256-compress.c write-be32.c
WASM_OUT     = $(JS)/gen/clashd-core.wasm
# The stack: wasm-ld gives 64 KiB, which the core's and proto's recursion
# and frames outgrow (8 MiB, a Linux thread's default); first in memory, so
# that an overflow traps instead of writing over the data.
WASM_STACK   = 8388608
# (touched: the sources keep their upstream dates, older than the script,
# and would be fetched and the module rebuilt on every make)
$(WASM_JANSSON)/src/jansson.h: $(JS)/wasm/debian-source.sh
	sh $(JS)/wasm/debian-source.sh jansson $(WASM_JANSSON) && touch $@
$(WASM_NETTLE)/src/sha2.h: $(JS)/wasm/debian-source.sh
	sh $(JS)/wasm/debian-source.sh nettle $(WASM_NETTLE) && touch $@
$(B)/wasm/obj/jansson/.built: $(WASM_JANSSON)/src/jansson.h
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	for f in $(WASM_JANSSON)/src/*.c; do \
		$(WASM_CC) $(WASM_FLAGS) -DHAVE_CONFIG_H -I$(WASM_JANSSON)/src -c $$f \
			-o $(dir $@)$$(basename $$f .c).o || exit 1; done
	touch $@
$(B)/wasm/obj/nettle/.built: $(WASM_NETTLE)/src/sha2.h
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	for f in $(WASM_NETTLE_SRC); do \
		$(WASM_CC) $(WASM_FLAGS) -DHAVE_CONFIG_H -I$(WASM_NETTLE)/src -c $(WASM_NETTLE)/src/$$f \
			-o $(dir $@)$${f%.c}.o || exit 1; done
	touch $@
$(B)/wasm/obj/core/%.o: core/%.c $(STAMPS_DIR)/wasm-core
	@mkdir -p $(@D)
	$(CMD_wasm-core) -c $< -o $@
$(B)/wasm/obj/proto/%.o: proto/%.c $(WASM_LIBS) $(STAMPS_DIR)/wasm-proto
	@mkdir -p $(@D)
	$(CMD_wasm-proto) -c $< -o $@
$(B)/wasm/obj/$(JS)/wasm/%.o: $(JS)/wasm/%.c $(STAMPS_DIR)/wasm-js
	@mkdir -p $(@D)
	$(CMD_wasm-js) -c $< -o $@
$(WASM_OUT): $(WASM_OBJ) $(WASM_LIBS)
	@mkdir -p $(dir $@)
	$(WASM_CC) --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2 -o $@ $(WASM_OBJ) \
		$(B)/wasm/obj/jansson/*.o $(B)/wasm/obj/nettle/*.o -lm -Wl,--gc-sections -Wl,--strip-all \
		-Wl,-z,stack-size=$(WASM_STACK) -Wl,--stack-first
wasm: $(WASM_OUT)

# ---- the JavaScript client's tests ----
# The local module's tests (test/local.test.js, and web/test/local.test.js
# in chromium) compare its replies with clashd's on a sample of the inputs
# `answers gen` writes (tests/answers.c), made once into $(WASM_CASES).
WASM_CASES = $(B)/wasm/answers-in
$(WASM_CASES)/q_gjk88.jsonl: $(B)/answers
	rm -rf $(WASM_CASES) && mkdir -p $(WASM_CASES) && $(B)/answers gen $(WASM_CASES)
# eslint first (eslint.config.js); then node's test runner runs the tests,
# which start $(B)/clashd themselves; test/package.test.js packs the
# package and type-checks test/*.ts against it (docs/testing.md).
js-test: $(B)/clashd $(JS_DEPS) $(WASM_OUT) $(WASM_CASES)/q_gjk88.jsonl
	cd $(JS) && ./node_modules/.bin/eslint --max-warnings 0 . && echo "js-test: eslint: no problem"
	cd $(JS) && CLASHD=$(abspath $(B)/clashd) ANSWERS_IN=$(abspath $(WASM_CASES)) node --test test/*.test.js

# ---- the demo page (web/, docs/client.md) ----
# npm ci from web/package-lock.json (three, esbuild, playwright-core; no
# browser download: playwright-core fetches none); esbuild bundles
# web/src/main.js with three.js and the client into $(B)/web.  web-test
# serves that directory with a node static server, starts $(B)/clashd with
# --cors-origin set to its origin and drives Debian's chromium (headless,
# the chromium package of install-deps.sh's test profile) over the page,
# saving $(B)/web-demo.png.
WEB = web
WEB_DEPS = $(WEB)/node_modules/.package-lock.json
WEB_DIST = $(B)/web/demo.js
$(WEB_DEPS): $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
$(WEB_DIST): $(WEB_DEPS) $(WEB)/build.mjs $(wildcard $(WEB)/src/*) $(JS)/clashd.js $(JS)/three.js \
		$(JS)/local.js $(WASM_OUT)
	cd $(WEB) && node build.mjs $(abspath $(B)/web)
web: $(WEB_DIST)
web-test: $(B)/clashd $(WEB_DIST) $(WASM_OUT) $(WASM_CASES)/q_gjk88.jsonl
	cd $(WEB) && CLASHD=$(abspath $(B)/clashd) WEB_DIST=$(abspath $(B)/web) \
		SCREENSHOT=$(abspath $(B)/web-demo.png) ANSWERS_IN=$(abspath $(WASM_CASES)) \
		node --test test/*.test.js

# make bench-wasm: the core in the page measured (bench/wasm/drag.mjs,
# bench/README.md "The core in the page"): the module's size, its start-up
# in node and chromium, and a drag of a gear over a 100 000-triangle mesh
# answered locally in each.
bench-wasm: $(WASM_OUT) $(JS_DEPS) $(WEB_DEPS)
	node bench/wasm/drag.mjs

# ---- failover and soak (tests/load/) ----
# Programs, not Check suites: each runs for a while, prints its numbers and
# exits 0 or 1.  They start build/clashd (CLASH_CLASHD overrides) and, for
# the failover, Debian's haproxy with deploy/haproxy/haproxy.cfg.
LOAD_OBJ = $(B)/obj/tests/load/loadgen.o $(B)/obj/tests/load/proc.o $(B)/obj/tests/spawn.o
FAILOVER_SECONDS ?= 20
DURATION ?= 600
SOAK_SHORT ?= 25

$(B)/failover: $(B)/obj/tests/load/failover.o $(LOAD_OBJ) $(PROTO_OBJ) $(B)/libclash.a
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs $(PKGS_PROTO)) -lm -lpthread
$(B)/soak: $(B)/obj/tests/load/soak.o $(LOAD_OBJ) $(PROTO_OBJ) $(B)/libclash.a
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs $(PKGS_PROTO)) -lm -lpthread
$(B)/shared-store: $(B)/obj/tests/load/shared_store.o $(LOAD_OBJ) $(PROTO_OBJ) $(B)/libclash.a
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs $(PKGS_PROTO)) -lm -lpthread

failover: $(B)/failover $(B)/clashd
	$(B)/failover --seconds $(FAILOVER_SECONDS) --dir $(B)/failover.d
soak: $(B)/soak $(B)/clashd
	$(B)/soak --seconds $(DURATION) --dir $(B)/soak.d
soak-short: $(B)/soak $(B)/clashd
	$(B)/soak --seconds $(SOAK_SHORT) --dir $(B)/soak.d
# Three clashd sharing one Redis (--store-redis) behind a proxy that picks a
# replica per connection at random; Redis paused, killed, full, corrupt;
# a rolling restart (tests/load/shared_store.c says what each stage holds).
shared-store: $(B)/shared-store $(B)/clashd
	$(B)/shared-store --dir $(B)/shared-store.d

# ---- deploy files (deploy/, Dockerfile; checks in tests/deploy/) ----
# No cluster and no Docker engine here: yamllint, the Kubernetes schemas of
# the kubernetes-models npm package (strictly: unknown members fail) with the
# operational rules, haproxy's own config check, and the Dockerfile against
# the Makefile, Debian and build/clashd's libraries.  The npm packages go
# under build/npm-deploy (a separate prefix: npm prunes what a --no-save
# install into a shared prefix did not name).
DEPLOY_NPM_PKGS = kubernetes-models@4.5.1 yaml@2.8.1
DEPLOY_NPM = $(B)/npm-deploy/node_modules/kubernetes-models/package.json
$(DEPLOY_NPM):
	npm install --prefix $(B)/npm-deploy --no-save --no-audit --no-fund --loglevel=error \
		$(DEPLOY_NPM_PKGS)
# The image, built by podman and run (tests/deploy/image-test.sh says what
# it checks): IMAGE_TESTS=yes builds it as the Dockerfile does by default,
# the unit suites included.  make test builds it with TESTS=no
# (TEST_IMAGE_TESTS): it has just run those suites itself, and running them
# again in the build adds minutes to it.  The bases debian:bookworm and
# bookworm-slim (mmdebstrap, no registry) stay in podman's storage;
# image-clean removes them.
IMAGE_TESTS ?= yes
TEST_IMAGE_TESTS ?= no
image-test: $(B)/failover
	IMAGE_TESTS=$(IMAGE_TESTS) FAILOVER_SECONDS=$(FAILOVER_SECONDS) \
		sh tests/deploy/image-test.sh $(B)/image-test.d
# make run as a new user runs it on a fresh bookworm container (rootful
# podman, image-test's bases; tests/deploy/run-check.sh says what it
# checks): install, build, the page, a query, SIGTERM.  Not in make test:
# docs/testing.md, "make run on a fresh machine", says why.
run-check:
	sh tests/deploy/run-check.sh $(B)/run-check.d
image-clean:
	-podman rmi docker.io/library/debian:bookworm docker.io/library/debian:bookworm-slim

# No cycle among the modules of core/, proto/, server/ and cli/ (a .c with
# its .h is one module), proto's layers in order (json, shapes, endpoints),
# and no jansson in server/ or cli/: tests/modules.cjs.
# Includes and calls: the calls are read from the objects (nm).
module-check: $(CORE_OBJ) $(PROTO_OBJ) $(SERVER_OBJ) $(CLI_OBJ)
	CLASH_BUILD=$(B) node tests/modules.cjs

# Every C file of core/, proto/, server/, cli/, tests/ and bench/ that git
# tracks against .clang-format (clang-format 14, --dry-run --Werror: any
# line it would change fails), in make test.  Tables aligned by hand sit
# between clang-format off and on comments (.clang-format says which).
# make format rewrites the same files in place.  FORMAT_BASE=<rev> checks
# only the lines changed since that revision (git clang-format), as a quick
# look before a commit.
FORMAT_FILES = $(shell git ls-files 'core/*.[ch]' 'proto/*.[ch]' 'server/*.[ch]' \
	'cli/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]')
format-check:
	@if [ -n "$(FORMAT_BASE)" ]; then \
	  base=$$(git merge-base $(FORMAT_BASE) HEAD) && \
	  out=$$(git clang-format --diff $$base -- core proto server cli tests bench) && \
	  case "$$out" in \
	  "no modified files to format"|*"did not modify any files"*|"") \
	    echo "format-check: the C lines changed since $(FORMAT_BASE) follow .clang-format";; \
	  *) printf '%s\n' "$$out"; echo "format-check: reformat with" \
	    "git clang-format $$base, or make format" >&2; exit 1;; \
	  esac; \
	else \
	  printf '%s\n' $(FORMAT_FILES) | xargs clang-format --dry-run --Werror || \
	    { echo "format-check: reformat with make format" >&2; exit 1; }; \
	  echo "format-check: $(words $(FORMAT_FILES)) C files follow .clang-format"; \
	fi
format:
	printf '%s\n' $(FORMAT_FILES) | xargs clang-format -i

# The clash tool's outputs byte for byte against those of CLI_BASE (a git
# revision, main unless given), built in a temporary directory: for a change
# meant to keep the CLI's behaviour (tests/cli_compare.sh says what it runs).
CLI_BASE ?= main
cli-compare: $(B)/clash
	@base=$$(mktemp -d) && trap 'rm -rf "$$base"' EXIT && \
	git archive $(CLI_BASE) | tar -x -C "$$base" && \
	echo "cli-compare: building $(CLI_BASE)'s clash" && \
	{ $(MAKE) --no-print-directory -C "$$base" B=build build/clash >"$$base/build.log" 2>&1 || \
	  { cat "$$base/build.log" >&2; exit 1; }; } && \
	sh tests/cli_compare.sh "$$base/build/clash" $(B)/clash

# Every answer byte for byte against those of ANSWERS_BASE (a git revision,
# main unless given), for a change meant to keep them (tests/answers_compare.sh
# says what it compares).  tests/answers.c writes the inputs and asks the core
# directly; it is compiled against each side's core, with this tree's GJK88
# set and oracle copied beside it.
ANSWERS_BASE ?= main
ANSWERS_TESTS = tests/answers.c tests/gjk88.c tests/gjk88.h tests/oracle.c tests/oracle.h tests/prng.h
ANSWERS_OBJ = obj/tests/answers.o obj/tests/gjk88.o obj/tests/oracle.o
$(B)/answers: $(ANSWERS_OBJ:%=$(B)/%) $(B)/libclash.a
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs qhull_r) -lm
answers-compare: $(B)/clash $(B)/answers
	@base=$$(mktemp -d) && trap 'rm -rf "$$base"' EXIT && \
	git archive $(ANSWERS_BASE) | tar -x -C "$$base" && \
	cp $(ANSWERS_TESTS) "$$base/tests/" && \
	echo "answers-compare: building $(ANSWERS_BASE)'s clash and core" && \
	{ $(MAKE) --no-print-directory -C "$$base" B=build build/clash build/libclash.a \
	    $(ANSWERS_OBJ:%=build/%) >"$$base/build.log" 2>&1 && \
	  $(CC) $(CFLAGS) -o "$$base/build/answers" $(ANSWERS_OBJ:%="$$base"/build/%) \
	    "$$base/build/libclash.a" $(shell pkg-config --libs qhull_r) -lm \
	    >>"$$base/build.log" 2>&1 || { cat "$$base/build.log" >&2; exit 1; }; } && \
	sh tests/answers_compare.sh "$$base/build/clash" "$$base/build/answers" \
	    $(B)/clash $(B)/answers

deploy-check: $(B)/clashd $(DEPLOY_NPM)
	yamllint -s -c deploy/yamllint.yml deploy/k8s deploy/compose
	HAPROXY_BIND=127.0.0.1:8080 HAPROXY_STATS=/tmp/haproxy-check.sock HAPROXY_DNS=127.0.0.1:53 \
		CLASHD_1=127.0.0.1:8081 CLASHD_2=127.0.0.1:8082 CLASHD_3=127.0.0.1:8083 \
		haproxy -c -q -f deploy/haproxy/haproxy.cfg
	node tests/deploy/check-manifests.cjs $(B)/npm-deploy/node_modules
	sh tests/deploy/check-image.sh $(B)/clashd

# ---- fuzzing (tests/fuzz/) ----
# libFuzzer targets built by clang with ASan and UBSan; the core and the codec
# are compiled again for them (coverage instrumentation).  `make fuzz` runs
# each for FUZZ_SECONDS, keeping what it finds in $(B)/fuzz/corpus/<target>
# (the seeds in tests/fuzz/corpus/<target> are read too) and crashes as
# $(B)/fuzz/crash-<target>-*.  make test replays the seeds and the fixed
# findings (tests/fuzz/findings/<target>, each file run as one input) and then
# fuzzes each target for FUZZ_SMOKE_RUNS inputs (FUZZ_SMOKE_RUNS_<target>
# when set) from a fixed seed (a few seconds).
FUZZ_CC      ?= clang
FUZZ_FLAGS    = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=all
FUZZ_TARGETS  = proto core import wire mesh
FUZZ_BIN      = $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_RUNS ?= 20000
# assimp zero-fills megabytes for every file it reads: under ASan the page
# faults make an import cost about 15 ms of CPU (mostly system time), so
# the import's smoke run is shorter.
FUZZ_SMOKE_RUNS_import ?= 2000
# The smoke runs use libFuzzer's plain power schedule: the entropic one's
# bookkeeping per input (feature frequencies) took half their time.
FUZZ_SMOKE_FLAGS = -entropic=0
FUZZ_CORE_OBJ  = $(CORE_SRC:%.c=$(B)/fuzz/obj/%.o)
FUZZ_PROTO_OBJ = $(PROTO_SRC:%.c=$(B)/fuzz/obj/%.o)
# What each target reads: the codec's input is a request body (4 KiB covers
# every seed with room to grow), the core's a short recipe of shapes, the
# import's a media type byte and a mesh file (16 KiB: a few hundred
# triangles; a file that takes assimp over 30 s is a finding).
FUZZ_ARGS_proto = -max_len=4096 -dict=tests/fuzz/proto.dict
FUZZ_ARGS_core  = -max_len=512
# The mesh target's recipe: a soup of up to 48 triangles takes 240 bytes.
# Each input builds a mesh whose leak is sampled (about 1024 winding
# numbers): its smoke run is shorter.
FUZZ_ARGS_mesh  = -max_len=256
FUZZ_SMOKE_RUNS_mesh ?= 4000
FUZZ_ARGS_import = -max_len=16384 -timeout=30 -dict=tests/fuzz/import.dict
# The import helper's answers as clashd reads them back (the seeds: its
# answers to the import's seeds, a few KiB each).
FUZZ_ARGS_wire = -max_len=16384
# The environment each runs in: the import's leak suppressions (assimp's
# own leaks, tests/fuzz/import.supp).
FUZZ_ENV_import = LSAN_OPTIONS=suppressions=tests/fuzz/import.supp
# The loops below run in the shell: hand each target's arguments and
# environment to it as shell variables (args_<t>, env_<t>).
FUZZ_SHVARS = $(foreach t,$(FUZZ_TARGETS),args_$(t)='$(FUZZ_ARGS_$(t))' env_$(t)='$(FUZZ_ENV_$(t))' \
                runs_$(t)='$(or $(FUZZ_SMOKE_RUNS_$(t)),$(FUZZ_SMOKE_RUNS))';) \
              fuzz_of() { eval "args=\$$args_$$1 env=\$$env_$$1 runs=\$$runs_$$1"; };

$(B)/fuzz/obj/%.o: %.c $(STAMPS_DIR)/fuzz
	@mkdir -p $(@D)
	$(CMD_fuzz) $(FILE_CFLAGS_$<) -c $< -o $@
$(B)/fuzz/fuzz_proto: $(B)/fuzz/obj/tests/fuzz/fuzz_proto.o $(FUZZ_PROTO_OBJ) $(FUZZ_CORE_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(shell pkg-config --libs $(PKGS_PROTO)) -lm
$(B)/fuzz/fuzz_import: $(B)/fuzz/obj/tests/fuzz/fuzz_import.o $(FUZZ_PROTO_OBJ) $(FUZZ_CORE_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(shell pkg-config --libs $(PKGS_PROTO)) -lm
$(B)/fuzz/fuzz_wire: $(B)/fuzz/obj/tests/fuzz/fuzz_wire.o $(FUZZ_PROTO_OBJ) $(FUZZ_CORE_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(shell pkg-config --libs $(PKGS_PROTO)) -lm
$(B)/fuzz/fuzz_mesh: $(B)/fuzz/obj/tests/fuzz/fuzz_mesh.o $(FUZZ_CORE_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ -lm
$(B)/fuzz/fuzz_core: $(B)/fuzz/obj/tests/fuzz/fuzz_core.o $(B)/fuzz/obj/tests/fuzz/fuzz_solids.o \
		$(FUZZ_CORE_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ -lm

# Fork mode with crashes ignored: a run goes on for its whole time and keeps
# every distinct failure it finds; any at all fails `make fuzz`.
fuzz: deps-test
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@rm -f $(B)/fuzz/crash-*; $(FUZZ_SHVARS) for t in $(FUZZ_TARGETS); do \
		fuzz_of $$t; mkdir -p $(B)/fuzz/corpus/$$t || exit 1; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s (log: $(B)/fuzz/$$t.log)"; \
		env $$env $(B)/fuzz/fuzz_$$t $$args -max_total_time=$(FUZZ_SECONDS) -fork=1 \
			-ignore_crashes=1 -ignore_ooms=0 -ignore_timeouts=0 \
			-artifact_prefix=$(B)/fuzz/crash-$$t- $(B)/fuzz/corpus/$$t tests/fuzz/corpus/$$t \
			>$(B)/fuzz/$$t.log 2>&1; \
		tail -1 $(B)/fuzz/$$t.log; \
	done; \
	if ls $(B)/fuzz/crash-* >/dev/null 2>&1; then \
		echo "fuzz: failures found (replay each with the target, e.g." \
			"FUZZ_CORE_PRINT=1 $(B)/fuzz/fuzz_core FILE):"; ls $(B)/fuzz/crash-*; exit 1; \
	fi; echo "fuzz: no failure"

# Hostile clients, every scenario bounded in time: memory under
# deploy/k8s's limit, fair workers, the loop while bodies stream in (suite
# hostile); slow, vanished and greedy clients from 127.0.0.2 (suite slow);
# strict framing (http_api/http); a stuck stdout (operations/observe); mesh
# files that would take assimp's memory or time without bound (import_sandbox,
# at full size in make test too).
# CLASH_ATTACK=full: full-size attacks (make test runs them
# scaled down) and the targets (p99 50 ms, 250 ms; 100 ms) as the bounds.
attack: $(B)/check $(B)/clashd $(B)/clash $(VALIDATOR)
	CLASH_ATTACK=full CK_RUN_SUITE=hostile $(B)/check
	CK_RUN_SUITE=import_sandbox $(B)/check
	CLASH_ATTACK=full CK_RUN_SUITE=slow $(B)/check
	CK_RUN_SUITE=http_api CK_RUN_CASE=http $(B)/check
	CK_RUN_SUITE=operations CK_RUN_CASE=observe $(B)/check

fuzz-smoke: $(FUZZ_BIN)
	@$(FUZZ_SHVARS) for t in $(FUZZ_TARGETS); do \
		fuzz_of $$t; rm -rf $(B)/fuzz/smoke/$$t && mkdir -p $(B)/fuzz/smoke/$$t || exit 1; \
		env $$env $(B)/fuzz/fuzz_$$t $$args -runs=0 -artifact_prefix=$(B)/fuzz/crash-$$t- \
			tests/fuzz/corpus/$$t \
			2>$(B)/fuzz/smoke/$$t.log || { cat $(B)/fuzz/smoke/$$t.log; exit 1; }; \
		if [ -d tests/fuzz/findings/$$t ]; then \
			env $$env $(B)/fuzz/fuzz_$$t $$args -runs=0 tests/fuzz/findings/$$t/* \
			2>>$(B)/fuzz/smoke/$$t.log || { cat $(B)/fuzz/smoke/$$t.log; exit 1; }; fi; \
		env $$env $(B)/fuzz/fuzz_$$t $$args $(FUZZ_SMOKE_FLAGS) -seed=1 -runs=$$runs \
			-artifact_prefix=$(B)/fuzz/crash-$$t- $(B)/fuzz/smoke/$$t tests/fuzz/corpus/$$t \
			2>>$(B)/fuzz/smoke/$$t.log || { cat $(B)/fuzz/smoke/$$t.log; exit 1; }; \
		echo "fuzz-smoke: $$t: $$(ls tests/fuzz/corpus/$$t | wc -l) seeds and" \
			"$$(ls tests/fuzz/findings/$$t 2>/dev/null | wc -l) findings replayed," \
			"$$runs inputs fuzzed, no crash" \
			"($$(grep -o 'cov: [0-9]*' $(B)/fuzz/smoke/$$t.log | tail -1))"; \
	done

clean:
	rm -rf $(B)

# ---- benchmarks of the service (bench/README.md, "Service") ----------------
# make bench-http: wrk against clashd and bench/hello (the same threading
# design answering a fixed body) at 1, 8 and 64 connections, pinned and
# unpinned; then POST /v1/batch throughput against jansson's decode-only
# rate on the same bodies; small queries by ref against hello at 4
# connections; then the drag workload (bench/drag: a 50 000-vertex part
# inline against by ref) (bench/http/run.sh).
.PHONY: bench-http
bench-http:
	@sh deploy/install-deps.sh bench
	@$(MAKE) --no-print-directory all $(B)/bench/hello $(B)/bench/batch-bench $(B)/bench/drag
	sh bench/http/run.sh $(B)

# Their objects are compiled as the tests' are ($(B)/obj/%.o).
$(B)/bench/hello: $(B)/obj/bench/hello/hello.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs libmicrohttpd libuv)

$(B)/bench/drag: $(B)/obj/bench/drag/drag.o $(B)/obj/bench/mesh/meshes.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lm

$(B)/bench/batch-bench: $(B)/obj/bench/batch/batch_bench.o $(PROTO_OBJ) $(B)/libclash.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs $(PKGS_PROTO)) -lm -lpthread

# The stamps of "compiling", refreshed (last: see there).
$(foreach f,$(filter $(STAMPS),$(wildcard $(STAMPS_DIR)/*)),$(call stamp_refresh,$(notdir $f)))
