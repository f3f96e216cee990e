// topologies/link_catalog.cpp — the compiled-in link catalog: one row per technology, every
// number with its source (rate; efficiency; latency and alpha, often shared by a family and
// written once above the table). Rates are per direction, after line encoding (what the
// datasheets quote as data rate). `efficiency` is what one large point-to-point transfer achieves over
// that rate; `alpha_s` is the per-message start-up a microbenchmark sees; `latency_s` is what
// each link adds on a route (zero where the alpha already carries the whole start-up).
#include "topologies/link_catalog.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {
namespace {

// ---- shared sources (each quoted once) ----------------------------------------------------

// p2pBandwidthLatencyTest between NVLink-connected GPUs: "P2P=Enabled Latency (P2P Writes)"
// 1.81-2.31 us (NVIDIA/cuda-samples issue 230); a GPU copying to itself takes 2.07-2.59 us in
// the same run, so the figure is launch and synchronisation more than wire time: an alpha.
constexpr std::string_view kNvlinkAlpha =
    "alpha: p2pBandwidthLatencyTest P2P write latency 1.8-2.3 us between NVLinked GPUs, about a GPU's "
    "copy to itself (NVIDIA/cuda-samples#230); latency 0, the alpha carries the start-up";

constexpr std::string_view kPcieNoAlpha =
    "latency and alpha 0: assumption, a PCIe hop adds no per-message cost of its own (the route's NVLink "
    "or NIC brings the alpha); give alpha_s where PCIe is the whole route";

constexpr std::string_view kIbStartup =
    "latency 100 ns per link: assumption, the order of an InfiniBand switch's port-to-port time; alpha "
    "2 us: assumption, a GPUDirect RDMA message through NCCL/MPI costs a few us (seed 004 Table 2 has "
    "0.7 us for FDR host-to-host MPI, a lower bound)";

constexpr std::string_view kRoceStartup =
    "latency 300 ns per link: assumption, an Ethernet switch hop is a few hundred ns, more than an IB "
    "switch's; alpha 2 us: assumption, as InfiniBand (no measured RoCE figure found)";

// ---- the catalog ------------------------------------------------------------------------------

constexpr std::array kCatalog = {
    // NVLink: a GPU has several links; `links: N` is how many join it to its peer or switch.
    LinkTechnology{"nvlink2", "NVLink 2 (V100 SXM2: 6 links)", 25.0e9, true, 0.80, 0.0, 2.0e-6,
                   "25 GB/s per link per direction: six links give a V100 300 GB/s both ways (NVIDIA DGX-1 "
                   "with Tesla V100 system architecture white paper; open-mpi/hwloc#574)",
                   "efficiency 0.80: a 25 GB/s NVLink carries ~20 GB/s of data in 128-byte payloads (NCCL "
                   "maintainer, NVIDIA/nccl-tests#149; assumption: said of NVLink 3, the same 25 GB/s "
                   "sub-link)",
                   kNvlinkAlpha},
    LinkTechnology{"nvlink3", "NVLink 3 (A100 SXM: 12 links)", 25.0e9, true, 0.865, 0.0, 2.0e-6,
                   "25 GB/s per link per direction: twelve links give an A100 600 GB/s both ways (A100 "
                   "datasheet; NVIDIA/nccl-tests#149: 'line rate of 25GB/s (in each direction)')",
                   "efficiency 0.865: p2pBandwidthLatencyTest on an HGX A100, bidirectional 517-521 GB/s of "
                   "600 among GPUs 4-7, the best pairs (pairs with GPUs 0-3 reach about 425, 0.71) "
                   "(NVIDIA/nccl-tests#100)",
                   kNvlinkAlpha},
    LinkTechnology{"nvlink4", "NVLink 4 (H100 SXM: 18 links)", 25.0e9, true, 0.844, 0.0, 2.0e-6,
                   "25 GB/s per link per direction: eighteen links give an H100 SXM 900 GB/s both ways, 450 "
                   "per direction (H100 datasheet; docs/design.md section 5)",
                   "efficiency 0.844: p2pBandwidthLatencyTest on an HGX H100, unidirectional 371-380 GB/s of "
                   "450 (NVIDIA/nccl#1264)",
                   kNvlinkAlpha},
    LinkTechnology{"nvlink5", "NVLink 5 (B200/GB200: 18 links)", 50.0e9, true, 0.844, 0.0, 2.0e-6,
                   "50 GB/s per link per direction: 'up to 18 NVLink 100 gigabyte-per-second (GB/s) "
                   "connections for a total bandwidth of 1.8 terabytes per second' (NVIDIA's NVLink page, as "
                   "quoted by catalogone.com)",
                   "efficiency 0.844: assumption, as NVLink 4 (no peer-copy figure for Blackwell found)",
                   kNvlinkAlpha},
    // NVSwitch: the switch side of the same links. In a `nodes:` section the gpu_link is one
    // GPU's bundle of links to the switch, so `links:` is the GPU's link count.
    LinkTechnology{"nvswitch1", "NVSwitch gen 1 (DGX-2/HGX-2, NVLink 2 ports; a V100 has 6)", 25.0e9, true, 0.80,
                   0.0, 2.0e-6,
                   "NVLink 2 ports, 25 GB/s per direction each; 18 ports per chip (NVIDIA DGX-2 white paper, "
                   "not re-checked here)",
                   "as nvlink2 (assumption: no figure through the gen-1 switch found)",
                   kNvlinkAlpha},
    LinkTechnology{"nvswitch2", "NVSwitch gen 2 (HGX A100, NVLink 3 ports; an A100 has 12)", 25.0e9, true, 0.865,
                   0.0, 2.0e-6,
                   "NVLink 3 ports, 25 GB/s per direction each; 36 ports per chip, 6 chips per HGX A100 "
                   "(NVIDIA DGX A100 white paper, not re-checked here)",
                   "as nvlink3: its figure was measured through these switches (NVIDIA/nccl-tests#100, "
                   "'2nd Gen NVSwitch')",
                   kNvlinkAlpha},
    LinkTechnology{"nvswitch3", "NVSwitch gen 3 (HGX H100, NVLink 4 ports; an H100 has 18)", 25.0e9, true, 0.844,
                   0.0, 2.0e-6,
                   "NVLink 4 ports, 25 GB/s per direction each; 64 ports per chip, 4 chips per HGX H100 "
                   "(textbookofai.com NVLink glossary: 'Each NVSwitch chip has 64 NVLink 4 ports')",
                   "as nvlink4: its figure was measured through these switches on an HGX H100 "
                   "(NVIDIA/nccl#1264)",
                   kNvlinkAlpha},
    LinkTechnology{"nvswitch4", "NVLink Switch (Blackwell, NVL72; a B200 has 18 links)", 50.0e9, true, 0.844, 0.0,
                   2.0e-6,
                   "NVLink 5 ports, 50 GB/s per direction each; 72 ports per chip (textbookofai.com NVLink "
                   "glossary: '72 NVLink 5 ports on Blackwell')",
                   "as nvlink5 (assumption, no measured figure)",
                   kNvlinkAlpha},
    // PCI Express x16: one slot is one link.
    LinkTechnology{"pcie3", "PCI Express 3.0 x16", 15.75e9, false, 0.76, 0.0, 0.0,
                   "8 GT/s x 16 lanes x 128/130 = 15.75 GB/s per direction (PCI-SIG)",
                   "efficiency 0.76: a V100 takes in ~12 GB/s over Gen3 x16, measured (BaM authors, "
                   "ZaidQureshi/bam#54)",
                   kPcieNoAlpha},
    LinkTechnology{"pcie4", "PCI Express 4.0 x16", 31.5e9, false, 0.79, 0.0, 0.0,
                   "16 GT/s x 16 lanes x 128/130 = 31.5 GB/s per direction (PCI-SIG)",
                   "efficiency 0.79: 'the peak x16 PCIe Gen4 is 25GBps', measured (ZaidQureshi/bam#54); NCCL "
                   "itself counts 1.5 GB/s per Gen4 lane, 24 GB/s (NVIDIA/nccl#1206)",
                   kPcieNoAlpha},
    LinkTechnology{"pcie5", "PCI Express 5.0 x16", 63.0e9, false, 0.84, 0.0, 0.0,
                   "32 GT/s x 16 lanes x 128/130 = 63.0 GB/s per direction (PCI-SIG; '128 GB/s' both ways "
                   "before encoding)",
                   "efficiency 0.84: nvbandwidth device_to_host_memcpy_sm 52.8 GB/s on H100 (host_to_device "
                   "35 GB/s on the same machine, reported there as an anomaly) (NVIDIA/nvbandwidth#24)",
                   kPcieNoAlpha},
    LinkTechnology{"pcie6", "PCI Express 6.0 x16", 128.0e9, false, 0.84, 0.0, 0.0,
                   "64 GT/s PAM4 x 16 lanes = 128 GB/s per direction, no 128b/130b in FLIT mode (PCI-SIG "
                   "6.0: 256 GB/s both ways for x16)",
                   "efficiency 0.84: assumption, as Gen5 (no measured Gen6 copy found; FLIT framing alone "
                   "keeps 242 of 256 bytes, 0.945, an upper bound)",
                   kPcieNoAlpha},
    // InfiniBand 4x ports (one NIC port, one switch port).
    LinkTechnology{"ib-edr", "InfiniBand EDR 4x (100 Gb/s; ConnectX-4/5)", 12.5e9, false, 0.966, 1.0e-7, 2.0e-6,
                   "100 Gb/s = 12.5 GB/s per direction (4 lanes x 25.78 Gb/s with 64b/66b; IBTA)",
                   "efficiency 0.966: ib_write_bw on 4x EDR tops out at 96.6 Gb/s (NVIDIA developer forum, "
                   "'Theortical Bandwidth and Latency of NIC', t/273376)",
                   kIbStartup},
    LinkTechnology{"ib-hdr", "InfiniBand HDR 4x (200 Gb/s; ConnectX-6, Quantum)", 25.0e9, false, 0.97, 1.0e-7,
                   2.0e-6, "200 Gb/s = 25 GB/s per direction (ConnectX-6 datasheet)",
                   "efficiency 0.97: ib_write_bw ~194 Gb/s per HDR NIC of an Azure NDv4 (A100) node, the "
                   "health check expecting 185 (Azure/azurehpc-health-checks#46); NCCL's maintainer: '24GB/s "
                   "is the peak performance per 200G NIC' (NVIDIA/nccl-tests#119)",
                   kIbStartup},
    LinkTechnology{"ib-ndr", "InfiniBand NDR 4x (400 Gb/s; ConnectX-7, Quantum-2)", 50.0e9, false, 0.97, 1.0e-7,
                   2.0e-6,
                   "400 Gb/s = 50 GB/s per direction (ConnectX-7 and Quantum-2 datasheets; DGX SuperPOD H100 "
                   "reference architecture: 'NVIDIA NDR (400 Gbps) InfiniBand')",
                   "efficiency 0.97: assumption, as HDR (no published NDR ib_write_bw figure found)",
                   kIbStartup},
    LinkTechnology{"ib-xdr", "InfiniBand XDR 4x (800 Gb/s; ConnectX-8, Quantum-X800)", 100.0e9, false, 0.97,
                   1.0e-7, 2.0e-6, "800 Gb/s = 100 GB/s per direction (NVIDIA Quantum-X800 / ConnectX-8 "
                   "announcements)",
                   "efficiency 0.97: assumption, as HDR (no measured XDR figure found)",
                   kIbStartup},
    // RDMA over Converged Ethernet, one NIC port.
    LinkTechnology{"roce-100g", "RoCE v2 on 100 GbE", 12.5e9, false, 0.975, 3.0e-7, 2.0e-6,
                   "100 Gb/s = 12.5 GB/s per direction (IEEE 802.3 100GBASE)",
                   "efficiency 0.975: RoCE v2 WRITE reaches 97.5 Gb/s with 4096-byte packets on 100 GbE "
                   "(J. Synchrotron Rad. 27 (2020) 1297-1306, Table 2, PMC7842203)",
                   kRoceStartup},
    LinkTechnology{"roce-200g", "RoCE v2 on 200 GbE", 25.0e9, false, 0.975, 3.0e-7, 2.0e-6,
                   "200 Gb/s = 25 GB/s per direction (IEEE 802.3 200GBASE)",
                   "efficiency 0.975: assumption, as 100 GbE (same 4096-byte RoCE MTU and headers)",
                   kRoceStartup},
    LinkTechnology{"roce-400g", "RoCE v2 on 400 GbE (e.g. ConnectX-7, Spectrum)", 50.0e9, false, 0.975, 3.0e-7,
                   2.0e-6, "400 Gb/s = 50 GB/s per direction (IEEE 802.3 400GBASE)",
                   "efficiency 0.975: assumption, as 100 GbE (same 4096-byte RoCE MTU and headers)",
                   kRoceStartup},
    // Cray networks: every port of the switch/router is one link.
    LinkTechnology{"slingshot", "HPE Slingshot (Rosetta switch, Cassini NIC; 200 Gb/s)", 25.0e9, false, 1.0,
                   3.0e-7, 2.0e-6,
                   "200 Gb/s = 25 GB/s per direction: 'a 64-port switch (called Rosetta) with 12.8 Tb/s/dir "
                   "per switch coming from 64 200 Gbps ports' (ALCF Aurora interconnect page)",
                   "efficiency 1: assumption, no point-to-point figure found, the datasheet rate is kept",
                   "latency 300 ns per switch: assumption, the order of Rosetta's quoted port-to-port time; "
                   "alpha 2 us: assumption, MPI small-message latency on Slingshot is a few us"},
    LinkTechnology{"aries", "Cray Aries, electrical (backplane and copper) links", 5.25e9, false, 1.0, 1.0e-7,
                   1.0e-6,
                   "about 5.25 GB/s per direction, 3 lanes x 14 Gb/s (Alverson et al., 'Cray XC Series "
                   "Network', 2012; docs/design.md section 5)",
                   "efficiency 1: assumption, no point-to-point figure found",
                   "latency: 'about 100 ns per router hop' (Alverson et al.); alpha 1 us: assumption, MPI on "
                   "Aries, order of magnitude"},
    LinkTechnology{"aries-optical", "Cray Aries, optical (global) links", 4.7e9, false, 1.0, 1.0e-7, 1.0e-6,
                   "4.7 GB/s per direction, 3 lanes x 12.5 Gb/s (Alverson et al. 2012; docs/design.md section 5)",
                   "efficiency 1: assumption, as aries",
                   "latency: 'about 100 ns per router hop' (Alverson et al.), the cable time of a long optical "
                   "run not added; alpha 1 us: assumption, as aries"},
};

}  // namespace

std::span<const LinkTechnology> link_technologies() { return kCatalog; }

double nccl_nvlink_link_Bps(std::uint32_t compute_capability) {
  // GB/s per link: SM60_NVLINK_BW 18.0, SM70 20.0, SM80 20.0, SM86 12.0 (GA10x's bridge),
  // SM90 20.6, SM100 40.1 (ncclTopoNVLinkBw's choice by compute capability).
  const std::uint32_t cc = compute_capability;
  const double GBps = cc == 0     ? 0.0
                     : cc >= 100 ? 40.1 : cc >= 90 ? 20.6 : cc == 86 ? 12.0 : cc >= 70 ? 20.0 : cc >= 60 ? 18.0 : 20.0;
  return GBps * 1e9;
}

Transport transport_of(const LinkTechnology& technology) {
  if (technology.name.starts_with("nvlink") || technology.name.starts_with("nvswitch")) return Transport::nvlink;
  if (technology.name.starts_with("pcie")) return Transport::pci;
  return Transport::net;
}

const LinkTechnology& find_link_technology(std::string_view name) {
  std::string known;
  for (const LinkTechnology& t : link_technologies()) {
    if (t.name == name) return t;
    known += (known.empty() ? "" : ", ") + std::string(t.name);
  }
  throw Error(fmt::format("unknown technology '{}' (known: {})", name, known));
}

}  // namespace collsim
