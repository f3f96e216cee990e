// sim/simgrid_platform.cpp — hosts, links and explicit routes of a SimGrid Full zone, built
// from our Network and Router.
#include "sim/simgrid_platform.hpp"

#include <simgrid/s4u.hpp>

#include <fmt/format.h>

#include "base/error.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_engine.hpp"

namespace collsim::simgrid_engine {
namespace sg4 = simgrid::s4u;

void select_network_model(double timing_precision_s) {
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  // SimGrid treats events closer than this as simultaneous (default 1e-9 s: a thousandth
  // of a microsecond message, too coarse to agree with the flow engine to 1e-6).
  sg4::Engine::set_config(fmt::format("surf/precision:{}", timing_precision_s));
}

namespace {

// SimGrid links are created on first use: a fabric has many links no route of the run crosses.
class LinkTable {
 public:
  LinkTable(sg4::NetZone& zone, const Network& network, const Protocol& protocol)
      : zone_(zone), network_(network), protocol_(protocol), links_(network.link_count()) {}

  sg4::Link* operator[](LinkId id) {
    sg4::Link*& link = links_[id];
    if (link == nullptr) {
      // Latency 0: CM02 weighs a flow's share by its route latency, ours are equal (see the header).
      link = zone_.create_link(fmt::format("l{} {}", id, link_name(network_, id)),
                                 shared_capacity_Bps(network_, id, protocol_))
                 ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                 ->seal();
    }
    return link;
  }

 private:
  sg4::NetZone& zone_;
  const Network& network_;
  Protocol protocol_;
  std::vector<sg4::Link*> links_;
};

}  // namespace

std::vector<sg4::Host*> build_platform(const Topology& topology, Rank ranks, double host_speed,
                                       std::span<const std::pair<Rank, Rank>> pairs, const Protocol& protocol) {
  sg4::NetZone* zone = sg4::create_full_zone("collsim");
  std::vector<sg4::Host*> hosts(ranks);
  for (Rank r = 0; r < ranks; ++r) hosts[r] = zone->create_host(fmt::format("rank{}", r), host_speed)->seal();
  LinkTable links(*zone, topology.network, protocol);
  std::vector<LinkId> route;
  std::vector<sg4::LinkInRoute> hops;
  for (const auto& [src, dst] : pairs) {
    route.clear();
    if (src == dst) {  // a reduction's loopback: across the rank's memory link
      route.push_back(topology.memory_of(src));
    } else if (topology.vertex_of(src) == topology.vertex_of(dst)) {
      throw Error(fmt::format("engine 'simgrid' needs ranks on distinct endpoints; ranks {} and {} share one", src, dst));
    } else {
      topology.route(src, dst, 0, route);
    }
    hops.clear();
    for (LinkId l : route) hops.emplace_back(links[l]);
    zone->add_route(hosts[src]->get_netpoint(), hosts[dst]->get_netpoint(), nullptr, nullptr, hops, false);
  }
  zone->seal();
  return hosts;
}

}  // namespace collsim::simgrid_engine
