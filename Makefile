# clashd — build, run and test.
#
#   make          build build/clashd, build/clash and build/libclash.a
#   make run      install missing Debian packages, build, serve on 127.0.0.1:8080
#   make test     install missing Debian packages (with test-only ones) and the
#                 OpenAPI validator (npm, under build/), build, run every Check
#                 suite, then again under ASan+UBSan
#
# Sources are picked up by wildcard per module: core/*.c is the collision
# library, proto/*.c the JSON codec, server/*.c clashd, cli/*.c the clash tool,
# tests/check_*.c (with tests/oracle.c, tests/oracle_lp.c, tests/pairgen.c and
# tests/http_harness.c) the one Check runner.

CC       ?= cc
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
WARN      = -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
# The core is plain C11; everything above it uses POSIX and GNU interfaces.
CORE_CFLAGS = $(WARN) $(CFLAGS) -Icore
APP_CFLAGS  = $(WARN) $(CFLAGS) -D_GNU_SOURCE -Icore -Iproto -Iserver

# gnutls: clashd --healthcheck https://... (libmicrohttpd links it anyway).
PKGS_APP  = libmicrohttpd jansson libuv gnutls
PKGS_GEN  = yaml-0.1 jansson
PKGS_TEST = check qhull_r yaml-0.1
# GLPK (the n-D LP oracle of the tests) ships no pkg-config file.
LIBS_TEST = -lglpk

# GET /v1/openapi.json serves proto/openapi.yaml, converted to JSON at build
# time by a small libyaml tool and compiled into clashd.
OPENAPI_GEN = $(B)/gen/openapi_json.c
OPENAPI_OBJ = $(B)/gen/openapi_json.o
# The test suite validates that document against the OpenAPI 3.1 schema with
# this npm package (installed under build/, test-only).
VALIDATOR_PKG = @seriousme/openapi-schema-validator@2.11.0
VALIDATOR = $(B)/npm/node_modules/@seriousme/openapi-schema-validator/package.json

B        = build
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

CORE_SRC   = $(wildcard core/*.c)
PROTO_SRC  = $(wildcard proto/*.c)
SERVER_SRC = $(wildcard server/*.c)
CLI_SRC    = $(wildcard cli/*.c)
CHECK_SRC  = $(wildcard tests/check_*.c) tests/oracle.c tests/gjk88.c tests/oracle_lp.c tests/pairgen.c \
             tests/http_harness.c

CORE_OBJ   = $(CORE_SRC:%.c=$(B)/obj/%.o)
PROTO_OBJ  = $(PROTO_SRC:%.c=$(B)/obj/%.o)
SERVER_OBJ = $(SERVER_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ    = $(CLI_SRC:%.c=$(B)/obj/%.o)
CHECK_OBJ  = $(CHECK_SRC:%.c=$(B)/obj/%.o)

# The sanitized variants of the same objects, for the second test pass.
CORE_SOBJ  = $(CORE_SRC:%.c=$(B)/san/%.o)
PROTO_SOBJ = $(PROTO_SRC:%.c=$(B)/san/%.o)
CHECK_SOBJ = $(CHECK_SRC:%.c=$(B)/san/%.o)

.PHONY: all run test deps deps-test check check-san crosscheck clean
.DEFAULT_GOAL := all

all: $(B)/libclash.a $(B)/clashd $(B)/clash

deps:
	@sh deploy/install-deps.sh build

deps-test:
	@sh deploy/install-deps.sh test

run: deps
	@$(MAKE) --no-print-directory all
	exec $(B)/clashd --listen 127.0.0.1:8080

test: deps-test
	@$(MAKE) --no-print-directory all $(B)/check $(B)/check-san $(VALIDATOR)
	@$(MAKE) --no-print-directory check check-san

# Both passes run every suite; Check prints its summary line for each.
check: $(B)/check $(B)/clashd $(B)/clash $(VALIDATOR)
	CLASH_BUILD=$(B) $(B)/check
check-san: $(B)/check-san $(B)/clashd $(B)/clash $(VALIDATOR)
	CLASH_BUILD=$(B) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(B)/check-san

# The randomized cross-check of the three methods on 100 000 pairs (minutes);
# make test runs the same suite on 5000.
crosscheck: deps-test
	@$(MAKE) --no-print-directory $(B)/check
	CLASH_CROSSCHECK_PAIRS=$${CLASH_CROSSCHECK_PAIRS:-100000} CK_RUN_SUITE=crosscheck $(B)/check

$(B)/obj/core/%.o: core/%.c $(wildcard core/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -c $< -o $@
$(B)/san/core/%.o: core/%.c $(wildcard core/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) $(SAN) -c $< -o $@

$(B)/obj/%.o: %.c $(wildcard core/*.h proto/*.h server/*.h cli/*.h tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) $(shell pkg-config --cflags $(PKGS_APP)) -c $< -o $@
$(B)/san/%.o: %.c $(wildcard core/*.h proto/*.h server/*.h cli/*.h tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) $(SAN) $(shell pkg-config --cflags $(PKGS_APP)) -c $< -o $@

$(B)/libclash.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

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
$(OPENAPI_OBJ): $(OPENAPI_GEN)
	$(CC) $(APP_CFLAGS) -c $< -o $@

$(VALIDATOR):
	npm install --prefix $(B)/npm --no-save --no-audit --no-fund --loglevel=error \
		$(VALIDATOR_PKG)

$(B)/clash: $(CLI_OBJ) $(PROTO_OBJ) $(B)/libclash.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(PROTO_OBJ) $(B)/libclash.a \
		$(shell pkg-config --libs jansson) -lm

$(B)/check: $(CHECK_OBJ) $(PROTO_OBJ) $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs $(PKGS_TEST) jansson) $(LIBS_TEST) -lm -lpthread

$(B)/check-san: $(CHECK_SOBJ) $(PROTO_SOBJ) $(CORE_SOBJ)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(shell pkg-config --libs $(PKGS_TEST) jansson) $(LIBS_TEST) -lm -lpthread

clean:
	rm -rf $(B)

# ---- benchmarks of the service (bench/README.md, "Service") ----------------
# make bench-http: wrk against clashd and bench/hello (the same threading
# design answering a fixed body) at 1, 8 and 64 connections, pinned and
# unpinned; then POST /v1/batch throughput against jansson's decode-only
# rate on the same bodies (bench/http/run.sh).
BENCH_APP_CFLAGS = $(APP_CFLAGS) $(shell pkg-config --cflags $(PKGS_APP))

.PHONY: bench-http
bench-http:
	@sh deploy/install-deps.sh bench
	@$(MAKE) --no-print-directory all $(B)/bench/hello $(B)/bench/batch-bench
	sh bench/http/run.sh $(B)

$(B)/bench/hello: bench/hello/hello.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_APP_CFLAGS) $< -o $@ $(shell pkg-config --libs libmicrohttpd libuv)

$(B)/bench/batch-bench: bench/batch/batch_bench.c $(PROTO_OBJ) $(B)/libclash.a
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_APP_CFLAGS) $< $(PROTO_OBJ) $(B)/libclash.a -o $@ \
		$(shell pkg-config --libs jansson) -lm -lpthread
