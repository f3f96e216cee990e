// sim/prediction.cpp — generate, cost, compare.
#include "sim/prediction.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/parallel_runs.hpp"
#include "base/units.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/closed_forms.hpp"
#include "collectives/collective_spec.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/cost_rule.hpp"
#include "sim/engine_table.hpp"
#include "sim/pair_pricing.hpp"
#include "sim/protocol.hpp"
#include "sim/runtime.hpp"
#include "sim/tuner_plugin.hpp"

namespace collsim {
namespace {

// Whether the ring runs over the mesh's searched rings here (Topology::mesh_rings): on the
// ranks they were searched for, an allreduce (an allgather's channels cut blocks, over rotated orders).
bool rides_mesh_rings(const PredictionRequest& r, std::string_view algorithm) {
  return algorithm == "ring" && r.collective == Collective::allreduce && !r.topology->mesh_rings.empty() &&
         r.ranks == r.topology->ranks();
}

// The ring's channels on a switchless NVLink mesh: channel c over the search's ring c (cycling
// when more channels are asked than it found), so that together they cross every link, as
// NCCL's rings do; elsewhere none (every node's ranks rotated).
std::vector<std::vector<Rank>> mesh_channel_orders(const PredictionRequest& r, const AlgorithmEntry& algorithm,
                                                   std::uint32_t channels) {
  if (!rides_mesh_rings(r, algorithm.name)) return {};
  const std::vector<std::vector<Rank>>& rings = r.topology->mesh_rings;
  std::vector<std::vector<Rank>> orders;
  for (std::uint32_t c = 0; c < std::max<std::uint32_t>(channels, 1); ++c) orders.push_back(rings[c % rings.size()]);
  return orders;
}

// What a step from rank 0 to `dst` crosses (the runtime's step latency); unknown without a
// runtime (a flat network never has one: the flat form takes no `runtime:`, and its classes
// name no transport) and on one rank.
Transport step_transport(const PredictionRequest& r, Rank dst) {
  if (r.runtime == CollectiveRuntime::none || r.ranks < 2 || r.ranks > r.topology->ranks())
    return Transport::unknown;
  return pair_transport(*r.topology, 0, dst);
}

RuntimeRun runtime_run(const PredictionRequest& r, std::string_view algorithm, const Protocol& protocol,
                       std::uint64_t bytes) {
  return {.algorithm = algorithm, .protocol = protocol, .bytes = bytes, .ranks = r.ranks,
          .nodes = r.topology->spanned_nodes(), .ranks_per_node = r.topology->endpoints_per_node,
          .collective = r.collective, .intra = step_transport(r, 1), .inter = step_transport(r, r.ranks - 1),
          .copy_Bps = device_copy_Bps(r.runtime_hardware, r.cost.gamma_s_per_byte)};
}

// The segments a run asks for: --segments where given, else those its runtime's pipeline sets
// (NVLS: one per NCCL loop), else the algorithm's default (0).
std::uint32_t requested_segments(const PredictionRequest& r, const AlgorithmEntry& algorithm, std::uint64_t bytes) {
  if (!algorithm.pipelined) return 0;
  if (r.segments > 0 || r.runtime == CollectiveRuntime::none) return r.segments;
  return nccl_nvls_pipeline(runtime_run(r, algorithm.name, simple_protocol(), bytes), r.runtime_hardware).segments;
}

ScheduleRequest schedule_request(const PredictionRequest& r, const AlgorithmEntry& algorithm, std::uint64_t bytes) {
  ScheduleRequest sr;
  sr.collective = r.collective;
  sr.ranks = r.ranks;
  sr.bytes = bytes;
  sr.segments = requested_segments(r, algorithm, bytes);
  sr.ranks_per_node = r.cost.ranks_per_node;
  sr.pair_bytes = r.pair_bytes;
  sr.channels = channels_for(r, algorithm.name);
  // An allgather's or reduce-scatter's channels cut every rank's block: the cluster's
  // suggestion stands where the blocks are equal, one channel elsewhere (asked, check_channels
  // says why not).
  if (r.channels == 0 && algorithms::channels_split_blocks(r.collective) && r.ranks > 0 && bytes % r.ranks != 0)
    sr.channels = 1;
  sr.channel_orders = mesh_channel_orders(r, algorithm, sr.channels);
  // The cluster's suggested channels (none asked) for a ring streamed (asked, or too large to
  // hold): one channel instead (predict_streamed says so). The stream runs any channels it is
  // asked for, equal to the held ring, but on shared pairs its channels take the event
  // simulation, not the one-pass shortcut: 8 channels on 4,096 ranks did not finish in 14
  // minutes where one takes seconds. Held on request (--stream never), the suggestion stands.
  if (r.channels == 0 && sr.channels > 1 && algorithm.name == "ring" && r.streaming != Streaming::never) try {
      if (r.streaming == Streaming::always) throw Error("streamed as asked");
      check_schedule_fits(algorithm, sr);
    } catch (const Error&) {
      sr.channels = 1;
      sr.channel_orders = mesh_channel_orders(r, algorithm, 1);
    }
  return sr;
}

// Which of the cluster's switches reduce (in-network algorithms run there; "all" lists them).
SwitchesReduce switches_reduce(const PredictionRequest& r) {
  return {!r.topology->node_reducers.empty(), r.topology->fabric_reducer.has_value()};
}

// Why `algorithm` cannot run streamed here ("" when it can): no stream for it, an engine
// that needs the schedule held, the outputs that need it held, or the stream's own limits.
std::string why_not_streamed(const PredictionRequest& r, std::string_view algorithm, const ScheduleRequest& sr) {
  const StreamFactory factory = find_algorithm(algorithm).stream;
  if (!factory) {
    std::vector<std::string_view> names;
    for (const AlgorithmEntry& e : algorithm_table())
      if (e.stream) names.push_back(e.name);
    return fmt::format("only {} run as a stream, not {}", fmt::join(names, " and "), algorithm);
  }
  if (!r.pair_bytes.empty()) return "an all-to-all-v (a size per pair) runs held only";
  if (!find_engine(r.engine).run_stream)
    return fmt::format("the {} engine needs the schedule held; the flow engine (--engine flow) streams it",
                       to_string(r.engine));
  if (r.on_flow_run) return "--detail and --trace need the schedule held; without them the flow engine streams it";
  if (prices_transfer_context(*r.topology))
    return "the cluster prices exchanges or reductions into sent data apart (exchange_factors, "
           "reduction_into_sent_factors), which needs the schedule held";
  try {
    factory(sr);
  } catch (const Error& e) {
    return fmt::format("nor can it be streamed: {}", e.what());
  }
  return "";
}

// Where the held schedule does not fit, what would: the ring as a stream, when it is not the
// ring itself that was refused.
std::string what_streams_instead(const PredictionRequest& r, std::string_view refused, std::uint64_t bytes) {
  const AlgorithmEntry* ring = lookup_algorithm("ring");
  if (refused == "ring" || !ring || !ring->supports(r.collective)) return "";
  PredictionRequest flow = r;
  flow.engine = EngineKind::flow;
  flow.on_flow_run = nullptr;
  if (!why_not_streamed(flow, "ring", schedule_request(r, *ring, bytes)).empty()) return "";
  const std::string engine = r.engine == EngineKind::flow ? "" : " (--engine flow)";
  return fmt::format("; ring runs as a stream on the flow engine{}{}", engine,
                     r.on_flow_run ? ", without --detail and --trace" : "");
}

// Whether NCCL would consider `algorithm` here: its in-network ones only where the switches
// they need reduce, and NVLS_TREE and CollNet only across nodes (NCCL's enqueue.cc disables
// NVLS_TREE on one node; CollNet needs the network).
// The nodes the ranks sit on as placed (a round-robin placement spreads a node's worth of ranks
// one a node, where spanned_nodes() counts the nodes they would fill in order).
Rank placed_nodes(const Topology& t) {
  std::set<Rank> nodes;
  for (Rank r = 0; r < t.ranks(); ++r) nodes.insert(t.node_of(r));
  return Rank(nodes.size());
}

bool nccl_considers(const PredictionRequest& r, const AlgorithmEntry& algorithm) {
  if (!algorithm.runs_on(r.ranks, r.cost.ranks_per_node)) return false;
  // As placed: a node's worth of ranks spread over nodes is no longer one node's.
  if (algorithm.within_one_node && placed_nodes(*r.topology) > 1) return false;
  if (algorithm.in_network == InNetwork::none) return true;
  if (!algorithm.has_switches(switches_reduce(r), r.cost.ranks_per_node)) return false;
  return !algorithm.needs_ranks_per_node || r.ranks > r.cost.ranks_per_node;
}

bool simple_allowed(const std::vector<Protocol>& protocols) {
  return std::find(protocols.begin(), protocols.end(), simple_protocol()) != protocols.end();
}

// The candidates of "nccl" that run here at `bytes` (on these ranks, held or streamed) and that
// the runs' environment lets NCCL choose.
std::vector<std::string_view> nccl_runs_at(const PredictionRequest& r, std::uint64_t bytes) {
  std::vector<std::string_view> out;
  for (std::string_view a : nccl_candidates(r.collective, r.collnet_enabled)) try {
      if (nccl_environment_allows(r, a) && nccl_considers(r, find_algorithm(a))) holding_for(r, a, bytes), out.push_back(a);
    } catch (const Error&) {
    }
  return out;
}

// "; ..." naming what the runs' environment leaves NCCL (runtime.algo, nvls_enable), or "".
std::string environment_limits(const PredictionRequest& r) {
  const NcclEnvironment& env = r.runtime_hardware.environment;
  if (env.algorithms.empty() && env.nvls_enabled) return "";
  std::vector<std::string_view> left;
  for (std::string_view a : kNcclAlgorithmNames)
    if (env.allows_algorithm(a)) left.push_back(a);
  return fmt::format("; the cluster's NCCL_ALGO and NCCL_NVLS_ENABLE (runtime: algo, nvls_enable) leave NCCL {}",
                     fmt::join(left, ", "));
}

// "nccl" needs one of its candidates at every size; the other names go to expand_algorithm_names.
std::vector<std::string> expand_with_nccl(const PredictionRequest& r) {
  std::vector<std::string> others;
  for (const std::string& name : r.algorithms)
    if (name != kNcclChoice) others.push_back(name);
  std::vector<std::string> names;
  if (!others.empty()) names = expand_algorithm_names(others, r.collective, r.ranks, r.cost.ranks_per_node, switches_reduce(r));
  if (others.size() == r.algorithms.size()) return names;
  for (std::uint64_t bytes : r.sizes)
    if (nccl_runs_at(r, bytes).empty())
      throw Error(fmt::format("--algo nccl: none of NCCL's algorithms ({}) can run {} of {} on {} ranks here{}",
                              fmt::join(nccl_candidates(r.collective, r.collnet_enabled), ", "), format_size(bytes),
                              to_string(r.collective), r.ranks, environment_limits(r)));
  names.insert(names.begin() + std::ptrdiff_t(std::find(r.algorithms.begin(), r.algorithms.end(), kNcclChoice) -
                                              r.algorithms.begin()),
               std::string(kNcclChoice));
  return names;
}

// A named in-network algorithm needs its reducing switches here: refused before any other runs.
void require_switches(const PredictionRequest& r, const std::string& name) {
  const AlgorithmEntry& a = find_algorithm(name);
  if (a.has_switches(switches_reduce(r), r.cost.ranks_per_node)) return;
  const bool fabric = a.in_network == InNetwork::fabric;
  r.topology->require_reducers(a.name, !fabric || r.cost.ranks_per_node > 1, fabric);
}

bool every_algorithm(const PredictionRequest& r) {
  return r.algorithms.size() == 1 && (r.algorithms[0] == "all" || r.algorithms[0] == "auto");
}

// Why `algorithm` cannot run at `bytes` here (holding_for's refusal), "" where it can.
std::string refusal(const PredictionRequest& r, std::string_view algorithm, std::uint64_t bytes) {
  try {
    holding_for(r, algorithm, bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Named algorithms must fit, held or streamed, at every size, checked before any runs (holding_for
// says why not); "all" and "auto" leave out, with a note, those that cannot run at some size, or
// with refusals_in_rows keep them for predict to refuse in their rows.
std::vector<std::string> expand_algorithms(const PredictionRequest& r) {
  if (std::find(r.algorithms.begin(), r.algorithms.end(), kNcclChoice) != r.algorithms.end()) {
    std::vector<std::string> names = expand_with_nccl(r);
    for (const std::string& name : names)
      if (name != kNcclChoice) {
        require_switches(r, name);
        for (std::uint64_t bytes : r.sizes) holding_for(r, name, bytes);
      }
    return names;
  }
  std::vector<std::string> names =
      expand_algorithm_names(r.algorithms, r.collective, r.ranks, r.cost.ranks_per_node, switches_reduce(r));
  if (!every_algorithm(r)) {
    for (const std::string& name : names) {
      require_switches(r, name);
      for (std::uint64_t bytes : r.sizes) holding_for(r, name, bytes);
    }
    return names;
  }
  if (r.refusals_in_rows) {  // every name keeps its rows, refused where it cannot run (predict)
    for (const std::string& name : names)
      for (std::uint64_t bytes : r.sizes)
        if (refusal(r, name, bytes).empty()) return names;
    names.clear();  // none answers anywhere: predict says so
  }
  std::erase_if(names, [&](const std::string& name) {
    for (std::uint64_t bytes : r.sizes)
      try {
        holding_for(r, name, bytes);
      } catch (const Error& e) {
        if (r.on_note) r.on_note(fmt::format("left out {}: {}", name, e.what()));
        return true;
      }
    return false;
  });
  return names;
}

// The flat model's beta is one route's bottleneck. With one port (the analytic engine) that is
// all a rank sends through at a time; without ports it may send over several of its links at
// once (NVLink and its NIC, with channels), so the bound takes the rank's whole port, rank 0's.
CostModel lower_bound_model(const RunCosts& costs, const CostModel& flat, Ports ports) {
  if (ports == Ports::one) return flat;
  CostModel bound = flat;
  const double port_beta = rank_port_beta(*costs.topology, 0, costs.protocol);
  bound.inter_node.beta_s_per_byte = std::min(bound.inter_node.beta_s_per_byte, port_beta);
  bound.intra_node.beta_s_per_byte = std::min(bound.intra_node.beta_s_per_byte, port_beta);
  return bound;
}

// The flat model a bound may take: the cheapest alpha, beta and gamma the cost rule gives a
// message of any size. With size factors (a calibrated CPU's links) the large-message model
// is no bound for small messages: there its alpha carries the large sizes' latency factors
// (x266 on one calibration), and a 1 MiB ring was priced below its "bound". A message of s bytes
// costs at least the least alpha plus s times the least beta, whatever its size, and a
// reduction at least the least of its rank's paces (reduction factors, into sent data or not).
CostModel cheapest_model(const RunCosts& costs, const CostModel& large) {
  const Topology& t = *costs.topology;
  std::set<std::uint64_t> sizes{1};
  for (const LinkClass& c : t.network.link_classes())
    for (const std::vector<SizeFactor>* rows : {&c.size_factors, &c.exchange_factors})
      for (const SizeFactor& row : *rows) sizes.insert(std::max<std::uint64_t>(row.from_bytes, 1));
  for (const std::vector<ReductionFactor>* rows : {&t.reduction_factors, &t.reduction_into_sent_factors})
    for (const ReductionFactor& row : *rows) sizes.insert(std::max<std::uint64_t>(row.from_bytes, 1));
  if (sizes.size() == 1) return large;  // no factors: one model at every size
  CostModel cheapest = large;
  auto keep_cheaper = [](LinkCost& into, const LinkCost& other) {
    into.alpha_s = std::min(into.alpha_s, other.alpha_s);
    into.beta_s_per_byte = std::min(into.beta_s_per_byte, other.beta_s_per_byte);
  };
  for (std::uint64_t bytes : sizes) {
    const CostModel at = equivalent_cost_model(*costs.topology, costs.gamma_s_per_byte, bytes, costs.protocol);
    keep_cheaper(cheapest.inter_node, at.inter_node);
    keep_cheaper(cheapest.intra_node, at.intra_node);
    cheapest.gamma_s_per_byte = std::min({cheapest.gamma_s_per_byte, at.gamma_s_per_byte,
                                          reduction_s_per_byte(t, 0, costs.gamma_s_per_byte, bytes, false),
                                          reduction_s_per_byte(t, 0, costs.gamma_s_per_byte, bytes, true)});
  }
  return cheapest;
}

void fill_rates(PredictionRecord& rec, const PredictionRequest& r, const RunCosts& costs, const CostModel& flat) {
  rec.algbw_GBps = rec.time_s > 0 ? to_GBps(double(rec.bytes) / rec.time_s) : 0;
  rec.busbw_GBps = rec.algbw_GBps * bus_bandwidth_factor(r.collective, r.ranks);
  const bool switches_reduce = r.topology->has_reducers();
  const Ports ports = r.engine != EngineKind::analytic ? Ports::none : r.run.one_port ? Ports::one : Ports::unshared;
  // The runtime's fixed cost precedes every transfer of this run, whatever the network does.
  const CostModel bound_model = lower_bound_model(costs, cheapest_model(costs, flat), ports);
  rec.lower_bound_s = costs.fixed_s + (r.pair_bytes.empty() ? lower_bound_time(r.collective, r.ranks, rec.bytes,
                                                                                bound_model, ports, switches_reduce)
                                                             : alltoallv_lower_bound(r.pair_bytes, r.ranks, bound_model, ports));
}

PredictionRecord record_for(const PredictionRequest& r, const Protocol& protocol, const std::string& algorithm,
                            std::uint64_t bytes) {
  PredictionRecord rec;
  rec.collective = r.collective;
  rec.algorithm = algorithm;
  rec.runs = algorithm;
  rec.ranks = r.ranks;
  rec.bytes = bytes;
  rec.engine = r.engine;
  rec.protocol = protocol;
  rec.placement = describe(r.topology->placement);
  return rec;
}

// Why a run is streamed, and what its note says of it.
enum class StreamedBecause { asked, too_large, large };
StreamedBecause streamed_because(const PredictionRequest& r, const AlgorithmEntry& a, const ScheduleRequest& sr) {
  if (r.streaming == Streaming::always) return StreamedBecause::asked;
  try {
    check_schedule_fits(a, sr);
  } catch (const Error&) {
    return StreamedBecause::too_large;
  }
  return StreamedBecause::large;
}

std::string streamed_note(const PredictionRequest& r, const PredictionRecord& rec, const AlgorithmEntry& a,
                          const ScheduleRequest& sr) {
  const StreamedBecause because = streamed_because(r, a, sr);
  const std::string why =
      because == StreamedBecause::asked       ? ", as asked"
      : because == StreamedBecause::too_large ? ": too large to hold"
                                              : fmt::format(": held, it would take about {:.1f} GB (more than {:.0e} transfers)",
                                                            estimated_size(a, sr).transfers * kHeldBytesPerTransfer / 1e9,
                                                            kStreamAboveTransfers);
  return fmt::format("{} {}: {:.3g} M transfers run as a stream, not held{}{} (memory: a window of the run, not the "
                     "schedule; no analytic column, critical path or trace{})",
                     rec.algorithm, format_size(rec.bytes), double(rec.transfers) / 1e6, why,
                     rec.channels > 1                                  ? fmt::format(", in {} channels", rec.channels)
                     : channels_for(r, rec.algorithm) > 1 ? ", in one channel (the cluster suggests more, which would not fit "
                                                            "held; --channels C streams C)"
                                                          : "",
                     because == StreamedBecause::large ? "; --stream never, --detail or --trace hold it" : "");
}

// A streamed run: the engine's time from the stream. No analytic column: the analytic engine
// walks a held schedule, which is what was not built.
PredictionRecord predict_streamed(const PredictionRequest& r, const RunCosts& costs, const CostModel& flat,
                                  const std::string& algorithm, std::uint64_t bytes) {
  const AlgorithmEntry& a = find_algorithm(algorithm);
  const ScheduleRequest sr = schedule_request(r, a, bytes);
  const std::unique_ptr<TransferStream> stream = a.stream(sr);
  PredictionRecord rec = record_for(r, costs.protocol, algorithm, bytes);
  rec.runtime_s = costs.fixed_s;
  rec.streamed = true;
  rec.segments = stream->info().segments;
  rec.channels = stream->info().channels;
  rec.transfers = stream->size();
  if (r.on_note) r.on_note(streamed_note(r, rec, a, sr));
  FlowResult flow;
  rec.time_s = find_engine(r.engine).run_stream(*stream, costs, r.run, flow) + costs.fixed_s;
  fill_rates(rec, r, costs, flat);
  return rec;
}

// A held schedule's run: the engine's time, the analytic column beside a contention engine,
// the rates and bound, the closed form where `closed_form` (a built-in algorithm) has one.
// `flat`: the model of the closed forms and the lower bound (on a topology, the rule's stand-in).
PredictionRecord price_held(const PredictionRequest& r, const RunCosts& costs, const CostModel& flat,
                            const Schedule& schedule, bool closed_form) {
  const std::string& algorithm = schedule.info().algorithm;
  const std::uint64_t bytes = schedule.info().bytes;
  PredictionRecord rec = record_for(r, costs.protocol, algorithm, bytes);
  rec.runtime_s = costs.fixed_s;
  rec.segments = schedule.info().segments;
  rec.channels = schedule.info().channels;
  rec.transfers = schedule.size();
  const EngineEntry& engine = find_engine(r.engine);
  FlowResult flow;
  rec.time_s = engine.run(schedule, costs, r.run, flow) + costs.fixed_s;
  if (engine.contention)
    rec.analytic_s = find_engine(EngineKind::analytic).run(schedule, costs, r.run, flow) + costs.fixed_s;
  fill_rates(rec, r, costs, flat);
  // The closed forms describe one instance; channels > 1 have none (docs/algorithms.md, Channels).
  if (closed_form && !engine.contention && r.run.one_port && rec.channels == 1 && r.pair_bytes.empty())
    if (const std::optional<double> form = closed_form_time(algorithm, r.collective, r.ranks, bytes, flat, rec.segments))
      rec.closed_form_s = *form + costs.fixed_s;
  if (r.on_flow_run && engine.flow_details) r.on_flow_run(rec, schedule, flow);
  return rec;
}

PredictionRecord predict_held(const PredictionRequest& r, const RunCosts& costs, const CostModel& flat,
                              const std::string& algorithm, std::uint64_t bytes) {
  return price_held(r, costs, flat, generate_schedule(algorithm, schedule_request(r, find_algorithm(algorithm), bytes)),
                    true);
}

// The flat model of the closed forms and the lower bound: the cost rule's stand-in (a flat
// network's own classes).
CostModel flat_model(const RunCosts& costs) {
  return equivalent_cost_model(*costs.topology, costs.gamma_s_per_byte, kLargeMessage, costs.protocol);
}

// A candidate's runs short of their channels (PredictionRecord::short_of_channels), added to
// those of the others compared with it, each once.
void add_short_of_channels(std::vector<std::string>& into, const PredictionRecord& candidate) {
  for (const std::string& run : candidate.short_of_channels)
    if (std::find(into.begin(), into.end(), run) == into.end()) into.push_back(run);
}

PredictionRecord predict_with(const PredictionRequest& r, const Protocol& protocol, const std::string& algorithm,
                              std::uint64_t bytes) {
  if (r.on_candidate) r.on_candidate(algorithm, protocol);
  const RunCosts costs = run_costs(r, algorithm, protocol, bytes);
  const CostModel flat = flat_model(costs);
  if (r.schedule) return price_held(r, costs, flat, *r.schedule, false);
  PredictionRecord rec = holding_for(r, algorithm, bytes) == Holding::streamed
                             ? predict_streamed(r, costs, flat, algorithm, bytes)
                             : predict_held(r, costs, flat, algorithm, bytes);
  if (const std::uint32_t suggested = channels_for(r, algorithm); rec.channels < suggested)
    rec.short_of_channels.push_back(
        fmt::format("{} {} in {} of {}", algorithm, format_size(bytes), rec.channels, suggested));
  return rec;
}

// The protocols the cluster's library offers before the runs' NCCL_PROTO: every one, less LL128
// where NCCL leaves it off by default (ll128_left_out).
std::vector<Protocol> offered_protocols(const PredictionRequest& r) {
  const bool without_ll128 = ll128_left_out(r);
  std::vector<Protocol> out;
  for (const Protocol& p : protocol_table())
    if (!(without_ll128 && p.name == "ll128")) out.push_back(p);
  return out;
}

// One algorithm at one size: with the request's protocol, or with each offered and the fastest kept.
PredictionRecord predict_algorithm(const PredictionRequest& r, const std::string& algorithm, std::uint64_t bytes) {
  if (r.protocol) return predict_with(r, *r.protocol, algorithm, bytes);
  std::optional<PredictionRecord> best;
  for (const Protocol& p : offered_protocols(r)) {
    PredictionRecord rec = predict_with(r, p, algorithm, bytes);
    if (!best || rec.time_s < best->time_s) best = std::move(rec);
  }
  return *best;
}

// The tuner plugin's choice for "nccl" at `bytes`, among the candidates that run here (`runs`);
// none where the cluster has no plugin or it leaves the choice to NCCL.
std::optional<TunerChoice> plugin_choice(const PredictionRequest& r, std::uint64_t bytes,
                                         const std::vector<std::string_view>& runs,
                                         const std::vector<Protocol>& protocols) {
  if (r.tuner == TunerPlugin::none) return std::nullopt;
  return tuner_plugin_choice(
      r.tuner, r.collective, bytes, r.ranks, placed_nodes(*r.topology),
      [&](std::string_view a) { return std::find(runs.begin(), runs.end(), a) != runs.end(); },
      [&](std::string_view p) {
        return std::any_of(protocols.begin(), protocols.end(), [&](const Protocol& q) { return q.name == p; });
      });
}

// Whether some peer of an all-to-all is reached over the network: a step from rank 0 to its
// neighbour or to the last rank crosses it, or, where no link class says its transport, the
// ranks sit on several nodes.
bool peers_over_network(const PredictionRequest& r) {
  const Transport near = step_transport(r, 1), far = step_transport(r, r.ranks - 1);
  if (near == Transport::unknown && far == Transport::unknown) return placed_nodes(*r.topology) > 1;
  return near == Transport::net || far == Transport::net;
}

// The protocol NCCL's all-to-all of `bytes` runs with (nccl_p2p_protocol), by each peer's part
// (all-to-all-v: the largest). Its peers over the network run Simple, so the whole run does where
// some are (the small parts to peers of the same node, which NCCL sends with LL, are priced with
// Simple too).
Protocol p2p_protocol(const PredictionRequest& r, std::uint64_t bytes) {
  const std::uint64_t peer_bytes = r.pair_bytes.empty()
                                       ? bytes / std::max<Rank>(r.ranks, 1)
                                       : *std::max_element(r.pair_bytes.begin(), r.pair_bytes.end());
  return find_protocol(nccl_p2p_protocol(peer_bytes, peers_over_network(r)));
}

// The protocols NCCL runs candidate `a` with, of those the runs allow (`protocols`): NVLS,
// NVLS_TREE and CollNet Simple only (its tuning gives LL and LL128 no bandwidth there: tuning.cc,
// "Not used"), none where Simple is not allowed; its all-to-all's sends and receives the one its
// point-to-point rule gives (p2p_protocol); the rest every one allowed.
std::vector<Protocol> protocols_of_candidate(const PredictionRequest& r, std::string_view a, std::uint64_t bytes,
                                             const std::vector<Protocol>& protocols) {
  if (r.collective == Collective::alltoall) return {p2p_protocol(r, bytes)};
  if (find_algorithm(a).in_network == InNetwork::none) return protocols;
  if (!simple_allowed(protocols)) return {};
  return {simple_protocol()};
}

// "nccl" on one rank under NCCL's runtime: NCCL runs none of its algorithms but copies the buffer
// (sim/runtime.hpp, nccl_one_rank_s), a time no candidate changes, so the row names the copy and
// no protocol rather than a candidate the choice never weighed.
PredictionRecord predict_one_rank_copy(const PredictionRequest& r, std::uint64_t bytes,
                                       const std::vector<std::string_view>& runs) {
  PredictionRecord rec = predict_with(r, simple_protocol(), std::string(runs.front()), bytes);
  rec.algorithm = kNcclChoice;
  rec.runs = std::string(kNcclOneRankCopy);
  rec.protocol.name = "none";
  return rec;
}

// "nccl": what the cluster's tuner plugin chooses where it does; elsewhere each of NCCL's
// algorithms that runs here and the runs' environment allows, with every protocol it allows
// (nccl_protocols), the fastest kept.
PredictionRecord predict_nccl(const PredictionRequest& r, std::uint64_t bytes) {
  const std::vector<std::string_view> runs = nccl_runs_at(r, bytes);
  if (r.ranks == 1 && r.runtime == CollectiveRuntime::nccl) return predict_one_rank_copy(r, bytes, runs);
  const std::vector<Protocol> protocols = nccl_protocols(r);
  if (const std::optional<TunerChoice> pick = plugin_choice(r, bytes, runs, protocols)) {
    PredictionRecord rec = predict_with(r, find_protocol(pick->protocol), std::string(pick->algorithm), bytes);
    rec.algorithm = kNcclChoice;
    return rec;
  }
  std::optional<PredictionRecord> best;
  std::vector<std::string> short_of_channels;
  std::vector<NcclCandidate> candidates;
  for (std::string_view a : runs) {
    for (const Protocol& p : protocols_of_candidate(r, a, bytes, protocols)) {
      PredictionRecord rec = predict_with(r, p, std::string(a), bytes);
      add_short_of_channels(short_of_channels, rec);
      candidates.push_back({std::string(a), std::string(p.name), rec.time_s});
      if (!best || rec.time_s < best->time_s) best = std::move(rec);
    }
  }
  if (!best)
    throw Error(fmt::format("--algo nccl: NCCL_PROTO leaves {} only, which none of NCCL's algorithms that run {} here "
                            "({}) takes; allow Simple (--protocol simple, or runtime: proto)",
                            protocol_names(protocols), format_size(bytes), fmt::join(runs, ", ")));
  best->algorithm = kNcclChoice;  // runs: the one chosen
  best->short_of_channels = std::move(short_of_channels);  // of every candidate: the choice was among them
  // Fastest first; ties in the order tried, so the kept one (the first tried of the fastest) leads.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const NcclCandidate& a, const NcclCandidate& b) { return a.time_s < b.time_s; });
  best->candidates = std::move(candidates);
  return *best;
}

PredictionRecord predict_one(const PredictionRequest& r, const std::string& algorithm, std::uint64_t bytes) {
  return algorithm == kNcclChoice ? predict_nccl(r, bytes) : predict_algorithm(r, algorithm, bytes);
}

// The user's schedule: it must be for this cluster's ranks and the request's collective.
PredictionRecord predict_schedule(const PredictionRequest& r) {
  const ScheduleInfo& info = r.schedule->info();
  if (info.ranks != r.ranks)
    throw Error(fmt::format("the schedule is for {} ranks and the cluster has {}: give --ranks {}", info.ranks, r.ranks,
                            info.ranks));
  if (info.collective != r.collective)
    throw Error(fmt::format("the schedule is a {}, not a {}", to_string(info.collective), to_string(r.collective)));
  PredictionRecord rec = predict_algorithm(r, info.algorithm, info.bytes);
  rec.winner = true;  // the only candidate
  return rec;
}

// Throws Error where `a` keeps more transfers in flight than a contention engine shares in
// minutes (kMaxFlowsInFlight).
void check_flows_fit(const PredictionRequest& r, const AlgorithmEntry& a, const ScheduleRequest& sr) {
  const double in_flight = estimated_size(a, sr).in_flight;
  if (!find_engine(r.engine).contention || in_flight <= kMaxFlowsInFlight) return;
  throw Error(fmt::format("{} keeps {:.3g} M transfers in flight at once, more than the {} engine shares in minutes "
                          "(at most {:.0e}: each start and end re-shares them); --engine analytic prices it without "
                          "contention",
                          a.name, in_flight / 1e6, to_string(r.engine), kMaxFlowsInFlight));
}

// A row of "all" for an algorithm that cannot run at `bytes` (refusals_in_rows).
PredictionRecord refused_record(const PredictionRequest& r, const std::string& algorithm, std::uint64_t bytes,
                                const std::string& why) {
  PredictionRecord rec = record_for(r, r.protocol.value_or(simple_protocol()), algorithm, bytes);
  rec.refused = why;
  return rec;
}

// For "no algorithm can run": each one's refusal at the first size.
std::string refusals_of_every(const PredictionRequest& r) {
  std::vector<std::string> out;
  for (const std::string& name :
       expand_algorithm_names(r.algorithms, r.collective, r.ranks, r.cost.ranks_per_node, switches_reduce(r)))
    out.push_back(fmt::format("{}: {}", name, refusal(r, name, r.sizes.front())));
  return fmt::format("{}", fmt::join(out, "; "));
}

// Whether `algorithm` would run as a stream under the default policy (Streaming::when_large).
bool streams_by_default(const PredictionRequest& r, std::string_view algorithm, std::uint64_t bytes) {
  PredictionRequest by_default = r;
  by_default.streaming = Streaming::when_large;
  return why_not_streamed(by_default, algorithm, schedule_request(by_default, find_algorithm(algorithm), bytes)).empty();
}

// NCCL's name for a candidate of "nccl", as NCCL_ALGO writes it (NcclEnvironment): its Ring is
// collsim's ring and chain, its Tree nccl-tree, its CollNetDirect collnet; linear (all-to-all's
// sends and receives) is none of them, and NCCL_ALGO leaves it alone.
std::string_view nccl_algorithm_name(std::string_view candidate) {
  if (candidate == "ring" || candidate == "chain") return "ring";
  if (candidate == "nccl-tree") return "tree";
  if (candidate == "nvls") return "nvls";
  if (candidate == "nvls-tree") return "nvlstree";
  if (candidate == "collnet") return "collnetdirect";
  return {};
}

}  // namespace

bool nccl_environment_allows(const PredictionRequest& r, std::string_view candidate) {
  const std::string_view name = nccl_algorithm_name(candidate);
  return name.empty() || r.runtime_hardware.environment.allows_algorithm(name);
}

bool ll128_left_out(const PredictionRequest& r) {
  return r.runtime != CollectiveRuntime::none && r.runtime_hardware.environment.protocols.empty() &&
         !nccl_ll128_by_default(r.runtime_hardware, step_transport(r, 1));
}

std::vector<Protocol> nccl_protocols(const PredictionRequest& r) {
  if (r.nccl_protocol) return {*r.nccl_protocol};
  std::vector<Protocol> out;
  for (const Protocol& p : offered_protocols(r))
    if (r.runtime_hardware.environment.allows_protocol(p.name)) out.push_back(p);
  return out;
}

// Held where the schedule is small (kStreamAboveTransfers), streamed where it is large or does
// not fit, and can stream (or when asked): the held run gives the analytic column, --detail and
// --trace and keeps every answer below the threshold as it was, while the streamed run equals
// it (tests/sim/test_prediction_stream.cpp, 1e-12) in a window of the memory and a fraction of
// the time. A large schedule that cannot stream here (another engine, --detail) is held, as
// before. The streamed ring runs the channels asked for (--channels), equal to the held one;
// the cluster's suggestion it streams in one (schedule_request says why).
Holding holding_for(const PredictionRequest& r, std::string_view algorithm, std::uint64_t bytes) {
  const AlgorithmEntry& a = find_algorithm(algorithm);
  const ScheduleRequest sr = schedule_request(r, a, bytes);
  check_channels(a, sr);
  check_flows_fit(r, a, sr);
  const std::string why_not = why_not_streamed(r, algorithm, sr);
  const bool can_stream = r.streaming != Streaming::never && why_not.empty();
  if (can_stream && (r.streaming == Streaming::always || estimated_size(a, sr).transfers > kStreamAboveTransfers))
    return Holding::streamed;
  try {
    check_schedule_fits(a, sr);
    return Holding::held;
  } catch (const Error& e) {
    if (can_stream) return Holding::streamed;
    if (r.streaming == Streaming::never && streams_by_default(r, algorithm, bytes))
      throw Error(fmt::format("{}; --stream auto runs it as a stream", e.what()));
    // "only ring and hierarchical-ring run as a stream" says nothing to a user who asked for
    // two-tree: say what would.
    throw Error(fmt::format("{}{}", e.what(),
                            a.stream ? "; " + why_not : what_streams_instead(r, algorithm, bytes)));
  }
}

// NCCL's ring algorithm is collsim's ring for allreduce, reduce-scatter and allgather, and its
// chain for broadcast and reduce (NCCL pipelines those along the ring from the root).
std::vector<std::string_view> nccl_candidates(Collective collective, bool collnet_enabled) {
  // NCCL's all-to-all is a group of sends and receives to every peer at once (linear).
  if (collective == Collective::alltoall) return {"linear"};
  const bool rooted = spec_of(collective).rooted;
  std::vector<std::string_view> out{rooted ? "chain" : "ring"};
  if (collective == Collective::allreduce) out.insert(out.end(), {"nccl-tree", "nvls", "nvls-tree"});
  if (collective == Collective::allreduce && collnet_enabled) out.push_back("collnet");
  std::erase_if(out, [&](std::string_view a) { return !find_algorithm(a).supports(collective); });
  return out;
}

// One channel per NIC, as NCCL's rings and trees take, but never more than NCCL runs
// (MAXCHANNELS, kMaxChannels): a GB200 NVL72 rack has 72 NICs. On a switchless NVLink mesh,
// one per ring its search found (Topology::mesh_rings), which the ring's channels ride.
std::uint32_t suggested_channels(const PredictionRequest& r) {
  if (rides_mesh_rings(r, "ring")) return std::uint32_t(r.topology->mesh_rings.size());
  if (r.topology->nics_per_node <= 1 || r.ranks == 0) return 1;
  const Topology& t = *r.topology;
  return t.node_of(0) != t.node_of(r.ranks - 1) ? std::min<std::uint32_t>(t.nics_per_node, kMaxChannels) : 1;
}

std::uint32_t channels_for(const PredictionRequest& r, std::string_view algorithm) {
  const AlgorithmEntry& a = find_algorithm(algorithm);
  if (!a.takes_channels || !algorithms::collective_runs_in_channels(r.collective)) {
    // Named, it gets what was asked (check_channels says why not); in "all" and "auto", one.
    const bool every = r.algorithms.size() == 1 && (r.algorithms[0] == "all" || r.algorithms[0] == "auto");
    return every ? 1 : r.channels;
  }
  return r.channels > 0 ? r.channels : suggested_channels(r);
}

EngineKind default_engine(const std::shared_ptr<const Topology>& topology) {
  const std::vector<EngineEntry>& table = engine_table();  // analytic, then flow: always built
  return std::find_if(table.begin(), table.end(),
                      [&](const EngineEntry& e) { return e.contention == topology->shares_links; })->kind;
}

PredictionRequest cluster_request(const ClusterConfig& cluster) {
  PredictionRequest r;
  r.algorithms = {"all"};
  r.sizes = !cluster.bytes.empty() ? cluster.bytes : parse_size_list(kDefaultSizes);
  r.ranks = cluster.ranks;
  r.cost = cluster.cost;
  r.topology = cluster.topology;
  r.runtime = cluster.runtime;
  r.runtime_hardware = cluster.runtime_hardware;
  r.collnet_enabled = cluster.collnet_enabled;
  r.tuner = cluster.tuner;
  r.host_issue = cluster.host_issue;
  r.engine = default_engine(cluster.topology);
  return r;
}

void set_gpus_per_thread(PredictionRequest& r, const ClusterConfig& cluster, std::uint32_t gpus_per_thread) {
  if (gpus_per_thread == 0) throw Error("gpus per thread: give 1 or more (nccl-tests -g)");
  if (gpus_per_thread > 1 && cluster.runtime == CollectiveRuntime::none)
    throw Error(fmt::format("--gpus-per-thread {}: {} names no runtime (runtime: nccl), whose kernels a thread would "
                            "launch; leave it out, or give a GPU cluster",
                            gpus_per_thread, cluster.name));
  const Rank node = r.cost.ranks_per_node;
  if (node > 0 && gpus_per_thread > node)
    throw Error(fmt::format("--gpus-per-thread {}: more GPUs than a node of {} has ({}): one thread drives GPUs of "
                            "its own node",
                            gpus_per_thread, cluster.name, node));
  r.gpus_per_thread = gpus_per_thread;
}

RunCosts run_costs(const PredictionRequest& r, std::string_view algorithm, const Protocol& protocol,
                   std::uint64_t bytes) {
  const RunRuntime runtime = run_runtime(r.runtime, r.runtime_hardware, runtime_run(r, algorithm, protocol, bytes));
  Protocol priced = protocol;
  priced.step = runtime.step;
  priced.rate = runtime.rate;
  priced.pipeline = runtime.pipeline;
  if (runtime.rate.link_share > 0) priced.payload_fraction = runtime.rate.link_share;
  // A host that issues the transfers (HostIssue): each starts no earlier than its issue, and the
  // host's synchronization after the GPU's last work is a fixed cost like the runtime's. A
  // runtime launched by one thread for several GPUs starts the last GPU's part that much later.
  // Kernels are launched where the runtime prices the run (run_runtime: a runtime, and a collective
  // that is not empty).
  const double launching_s = runtime.step.active ? launching_thread_s(r.gpus_per_thread) : 0.0;
  return {.topology = r.topology.get(), .gamma_s_per_byte = r.cost.gamma_s_per_byte, .protocol = priced,
          .fixed_s = runtime.fixed_s + launching_s + r.host_issue.sync_of(r.ranks),
          .issue_s = r.host_issue.per_transfer_s};
}

namespace {

// What a run holds at its peak, by the size guard's estimate: a held schedule's transfers at
// kHeldBytesPerTransfer (a stream holds a window of its transfers: counted as nothing). For
// "nccl", the largest of the candidates it runs one after another.
double held_bytes(const PredictionRequest& r, const std::string& algorithm, std::uint64_t bytes) {
  std::vector<std::string_view> runs{algorithm};
  if (algorithm == kNcclChoice) runs = nccl_runs_at(r, bytes);
  double most = 0;
  for (std::string_view a : runs) try {
      if (holding_for(r, a, bytes) != Holding::held) continue;
      const AlgorithmEntry& entry = find_algorithm(a);
      most = std::max(most, estimated_size(entry, schedule_request(r, entry, bytes)).transfers * kHeldBytesPerTransfer);
    } catch (const Error&) {  // the run itself says why it cannot
    }
  return most;
}

// Runs share a process safely except on SimGrid (one global engine per process), and where
// on_flow_run (--trace, --detail) reports in run order.
bool side_by_side(const PredictionRequest& r) { return r.engine != EngineKind::simgrid && !r.on_flow_run; }

using Progress = std::function<void(const PredictionStep&)>;

// Every run of `names` at every size, sizes outer, in that order: one after another, or with
// r.jobs > 1 side by side (base/parallel_runs.hpp), on one copy of the request whose callbacks
// take turns and first tell `progress` which run they come from.
std::vector<PredictionRecord> predict_runs(const PredictionRequest& r, const std::vector<std::string>& names,
                                           const Progress& progress) {
  const std::size_t total = r.sizes.size() * names.size();
  auto algorithm_of = [&](std::size_t i) -> const std::string& { return names[i % names.size()]; };
  auto bytes_of = [&](std::size_t i) { return r.sizes[i / names.size()]; };
  std::vector<PredictionRecord> out(total);
  auto predict_run = [&](const PredictionRequest& request, std::size_t i) {
    const std::string& a = algorithm_of(i);
    const std::string refused =
        request.refusals_in_rows && every_algorithm(request) ? refusal(request, a, bytes_of(i)) : "";
    out[i] = refused.empty() ? predict_one(request, a, bytes_of(i)) : refused_record(request, a, bytes_of(i), refused);
  };
  ParallelRuns runs;
  runs.jobs = side_by_side(r) ? parallel_jobs(r.jobs, total) : 1u;
  if (runs.jobs <= 1) {
    for (std::size_t i = 0; i < total; ++i) {
      if (progress) progress({algorithm_of(i), bytes_of(i), i, total});
      predict_run(r, i);
    }
    return out;
  }
  for (std::size_t i = 0; i < total; ++i) runs.hold_bytes.push_back(held_bytes(r, algorithm_of(i), bytes_of(i)));
  runs.budget_bytes = available_memory_bytes();
  std::mutex turn;           // one callback at a time
  std::size_t finished = 0;  // runs done so far
  static thread_local std::size_t run_here = 0;
  auto announce = [&](bool resumed = true) {
    if (progress) progress({algorithm_of(run_here), bytes_of(run_here), finished, total, resumed});
  };
  // A callback of the shared request: in turn, after naming its run where `names_run`.
  auto in_turn = [&](const auto& callback, bool names_run) {
    return [&, callback, names_run](auto&&... args) {
      const std::lock_guard lock(turn);
      if (names_run) announce();
      callback(args...);
    };
  };
  PredictionRequest shared = r;
  if (r.on_note) shared.on_note = in_turn(r.on_note, false);
  if (r.on_candidate) shared.on_candidate = in_turn(r.on_candidate, true);
  if (r.run.flow.progress) shared.run.flow.progress = in_turn(r.run.flow.progress, true);
  if (r.run.flow.on_fallback) shared.run.flow.on_fallback = in_turn(r.run.flow.on_fallback, false);
  if (r.run.stream_progress) shared.run.stream_progress = in_turn(r.run.stream_progress, true);
  run_in_parallel(runs, [&](std::size_t i) {
    run_here = i;
    {
      const std::lock_guard lock(turn);
      announce(false);
    }
    predict_run(shared, i);
    const std::lock_guard lock(turn);
    ++finished;
  });
  return out;
}

}  // namespace

std::vector<PredictionRecord> predict(const PredictionRequest& r, const Progress& progress) {
  check_engine_fits(find_engine(r.engine), run_costs(r, "", simple_protocol(), 0));
  if (r.schedule) return {predict_schedule(r)};
  const std::vector<std::string> names = expand_algorithms(r);
  if (names.empty())
    throw Error(fmt::format("no algorithm can run {} on {} ranks here ({}); give fewer --ranks", to_string(r.collective),
                            r.ranks, r.refusals_in_rows ? refusals_of_every(r) : "each left out above says why"));
  const bool only_winners = r.algorithms.size() == 1 && r.algorithms[0] == "auto";

  std::vector<PredictionRecord> every = predict_runs(r, names, progress);
  std::vector<PredictionRecord> records;
  for (std::size_t size = 0; size < r.sizes.size(); ++size) {
    const std::size_t first = records.size();
    const auto runs = every.begin() + std::ptrdiff_t(size * names.size());
    records.insert(records.end(), std::make_move_iterator(runs), std::make_move_iterator(runs + std::ptrdiff_t(names.size())));
    // The fastest of those that answered (at least one did at some size: expand_algorithms).
    auto best = std::min_element(records.begin() + first, records.end(), [](const PredictionRecord& x, const PredictionRecord& y) {
      return x.refused.empty() && (!y.refused.empty() || x.time_s < y.time_s);
    });
    if (best == records.end() || !best->refused.empty()) {
      if (only_winners) records.resize(first);
      continue;
    }
    best->winner = true;
    if (only_winners) {
      PredictionRecord keep = *best;
      for (auto rec = records.begin() + first; rec != records.end(); ++rec) add_short_of_channels(keep.short_of_channels, *rec);
      records.resize(first);
      records.push_back(keep);
    }
  }
  return records;
}

nlohmann::json to_json(const PredictionRecord& r) {
  nlohmann::json j = {{"collective", to_string(r.collective)},
                      {"algorithm", r.algorithm},
                      {"runs", r.runs},
                      {"ranks", r.ranks},
                      {"bytes", r.bytes},
                      {"engine", to_string(r.engine)},
                      {"placement", r.placement},
                      {"segments", r.segments},
                      {"protocol", r.protocol.name},
                      {"channels", r.channels},
                      {"transfers", r.transfers},
                      {"time_s", r.time_s},
                      {"runtime_s", r.runtime_s},
                      {"algbw_GBps", r.algbw_GBps},
                      {"busbw_GBps", r.busbw_GBps},
                      {"lower_bound_s", r.lower_bound_s},
                      {"winner", r.winner},
                      {"streamed", r.streamed}};
  if (r.ranks <= 1) j["algbw_GBps"] = j["busbw_GBps"] = nullptr;  // on one rank nothing moves
  if (!r.refused.empty()) {  // no run: no times
    j["refused"] = r.refused;
    for (const char* key : {"time_s", "algbw_GBps", "busbw_GBps", "lower_bound_s", "transfers"}) j[key] = nullptr;
  }
  j["closed_form_s"] = r.closed_form_s ? nlohmann::json(*r.closed_form_s) : nlohmann::json(nullptr);
  if (r.analytic_s) j["analytic_s"] = *r.analytic_s;
  if (!r.short_of_channels.empty()) j["short_of_channels"] = r.short_of_channels;
  return j;
}

}  // namespace collsim
