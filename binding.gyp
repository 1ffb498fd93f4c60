{
  # Two products, built against the MPI chosen by TOPOCOLL_MPI (default Open MPI):
  #   libtopocoll.so      the engine and the MPI_* interposition layer (LD_PRELOAD for C/Fortran)
  #   topocoll_native.node the Node addon, a thin layer linked against libtopocoll.so
  # Source lists come from scripts/native-sources.mjs, shared with CMakeLists.txt.
  "variables": {
    "mpi_flavour": "<!(node scripts/mpi-flags.mjs flavour)",
  },
  "target_defaults": {
    "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++1y", "-std=gnu++14"],
    "cflags_cc": ["-std=c++17", "-fexceptions", "-O2", "-fno-semantic-interposition", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"],
    "defines": ["OMPI_SKIP_MPICXX=1", "MPICH_SKIP_MPICXX=1", "TOPOCOLL_MPI_FLAVOUR=\"<(mpi_flavour)\""],
    "include_dirs": ["<!@(node scripts/mpi-flags.mjs include)", "native/engine"],
    "libraries": ["<!@(node scripts/mpi-flags.mjs libs)", "-lnuma"],
    "ldflags": ["<!@(node -e \"import('./scripts/mpi.mjs').then(m => console.log(m.mpiFlags(m.requestedFlavour()).libDirs.map(d => '-L' + d).join(' ')))\")"],
  },
  "targets": [
    {
      "target_name": "libtopocoll",
      "product_name": "topocoll",
      "product_prefix": "lib",
      "type": "shared_library",
      "sources": ["<!@(node scripts/native-sources.mjs engine)"],
      # Calls inside the library bind to its own functions, not through the PLT (~2 ns a
      # collective); it never calls its own MPI_* (only PMPI_* and the next definition, by dlsym).
      "ldflags": ["-Wl,-Bsymbolic-functions"],
    },
    {
      "target_name": "topocoll_native",
      "type": "loadable_module",
      "dependencies": ["libtopocoll"],
      "sources": ["<!@(node scripts/native-sources.mjs addon)"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "ldflags": ["-Wl,-rpath,'$$ORIGIN'", "-Wl,-rpath,'$$ORIGIN/lib.target'"],
    },
  ],
}
