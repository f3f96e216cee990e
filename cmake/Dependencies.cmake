# Every dependency comes from a Debian package (scripts/install-deps.sh installs them).
# Required libraries fail the configure step with a clear message; optional toolchains
# (SimGrid, MPI, CUDA, Python module) switch their part off and say so.
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(tinyxml2 REQUIRED)      # MSCCL's XML IR (collectives/msccl_xml.cpp); Debian libtinyxml2-dev
find_package(Boost 1.74 REQUIRED)   # header-only Boost.Graph, used by topologies/
find_package(Threads REQUIRED)      # base/parallel_runs.cpp: predict's runs side by side
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
# CUDA (the GPU worker: validate/device, validate/cuda, validate/nccl): only where nvcc
# exists AND a test project compiles with it, so a missing or broken toolkit switches the GPU
# backends off instead of failing the configure. -DCOLLSIM_WITH_CUDA=OFF turns it off (to test that path).
option(COLLSIM_WITH_CUDA "Build collsim-gpu-worker when the CUDA toolkit is found" ON)
set(COLLSIM_CUDA_FOUND FALSE)
if(COLLSIM_WITH_CUDA AND EXISTS /usr/local/cuda/bin/nvcc)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)  # check_language honours CUDACXX, not PATH alone
  endif()
  if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER AND NOT DEFINED ENV{CUDAHOSTCXX})
    set(ENV{CUDAHOSTCXX} ${CMAKE_CXX_COMPILER})
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # Hopper: the H100 / H200 of the GPU machines
    endif()
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit QUIET)
  endif()
  if(CMAKE_CUDA_COMPILER AND TARGET CUDA::cudart)
    set(COLLSIM_CUDA_FOUND TRUE)
    message(STATUS "collsim: CUDA ${CUDAToolkit_VERSION} found (${CMAKE_CUDA_COMPILER}): collsim-gpu-worker is built")
  else()
    message(STATUS "collsim: nvcc at /usr/local/cuda cannot compile a test project: the cuda and nccl backends are off")
  endif()
elseif(NOT COLLSIM_WITH_CUDA)
  message(STATUS "collsim: COLLSIM_WITH_CUDA is OFF: the cuda and nccl backends are off")
else()
  message(STATUS "collsim: CUDA toolkit not found (/usr/local/cuda/bin/nvcc): the cuda and nccl backends are off")
endif()
# NCCL ships in /usr/local/cuda on the GPU machines; without it the worker has no nccl backend.
set(COLLSIM_NCCL_FOUND FALSE)
if(COLLSIM_CUDA_FOUND)
  find_library(COLLSIM_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
  find_path(COLLSIM_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
  if(COLLSIM_NCCL_LIBRARY AND COLLSIM_NCCL_INCLUDE_DIR)
    set(COLLSIM_NCCL_FOUND TRUE)
    message(STATUS "collsim: NCCL found (${COLLSIM_NCCL_LIBRARY}): the nccl backend is built")
  else()
    message(STATUS "collsim: NCCL not found (libnccl, nccl.h): the nccl backend is off")
  endif()
endif()

# CI (.ci/run) names the parts the set-up installs: their absence must fail the build, not
# skip their tests. -DCOLLSIM_REQUIRE=mpi,simgrid (also: cuda, python). Commas, not semicolons:
# the value passes through make and a shell, where a `;` would end the command.
set(COLLSIM_REQUIRE "" CACHE STRING "Parts that must be found (mpi, simgrid, cuda, python): configure fails otherwise")
string(REPLACE "," ";" required_parts "${COLLSIM_REQUIRE}")
foreach(part ${required_parts})
  if(part STREQUAL "mpi")
    set(found ${MPI_CXX_FOUND})
  elseif(part STREQUAL "simgrid")
    set(found ${SIMGRID_FOUND})
  elseif(part STREQUAL "cuda")
    set(found ${COLLSIM_CUDA_FOUND})
  elseif(part STREQUAL "python")
    find_package(pybind11 CONFIG QUIET)
    set(found ${pybind11_FOUND})
  else()
    message(FATAL_ERROR "COLLSIM_REQUIRE: unknown part '${part}' (mpi, simgrid, cuda, python)")
  endif()
  if(NOT found)
    message(FATAL_ERROR "collsim: '${part}' is required (COLLSIM_REQUIRE) but was not found: run `make deps` "
                        "(scripts/install-deps.sh installs it), then configure again")
  endif()
endforeach()
