// tests/collectives/test_schedule_fuzz.cpp — the schedule-JSON loader under seeded random
// damage to real schedules: each mutated file either loads (and then the checker proves or
// refuses it) or is refused with collsim::Error; no other exception escapes, nothing crashes.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "collectives/schedule_json.hpp"
#include "tests/support/mutate.hpp"

using namespace collsim;

TEST_CASE("Mutated schedule files load or are refused with collsim::Error, never another exception") {
  int refused = 0, cases = 0;
  for (const char* algorithm : {"ring", "two-tree", "rabenseifner"}) {
    ScheduleRequest r;
    r.ranks = 5;
    r.bytes = 4096;
    r.segments = algorithm == std::string_view("two-tree") ? 2 : 0;
    const std::string original = schedule_to_json(generate_schedule(algorithm, r)).dump();
    for (std::uint64_t seed = 0; seed < 400; ++seed, ++cases) {
      const std::string text = testing::Mutator(seed * 7919 + original.size()).mutate(original);
      INFO(algorithm << " mutation seed " << seed);
      try {
        check_schedule(parse_schedule(text, "fuzz.json"));
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find('\n') == std::string::npos);
        ++refused;
      }
    }
  }
  INFO(refused << " of " << cases << " refused");
  CHECK(refused > cases / 2);
}
