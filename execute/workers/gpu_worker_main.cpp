// execute/workers/gpu_worker_main.cpp — collsim-gpu-worker JOB.json OUT.json: started by
// `collsim run --backend cuda|nccl` (one process drives every rank; execute/launcher.hpp).
// JOB is the same job the MPI worker gets (run, or calibrate for cuda: cuda_calibration.hpp);
// OUT receives the measurements or the calibration samples. An error is
// one line "collsim-gpu-worker: error: ..." on stderr and exit status 2, which the launcher
// turns into collsim's one-line error (e.g. "no CUDA device: ..." on a machine without one).
// `collsim-gpu-worker --version` names the backends this build has (used by the tests).
// Fault injection for the tests (hidden): COLLSIM_FAULT=rank-exit | rank-hang | corrupt-reduction.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "base/error.hpp"
#include "execute/cuda/cuda_calibration.hpp"
#include "execute/cuda/cuda_executor.hpp"
#ifdef COLLSIM_WITH_NCCL
#include "execute/nccl/nccl_executor.hpp"
#endif

namespace {

using namespace collsim;

#ifdef COLLSIM_WITH_NCCL
constexpr const char* kBackends = "cuda, nccl";
#else
constexpr const char* kBackends = "cuda";
#endif

std::vector<Measurement> run_backend(const ExecutionJob& job) {
  if (job.backend == "cuda") return run_cuda_job(job);
#ifdef COLLSIM_WITH_NCCL
  if (job.backend == "nccl") return run_nccl_job(job);
#else
  if (job.backend == "nccl")
    throw Error("backend 'nccl' is not built: collsim-gpu-worker was configured without NCCL (libnccl, nccl.h)");
#endif
  if (job.backend == "mpi+cuda")
    throw Error("backend 'mpi+cuda' runs in collsim-mpi-cuda-worker, one MPI process per rank (this worker runs cuda and nccl)");
  throw Error(fmt::format("backend '{}' is not a GPU backend (this worker runs: {})", job.backend, kBackends));
}

void work(const std::string& job_path, const std::string& out_path) {
  std::ifstream file(job_path);
  if (!file) throw Error("cannot read " + job_path);
  const nlohmann::json job = nlohmann::json::parse(file);
  nlohmann::json out;
  if (job.at("mode") == "calibrate") {
    if (job.at("backend") != "cuda") throw Error("backend '" + job.at("backend").get<std::string>() + "' has no calibration of its own: calibrate with cuda");
    const CalibrationPlan plan{job.at("max_bytes").get<std::uint64_t>(), job.at("seconds_per_point").get<double>()};
    out["calibration"] = to_json(measure_cuda_calibration(plan, job.at("ranks").get<Rank>()));
  } else {
    out["measurements"] = nlohmann::json::array();
    for (const Measurement& m : run_backend(job_from_json(job))) out["measurements"].push_back(to_json(m));
  }
  std::ofstream answer(out_path);
  answer << out.dump() << '\n';
  if (!answer) throw Error("cannot write " + out_path);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
      std::printf("collsim-gpu-worker: backends %s\n", kBackends);
      return 0;
    }
    if (argc != 3) throw Error("usage: collsim-gpu-worker JOB.json OUT.json (started by collsim)");
    work(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collsim-gpu-worker: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
