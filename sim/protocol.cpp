// sim/protocol.cpp — the three protocols' numbers, each with where it comes from.
#include "sim/protocol.hpp"


#include <fmt/format.h>

#include "base/error.hpp"
#include "base/text.hpp"

namespace collsim {
namespace {

// Payload: NCCL's line formats (src/include/device.h). An LL line is 16 bytes written by one
// 16-byte store, two 4-byte data words each beside a 4-byte flag: 8 data bytes of 16. An LL128
// line is 128 bytes, 15 of its 16 8-byte elements data and one a flag: 120 of 128 (NCCL's
// enqueue.cc halves an LL chunk and scales an LL128 chunk by 15/16 the same way).
// Start-up: NCCL's own cost model (src/graph/tuning.cc, hwLat) prices one ring step per
// protocol on the same hardware: NVLink LL 0.47-0.6 us, LL128 1.9 us, Simple 3.4 us; PCIe 1.0,
// 2.5, 5.7 us; network 2.7, 4.0, 9.6 us. Relative to Simple that is 0.14-0.28 for LL and
// 0.42-0.56 for LL128; collsim takes 0.2 and 0.5 of a class's alpha, which describes a
// message synchronized the Simple way (a copy, a fence and a flag; p2pBandwidthLatencyTest,
// ib_write_lat).
const std::vector<Protocol> kProtocols{
    {"ll", 0.5, 0.2,
     "LL: 8 data bytes in each 16-byte line (NCCL device.h); per-step latency ~0.2 of Simple's (NCCL tuning.cc hwLat)"},
    {"ll128", 120.0 / 128.0, 0.5,
     "LL128: 120 data bytes in each 128-byte line (NCCL device.h); per-step latency ~0.5 of Simple's (NCCL tuning.cc hwLat)"},
    {"simple", 1.0, 1.0, "Simple: the whole payload, a fence and a flag per step: the link as its class describes it"},
};

}  // namespace

const std::vector<Protocol>& protocol_table() { return kProtocols; }

const Protocol& find_protocol(std::string_view name) {
  const std::string key = lowercase(name);
  for (const Protocol& p : kProtocols)
    if (p.name == key) return p;
  throw Error(fmt::format("unknown protocol '{}' (known: {})", name, protocol_names()));
}

std::string protocol_names(const std::vector<Protocol>& protocols) {
  std::string names;
  for (const Protocol& p : protocols) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

std::string protocol_names() { return protocol_names(kProtocols); }

CostModel with_protocol(const CostModel& cost, const Protocol& protocol) {
  const auto apply = [&](LinkCost link) {
    return LinkCost{link.alpha_s * protocol.startup_factor, link.beta_s_per_byte / protocol.payload_fraction};
  };
  CostModel out = cost;
  out.inter_node = apply(cost.inter_node);
  out.intra_node = apply(cost.intra_node);
  return out;
}

}  // namespace collsim
