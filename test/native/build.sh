#!/bin/sh
# Builds and runs the standalone (MPI-free) native tests and benchmarks of the rank-mapping core.
#   test/native/build.sh            build, run the tests, run the benchmark
#   test/native/build.sh --no-bench build and run the tests only
# Output binaries go to build-native-tests/ (ignored by git through build-*/).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/build-native-tests"
mkdir -p "$out"
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:-"-O2 -std=c++17 -Wall -Wextra -Wno-unused-parameter"}
sources=$(ls "$root"/native/engine/mapping/*.cc)
# shellcheck disable=SC2086
$CXX $CXXFLAGS -I"$root/native/engine" -pthread -o "$out/partitioner_test" "$root/test/native/partitioner_test.cc" $sources
# shellcheck disable=SC2086
$CXX $CXXFLAGS -I"$root/native/engine" -pthread -o "$out/partitioner_bench" "$root/bench/native/partitioner_bench.cc" $sources
"$out/partitioner_test"
if [ "${1:-}" != "--no-bench" ]; then
  "$out/partitioner_bench"
fi
