// topologies/link_catalog.hpp — the link technologies a cluster YAML may name in a link class
// (`technology: nvlink4` with `links: 18`, `technology: ib-ndr`, ...): each entry's datasheet
// rate per link and per direction, and its efficiency, hop latency and per-message alpha from
// point-to-point microbenchmarks (peer copies, perftest ib_write_bw, p2pBandwidthLatencyTest),
// each with its source; numbers without a measurement say "assumption" and why (docs/design.md
// section 7: never fitted to allreduce measurements). The loader (cluster_config.cpp) fills a
// class from its entry; every field the YAML gives overrides the entry's value.
// Units: bytes/s per direction, seconds.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "topologies/network.hpp"

namespace collsim {

struct LinkTechnology {
  std::string_view name;           // as written in YAML: `nvlink4`, `pcie5`, `ib-ndr`
  std::string_view title;          // one line: what it is and where it sits
  double link_Bps = 0;             // datasheet rate of one link (or one port), per direction
  bool counted_in_links = false;   // true: a device has several (`links: N` multiplies link_Bps)
  double efficiency = 1;           // achieved / datasheet for large point-to-point messages
  double latency_s = 0;            // per link crossed
  double alpha_s = 0;              // per message, once per route (the route's largest)
  std::string_view rate_source;        // where link_Bps comes from
  std::string_view efficiency_source;  // the microbenchmark behind efficiency, or why assumed
  std::string_view startup_source;     // the same for latency_s and alpha_s
};

// What carries a technology's messages: NVLink and NVSwitch (nvlink*, nvswitch*), PCIe (pcie*),
// the rest a network through a NIC (InfiniBand, RoCE, Slingshot, Aries).
Transport transport_of(const LinkTechnology& technology);

// What NCCL's kernels move on one NVLink of a GPU of `compute_capability` (major x 10 + minor),
// per direction: NCCL rates NVLink by GPU generation, not by link technology (NCCL 2.30,
// src/graph/topo.h, SM60/70/80/86/90/100_NVLINK_BW). 0 for 0 (the GPU is not named).
double nccl_nvlink_link_Bps(std::uint32_t compute_capability);

// Every entry, in the order `collsim topo --catalog` lists them.
std::span<const LinkTechnology> link_technologies();

// The entry named `name`; throws Error "unknown technology 'x' (known: ...)".
const LinkTechnology& find_link_technology(std::string_view name);

}  // namespace collsim
