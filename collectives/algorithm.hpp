// collectives/algorithm.hpp — the registry of collective algorithms: one table of entries
// that the command line, the engines, the tests and the docs all enumerate. Everything about
// one algorithm (its generator, a pure function request -> Schedule, and the rest of its
// entry below) lives in algorithms/<name>.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace collsim {

struct ScheduleRequest {
  Collective collective = Collective::allreduce;
  Rank ranks = 1;
  std::uint64_t bytes = 0;
  std::uint32_t segments = 0;        // 0: the algorithm's default (see segments_for)
  std::uint32_t ranks_per_node = 0;  // hierarchical-ring, and channels' rank orders; 0: not given
  std::uint32_t channels = 0;        // channels (algorithms/channels.hpp); 0: one
  // Each channel's rank order, one per channel, as a ring search over the cluster's links found
  // them (topologies/ring_search.hpp: a switchless NVLink mesh's rings); empty: every node's
  // ranks rotated (algorithms::channel_order).
  std::vector<std::vector<Rank>> channel_orders;
  Rank root = 0;                     // broadcast, reduce
  // Alltoall's bytes per pair (ScheduleInfo::pair_bytes, all-to-all-v); empty: N / P each. With
  // it, `bytes` is at least the largest row's sum (a rank's data buffer).
  std::vector<std::uint64_t> pair_bytes;
};

using Generator = Schedule (*)(const ScheduleRequest&);
// What building a schedule costs, bounded from above before generating it (segments
// resolved): its transfers, the elements each rank's buffer is cut into (the builder and the
// checker keep a record per rank and element), the element visits of its transfers, and its
// dependencies where they outgrow the transfers (a switch's result read by M ranks depends on
// all M contributions: M^2 per segment; 0 where a transfer has a few).
struct ScheduleSize {
  double transfers = 0;
  double elements = 0;
  double element_visits = 0;
  double dependencies = 0;
  // The most transfers that can be in flight at once, where an algorithm posts many without
  // waiting (linear all-to-all: all of them); 0 where it keeps few (a step's worth). The
  // contention engines bound it (sim/prediction.cpp, kMaxFlowsInFlight).
  double in_flight = 0;
};
using SizeBound = ScheduleSize (*)(const ScheduleRequest&);
// A pipelined algorithm's segment count when the request leaves it at 0.
using SegmentRule = std::uint32_t (*)(const ScheduleRequest&);

// The size guard's limits (kept well inside a 24 GB, 2-core machine; about a minute of work):
// ~48 bytes per transfer in the IR, 12 bytes per (rank, element) record where the builder
// keeps them dense (up to kDenseRecordLimit, schedule_builder.hpp) and ~100 per piece of a
// rank's bytes beyond (elements.hpp), and visits at about 10-20 M per second.
inline constexpr double kMaxScheduleTransfers = 1e8;
inline constexpr double kMaxElementRecords = 1e8;
inline constexpr double kMaxDependencies = 5e8;  // 4 bytes each in the IR, twice that while sorted
inline constexpr double kMaxElementVisits = 5e8;
// The most channels a schedule runs: NCCL's MAXCHANNELS (src/include/device.h, 2.19+: 64).
inline constexpr std::uint32_t kMaxChannels = 64;

namespace algorithms {
struct BinaryTree;
}
// The time of `collective` on P ranks of n bytes under the analytic model (its helpers and
// the lower bound in closed_forms.hpp), nullopt where the model is not the one the form assumes.
// `segments` is the schedule's segment count (1 for algorithms that are not pipelined).
using ClosedForm = std::optional<double> (*)(Collective collective, Rank ranks, double n, const CostModel& cost,
                                             std::uint32_t segments);
// The trees a tree algorithm's schedule follows, for explain and the pictures.
using TeachingTrees = std::vector<algorithms::BinaryTree> (*)(const ScheduleInfo& info);
// The schedule told transfer by transfer without being held (transfer_stream.hpp), for
// schedules too large to hold; throws Error where the stream cannot tell this request.
class TransferStream;
using StreamFactory = std::unique_ptr<TransferStream> (*)(const ScheduleRequest& request);

// What an algorithm needs of the network's switches: nothing; a switch that reduces
// (in-network reduction) in each node it runs on: reducer n of its schedules is node n's
// switch; or the fabric's reducer (InfiniBand SHARP, reducer M after the M nodes' switches:
// collectives/schedule.hpp), and node switches that reduce where a node holds several ranks.
// Such algorithms run only where the cluster says its switches reduce, and "all" lists them
// only there.
enum class InNetwork : std::uint8_t { none, node_switch, fabric };

// Which of a cluster's switches reduce (topologies' `reduction: nvls` and `reduction: sharp`).
struct SwitchesReduce {
  bool node = false;    // each node's NVSwitch (NVLink SHARP)
  bool fabric = false;  // the fabric's InfiniBand switches (SHARP)
  bool any() const { return node || fabric; }
};

// One algorithm and what the rest of collsim needs to know of it. Adding an algorithm:
//   1. its file algorithms/<name>.cpp, defining the generator and whatever else of the entry
//      applies (size bound, segment rule, closed form, teaching trees, stream), and
//      `AlgorithmEntry <name>_entry()` returning them (naive.cpp is the shortest example,
//      ring.cpp the fullest);
//   2. its declaration in algorithms/entries.hpp, its line in algorithm.cpp's table (where it
//      is listed: the table's order is the CLI's), its source in collectives/CMakeLists.txt.
struct AlgorithmEntry {
  std::string_view name;
  std::string_view summary;
  std::vector<Collective> collectives;
  Generator generate = nullptr;
  SizeBound size_bound = nullptr;
  bool pipelined = false;             // takes a segment count
  SegmentRule segment_rule = nullptr;  // pipelined: the default count (none: default_segments of the whole buffer)
  bool needs_ranks_per_node = false;  // runs on whole nodes only (ranks_per_node given, dividing P)
  bool sliced_steps = false;          // pipelined rings: step s S + k is slice k of ring step s
  bool takes_channels = false;        // runs C instances side by side (algorithms/channels.hpp)
  ClosedForm closed_form = nullptr;   // none: no closed form
  TeachingTrees trees = nullptr;      // none: not a tree algorithm
  StreamFactory stream = nullptr;     // none: runs held only
  InNetwork in_network = InNetwork::none;
  bool within_one_node = false;       // all its ranks on one node (nvls): with nodes, P <= ranks_per_node

  bool supports(Collective c) const;
  // Whether the switches it needs reduce here, for nodes of `ranks_per_node` ranks.
  bool has_switches(SwitchesReduce reduce, Rank ranks_per_node) const;
  // Whether it can run on `ranks` ranks, `ranks_per_node` to a node (0: no nodes).
  bool runs_on(Rank ranks, Rank ranks_per_node) const;
};


const std::vector<AlgorithmEntry>& algorithm_table();
const AlgorithmEntry& find_algorithm(std::string_view name);  // throws Error listing valid names
const AlgorithmEntry* lookup_algorithm(std::string_view name);  // nullptr for an unknown name

// The algorithms a request names, checked: "all" and "auto" become every algorithm of the
// collective that runs on these ranks; other names must exist and implement the collective.
// In-network algorithms (InNetwork) are among "all" only where the switches they need reduce.
std::vector<std::string> expand_algorithm_names(const std::vector<std::string>& names, Collective collective, Rank ranks,
                                                Rank ranks_per_node, SwitchesReduce reduce = {});

// The size bound of `algorithm` for this request (its default segments filled in).
ScheduleSize estimated_size(const AlgorithmEntry& algorithm, const ScheduleRequest& request);
// Throws Error when the schedule would be too large to build (the kMax limits above),
// naming the estimate, the limit, and the algorithms of the collective that would fit.
void check_schedule_fits(const AlgorithmEntry& algorithm, const ScheduleRequest& request);

// Segments that cut a message of `bytes` into pieces of about 1 MiB, 1 to 64.
std::uint32_t default_segments(std::uint64_t bytes);
// The segment count `algorithm` uses for `request`: 1 when it is not pipelined, the request's
// when given, else its rule's default for the request's size.
std::uint32_t segments_for(const AlgorithmEntry& algorithm, const ScheduleRequest& request);

// The algorithms that take --channels, for messages.
std::vector<std::string_view> algorithms_with_channels();

// Throws Error when the request's channels (> 1) do not fit the algorithm: too many, an
// algorithm that takes none (naming those that do), or a collective other than allreduce.
void check_channels(const AlgorithmEntry& algorithm, const ScheduleRequest& request);

// Validates the request (P >= 1, collective supported, parameters consistent) and generates.
Schedule generate_schedule(std::string_view algorithm, const ScheduleRequest& request);

}  // namespace collsim
