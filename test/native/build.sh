#!/bin/sh
# Builds and runs the standalone (MPI-free) native tests and benchmarks of the rank-mapping core
# (native/engine/mapping/*.cc; the engine-facing mapping/remap/ is tested through the addon) and
# the tests of the engine's JSON reader (native/engine/topology/json.cc), topology-file reader
# (native/engine/topology/topology.cc), rules-file reader
# (native/engine/rules.cc) and configuration (native/engine/config.cc). config.cc includes
# <mpi.h>, so its test alone compiles with an MPI wrapper's flags and links the MPI library
# (it never initializes MPI): TOPOCOLL_MPICC names the wrapper, else mpicc.openmpi, else mpicc
# (Open MPI's --showme or MPICH's -compile_info).
#   test/native/build.sh            build, run the tests, run the benchmark
#   test/native/build.sh --no-bench build and run the tests only
#   test/native/build.sh --bench-only [bench args]  build and run the benchmark only
# Output goes to build-native-tests/ (ignored by git through build-*/); objects are rebuilt only
# when their source or a header of the mapping core is newer.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/build-native-tests"
mkdir -p "$out/obj"
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:-"-O2 -std=c++17 -Wall -Wextra -Wno-unused-parameter"}
mode=${1:-}
[ $# -gt 0 ] && shift
newest_header=$(ls -t "$root"/native/engine/mapping/*.h | head -n 1)
for src in "$root"/native/engine/mapping/*.cc; do
  obj="$out/obj/$(basename "$src" .cc).o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then echo "$src $obj"; fi
done | xargs -r -n 2 -P "$(nproc)" sh -c "$CXX $CXXFLAGS -I'$root/native/engine' -pthread -c \"\$0\" -o \"\$1\""
objects=""
for src in "$root"/native/engine/mapping/*.cc; do objects="$objects $out/obj/$(basename "$src" .cc).o"; done
if [ "$mode" != "--bench-only" ]; then
  # shellcheck disable=SC2086
  $CXX $CXXFLAGS -I"$root/native/engine" -I"$root/test/native" -pthread -o "$out/partitioner_test" "$root/test/native/partitioner_test.cc" $objects
  "$out/partitioner_test"
  $CXX $CXXFLAGS -I"$root/native/engine" -I"$root/test/native" -o "$out/json_test" "$root/test/native/json_test.cc" "$root/native/engine/topology/json.cc"
  "$out/json_test"
  $CXX $CXXFLAGS -I"$root/native/engine" -I"$root/test/native" -o "$out/rules_test" "$root/test/native/rules_test.cc" \
    "$root/native/engine/rules.cc" "$root/native/engine/choice.cc" "$root/native/engine/topology/json.cc" \
    "$root/native/engine/algorithm_registry.cc"
  "$out/rules_test"
  $CXX $CXXFLAGS -I"$root/native/engine" -I"$root/test/native" -o "$out/topology_test" "$root/test/native/topology_test.cc" \
    "$root/native/engine/topology/topology.cc" "$root/native/engine/topology/json.cc" "$root/native/engine/hierarchy/node_override.cc"
  "$out/topology_test"
  mpicc=${TOPOCOLL_MPICC:-$(command -v mpicc.openmpi || command -v mpicc || echo mpicc)}
  if mpi_compile=$("$mpicc" --showme:compile 2>/dev/null); then
    mpi_link=$("$mpicc" --showme:link)
  else
    mpi_compile=$("$mpicc" -compile_info | cut -d' ' -f2-)
    mpi_link=$("$mpicc" -link_info | cut -d' ' -f2-)
  fi
  # shellcheck disable=SC2086
  $CXX $CXXFLAGS -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1 -I"$root/native/engine" -I"$root/test/native" $mpi_compile \
    -o "$out/config_test" "$root/test/native/config_test.cc" "$root/native/engine/config.cc" "$root/native/engine/rules.cc" \
    "$root/native/engine/load_config.cc" "$root/native/engine/choice.cc" \
    "$root/native/engine/topology/json.cc" "$root/native/engine/algorithm_registry.cc" \
    "$root/native/engine/hierarchy/node_override.cc" $mpi_link
  "$out/config_test"
fi
if [ "$mode" != "--no-bench" ]; then
  # shellcheck disable=SC2086
  $CXX $CXXFLAGS -I"$root/native/engine" -pthread -o "$out/partitioner_bench" "$root/bench/native/partitioner_bench.cc" $objects
  "$out/partitioner_bench" "$@"
fi
