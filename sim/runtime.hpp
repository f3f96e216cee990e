// sim/runtime.hpp — the collective library that drives the links (docs/semantics.md, "The
// runtime"): what a GPU collective pays that no link explains, priced per run.
//   fixed:  once per collective, before its first transfer: the library's base latency for
//           the algorithm and protocol (kernel launch and set-up); for NVLS, NVLS-tree and
//           CollNet, whose steps the library does not count, the whole collective's latency;
//   step:   each transfer of a ring or tree waits on a flag its peer sets: a latency by
//           protocol (LL and LL128 poll their lines, Simple fences and polls a flag) and by the
//           transport it crosses (NVLink, PCIe, network), which takes the place of the link
//           classes' alpha (sim/protocol.hpp, StepLatency); a cluster whose network is not
//           InfiniBand adds the latency its NCCL plugin reports (RuntimeHardware::net_latency_s);
//   rate:   the library runs a collective on channels, one thread block each, and starts fewer
//           of them for a small collective; its model caps what a protocol moves per channel
//           (LL128, the tree's protocols) or in all (LL), by GPU generation: each message of
//           the run drains at no more than channels x the per-channel rate (sim/protocol.hpp,
//           RuntimeRate), and the links give each protocol NCCL's share of their rate on
//           that algorithm in place of its payload fraction (the tree's LL 0.92 / 3.8, not
//           1/2). Only where the config names its GPUs (RuntimeHardware).
//   pipeline: NCCL's ring cuts each channel's part into chunks of its connection buffer's
//           steps, runs them in loops of ranks x chunk and each chunk step in slices, every
//           slice a flag wait on the ring's chain; the waits beyond one per step are paid once
//           per collective with the fixed cost (sim/protocol.hpp, RuntimePipeline).
//           NVLS and NVLS-tree run loops of one chunk per head (a GPU that owns a part) and
//           channel, on NCCL's NVLS channels and chunk by size (src/transport/nvls.cc,
//           src/enqueue.cc calcCollChunking): the schedule runs one segment per loop, so the
//           engines price that pipeline's fill and drain on the links (RuntimePipeline::segments).
//   plateau: NCCL's model lengthens a Simple ring allreduce's latency across nodes (1.4x,
//           1.9x before Ampere: tuning.cc, ncclTopoGetAlgoTime, "Plateau effect of ring").
// The numbers are NCCL's own tuning constants (src/graph/tuning.cc, NCCL 2.30.x: baseLatencies
// and hwLatencies, NVIDIA's measurements of its runtime on its hardware) and its buffer and chunk
// sizes (src/init.cc, src/enqueue.cc, src/include/collectives.h), read as facts of the library
// and never fitted here to an allreduce measurement. A cluster names its runtime in
// its config (`runtime: nccl`); without one (CPU MPI clusters) nothing changes.
// Touches nothing but its arguments.
#pragma once

#include <cstdint>
#include <string_view>

#include "collectives/schedule.hpp"
#include "sim/protocol.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim {

// A kernel launch call on the host, as one host thread pays it: the median of the seven runs of
// collsim-gpu-microbench's empty_kernel_launch_call on an H100's host (CUDA 13.0, driver
// 580.159.04), 3.28-4.55 us, median 3.72 us (validate/results/gpu-h100-2026-11-27*/, each run's
// microbench.csv). One thread that launches a collective on G GPUs (nccl-tests -g G: one
// process and thread for G GPUs) starts the last GPU's kernel (G - 1) calls after the first:
// at least that much more per collective (NCCL's own host work per communicator would come on
// top; not measured, not modelled).
inline constexpr double kHostKernelLaunchCall_s = 3.72e-6;
// What a collective pays where one thread launches it on `gpus_per_thread` GPUs.
inline double launching_thread_s(std::uint32_t gpus_per_thread) {
  return gpus_per_thread > 1 ? double(gpus_per_thread - 1) * kHostKernelLaunchCall_s : 0.0;
}

struct RunRuntime {
  double fixed_s = 0;  // once per collective
  StepLatency step;    // per transfer, by transport (inactive: the classes' alpha)
  RuntimeRate rate;    // per message (inactive: the links alone)
  RuntimePipeline pipeline;  // of a ring collective (inactive: none); its extra_sync_s is in fixed_s
};

// One run as the runtime sees it: `algorithm` (collsim's name) with `protocol` on a collective
// of `bytes`, `ranks` ranks spanning `nodes` nodes of `ranks_per_node` (NVLS-tree and CollNet
// count them).
struct RuntimeRun {
  std::string_view algorithm;
  const Protocol& protocol;
  std::uint64_t bytes = 0;
  Rank ranks = 1;
  Rank nodes = 1;
  Rank ranks_per_node = 1;
  Collective collective = Collective::allreduce;
  Transport intra = Transport::nvlink;  // what a step between two ranks of a node crosses
  Transport inter = Transport::net;     // what a step between nodes crosses
  double copy_Bps = 0;  // one rank: the GPU's device-to-device copy rate (device_copy_Bps below)
};

// A device-to-device copy's payload rate on one GPU: the config's measured one
// (runtime.device_copy_Bps), else what the memory's datasheet rate allows a copy, which reads
// and writes each byte: two of the three bytes `gamma_s_per_byte` prices per byte reduced,
// 3 / (2 gamma). 0 where neither is known.
inline double device_copy_Bps(const RuntimeHardware& hardware, double gamma_s_per_byte) {
  if (hardware.device_copy_Bps > 0) return hardware.device_copy_Bps;
  return gamma_s_per_byte > 0 ? 3.0 / (2.0 * gamma_s_per_byte) : 0.0;
}

// The runtime of `run`; none, or an empty collective (0 bytes, which NCCL discards): a zero
// cost. The rate caps need `hardware`'s compute capability (none without it). On one rank NCCL
// runs none of its algorithms: out of place it copies the buffer on the GPU (nccl_one_rank_s).
RunRuntime run_runtime(CollectiveRuntime runtime, const RuntimeHardware& hardware, const RuntimeRun& run);

// A collective on a communicator of one rank, out of place (separate buffers, as nccl-tests'
// first columns time it): NCCL runs none of its algorithms but copies the send buffer to the
// receive buffer with cudaMemcpyAsync (src/enqueue.cc, taskAppend, nRanks == 1 ->
// ncclLaunchOneRank, src/device/onerank.cu; a kernel only for the PreMulSum operation); in place
// it does nothing. Its cost: the host's call that starts the copy, priced as one kernel launch
// call (kHostKernelLaunchCall_s: a cudaMemcpyAsync call was not timed alone), then `bytes` at
// `copy_Bps` (none without a rate).
inline double nccl_one_rank_s(std::uint64_t bytes, double copy_Bps) {
  return kHostKernelLaunchCall_s + (copy_Bps > 0 ? double(bytes) / copy_Bps : 0.0);
}

// Whether NCCL enables LL128 where the runs leave the protocols to it (no NCCL_PROTO): NCCL
// marks LL128 "enabled by default only on Volta/Ampere/Hopper/Blackwell+NVLink" (src/graph/
// tuning.cc, ncclTopoTuneModel, NCCL 2.30; the same rule since 2.8): its graph's path between
// a node's GPUs no worse than PATH_NVB (NVLink, or NVLink through one GPU), so not where they
// meet over PCIe (`intra`: what a step between two ranks of a node crosses; a node of one rank
// has no such path), and GPUs of compute capability 7.0 or more (where the config names them).
// Its bound on the GPU-to-NIC path (PATH_PXB, PATH_PXN on Hopper) is not modelled: every
// preset's NICs sit beside their GPUs.
bool nccl_ll128_by_default(const RuntimeHardware& hardware, Transport intra);

// NCCL's protocol for one send or receive of `peer_bytes` (its all-to-all is a group of them, one
// to each peer): LL where the part is at most NCCL_P2P_LL_THRESHOLD, 16 KiB, a channel and the
// connection has LL buffers, else Simple; never LL128, and NCCL_PROTO plays no part
// (src/enqueue.cc, addP2pToPlan, NCCL 2.30). A network connection has no LL buffers for
// point-to-point unless NCCL_ALLOC_P2P_NET_LL_BUFFERS=1 (default 0: src/init.cc,
// src/transport/net.cc), so `over_network` (a peer reached over it) gives Simple. A part goes on
// one channel up to the smallest piece NCCL splits it into (64 KiB over NVLink: P2P_NVL_CHUNKSIZE
// 512 KiB / 8), so LL ends at 16 KiB there. Not modelled: on PCIe-only nodes (P2P_PCI_CHUNKSIZE
// 128 KiB / 8 = 16 KiB pieces) NCCL gives a peer 2 channels (paths.cc, ncclTopoGetNchannels)
// where its point-to-point channels number at least twice the ranks (enqueue.cc halves them
// until they fit), and there keeps LL up to 32 KiB.
inline constexpr std::uint64_t kNcclP2pLLThreshold = 16384;
inline std::string_view nccl_p2p_protocol(std::uint64_t peer_bytes, bool over_network) {
  return !over_network && peer_bytes <= kNcclP2pLLThreshold ? "ll" : "simple";
}

// The channels NCCL starts for a ring or tree collective of `bytes` (enqueue.cc,
// topoGetAlgoInfo), before its own channel count (its topology search's) bounds them.
std::uint32_t nccl_channels_by_size(std::string_view algorithm, const Protocol& protocol, std::uint64_t bytes,
                                    Rank ranks);

// NCCL's pipeline for `run` (ring allreduce, reduce-scatter and allgather; inactive for the
// rest): its channels, chunk, loops and slices, and the flag waits beyond one per step priced
// with `step` (enqueue.cc calcCollChunking, device/all_reduce.h runRing).
// `env`: the Simple buffer the runs set (NCCL_BUFFSIZE; none: NCCL's 4 MiB).
RuntimePipeline nccl_pipeline(const RuntimeRun& run, const StepLatency& step, const NcclEnvironment& env = {});

// NCCL's NVLS or NVLS-tree pipeline for `run` (allreduce; inactive for the rest, and without
// `hardware`'s compute capability, which sets the channels): its channels, chunk and loops per
// channel, and the schedule's segments, one per loop (at most kMaxNvlsSegments). No flag wait
// is priced: NCCL's model counts none per chunk (its NVLS latency is one per collective).
RuntimePipeline nccl_nvls_pipeline(const RuntimeRun& run, const RuntimeHardware& hardware);
// The most segments nccl_nvls_pipeline sets (the default segment rule's bound: beyond it a
// pipeline's fill is under 1/64 of the run).
inline constexpr std::uint32_t kMaxNvlsSegments = 64;

}  // namespace collsim
