// tests/cli/huge_pages_probe.cpp — a program that starts as collsim does
// (cli/huge_pages.hpp), then touches 64 MiB and prints what it ran with: the GLIBC_TUNABLES its
// children would get (its environment now), whether the restart's own variable is gone, and
// the huge pages its memory got (/proc/self/smaps_rollup; glibc rewrites the tunables it was
// started with in place, so the pages, not /proc/self/environ, tell whether it restarted).
// tests/cli/huge_pages.sh reads it.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/huge_pages.hpp"

int main(int, char** argv) {
  collsim::cli::restart_with_huge_pages(argv);
  std::vector<char> touched(std::size_t(64) << 20, 1);
  const char* now = std::getenv("GLIBC_TUNABLES");
  std::cout << "children get GLIBC_TUNABLES=" << (now ? now : "") << '\n';
  std::cout << "restart variable left: " << (std::getenv("COLLSIM_CALLER_GLIBC_TUNABLES") ? "yes" : "no") << '\n';
  std::ifstream rollup("/proc/self/smaps_rollup");
  for (std::string line; std::getline(rollup, line);)
    if (line.rfind("AnonHugePages:", 0) == 0) std::cout << line << '\n';
  return touched[touched.size() / 2] == 1 ? 0 : 1;
}
