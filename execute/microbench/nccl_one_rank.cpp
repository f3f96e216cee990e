// execute/microbench/nccl_one_rank.cpp — libnccl.so.2 through dlopen (see the header). The
// few types and values used are NCCL's stable C ABI, declared here rather than taken from
// nccl.h so that the microbenchmark builds where the header is absent (NCCL 2.30,
// src/nccl.h.in: ncclSuccess 0, ncclSum 0, ncclFloat32 7, ncclScalarHostImmediate 1).
#include "execute/microbench/nccl_one_rank.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim::microbench {
namespace {

using NcclResult = int;
using NcclComm = void*;
constexpr NcclResult kNcclSuccess = 0;
constexpr int kNcclSum = 0;
constexpr int kNcclFloat32 = 7;
constexpr int kNcclScalarHostImmediate = 1;

}  // namespace

struct OneRankNccl::Api {
  NcclResult (*get_version)(int*) = nullptr;
  const char* (*get_error_string)(NcclResult) = nullptr;
  NcclResult (*comm_init_all)(NcclComm*, int, const int*) = nullptr;
  NcclResult (*comm_destroy)(NcclComm) = nullptr;
  NcclResult (*all_reduce)(const void*, void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*red_op_create_pre_mul_sum)(int*, void*, int, int, NcclComm) = nullptr;
  NcclResult (*red_op_destroy)(int, NcclComm) = nullptr;

  void check(NcclResult result, const char* call) const {
    if (result != kNcclSuccess) throw Error(fmt::format("NCCL error in {}: {}", call, get_error_string(result)));
  }
};

namespace {

// Looks `name` up in `library` into `fn`; false when it is missing.
template <class Fn>
bool find_symbol(void* library, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

}  // namespace

std::unique_ptr<OneRankNccl> OneRankNccl::load(std::string& why_not) {
  void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    why_not = fmt::format("libnccl.so.2 not loadable: {}", reason != nullptr ? reason : "dlopen failed");
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  const char* missing = nullptr;
  if (!find_symbol(library, "ncclGetVersion", api->get_version)) missing = "ncclGetVersion";
  if (!find_symbol(library, "ncclGetErrorString", api->get_error_string)) missing = "ncclGetErrorString";
  if (!find_symbol(library, "ncclCommInitAll", api->comm_init_all)) missing = "ncclCommInitAll";
  if (!find_symbol(library, "ncclCommDestroy", api->comm_destroy)) missing = "ncclCommDestroy";
  if (!find_symbol(library, "ncclAllReduce", api->all_reduce)) missing = "ncclAllReduce";
  if (missing != nullptr) {
    dlclose(library);
    why_not = fmt::format("libnccl.so.2 has no {}", missing);
    return nullptr;
  }
  // Optional (NCCL 2.11 and later): without it the pre-multiplied-sum rows are left out.
  find_symbol(library, "ncclRedOpCreatePreMulSum", api->red_op_create_pre_mul_sum);
  find_symbol(library, "ncclRedOpDestroy", api->red_op_destroy);

  std::unique_ptr<OneRankNccl> nccl(new OneRankNccl);
  nccl->api_ = std::move(api);
  return nccl;
}

void OneRankNccl::start(int device) {
  api_->check(api_->comm_init_all(&comm_, 1, &device), "ncclCommInitAll");
  if (api_->red_op_create_pre_mul_sum != nullptr && api_->red_op_destroy != nullptr) {
    float one = 1.0f;  // read before the call returns (host immediate)
    api_->check(api_->red_op_create_pre_mul_sum(&pre_mul_sum_op_, &one, kNcclFloat32, kNcclScalarHostImmediate, comm_),
                "ncclRedOpCreatePreMulSum");
    has_pre_mul_sum_op_ = true;
  }
}

OneRankNccl::~OneRankNccl() {
  // Errors while tearing down are not reported: the measurements are already printed.
  if (comm_ != nullptr) {
    if (has_pre_mul_sum_op_) api_->red_op_destroy(pre_mul_sum_op_, comm_);
    api_->comm_destroy(comm_);
  }
  // The library stays mapped: a library that started threads (NCCL's proxy) must not be
  // unmapped under them, and the process ends right after.
}

std::string OneRankNccl::version() const {
  int code = 0;
  api_->check(api_->get_version(&code), "ncclGetVersion");
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z from 2.9 on (src/nccl.h.in)
  return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
}

bool OneRankNccl::has(OneRankCall call) const { return call != OneRankCall::pre_mul_sum || has_pre_mul_sum_op_; }

void OneRankNccl::allreduce(OneRankCall call, const float* send, float* recv, std::size_t count, cudaStream_t stream) {
  const int op = call == OneRankCall::pre_mul_sum ? pre_mul_sum_op_ : kNcclSum;
  api_->check(api_->all_reduce(send, recv, count, kNcclFloat32, op, comm_, stream), "ncclAllReduce");
}

}  // namespace collsim::microbench
