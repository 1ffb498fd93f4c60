#!/bin/bash
# Brings up an emulated cluster: up.sh NAME HOSTS RATE SUBNET SLOTS
#   NAME    cluster name (namespaces NAME-h0.., NAME-sw)
#   HOSTS   number of hosts (network namespaces)
#   RATE    tc rate of every host link, each direction (e.g. 1gbit, 500mbit)
#   SUBNET  first three octets of the cluster's private /24 (e.g. 10.77.0); it exists only
#           inside the cluster's namespaces
#   SLOTS   ranks per host in the hostfile
# On any failure everything created so far is removed again.
. "$(dirname "$0")/common.sh"

NAME=$1 HOSTS=$2 RATE=$3 SUBNET=$4 SLOTS=$5
check_name "$NAME"
[ "$(id -u)" = 0 ] || die "needs root (network namespaces, tc)"
[ -z "$(cluster_namespaces "$NAME")" ] && [ ! -e "$(state_dir "$NAME")" ] ||
  die "cluster \"$NAME\" is already up (or half up): run \`topocoll cluster down --name $NAME\` first"

trap 'status=$?; if [ $status -ne 0 ]; then echo "topocoll cluster: bringing up \"$NAME\" failed; removing what was created" >&2; "$SCRIPTS_DIR/down.sh" "$NAME" >/dev/null 2>&1 || true; fi' EXIT
# Interrupted (Ctrl-C, kill): exit through the EXIT trap above, which removes what was made.
trap 'exit 130' INT TERM HUP

SW=$(switch_name "$NAME")
MASK=$(all_cpus_mask)
# tbf: burst above veth's 64 KiB GSO packets (else the rate falls short); packets wait at most
# 20 ms in the queue.
TBF="tbf rate $RATE burst 80kb latency 20ms"

mkdir -p "$(state_dir "$NAME")"
ip netns add "$SW"
ip -n "$SW" link set lo up
ip -n "$SW" link add br0 type bridge
ip -n "$SW" link set br0 up

HOSTS_FILE="127.0.0.1 localhost"
for i in $(seq 0 $((HOSTS - 1))); do
  HOSTS_FILE="$HOSTS_FILE
$SUBNET.$((i + 1)) $(host_name "$NAME" "$i")"
done

for i in $(seq 0 $((HOSTS - 1))); do
  H=$(host_name "$NAME" "$i")
  ip netns add "$H"
  ip -n "$H" link set lo up
  # The veth pair is born in the two namespaces: eth0 in the host, h<i> on the switch.
  ip link add eth0 netns "$H" type veth peer name "h$i" netns "$SW"
  ip -n "$SW" link set "h$i" master br0
  ip -n "$SW" link set "h$i" up
  ip -n "$H" addr add "$SUBNET.$((i + 1))/24" dev eth0
  ip -n "$H" link set eth0 up
  # Shaping in both directions: host -> switch on eth0, switch -> host on h<i>.
  ip netns exec "$H" tc qdisc add dev eth0 root $TBF
  ip netns exec "$SW" tc qdisc add dev "h$i" root $TBF
  # Receive Packet Steering on both ends: without it one CPU takes every packet of a veth and
  # TCP sees reordering (about 40% less throughput).
  ip netns exec "$H" sh -c "echo $MASK > /sys/class/net/eth0/queues/rx-0/rps_cpus"
  ip netns exec "$SW" sh -c "echo $MASK > /sys/class/net/h$i/queues/rx-0/rps_cpus"
  mkdir -p "/etc/netns/$H"
  printf '%s\n' "$HOSTS_FILE" > "/etc/netns/$H/hosts"
done

{
  for i in $(seq 0 $((HOSTS - 1))); do echo "$(host_name "$NAME" "$i") slots=$SLOTS"; done
} > "$(state_dir "$NAME")/hostfile"
cat > "$(state_dir "$NAME")/cluster.env" <<STATE
NAME=$NAME
HOSTS=$HOSTS
RATE=$RATE
SUBNET=$SUBNET
SLOTS=$SLOTS
STATE
echo "topocoll cluster: \"$NAME\" is up: $HOSTS hosts $(host_name "$NAME" 0) .. $(host_name "$NAME" $((HOSTS - 1))), $SUBNET.0/24, every link shaped to $RATE each way, $SLOTS slots per host"
