// tests/topologies/test_link_catalog.cpp — `technology:` in a link class fills the class from
// the compiled-in catalog, `links:` multiplies a per-link rate, every field written in the
// YAML wins, and every catalog entry is sourced and physically plausible.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "base/error.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/link_catalog.hpp"

using namespace collsim;

namespace {

// A star of 4 endpoints on one link class whose body is `body` (a YAML flow mapping).
std::string star_with(const std::string& body) {
  return "name: t\nlink_classes:\n  x: " + body +
         "\ntopology: {kind: star, endpoints: 4, link: x}\ngamma_s_per_byte: 0\n";
}

LinkClass class_of(const std::string& body) {
  const ClusterConfig c = parse_cluster_config(star_with(body), "t.yaml");
  const Network& net = c.topology->network;
  return net.link_class(net.find_link_class("x"));
}

std::string error_of(const std::string& body) {
  try {
    parse_cluster_config(star_with(body), "t.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("a catalog technology fills bandwidth, efficiency, latency and alpha") {
  const LinkTechnology& ndr = find_link_technology("ib-ndr");
  const LinkClass c = class_of("{technology: ib-ndr}");
  REQUIRE(c.bandwidth_Bps == ndr.link_Bps);
  REQUIRE(c.bandwidth_Bps == 50.0e9);
  REQUIRE(c.efficiency == ndr.efficiency);
  REQUIRE(c.latency_s == ndr.latency_s);
  REQUIRE(c.alpha_s == ndr.alpha_s);
}

TEST_CASE("links multiplies the per-link rate of a technology counted in links") {
  const LinkClass h100 = class_of("{technology: nvlink4, links: 18}");
  REQUIRE(h100.bandwidth_Bps == Approx(450.0e9));  // 18 x 25 GB/s per direction (docs/design.md section 5)
  REQUIRE(h100.efficiency == find_link_technology("nvlink4").efficiency);
  REQUIRE(class_of("{technology: nvlink3, links: 12}").bandwidth_Bps == Approx(300.0e9));
  REQUIRE(class_of("{technology: nvlink5, links: 18}").bandwidth_Bps == Approx(900.0e9));
  REQUIRE(class_of("{technology: nvswitch3, links: 18}").bandwidth_Bps == Approx(450.0e9));
}

TEST_CASE("every field written in the YAML overrides the catalog's value") {
  const LinkClass c =
      class_of("{technology: ib-hdr, bandwidth_Bps: 2.0e+10, efficiency: 0.5, latency_s: 3.0e-7, alpha_s: 4.0e-6}");
  REQUIRE(c.bandwidth_Bps == 2.0e10);
  REQUIRE(c.efficiency == 0.5);
  REQUIRE(c.latency_s == 3.0e-7);
  REQUIRE(c.alpha_s == 4.0e-6);
  SECTION("one field at a time; the others stay the catalog's") {
    const LinkClass a = class_of("{technology: nvlink4, links: 18, alpha_s: 1.0e-6}");
    REQUIRE(a.alpha_s == 1.0e-6);
    REQUIRE(a.bandwidth_Bps == Approx(450.0e9));
    REQUIRE(a.efficiency == find_link_technology("nvlink4").efficiency);
  }
  SECTION("a technology counted in links may give its whole rate instead of links") {
    REQUIRE(class_of("{technology: nvlink4, bandwidth_Bps: 2.0e+11}").bandwidth_Bps == 2.0e11);
  }
}

namespace {

// The same star with NCCL driving the links of GPUs of compute capability `cc`.
LinkClass class_under_nccl(const std::string& body, const std::string& cc) {
  const ClusterConfig c = parse_cluster_config(
      star_with(body) + "runtime: {library: nccl, compute_capability: " + cc + ", host_cpu: intel}\n", "t.yaml");
  const Network& net = c.topology->network;
  return net.link_class(net.find_link_class("x"));
}

}  // namespace

TEST_CASE("NCCL's per-link NVLink rate (src/graph/topo.h, 2.30) by GPU generation") {
  REQUIRE(nccl_nvlink_link_Bps(0) == 0);  // the GPU not named: no rate
  REQUIRE(nccl_nvlink_link_Bps(60) == Approx(18.0e9));
  REQUIRE(nccl_nvlink_link_Bps(70) == Approx(20.0e9));
  REQUIRE(nccl_nvlink_link_Bps(75) == Approx(20.0e9));
  REQUIRE(nccl_nvlink_link_Bps(80) == Approx(20.0e9));
  REQUIRE(nccl_nvlink_link_Bps(86) == Approx(12.0e9));  // GA10x's NVLink bridge
  REQUIRE(nccl_nvlink_link_Bps(89) == Approx(20.0e9));
  REQUIRE(nccl_nvlink_link_Bps(90) == Approx(20.6e9));
  REQUIRE(nccl_nvlink_link_Bps(100) == Approx(40.1e9));
  REQUIRE(nccl_nvlink_link_Bps(120) == Approx(40.1e9));
}

TEST_CASE("under NCCL an NVLink carries no more than NCCL's kernels move on it") {
  SECTION("an H100's NVLink 4: 20.6 of 25 GB/s, below the peer copies' 0.844") {
    const LinkClass c = class_under_nccl("{technology: nvlink4, links: 18}", "9.0");
    REQUIRE(c.efficiency == Approx(20.6 / 25.0));
    REQUIRE(c.bandwidth_Bps * c.efficiency == Approx(18 * 20.6e9));
    REQUIRE(class_under_nccl("{technology: nvswitch3, links: 18}", "9.0").efficiency == Approx(20.6 / 25.0));
  }
  SECTION("an A100's NVLink 3 and a B200's NVLink 5: 20 of 25, 40.1 of 50") {
    REQUIRE(class_under_nccl("{technology: nvlink3, links: 12}", "8.0").efficiency == Approx(0.8));
    REQUIRE(class_under_nccl("{technology: nvlink5, links: 18}", "10.0").efficiency == Approx(40.1 / 50.0));
  }
  SECTION("a rate above the catalog's leaves the catalog's (a V100's NVLink 2: 20 of 25 = its 0.80)") {
    REQUIRE(class_under_nccl("{technology: nvlink2, links: 6}", "7.0").efficiency ==
            find_link_technology("nvlink2").efficiency);
  }
  SECTION("without NCCL, or on a link NCCL does not rate, the catalog's") {
    REQUIRE(class_of("{technology: nvlink4, links: 18}").efficiency == find_link_technology("nvlink4").efficiency);
    REQUIRE(class_under_nccl("{technology: ib-ndr}", "9.0").efficiency == find_link_technology("ib-ndr").efficiency);
    REQUIRE(class_under_nccl("{technology: pcie5}", "9.0").efficiency == find_link_technology("pcie5").efficiency);
  }
  SECTION("an efficiency written in the YAML still wins") {
    REQUIRE(class_under_nccl("{technology: nvlink4, links: 18, efficiency: 0.9}", "9.0").efficiency == 0.9);
  }
}

TEST_CASE("technology and links mistakes are one-line errors naming the field") {
  const std::string unknown = error_of("{technology: nvlink9}");
  REQUIRE_THAT(unknown, Catch::Contains("t.yaml:3:") && Catch::Contains("unknown technology 'nvlink9'") &&
                            Catch::Contains("known: nvlink2,") && Catch::Contains("ib-ndr"));
  REQUIRE(unknown.find('\n') == std::string::npos);
  REQUIRE_THAT(error_of("{technology: nvlink4, links: 0}"), Catch::Contains("'link_classes.x.links' must be > 0"));
  REQUIRE_THAT(error_of("{technology: nvlink4}"), Catch::Contains("missing key 'links' in 'link_classes.x'"));
  REQUIRE_THAT(error_of("{technology: pcie5, links: 2}"), Catch::Contains("pcie5 is one link per port"));
  REQUIRE_THAT(error_of("{bandwidth_Bps: 1.0e+9, links: 2}"), Catch::Contains("give 'technology' too"));
  REQUIRE_THAT(error_of("{technology: nvlink4, links: 18, bandwidth_Bps: 1.0e+9}"),
               Catch::Contains("give 'links' or 'bandwidth_Bps', not both"));
  REQUIRE_THAT(error_of("{technology: ib-ndr, efficiency: 1.5}"), Catch::Contains("efficiency must be in (0, 1]"));
}

TEST_CASE("every catalog entry has a unique name, sources and values in range") {
  std::set<std::string> names;
  for (const LinkTechnology& t : link_technologies()) {
    INFO(std::string(t.name));
    REQUIRE(names.insert(std::string(t.name)).second);
    REQUIRE(&find_link_technology(t.name) == &t);
    REQUIRE(!t.title.empty());
    REQUIRE(t.rate_source.size() > 20);
    REQUIRE(t.efficiency_source.size() > 20);
    REQUIRE(t.startup_source.size() > 20);
    // 1 GB/s (Aries is 4.7) .. 200 GB/s per link or port (PCIe 6 x16 is 128)
    REQUIRE(t.link_Bps >= 1e9);
    REQUIRE(t.link_Bps <= 200e9);
    REQUIRE(t.efficiency >= 0.5);
    REQUIRE(t.efficiency <= 1.0);
    REQUIRE(t.latency_s >= 0);
    REQUIRE(t.latency_s <= 1e-6);
    REQUIRE(t.alpha_s >= 0);
    REQUIRE(t.alpha_s <= 1e-5);
    // a number that is not measured says so
    const bool assumed = std::string(t.efficiency_source).find("assumption") != std::string::npos ||
                         std::string(t.efficiency_source).find("as nvlink") != std::string::npos;
    const bool measured = std::string(t.efficiency_source).find('#') != std::string::npos ||
                          std::string(t.efficiency_source).find("forum") != std::string::npos ||
                          std::string(t.efficiency_source).find("Table") != std::string::npos;
    REQUIRE((assumed || measured));
  }
  SECTION("the issue's technologies are all there") {
    for (const char* name : {"nvlink2", "nvlink3", "nvlink4", "nvlink5", "pcie3", "pcie4", "pcie5", "pcie6", "ib-edr",
                             "ib-hdr", "ib-ndr", "ib-xdr", "roce-100g", "roce-200g", "roce-400g", "slingshot", "aries",
                             "nvswitch1", "nvswitch2", "nvswitch3", "nvswitch4"})
      REQUIRE(names.count(name) == 1);
  }
  SECTION("only NVLink and NVSwitch are counted in links") {
    for (const LinkTechnology& t : link_technologies()) {
      const std::string name(t.name);
      REQUIRE(t.counted_in_links == (name.rfind("nvlink", 0) == 0 || name.rfind("nvswitch", 0) == 0));
    }
  }
}

TEST_CASE("an unknown technology name lists the known ones") {
  REQUIRE_THROWS_WITH(find_link_technology("ib-qdr"), Catch::Contains("unknown technology 'ib-qdr'") &&
                                                           Catch::Contains("roce-400g") &&
                                                           Catch::Contains("aries-optical"));
}
