// execute/microbench/gpu_microbench_main.cpp — collsim-gpu-microbench [--repeats N]
// [--max-bytes SIZE] [--no-nccl]: the GPU facts the runtime model needs (docs/design.md, "What
// real libraries do"), measured on GPU 0 and printed as CSV on stdout. Not an allreduce:
//   - launch and synchronization latency (an empty kernel; cudaStreamSynchronize and
//     cudaEventSynchronize, idle and after a kernel; back-to-back launches);
//   - what the cuda backend pays per transfer: 256 small copies or reductions issued on 1, 2, 4,
//     8 streams, each waiting for the one before or none (the host's issue loop, and end to end);
//   - cudaMemcpyAsync device to device, 8 B .. max-bytes, and 1, 2, 4, 8 such copies at once
//     on as many streams (what the cuda backend's virtual ranks share);
//   - a copy and a sum kernel (dst += src) on 1, 2, 4, ... and all SMs' worth of thread blocks
//     of NCCL's Simple thread count: one block is one NCCL channel's worker;
//   - collsim's own reduction kernel (what the cuda backend reduces with);
//   - a one-rank ncclAllReduce over 8 B .. 64 MiB where libnccl.so.2 loads (nccl_one_rank.hpp
//     says what NCCL does for one rank); a call whose result is wrong is named in a '#' line
//     and on stderr, and its rows are left out.
// Each row is the median of its repetitions after warm-up; bandwidth rows read fresh buffers
// (out of the L2 cache) each repetition; the kernels' results are checked before they are
// timed. Rows are printed as they are measured, so a run cut short keeps what it had.
// Errors: one line "collsim-gpu-microbench: error: ..." on stderr, exit 2 (without a GPU:
// "no CUDA device: ...").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "execute/device/cuda_check.hpp"
#include "execute/device/reduce_kernel.hpp"
#include "execute/microbench/microbench_kernels.hpp"
#include "execute/microbench/nccl_one_rank.hpp"

namespace collsim::microbench {
namespace {

constexpr int kDevice = 0;
constexpr int kWarmup = 3;                 // repetitions run and dropped before each row
constexpr int kLatencyRepeatFactor = 10;   // latency rows are cheap: 10x the repetitions
constexpr int kBackToBackLaunches = 1000;  // empty kernels per back-to-back repetition
constexpr int kConcurrentStreams = 8;
constexpr std::uint64_t kConcurrentCopyBytes = 64ull << 20;
constexpr std::uint64_t kMinPoolBytes = 1ull << 30;  // each pool; the H100's L2 is 50 MB
constexpr std::uint64_t kNcclMaxBytes = 64ull << 20;

struct Options {
  int repeats = 20;
  std::string max_bytes = "256M";
  bool nccl = true;
};

// ---- CSV ------------------------------------------------------------------------------------

// One measured point. clock: "host" (steady_clock around the call and the synchronization
// that waits for it) or "gpu" (CUDA events around the work on the stream).
struct Row {
  std::string measure, clock;
  int streams = 1;
  int blocks = 0;   // thread blocks of our kernel; 0 where the callee chooses (a copy, NCCL, collsim's kernel)
  int threads = 0;  // threads per block, likewise
  std::uint64_t bytes = 0;
  bool rate = false;  // a bandwidth row: rate_GBps = bytes x streams / median
};

void print_csv_header() {
  fmt::print("measure,clock,streams,blocks,threads_per_block,bytes,repeats,median_us,min_us,max_us,rate_GBps\n");
}

void print_row(const Row& row, std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  const double median = n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  const std::string rate = row.rate ? fmt::format("{:.2f}", double(row.bytes) * row.streams / median / 1e9) : "";
  fmt::print("{},{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{}\n", row.measure, row.clock, row.streams, row.blocks,
             row.threads, row.bytes, n, median * 1e6, seconds.front() * 1e6, seconds.back() * 1e6, rate);
  std::fflush(stdout);
}

// ---- device resources -----------------------------------------------------------------------

struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }
};
using DeviceMemory = std::unique_ptr<void, DeviceFree>;

DeviceMemory device_alloc(std::uint64_t bytes, const char* what) {
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, bytes), what);
  return DeviceMemory(p);
}

class Stream {
 public:
  Stream() { check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_ = nullptr;
};

// Host to device and back on `stream`, waited for: ordered with the kernels on that stream
// (a plain cudaMemcpy runs on the legacy stream, which non-blocking streams do not wait for).
void upload(const Stream& stream, void* to, const void* from, std::size_t bytes, const char* what) {
  check_cuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, stream.get()), what);
  stream.synchronize();
}
void download(const Stream& stream, void* to, const void* from, std::size_t bytes, const char* what) {
  check_cuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToHost, stream.get()), what);
  stream.synchronize();
}

class Event {
 public:
  Event() { check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Source and destination pools far larger than the L2 cache. Each repetition takes the next
// slot of its size, so no timed pass reads what the previous one left in the cache. Filled
// with a non-zero pattern (zeros can run faster than real data).
class BufferPools {
 public:
  explicit BufferPools(std::uint64_t bytes)
      : bytes_(bytes), src_(device_alloc(bytes, "cudaMalloc (source pool)")),
        dst_(device_alloc(bytes, "cudaMalloc (destination pool)")) {
    std::vector<float> pattern((16u << 20) / sizeof(float));
    for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = float(i * 7 % 13) + 0.25f;
    const std::uint64_t chunk = pattern.size() * sizeof(float);
    for (std::uint64_t at = 0; at < bytes_; at += chunk)
      for (void* pool : {src_.get(), dst_.get()})
        check_cuda(cudaMemcpy(static_cast<char*>(pool) + at, pattern.data(), std::min(chunk, bytes_ - at),
                              cudaMemcpyHostToDevice),
                   "cudaMemcpy (filling the pools)");
    // A pageable copy may return before its DMA ends, and the legacy stream it ran on does not
    // order the non-blocking streams that read the pools: wait for the whole device.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (filling the pools)");
  }

  struct Slot {
    void* dst;
    const void* src;
  };
  Slot next(std::uint64_t size) {
    const std::uint64_t stride = (size + 255) / 256 * 256;
    const std::uint64_t at = (cursor_++ % (bytes_ / stride)) * stride;
    return {static_cast<char*>(dst_.get()) + at, static_cast<const char*>(src_.get()) + at};
  }

 private:
  std::uint64_t bytes_;
  DeviceMemory src_, dst_;
  std::uint64_t cursor_ = 0;
};

struct Context {
  int repeats = 0;
  std::uint64_t max_bytes = 0;
  int sms = 0;
  Stream stream;
  Event start, stop;
  std::unique_ptr<BufferPools> pools;
};

// ---- timing ---------------------------------------------------------------------------------

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// `work` repeated on the host clock; it must wait for what it starts.
std::vector<double> time_host(int repeats, const std::function<void()>& work) {
  for (int i = 0; i < kWarmup; ++i) work();
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    const double begin = host_seconds();
    work();
    seconds.push_back(host_seconds() - begin);
  }
  return seconds;
}

// `enqueue` repeated between two events on the context's stream; each repetition waits for
// its stop event, so repetitions never overlap.
std::vector<double> time_gpu(Context& c, int repeats, const std::function<void()>& enqueue) {
  for (int i = 0; i < kWarmup; ++i) enqueue();
  c.stream.synchronize();
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    check_cuda(cudaEventRecord(c.start.get(), c.stream.get()), "cudaEventRecord");
    enqueue();
    check_cuda(cudaEventRecord(c.stop.get(), c.stream.get()), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(c.stop.get()), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, c.start.get(), c.stop.get()), "cudaEventElapsedTime");
    seconds.push_back(ms / 1e3);
  }
  return seconds;
}

std::vector<double> divided(std::vector<double> seconds, double by) {
  for (double& s : seconds) s /= by;
  return seconds;
}

// ---- checks ---------------------------------------------------------------------------------

// The copy and sum kernels must compute what they claim before they are timed: a buffer of
// 2^20 + 3 float4 (no grid divides it) on 1, 3 and all SMs' blocks, compared element by element.
void check_kernels(Context& c) {
  constexpr std::uint64_t quads = (1u << 20) + 3;
  const std::size_t floats = quads * 4;
  std::vector<float> a(floats), b(floats), out(floats);
  for (std::size_t i = 0; i < floats; ++i) {
    a[i] = float(i * 7 % 13);
    b[i] = float(i * 3 % 11) + 0.5f;
  }
  const DeviceMemory src = device_alloc(floats * sizeof(float), "cudaMalloc (kernel check)");
  const DeviceMemory dst = device_alloc(floats * sizeof(float), "cudaMalloc (kernel check)");
  auto put = [&](void* to, const std::vector<float>& from) {
    upload(c.stream, to, from.data(), floats * sizeof(float), "cudaMemcpyAsync (kernel check)");
  };
  auto expect = [&](const char* kernel, int blocks, const std::function<float(std::size_t)>& want) {
    download(c.stream, out.data(), dst.get(), floats * sizeof(float), "cudaMemcpyAsync (kernel check)");
    for (std::size_t i = 0; i < floats; ++i)
      if (out[i] != want(i))
        throw Error(fmt::format("the {} kernel on {} blocks wrote {} at float {}, expected {}", kernel, blocks, out[i], i, want(i)));
  };
  for (int blocks : {1, 3, c.sms}) {
    put(src.get(), a);
    put(dst.get(), b);
    launch_copy(static_cast<float4*>(dst.get()), static_cast<const float4*>(src.get()), quads, blocks, c.stream.get());
    expect("copy", blocks, [&](std::size_t i) { return a[i]; });
    put(dst.get(), b);
    launch_sum(static_cast<float4*>(dst.get()), static_cast<const float4*>(src.get()), quads, blocks, c.stream.get());
    expect("sum", blocks, [&](std::size_t i) { return a[i] + b[i]; });
  }
}

// ---- measurements ---------------------------------------------------------------------------

void measure_latency(Context& c) {
  const int repeats = c.repeats * kLatencyRepeatFactor;
  cudaStream_t s = c.stream.get();
  // The launch call alone (the kernel is waited for outside the clock).
  std::vector<double> call;
  for (int i = 0; i < kWarmup + repeats; ++i) {
    const double begin = host_seconds();
    launch_empty(s);
    const double took = host_seconds() - begin;
    c.stream.synchronize();
    if (i >= kWarmup) call.push_back(took);
  }
  print_row({.measure = "empty_kernel_launch_call", .clock = "host", .blocks = 1, .threads = 1}, call);
  print_row({.measure = "empty_kernel_then_stream_sync", .clock = "host", .blocks = 1, .threads = 1},
            time_host(repeats, [&] { launch_empty(s); c.stream.synchronize(); }));
  print_row({.measure = "empty_kernel_then_event_sync", .clock = "host", .blocks = 1, .threads = 1},
            time_host(repeats, [&] {
              launch_empty(s);
              check_cuda(cudaEventRecord(c.stop.get(), s), "cudaEventRecord");
              check_cuda(cudaEventSynchronize(c.stop.get()), "cudaEventSynchronize");
            }));
  print_row({.measure = "stream_sync_idle", .clock = "host"}, time_host(repeats, [&] { c.stream.synchronize(); }));
  print_row({.measure = "event_record_then_sync_idle", .clock = "host"}, time_host(repeats, [&] {
              check_cuda(cudaEventRecord(c.stop.get(), s), "cudaEventRecord");
              check_cuda(cudaEventSynchronize(c.stop.get()), "cudaEventSynchronize");
            }));
  // Back to back: per kernel, the launch rate the host sustains and the gap on the GPU.
  auto launches = [&] {
    for (int i = 0; i < kBackToBackLaunches; ++i) launch_empty(s);
  };
  print_row({.measure = "empty_kernel_back_to_back", .clock = "host", .blocks = 1, .threads = 1},
            divided(time_host(c.repeats, [&] { launches(); c.stream.synchronize(); }), kBackToBackLaunches));
  print_row({.measure = "empty_kernel_back_to_back", .clock = "gpu", .blocks = 1, .threads = 1},
            divided(time_gpu(c, c.repeats, launches), kBackToBackLaunches));
}

std::vector<std::uint64_t> sizes_by_factor(std::uint64_t first, std::uint64_t factor, std::uint64_t last) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b = first; b < last; b *= factor) sizes.push_back(b);
  sizes.push_back(last);
  return sizes;
}

void measure_memcpy(Context& c) {
  cudaStream_t s = c.stream.get();
  for (std::uint64_t bytes : sizes_by_factor(8, 8, c.max_bytes)) {
    auto copy = [&] {
      const BufferPools::Slot slot = c.pools->next(bytes);
      check_cuda(cudaMemcpyAsync(slot.dst, slot.src, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    };
    const Row row{.measure = "memcpy_async_d2d", .clock = "gpu", .bytes = bytes, .rate = true};
    print_row(row, time_gpu(c, c.repeats, copy));
    Row host = row;
    host.clock = "host";
    print_row(host, time_host(c.repeats, [&] { copy(); c.stream.synchronize(); }));
  }
  // k copies at once on k streams: the HBM and copy engines the cuda backend's ranks share.
  std::vector<std::unique_ptr<Stream>> streams;
  for (int i = 0; i < kConcurrentStreams; ++i) streams.push_back(std::make_unique<Stream>());
  const std::uint64_t bytes = std::min(kConcurrentCopyBytes, c.max_bytes);
  for (int k = 1; k <= kConcurrentStreams; k *= 2) {
    print_row({.measure = "memcpy_async_d2d_concurrent", .clock = "host", .streams = k, .bytes = bytes, .rate = true},
              time_host(c.repeats, [&] {
                for (int i = 0; i < k; ++i) {
                  const BufferPools::Slot slot = c.pools->next(bytes);
                  check_cuda(cudaMemcpyAsync(slot.dst, slot.src, bytes, cudaMemcpyDeviceToDevice, streams[i]->get()),
                             "cudaMemcpyAsync");
                }
                for (int i = 0; i < k; ++i) streams[i]->synchronize();
              }));
  }
}

// 1, 2, 4, ... below the SM count, then the SM count (132 on an H100 SXM).
std::vector<int> block_counts(int sms) {
  std::vector<int> counts;
  for (int b = 1; b < sms; b *= 2) counts.push_back(b);
  counts.push_back(sms);
  return counts;
}

void measure_block_rates(Context& c) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b : {std::uint64_t{64} << 10, std::uint64_t{1} << 20, std::uint64_t{16} << 20, c.max_bytes})
    if (b <= c.max_bytes && std::find(sizes.begin(), sizes.end(), b) == sizes.end()) sizes.push_back(b);
  using Launch = void (*)(float4*, const float4*, std::uint64_t, int, cudaStream_t);
  const std::pair<const char*, Launch> kernels[] = {{"copy_kernel", launch_copy}, {"sum_kernel", launch_sum}};
  for (const auto& [name, launch] : kernels)
    for (std::uint64_t bytes : sizes)
      for (int blocks : block_counts(c.sms))
        print_row({.measure = name, .clock = "gpu", .blocks = blocks, .threads = kThreadsPerBlock, .bytes = bytes, .rate = true},
                  time_gpu(c, c.repeats, [&] {
                    const BufferPools::Slot slot = c.pools->next(bytes);
                    launch(static_cast<float4*>(slot.dst), static_cast<const float4*>(slot.src), bytes / 16, blocks,
                           c.stream.get());
                  }));
}

// What the cuda backend pays per transfer (execute/cuda/cuda_executor.cpp enqueues each one on
// its receiver's stream as: wait for the events of its dependencies on other streams, one
// copy or one reduction kernel, record its own event). kChainOps such transfers of 4 KiB, the
// i-th on stream i mod `streams`: "chained", each waits for the one before (a dependency that
// crosses streams when there are two or more, as a ring's next step does); "independent", none
// waits. Rows per kind: the host's issue loop alone per transfer (`_issue`; the GPU runs behind
// it), and the loop then every stream's synchronization per transfer (what a schedule of such
// transfers takes end to end). 4 KiB: the work itself is well under a microsecond.
void measure_stream_chains(Context& c) {
  constexpr int kChainOps = 256;
  constexpr std::uint64_t kOpBytes = 4096;
  const BufferPools::Slot slot = c.pools->next(kOpBytes);
  auto* dst = static_cast<float*>(slot.dst);
  const auto* src = static_cast<const float*>(slot.src);
  std::vector<cudaEvent_t> events(kChainOps);
  for (cudaEvent_t& e : events) check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  const std::pair<const char*, std::function<void(cudaStream_t)>> operations[] = {
      {"reduce", [&](cudaStream_t s) { launch_reduce_sum(dst, src, kOpBytes / 4, s); }},
      {"copy", [&](cudaStream_t s) {
         check_cuda(cudaMemcpyAsync(dst, src, kOpBytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
       }}};
  for (int count : {1, 2, 4, 8}) {
    std::vector<std::unique_ptr<Stream>> streams;
    for (int i = 0; i < count; ++i) streams.push_back(std::make_unique<Stream>());
    auto synchronize_all = [&] {
      for (const auto& s : streams) s->synchronize();
    };
    for (const auto& [op, enqueue_op] : operations)
      for (const bool chained : {true, false}) {
        auto issue = [&] {
          for (int i = 0; i < kChainOps; ++i) {
            cudaStream_t s = streams[i % count]->get();
            if (chained && i > 0) check_cuda(cudaStreamWaitEvent(s, events[i - 1], 0), "cudaStreamWaitEvent");
            enqueue_op(s);
            check_cuda(cudaEventRecord(events[i], s), "cudaEventRecord");
          }
        };
        const std::string name = fmt::format("{}_{}_4k", chained ? "chained" : "independent", op);
        std::vector<double> issue_only;
        for (int r = 0; r < kWarmup + c.repeats; ++r) {
          synchronize_all();
          const double begin = host_seconds();
          issue();
          const double took = host_seconds() - begin;
          synchronize_all();
          if (r >= kWarmup) issue_only.push_back(took);
        }
        print_row({.measure = name + "_issue", .clock = "host", .streams = count, .bytes = kOpBytes},
                  divided(issue_only, kChainOps));
        print_row({.measure = name, .clock = "host", .streams = count, .bytes = kOpBytes},
                  divided(time_host(c.repeats, [&] { issue(); synchronize_all(); }), kChainOps));
      }
  }
  for (cudaEvent_t e : events) cudaEventDestroy(e);
}

// collsim's reduction kernel (execute/device/reduce_kernel.cu), which picks its own grid.
void measure_collsim_reduce(Context& c) {
  for (std::uint64_t bytes : sizes_by_factor(4ull << 10, 16, c.max_bytes))
    print_row({.measure = "collsim_reduce_kernel", .clock = "gpu", .bytes = bytes, .rate = true},
              time_gpu(c, c.repeats, [&] {
                const BufferPools::Slot slot = c.pools->next(bytes);
                launch_reduce_sum(static_cast<float*>(slot.dst), static_cast<const float*>(slot.src), bytes / 4,
                                  c.stream.get());
              }));
}

// The result of a one-rank allreduce is its input (a pre-multiplied sum multiplies by 1): "" when
// it is, else what differs, naming the call (its rows are then left out, and the run goes on).
std::string check_nccl(Context& c, OneRankNccl& nccl, OneRankCall call, const char* name) {
  constexpr std::size_t count = (1u << 18) + 1;
  std::vector<float> in(count), out(count);
  for (std::size_t i = 0; i < count; ++i) in[i] = float(i * 5 % 17) + 0.5f;
  const DeviceMemory send = device_alloc(count * sizeof(float), "cudaMalloc (NCCL check)");
  const DeviceMemory recv = device_alloc(count * sizeof(float), "cudaMalloc (NCCL check)");
  upload(c.stream, send.get(), in.data(), count * sizeof(float), "cudaMemcpyAsync (NCCL check)");
  nccl.allreduce(call, static_cast<const float*>(send.get()), static_cast<float*>(recv.get()), count, c.stream.get());
  download(c.stream, out.data(), recv.get(), count * sizeof(float), "cudaMemcpyAsync (NCCL check)");
  std::size_t wrong = 0, first = count;
  for (std::size_t i = 0; i < count; ++i)
    if (out[i] != in[i]) {
      ++wrong;
      first = std::min(first, i);
    }
  if (wrong == 0) return "";
  return fmt::format("{} ({} floats out of place): wrote {} at float {}, expected {}; {} of {} floats wrong", name, count,
                     out[first], first, in[first], wrong, count);
}

void measure_nccl(Context& c, OneRankNccl& nccl) {
  nccl.start(kDevice);
  const std::pair<const char*, OneRankCall> calls[] = {{"nccl_allreduce_1rank_in_place", OneRankCall::in_place_sum},
                                                       {"nccl_allreduce_1rank", OneRankCall::sum},
                                                       {"nccl_allreduce_1rank_premulsum", OneRankCall::pre_mul_sum}};
  for (const auto& [name, call] : calls) {
    if (!nccl.has(call)) continue;
    if (call != OneRankCall::in_place_sum) {
      const std::string wrong = check_nccl(c, nccl, call, name);
      if (!wrong.empty()) {  // NCCL's result, not ours: say so in the CSV and on stderr, measure the rest
        fmt::print("# NCCL check failed, rows left out: {}\n", wrong);
        std::fflush(stdout);
        std::fprintf(stderr, "collsim-gpu-microbench: warning: NCCL check failed, rows left out: %s\n", wrong.c_str());
        continue;
      }
    }
    for (std::uint64_t bytes : sizes_by_factor(8, 4, kNcclMaxBytes)) {
      auto allreduce = [&] {
        const BufferPools::Slot slot = c.pools->next(bytes);
        const auto* send = static_cast<const float*>(slot.src);
        float* recv = call == OneRankCall::in_place_sum ? const_cast<float*>(send) : static_cast<float*>(slot.dst);
        nccl.allreduce(call, send, recv, bytes / 4, c.stream.get());
      };
      const int repeats = c.repeats * kLatencyRepeatFactor;
      const Row row{.measure = name, .clock = "gpu", .bytes = bytes, .rate = true};
      print_row(row, time_gpu(c, repeats, allreduce));
      Row host = row;
      host.clock = "host";
      print_row(host, time_host(repeats, [&] { allreduce(); c.stream.synchronize(); }));
    }
  }
}

// ---- the program ----------------------------------------------------------------------------

int attribute(cudaDeviceAttr what) {
  int value = 0;
  check_cuda(cudaDeviceGetAttribute(&value, what, kDevice), "cudaDeviceGetAttribute");
  return value;
}

// '#' lines before the CSV: the device, the software, and how to read the rows.
void print_description(int devices, const std::string& nccl) {
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, kDevice), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  check_cuda(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  fmt::print("# collsim-gpu-microbench: device {} of {}: {}, compute capability {}.{}, {} SMs, L2 {} MiB, {:.1f} GiB, "
             "peak SM clock {} MHz, peak memory clock {} MHz, memory bus {} bits, {} async copy engines\n",
             kDevice, devices, p.name, p.major, p.minor, p.multiProcessorCount, attribute(cudaDevAttrL2CacheSize) >> 20,
             double(p.totalGlobalMem) / (1ull << 30), attribute(cudaDevAttrClockRate) / 1000,
             attribute(cudaDevAttrMemoryClockRate) / 1000, attribute(cudaDevAttrGlobalMemoryBusWidth),
             attribute(cudaDevAttrAsyncEngineCount));
  fmt::print("# CUDA driver {}.{}, runtime {}.{}; NCCL: {}\n", driver / 1000, driver % 1000 / 10, runtime / 1000,
             runtime % 1000 / 10, nccl);
  fmt::print("# median_us, min_us, max_us over `repeats` after {} warm-up repetitions. clock host: steady_clock around the "
             "call and the synchronization that waits for it; gpu: CUDA events around the work. rate_GBps = bytes x "
             "streams / median, payload bytes in 1e9 B/s (a copy reads and writes each byte, a sum reads two and writes "
             "one). blocks, threads_per_block 0: the callee chooses. back_to_back rows: per kernel, of {} in a row.\n",
             kWarmup, kBackToBackLaunches);
}

void run(const Options& o) {
  const std::uint64_t max_bytes = parse_size(o.max_bytes);
  if (max_bytes < (1u << 20) || max_bytes > (16ull << 30) || max_bytes % 16 != 0)
    throw Error(fmt::format("--max-bytes {}: give 1M .. 16G, a multiple of 16 bytes", o.max_bytes));
  const int devices = visible_device_count();  // "no CUDA device: ..." without one
  check_cuda(cudaSetDevice(kDevice), "cudaSetDevice");

  std::string nccl_text = "not measured (--no-nccl)";
  std::unique_ptr<OneRankNccl> nccl;
  if (o.nccl) {
    std::string why_not;
    nccl = OneRankNccl::load(why_not);
    nccl_text = nccl ? nccl->version() + " (libnccl.so.2)" : "not measured: " + why_not;
  }
  print_description(devices, nccl_text);
  print_csv_header();

  Context c;
  c.repeats = o.repeats;
  c.max_bytes = max_bytes;
  c.sms = attribute(cudaDevAttrMultiProcessorCount);
  c.pools = std::make_unique<BufferPools>(std::max(kMinPoolBytes, 4 * max_bytes));
  check_kernels(c);
  measure_latency(c);
  measure_stream_chains(c);
  measure_memcpy(c);
  measure_block_rates(c);
  measure_collsim_reduce(c);
  if (nccl) measure_nccl(c, *nccl);
}

}  // namespace
}  // namespace collsim::microbench

int main(int argc, char** argv) {
  collsim::microbench::Options o;
  CLI::App app("collsim-gpu-microbench: launch and sync latency, per-block copy and sum rates, device-to-device "
               "copies and NCCL's one-rank allreduce on GPU 0, as CSV on stdout",
               "collsim-gpu-microbench");
  app.add_option("--repeats", o.repeats, "Repetitions per bandwidth row (latency and NCCL rows: 10x)")
      ->capture_default_str()
      ->check(CLI::Range(3, 100000));
  app.add_option("--max-bytes", o.max_bytes, "Largest copy and kernel size (1M .. 16G)")->capture_default_str();
  app.add_flag("--no-nccl", [&o](std::int64_t) { o.nccl = false; }, "Leave out the one-rank ncclAllReduce rows");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "collsim-gpu-microbench: error: %s (see --help)\n", collsim::one_line(e.what()).c_str());
    return 2;
  }
  try {
    collsim::microbench::run(o);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "collsim-gpu-microbench: error: %s\n", collsim::one_line(e.what()).c_str());
    return 2;
  }
  return 0;
}
