// sim/tuner_plugin.cpp — tuner plugins' choices (sim/tuner_plugin.hpp): aws-ofi-nccl's p5
// regions, and the plane geometry that finds the region holding a point.
#include "sim/tuner_plugin.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace collsim {
namespace {

// A point of the plugin's plane: x is the message's bytes, y the communicator's ranks.
struct Point {
  double x = 0;
  double y = 0;
};

struct Region {
  std::string_view algorithm;
  std::string_view protocol;
  std::vector<Point> vertices;  // in order round the polygon
};

// The plugin's far corner (include/tuner/nccl_ofi_tuner_region.h: TUNER_MAX_SIZE 100 GiB,
// TUNER_MAX_RANKS 1024 x 1024), which its open regions extend to.
constexpr double kMaxSize = 100.0 * 1024 * 1024 * 1024;
constexpr double kMaxRanks = 1024.0 * 1024;
constexpr Point kFarCorner{kMaxSize, kMaxRanks};
// The plugin's tolerance for a point on an edge (is_inside_region's eps).
constexpr double kOnEdge = 1e-10;

// The plugin's extend_region: the point where the line through a and b leaves the box below
// and left of z (on z's x where the line is still under z's y there, else on z's y).
Point extend(Point a, Point b, Point z) {
  if (a.x == b.x) return {a.x, z.y};
  if (a.y == b.y) return {z.x, a.y};
  const double slope = (a.y - b.y) / (a.x - b.x);
  const double at_zero = b.y - slope * b.x;
  const double y_at_zx = slope * z.x + at_zero;
  if (y_at_zx < z.y) return {z.x, y_at_zx};
  return {(z.y - at_zero) / slope, z.y};
}

double distance_to_segment(Point p, Point a, Point b) {
  const double dx = b.x - a.x;
  const double dy = b.y - a.y;
  const double length2 = dx * dx + dy * dy;
  const double t = length2 == 0 ? 0 : std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / length2, 0.0, 1.0);
  return std::hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

// Inside or on an edge (the plugin counts both as the region's); even-odd rule inside, so a
// region of no area (a segment, as some of the plugin's are) holds only the points on it.
bool holds(const Region& region, Point p) {
  const std::vector<Point>& v = region.vertices;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (distance_to_segment(p, v[i], v[(i + 1) % v.size()]) < kOnEdge) return true;
  bool inside = false;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Point a = v[i];
    const Point b = v[(i + 1) % v.size()];
    if ((a.y > p.y) == (b.y > p.y)) continue;
    const double x_at_py = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
    if (p.x < x_at_py) inside = !inside;
  }
  return inside;
}

// aws-ofi-nccl v1.16.3, src/tuner/nccl_ofi_regions.cpp, region_init_internal_p5_p5e: the
// allreduce regions for nRanks == 8 x nNodes, in the plugin's order (the first that holds a
// point wins). NCCL_ALGO_TREE is collsim's nccl-tree, NCCL_ALGO_RING its ring, NCCL_ALGO_NVLS_TREE
// its nvls-tree.
const std::vector<Region>& p5_allreduce_8_per_node() {
  static const std::vector<Region> regions = [] {
    const Point tree_ll128_far = extend({402653184, 2048}, {402653184, 4096}, kFarCorner);
    const Point nvlstree_simple_far_1 = extend({8053063680, 160}, {9663676416, 192}, kFarCorner);
    const Point nvlstree_simple_far_2 = extend({402653184, 2048}, {402653184, 4096}, kFarCorner);
    const Point ring_simple_far = extend({8053063680, 160}, {9663676416, 192}, kFarCorner);
    return std::vector<Region>{
        {"nccl-tree", "ll128",
         {{0, 16}, {31457280, 16}, {37748736, 32}, {117440512, 64}, {301989888, 128}, {301989888, 256},
          {335544320, 512}, {536870912, 1024}, {402653184, 2048}, {402653184, 4096}, tree_ll128_far,
          {0, tree_ll128_far.y}}},
        {"nvls-tree", "simple", {{31457281, 16}, {kMaxSize, 16}, {31457281, 16}}},
        {"ring", "ll128",
         {{31457280, 17}, {1073741824, 17}, {2147483648, 64}, {2147483648, 128}, {1342177280, 160},
          {2147483648, 256}, {1074790400, 256}, {444596224, 160}, {301989888, 128}, {117440512, 64},
          {37748736, 32}}},
        {"nvls-tree", "simple",
         {{2147483648, 128}, {6442450944, 128}, {8053063680, 160}, {9663676416, 192}, nvlstree_simple_far_1,
          nvlstree_simple_far_2, {402653184, 4096}, {402653184, 2048}, {536870912, 1024}, {335544320, 512},
          {301989888, 256}, {310378496, 160}, {444596224, 160}, {1074790400, 256}, {2684354560, 256},
          {2147483648, 224}, {1342177280, 160}}},
        {"ring", "simple",
         {{1073741824, 17}, {ring_simple_far.x, 17}, ring_simple_far, {9663676416, 192}, {8053063680, 160},
          {2684354560, 64}, {1610612736, 32}}},
    };
  }();
  return regions;
}

// The allreduce regions for nRanks == 2 x nNodes, in the plugin's order.
const std::vector<Region>& p5_allreduce_2_per_node() {
  static const std::vector<Region> regions = [] {
    const Point tree_ll128_far = extend({88160256, 128}, {178163712, 256}, kFarCorner);
    const Point tree_simple_far_1 = extend({787480576, 128}, {1073741824, 256}, kFarCorner);
    const Point tree_simple_far_2 = extend({257114112, 128}, {269484032, 256}, kFarCorner);
    const Point nvlstree_simple_far = extend({787480576, 128}, {1073741824, 256}, kFarCorner);
    return std::vector<Region>{
        {"nccl-tree", "ll128",
         {{0, 4}, {1314816, 4}, {1051648, 8}, {1051648, 12}, {2367488, 16}, {5525504, 32}, {9473024, 64},
          {88160256, 128}, {178163712, 256}, tree_ll128_far, {0, tree_ll128_far.y}}},
        {"ring", "ll128",
         {{1314816, 4}, {19736576, 4}, {41842688, 8}, {296747008, 64}, {257114112, 128}, {269484032, 256},
          {178163712, 256}, {88160256, 128}, {9473024, 64}, {5525504, 32}, {2367488, 16}, {1051648, 12},
          {1051648, 8}, {1314816, 4}}},
        {"nvls-tree", "simple",
         {{19736576, 4}, {81844224, 4}, {275775488, 8}, {275775488, 48}, {296747008, 64}, {41842688, 8}}},
        {"nccl-tree", "ll128", {{81844224, 4}, {269484032, 4}, {81844224, 4}}},
        {"nccl-tree", "simple", {{269484032, 4}, {kMaxSize, 4}, {269484032, 4}}},
        {"ring", "simple",
         {{81844224, 5}, {kMaxSize, 5}, {kMaxSize, 32}, {1073741824, 40}, {1073741824, 128}, {787480576, 128},
          {296747008, 64}, {275775488, 48}, {275775488, 8}, {81844224, 5}}},
        {"nccl-tree", "simple",
         {{296747008, 64}, {787480576, 128}, {1073741824, 256}, tree_simple_far_1, tree_simple_far_2,
          {269484032, 256}, {257114112, 128}}},
        {"nvls-tree", "simple",
         {nvlstree_simple_far, {1073741824, 256}, {787480576, 128}, {1073741824, 128}, {1073741824, 40},
          {kMaxSize, 32}}},
    };
  }();
  return regions;
}

// The allreduce regions for nRanks == nNodes (one GPU a node), in the plugin's order.
const std::vector<Region>& p5_allreduce_1_per_node() {
  static const std::vector<Region> regions = [] {
    const Point tree_ll128_far = extend({9999360, 64}, {119477248, 128}, kFarCorner);
    const Point ring_ll128_far = extend({4736000, 2}, {269484032, 128}, kFarCorner);
    return std::vector<Region>{
        {"nccl-tree", "ll128", {{0, 16}, {2367488, 16}, {9999360, 64}, {119477248, 128}, tree_ll128_far}},
        {"ring", "ll128",
         {{0, 2}, {4736000, 2}, {269484032, 128}, ring_ll128_far, tree_ll128_far, {119477248, 128}, {9999360, 64},
          {2367488, 16}, {0, 16}}},
        {"ring", "simple", {{4736000, 2}, {kMaxSize, 2}, ring_ll128_far, {269484032, 128}}},
    };
  }();
  return regions;
}

std::optional<TunerChoice> aws_ofi_nccl_p5(Collective collective, std::uint64_t bytes, Rank ranks, Rank nodes,
                                           const std::function<bool(std::string_view)>& runs_here,
                                           const std::function<bool(std::string_view)>& protocol_allowed) {
  // region_get_coll_info_internal_v3: on 2 nodes or fewer, NCCL's own tuning; region_init_internal_p5_p5e:
  // regions for 8, 2 and 1 GPUs a node (and, for 1, allgather and reduce-scatter: not carried here).
  if (collective != Collective::allreduce || nodes <= 2) return std::nullopt;
  const std::vector<Region>* table = ranks == 8 * nodes   ? &p5_allreduce_8_per_node()
                                     : ranks == 2 * nodes ? &p5_allreduce_2_per_node()
                                     : ranks == nodes     ? &p5_allreduce_1_per_node()
                                                          : nullptr;
  if (table == nullptr) return std::nullopt;
  const Point point{double(bytes), double(ranks)};
  for (const Region& region : *table)
    if (runs_here(region.algorithm) && (!protocol_allowed || protocol_allowed(region.protocol)) &&
        holds(region, point))
      return TunerChoice{region.algorithm, region.protocol};
  return std::nullopt;
}

}  // namespace

std::optional<TunerChoice> tuner_plugin_choice(TunerPlugin plugin, Collective collective, std::uint64_t bytes,
                                               Rank ranks, Rank nodes,
                                               const std::function<bool(std::string_view)>& runs_here,
                                               const std::function<bool(std::string_view)>& protocol_allowed) {
  switch (plugin) {
    case TunerPlugin::none: return std::nullopt;
    case TunerPlugin::aws_ofi_nccl_p5:
      return aws_ofi_nccl_p5(collective, bytes, ranks, nodes, runs_here, protocol_allowed);
  }
  return std::nullopt;
}

std::string_view tuner_plugin_name(TunerPlugin plugin) {
  return plugin == TunerPlugin::aws_ofi_nccl_p5 ? "aws-ofi-nccl-p5" : "none";
}

std::string_view tuner_plugin_scope(TunerPlugin plugin) {
  return plugin == TunerPlugin::aws_ofi_nccl_p5
             ? "aws-ofi-nccl's region tuner on p5 (v1.16.3, src/tuner/nccl_ofi_regions.cpp) chooses NCCL's algorithm "
               "and protocol for allreduce on 3 or more nodes of 8, 2 or 1 GPUs; NCCL's own choice (the fastest) "
               "elsewhere"
             : "";
}

}  // namespace collsim
