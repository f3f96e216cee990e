// tests/cli/huge_pages_probe.cpp — a program that starts as collsim does
// (cli/huge_pages.hpp), then touches 64 MiB and prints what it ran with: its GLIBC_TUNABLES
// and the huge pages its memory got (/proc/self/smaps_rollup). tests/cli/huge_pages.sh reads it.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/huge_pages.hpp"

int main(int, char** argv) {
  collsim::cli::restart_with_huge_pages(argv);
  std::vector<char> touched(std::size_t(64) << 20, 1);
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::cout << "GLIBC_TUNABLES=" << (tunables ? tunables : "") << '\n';
  std::ifstream rollup("/proc/self/smaps_rollup");
  for (std::string line; std::getline(rollup, line);)
    if (line.rfind("AnonHugePages:", 0) == 0) std::cout << line << '\n';
  return touched[touched.size() / 2] == 1 ? 0 : 1;
}
