#!/bin/bash
# Removes an emulated cluster: down.sh NAME. Ends processes still running in its namespaces
# (left by a failed run), deletes the namespaces (their veth links and the bridge go with them),
# the per-host /etc/netns files and the state. Safe to run on a cluster that is half up or gone.
. "$(dirname "$0")/common.sh"

NAME=$1
check_name "$NAME"
for ns in $(cluster_namespaces "$NAME"); do
  for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null || true; done
done
for ns in $(cluster_namespaces "$NAME"); do
  for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  ip netns del "$ns"
done
rm -rf /etc/netns/"$NAME"-h[0-9]* "$(state_dir "$NAME")"
rmdir /etc/netns 2>/dev/null || true
left=$(cluster_namespaces "$NAME")
[ -z "$left" ] || die "could not remove namespaces: $left"
echo "topocoll cluster: \"$NAME\" is down"
