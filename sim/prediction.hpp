// sim/prediction.hpp — a prediction: for each algorithm and message size, generate the
// schedule, cost it with an engine, and report time, nccl-tests algbw/busbw, the lower
// bound and, where one exists, the closed form. The records are what `collsim predict`
// prints as a table, CSV or JSON.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"
#include "sim/engine_table.hpp"
#include "sim/flow_result.hpp"
#include "sim/protocol.hpp"
#include "sim/run_costs.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// One run "nccl" compared: an algorithm NCCL has with one protocol, and collsim's time for it.
struct NcclCandidate {
  std::string runs;
  std::string protocol;
  double time_s = 0;
};

struct PredictionRecord {
  Collective collective = Collective::allreduce;
  std::string algorithm;
  // The algorithm that ran: `algorithm` itself, or for "nccl" (kNcclChoice) the one it chose.
  std::string runs;
  Rank ranks = 0;
  std::uint64_t bytes = 0;
  EngineKind engine = EngineKind::analytic;
  std::string placement;  // where the ranks sit: "linear", "random (seed 7)", ...
  std::uint32_t segments = 1;
  Protocol protocol;  // the wire protocol of the run (sim/protocol.hpp)
  std::uint32_t channels = 1;  // instances side by side (collectives/algorithms/channels.hpp)
  std::size_t transfers = 0;
  double time_s = 0;
  // Of time_s, what the cluster's runtime charges once before the first transfer (its launch
  // and base latency, sim/runtime.hpp); 0 without a runtime.
  double runtime_s = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  double lower_bound_s = 0;
  std::optional<double> closed_form_s;
  // Flow and simgrid engines: the analytic engine's time for the same schedule on the same
  // routes (its --ports model, one-port by default), to compare with.
  std::optional<double> analytic_s;
  bool winner = false;  // fastest algorithm for this size
  // Run from a stream (collectives/transfer_stream.hpp), not a held schedule: no analytic_s,
  // critical path or trace (see Holding below).
  bool streamed = false;
  // Runs compared in fewer channels than the cluster suggests for them (a ring streamed in one
  // where the suggestion asks more, predict_streamed's note), each as "ring 1G in 1 of 8": the
  // row's own, and for "nccl" and "auto" every candidate's behind the choice. Not like for
  // like with runs in more channels, so the table marks the row.
  std::vector<std::string> short_of_channels;
  // "nccl" where it compared runs (no tuner plugin chose): every one, fastest first, the first
  // the one kept. NCCL picks by its own cost model (tuning.cc), not by collsim's times, so a
  // close second is a choice the prediction could have gone either way on.
  std::vector<NcclCandidate> candidates;
  // A row of "all" or "auto" for an algorithm that cannot run here at this size
  // (PredictionRequest::refusals_in_rows): why not, the guard's message; no times.
  std::string refused;
};

// --algo nccl: what NCCL would run. Of collsim's algorithms, those NCCL has (its Ring: ring,
// or chain for broadcast and reduce; for allreduce its Tree, a chain inside each node and a
// double binary tree across the nodes: nccl-tree, and where the cluster's NVSwitches reduce
// its NVLS on one node and NVLS_TREE across nodes, with the Simple protocol only), each with
// every protocol (LL, LL128, Simple), and the fastest kept, as NCCL's tuner picks by its own
// cost model. CollNet (collnet, where the fabric reduces) only where the cluster enables it
// (`collnet_enabled`, NCCL_COLLNET_ENABLE=1): NCCL 2.30 runs it on no other condition.
inline constexpr std::string_view kNcclChoice = "nccl";
// What "nccl" runs on one rank under NCCL's runtime (PredictionRecord::runs): the buffer's copy.
inline constexpr std::string_view kNcclOneRankCopy = "copy";
std::vector<std::string_view> nccl_candidates(Collective collective, bool collnet_enabled);

// Whether a schedule that has a stream (ring, hierarchical-ring, bruck) runs streamed on the flow
// engine (PredictionRequest::streaming, `predict --stream`).
enum class Streaming {
  when_large,  // where the held schedule would be large (kStreamAboveTransfers) or not fit at all
  always,      // whenever it can (tests compare the two; bounded memory on request)
  never,       // held wherever it fits (the analytic column, --detail and --trace at any size)
};

// Above this many transfers a schedule that can run as a stream does, by default, so a held
// run stays near 1 GB: a held transfer costs about 110 bytes (the schedule, the builder's
// records, the flow and analytic engines' state; measured on the 16,384-rank hierarchical
// ring: docs/performance.md, "16,384 H100s from the CLI").
inline constexpr double kStreamAboveTransfers = 1e7;
inline constexpr double kHeldBytesPerTransfer = 110;

// The most transfers an algorithm may keep in flight at once (ScheduleSize::in_flight) on a
// contention engine, which shares every flow max-min: each start and end re-rates the flows it
// reaches, all of them where every flow crosses every rank's links (an all-to-all posted at
// once), so the work grows about as the square of the flows. Measured (docs/performance.md,
// "All-to-all on every preset", 2 shared cores at load 11): linear all-to-all with 331 K flows
// at once (576 ranks) takes 35 s; with 4.2 M and 5.3 M (2,048 and 2,304) not done in 300 s.
inline constexpr double kMaxFlowsInFlight = 5e5;

struct PredictionRequest {
  Collective collective = Collective::allreduce;
  std::vector<std::string> algorithms;  // names (and "nccl"), or the single name "all" / "auto"
  std::vector<std::uint64_t> sizes;
  Rank ranks = 1;
  // Alltoall's bytes per pair (all-to-all-v, ScheduleInfo::pair_bytes); `sizes` is then the
  // largest row's sum alone. Its runs have no closed form and a bound of their own.
  std::vector<std::uint64_t> pair_bytes;
  // Only its gamma and ranks_per_node are read: the closed forms and the lower bound take the
  // topology's equivalent_cost_model (sim/pair_pricing.hpp).
  CostModel cost;
  // Where the ranks sit (a built fabric or a flat network's: topologies/flat_network.hpp);
  // engines cost each transfer on it. Never null.
  std::shared_ptr<const Topology> topology;
  std::uint32_t segments = 0;  // 0: each algorithm's default
  // The wire protocol (sim/protocol.hpp: ll, ll128, simple); none (--protocol auto): each
  // algorithm and size runs with every protocol and keeps the fastest, as NCCL's tuner picks
  // one by its model.
  std::optional<Protocol> protocol = simple_protocol();
  // Channels of the algorithms that take them (ring, tree, two-tree, nccl-tree allreduce); 0: the
  // cluster's suggestion (suggested_channels). Others run one; naming one with channels > 1 is an error.
  std::uint32_t channels = 0;
  EngineKind engine = EngineKind::analytic;
  // How the engine runs: the analytic model's ports, what the flow engine records and whom it
  // tells of progress, SimGrid's log.
  EngineRun run;
  // Flow engine: a look at each run (for --trace and --detail).
  std::function<void(const PredictionRecord&, const Schedule&, const FlowResult&)> on_flow_run;
  // Which run starts inside one step: the algorithm and protocol of each candidate, where a
  // step runs several ("nccl" runs each of NCCL's algorithms with each protocol, protocol auto
  // each protocol), and of the one run otherwise; for a progress line to name it.
  std::function<void(std::string_view algorithm, const Protocol& protocol)> on_candidate;
  // A schedule the user brought (`predict --schedule FILE`, proved by the checker first): the
  // one candidate, at its own size, in place of `algorithms` and `sizes`; its algorithm name
  // chooses the runtime's constants (sim/runtime.hpp), and it has no closed form.
  std::shared_ptr<const Schedule> schedule;
  // Notes for the user, e.g. an algorithm "all" left out because it would not fit.
  std::function<void(const std::string&)> on_note;
  Streaming streaming = Streaming::when_large;
  // "all" and "auto": an algorithm that cannot run at a size answers a refused row there
  // (PredictionRecord::refused, the table's and the outputs') instead of being left out with a
  // note, so the others still answer (`predict`'s choice); with none to answer, Error as before.
  bool refusals_in_rows = false;
  // The collective library's runtime (sim/runtime.hpp): none prices the links alone.
  CollectiveRuntime runtime = CollectiveRuntime::none;
  RuntimeHardware runtime_hardware;  // the GPUs its rate caps are chosen by
  bool collnet_enabled = false;      // whether "nccl" considers collnet (ClusterConfig::collnet_enabled)
  // The plugin that chooses "nccl"'s algorithm and protocol where it answers (sim/tuner_plugin.hpp;
  // ClusterConfig::tuner); elsewhere, and without one, "nccl" keeps the fastest.
  TunerPlugin tuner = TunerPlugin::none;
  // NCCL_PROTO for "nccl" (`predict --algo nccl --protocol X`): the one protocol NCCL may choose,
  // so its in-network algorithms (Simple only) run only where it is Simple and a tuner plugin's
  // regions of other protocols are passed over; none: NCCL chooses among all.
  std::optional<Protocol> nccl_protocol;
  HostIssue host_issue;              // a host that issues every transfer (ClusterConfig::host_issue)
  // GPUs whose kernels one host thread launches for each collective (nccl-tests -g): with a
  // runtime, a collective pays (G - 1) kernel launch calls more (sim/runtime.hpp,
  // launching_thread_s); 1: a thread (a process) per GPU.
  std::uint32_t gpus_per_thread = 1;
  // Runs (algorithm x size) predicted at once, on threads: 1 one after another; 0 one per core.
  // Where the runs cannot share a process safely (the SimGrid engine's global state, --trace and
  // --detail's report in run order: on_flow_run set), they run one after another whatever this says.
  std::uint32_t jobs = 1;
};

// The engine a cluster gets when none is named (--engine auto): the engine table's first whose
// model of the links is the network's (Topology::shares_links): the flow engine where the
// cluster has links to share (contention changes the answer, and the flow engine is fast), the
// analytic engine on a flat network, a contention-free what-if by definition.
EngineKind default_engine(const std::shared_ptr<const Topology>& topology);

// The sizes a prediction runs when neither the caller nor the cluster's config names any.
inline constexpr std::string_view kDefaultSizes = "1K,64K,1M,16M,256M,1G";

// A request on `cluster` with predict's defaults, the one place the command line, the Python
// module and validate --measured take them from: the cluster's ranks, costs, topology and runtime; its
// config's sizes, else kDefaultSizes; the default engine (default_engine: flow on a topology,
// analytic on a flat network); one channel per NIC the ranks span (channels 0); Simple
// protocol; every algorithm. The caller then sets what its user chose.
PredictionRequest cluster_request(const ClusterConfig& cluster);

// Sets request.gpus_per_thread (nccl-tests -g) for `cluster`, as predict's --gpus-per-thread and
// the Python module's gpus_per_thread: 1 always; more only where the cluster names a runtime
// (its kernels are what one thread launches) and no more than a node's GPUs (a thread drives
// GPUs of its own node). Throws Error naming the problem.
void set_gpus_per_thread(PredictionRequest& request, const ClusterConfig& cluster, std::uint32_t gpus_per_thread);

// The priced run of `algorithm` on `bytes` under `request` with `protocol`: its cluster, gamma,
// protocol and the cluster's runtime for that algorithm, protocol and size (sim/runtime.hpp).
RunCosts run_costs(const PredictionRequest& request, std::string_view algorithm, const Protocol& protocol,
                   std::uint64_t bytes);

// How predict runs one algorithm at one size. A held schedule is generated whole and gives
// every output (analytic column, --detail, --trace). A streamed one is told transfer by
// transfer (ring, in the channels asked for, and hierarchical-ring, on the flow engine), so its memory is a
// window of the run (the flows in flight, the done times a dependency can reach back to), not
// the schedule: it takes over where the held schedule would be large (more than
// kStreamAboveTransfers) or too large to build, and everywhere with Streaming::always; never
// with Streaming::never. It cannot give --detail or --trace (on_flow_run set): those hold it.
enum class Holding { held, streamed };
// Throws Error when it can be neither: the size guard's message (collectives/algorithm.hpp),
// plus what would run instead (a stream, on the flow engine, without --detail/--trace).
Holding holding_for(const PredictionRequest& request, std::string_view algorithm, std::uint64_t bytes);

// Algorithms "all" and "auto" expand to every algorithm that implements the collective and
// can run on these ranks (hierarchical-ring needs whole nodes) and whose schedule fits in
// memory, held or streamed (holding_for; the others are named through on_note, or with
// refusals_in_rows answer refused rows). "auto" keeps only each size's winner. Throws Error for an unknown engine or algorithm, and for an engine the
// cluster cannot serve (flow and simgrid need a topology; simgrid one route per rank pair).
// Which run starts, and how many there are (for a progress line).
// With jobs > 1 the callbacks (this progress, on_candidate, on_note, run.flow.progress,
// run.stream_progress, run.flow.on_fallback) are called from the runs' threads, one at a time,
// and a run's on_candidate and progress callbacks are each preceded by this progress with
// `resumed` set, naming the run they come from.
struct PredictionStep {
  std::string_view algorithm;
  std::uint64_t bytes = 0;
  std::size_t index = 0, total = 0;  // runs done before this one (or, with jobs > 1, so far), of all
  bool resumed = false;              // not a start: the run whose callback follows
};
std::vector<PredictionRecord> predict(const PredictionRequest& request,
                                      const std::function<void(const PredictionStep&)>& progress = {});

nlohmann::json to_json(const PredictionRecord& record);

// The channels a cluster suggests: on a switchless NVLink mesh (all ranks on one node whose
// GPUs are cabled pairwise, or on whole nodes of one) one per ring its search laid out
// (Topology::mesh_rings, which the ring's channels then ride, as NCCL's do); its NICs per node when the ranks span nodes with
// more than one NIC each (one channel per NIC, as NCCL runs one ring per rail); else 1.
std::uint32_t suggested_channels(const PredictionRequest& request);
// The channels `algorithm` runs under `request` (1 for those that take none).
std::uint32_t channels_for(const PredictionRequest& request, std::string_view algorithm);

// Whether the cluster's NCCL environment (NCCL_ALGO, NCCL_NVLS_ENABLE: NcclEnvironment) lets
// "nccl" choose `candidate`, one of nccl_candidates (all-to-all's linear sends: always).
bool nccl_environment_allows(const PredictionRequest& request, std::string_view candidate);
// The protocols "nccl" chooses among: --protocol's one (NCCL_PROTO for this prediction), else the
// cluster's NCCL_PROTO (runtime.proto), else LL, LL128 and Simple, less LL128 where NCCL leaves
// it off by default (ll128_left_out).
std::vector<Protocol> nccl_protocols(const PredictionRequest& request);
// Whether NCCL would leave LL128 out here by its own default (sim/runtime.hpp,
// nccl_ll128_by_default: a node whose GPUs meet over PCIe, or GPUs before compute capability
// 7.0), the cluster's runs setting no NCCL_PROTO; never without a runtime. --protocol auto
// (each protocol, the fastest kept) passes it over too.
bool ll128_left_out(const PredictionRequest& request);

}  // namespace collsim
