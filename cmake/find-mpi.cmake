# Lists every MPI installation found (cmake/TopocollMPI.cmake), one JSON object per line, first
# the one a plain CMake build would use; exits 1 with the places tried when there is none.
#   cmake [-DMPICC=/path/to/mpicc] [-DMPI_HOME=DIR] -P cmake/find-mpi.cmake
cmake_minimum_required(VERSION 3.18)
include("${CMAKE_CURRENT_LIST_DIR}/TopocollMPI.cmake")

topocoll_find_mpis(mpis)
if(NOT mpis)
  topocoll_mpi_not_found_message(msg)
  # Plain text on stderr (FATAL_ERROR would rewrap it), then a failing exit.
  message(NOTICE "${msg}")
  message(FATAL_ERROR "no MPI found")
endif()
foreach(r IN LISTS mpis)
  topocoll_mpi_json(line ${r})
  # message() writes to stderr; echo gives a clean stdout.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E echo "${line}")
endforeach()
