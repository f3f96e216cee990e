// cli/huge_pages.cpp — see the header: one restart with glibc.malloc.hugetlb=1, the caller's
// environment given back afterwards.
#include "cli/huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace collsim::cli {
namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb";
// Set across the restart: the GLIBC_TUNABLES the caller had ("-" for none), to give back.
constexpr const char* kCallerTunables = "COLLSIM_CALLER_GLIBC_TUNABLES";

void set_or_unset(const char* name, const char* value) {
  if (value) {
    setenv(name, value, 1);
  } else {
    unsetenv(name);
  }
}

// After the restart: glibc has read the tunable; the processes collsim starts (mpirun and its
// workers, whose times validate measures) get the caller's environment, not ours.
void give_back_caller_tunables(const std::string& caller) {
  set_or_unset("GLIBC_TUNABLES", caller == "-" ? nullptr : caller.c_str());
  unsetenv(kCallerTunables);
}

}  // namespace

void restart_with_huge_pages(char** argv) {
  if (const char* caller = std::getenv(kCallerTunables)) return give_back_caller_tunables(caller);
  const char* off = std::getenv("COLLSIM_HUGE_PAGES");
  if (off && std::string(off) == "0") return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string before = tunables ? tunables : "";
  if (before.find(kTunable) != std::string::npos) return;  // the user's own setting stands
  const std::string after = before.empty() ? std::string(kTunable) + "=1" : before + ":" + kTunable + "=1";
  if (setenv(kCallerTunables, tunables ? tunables : "-", 1) != 0) return;
  if (setenv("GLIBC_TUNABLES", after.c_str(), 1) == 0) execv("/proc/self/exe", argv);
  // The restart failed: run on as we are, on 4 KiB pages, with the caller's environment.
  give_back_caller_tunables(tunables ? tunables : "-");
}

}  // namespace collsim::cli
