// tests/base/test_progress_line.cpp — the progress line's estimate of the time left: none
// until a pace has been measured on some of the work, then the pace so far.
#include <catch2/catch.hpp>

#include "base/progress_line.hpp"

using namespace collsim;

TEST_CASE("the time left is said only once a twentieth of the work is done, at the pace so far") {
  // 1 s into a run that has done 0.07% of its transfers (its schedule was being built): no guess
  // (the pace so far would say 23 min)
  CHECK(time_left(1.0, 0.0007, 1).empty());
  CHECK(time_left(1.0, 0, 12).empty());
  CHECK(time_left(2.0, 0.5, 12).empty());  // 4% done
  CHECK(time_left(2.0, 1, 12) == ", about 22 s left");  // 8%: 2 s a run, 11 runs left
  CHECK(time_left(4.0, 0.51, 1) == ", about 3.8 s left");
  CHECK(time_left(4.0, 12, 12).empty());  // nothing left
  CHECK(time_left(4.0, 3, 0).empty());
}
