// execute/mpi/worker_main.cpp — collsim-mpi-worker JOB.json OUT.json: one MPI process per
// rank, started by `collsim run|calibrate|validate --backend mpi` through mpirun (see
// execute/launcher.hpp). Built a second time, with CUDA, as collsim-mpi-cuda-worker for
// `--backend mpi+cuda`: each rank's buffer then lives on GPU (local rank) % (visible GPUs).
// JOB says what to do ("mode": "run" or "calibrate"); rank 0 writes
// the measurements to OUT. An error is one line "collsim-mpi-worker: error: ..." on stderr
// and exit status 2; the launcher turns it into collsim's one-line error.
// Fault injection for the tests (hidden): COLLSIM_FAULT=rank-exit | rank-hang |
// corrupt-reduction makes rank 1 exit early, hang, or corrupt its first reduction, and
// reducer-exit makes the first process after the ranks (an emulated switch) exit early; for
// mpi+cuda, COLLSIM_DEVICE=emulated | emulated-direct puts the buffers in host memory behind
// an emulated stream (execute/device/device_stream.hpp), messages staged or read directly, so the
// mpi+cuda path is tested where there is no GPU.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "base/error.hpp"
#include "base/interrupt.hpp"
#include "execute/mpi/mpi_calibration.hpp"
#include "execute/mpi/mpi_executor.hpp"
#include "execute/progress.hpp"
#ifdef COLLSIM_WITH_CUDA_DEVICE
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, where this MPI defines it

#include "execute/device/cuda_check.hpp"
#include "execute/device/cuda_device_stream.hpp"
#endif

namespace {

using namespace collsim;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string line(text, std::size_t(length));
  line = line.substr(0, line.find_first_of("\r\n,"));
  return line;
}

// Applies COLLSIM_FAULT on the process it targets (rank 1, or for reducer-exit the first
// process after the job's `ranks`); returns the faults the executor should apply.
Faults inject_faults(const nlohmann::json& job) {
  const char* fault = std::getenv("COLLSIM_FAULT");
  if (!fault) return {};
  const std::string what = fault;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int target = what == "reducer-exit" ? job.at("ranks").get<int>() : std::min(1, size - 1);
  if (world_rank() != target) return {};
  if (what == "rank-exit" || what == "reducer-exit") _exit(3);  // dies without MPI_Finalize, as a crashed rank would
  if (what == "rank-hang")
    for (;;) pause();
  if (what == "corrupt-reduction") return {.corrupt_first_reduction = true};
  throw Error("unknown COLLSIM_FAULT '" + what + "'");
}

#ifdef COLLSIM_WITH_CUDA_DEVICE
int local_rank() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

// Whether MPI may be handed device pointers; asked at run time where the MPI can tell.
bool cuda_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}
#endif

// Where the ranks' buffers live: host memory for mpi, a device for mpi+cuda.
DeviceFactory device_factory(const std::string& backend) {
  if (backend == "mpi") return {};
  if (backend != "mpi+cuda") throw Error("backend '" + backend + "' is not an MPI backend");
  const char* emulated = std::getenv("COLLSIM_DEVICE");
  if (emulated) {
    const std::string what = emulated;
    if (what != "emulated" && what != "emulated-direct") throw Error("unknown COLLSIM_DEVICE '" + what + "'");
    const bool direct = what == "emulated-direct";
    return [direct] { return std::make_unique<EmulatedDeviceStream>(direct); };
  }
#ifdef COLLSIM_WITH_CUDA_DEVICE
  const int device = local_rank() % visible_device_count();
  const bool aware = cuda_aware_mpi();
  return [device, aware] { return std::make_unique<CudaDeviceStream>(device, aware); };
#else
  throw Error("backend 'mpi+cuda' is not built into collsim-mpi-worker (use collsim-mpi-cuda-worker)");
#endif
}

void write_output(const std::string& path, const nlohmann::json& out) {
  if (world_rank() != 0) return;
  std::ofstream file(path);
  file << out.dump() << '\n';
  if (!file) throw Error("cannot write " + path);
}

// Rank 0 reads the job and sends it to every rank: only rank 0 needs to see the launcher's
// temporary folder, so ranks on other nodes need no shared file system.
nlohmann::json read_job(const std::string& job_path) {
  std::string text;
  if (world_rank() == 0) {
    std::ifstream file(job_path);
    if (!file) throw Error("cannot read " + job_path);
    text.assign(std::istreambuf_iterator<char>(file), {});
  }
  int length = int(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  text.resize(std::size_t(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return nlohmann::json::parse(text);
}

void work(const std::string& job_path, const std::string& out_path) {
  const nlohmann::json job = read_job(job_path);
  const Faults faults = inject_faults(job);
  nlohmann::json out;
  if (job.at("mode") == "calibrate") {
    CalibrationPlan plan{job.at("max_bytes").get<std::uint64_t>(), job.at("seconds_per_point").get<double>()};
    CalibrationSamples samples = measure_mpi_calibration(plan);
    samples.library = library_version();
    out["calibration"] = to_json(samples);
  } else {
    out["measurements"] = nlohmann::json::array();
    const ExecutionJob execution = job_from_json(job);
    const DeviceFactory device = device_factory(execution.backend);
    ProgressBeacon progress(job.value("progress_folder", std::string()), Rank(world_rank()));
    for (const Measurement& m : run_mpi_job(execution, faults, device, progress)) out["measurements"].push_back(to_json(m));
  }
  write_output(out_path, out);
}

}  // namespace

int main(int argc, char** argv) {
  die_with_parent(SIGKILL);  // a worker never outlives its mpirun (a killed mpirun included)
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    if (argc != 3) throw Error("usage: collsim-mpi-worker JOB.json OUT.json (started by collsim)");
    work(argv[1], argv[2]);
  } catch (const AgreedFailure&) {
    status = 2;  // every rank agreed; the rank that found it has printed the error
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collsim-mpi-worker: error: %s\n", e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return status;
}
