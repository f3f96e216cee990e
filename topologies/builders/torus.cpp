// topologies/builders/torus.cpp — k-dimensional torus of endpoints, dimension-order routes.
//
//   t.0.0 - t.1.0 - t.2.0 - (wraps to t.0.0)      a 3x2 torus: dimension 0 varies fastest,
//     |       |       |                           dimension 1 has size 2, so one cable per pair
//   t.0.1 - t.1.1 - t.2.1 - (wraps to t.0.1)
//
// Cables are added dimension by dimension, each time over the endpoints in index order, so a
// link id is arithmetic: in a dimension of size >= 3, the cable from v to its + neighbour is
// base + 2v (reverse base + 2v + 1); in a dimension of size 2, only endpoints with coordinate 0
// have a cable, numbered by their index with that coordinate left out.
#include <array>
#include <cstdint>
#include <memory>

#include "topologies/builders/fabric_kinds.hpp"
#include "topologies/builders/fabric_util.hpp"

namespace collsim {
namespace {

constexpr std::size_t kMaxDims = 6;

// Coordinates of endpoint index v and back, dimension 0 fastest.
struct Shape {
  std::vector<std::uint32_t> dims, stride;
  std::uint32_t size = 1;

  explicit Shape(const std::vector<std::uint32_t>& d) : dims(d) {
    for (std::uint32_t extent : dims) {
      stride.push_back(size);
      size *= extent;
    }
  }
  std::uint32_t coord(std::uint32_t v, std::size_t j) const { return v / stride[j] % dims[j]; }
  // The index of v's neighbour one step + (or -) in dimension j, wrapping around.
  std::uint32_t step(std::uint32_t v, std::size_t j, bool plus) const {
    const std::uint32_t c = coord(v, j), n = dims[j];
    const std::uint32_t next = plus ? (c + 1) % n : (c + n - 1) % n;
    return v - c * stride[j] + next * stride[j];
  }
};

class TorusRouter final : public Router {
 public:
  TorusRouter(const std::vector<VertexId>& endpoints, Shape shape, std::vector<LinkId> base, RoutingMode mode,
              std::uint64_t seed)
      : block_("torus", endpoints), shape_(std::move(shape)), base_(std::move(base)),
        ecmp_(mode == RoutingMode::ecmp), seed_(seed) {}

  void route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const override {
    const std::uint32_t s = block_.index(src), d = block_.index(dst);
    const fabric::FlowDraws draws(s, d, flow, seed_);
    const std::size_t k = shape_.dims.size();
    std::array<std::uint32_t, kMaxDims> moves{};  // hops still to go per dimension
    std::array<bool, kMaxDims> plus{};
    for (std::size_t j = 0; j < k; ++j) plan(j, s, d, draws, moves[j], plus[j]);
    std::uint32_t step = std::uint32_t(k);  // draw numbers after the k tie-breaks
    for (std::uint32_t at = s; at != d;) {
      const std::size_t j = ecmp_ ? pick_dimension(moves, draws, step++) : first_dimension(moves);
      out.push_back(link(at, j, plus[j]));
      at = shape_.step(at, j, plus[j]);
      --moves[j];
    }
  }

 private:
  // The short way round dimension j; a tie goes + (minimal) or by hash (ecmp).
  void plan(std::size_t j, std::uint32_t s, std::uint32_t d, const fabric::FlowDraws& draws, std::uint32_t& moves,
            bool& plus) const {
    const std::uint32_t n = shape_.dims[j];
    const std::uint32_t ahead = (shape_.coord(d, j) + n - shape_.coord(s, j)) % n, behind = (n - ahead) % n;
    plus = ahead < behind || (ahead == behind && (!ecmp_ || draws.pick(std::uint32_t(j), 2) == 0));
    moves = plus ? ahead : behind;
  }
  static std::size_t first_dimension(const std::array<std::uint32_t, kMaxDims>& moves) {
    std::size_t j = 0;
    while (moves[j] == 0) ++j;
    return j;
  }
  std::size_t pick_dimension(const std::array<std::uint32_t, kMaxDims>& moves, const fabric::FlowDraws& draws,
                             std::uint32_t step) const {
    std::uint32_t open = 0;
    for (std::size_t j = 0; j < shape_.dims.size(); ++j) open += moves[j] > 0;
    std::uint32_t nth = draws.pick(step, open);
    std::size_t j = first_dimension(moves);
    while (moves[j] == 0 || nth-- > 0) ++j;  // skip to the nth dimension with moves left
    return j;
  }
  LinkId link(std::uint32_t v, std::size_t j, bool plus) const {
    const std::uint32_t n = shape_.dims[j], stride = shape_.stride[j];
    if (n == 2) {
      const std::uint32_t pair = v % stride + v / (2 * stride) * stride;
      return base_[j] + 2 * pair + shape_.coord(v, j);  // coordinate 1 crosses the cable backwards
    }
    return plus ? base_[j] + 2 * v : base_[j] + 2 * shape_.step(v, j, false) + 1;
  }

  fabric::EndpointBlock block_;
  Shape shape_;
  std::vector<LinkId> base_;  // first cable of each dimension
  bool ecmp_;
  std::uint64_t seed_;
};

void check(const Network& net, const TorusParams& p, RoutingMode mode) {
  fabric::check_mode("torus", mode);
  if (p.dims.empty() || p.dims.size() > kMaxDims)
    throw Error(fmt::format("torus: dims must have 1..{} entries (got {})", kMaxDims, p.dims.size()));
  std::uint64_t size = 1;
  for (std::uint32_t n : p.dims) {
    if (n < 1) throw Error("torus: every entry of dims must be >= 1 (got 0)");
    size *= n;
    if (size > fabric::kMaxEndpoints)
      throw Error(fmt::format("torus: the product of dims must be <= {} endpoints", fabric::kMaxEndpoints));
  }
  if (size < 2) throw Error("torus: the product of dims must be >= 2 endpoints (got 1)");
  fabric::check_link_class("torus", "link", net, p.link);
}

std::string name(const Shape& shape, std::uint32_t v) {
  std::string out = "t";
  for (std::size_t j = 0; j < shape.dims.size(); ++j) out += fmt::format(".{}", shape.coord(v, j));
  return out;
}

}  // namespace

Fabric build_torus(Network& net, const TorusParams& p, RoutingMode mode, std::uint64_t seed) {
  check(net, p, mode);
  Shape shape(p.dims);
  std::vector<VertexId> endpoints =
      fabric::add_named_endpoints(net, shape.size, [&shape](std::uint32_t v) { return name(shape, v); });
  std::vector<LinkId> base;
  for (std::size_t j = 0; j < shape.dims.size(); ++j) {
    base.push_back(LinkId(net.link_count()));
    if (shape.dims[j] == 1) continue;
    for (std::uint32_t v = 0; v < shape.size; ++v)
      if (shape.dims[j] > 2 || shape.coord(v, j) == 0)
        net.add_cable(endpoints[v], endpoints[shape.step(v, j, true)], p.link);
  }
  std::string dims = fmt::format("{}", shape.dims[0]);
  for (std::size_t j = 1; j < shape.dims.size(); ++j) dims += fmt::format("x{}", shape.dims[j]);
  std::string summary = fmt::format("torus {}: {} endpoints, {} cables", dims, shape.size,
                                    (net.link_count() - base.front()) / 2);
  auto router = std::make_unique<TorusRouter>(endpoints, std::move(shape), std::move(base), mode, seed);
  return Fabric{std::move(endpoints), std::move(router), std::move(summary)};
}

// `topology: {kind: torus, dims: [X, Y, ...], link: CLASS}`
Fabric read_torus(const FabricRequest& r) {
  const TorusParams p{r.in.counts(r.in.require(r.node, "dims", "topology"), "topology.dims"), r.link("link")};
  return r.build([&] { return build_torus(r.net, p, r.mode, r.seed); });
}

}  // namespace collsim
