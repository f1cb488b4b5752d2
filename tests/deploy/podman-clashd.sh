#!/bin/sh
# podman-clashd.sh — clashd from the image in a container run as
# deploy/k8s/deployment.yaml runs it, as a process a test can start, signal
# and wait for (tests/deploy/image-test.sh, make image-test).
#
#   podman-clashd.sh CLASHD-ARGS...      run the image with these arguments,
#                                        in the foreground, on the host's network
#   podman-clashd.sh --own-network       the same in a network namespace of its
#                                        own (as a pod), :8080 published on a
#                                        free loopback port (podman port NAME)
#   podman-clashd.sh --signal SIG NAME   send SIG to the clashd of replica NAME
#
# Environment: CLASH_IMAGE (the image), CLASH_REPLICA (the replica's name:
# the container is clashd-image-test-NAME), CLASH_REDIS (a Redis URL,
# given as CLASHD_STORE_REDIS, optional).
#
# In the foreground `podman run` passes SIGTERM on to clashd and exits with
# its status, so the failover test can start, drain and wait for a replica
# as for a process; a SIGKILL would kill podman and leave the container
# running: --signal sends it to the clashd inside (build/failover's
# CLASH_SIGNAL).  The pod's securityContext: uid and gid 10001, a
# read-only root with no tmpfs (podman's --read-only adds some, a pod has
# none), every capability dropped, no privilege escalation, the default
# seccomp profile; its memory limit.  runc and ulimits at or below the
# host's: see image-test.sh.
set -eu
prefix=clashd-image-test-
net="--network host"
if [ "${1:-}" = --own-network ]; then net="-p 127.0.0.1::8080"; shift; fi
if [ "${1:-}" = --signal ]; then
	exec podman --runtime runc kill --signal "$2" "$prefix$3" >/dev/null
fi
: "${CLASH_IMAGE:?podman-clashd.sh: CLASH_IMAGE names no image}"
: "${CLASH_REPLICA:?podman-clashd.sh: CLASH_REPLICA names no replica}"
exec podman --runtime runc run --rm --name "$prefix$CLASH_REPLICA" --label clashd-image-test \
	$net --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
	--user 10001:10001 --read-only --read-only-tmpfs=false --cap-drop all \
	--security-opt no-new-privileges --memory 512m \
	${CLASH_REDIS:+-e CLASHD_STORE_REDIS=$CLASH_REDIS} \
	"$CLASH_IMAGE" "$@"
