# Shared by the emulated cluster's scripts (sourced). A cluster NAME is:
#   network namespaces NAME-h0 .. NAME-h<N-1>  the hosts (hostname = namespace name)
#   network namespace  NAME-sw                 the switch: a bridge with one port per host
#   /etc/netns/NAME-h<i>/hosts                 each host's /etc/hosts (ip netns exec mounts it)
#   /run/topocoll-cluster/NAME/                state: cluster.env, hostfile
# Nothing is created in, or routed to, the machine's own network namespace.
set -eu

STATE_ROOT=/run/topocoll-cluster
SCRIPTS_DIR=$(cd "$(dirname "$0")" && pwd)

die() {
  echo "topocoll cluster: $*" >&2
  exit 1
}

check_name() {
  case "$1" in
    '' | *[!a-z0-9]*) die "cluster name \"$1\" is not valid: use lowercase letters and digits (at most 8)" ;;
  esac
  [ "${#1}" -le 8 ] || die "cluster name \"$1\" is too long: at most 8 characters"
}

state_dir() { echo "$STATE_ROOT/$1"; }
host_name() { echo "$1-h$2"; }
switch_name() { echo "$1-sw"; }

# Every namespace of cluster $1 that exists now (hosts and switch).
cluster_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$1-(h[0-9]+|sw)\$" || true
}

# rps_cpus mask with every CPU set: comma-separated 32-bit hex words, most significant first.
all_cpus_mask() {
  n=$(nproc --all)
  mask=""
  while [ "$n" -gt 0 ]; do
    bits=$((n >= 32 ? 32 : n))
    word=$(printf '%x' $(((1 << bits) - 1)))
    mask="$word${mask:+,}$mask"
    n=$((n - bits))
  done
  echo "$mask"
}
