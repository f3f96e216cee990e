// tests/topologies/test_config_fuzz.cpp — the YAML loader under seeded random damage to every
// shipped config: each mutated file either loads or is refused with collsim::Error and one
// line of message; no other exception escapes, nothing crashes. Bounded: a fixed number of
// cases per config, reproducible from the seed in the failure message.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.hpp"
#include "tests/support/mutate.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

constexpr int kCasesPerConfig = 300;

std::string read(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("Mutated cluster configs load or are refused with one line, never another exception") {
  int loaded = 0, refused = 0;
  for (const auto& entry : std::filesystem::directory_iterator(COLLSIM_CONFIGS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string original = read(entry.path());
    for (int i = 0; i < kCasesPerConfig; ++i) {
      const std::uint64_t seed = std::hash<std::string>{}(entry.path().filename().string()) + std::uint64_t(i);
      const std::string text = testing::Mutator(seed).mutate(original);
      INFO(entry.path().filename().string() << " mutation seed " << seed);
      try {
        parse_cluster_config(text, "fuzz.yaml");
        ++loaded;
      } catch (const Error& e) {
        const std::string message = one_line(e.what());
        CHECK(message.rfind("fuzz.yaml", 0) == 0);  // placed in the file
        ++refused;
      }
      // Anything else (a std::exception, YAML::Exception, a crash) fails this test.
    }
  }
  INFO(loaded << " loaded, " << refused << " refused");
  CHECK(refused > loaded / 4);  // the mutations do reach the checks
}
