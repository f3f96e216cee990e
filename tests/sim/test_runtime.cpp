// tests/sim/test_runtime.cpp — the collective runtime (sim/runtime.hpp): with `runtime: nccl`,
// a collective pays NCCL's base latency once and every transfer NCCL's step latency for its
// protocol and transport instead of its link classes' alpha; NVLS its whole latency once; with
// the GPUs named, a ring or tree moves no faster than NCCL's rate caps on the channels it
// starts at its size.
// Closed forms written by hand from NCCL 2.30's tuning.cc constants; the flow engine against
// SimGrid where SimGrid is built; a cluster without a runtime is priced as before.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "sim/cost_rule.hpp"
#include "sim/prediction.hpp"
#include "sim/runtime.hpp"
#include "tests/support/test_cluster.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

// Four GPUs on one NVLink switch (a star of nvlink4 class links: transport nvlink, latency 0,
// alpha 2 us, 25 GB/s x 18 x 0.844), gamma 0, with or without NCCL's runtime.
ClusterConfig nvlink_star(bool runtime) {
  return parse_cluster_config(fmt::format("name: s\nlink_classes:\n  nv: {{technology: nvlink4, links: 18}}\n"
                                          "topology: {{kind: star, endpoints: 4, link: nv}}\ngamma_s_per_byte: 0\n{}",
                                          runtime ? "runtime: nccl\n" : ""),
                              "s.yaml");
}

PredictionRecord ring(const ClusterConfig& c, std::uint64_t bytes, const Protocol& protocol, EngineKind engine) {
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"ring"};
  r.sizes = {bytes};
  r.segments = 1;
  r.protocol = protocol;
  r.engine = engine;
  return predict(r).at(0);
}

constexpr double kNvlink4_Bps = 18 * 25.0e9 * 0.844;
// The same links where NCCL drives them on named Hopper GPUs: its 20.6 GB/s a link (topo.h).
constexpr double kNcclNvlink4_Bps = 18 * 20.6e9;

// NCCL's runtime for `algorithm` with `protocol` on `nodes` nodes of `per_node` ranks, no GPU
// named (latencies only) unless `hardware` names one.
RunRuntime nccl(std::string_view algorithm, const Protocol& protocol, Rank nodes, Rank per_node,
                std::uint64_t bytes = 1 << 20, RuntimeHardware hardware = {}) {
  return run_runtime(CollectiveRuntime::nccl, hardware,
                     RuntimeRun{algorithm, protocol, bytes, nodes * per_node, nodes, per_node});
}

}  // namespace

TEST_CASE("with NCCL's runtime a ring pays the base latency once and the step latency per step, by protocol") {
  const ClusterConfig c = nvlink_star(true);
  const std::uint64_t n = 4 << 20;
  const double chunk = double(n) / 4;
  // tuning.cc: Ring baseLatencies {LL 6.6, LL128 14.0, Simple 8.4} us, NVLink hwLatencies
  // {0.6, 1.9, 3.4} us; LL carries 8 of each 16 bytes, LL128 120 of 128 (sim/protocol.cpp).
  // NCCL's pipeline: Simple takes each chunk step in 2 slices, a flag wait each, so its 6 steps
  // wait 6 more times (one loop of the 64 channels it starts: 64 KiB each, below 4 x 2 MiB);
  // LL and LL128 take one slice per chunk step in one loop: nothing more.
  struct Case {
    const char* name;
    double base_us, step_us, payload, pipeline_us;
  } cases[] = {{"simple", 8.4, 3.4, 1.0, 6 * 3.4}, {"ll", 6.6, 0.6, 0.5, 0}, {"ll128", 14.0, 1.9, 120.0 / 128.0, 0}};
  for (const Case& k : cases)
    for (EngineKind engine : {EngineKind::analytic, EngineKind::flow}) {
      INFO(k.name << " " << to_string(engine));
      // 2(P-1) = 6 steps of N/P bytes each, one after the other (each waits for the one before).
      const double fixed = 1e-6 * (k.base_us + k.pipeline_us);
      const double expected = fixed + 6 * (1e-6 * k.step_us + chunk / (kNvlink4_Bps * k.payload));
      const PredictionRecord rec = ring(c, n, find_protocol(k.name), engine);
      REQUIRE(rec.time_s == Approx(expected).epsilon(1e-12));
      CHECK(rec.runtime_s == Approx(fixed).epsilon(1e-12));  // what --detail reports apart
      CHECK(rec.lower_bound_s >= rec.runtime_s);
      // The closed form (analytic engine, one port) is priced by the same runtime.
      if (engine == EngineKind::analytic) CHECK(rec.closed_form_s.value() == Approx(expected).epsilon(1e-12));
    }
}

// Four GPUs of one node on its NVSwitch (the star's links; one node, as NCCL counts hosts), with
// the runtime's map naming the GPUs (Hopper, one node: NCCL's llMaxBws 141 GB/s,
// perChMaxRingLL128Bws 36.7 GB/s per channel).
ClusterConfig hopper_star() {
  return parse_cluster_config("name: s\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n"
                              "nodes: {count: 1, gpus_per_node: 4, switch: nvswitch, gpu_link: nv}\n"
                              "gamma_s_per_byte: 0\n"
                              "runtime: {library: nccl, compute_capability: 9.0, host_cpu: intel}\n",
                              "s.yaml");
}

TEST_CASE("NCCL starts channels by size: bytes per thread and threads per channel of each protocol") {
  const Protocol &ll = find_protocol("ll"), &ll128 = find_protocol("ll128"), &simple = simple_protocol();
  // Simple: 512 threads x 64 bytes = 32 KiB a channel; LL128: 640 x 8 = 5 KiB; LL: 512 x 8,
  // times the ranks for the ring (4 KiB x 8 = 32 KiB on 8 ranks), not for the tree.
  CHECK(nccl_channels_by_size("ring", simple, 1 << 20, 8) == 32);
  CHECK(nccl_channels_by_size("ring", simple, (32 << 10) - 1, 8) == 1);
  CHECK(nccl_channels_by_size("ring", ll128, 40960, 8) == 8);
  CHECK(nccl_channels_by_size("ring", ll, 1 << 20, 8) == 32);
  CHECK(nccl_channels_by_size("nccl-tree", ll, 1 << 20, 8) == 256);
  CHECK(nccl_channels_by_size("ring", ll, 0, 8) == 1);
}

TEST_CASE("NCCL's rate caps by protocol, algorithm, GPU generation and nodes (tuning.cc)") {
  const Protocol &ll = find_protocol("ll"), &ll128 = find_protocol("ll128"), &simple = simple_protocol();
  const RuntimeHardware hopper{90, false}, ampere{80, false}, volta_amd{70, true}, ampere_amd{80, true};
  // LL: the whole llMaxBws; one node by GPU (Hopper 141, Ampere 87.7), across nodes by host
  // (Intel and others 39 / 20.4, AMD 22.5 / 19.0 on 2 / more nodes).
  CHECK(nccl("ring", ll, 1, 8, 1 << 20, hopper).rate.cap_Bps == Approx(141e9));
  CHECK(nccl("ring", ll, 1, 8, 1 << 20, ampere).rate.cap_Bps == Approx(87.7e9));
  CHECK(nccl("ring", ll, 2, 8, 1 << 20, hopper).rate.cap_Bps == Approx(39e9));
  CHECK(nccl("ring", ll, 2, 8, 1 << 20, ampere_amd).rate.cap_Bps == Approx(22.5e9));
  CHECK(nccl("ring", ll, 4, 8, 1 << 20, volta_amd).rate.cap_Bps == Approx(19.0e9));
  // LL128 ring: channels x 36.7 GB/s on Hopper, 20 on Ampere.
  CHECK(nccl("ring", ll128, 1, 8, 40960, hopper).rate.cap_Bps == Approx(8 * 36.7e9));
  CHECK(nccl("ring", ll128, 1, 8, 40960, ampere).rate.cap_Bps == Approx(8 * 20e9));
  // The tree: channels x perChMaxTreeBws (Ampere, 2 nodes: 23.6), and LL128's own where lower.
  CHECK(nccl("nccl-tree", simple, 2, 8, 65536, ampere).rate.cap_Bps == Approx(2 * 23.6e9));
  CHECK(nccl("nccl-tree", ll128, 4, 8, 5120, hopper).rate.cap_Bps == Approx(29.0e9));
  CHECK(nccl("nccl-tree", ll, 1, 8, 1 << 30, hopper).rate.cap_Bps == Approx(141e9));
  // The Simple ring has none (its graph search's rate: the links here); no GPU named, no caps;
  // NVLS none (its rate is the switch's).
  CHECK_FALSE(nccl("ring", simple, 1, 8, 1 << 20, hopper).rate.active());
  CHECK_FALSE(nccl("ring", ll, 1, 8).rate.active());
  CHECK_FALSE(nccl("nvls", simple, 1, 8, 1 << 20, hopper).rate.active());
  CHECK(nccl("ring", ll, 1, 8, 1 << 20, hopper).rate.channels == 32);
  // The share of the links' rate each protocol gets on each algorithm, in place of its payload
  // fraction: the ring's LL 1/2, LL128 0.92, Simple 1; the tree's 0.92, its LL 0.92 / 3.8, its
  // LL128 0.92 x 7/9 on one node and 0.92 x 120/128 across nodes; none without a GPU named.
  CHECK(nccl("ring", ll, 1, 8, 1 << 20, hopper).rate.link_share == Approx(0.5));
  CHECK(nccl("ring", ll128, 2, 8, 1 << 20, hopper).rate.link_share == Approx(0.92));
  CHECK(nccl("ring", simple, 2, 8, 1 << 20, hopper).rate.link_share == Approx(1.0));
  CHECK(nccl("nccl-tree", simple, 2, 8, 1 << 20, hopper).rate.link_share == Approx(0.92));
  CHECK(nccl("nccl-tree", ll, 2, 8, 1 << 20, hopper).rate.link_share == Approx(0.92 / 3.8));
  CHECK(nccl("nccl-tree", ll128, 1, 8, 1 << 20, hopper).rate.link_share == Approx(0.92 * 7 / 9));
  CHECK(nccl("nccl-tree", ll128, 2, 8, 1 << 20, hopper).rate.link_share == Approx(0.92 * 120 / 128));
  CHECK(nccl("nccl-tree", ll128, 2, 8).rate.link_share == 0);
}

TEST_CASE("a ring under NCCL's rate caps, by hand: one size per regime") {
  const ClusterConfig c = hopper_star();
  // 4 ranks, 6 steps of N/4; NVLink LL 0.6 us a step, LL128 1.9 us, Simple 3.4 us; bases 6.6,
  // 14, 8.4 us. The links give LL half of 370.8 GB/s (NCCL's 20.6 GB/s a link), LL128 0.92 of
  // it (NCCL's shares).
  // NCCL's pipeline adds a step latency on each of the 6 steps for every further flag wait:
  // Simple's second slice per chunk step; LL's loops over 64 channels of 32 KiB chunks (64 MiB:
  // 1 MiB a channel, 8 loops of 4 x 32 KiB); LL128's of 576,000-byte chunks (256 MiB: 2 loops).
  struct Case {
    const char* protocol;
    std::uint64_t bytes;
    double base_us, step_us, rate_Bps;
  } cases[] = {
      // latency-bound: 4 KiB of LL on one channel (the cap, 141 GB/s, hardly matters)
      {"ll", 4096, 6.6, 0.6, 141e9},
      // channel-bound: 40 KiB of LL128 starts 8 channels, 8 x 36.7 GB/s below the links' 341
      {"ll128", 40960, 14.0, 1.9, 8 * 36.7e9},
      // rate-bound: 64 MiB of LL at llMaxBws 141 GB/s, below the links' 185
      {"ll", 64 << 20, 6.6 + 7 * 6 * 0.6, 0.6, 141e9},
      // bandwidth-bound: 256 MiB of Simple at the links' rate, no cap
      {"simple", 256 << 20, 8.4 + 6 * 3.4, 3.4, kNcclNvlink4_Bps},
      // bandwidth-bound: 256 MiB of LL128 at NCCL's share of the links, 0.92 (not 120/128)
      {"ll128", 256 << 20, 14.0 + 6 * 1.9, 1.9, 0.92 * kNcclNvlink4_Bps},
  };
  for (const Case& k : cases)
    for (EngineKind engine : {EngineKind::analytic, EngineKind::flow}) {
      INFO(k.protocol << " " << k.bytes << " " << to_string(engine));
      const double expected = 1e-6 * k.base_us + 6 * (1e-6 * k.step_us + double(k.bytes) / 4 / k.rate_Bps);
      const PredictionRecord rec = ring(c, k.bytes, find_protocol(k.protocol), engine);
      REQUIRE(rec.time_s == Approx(expected).epsilon(1e-12));
      if (engine == EngineKind::analytic) CHECK(rec.closed_form_s.value() == Approx(expected).epsilon(1e-12));
    }
}

TEST_CASE("without a runtime the links' alpha stays, and the runtime changes only the start-up") {
  const ClusterConfig plain = nvlink_star(false), nccl = nvlink_star(true);
  const std::uint64_t n = 4 << 20;
  const double alpha = 2e-6, base = 8.4e-6, step = 3.4e-6;
  const double links_only = ring(plain, n, simple_protocol(), EngineKind::flow).time_s;
  REQUIRE(links_only == Approx(6 * (alpha + double(n) / 4 / kNvlink4_Bps)).epsilon(1e-12));
  // NCCL's Simple ring waits twice per chunk step (two slices): 6 more step latencies.
  REQUIRE(ring(nccl, n, simple_protocol(), EngineKind::flow).time_s ==
          Approx(links_only + base + 6 * step + 6 * (step - alpha)).epsilon(1e-12));
}

TEST_CASE("NCCL's ring pipeline: chunks of its buffers, loops of ranks x chunk, slices, a flag wait each") {
  const Protocol &ll = find_protocol("ll"), &ll128 = find_protocol("ll128"), &simple = simple_protocol();
  const RuntimeHardware hopper{90, false};
  // Simple, 8 ranks on one node, 1 GiB: 64 channels (MAXCHANNELS) of 16 MiB, one loop of
  // 8 x 2 MiB chunks (4 MiB buffer / 8 steps x 4 chunk steps), 2 slices each: one wait more
  // per step, 14 x 3.4 us.
  RuntimePipeline p = nccl("ring", simple, 1, 8, 1ull << 30).pipeline;
  CHECK(p.channels == 64);
  CHECK(p.chunk_bytes == 2u << 20);
  CHECK(p.loops == 1);
  CHECK(p.slices == 2);
  CHECK(p.steps == 14);
  CHECK(p.extra_sync_s == Approx(14 * 3.4e-6));
  // 4 GiB: 64 MiB a channel, 4 loops x 2 slices = 8 waits per step, 7 more.
  p = nccl("ring", simple, 1, 8, 4ull << 30).pipeline;
  CHECK(p.loops == 4);
  CHECK(p.extra_sync_s == Approx(7 * 14 * 3.4e-6));
  // 16 MiB: one loop, its chunk shrunk to the channel's 256 KiB / 8 ranks.
  p = nccl("ring", simple, 1, 8, 16 << 20).pipeline;
  CHECK(p.chunk_bytes == 32u << 10);
  CHECK(p.extra_sync_s == Approx(14 * 3.4e-6));
  // LL: 512 KiB buffer / 8 steps, half of it data: 32 KiB chunks; 1 MiB on 8 ranks starts 32
  // channels of 32 KiB, one loop of 4 KiB chunks; one slice: nothing more.
  p = nccl("ring", ll, 1, 8, 1 << 20).pipeline;
  CHECK(p.channels == 32);
  CHECK(p.chunk_bytes == 4096);
  CHECK(p.extra_sync_s == 0);
  // LL128: 120 x 640 x 8 x 8 bytes / 8 steps, 15 of 16 words data: 576,000-byte chunks; 8 GiB on
  // 8 ranks: 64 channels of 128 MiB, 30 loops, 29 more waits per step at 1.9 us.
  p = nccl("ring", ll128, 1, 8, 8ull << 30).pipeline;
  CHECK(p.loops == 30);
  CHECK(p.chunk_bytes == 576000);
  CHECK(p.extra_sync_s == Approx(29 * 14 * 1.9e-6));
  // Across 2 nodes of 8: 30 steps, 2 of them network ones (14 us), the others NVLink (3.4 us).
  p = nccl("ring", simple, 2, 8, 1ull << 30).pipeline;
  CHECK(p.steps == 30);
  CHECK(p.extra_sync_s == Approx(28 * 3.4e-6 + 2 * 14e-6));
  // Allgather and reduce-scatter: P - 1 steps; the tree, the chain and broadcast: no ring pipeline.
  RuntimeRun ag{"ring", simple, 1ull << 30, 8, 1, 8};
  ag.collective = Collective::allgather;
  CHECK(run_runtime(CollectiveRuntime::nccl, {}, ag).pipeline.steps == 7);
  CHECK_FALSE(nccl("nccl-tree", simple, 1, 8).pipeline.active());
  CHECK_FALSE(nccl("chain", simple, 1, 8).pipeline.active());
  // Across nodes NCCL's model lengthens a Simple ring allreduce's whole latency 1.4x on Ampere
  // and later ("Plateau effect of ring"): base, steps and pipeline; not on one node, not for LL.
  const RunRuntime across = nccl("ring", simple, 2, 8, 1ull << 30, hopper);
  CHECK(across.fixed_s == Approx(1.4 * (8.4e-6 + 28 * 3.4e-6 + 2 * 14e-6)));
  CHECK(across.step.at(Transport::net) == Approx(1.4 * 14e-6));
  CHECK(nccl("ring", simple, 1, 8, 1ull << 30, hopper).fixed_s == Approx(8.4e-6 + 14 * 3.4e-6));
  CHECK(nccl("ring", ll, 2, 8, 1ull << 30, hopper).step.at(Transport::net) == Approx(2.7e-6));
}

TEST_CASE("a route's step is priced by the widest transport it crosses") {
  // GPU -> NIC (pcie) -> fabric (ib) -> NIC -> GPU is a network step; GPU -> switch -> GPU an
  // NVLink one. NET Ring hwLatencies {2.7, 4.0, 14.0} us, plus the route's hop latencies.
  const ClusterConfig c = parse_cluster_config(
      "name: n\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n  pc: {technology: pcie5}\n"
      "  ib: {technology: ib-ndr}\nnodes: {count: 2, gpus_per_node: 2, switch: nvswitch, gpu_link: nv, "
      "nics_per_node: 2, nic_link: pc}\ntopology: {kind: star, link: ib}\ngamma_s_per_byte: 0\nruntime: nccl\n",
      "n.yaml");
  Protocol simple = simple_protocol();
  simple.step = nccl("ring", simple, 2, 2).step;
  std::vector<LinkId> inside, across;
  c.topology->route(0, 1, 0, inside);
  c.topology->route(0, 2, 0, across);
  double hops_s = 0;
  for (LinkId l : across) hops_s += c.topology->network.link(l).latency_s;
  REQUIRE(hops_s > 0);
  REQUIRE(route_cost(c.topology->network, inside, 1024, 1, simple).startup_s == Approx(3.4e-6).epsilon(1e-12));
  REQUIRE(route_cost(c.topology->network, across, 1024, 1, simple).startup_s == Approx(14.0e-6 + hops_s).epsilon(1e-12));
  // Without the runtime the same routes pay their classes' largest alpha (2 us each).
  REQUIRE(route_cost(c.topology->network, across, 1024, 1, simple_protocol()).startup_s ==
          Approx(2e-6 + hops_s).epsilon(1e-12));
}

TEST_CASE("NVLS, NVLS-tree and CollNet pay NCCL's whole latency once and nothing per step") {
  const Protocol simple = simple_protocol();
  // NVLS: NVLink hwLatency 25 us on one node, + NET 18 us across nodes.
  REQUIRE(nccl("nvls", simple, 1, 8).fixed_s == Approx(25e-6));
  REQUIRE(nccl("nvls", simple, 4, 8).fixed_s == Approx(43e-6));
  // NVLS-tree: 25 + 2 log2(nodes) x 20.9 us.
  REQUIRE(nccl("nvls-tree", simple, 8, 8).fixed_s == Approx(25e-6 + 6 * 20.9e-6));
  // CollNet Direct: 2 (3.7 + 7 x 0.4) + 31 us on nodes of 8 GPUs.
  REQUIRE(nccl("collnet", simple, 16, 8).fixed_s == Approx(2 * (3.7 + 2.8) * 1e-6 + 31e-6));
  const RunRuntime nvls = nccl("nvls", simple, 1, 8);
  REQUIRE(nvls.step.active);
  REQUIRE(nvls.step.at(Transport::nvlink) == 0);
  // Tree and Ring keep their own constants; no runtime costs nothing.
  REQUIRE(nccl("two-tree", find_protocol("ll"), 1, 8).fixed_s == Approx(6.8e-6));
  REQUIRE(nccl("two-tree", find_protocol("ll"), 1, 8).step.at(Transport::net) ==
          Approx(5.0e-6));
  const RunRuntime none = run_runtime(CollectiveRuntime::none, {}, RuntimeRun{"ring", simple, 1 << 20, 8, 1, 8});
  REQUIRE(none.fixed_s == 0);
  REQUIRE_FALSE(none.step.active);
}

TEST_CASE("NCCL's NVLS pipeline: its channels, chunk by size, loops of heads x chunk, a segment per loop") {
  const Protocol& simple = simple_protocol();
  const RuntimeHardware hopper{90, false}, blackwell{100, false};
  // 8 H100 on one node: 16 channels (NVLS_NCHANNELS_SM90); a channel's bytes against 64 / 8 / 2 x
  // 8 heads x chunk (calcCollChunking): 1 GiB keeps 128 KiB chunks, 64 MiB a channel, 64 loops.
  RuntimePipeline p = nccl("nvls", simple, 1, 8, 1ull << 30, hopper).pipeline;
  CHECK(p.channels == 16);
  CHECK(p.chunk_bytes == 128u << 10);
  CHECK(p.loops == 64);
  CHECK(p.segments == 64);
  CHECK(p.extra_sync_s == 0);
  // 64 MiB: 4 MiB a channel, below 64 x 8 x 128 KiB: 64 KiB chunks, 8 loops.
  p = nccl("nvls", simple, 1, 8, 64 << 20, hopper).pipeline;
  CHECK(p.chunk_bytes == 64u << 10);
  CHECK(p.loops == 8);
  // 16 MiB: 1 MiB a channel, below 8 x 8 x 64 KiB: 32 KiB, 4 loops; 8 MiB: 2 loops.
  p = nccl("nvls", simple, 1, 8, 16 << 20, hopper).pipeline;
  CHECK(p.chunk_bytes == 32u << 10);
  CHECK(p.loops == 4);
  CHECK(nccl("nvls", simple, 1, 8, 8 << 20, hopper).pipeline.loops == 2);
  // 1 MiB: 64 KiB a channel, below 2 x 8 x 32 KiB: 16 KiB chunks, one loop, whose chunk NCCL
  // shrinks to 64 KiB / 8 heads rounded up to 16 KiB.
  p = nccl("nvls", simple, 1, 8, 1 << 20, hopper).pipeline;
  CHECK(p.loops == 1);
  CHECK(p.chunk_bytes == 16u << 10);
  // 32 KiB: two cells of 16 KiB (32 KiB of traffic each, scheduleCollTasksToPlan): 2 channels.
  p = nccl("nvls", simple, 1, 8, 32 << 10, hopper).pipeline;
  CHECK(p.channels == 2);
  CHECK(p.chunk_bytes == 16u << 10);
  // NVLS-tree rounds its last chunk to 16 bytes: 1 MiB on 2 nodes of 8, 64 KiB / 8 heads.
  CHECK(nccl("nvls-tree", simple, 2, 8, 1 << 20, hopper).pipeline.chunk_bytes == 8u << 10);
  // 4 GiB: 256 loops, the schedule at most 64 segments.
  p = nccl("nvls", simple, 1, 8, 4ull << 30, hopper).pipeline;
  CHECK(p.loops == 256);
  CHECK(p.segments == kMaxNvlsSegments);
  // Blackwell on one node: 24 channels (NVLS_NCHANNELS_SM100_NVL).
  CHECK(nccl("nvls", simple, 1, 8, 1ull << 30, blackwell).pipeline.channels == 24);
  // NVLS-tree on 2 nodes of 8: a channel's 2 MiB of 32 MiB below 4 x 8 x 128 KiB: 64 KiB, 4 loops;
  // on 4 nodes or more nvlsTreeMaxChunkSize caps it at 64 KiB even at 1 GiB.
  p = nccl("nvls-tree", simple, 2, 8, 32 << 20, hopper).pipeline;
  CHECK(p.chunk_bytes == 64u << 10);
  CHECK(p.loops == 4);
  CHECK(nccl("nvls-tree", simple, 2, 8, 1ull << 30, hopper).pipeline.chunk_bytes == 128u << 10);
  CHECK(nccl("nvls-tree", simple, 4, 8, 1ull << 30, hopper).pipeline.chunk_bytes == 64u << 10);
  // Not modelled: no GPU named, Blackwell across nodes (its NIC-rate tuning), the other algorithms.
  CHECK_FALSE(nccl("nvls", simple, 1, 8, 1ull << 30).pipeline.active());
  CHECK_FALSE(nccl("nvls-tree", simple, 2, 8, 1ull << 30, blackwell).pipeline.active());
  CHECK_FALSE(nccl("collnet", simple, 2, 8, 1ull << 30, hopper).pipeline.active());
  CHECK(nccl("ring", simple, 1, 8, 1ull << 30, hopper).pipeline.segments == 0);
}

TEST_CASE("NCCL's environment sets its pipelines' chunks: NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE, NVLSTREE_MAX") {
  const Protocol &ll128 = find_protocol("ll128"), &simple = simple_protocol();
  RuntimeHardware p5{90, true};
  p5.environment = {8 << 20, 512 << 10, 512 << 10};  // aws-ofi-nccl's p5 settings
  // Simple ring: an 8 MiB buffer makes 4 MiB chunks (8 MiB / 8 steps x 4): 4 GiB on 8 ranks
  // runs 2 loops where NCCL's 4 MiB buffer runs 4, 3 more waits per step in place of 7.
  RuntimePipeline p = nccl("ring", simple, 1, 8, 4ull << 30, p5).pipeline;
  CHECK(p.chunk_bytes == 4u << 20);
  CHECK(p.loops == 2);
  CHECK(p.extra_sync_s == Approx(3 * 14 * 3.4e-6));
  // The buffer is Simple's: LL128's chunk stays 576,000 bytes.
  CHECK(nccl("ring", ll128, 1, 8, 8ull << 30, p5).pipeline.chunk_bytes == 576000);
  // NVLS: the Simple step (1 MiB) capped at NCCL_NVLS_CHUNKSIZE 512 KiB, then halved by a
  // channel's bytes against 64 / 8 / 2 x 8 heads x chunk: at 1 GiB a channel's 64 MiB is below
  // 64 x 8 x 512 KiB = 256 MiB, so 64 KiB (NCCL's 128 KiB default kept 128 KiB there); at 16 GiB
  // (1 GiB a channel) 512 KiB stays, 256 loops where 128 KiB made 1,024.
  CHECK(nccl("nvls", simple, 1, 8, 1ull << 30, p5).pipeline.chunk_bytes == 64u << 10);
  p = nccl("nvls", simple, 1, 8, 16ull << 30, p5).pipeline;
  CHECK(p.chunk_bytes == 512u << 10);
  CHECK(p.loops == 256);
  // NVLS-tree on 4 nodes: NVLSTREE_MAX 512 KiB in place of 64 KiB, then halved by a channel's
  // bytes against 32 / 16 / 4 / 1 x 8 heads x chunk: 4 GiB (256 MiB a channel) keeps 512 KiB;
  // 1 GiB (64 MiB, below 32 x 8 x 512 KiB) 256 KiB; 256 MiB (16 MiB, below 16 x 8 x 256 KiB) 128 KiB.
  CHECK(nccl("nvls-tree", simple, 4, 8, 4ull << 30, p5).pipeline.chunk_bytes == 512u << 10);
  CHECK(nccl("nvls-tree", simple, 4, 8, 1ull << 30, p5).pipeline.chunk_bytes == 256u << 10);
  CHECK(nccl("nvls-tree", simple, 4, 8, 256u << 20, p5).pipeline.chunk_bytes == 128u << 10);
  // NCCL's defaults where the environment says nothing (the tests above).
  CHECK(nccl("nvls-tree", simple, 4, 8, 4ull << 30, RuntimeHardware{90, true}).pipeline.chunk_bytes == 64u << 10);
}

TEST_CASE("a config's NCCL environment is read in bytes, or refused saying what NCCL takes") {
  const std::string base = "name: s\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n"
                           "nodes: {count: 1, gpus_per_node: 8, switch: nvswitch, gpu_link: nv}\ngamma_s_per_byte: 0\n"
                           "runtime: {library: nccl, compute_capability: 9.0, host_cpu: amd";
  const ClusterConfig c =
      parse_cluster_config(base + ", buffsize: 8388608, nvls_chunksize: 524288, nvlstree_max_chunksize: 262144}\n", "s.yaml");
  CHECK(c.runtime_hardware.environment.buffsize == 8u << 20);
  CHECK(c.runtime_hardware.environment.nvls_chunksize == 512u << 10);
  CHECK(c.runtime_hardware.environment.nvlstree_max_chunksize == 256u << 10);
  CHECK(parse_cluster_config(base + "}\n", "s.yaml").runtime_hardware.environment.buffsize == 0);
  REQUIRE_THAT(test::config_error(base + ", buffsize: 100}\n"),
               Catch::Contains("'runtime.buffsize' must be a whole number of bytes from 4096 to 1073741824"));
  REQUIRE_THAT(test::config_error(base + ", nvls_chunksize: 150000.5}\n"),
               Catch::Contains("'runtime.nvls_chunksize' must be a whole number of bytes"));
}

TEST_CASE("a network's reported latency adds to NCCL's NET figures on every step across nodes, twice with Simple") {
  RuntimeHardware efa;
  efa.net_latency_s = 75e-6;  // aws-ofi-nccl's p5 platform: .latency = 75.0 (us)
  const Protocol ll = find_protocol("ll"), ll128 = find_protocol("ll128"), simple = simple_protocol();
  // By hand, as tuning.cc's interLat: NCCL's NET figure (ring 2.7 / 4.0 / 14, tree 5.0 / 8.5 /
  // 14 us) + 75 us, + 75 us more for Simple's flush; NVLink steps keep NCCL's own.
  CHECK(nccl("ring", ll, 4, 8, 1 << 20, efa).step.at(Transport::net) == Approx(77.7e-6));
  CHECK(nccl("ring", ll128, 4, 8, 1 << 20, efa).step.at(Transport::net) == Approx(79e-6));
  CHECK(nccl("nccl-tree", ll128, 4, 8, 1 << 20, efa).step.at(Transport::net) == Approx(83.5e-6));
  CHECK(nccl("nccl-tree", simple, 4, 8, 1 << 20, efa).step.at(Transport::net) == Approx(164e-6));
  CHECK(nccl("ring", ll128, 4, 8, 1 << 20, efa).step.at(Transport::nvlink) == Approx(1.9e-6));
  CHECK(nccl("ring", ll128, 4, 8).step.at(Transport::net) == Approx(4.0e-6));
  // NVLS-tree's whole latency: 25 us in the node + 2 log2(8 nodes) network steps of
  // 20.9 + 2 x 75 us (Simple).
  CHECK(nccl("nvls-tree", simple, 8, 8, 1 << 20, efa).fixed_s == Approx(25e-6 + 6 * 170.9e-6));
  // Read from the runtime map as a time; none given: 0 (InfiniBand's plugin reports none).
  const std::string base = "name: s\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n"
                           "nodes: {count: 1, gpus_per_node: 8, switch: nvswitch, gpu_link: nv}\ngamma_s_per_byte: 0\n"
                           "runtime: {library: nccl, compute_capability: 9.0, host_cpu: amd";
  CHECK(parse_cluster_config(base + ", net_latency_s: 75us}\n", "s.yaml").runtime_hardware.net_latency_s ==
        Approx(75e-6));
  CHECK(parse_cluster_config(base + "}\n", "s.yaml").runtime_hardware.net_latency_s == 0);
  REQUIRE_THAT(test::config_error(base + ", net_latency_s: -1us}\n"), Catch::Contains("runtime.net_latency_s"));
  REQUIRE_THAT(test::config_error(base + ", net_latency_s: {ll: 20us}}\n"), Catch::Contains("runtime.net_latency_s"));
  // The key that took its place before is refused, naming the keys the map takes.
  REQUIRE_THAT(test::config_error(base + ", net_step_latency_s: 20us}\n"), Catch::Contains("net_latency_s"));
}

namespace {
// One node of 8 GPUs on an NVSwitch that reduces far faster than its links (nvlink4 at NCCL's
// 18 x 20.6 GB/s, latency 0), gamma 0, NCCL's runtime on Hopper.
ClusterConfig nvls_node() {
  return parse_cluster_config(
      "name: t\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n"
      "nodes: {count: 1, gpus_per_node: 8, switch: nvswitch, gpu_link: nv, reduction: nvls, reduction_Bps: 1.0e+15, "
      "reduction_latency_s: 0}\ngamma_s_per_byte: 0\nruntime: {library: nccl, compute_capability: 9.0, host_cpu: intel}\n",
      "t.yaml");
}
}  // namespace

TEST_CASE("NVLS on 8 H100 by hand: NCCL's latency, then its loops as segments through the switch") {
  const ClusterConfig c = nvls_node();
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"nvls"};
  r.engine = EngineKind::analytic;
  const double p = 8;
  // A hop moves one part of one segment, N / (P S) bytes, at the link's rate (no alpha: NVLS's
  // steps cost nothing, its latency is the 25 us once). One segment: 2P hops (nvls.cpp's closed
  // form). S >= 4 segments: each GPU's send port carries P parts up and one write-back per
  // segment, (P + 1) S hops, and the last segment's sum back, write-back and the P - 1
  // multicasts its owner's port receives one after another, 2P + 3 more.
  const auto by_hand = [&](double n, double s) {
    const double hop = n / (p * s) / kNcclNvlink4_Bps;
    return 25e-6 + (s == 1 ? 2 * p : (p + 1) * s + 2 * p + 3) * hop;
  };
  // 1 MiB: one loop; 16 MiB: 4 loops of 32 KiB chunks; 1 GiB: 64 loops of 128 KiB.
  for (const auto& [bytes, loops] : {std::pair{1ull << 20, 1.0}, {16ull << 20, 4.0}, {1ull << 30, 64.0}}) {
    INFO(bytes);
    r.sizes = {bytes};
    const PredictionRecord rec = predict(r).at(0);
    CHECK(rec.segments == std::uint32_t(loops));
    CHECK(rec.time_s == Approx(by_hand(double(bytes), loops)).epsilon(1e-9));
  }
  // --segments still decides where given.
  r.sizes = {16ull << 20};
  r.segments = 8;
  CHECK(predict(r).at(0).time_s == Approx(by_hand(16 << 20, 8)).epsilon(1e-9));
}

TEST_CASE("a config names its runtime and its classes' transport, or is refused saying what is expected") {
  REQUIRE(nvlink_star(true).runtime == CollectiveRuntime::nccl);
  REQUIRE(nvlink_star(false).runtime == CollectiveRuntime::none);
  REQUIRE(nvlink_star(true).topology->network.link_class(0).transport == Transport::nvlink);
  const std::string base = "name: s\nlink_classes:\n  e: {bandwidth_Bps: 1.0e+9, transport: net}\n"
                           "topology: {kind: star, endpoints: 4, link: e}\ngamma_s_per_byte: 0\n";
  REQUIRE(parse_cluster_config(base, "s.yaml").topology->network.link_class(0).transport == Transport::net);
  REQUIRE_THAT(test::config_error(base + "runtime: mpich\n"), Catch::Contains("'runtime' must be nccl or none, got 'mpich'"));
  // The map form names the GPUs' compute capability and the hosts' CPU, both required.
  REQUIRE(hopper_star().runtime_hardware.compute_capability == 90);
  REQUIRE_FALSE(hopper_star().runtime_hardware.amd_hosts);
  const auto map = [&](const std::string& body) { return test::config_error(base + "runtime: {" + body + "}\n"); };
  REQUIRE_THAT(map("library: nccl, host_cpu: amd"), Catch::Contains("missing key 'compute_capability' in 'runtime'"));
  REQUIRE_THAT(map("library: nccl, compute_capability: 9.0"), Catch::Contains("missing key 'host_cpu' in 'runtime'"));
  REQUIRE_THAT(map("compute_capability: 9.0, host_cpu: amd"), Catch::Contains("missing key 'library' in 'runtime'"));
  REQUIRE_THAT(map("library: nccl, compute_capability: 9.05, host_cpu: amd"),
               Catch::Contains("'runtime.compute_capability' must be a CUDA compute capability such as 8.0 or 9.0"));
  REQUIRE_THAT(map("library: nccl, compute_capability: 90, host_cpu: amd"),
               Catch::Contains("'runtime.compute_capability' must be a CUDA compute capability"));
  REQUIRE_THAT(map("library: nccl, compute_capability: 9.0, host_cpu: sparc"),
               Catch::Contains("'runtime.host_cpu' must be amd, intel, arm or power, got 'sparc'"));
  REQUIRE_THAT(map("library: nccl, compute_capability: 9.0, host_cpu: amd, gpus: 8"),
               Catch::Contains("unknown key 'gpus' in 'runtime'"));
  std::string warp = base;
  warp.replace(warp.find("transport: net"), 14, "transport: warp");
  REQUIRE_THAT(test::config_error(warp), Catch::Contains("unknown transport 'warp' (nvlink, pci, net)"));
}

#ifdef COLLSIM_HAVE_SIMGRID
TEST_CASE("NVLS-tree: each head's messages across nodes at most perChMaxNVLSTreeBw x P / (2 (P - 1))") {
  const Protocol& simple = simple_protocol();
  const RuntimeHardware hopper{90, false}, blackwell{100, false};
  // tuning.cc: Hopper 57.7 GB/s per channel on 2 nodes, 45.5 on more; Blackwell 96 and 80; the
  // NVLS graph's channels are its heads, and algorithm bandwidth is bus bandwidth x P / nsteps.
  const RunRuntime two = nccl("nvls-tree", simple, 2, 8, 1 << 30, hopper);
  CHECK(two.rate.cap_Bps == Approx(57.7e9 * 16 / 30));
  CHECK(two.rate.network_only);
  CHECK(nccl("nvls-tree", simple, 4, 8, 1 << 30, hopper).rate.cap_Bps == Approx(45.5e9 * 32 / 62));
  CHECK(nccl("nvls-tree", simple, 2, 4, 1 << 30, blackwell).rate.cap_Bps == Approx(96e9 * 8 / 14));
  // No GPU named: no cap; NVLS and the ring's caps bind every message as before.
  CHECK_FALSE(nccl("nvls-tree", simple, 2, 8).rate.active());
  CHECK_FALSE(nccl("ring", find_protocol("ll"), 2, 8, 1 << 20, hopper).rate.network_only);
}

TEST_CASE("NVLS-tree on 2 nodes x 8 H100 by hand: each head's part crosses the network at the head's cap") {
  // Networks much faster than the cap, and NVLink and the switch too: what is left is NCCL's
  // fixed latency (25 us NVLS + 2 x 20.9 us for the 2-node tree) and the heads' parts, N / 8 of
  // each node's sum, crossing at 57.7 GB/s x 16 / 30 in the schedule's segments, one after
  // another on each head's channel to its peer.
  const ClusterConfig c = parse_cluster_config(
      "name: t\nlink_classes:\n  nv: {technology: nvlink4, bandwidth_Bps: 1.0e+14}\n"
      "  ib: {technology: ib-ndr, bandwidth_Bps: 1.0e+14}\n"
      "nodes: {count: 2, gpus_per_node: 8, switch: nvswitch, gpu_link: nv, reduction: nvls, reduction_Bps: 1.0e+15, "
      "reduction_latency_s: 0, nics_per_node: 8, nic_link: ib}\ntopology: {kind: star, link: ib}\n"
      "gamma_s_per_byte: 0\nruntime: {library: nccl, compute_capability: 9.0, host_cpu: intel}\n",
      "t.yaml");
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"nvls-tree"};
  r.engine = EngineKind::analytic;
  r.sizes = {1ull << 30};
  const double cap = 57.7e9 * 16 / 30, head_part = double(1ull << 30) / 8;
  const double fixed = 25e-6 + 2 * 20.9e-6;
  const PredictionRecord rec = predict(r).at(0);
  CHECK(rec.time_s >= fixed + head_part / cap);
  CHECK(rec.time_s == Approx(fixed + head_part / cap).epsilon(0.02));
}

TEST_CASE("with NCCL's runtime the flow engine and SimGrid agree to 1e-6") {
  const ClusterConfig c = parse_cluster_config(
      "name: n\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n  pc: {technology: pcie5}\n"
      "  ib: {technology: ib-ndr}\nnodes: {count: 4, gpus_per_node: 2, switch: nvswitch, gpu_link: nv, "
      "nics_per_node: 2, nic_link: pc}\ntopology: {kind: star, link: ib}\ngamma_s_per_byte: 1.234567e-12\n"
      "runtime: {library: nccl, compute_capability: 9.0, host_cpu: amd}\n",
      "n.yaml");
  // The rate caps on: LL across 4 nodes of AMD hosts at 19 GB/s (below what the NDR links give
  // it), LL128 on the channels of the small size, the tree's per-channel rates.
  for (const char* algo : {"ring", "two-tree", "recursive-doubling", "hierarchical-ring"})
    for (const char* protocol : {"ll", "ll128", "simple"}) {
      INFO(algo << " " << protocol);
      PredictionRequest r = cluster_request(c);
      r.algorithms = {algo};
      // Not a round size: NCCL's round step latencies then make no two events tie up to rounding,
      // which the two engines may order differently (tests/sim/test_simgrid_engine.cpp).
      r.sizes = {1000, 3000017};
      r.protocol = find_protocol(protocol);
      r.engine = EngineKind::flow;
      const std::vector<PredictionRecord> flow = predict(r);
      r.engine = EngineKind::simgrid;
      const std::vector<PredictionRecord> simgrid = predict(r);
      for (std::size_t i = 0; i < flow.size(); ++i) REQUIRE(simgrid[i].time_s == Approx(flow[i].time_s).epsilon(1e-6));
    }
}

TEST_CASE("with NCCL's NVLS pipeline the flow engine and SimGrid agree to 1e-6") {
  // NVLS-tree on 2 nodes of 4 GPUs whose NVSwitches reduce, and NVLS on one such node: the
  // schedule in NCCL's loops (2 MiB + 17 bytes: 1 loop; 50 MB: 4 loops on one node, 8 across).
  const auto cluster = [](int nodes) {
    return parse_cluster_config(
        fmt::format("name: n\nlink_classes:\n  nv: {{technology: nvlink4, links: 18}}\n  pc: {{technology: pcie5}}\n"
                    "  ib: {{technology: ib-ndr}}\nnodes: {{count: {}, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, "
                    "reduction: nvls, reduction_Bps: 1.2345e+12, reduction_latency_s: 0, nics_per_node: 4, nic_link: pc}}\n"
                    "topology: {{kind: star, link: ib}}\ngamma_s_per_byte: 1.234567e-12\n"
                    "runtime: {{library: nccl, compute_capability: 9.0, host_cpu: intel}}\n",
                    nodes),
        "n.yaml");
  };
  for (const auto& [algo, nodes] : {std::pair{"nvls-tree", 2}, {"nvls", 1}}) {
    INFO(algo);
    PredictionRequest r = cluster_request(cluster(nodes));
    r.algorithms = {algo};
    r.sizes = {(2 << 20) + 17, 50000017};
    r.engine = EngineKind::flow;
    const std::vector<PredictionRecord> flow = predict(r);
    r.engine = EngineKind::simgrid;
    const std::vector<PredictionRecord> simgrid = predict(r);
    REQUIRE(flow.at(1).segments > 1);
    for (std::size_t i = 0; i < flow.size(); ++i) REQUIRE(simgrid[i].time_s == Approx(flow[i].time_s).epsilon(1e-6));
  }
}
#endif

TEST_CASE("one thread launching for G GPUs (nccl-tests -g G) adds G - 1 kernel launch calls, with a runtime only") {
  CHECK(launching_thread_s(1) == 0);
  CHECK(launching_thread_s(2) == Approx(kHostKernelLaunchCall_s));
  CHECK(launching_thread_s(8) == Approx(7 * 3.72e-6));
  for (const Protocol& protocol : protocol_table()) {
    PredictionRequest r = cluster_request(nvlink_star(true));
    r.algorithms = {"ring"};
    r.sizes = {4096};
    r.protocol = protocol;
    const double alone = predict(r).at(0).time_s;
    const double fixed_alone = run_costs(r, "ring", protocol, 4096).fixed_s;
    r.gpus_per_thread = 4;
    const PredictionRecord launched = predict(r).at(0);
    CHECK(launched.time_s == Approx(alone + 3 * kHostKernelLaunchCall_s).epsilon(1e-12));
    CHECK(launched.runtime_s == Approx(fixed_alone + 3 * kHostKernelLaunchCall_s).epsilon(1e-12));
  }
  // the links alone (no runtime): no kernels to launch, nothing added
  PredictionRequest r = cluster_request(nvlink_star(false));
  r.algorithms = {"ring"};
  r.sizes = {4096};
  const double alone = predict(r).at(0).time_s;
  r.gpus_per_thread = 4;
  CHECK(predict(r).at(0).time_s == alone);
}

TEST_CASE("with one rank a node every step across nodes takes NCCL's tree network latency (ppn = 1)") {
  // tuning.cc: "With ppn=1 latencies are fully exposed, use the Tree network latency".
  const Protocol& ll = find_protocol("ll");
  const Protocol& ll128 = find_protocol("ll128");
  CHECK(nccl("ring", ll, 4, 2).step.at(Transport::net) == Approx(2.7e-6));
  CHECK(nccl("ring", ll, 4, 1).step.at(Transport::net) == Approx(5.0e-6));
  CHECK(nccl("ring", ll128, 4, 2).step.at(Transport::net) == Approx(4.0e-6));
  CHECK(nccl("ring", ll128, 4, 1).step.at(Transport::net) == Approx(8.5e-6));
  CHECK(nccl("ring", ll128, 4, 0).step.at(Transport::net) == Approx(8.5e-6));  // a flat cluster: a rank a node
  CHECK(nccl("ring", simple_protocol(), 4, 1).step.at(Transport::net) == Approx(14e-6));
  // CollNet Direct on nodes of one GPU: no intra-node part, the tree's network latency (14 us, not 31).
  CHECK(nccl("collnet", simple_protocol(), 16, 1).fixed_s == Approx(14e-6));
}

TEST_CASE("on one rank NCCL copies the buffer out of place: one launch call, then the bytes at the copy rate") {
  // By hand: 3.72 us, then 64 MiB at a measured 1.46577 TB/s (45.78 us), or at the memory's
  // datasheet rate where none is measured: 3 / (2 gamma), 1.675 TB/s for HBM3's 3.35 TB/s.
  RuntimeHardware h100{90, false};
  h100.device_copy_Bps = 1.46577e12;
  CHECK(device_copy_Bps(h100, 8.96e-13) == 1.46577e12);
  CHECK(device_copy_Bps(RuntimeHardware{90, false}, 8.96e-13) == Approx(3.35e12 / 2).epsilon(1e-3));
  CHECK(device_copy_Bps(RuntimeHardware{}, 0) == 0);
  for (std::string_view algorithm : {"ring", "nccl-tree", "nvls"}) {
    RuntimeRun one{algorithm, simple_protocol(), 64u << 20, 1, 1, 1};
    one.copy_Bps = device_copy_Bps(h100, 8.96e-13);
    const RunRuntime copy = run_runtime(CollectiveRuntime::nccl, h100, one);
    CHECK(copy.fixed_s == Approx(3.72e-6 + 67108864 / 1.46577e12));
    CHECK_FALSE(copy.step.active);  // no steps, no rate caps, no pipeline: no algorithm runs
    CHECK(copy.rate.cap_Bps == RuntimeRate{}.cap_Bps);
    CHECK(copy.pipeline.segments == 0);
    one.copy_Bps = 0;  // no rate known: the launch alone
    CHECK(run_runtime(CollectiveRuntime::nccl, h100, one).fixed_s == Approx(3.72e-6));
    CHECK(run_runtime(CollectiveRuntime::none, h100, one).fixed_s == 0);
  }
  // Through predict, every collective and algorithm: the same copy, read from the config's
  // runtime map (device_copy_Bps) or taken from its gamma; without a runtime, no time.
  const std::string base = "name: s\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n"
                           "nodes: {count: 1, gpus_per_node: 8, switch: nvswitch, gpu_link: nv}\nranks: 1\n"
                           "gamma_s_per_byte: 8.96e-13\n";
  const std::string named = "runtime: {library: nccl, compute_capability: 9.0, host_cpu: intel";
  const ClusterConfig measured = parse_cluster_config(base + named + ", device_copy_Bps: 1.46577e12}\n", "s.yaml");
  CHECK(measured.runtime_hardware.device_copy_Bps == 1.46577e12);
  struct Case {
    std::string config;
    double expected_s;
  };
  const double bytes = 64 << 20;
  for (const Case& c : {Case{base + named + ", device_copy_Bps: 1.46577e12}\n", 3.72e-6 + bytes / 1.46577e12},
                        Case{base + named + "}\n", 3.72e-6 + bytes * 2 * 8.96e-13 / 3},
                        Case{base + "runtime: nccl\n", 3.72e-6 + bytes * 2 * 8.96e-13 / 3}, Case{base, 0.0}})
    for (Collective collective : {Collective::allreduce, Collective::allgather, Collective::broadcast}) {
      PredictionRequest r = cluster_request(parse_cluster_config(c.config, "s.yaml"));
      r.collective = collective;
      r.algorithms = {"all"};
      r.sizes = {64u << 20};
      for (const PredictionRecord& p : predict(r)) {
        INFO(c.config << to_string(collective) << " " << p.algorithm);
        CHECK(p.time_s == Approx(c.expected_s).margin(1e-9));
      }
    }
  // "nccl" names the copy and no protocol: no candidate was weighed. Without NCCL's runtime
  // nothing is copied, and the choice is the usual one.
  for (const Case& c : {Case{base + named + "}\n", 3.72e-6 + bytes * 2 * 8.96e-13 / 3}, Case{base, 0.0}}) {
    PredictionRequest r = cluster_request(parse_cluster_config(c.config, "s.yaml"));
    r.algorithms = {std::string(kNcclChoice)};
    r.sizes = {64u << 20};
    const PredictionRecord p = predict(r).at(0);
    INFO(c.config);
    CHECK(p.time_s == Approx(c.expected_s).margin(1e-9));
    CHECK((p.runs == kNcclOneRankCopy) == (c.expected_s > 0));
    CHECK((p.protocol.name == "none") == (c.expected_s > 0));
    CHECK(p.candidates.empty() == (c.expected_s > 0));
  }
  REQUIRE_THAT(test::config_error(base + named + ", device_copy_Bps: -1}\n"), Catch::Contains("runtime.device_copy_Bps"));
  REQUIRE_THAT(test::config_error(base + named + ", device_copy_Bps: fast}\n"), Catch::Contains("runtime.device_copy_Bps"));
}

TEST_CASE("an empty collective costs nothing under NCCL, which discards it before any launch") {
  for (std::string_view algorithm : {"ring", "nccl-tree", "nvls", "nvls-tree"}) {
    const RunRuntime empty = nccl(algorithm, simple_protocol(), 2, 8, 0, RuntimeHardware{90, false});
    CHECK(empty.fixed_s == 0);
    CHECK_FALSE(empty.step.active);
    CHECK(empty.pipeline.segments == 0);
    CHECK(nccl(algorithm, simple_protocol(), 2, 8, 8, RuntimeHardware{90, false}).fixed_s > 0);
  }
  PredictionRequest r = cluster_request(nvlink_star(true));
  r.algorithms = {"ring", "nccl"};
  r.sizes = {0, 8};
  r.gpus_per_thread = 4;
  const std::vector<PredictionRecord> records = predict(r);
  for (const PredictionRecord& p : records) {
    INFO(p.algorithm << " " << p.bytes << " B");
    if (p.bytes == 0) {
      CHECK(p.time_s == 0);
      CHECK(p.runtime_s == 0);
    } else {
      CHECK(p.time_s > 3 * kHostKernelLaunchCall_s);
    }
  }
}

TEST_CASE("a ring across nodes pays NCCL's net overhead on every step within a node: 1 us, 2 on AMD hosts, 3x with Simple") {
  RuntimeHardware amd, intel;
  amd.amd_hosts = true;
  const Protocol ll = find_protocol("ll"), ll128 = find_protocol("ll128"), simple = simple_protocol();
  // By hand, as tuning.cc's intraLat = max(intraLat, netOverhead) for a ring on nNodes > 1:
  // NVLink ring 0.6 / 1.9 / 3.4 us, PCI 1.0 / 2.5 / 5.7 us against 2 us (AMD) or 1 us (else),
  // x 3 for Simple.
  CHECK(nccl("ring", ll, 4, 8, 1 << 20, amd).step.at(Transport::nvlink) == Approx(2.0e-6));
  CHECK(nccl("ring", ll128, 4, 8, 1 << 20, amd).step.at(Transport::nvlink) == Approx(2.0e-6));
  CHECK(nccl("ring", simple, 4, 8, 1 << 20, amd).step.at(Transport::nvlink) == Approx(6.0e-6));
  CHECK(nccl("ring", simple, 4, 8, 1 << 20, amd).step.at(Transport::pci) == Approx(6.0e-6));
  CHECK(nccl("ring", ll, 4, 8, 1 << 20, intel).step.at(Transport::nvlink) == Approx(1.0e-6));
  CHECK(nccl("ring", ll128, 4, 8, 1 << 20, intel).step.at(Transport::nvlink) == Approx(1.9e-6));
  CHECK(nccl("ring", simple, 4, 8, 1 << 20, intel).step.at(Transport::nvlink) == Approx(3.4e-6));
  CHECK(nccl("ring", simple, 4, 8, 1 << 20, intel).step.at(Transport::pci) == Approx(5.7e-6));
  // The network's steps keep their own figure.
  CHECK(nccl("ring", simple, 4, 8, 1 << 20, amd).step.at(Transport::net) == Approx(14e-6));
  // Not on one node, not for a tree, not for broadcast and reduce (NCCL adds their ring's
  // latency up apart).
  CHECK(nccl("ring", ll, 1, 8, 1 << 20, amd).step.at(Transport::nvlink) == Approx(0.6e-6));
  CHECK(nccl("nccl-tree", ll, 4, 8, 1 << 20, amd).step.at(Transport::nvlink) == Approx(0.6e-6));
  for (Collective c : {Collective::broadcast, Collective::reduce}) {
    const RuntimeRun chain{"chain", ll, 1 << 20, 32, 4, 8, c};
    CHECK(run_runtime(CollectiveRuntime::nccl, amd, chain).step.at(Transport::nvlink) == Approx(0.6e-6));
  }
  // Nor where the steps between nodes cross no network (every GPU its own node on NVLink).
  const RuntimeRun nvlink_only{"ring", ll, 1 << 20, 32, 4, 8, Collective::allreduce, Transport::nvlink,
                               Transport::nvlink};
  CHECK(run_runtime(CollectiveRuntime::nccl, amd, nvlink_only).step.at(Transport::nvlink) == Approx(0.6e-6));
  // An allgather's ring pays it too.
  const RuntimeRun allgather{"ring", simple, 1 << 20, 32, 4, 8, Collective::allgather};
  CHECK(run_runtime(CollectiveRuntime::nccl, amd, allgather).step.at(Transport::nvlink) == Approx(6.0e-6));
}
