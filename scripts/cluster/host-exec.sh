#!/bin/bash
# Runs a command on an emulated host: host-exec.sh HOST CMD [ARGS...]: inside the host's network
# namespace (its /etc/hosts mounted by ip netns exec) with its own hostname (a UTS namespace).
set -eu
HOST=$1
shift
[ -e "/run/netns/$HOST" ] || { echo "topocoll cluster: no emulated host \"$HOST\" (is the cluster up?)" >&2; exit 255; }
exec ip netns exec "$HOST" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$HOST" "$@"
