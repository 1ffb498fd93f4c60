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

# Node.js itself is not installed here: check that the one on PATH is one topocoll is tested on
# (package.json's engines.node, ">=MAJOR.MINOR").
if ! command -v node >/dev/null 2>&1; then
  echo "topocoll: Node.js is not installed; install Node.js $(sed -n 's/.*"node": *"\(.*\)".*/\1/p' package.json) and re-run" >&2
  exit 1
fi
node -e '
const want = require("./package.json").engines.node;
const m = /^>=(\d+)\.(\d+)$/.exec(want);
const [major, minor] = process.versions.node.split(".").map(Number);
if (m && (major < +m[1] || (major === +m[1] && minor < +m[2]))) {
  console.error(`topocoll: Node.js ${process.version} is too old; topocoll needs Node.js ${want} (engines in package.json)`);
  process.exit(1);
}'

# npm dependencies. The package's `install` script builds the native products for every installed
# MPI and `prepare` compiles TypeScript; `npm ci` and `npm install` run both.
# With a lock file, `npm ci` installs exactly the locked tree and fails when package.json and
# package-lock.json disagree, so a fresh clone (and CI, .ci/run) gets what was committed. `npm ci`
# deletes node_modules first, though: when node_modules already holds the locked tree (npm's record
# of it, node_modules/.package-lock.json, has the lock's entries: scripts/lockfile.mjs), a re-run
# keeps it and runs only the package's own `install` and `prepare`. Delete node_modules to force
# `npm ci`; after changing package.json, run `npm install` to update the lock.
if [ -f package-lock.json ]; then
  if node scripts/lockfile.mjs installed; then
    echo "topocoll: node_modules matches package-lock.json; running the package's install and prepare scripts only"
    npm run install && npm run prepare
  else
    npm ci --no-audit --no-fund
  fi
else
  npm install --no-audit --no-fund
fi
