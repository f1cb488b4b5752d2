# Dockerfile — clashd in a container: built and tested on debian:bookworm,
# run on debian:bookworm-slim with only the shared libraries it links.
#
#   docker build -t clashd .                      # builds, runs the unit suites
#   docker build --build-arg TESTS=no -t clashd . # make only
#   docker build --secret id=ca,src=FILE -t clashd .  # behind a TLS-inspecting proxy
#   docker run --rm -p 8080:8080 clashd
#
# Both stages install with deploy/install-deps.sh, the script `make` and CI
# use (profile "test" to build and test, "runtime" for the libraries only),
# so the image is set up by the same steps as a bookworm machine.  The run
# stage has no compiler, no shell tools beyond the base image's and no curl:
# HEALTHCHECK uses clashd's own probe.  The demo page is built in the
# first stage (npm) and served by clashd from /usr/local/share/clashd/web.
# The build runs the Check suites (make check), not the fuzz, failover,
# shared-store and soak runs of make test: those belong to CI, not to
# every image build.  tests/deploy/check-image.sh (make test) checks this
# file against the Makefile, Debian and build/clashd; tests/deploy/image-test.sh
# (make image-test) builds it with podman and runs it.
#
# A network whose TLS is inspected by a proxy needs the proxy's CA: the
# build secret "ca" (a PEM file), mounted at /run/secrets/ca only while a
# RUN line naming it runs, read by apt (install-deps.sh, EXTRA_CA) and npm
# (NODE_EXTRA_CA_CERTS).  No layer holds it and the run stage never sees
# it; without the secret both use their own CAs.

FROM debian:bookworm AS build
WORKDIR /src
# The packages before the sources: their layer is reused until
# install-deps.sh changes.
COPY deploy/install-deps.sh deploy/install-deps.sh
RUN --mount=type=secret,id=ca EXTRA_CA=/run/secrets/ca sh deploy/install-deps.sh test
COPY . .
ARG TESTS=yes
# make check installs the OpenAPI validator with npm.
RUN --mount=type=secret,id=ca export NODE_EXTRA_CA_CERTS=$(ls /run/secrets/ca 2>/dev/null); \
    if [ "$TESTS" = yes ]; then make all check; else make all; fi
# The demo page (three.js and the client from npm, bundled): served at /web/.
RUN --mount=type=secret,id=ca export NODE_EXTRA_CA_CERTS=$(ls /run/secrets/ca 2>/dev/null); \
    make web

FROM debian:bookworm-slim
COPY deploy/install-deps.sh /tmp/install-deps.sh
RUN --mount=type=secret,id=ca EXTRA_CA=/run/secrets/ca sh /tmp/install-deps.sh runtime && \
    rm -rf /var/lib/apt/lists/* /tmp/install-deps.sh
COPY --from=build /src/build/clashd /usr/local/bin/clashd
COPY --from=build /src/build/web /usr/local/share/clashd/web
# Any non-root id: nothing in the image is written at run time.
USER 10001:10001
ENV CLASHD_LISTEN=:8080
# CLASHD_WEB=off serves no page.
ENV CLASHD_WEB=/usr/local/share/clashd/web
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=6s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/clashd", "--healthcheck", "http://127.0.0.1:8080/livez"]
ENTRYPOINT ["/usr/local/bin/clashd"]
