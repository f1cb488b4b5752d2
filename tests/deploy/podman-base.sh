# podman-base.sh — what the podman checks share, sourced by
# tests/deploy/image-test.sh (make image-test) and tests/deploy/run-check.sh
# (make run-check): how podman runs on this host, the debian:bookworm bases,
# the extra CA the host trusts, and a container's SIGTERM.
#
# Before sourcing: dir (the check's work directory), say and fail (its
# output), keep (set empty: the bases' image id lands there when they are
# made now, so a cleanup of "every image this run made" keeps them).
#
# The host offers Debian's podman with runc (crun cannot use this host's
# hybrid cgroups), container ulimits at or below the host's (no
# CAP_SYS_RESOURCE to raise them), the host's network for builds, and no
# image registry: debian:bookworm and debian:bookworm-slim are one
# `mmdebstrap --variant=minbase bookworm` tree imported into podman, made
# once and kept in its storage like a pulled base (make image-clean
# removes them).  The extra CA is that of a TLS-inspecting proxy (IMAGE_CA,
# "" for none, else /usr/local/share/ca-certificates/*.crt, else
# NODE_EXTRA_CA_CERTS): npm and an https apt mirror need it in a container.

base=docker.io/library/debian
pm="podman --runtime runc"
limits="--ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
since() { echo $(($(date +%s) - $1)); }

# Makes the bases unless podman has them.
podman_bases() {
	if podman image exists $base:bookworm && podman image exists $base:bookworm-slim; then return 0; fi
	command -v mmdebstrap >/dev/null 2>&1 || fail "no mmdebstrap (sh deploy/install-deps.sh test)"
	_t=$(date +%s)
	mmdebstrap --variant=minbase bookworm "$dir/bookworm.tar" >"$dir/mmdebstrap.log" 2>&1 ||
		fail "mmdebstrap (see $dir/mmdebstrap.log)"
	podman import "$dir/bookworm.tar" $base:bookworm >/dev/null
	podman tag $base:bookworm $base:bookworm-slim
	rm -f "$dir/bookworm.tar"
	keep=$(podman images -q --no-trunc $base:bookworm)
	say "bases $base:bookworm and :bookworm-slim made with mmdebstrap in $(since "$_t") s"
}

# SIGTERM to container $1, run by the background job $2 whose output is
# the file $3: it exits 0 and clashd drained.
podman_sigterm() {
	podman kill --signal TERM "$1" >/dev/null
	_rc=0
	wait "$2" || _rc=$?
	[ $_rc = 0 ] || fail "after SIGTERM the container exited $_rc (see $3)"
	grep -q '"msg":"draining"' "$3" || fail "no drain in $3"
}

# Sets ca to the extra CA's file ("" for none).
podman_ca() {
	if [ -n "${IMAGE_CA+set}" ]; then
		ca=$IMAGE_CA
	elif ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
		cat /usr/local/share/ca-certificates/*.crt >"$dir/extra-ca.pem"
		ca=$dir/extra-ca.pem
	else
		ca=${NODE_EXTRA_CA_CERTS:-}
	fi
	[ -z "$ca" ] || [ -r "$ca" ] || fail "the CA file $ca cannot be read"
}
