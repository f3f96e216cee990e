// tests/base/test_child_process.cpp — run_in_child, which isolates every SimGrid run (and each
// engine of the SimGrid benchmark): what the child writes comes back, and an exception or a
// crash in the child becomes an outcome the parent can report, never the parent's own crash.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/child_process.hpp"
#include "base/error.hpp"

using namespace collsim;

TEST_CASE("a child's answer comes back through the pipe, with its exit status and memory") {
  const std::string answer(100000, 'x');  // more than a pipe holds at once
  const ChildOutcome child = run_in_child([&](int fd) { write_all(fd, answer.data(), answer.size()); }, true);
  REQUIRE(child.succeeded());
  REQUIRE(child.output == answer);
  REQUIRE(child.peak_rss_mib > 0);
  REQUIRE(child.wall_s > 0);
  REQUIRE(child.last_log_line.empty());
}

TEST_CASE("an exception in the child is exit status 3 with its message as the last log line") {
  const ChildOutcome child = run_in_child([](int) { throw Error("the platform has no route"); }, true);
  REQUIRE(child.exited);
  REQUIRE(child.exit_code == 3);
  REQUIRE(child.last_log_line == "the platform has no route");
  REQUIRE(child.failure() == "exit status 3: the platform has no route");
}

TEST_CASE("a child that crashes is reported with its signal and last log line") {
  const ChildOutcome child = run_in_child(
      [](int) {
        std::fputs("xbt_assert failed: something\nlast words\n", stderr);
        std::abort();
      },
      true);
  REQUIRE_FALSE(child.exited);
  REQUIRE(child.signal == SIGABRT);
  REQUIRE(child.last_log_line == "last words");
  REQUIRE(child.failure() == std::string("killed by signal 6 (") + strsignal(SIGABRT) + "): last words");
}
