#!/usr/bin/env bash
# Installs everything topocoll needs on a Debian/Ubuntu machine, then builds it:
#   system packages (Open MPI, MPICH, libnuma, compilers) via apt-get, npm dependencies, the
#   TypeScript build and the native products for every installed MPI. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(openmpi-bin libopenmpi-dev mpich libmpich-dev libnuma-dev numactl gfortran g++ make cmake python3 python3-mpi4py hpcc iproute2)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done

if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "topocoll: missing system packages: ${missing[*]}" >&2
    echo "topocoll: this script installs them with apt-get (Debian/Ubuntu); install the equivalents with your system's package manager and re-run" >&2
    exit 1
  fi
  SUDO=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO=(sudo)
    else
      echo "topocoll: missing system packages: ${missing[*]}; run this script as root (or install sudo)" >&2
      exit 1
    fi
  fi
  echo "topocoll: installing ${missing[*]}"
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm's install script builds the native products for every installed MPI; `prepare` compiles TypeScript.
npm install --no-audit --no-fund
