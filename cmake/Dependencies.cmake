# Every dependency comes from a Debian package (scripts/install-deps.sh installs them).
# Required libraries fail the configure step with a clear message; optional toolchains
# (SimGrid, MPI, CUDA, Python module) switch their part off and say so.
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Boost 1.74 REQUIRED)   # header-only Boost.Graph, used by topologies/
if(COLLSIM_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
  include(Catch)
endif()

# yaml-cpp 0.7 on Debian exports the target as 'yaml-cpp' without a namespace.
if(TARGET yaml-cpp AND NOT TARGET yaml-cpp::yaml-cpp)
  add_library(yaml-cpp::yaml-cpp ALIAS yaml-cpp)
endif()

# Optional parts, used by later stages of the project. Each reports whether it is on.
# -DCOLLSIM_WITH_SIMGRID=OFF builds without SimGrid even where it is installed (to test that path).
option(COLLSIM_WITH_SIMGRID "Build the simgrid engine when SimGrid is found" ON)
find_package(PkgConfig QUIET)
set(SIMGRID_FOUND FALSE)
if(PkgConfig_FOUND AND COLLSIM_WITH_SIMGRID)
  pkg_check_modules(SIMGRID QUIET IMPORTED_TARGET simgrid)
endif()
if(SIMGRID_FOUND)
  message(STATUS "collsim: SimGrid ${SIMGRID_VERSION} found (engine 'simgrid' is built)")
elseif(NOT COLLSIM_WITH_SIMGRID)
  message(STATUS "collsim: COLLSIM_WITH_SIMGRID is OFF: the simgrid engine is off")
else()
  message(STATUS "collsim: SimGrid not found (libsimgrid-dev): the simgrid engine is off")
endif()
find_package(MPI QUIET COMPONENTS CXX)
if(MPI_CXX_FOUND)
  message(STATUS "collsim: MPI found (mpi backend can be built)")
else()
  message(STATUS "collsim: MPI not found (libopenmpi-dev): the mpi backend is off")
endif()
if(EXISTS /usr/local/cuda/bin/nvcc)
  message(STATUS "collsim: CUDA toolkit found at /usr/local/cuda")
else()
  message(STATUS "collsim: CUDA toolkit not found: the cuda and nccl backends are off")
endif()
