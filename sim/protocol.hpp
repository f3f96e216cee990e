// sim/protocol.hpp — the wire protocols NCCL moves data with (LL, LL128, Simple), as a
// property of a run that the one cost rule (sim/cost_rule.hpp) applies to every link:
//   payload:  a protocol carries data and flags in the same lines, so of the bytes a link
//             moves only `payload_fraction` are data; every link offers that share of its
//             rate to the collective's bytes (alone and when shared);
//   start-up: a protocol synchronizes each message its own way (Simple: memory fences and a
//             flag after the data; LL and LL128: a flag in every line, polled by the
//             receiver), so each message's alpha is `startup_factor` times its class's.
// Simple is the model of a link as its class describes it (factors 1): a run without a
// protocol is a Simple run. The numbers and their sources are in protocol.cpp and
// docs/semantics.md. Touches nothing but its arguments.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/cost_model.hpp"
#include "topologies/network.hpp"

namespace collsim {

// A collective library's synchronization per step (sim/runtime.hpp): each message waits on a
// flag its peer sets, by the transport its route crosses. Where a run has one (`active`), a
// message's start-up is its route's step latency plus the route's hop latencies, in place of
// its classes' alpha x the protocol's startup_factor; a route whose links have no known
// transport keeps its alpha.
struct StepLatency {
  bool active = false;
  std::array<double, kTransports> by_transport{};  // seconds, indexed by Transport

  double at(Transport transport) const { return by_transport[std::size_t(transport)]; }
};

// A collective library's rate per rank (sim/runtime.hpp): NCCL runs a collective on channels,
// one thread block each, and its tuning model caps what a protocol moves per channel (LL128,
// the tree) or in all (LL); the channels it starts grow with the size. Where a run has a cap,
// a message on a route with a known transport drains at no more than cap_Bps, alone or shared
// (a cap on the flow, as a size factor is); unlimited otherwise.
// Its model also gives each protocol its own share of the links' rate on each algorithm (the
// tree's LL a quarter, not a half), which takes the place of the protocol's payload fraction.
struct RuntimeRate {
  double cap_Bps = std::numeric_limits<double>::infinity();
  std::uint32_t channels = 0;  // the channels the library runs at this size (0: not modelled)
  double link_share = 0;       // of the links' rate, in (0, 1] (0: the protocol's payload fraction)
  // The cap binds only messages that cross the network: NVLS-tree's per-head cap, where only
  // its inter-node messages are one head's own stream (inside a node a GPU's channel to the
  // switch carries every head's part in turn).
  bool network_only = false;

  bool active() const { return cap_Bps != std::numeric_limits<double>::infinity(); }
};

// A collective library's pipeline (sim/runtime.hpp): NCCL cuts each channel's part of a ring
// collective into chunks (its connection buffer / NCCL_STEPS x the chunk steps), runs them in
// loops of ranks x chunk, and each chunk step in slices that each wait on their peer's flag.
// The runtime prices the flag waits beyond one per step as `extra_sync_s` (in the run's fixed
// cost); the rest is reported (--detail). NVLS and NVLS-tree run loops of one chunk per head
// and channel through their stages (scatter, the switch's reduce and multicast, gather): the
// schedule runs one segment per loop (`segments`), so the engines price the fill and drain of
// that pipeline on the links. Not modelled: channels 0.
struct RuntimePipeline {
  std::uint32_t channels = 0;      // the channels NCCL runs at this size (at most MAXCHANNELS)
  std::uint64_t chunk_bytes = 0;   // one chunk step of one channel, shrunk for the last loop
  std::uint64_t loops = 0;         // loops per channel
  std::uint32_t slices = 0;        // slices per chunk step, each a flag wait
  std::uint64_t steps = 0;         // chunk steps of one loop on the ring's chain (2(P-1) for allreduce; NVLS 0)
  double extra_sync_s = 0;         // the flag waits beyond one per step, paid once per collective
  std::uint32_t segments = 0;      // the schedule's segments it sets (NVLS: one per loop; 0: the algorithm's default)

  bool active() const { return channels > 0; }
  // The flag waits extra_sync_s prices, on one rank's chain: loops x slices on each step, less
  // the one per step the engines price (each transfer's start-up).
  std::uint64_t extra_waits() const { return extra_sync_s > 0 ? (loops * slices - 1) * steps : 0; }
};

struct Protocol {
  std::string_view name = "simple";
  double payload_fraction = 1;  // data bytes per byte on the wire, in (0, 1]
  double startup_factor = 1;    // on each message's alpha, > 0
  std::string_view source;      // where the numbers come from, in one line
  StepLatency step;             // the run's library's, for its algorithm and this protocol
  RuntimeRate rate;             // the run's library's, for its algorithm, this protocol and size
  RuntimePipeline pipeline;     // the run's library's, for its algorithm, this protocol and size

  bool is_simple() const { return payload_fraction == 1 && startup_factor == 1; }
  // One of the table's protocols: the name says which.
  friend bool operator==(const Protocol& a, const Protocol& b) { return a.name == b.name; }
};

// LL, LL128 and Simple, fastest start-up first.
const std::vector<Protocol>& protocol_table();
// The protocol named `name` (ll, ll128, simple; case-insensitive); throws Error naming them.
const Protocol& find_protocol(std::string_view name);
inline const Protocol& simple_protocol() { return find_protocol("simple"); }
// "ll, ll128, simple": the table's, or those of `protocols`.
std::string protocol_names();
std::string protocol_names(const std::vector<Protocol>& protocols);

// The flat model of a run with `protocol`: each class's alpha times the start-up factor, its
// beta divided by the payload fraction (what the cost rule does to a route).
CostModel with_protocol(const CostModel& cost, const Protocol& protocol);

}  // namespace collsim
