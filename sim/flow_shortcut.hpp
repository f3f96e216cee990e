// sim/flow_shortcut.hpp — the flow engine without events, for schedules whose flows can never
// share a link (internal to the flow engine; run_flow tries it first).
//
// When routes are fixed per rank pair (minimal or shortest-path routing) and no link lies on
// the routes of two different pairs, every link carries at most one draining flow at a time:
// each pair is one in-order channel, and no other pair's flow crosses its links. Every
// transfer then drains at its route's bottleneck bandwidth from start to end, and the flow
// engine's times follow in list order:
//   ready   = the latest done of its dependencies;
//   start   = max(ready, issued) + alpha + latency (issued: the host's issue of it,
//             sim/host_issue.hpp), or later behind its pair's previous transfer;
//   arrival = start + bytes / bottleneck;
//   done    = arrival, or after its reduction on the destination's reducer
// (the pair's in-order channel and the rank's reducer: sim/flow_rules.hpp). The engine
// orders a pair's transfers by the end of their start-up (equal ends by id, which is list
// order) and a rank's reductions by arrival; the shortcut follows list order, so it checks
// that the two agree (start-up ends not decreasing, arrivals strictly increasing) and declines
// otherwise. Ring allreduce on a fat-tree or dragonfly takes this path, also in slices or in
// C channels over the same rank pairs (steps that start together on one pair).
#pragma once

#include <optional>
#include <string>

#include "collectives/schedule.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/flow_result.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// The flow engine's result, or nothing when flows could share a link (or orders could differ).
std::optional<FlowResult> run_flow_without_sharing(const Schedule& schedule, const Topology& topology,
                                                   double gamma_s_per_byte, const FlowOptions& options);

// The same for a streamed schedule (too large to hold): time, per-rank finish and link usage,
// keeping only a window of done times; no critical path or timeline. Nothing where flows
// could share a link, or where the events could order two transfers otherwise than the list
// (run_flow on the stream then simulates events; `declined_because`, when given, says which).
// Of the options it reads the protocol and the progress.
std::optional<FlowResult> run_stream_without_sharing(const TransferStream& stream, const Topology& topology,
                                                    double gamma_s_per_byte, const FlowOptions& options,
                                                    std::string* declined_because = nullptr);

}  // namespace collsim
