#!/bin/sh
# Open MPI's rsh agent (plm_rsh_agent) and MPICH hydra's launcher (-launcher-exec) for the
# emulated cluster: "ssh HOST COMMAND" becomes entering HOST's namespaces. Like ssh, the
# command words are joined and run by a shell (the launchers send "VAR=...; export VAR; orted ...").
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done  # ssh options (-x) mean nothing here
[ $# -ge 2 ] || { echo "usage: rsh-agent.sh HOST COMMAND..." >&2; exit 255; }
HOST=$1
shift
exec "$(dirname "$0")/host-exec.sh" "$HOST" sh -c "$*"
