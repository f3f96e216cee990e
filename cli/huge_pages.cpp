// cli/huge_pages.cpp — see the header: one restart with glibc.malloc.hugetlb=1.
#include "cli/huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace collsim::cli {

void restart_with_huge_pages(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.hugetlb";
  const char* off = std::getenv("COLLSIM_HUGE_PAGES");
  if (off && std::string(off) == "0") return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string before = tunables ? tunables : "";
  if (before.find(kTunable) != std::string::npos) return;  // set: by the restart, or by the user
  const std::string after = before.empty() ? std::string(kTunable) + "=1" : before + ":" + kTunable + "=1";
  if (setenv("GLIBC_TUNABLES", after.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: run on as we are
  if (tunables) {
    setenv("GLIBC_TUNABLES", tunables, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
}

}  // namespace collsim::cli
