// sim/runtime.cpp — NCCL's runtime constants and which of collsim's algorithms runs as which of
// NCCL's.
//
// Source for every number below: NVIDIA/nccl, src/graph/tuning.cc at 2.30.x (makefiles/
// version.mk: NCCL_MAJOR 2, NCCL_MINOR 30), ncclTunerConstantsDefaults (baseLatencies,
// hwLatencies, in microseconds; llMaxBws and the perChMax*Bws, in GB/s) and ncclTopoTuneModel
// (how they add up per algorithm); the channels by size from src/enqueue.cc (topoGetAlgoInfo),
// src/include/comm.h and src/include/device.h.
#include "sim/runtime.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>

namespace collsim {
namespace {

// NCCL's algorithms whose constants collsim uses, and its protocols, in tuning.cc's order.
enum class Family : std::uint8_t { tree, ring, collnet_direct, nvls, nvls_tree };
enum Proto : std::uint8_t { kLL, kLL128, kSimple };

// baseLatencies[algorithm][protocol], us: Tree {6.8, 14.0, 8.4}, Ring {6.6, 14.0, 8.4}, the
// in-network ones 0 (their latency is all in hwLatencies).
constexpr double kBase[5][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};

// hwLatencies[hardware][algorithm][protocol], us, hardware NVLINK, PCI, NET.
constexpr double kHw[3][5][3] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 25}, {0, 0, 25}},     // NVLINK
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 0}, {0, 0, 0}},        // PCI
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 18}, {0, 0, 20.9}}};    // NET
enum Hw : std::uint8_t { kNvlink, kPci, kNet };

// NCCL's network post overhead (getNetOverhead), us: 1 on Intel and other hosts, 2 on AMD x86
// ones; an inter-node ring "still has to launch nsteps * net overhead", three times it with
// Simple, so each of its steps within a node costs at least that.
constexpr double kNetOverhead_us = 1.0, kNetOverheadAmd_us = 2.0, kNetOverheadSimpleFactor = 3.0;

// CollNet Direct's arity serialization: "Add 0.4 us arity serialization latency" per local rank.
constexpr double kCollnetArity_us = 0.4;

// collsim's algorithms as NCCL runs them: its Ring (ring; chain, NCCL's ring for broadcast and
// reduce; hierarchical-ring, rings within and across nodes), its Tree (tree, two-tree, nccl-tree; binomial
// is a tree too), its NVLS, NVLS_TREE and CollNet Direct. NCCL has no recursive doubling,
// Rabenseifner or naive reducer: on a GPU each of their steps is a flag-synchronized transfer
// as a ring's, so they take the Ring's constants.
Family family_of(std::string_view algorithm) {
  if (algorithm == "tree" || algorithm == "two-tree" || algorithm == "nccl-tree" || algorithm == "binomial") return Family::tree;
  if (algorithm == "nvls") return Family::nvls;
  if (algorithm == "nvls-tree") return Family::nvls_tree;
  if (algorithm == "collnet") return Family::collnet_direct;
  return Family::ring;
}

Proto proto_of(const Protocol& protocol) {
  return protocol.name == "ll" ? kLL : protocol.name == "ll128" ? kLL128 : kSimple;
}

double hw_s(Hw hw, Family family, Proto proto) { return 1e-6 * kHw[hw][std::size_t(family)][proto]; }

Rank log2_floor(Rank n) { return n > 1 ? Rank(std::bit_width(n) - 1) : 0; }

// A network step's latency, as ncclTopoTuneModel's interLat: NCCL's NET figure for the
// algorithm and protocol, the tree's where each node holds one rank ("With ppn=1 latencies are
// fully exposed, use the Tree network latency"; `ranks_per_node` 0: a flat cluster, a rank a
// node), plus the latency the network's plugin reports (graph->latencyInter), once more for
// Simple ("Also add the flush extra latency").
double net_s(const RuntimeHardware& hardware, Family family, Proto proto, Rank ranks_per_node) {
  const Family figures_of = ranks_per_node <= 1 ? Family::tree : family;
  const double reported = hardware.net_latency_s * (proto == kSimple ? 2.0 : 1.0);
  return hw_s(kNet, figures_of, proto) + reported;
}

// A step within a node of a ring across nodes: NCCL's figure for the node's transport, at least
// the net overhead (ncclTopoTuneModel: intraLat = max(intraLat, netOverhead), for every
// collective but broadcast and reduce, whose ring latency it adds up apart).
// "Across nodes": its ranks span nodes and its steps between them cross the network.
bool net_overhead_applies(Family family, const RuntimeRun& run) {
  return family == Family::ring && run.nodes > 1 && run.inter == Transport::net &&
         run.collective != Collective::broadcast && run.collective != Collective::reduce;
}
double net_overhead_s(const RuntimeHardware& hardware, Proto proto) {
  const double us = hardware.amd_hosts ? kNetOverheadAmd_us : kNetOverhead_us;
  return 1e-6 * us * (proto == kSimple ? kNetOverheadSimpleFactor : 1.0);
}

// The in-network algorithms' whole latency, as ncclTopoTuneModel adds it (Simple only).
double in_network_latency_s(const RuntimeHardware& hardware, Family family, Rank nodes, Rank ranks_per_node) {
  const double intra = hw_s(kNvlink, family, kSimple), inter = net_s(hardware, family, kSimple, ranks_per_node);
  switch (family) {
    case Family::nvls: return intra + (nodes > 1 ? inter : 0.0);
    case Family::nvls_tree: return intra + 2.0 * double(log2_floor(nodes)) * inter;
    case Family::collnet_direct: {
      const double local = ranks_per_node > 1 ? double(ranks_per_node - 1) : 0.0;
      return 2.0 * ((local > 0 ? intra : 0.0) + local * 1e-6 * kCollnetArity_us) + inter;
    }
    default: return 0.0;
  }
}

// --- Rates (ncclTopoTuneModel's "model refinements"), in GB/s as tuning.cc writes them. ---
// Rows by GPU generation as NCCL indexes them (compCapIndex: Volta below 8.0, Ampere 8.x,
// Hopper 9.x, Blackwell 10.0 and up); columns by the nodes the collective spans: 1, 2, more.
enum Generation : std::uint8_t { kVolta, kAmpere, kHopper, kBlackwell };
// llMaxBws: LL's whole bus bandwidth. One node: the row of the GPU generation; across nodes
// the row of the hosts' CPU (Intel and others: row 0; AMD: row 1), as tuning.cc takes it.
constexpr double kLlMax[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
// perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws: per channel.
constexpr double kRingLL128PerChannel[4][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
constexpr double kTreeLL128PerChannel[4][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kTreePerChannel[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
// perChMaxNVLSTreeBws: per channel of the NVLS graph, whose channels are its heads (search.cc:
// "NVLS channels correspond to GPUs pulling from NVLS", at most one per GPU); 0: no cap (NVLS-tree
// is never run on one node).
constexpr double kNvlsTreePerChannel[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};
constexpr double kGBps = 1e9;

// --- Channels by size (enqueue.cc, topoGetAlgoInfo: "while (nBytes < nc * nt * threadThreshold)
// nc--"). Threads per channel: NCCL_LL_MAX_NTHREADS 512, NCCL_LL128_MAX_NTHREADS 640,
// NCCL_SIMPLE_MAX_NTHREADS 512 (device.h); bytes per thread before another channel starts:
// NCCL_LL_THREAD_THRESHOLD 8 (times the ranks for the ring), NCCL_LL128_THREAD_THRESHOLD 8,
// NCCL_SIMPLE_THREAD_THRESHOLD 64 (comm.h; tuning.cc sets them). NCCL's Simple ring takes 256
// threads where its rings' whole bandwidth is below PCIe's; collsim keeps 512 there.
constexpr std::uint64_t kThreads[3] = {512, 640, 512};
constexpr std::uint64_t kThreadThreshold[3] = {8, 8, 64};

// --- The pipeline (ring). Connection buffers per protocol (src/init.cc): DEFAULT_BUFFSIZE
// 4 MiB for Simple; DEFAULT_LL_BUFFSIZE = NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512
// x NCCL_STEPS 8 x 16-byte lines = 512 KiB; DEFAULT_LL128_BUFFSIZE = NCCL_LL128_ELEMS_PER_THREAD
// 120 x NCCL_LL128_MAX_NTHREADS 640 x NCCL_STEPS x 8 bytes (src/include/device.h). A step is the
// buffer / NCCL_STEPS; a chunk is chunkSteps steps (Simple ring only; others 1), of which LL
// carries half (a flag in every 8 bytes) and LL128 15 of every 16 words (enqueue.cc,
// calcCollChunking). Ring allreduce, allgather and reduce-scatter take ALLREDUCE_CHUNKSTEPS =
// NCCL_STEPS / 2 and ALLREDUCE_SLICESTEPS = NCCL_STEPS / 4: two slices per chunk
// (src/include/collectives.h).
constexpr std::uint64_t kNcclSteps = 8;
constexpr std::uint64_t kBufferBytes[3] = {8 * 512 * kNcclSteps * 16, 120 * 640 * kNcclSteps * 8, 1 << 22};
constexpr std::uint64_t kRingChunkSteps = kNcclSteps / 2, kRingSliceSteps = kNcclSteps / 4;
// MAXCHANNELS (src/include/device.h): NCCL's own channel count, from its topology search, is not
// modelled; this bound gives the fewest loops it could run.
constexpr std::uint32_t kNcclMaxChannels = 64;

// --- The NVLS pipeline (allreduce; NCCL 2.30.7). Channels: NVLS_NCHANNELS_SM90 16, on
// Blackwell NVLS_NCHANNELS_SM100_NVL 24 on one node (src/transport/nvls.cc, ncclNvlsTuning),
// taken whole by topoGetAlgoInfo (src/enqueue.cc: "NVLS should not need more than 16 channels").
// Blackwell across nodes (NVLS_NCHANNELS_SM100 32) retunes channels and chunks by the NICs'
// rate (ncclNvlsTreeSm100Tuning), which collsim does not carry into the runtime: not modelled.
constexpr std::uint32_t kNvlsChannelsHopper = 16, kNvlsChannelsBlackwellOneNode = 24;
// scheduleCollTasksToPlan (src/enqueue.cc) deals a collective to channels in cells of
// MinTrafficPerChannel = 32 KiB of traffic, an allreduce's traffic being 2 bytes per byte
// (ncclFuncTrafficPerByte): cells of 16 KiB of the buffer, at least 32 KiB of traffic in all.
constexpr std::uint64_t kMinTrafficPerChannel = 32 << 10, kAllreduceTrafficPerByte = 2;
// The chunk (calcCollChunking, called per channel with nChannels = 1): the Simple step
// (DEFAULT_BUFFSIZE 4 MiB / NCCL_STEPS = 512 KiB) capped at NCCL_NVLS_CHUNKSIZE 128 KiB
// (nvls.cc); NVLS halves it to 64 KiB below 64 x heads x chunk of the channel's bytes, 32 KiB
// below 8 x, 16 KiB below 2 x; NVLS-tree caps it at nvlsTreeMaxChunkSize (the chunk size, 64 KiB
// on 4 nodes or more: nvls.cc) and takes 64 KiB below 4 x heads x chunk, 32 KiB below 1 x.
constexpr std::uint64_t kNvlsChunk = 128 << 10, kNvlsTreeChunkFourNodes = 64 << 10;
constexpr std::uint64_t kNvlsLastChunkAlign = 16 << 10;
// NCCL_MAX_NVLS_ARITY (src/include/device.h): the most heads an NVLS group has.
constexpr std::uint64_t kNvlsMaxHeads = 32;

// tuning.cc, ncclTopoGetAlgoTime: "lat *= comm->minCompCap < 80 ? 1.9 : 1.4; // Plateau effect
// of ring", for a Simple ring allreduce across nodes with at least 64 bytes per channel and rank.
constexpr double kRingPlateauBeforeAmpere = 1.9, kRingPlateau = 1.4;

// A protocol's connection buffer: NCCL_BUFFSIZE sets Simple's (init.cc, computeBuffSizes).
std::uint64_t buffer_bytes(Proto proto, const NcclEnvironment& env) {
  return proto == kSimple && env.buffsize > 0 ? env.buffsize : kBufferBytes[proto];
}

std::uint64_t ring_chunk_bytes(Proto proto, const NcclEnvironment& env) {
  const std::uint64_t step = buffer_bytes(proto, env) / kNcclSteps;
  if (proto == kLL) return step / 2;
  if (proto == kLL128) return step / 16 * 15;
  return step * kRingChunkSteps;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

Generation generation_of(std::uint32_t compute_capability) {
  return compute_capability >= 100 ? kBlackwell : compute_capability >= 90 ? kHopper
                                                : compute_capability >= 80 ? kAmpere
                                                                           : kVolta;
}

std::size_t nodes_column(Rank nodes) { return nodes <= 2 ? std::size_t(std::max<Rank>(nodes, 1) - 1) : 2; }

// The bus bandwidth NCCL's model allows `family` with `proto` on `channels` channels; infinite
// where it sets none (the Simple ring: its graph search's rate, which the links stand for here).
double rate_cap_Bps(Family family, Proto proto, std::uint32_t channels, const RuntimeHardware& hardware, Rank nodes) {
  const Generation gpu = generation_of(hardware.compute_capability);
  const std::size_t column = nodes_column(nodes);
  const std::size_t ll_row = nodes == 1 ? std::size_t(gpu) : hardware.amd_hosts ? 1 : 0;
  const double ll = kLlMax[ll_row][column] * kGBps, n = double(channels);
  constexpr double kNone = std::numeric_limits<double>::infinity();
  if (family == Family::ring) {
    if (proto == kLL) return ll;
    if (proto == kLL128) return n * kRingLL128PerChannel[gpu][column] * kGBps;
    return kNone;
  }
  const double tree = n * kTreePerChannel[gpu][column] * kGBps;  // every tree allreduce
  if (proto == kLL) return std::min(tree, ll);
  if (proto == kLL128) return std::min(tree, n * kTreeLL128PerChannel[gpu][column] * kGBps);
  return tree;
}

// What one head's messages of an NVLS-tree allreduce may move: NCCL's model gives the
// collective nHeads x min(intra, inter, perChMaxNVLSTreeBw) of bus bandwidth and turns it into
// algorithm bandwidth by nRanks / nsteps, nsteps = 2 (nRanks - 1) (tuning.cc); each head carries
// 1/nHeads of the buffer in its own messages (nvls_tree.cpp), so each message stream drains at
// no more than perChMaxNVLSTreeBw x nRanks / (2 (nRanks - 1)). Infinite where NCCL sets none.
double nvls_tree_head_cap_Bps(const RuntimeHardware& hardware, Rank nodes, Rank ranks) {
  const double per_channel = kNvlsTreePerChannel[generation_of(hardware.compute_capability)][nodes_column(nodes)];
  if (per_channel <= 0 || ranks < 2) return std::numeric_limits<double>::infinity();
  return per_channel * kGBps * double(ranks) / (2.0 * double(ranks - 1));
}

// The share of the links' rate NCCL's model gives `proto` on `family` (ncclTopoTuneModel's
// refinements): the ring's LL half (busBw * .5) and LL128 0.92 ("0.92 /*120.0/128.0*/"), its
// Simple all; every tree allreduce 0.92 ("busBw * .92"), its LL 1/3.8 of that, its LL128 7/9 of
// it on one node and 120/128 across nodes.
double link_share(Family family, Proto proto, Rank nodes) {
  if (family == Family::ring) return proto == kLL ? 0.5 : proto == kLL128 ? 0.92 : 1.0;
  constexpr double kTree = 0.92;
  if (proto == kLL) return kTree / 3.8;
  if (proto == kLL128) return kTree * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0);
  return kTree;
}

// The plateau (kRingPlateau) needs the GPUs' generation: without it, none.
bool plateau_applies(const RuntimeRun& run, const RuntimeHardware& hardware, const RuntimePipeline& pipeline) {
  return hardware.compute_capability > 0 && pipeline.active() && run.collective == Collective::allreduce &&
         proto_of(run.protocol) == kSimple && run.nodes > 1 &&
         run.bytes / (std::uint64_t(pipeline.channels) * std::max<Rank>(run.ranks, 1)) >= 64;
}

// NCCL multiplies the whole latency of the collective: the base, every step's and the pipeline's.
void scale_latencies(RunRuntime& out, double factor) {
  out.fixed_s *= factor;
  out.pipeline.extra_sync_s *= factor;
  for (double& s : out.step.by_transport) s *= factor;
}

// The bytes of the fullest channel when `bytes` are dealt to `channels` in cells
// (scheduleCollTasksToPlan): each channel takes its share of the traffic, whole cells.
std::uint64_t nvls_channel_bytes(std::uint64_t bytes, std::uint32_t channels, std::uint32_t& used) {
  const std::uint64_t cell = ceil_div(ceil_div(kMinTrafficPerChannel, kAllreduceTrafficPerByte), 16) * 16;
  const std::uint64_t cells = std::max<std::uint64_t>(ceil_div(bytes, cell), 1);
  const std::uint64_t traffic = std::max(kMinTrafficPerChannel, bytes * kAllreduceTrafficPerByte);
  const std::uint64_t per_channel_traffic = ceil_div(traffic / channels, 16) * 16;
  std::uint64_t cells_per_channel = std::min(cells, ceil_div(per_channel_traffic, cell * kAllreduceTrafficPerByte));
  if (ceil_div(cells, cells_per_channel) > channels) cells_per_channel = ceil_div(cells, channels);
  used = std::uint32_t(ceil_div(cells, cells_per_channel));
  return std::min(bytes, cells_per_channel * cell);
}

// calcCollChunking's NVLS and NVLS_TREE branches for a channel of `bytes` with `heads` heads,
// from the chunk sizes ncclNvlsTuning sets (nvls.cc: NCCL_NVLS_CHUNKSIZE, else 128 KiB; the
// tree's NCCL_NVLSTREE_MAX_CHUNKSIZE, else 64 KiB on 4 nodes or more and the NVLS chunk below).
std::uint64_t nvls_chunk_bytes(bool tree, std::uint64_t bytes, std::uint64_t heads, Rank nodes,
                               const NcclEnvironment& env) {
  const std::uint64_t nvls_chunk = env.nvls_chunksize > 0 ? env.nvls_chunksize : kNvlsChunk;
  if (!tree) {
    // NVLS starts from the Simple buffer's step, at most the NVLS chunk.
    std::uint64_t chunk = std::min(buffer_bytes(kSimple, env) / kNcclSteps, nvls_chunk);
    if (bytes < 64 * heads * chunk && chunk > (64 << 10)) chunk = 64 << 10;
    if (bytes < 8 * heads * chunk && chunk > (32 << 10)) chunk = 32 << 10;
    if (bytes < 2 * heads * chunk && chunk > (16 << 10)) chunk = 16 << 10;
    return chunk;
  }
  const std::uint64_t tree_max = env.nvlstree_max_chunksize > 0 ? env.nvlstree_max_chunksize
                                 : nodes >= 4                    ? kNvlsTreeChunkFourNodes
                                                                 : nvls_chunk;
  std::uint64_t chunk = std::min(nvls_chunk, tree_max);
  if (bytes < 32 * heads * chunk && chunk > (256 << 10)) chunk = 256 << 10;
  if (bytes < 16 * heads * chunk && chunk > (128 << 10)) chunk = 128 << 10;
  if (bytes < 4 * heads * chunk && chunk > (64 << 10)) chunk = 64 << 10;
  if (bytes < 1 * heads * chunk && chunk > (32 << 10)) chunk = 32 << 10;
  return chunk;
}

}  // namespace

RuntimePipeline nccl_nvls_pipeline(const RuntimeRun& run, const RuntimeHardware& hardware) {
  const Family family = family_of(run.algorithm);
  const bool tree = family == Family::nvls_tree;
  if ((family != Family::nvls && !tree) || run.collective != Collective::allreduce || run.ranks < 2) return {};
  const std::uint32_t cc = hardware.compute_capability;
  if (cc < 90 || (cc >= 100 && run.nodes > 1)) return {};
  // The heads: one per GPU of the node (one node: NCCL's search takes them all; across nodes
  // one per GPU with its own NIC, as on the presets that run NVLS-tree).
  const std::uint64_t heads = std::clamp<std::uint64_t>(tree ? run.ranks_per_node : run.ranks, 1, kNvlsMaxHeads);
  RuntimePipeline p;
  const std::uint32_t channels = cc >= 100 ? kNvlsChannelsBlackwellOneNode : kNvlsChannelsHopper;
  const std::uint64_t per_channel = nvls_channel_bytes(run.bytes, channels, p.channels);
  const std::uint64_t chunk = nvls_chunk_bytes(tree, per_channel, heads, run.nodes, hardware.environment);
  // device/all_reduce.h, NVLS and NVLS_TREE: a loop moves heads x chunk of a channel's part; the
  // last one shrinks its chunk to what is left over the heads, rounded up to 16 KiB (NVLS on one
  // node: "alignUp(divUp(remCount, nvls->nHeads), 16384 / sizeof(T))") or 16 bytes (NVLS-tree).
  p.loops = std::max<std::uint64_t>(ceil_div(per_channel, heads * chunk), 1);
  const std::uint64_t last_align = tree ? 16 : kNvlsLastChunkAlign;
  p.chunk_bytes = p.loops == 1 ? ceil_div(ceil_div(per_channel, heads), last_align) * last_align : chunk;
  p.slices = 1;
  p.segments = std::uint32_t(std::min<std::uint64_t>(p.loops, kMaxNvlsSegments));
  return p;
}

bool nccl_ll128_by_default(const RuntimeHardware& hardware, Transport intra) {
  if (intra == Transport::pci) return false;
  return hardware.compute_capability == 0 || hardware.compute_capability >= 70;
}

std::uint32_t nccl_channels_by_size(std::string_view algorithm, const Protocol& protocol, std::uint64_t bytes,
                                    Rank ranks) {
  const Proto proto = proto_of(protocol);
  std::uint64_t per_channel = kThreads[proto] * kThreadThreshold[proto];
  if (proto == kLL && family_of(algorithm) == Family::ring) per_channel *= std::max<Rank>(ranks, 1);
  const std::uint64_t fits = bytes / per_channel;
  return std::uint32_t(std::clamp<std::uint64_t>(fits, 1, std::numeric_limits<std::uint32_t>::max()));
}

RuntimePipeline nccl_pipeline(const RuntimeRun& run, const StepLatency& step, const NcclEnvironment& env) {
  const bool rs_or_ag = run.collective == Collective::reduce_scatter || run.collective == Collective::allgather;
  if (run.algorithm != "ring" || run.ranks < 2 || !(run.collective == Collective::allreduce || rs_or_ag)) return {};
  const Proto proto = proto_of(run.protocol);
  const std::uint64_t ranks = run.ranks;
  RuntimePipeline p;
  p.channels = std::min(nccl_channels_by_size(run.algorithm, run.protocol, run.bytes, run.ranks), kNcclMaxChannels);
  // device/all_reduce.h, runRing: a loop moves ranks x chunk of a channel's part; the last one
  // shrinks its chunk to what is left / ranks, so a part below one loop runs one, small chunks.
  const std::uint64_t per_channel = ceil_div(std::max<std::uint64_t>(run.bytes, 1), p.channels);
  const std::uint64_t chunk = ring_chunk_bytes(proto, env);
  p.loops = std::max<std::uint64_t>(ceil_div(per_channel, ranks * chunk), 1);
  p.chunk_bytes = p.loops == 1 ? ceil_div(per_channel, ranks) : chunk;
  p.slices = proto == kSimple ? std::uint32_t(kRingChunkSteps / kRingSliceSteps) : 1;
  p.steps = rs_or_ag ? ranks - 1 : 2 * (ranks - 1);
  // The steps that cross nodes, as tuning.cc counts them (nInterSteps): 2 (nodes - 1) for an
  // allreduce, nodes - 1 otherwise; the rest cross the node's own transport.
  const std::uint64_t nodes = std::max<Rank>(run.nodes, 1);
  const std::uint64_t inter = std::min(p.steps, nodes <= 1 ? 0 : rs_or_ag ? nodes - 1 : 2 * (nodes - 1));
  // Every rank's thread block takes its slices one at a time, each after its peer's flag, and
  // every rank is at the same point of the ring: each wait is a step latency on the chain. The
  // engines price one per step (each transfer's start-up); the others add up here.
  const double chain_s = double(p.steps - inter) * step.at(run.intra) + double(inter) * step.at(run.inter);
  p.extra_sync_s = double(p.loops * p.slices - 1) * chain_s;
  return p;
}

RunRuntime run_runtime(CollectiveRuntime runtime, const RuntimeHardware& hardware, const RuntimeRun& run) {
  // NCCL discards an empty collective before it launches anything (src/enqueue.cc, taskAppend:
  // "Empty collectives can be discarded"): nothing to pay.
  if (runtime == CollectiveRuntime::none || run.bytes == 0) return {};
  RunRuntime out;
  if (run.ranks == 1) {
    out.fixed_s = nccl_one_rank_s(run.bytes, run.copy_Bps);
    return out;
  }
  const Family family = family_of(run.algorithm);
  const Proto proto = proto_of(run.protocol);
  const Rank nodes = run.nodes, ranks_per_node = run.ranks_per_node;
  out.fixed_s = 1e-6 * kBase[std::size_t(family)][proto];
  out.step.active = true;  // in-network algorithms: their latency is fixed, their steps free
  if (family == Family::ring || family == Family::tree) {
    out.step.by_transport[std::size_t(Transport::nvlink)] = hw_s(kNvlink, family, proto);
    out.step.by_transport[std::size_t(Transport::pci)] = hw_s(kPci, family, proto);
    out.step.by_transport[std::size_t(Transport::net)] = net_s(hardware, family, proto, ranks_per_node);
    if (net_overhead_applies(family, run))
      for (Transport intra : {Transport::nvlink, Transport::pci}) {
        double& s = out.step.by_transport[std::size_t(intra)];
        s = std::max(s, net_overhead_s(hardware, proto));
      }
    if (hardware.compute_capability > 0) {
      // NCCL lowers its own channel count by size and never raises it (MAXCHANNELS at most).
      out.rate.channels = std::min(nccl_channels_by_size(run.algorithm, run.protocol, run.bytes, run.ranks), kNcclMaxChannels);
      out.rate.cap_Bps = rate_cap_Bps(family, proto, out.rate.channels, hardware, nodes);
      out.rate.link_share = link_share(family, proto, nodes);
    }
    out.pipeline = nccl_pipeline(run, out.step, hardware.environment);
    out.fixed_s += out.pipeline.extra_sync_s;
    if (plateau_applies(run, hardware, out.pipeline)) scale_latencies(out, hardware.compute_capability < 80 ? kRingPlateauBeforeAmpere : kRingPlateau);
  } else {
    out.fixed_s += in_network_latency_s(hardware, family, nodes, ranks_per_node);
    out.pipeline = nccl_nvls_pipeline(run, hardware);
    if (family == Family::nvls_tree && hardware.compute_capability > 0) {
      out.rate.cap_Bps = nvls_tree_head_cap_Bps(hardware, nodes, run.ranks);
      out.rate.network_only = true;
    }
  }
  return out;
}

}  // namespace collsim
