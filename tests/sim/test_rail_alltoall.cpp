// tests/sim/test_rail_alltoall.cpp — on a rail-optimized fabric with a tapered spine,
// rail-alltoall (collectives/algorithms/rail_alltoall.cpp) beats pairwise, by bounds derived
// here. M = 16 nodes of G = 4 GPUs, one NIC per GPU, NIC j of every node on leaf j
// (XGFT(2; 16, 4; 1, W): 4 leaves of 16 NICs, W spines); no start-ups or latencies.
// With B = N / P bytes a block and PXN off (each GPU sends through its own NIC, as a runtime
// without PXN does):
//  * pairwise and linear send (n, i) -> (n', l) from NIC i to NIC l: for l != i it leaves
//    leaf i through its W spine links. Leaf i's M NICs send M (M-1)(G-1) such blocks, so
//    whatever the order, T >= M (M-1) (G-1) B / (W spine_Bps).
//  * rail-alltoall's NVLink phase loads every GPU's NVSwitch up- and down-link with (G-1) M
//    blocks, all at once, all ending together; its rail phase, every NIC with M - 1 messages
//    of G blocks each way, inside one leaf:
//      T_rail = (G-1) M B / nvlink_Bps + (M-1) G B / nic_Bps, whatever W is.
// With W = 8 (2:1), nvlink 450, NIC 50 GB/s: 1.8 B/GB/s against 1.31 B/GB/s.
// With PXN the routes do per message what rail-alltoall does in its schedule (the hand-off to
// the GPU on the destination's rail, topologies/builders/nodes.cpp), without its
// store-and-forward: linear then drains at the NICs' rate alone, (M-1) G B / nic_Bps, below
// rail-alltoall's form.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "sim/flow_engine.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

constexpr Rank kNodes = 16, kGpus = 4, kRanks = kNodes * kGpus;
constexpr double kNvlinkBps = 450e9, kNicBps = 50e9;
constexpr std::uint64_t kBlock = 1 << 20;

ClusterConfig rails(std::uint32_t spines, bool pxn) {
  return parse_cluster_config(
      fmt::format("name: rails\nlink_classes:\n"
                  "  nv: {{bandwidth_Bps: {}, latency_s: 0.0, alpha_s: 0.0}}\n"
                  "  pcie: {{bandwidth_Bps: 100.0e+9, latency_s: 0.0, alpha_s: 0.0}}\n"
                  "  ib: {{bandwidth_Bps: {}, latency_s: 0.0, alpha_s: 0.0}}\n"
                  "nodes: {{count: {}, gpus_per_node: {}, switch: nvswitch, gpu_link: nv, nics_per_node: {}, "
                  "nic_link: pcie, rail_optimized: true, pxn: {}}}\n"
                  "topology: {{kind: xgft, m: [{}, {}], w: [1, {}], link: ib}}\ngamma_s_per_byte: 0.0\n",
                  kNvlinkBps, kNicBps, kNodes, kGpus, kGpus, pxn, kNodes, kGpus, spines),
      "rails.yaml");
}

double alltoall_time(std::string_view algorithm, const ClusterConfig& c) {
  ScheduleRequest r;
  r.collective = Collective::alltoall;
  r.ranks = kRanks;
  r.bytes = kBlock * kRanks;
  r.ranks_per_node = c.cost.ranks_per_node;
  return run_flow(generate_schedule(algorithm, r), *c.topology, 0.0).time_s;
}

}  // namespace

TEST_CASE("On rail-optimized nodes under a 2:1 spine, rail-alltoall beats pairwise by the bounds derived above",
          "[alltoall][rail-alltoall]") {
  const ClusterConfig tapered = rails(8, false);
  REQUIRE(tapered.cost.ranks_per_node == kGpus);
  const double b = kBlock, m = kNodes, g = kGpus;
  const double rail_form = (g - 1) * m * b / kNvlinkBps + (m - 1) * g * b / kNicBps;
  const double pairwise_floor = m * (m - 1) * (g - 1) * b / (8 * kNicBps);
  REQUIRE(rail_form < 0.75 * pairwise_floor);  // the bounds leave room: 1.31 against 1.8

  const double rail = alltoall_time("rail-alltoall", tapered);
  const double pairwise = alltoall_time("pairwise", tapered);
  const double linear = alltoall_time("linear", tapered);
  INFO("rail-alltoall " << rail << " s (form " << rail_form << "), pairwise " << pairwise << " s, linear " << linear
                        << " s (floor " << pairwise_floor << ")");
  CHECK(rail == Approx(rail_form).epsilon(1e-6));
  CHECK(pairwise >= pairwise_floor * (1 - 1e-9));
  CHECK(linear >= pairwise_floor * (1 - 1e-9));
  CHECK(rail < pairwise);
  // Its inter-node bytes never leave a leaf: the taper costs it nothing.
  CHECK(alltoall_time("rail-alltoall", rails(16, false)) == Approx(rail).epsilon(1e-9));
}

TEST_CASE("With PXN the routes keep to the rails: the taper no longer matters, and linear drains at the NICs' rate",
          "[alltoall][rail-alltoall]") {
  const double b = kBlock, m = kNodes, g = kGpus;
  const double nic_floor = (m - 1) * g * b / kNicBps;  // every NIC's bytes out, one rail
  const double rail_form = (g - 1) * m * b / kNvlinkBps + nic_floor;
  const double linear = alltoall_time("linear", rails(8, true));
  INFO("linear with PXN " << linear << " s, NIC floor " << nic_floor << " s, rail-alltoall's form " << rail_form);
  CHECK(linear >= nic_floor * (1 - 1e-9));
  CHECK(linear < rail_form);
  CHECK(alltoall_time("linear", rails(16, true)) == Approx(linear).epsilon(1e-9));
  CHECK(alltoall_time("pairwise", rails(16, true)) == Approx(alltoall_time("pairwise", rails(8, true))).epsilon(1e-9));
  CHECK(alltoall_time("rail-alltoall", rails(8, true)) == Approx(rail_form).epsilon(1e-6));
}
