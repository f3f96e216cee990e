// execute/microbench/nccl_one_rank.hpp — a one-rank NCCL communicator on the current GPU,
// with libnccl.so.2 loaded at run time (dlopen), so that collsim-gpu-microbench runs (and
// says so) where NCCL is missing: on the device tool's GPU machines NCCL may be only in the
// nvidia-nccl-cu13 pip package, which gpu-bundle's run.sh puts on LD_LIBRARY_PATH.
//
// What a one-rank allreduce does (NCCL 2.30, src/enqueue.cc and src/device/onerank.cu,
// ncclLaunchOneRank): a sum is a cudaMemcpyAsync from send to receive buffer, nothing at all
// in place; only a pre-multiplied sum (ncclRedOpCreatePreMulSum) launches a kernel. So the
// three calls below time NCCL's host-side cost of one collective (in place), that cost plus a
// copy, and that cost plus a kernel launch: the floor under every multi-rank collective.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

namespace collsim::microbench {

enum class OneRankCall { in_place_sum, sum, pre_mul_sum };

class OneRankNccl {
 public:
  // nullptr with `why_not` set where libnccl.so.2 cannot be loaded or lacks a symbol (not an
  // error: the NCCL rows are left out). Loads only: start() makes the communicator.
  static std::unique_ptr<OneRankNccl> load(std::string& why_not);
  ~OneRankNccl();
  OneRankNccl(const OneRankNccl&) = delete;
  OneRankNccl& operator=(const OneRankNccl&) = delete;

  // The one-rank communicator on `device` (ncclCommInitAll); throws collsim::Error, as every
  // NCCL call that fails below does.
  void start(int device);
  std::string version() const;  // "2.27.7"
  bool has(OneRankCall call) const;  // pre_mul_sum needs ncclRedOpCreatePreMulSum (NCCL 2.11+)
  // ncclAllReduce of `count` floats (for in_place_sum, `recv` must equal `send`).
  void allreduce(OneRankCall call, const float* send, float* recv, std::size_t count, cudaStream_t stream);

  struct Api;

 private:
  OneRankNccl() = default;
  std::unique_ptr<Api> api_;
  void* comm_ = nullptr;
  int pre_mul_sum_op_ = 0;
  bool has_pre_mul_sum_op_ = false;
};

}  // namespace collsim::microbench
